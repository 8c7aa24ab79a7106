"""Whether one statement of a text is worth checking, by rules, with the reason in plain words:
a factual claim about the world that evidence could settle, or a question, an opinion, a plan, a
definition, the study's own aim, method or sample, or a fragment (tools/read/claim_extraction.py
splits the text and calls `judge` on each claim's wording).

The same rules tell whether a document's sentence states a finding rather than the study's aim,
method or background (`is_finding`): the aspect step shows only findings under an aspect, and the
explanation quotes only findings (`is_finding(..., strict=True)`, which also refuses every opening
that says what a study did).

Counts that are findings ("169 of 321 patients had ...", "X occurred in 14%") stay factual: a
method or sample sentence that also states a result is a finding.
"""

from __future__ import annotations

import re
from typing import Literal

from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.text.segmenter import without_section_label

# Words a statement needs to be a claim (fewer is a heading or a fragment).
MIN_CLAIM_WORDS = 4

Category = Literal["factual", "opinion", "plan", "definition", "question", "method", "sample", "fragment",
                   "context"]

REASONS: dict[str, str] = {
    "factual": "a factual statement about the world that published evidence could support or refute",
    "opinion": "an opinion, a judgement or a recommendation, which evidence cannot settle",
    "plan": "a plan or an intention, not a statement about the world as it is",
    "definition": "a definition of a word, true by convention rather than by evidence",
    "question": "a question, or one the text says is open ('whether X ... is unclear', 'has not been studied'), "
                "which asserts nothing about the world",
    "method": "describes the study's own aim, design or method, not a finding about the world",
    "sample": "describes who or what the study included (its sample or setting), not a finding",
    "fragment": "not a statement (a heading or a fragment without a verb)",
    "context": "refers to something named elsewhere in the text that the rules could not name: edit it to read "
               "alone before it is checked",
}


_OPINION = re.compile(
    r"\b(?:i|we) (?:(?:strongly |firmly )?(?:think|believe|feel|hope|expect)|(?:are|am) (?:delighted|excited|thrilled|"
    r"proud|pleased|happy|confident))\b|\bin (?:my|our) (?:view|opinion)\b|\b(?:should|ought to|must)\b|"
    r"\b(?:exciting|remarkable|amazing|wonderful|terrible|groundbreaking|ground-breaking|game[- ]changer|"
    r"incredible|fantastic|unacceptable|outrageous|disgraceful|shameful|brilliant|breakthrough|revolutionary|"
    r"best|worst|encouraging|promising|disappointing|reassuring)\b|\bit is (?:clear|obvious|time)\b|"
    r"\b(?:has|have) to be\b|"
    # A recommendation ("suggest the need to provide ...", "does not warrant exploration", "highlights the
    # importance of ...") and a speculative implication ("may inform the design of future trials", "may be a
    # feasible strategy", "might be indicated").
    r"\b(?:the|a|an urgent|a clear) need (?:to|for)\b|\b(?:warrants?|warranted)\b|"
    r"\bleads? us to (?:believe|think|suggest|recommend|propose)\b|"
    r"\b(?:highlights?|underscores?|underlines?|emphasi[sz]es?|stresses) the (?:importance|need|value)\b|"
    r"\b(?:may|might|could) (?:also )?(?:inform|guide|be indicated|be considered|be recommended|"
    r"be (?:a |an )?(?:[\w-]+ ){0,2}(?:strategy|option|approach|tool|alternative|avenue))\b|"
    # Speculation on a condition ("If long-term use is successful, the issue could be addressed").
    r"^if\b[^.]*,[^.]*\b(?:could|would|might)\b",
    re.I,
)
_PLAN = re.compile(
    r"\b(?:we|i|our (?:team|group|lab)|the (?:team|company|university|government|ministry|researchers|authors))"
    r"(?: \w+)? (?:will|plans? to|intends? to|aims? to|(?:are|is) going to|hopes? to)\b|"
    r"\b(?:plans? to|intends? to|is going to|are going to)\b|"
    r"\bwill be (?:launched|started|conducted|recruiting|published|rolled out|tested|opened|presented|offered|"
    r"funded|built|introduced|expanded|extended|made available)\b|"
    # An actor's announced action ("The council will fund ..."), not a prediction about the world.
    r"\b(?:will|shall)\s+(?:\w+ly\s+)?(?:fund|launch|start|open|offer|provide|introduce|build|invest|spend|hire|"
    r"expand|begin|add|roll out|create|host|publish|release|establish|implement|set up|recruit|continue|extend|"
    r"support|require|ban|allow|close|replace|pay|deliver|conduct|run|trial|award|appoint|announce|unveil|"
    r"present|hold|organi[sz]e|make available|give|train|install|upgrade|review|consult)\b|"
    r"^(?:future|further|next) (?:studies|research|work|steps?|trials?)\b",
    re.I,
)
_DEFINITION = re.compile(
    r"\b(?:is|are) (?:defined|described) as\b|\brefers? to\b|\b(?:is|are) (?:also )?(?:known|called) as\b|"
    r"\bstands for\b|\bis (?:a|the) (?:term|name) (?:for|given to)\b|\bby definition\b|"
    r"^[\w\s-]{1,60}? is the (?:process|practice|act) of\b|"
    # What a condition is ("Frailty is a syndrome of ...", "Celiac disease (CD) is an autoimmune enteropathy
    # characterized by ..."), and what an institution is for ("Trauma centers are designated to ...").
    r"^[\w\s-]{1,60}?(?: \([^)]{1,20}\))? (?:is|are) an? (?:[\w-]+ ){0,3}(?:syndrome|disorder|condition|disease|"
    r"enteropathy|entity)s? (?:of|in which|characteri[sz]ed by)\b|"
    r"\b(?:is|are) designated to\b|"
    # What a thing is made of ("X is a cluster of risk factors", "X is defined by HOMA-IR above 2.5").
    r"\b(?:is|are) defined by\b|^[\w\s-]{1,60}?(?: \([^)]{1,20}\))? (?:is|are) an? (?:[\w-]+ ){0,2}(?:cluster|"
    r"constellation|spectrum|family|class|group) of\b",
    re.I,
)
_AIM_VERBS = (r"(?:assess|determine|evaluate|investigate|examine|compare|explore|test|estimate|describe|quantify|"
              r"characteri[sz]e|correlate|identify|analy[sz]e|review|report|study|measure|establish|clarify|"
              r"document|present|point out|define|develop|validate|verify|elucidate|understand|ascertain|"
              r"summari[sz]e|update|perform|provide|see|find out|know|outline|discuss|highlight|emphasi[sz]e|"
              r"demonstrate|show|address|detect|predict|calculate|observe|learn|look|focus)")
_AIM = re.compile(
    r"^(?:the|our|an?|one|main|primary|secondary)?\s*(?:\w+\s+)?(?:aim|objective|purpose|goal|intent|hypothesis)s? "
    r"(?:of|was|were|is|are|in)\b|"
    r"^" + _AIM_VERBS + r"\b|"  # an aim as an imperative, after a heading: "AIM: Describe the mechanisms ..."
    r"\bwe (?:hypothesi[sz]ed|postulated|assumed)\b|^it was (?:hypothesi[sz]ed|postulated|assumed|expected|predicted) that\b|"
    r"^(?:here,? )?we (?:\(\w{1,3}\) )?(?:investigated?|investigatewd|examined?|explored?|assessed?|evaluated?|tested?|"
    r"asked) (?:if|whether|how)\b|"
    r"^(?:to|we (?:aimed|sought|wanted|wished|set out|intended|attempted|tried) to|"
    r"(?:this|the|our|present) (?:study|trial|review|work|paper|report|analysis|process|project|programme|program|"
    r"survey|initiative) (?:aimed|sought|aims|seeks) to|"
    r"the (?:present|current) (?:study|trial|review|work) (?:aimed|sought|aims|seeks) to) " + _AIM_VERBS + r"\b|"
    r"\b(?:(?:is|are) (?:hereby |here |also )?(?:presented|discussed|described|reported|reviewed|outlined)|"
    r"(?:this|the present|the current) (?:study|report|paper|article) (?:presents|describes|reports|discusses|"
    r"reviews|examines|examined|investigates|investigated|evaluates|evaluated|explores|explored))\b",
    re.I,
)
_METHOD_VERBS = (r"(?:conducted|performed|recruited|enrolled|randomi[sz]ed|analy[sz]ed|collected|searched|surveyed|"
                 r"interviewed|followed|included|measured|used|designed|carried out|reviewed|identified|screened|"
                 r"compared|distributed|studied|evaluated|assessed|examined|investigated|calculated|estimated|"
                 r"obtained|recorded|abstracted|extracted|retrieved|sent|administered|applied|developed|"
                 r"constructed|fitted|validated|quantified|tested|determined|defined|stratified|matched|"
                 r"classified|categori[sz]ed|grouped|divided|selected|allocated|assigned|treated|given|"
                 r"formulated|planned|kept|expressed|computed|documented|scored|graded|monitored|observed|"
                 r"received|obtained|sampled|involved|stimulated|quantified|genotyped|sequenced|imaged|scanned|adjusted|modelled|modeled|"
                 r"gathered|excluded|queried|mailed|provided|instilled|done|asked|taken|drawn|excised|harvested|"
                 r"processed|stained|frozen|stored|homogeni[sz]ed|injected|fed|housed|merged|pooled|derived|adapted|"
                 r"translated|transcribed|coded|weighed|invited|contacted|instructed|combined|held|trained|audited|"
                 r"ascertained)")
_METHOD = re.compile(
    r"^(?:(?:in|from|between|during|over|for|after|using|of|thus|therefore|here|then|finally|first|next|also|"
    r"subsequently|additionally|secondly|second|third|lastly|initially)\b"
    r"[^,]{0,80},\s*){0,2}(?:here,? )?(?:we|this (?:study|trial|review)|"
    r"the (?:study|studies|trial|trials|review|authors|researchers|investigators)|"
    r"an? (?:[\w-]+ ){0,3}(?:study|trial|registry|survey|audit|review))\b[^.]*?\b" + _METHOD_VERBS + r"\b|"
    # The design ("This was a prospective study of 1400 eyes", "A retrospective study of children aged 3-12 ..."),
    # and a measurement ("All subjects had their serum 25(OH)D level measured").
    r"^(?:this|it) (?:was|is) an? (?:[\w-]+,? ){0,5}(?:study|trial|analysis|review|survey|audit|series)\b|"
    r"^an? (?:[\w-]+,? ){1,5}(?:study|trial|analysis|review|survey|audit|series) (?:of|in|among|comparing|involving)\b|"
    r"\bhad (?:their|his|her) [^.]{0,80}?\b(?:measured|assessed|recorded|evaluated|tested|determined|checked)\b|"
    r"^we (?:report|describe|present)\b|\b(?:was|were) (?:then |also )?used to \w+|"
    r"\b(?:outcome|outcomes|end ?points?)\b[^.]*\b(?:examined|was|were)\s+whether\b|"
    # "A thromboelastogram analysis (n = 7) was made", "Evaluation of continence was based on the Cleveland score".
    r"\b(?:analysis|analyses|assessment|evaluation|measurements?|comparisons?)\b[^.;]{0,60}\b(?:was|were) made\b|"
    r"\b(?:was|were) based on (?:the |a |an )?(?:[\w-]+ ){0,5}(?:score|scale|criteria|questionnaire|classification|"
    r"definition|guidelines?|index|records?)\b",
    re.I,
)
# The main verb of a method sentence in the passive ("Models were compared using ...").
_PASSIVE_METHOD = re.compile(
    r"\b(?:was|were|had been)\s+(?:not\s+)?(?:\w+ly\s+)?(?:then\s+|also\s+|first\s+|further\s+)?"
    r"(?:randomly assigned|followed up|(?:re-|co-|cross-|pre-)?" + _METHOD_VERBS + r")\b",
    re.I,
)


# A word that opens a subordinate or relative clause: a passive method verb after one is not the
# main clause's ("... after a forced dilation was performed").
_SUBORDINATE = re.compile(r"\b(?:after|when|if|before|once|until|because|since|as|while|where|unless|who|which|that)\b",
                          re.I)


_LATER_FINITE = re.compile(r"\b(?:was|were|is|are|had|has|have|did|does|do)\b", re.I)


def _is_method(claim: str) -> bool:
    if _METHOD.search(claim):
        return True
    # An aside ("Radiation doses, when available, were analyzed") opens no clause of its own.
    claim = re.sub(r",\s*(?:when|where|if)\s+(?:available|possible|appropriate|necessary|indicated|applicable|needed|"
                   r"present|required)\s*,", ",", claim, flags=re.I)
    # A passive method verb of the main clause ("Nystagmus was analysed using ..."), also after a
    # relative clause of its subject ("Patients who underwent surgery ... were enrolled"): then no verb
    # stands before that clause and none after the passive one.
    for m in _PASSIVE_METHOD.finditer(claim):
        before = [w.lower() for w in _SUBORDINATE.findall(claim, 0, m.start())]
        if not before:
            return True
        first = _SUBORDINATE.search(claim, 0, m.start())
        if set(before) <= {"who", "which", "that"} and first is not None and not _LATER_FINITE.search(claim, m.end()) \
                and not has_verb(claim[:first.start()]):
            return True
    return False


# A study's sample or setting: "A total of 3910 members received ...", "Sixty-eight patients
# fulfilled the criteria", "The subset consisted of 709 residents".
_NUMBER = (r"(?:\d[\d,.]*|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
           r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
           r"hundred|thousand)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand))*)")
_SAMPLE = re.compile(
    r"^(?:(?:in|from|between|during|over|with|among)\b[^,]{0,100},\s*)?(?:a total of |overall,? |in total,? )?"
    + _NUMBER +
    r"\s+(?:[\w-]+\s+){0,4}?(?:patients|participants|subjects|people|persons|adults|children|men|women|boys|girls|"
    r"members|residents|individuals|cases|controls|volunteers|respondents|infants|students|pregnancies|eyes|"
    r"experts|professionals|clinicians|surgeons|pharmacists|employees|workers|veterans|smokers|donors|recipients|"
    r"newborns|neonates|adolescents|teachers|schools|countries|units|wards|"
    r"studies|trials|articles|records|samples|specimens|mice|rats|animals|families|couples|households|"
    r"hospitals|centres|centers|clinics|practices|physicians|doctors|nurses|women and men|men and women)\b"
    # who they were ("(20 women, 24 men; mean age 53.5 years)", "with early RA", "who had ...") before the verb
    r"(?:\s+\([^)]*\))?(?:,?\s+(?:with|who|from|aged|in|at|on|undergoing|receiving|having|treated)\b[^.;]{0,150}?)?"
    r",?\s+(?:were|was|had been|have been)?\s*(?:\w+ly\s+)?"
    r"(?:underwent|fulfilled|met|received|participated|completed|took part|answered|were enrolled|were included|"
    r"were recruited|were studied|were identified|were randomi[sz]ed|were analy[sz]ed|were evaluated|"
    r"were examined|were assessed|were followed|were screened|were eligible|responded|returned|agreed|"
    r"enrolled|included|recruited|studied|identified|randomi[sz]ed|analy[sz]ed|evaluated|examined|assessed|"
    r"screened|eligible|elected to undergo|were referred|were admitted|were operated on)\b|"
    r"^(?:a total of )?" + _NUMBER + r"\b[^.]*\b(?:were|was) (?:enrolled|included|recruited|randomi[sz]ed|"
    r"studied|analy[sz]ed|screened|identified|eligible)\b|"
    r"\b(?:consisted of|comprised|was composed of|were composed of)\b|^(?:a|the) (?:subset|sample|subgroup) of\b|"
    r"^(?:the )?(?:mean|median|average|minimum|maximum) (?:\w+ )?(?:age|follow-?up|duration of follow-?up|injury severity score|"
    r"bmi|body mass index)\b|"
    r"^(?:the )?(?:mean |median |average )?(?:patient |participant )?age (?:at|of) (?:presentation|diagnosis|onset|"
    r"surgery|inclusion|enrol?ment|admission) (?:averaged|was|ranged)\b|"
    r"^(?:the )?(?:subjects|participants|study population|study sample) (?:were|was|consisted of|comprised|included) "
    + _NUMBER + r"\b|"
    # The size of a group ("The primiparous group included 114 women"), and cases available for analysis.
    r"^(?:the )?(?:[\w-]+ ){0,3}(?:group|arm|cohort|sample|population|series|studies|trials) (?:included|comprised|"
    r"contained|enrolled) "
    r"(?:a total of )?" + _NUMBER + r"\b|\bavailable for (?:the )?(?:analysis|follow-?up|evaluation|review)\b|"
    r"^(?:(?:in|from|between|during|over|among|of)\b[^,]{0,60},\s*)?there (?:were|was) " + _NUMBER +
    r"\s+(?:[\w-]+\s+){0,3}?(?:presentations|admissions|patients|participants|"
    r"subjects|cases|visits|procedures|operations|births|deliveries|episodes|encounters|records|respondents|men|"
    r"women|boys|girls|children|adults|males|females)\b|"
    # Who the study took in ("our institution entered 35 patients into ...", "A consecutive cohort of RA patients
    # ... underwent tests", "All patients underwent surgical resection").
    r"^(?!we\b)[^.;]*?\b(?:entered|enrolled|recruited|included|randomi[sz]ed|identified|screened) (?:a total of )?"
    + _NUMBER +
    r"\s+(?:[\w-]+\s+){0,4}?(?:patients|participants|subjects|adults|children|men|women|individuals|volunteers)\b|"
    r"^an? (?:[\w-]+ ){0,3}(?:cohort|series|sample|group) of (?:(?:\d[\d,]*|[\w-]+) ){0,4}?(?:patients|participants|"
    r"subjects|people|adults|children|men|women|cases|individuals|volunteers)\b|"
    r"^all (?:the )?(?:[\w-]+ ){0,2}(?:patients|participants|subjects|children|women|men)\b[^.;]{0,80}?\bunderwent\b",
    re.I,
)
# Group sizes ("Twelve patients ... with normothermic (n = 6) or hypothermic (n = 6) CPB"), unless the
# sentence compares the groups ("Men (n = 680) and women (n = 356) were similar except that men ...").
_SIZES = re.compile(r"\(n\s*=\s*[\d,]+\)[^.]*\(n\s*=\s*[\d,]+\)", re.I)
_COMPARED = re.compile(r"\b(?:similar|except|differ\w*|higher|lower|greater|fewer|less|more|better|worse|"
                       r"increased|decreased|reduced|improved)\b", re.I)
# Group sizes in words: "82 patients had flu-PSA levels and 129 si-PSA levels" (the second count
# without a verb of its own; "12 patients relapsed and 3 died" is a finding).
_GROUP_SIZES = re.compile(r"^" + _NUMBER + r"\s+(?:patients|participants|subjects|children|women|men|cases|eyes)\s+"
                          r"(?:had|received|underwent|were)\b[^.;]*?\band\s+" + _NUMBER + r"\s+(?P<rest>[^.;]+)\.?$",
                          re.I)
# Who the sample were, whatever its figures: "Grandmultiparous women were predominantly Hispanic (56%)",
# "Patients ... were comparable with regard to age, body weight ...".
_COMPOSITION = re.compile(
    r"\b(?:were|was) (?:predominantly|mostly|mainly|largely|primarily) (?:male|female|men|women|white|black|"
    r"hispanic|latino|caucasian|asian|african[- ]american|boys|girls)\b|"
    r"\b(?:were|was) (?:comparable|similar|well[- ]matched|balanced|matched) (?:with regard to|with respect to|"
    r"in terms of|regarding|for|in)\s+(?:their\s+)?(?:age|sex|gender|baseline|demographic)|"
    # The sample's sex or ethnicity in shares ("26.5% were females and 73.5% males", "the majority were women (82%)").
    r"\b\d[\d.]*\s*%\s+(?:were\s+)?(?:females?|males?|women|men|boys|girls)\b(?:[^.;]*\b\d[\d.]*\s*%\s+(?:were\s+)?"
    r"(?:females?|males?|women|men|boys|girls)\b)|\bthe majority (?:were|was) (?:women|men|females?|males?|white|black|"
    r"caucasian|hispanic)\b",
    re.I)
# A survey's response rate describes its sample, whatever its figures.
_RESPONSE = re.compile(
    r"^we (?:received|obtained|collected)\b[^.]*\b(?:surveys|questionnaires|responses|replies)\b|"
    # who answered or stayed ("85% of programs responded to the survey", "579 women completed a follow-up")
    r"\b(?:responded|replied) to (?:the|our|this|a|an) (?:[\w-]+ )?(?:survey|questionnaire|invitation|letter|mailing|"
    r"e-?mail)\b|\bcompleted (?:the |a |an |all |both )?(?:[\w-]+ ){0,2}(?:survey|questionnaire|follow-?up|interview|"
    r"assessment|diary|diaries)s?\b|\bresponse rate\b",
    re.I)
# The study's own significance threshold ("A p value of 0.05 was considered significant").
_THRESHOLD = re.compile(r"\b(?:was|were) (?:considered|regarded as|taken as|set as|defined as) (?:to be )?"
                        r"(?:statistically )?significan|"
                        # The study's own definitions and cut-offs ("Flu-PSA level was defined as a PSA series with
                        # at least one value lower than ...", "the cut-off point was set at >=75%").
                        r"^[^,;]{0,80}?\b(?:was|were) defined as\b|"
                        r"\b(?:cut-?off|threshold)\b[^.]*\b(?:was|were) (?:set|fixed|chosen) (?:at|as)\b", re.I)
# What the study analysed, named by the measure it sought ("The difference between non-cycloplegic and
# cycloplegic measurements was analyzed."): a method, though "difference" reads like a result.
_ANALYSED = re.compile(
    r"^(?:the )?(?:differences?|associations?|correlations?|relationships?|agreement)\b[^.;]*?\b(?:was|were) "
    r"(?:then |also )?(?:analy[sz]ed|assessed|examined|evaluated|compared|tested|calculated|estimated|investigated|"
    r"determined|measured|explored|studied)(?:\s+(?:using|by|with|via|through|in|for|across)\b[^.;]*)?\.?$", re.I)
# What each arm got ("Group 2 received 1 mg/kg of saline", "Experimental patients received a coaching session").
_ARMS = re.compile(
    r"^(?:the |all )?(?:(?:experimental|intervention|control|treatment|study|placebo|sham)\s+)?(?:patients|participants|"
    r"subjects|animals|mice|rats|groups?|arms?)(?:\s+(?:\d+|[A-Z])(?:\s+and\s+(?:\d+|[A-Z]))?)?(?:\s+\([^)]*\))?\s+"
    r"(?:received(?! an? (?:median|mean|average|total)\b)|(?:was|were) (?:given|treated with|fed|injected with|"
    r"administered))\b", re.I)
# Where the data came from and what they held ("ED discharge data ... were merged with ...", "Exclusion
# criteria included ...").
_DATA_METHOD = re.compile(
    r"^(?:[^,;]{0,60},\s*)?(?:the |all |other )?(?:[\w'’/-]+\s+){0,5}?(?:data|records|charts|questions|items|"
    r"variables|information|samples?|specimens?|questionnaires?|surveys?|database|registry|registries)\b[^.;]{0,120}?\b(?:was|were) (?:\w+ly )?"
    r"(?:merged|linked|collected|obtained|extracted|retrieved|taken|drawn|derived|gathered|abstracted|pooled|combined|"
    r"reviewed|screened|mailed|sent|distributed|coded|queried|searched)\b|"
    r"^(?:the )?(?:other )?(?:data|variables|covariates|measures|outcome measures|(?:in|ex)clusion criteria|areas|"
    r"topics|items|questions|information)\b(?:\s+[\w-]+){0,4}?\s+(?:included|comprised|covered)\b|"
    # The study's outcomes and the length of its follow-up ("The primary outcome was all-cause mortality at 30 days",
    # "Outcomes included mortality and length of stay", "Follow-up lasted 5 years"), and what each one underwent.
    r"^(?:the )?(?:(?:primary|secondary|main|principal|co-primary)\s+)?(?:outcomes?|end ?points?|outcome measures?)"
    r"\s+(?:was|were|included|comprised|is|are)\b(?![^.;]*\b(?:lower|higher|reduced|increased|decreased|improved|"
    r"similar|different|better|worse|significant\w*|occurred|observed)\b)|"
    r"^(?:the )?(?:total |overall )?(?:duration of )?follow-?up (?:lasted|was|ranged|averaged|continued)\b(?![^.;]*%)|"
    r"^(?:each|every) (?:participant|patient|subject|child|woman|man|volunteer)\b[^.;]{0,60}?\b(?:underwent|received|"
    r"completed|was given|was asked)\b|"
    # What people were asked ("Participants were then asked to indicate whether ...").
    r"\b(?:was|were) (?:then |also |first |later )?asked (?:to|about|whether|if|for)\b|"
    # A heading-like line with its participle last ("Falls risk factors assessed.").
    r"^(?![^.;]*\b(?:was|were|is|are|had|has|have)\b)[\w\s,/-]{3,80}? (?:assessed|implemented|measured|recorded|"
    r"evaluated|collected|analy[sz]ed|examined|reviewed|documented)\.?$", re.I)
# A design named without an article ("Cross-sectional study of 55 patients", "Randomised controlled trial.").
_DESIGN = re.compile(
    r"^(?:retrospective|prospective|cross-sectional|longitudinal|observational|descriptive|comparative|multicent(?:er|re)|"
    r"randomi[sz]ed|double-blind(?:ed)?|controlled|population-based|case-control|cohort|pilot|qualitative|"
    r"single-cent(?:er|re))\b(?:[\s,]+[\w-]+){0,4}?\s+(?:study|trial|analysis|review|survey|audit|series)\b"
    r"(?=\s+(?:of|in|among|was|were|including|involving)\b|\s*[.,]?$)", re.I)
_FIGURES = re.compile(r"\d\s*%|\bp\s*[<=>≤]|significan", re.I)
# A question the text leaves open ("Whether X could be a biomarker is unclear", "It has yet to be shown
# whether ...", "its status in children has not been adequately studied", "their fate is poorly defined").
_OPEN_QUESTION = re.compile(
    r"^whether\b|"
    r"\b(?:is|are|was|were|remains?|remained)\s+(?:still\s+|as yet\s+|yet\s+)?(?:unclear|unknown|uncertain|"
    r"not (?:yet )?(?:known|clear|established|understood))\b|"
    r"\b(?:has|have)\s+(?:yet to be|not (?:yet )?been)\s+(?:\w+ly\s+)?(?:shown|established|studied|investigated|"
    r"examined|explored|determined|evaluated|assessed|addressed|elucidated|clarified|defined|characteri[sz]ed|"
    r"understood)\b(?!\s+to\b)|"
    r"\b(?:is|are|was|were|remains?)\s+(?:still\s+)?poorly\s+(?:defined|understood|characteri[sz]ed|known|studied)\b|"
    r"\blittle is known\b|\bremains? to be (?:determined|established|elucidated|shown|seen)\b",
    re.I)
# A method or sample sentence that also states a result is a finding ("We enrolled 300 adults and
# found ...", "Follow-up was performed by 89.4% of residents", "169 of 321 patients had ...").
_RESULT = re.compile(
    r"\b(?<!-)(?:found|find|showed|shows|show|demonstrated|revealed|suggests?|indicated?|concluded?|reduced|"
    r"increased|decreased|lowered|improved|prevented|caused|associated|linked (?:to|with)|correlated|predicted|"
    r"significant(?:ly)?|(?:higher|lower|greater|fewer|less|more|better|worse)\s+(?:[\w-]+\s+){0,5}?than|"
    r"(?:was|were|is|are|being)\s+(?:\w+ly\s+)?(?:higher|lower|greater|fewer|less|more|better|worse)|"
    r"differ(?:ed|ence)?|"
    r"most (?:frequently|often|commonly)|majority|minority|with no|no (?:major|serious|significant))\b|"
    r"\d\s*%(?=\s*(?:$|[),;.:(]|of\b|in\b|and\b|vs\b|versus\b|respectively\b|were\b|was\b|had\b))|\bper ?cent\b|"
    r"\bp\s*[<=>≤]|(?-i:\b(?:OR|RR|HR|AUC)\s*[=:])|"
    r"\bindependent (?:predictors?|prognostic factors?|risk factors?)\b|\bindependently (?:associated|predicted)\b|"
    r"\b\d[\d,]*\s+(?:of|out of)\s+(?:the\s+)?\d",
    re.I,
)
# A survey's finding about what people believe ("76.9% of residents believed that follow-up should
# be mandatory") is not the text's own opinion.
_REPORTED_BELIEF = re.compile(r"^(?!(?:we|i|our)\b).*?\b(?:believed|believe|felt|thought|agreed|reported|said|stated|"
                              r"considered|perceived|concluded|recommended|found)\s+that\b", re.I)
_NO_VERB_NEXT = {"of", "with", "for", "and", "or", "in", "on", "at", "by", "near", "after", "before",
                 "during", "per", "vs", "versus", ",", "(", "that", "which", "who", "whose", "where", "when", "are",
                 "were", "was", "is", "have", "had", "has", "did", "do", "may", "can", "could", "would", "will"}
_NOT_BEFORE_VERB = {"the", "a", "an", "of", "with", "in", "on", "at", "for", "from", "to", "by", "and", "or",
                    "that", "which", "who", "whose", "whom", "its", "their", "his", "her", "our", "these", "those",
                    "this", "some", "all", "no", "each", "every", "two", "three", "several", "many", "more", "most",
                    "as", "not"}
# Words ending in "s" that are no plural noun before a verb ("9 as type 2").
_NOT_PLURAL = {"as", "is", "was", "has", "its", "this", "thus", "his", "us", "whereas", "perhaps", "always", "across"}


# Irregular past tenses the grammar may not know ("No patient underwent an exploration").
_IRREGULAR = {"underwent", "took", "gave", "got", "made", "saw", "went", "grew", "rose", "fell", "led", "became", "ran",
              "won", "lost", "began", "met", "kept", "held", "left", "brought", "thought", "felt", "spent", "sent",
              "built", "paid", "undertook", "arose", "bore", "drank", "drove", "wrote", "knew", "understood", "withdrew",
              "bound", "fought", "lay", "meant", "slept", "sold", "told", "wore", "broke", "chose", "froze", "spoke",
              "taught", "caught", "fed", "fled", "struck", "stuck", "dealt", "shook", "sought", "spread", "overcame",
              "forgot", "hid", "rode", "sat", "stood", "swore", "threw", "upheld", "woke", "did", "had"}
_NOT_VERB_ENDINGS = ("ing", "ly", "al", "ic", "ive", "ous", "ent", "ant", "ary", "ory", "ion", "ity", "ness", "ment",
                     "ical", "ed", "s", "er", "or", "ist", "ism", "ure", "ance", "ence", "ship", "hood", "ful", "less",
                     "able", "ible", "th", "gy", "sis")


# The words of a statement, with the commas and brackets that tell a verb from a noun after them.
_WORD_OR_MARK = re.compile(r"[\w'’-]+|[,(]")
_WORD = re.compile(r"[A-Za-z0-9][\w'’\-]*")


def guessed_verb(text: str) -> int | None:
    """The offset of a word shaped like a finite verb after its subject ("DUSP4 decreases
    apoptosis", "68 patients fulfilled the criteria"), for verbs the grammar does not know."""
    words = [(m.group(0), m.start()) for m in _WORD_OR_MARK.finditer(text.rstrip(".!?"))]
    for i in range(1, len(words) - 1):
        (w, at), before, after = words[i], words[i - 1][0].lower(), words[i + 1][0].lower()
        prev = words[i - 1][0]
        if not w.replace("-", "").isalpha() or not w.islower() or before in _NOT_BEFORE_VERB or before == ",":
            continue
        # A compound adjective ("self-reported", "health-related") is no verb; a prefixed verb ("re-evaluated") is.
        compound = "-" in w and w.split("-")[0] not in ("re", "co", "pre", "un", "over", "under", "cross")
        if (w.endswith("ed") and len(w) > 4 and after not in ("and", "or", ",", "by", "to") and not compound) \
                or w in _IRREGULAR:
            return at
        if (w.endswith("es") or (w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")))) and \
                len(w) > 3 and after not in _NO_VERB_NEXT:
            return at
        # A base form after a plural or a named subject ("miRNAs enforce homeostasis").
        plural = (prev.endswith("s") and not prev.endswith(("ss", "us", "is")) and prev.lower() not in _NOT_PLURAL) \
            or prev.endswith(")") or \
            any(ch.isdigit() or ch.isupper() for ch in prev[1:])
        if plural and len(w) > 3 and not w.endswith(_NOT_VERB_ENDINGS) and after not in ("and", "or", ","):
            return at
    return None


def has_verb(text: str, *, with_subject: bool = False) -> bool:
    """Whether `text` reads as a clause: a verb the grammar knows or one `guessed_verb` finds;
    `with_subject`: only a verb with words before it counts."""
    parts = claim_components(text)
    if parts.relation and (parts.subject.strip() or not with_subject):
        return True
    return guessed_verb(text) is not None


# Verbs that take "of" ("consists of", "died of"); any other word before "of" is a noun the grammar took
# for the verb ("Stroke patients with prior use of anticoagulants had ...").
_OF_VERBS = {"consist", "consists", "consisted", "die", "dies", "died", "think", "thinks", "thought", "approve",
             "approves", "approved", "dispose", "disposed", "heard", "hear", "smell", "smelled", "smells",
             "complain", "complained", "complains", "remind", "reminded", "speak", "spoke", "accuse", "accused"}
_FINITE = re.compile(r"\b(?:had|has|have|was|were|is|are|did|does|do|could|can|may|might|would|will|should)\b", re.I)


# Adverbs the grammar leaves before the verb ("Patients with chronic pain more often reported ..."):
# not part of the subject another claim may borrow.
_TRAILING_ADVERBS = re.compile(r"(?:\s+(?:more|less|most|least|often|also|still|then|again|even|only|already|"
                               r"frequently|usually|generally|[a-z]+ly))+$", re.I)


def subject_of(text: str) -> str:
    """The subject of a statement: the words before its main verb, without the adverbs before
    that verb ("" when none is found)."""
    parts = claim_components(text)
    if parts.relation:
        relation = parts.relation.split()
        if len(relation) > 1 and relation[1].lower() == "of" and relation[0].lower() not in _OF_VERBS:
            later = _FINITE.search(text, len(parts.subject))
            subject = text[:later.start()] if later else ""
        else:
            subject = parts.subject
    else:
        at = guessed_verb(text)
        subject = text[:at] if at is not None else ""
    return _TRAILING_ADVERBS.sub("", subject.strip(" ,")).strip(" ,")


def states_result(text: str) -> bool:
    """Whether `text` words a result (a comparison, an association, a share, a p value), which makes a
    method or sample sentence a finding; words in brackets without figures ("in three positions
    (reduced, subluxated and everted)") state none."""
    return bool(_RESULT.search(re.sub(r"\([^()\d]*\)", "", text)))


def is_aim(text: str) -> bool:
    """Whether `text` states the study's aim, question or hypothesis ("To compare ...", "It was
    hypothesized that ...")."""
    return bool(_AIM.search(text.strip().strip("\"'“”‘’")))


def _group_sizes(text: str) -> bool:
    m = _GROUP_SIZES.search(text)
    return m is not None and guessed_verb(m.group("rest")) is None and not claim_components(m.group("rest")).relation


def judge(text: str) -> tuple[Category, str]:
    """The category of one claim's wording and the reason it is (or is not) check-worthy."""
    words = _WORD.findall(text)
    stripped = text.strip().strip("\"'“”‘’")
    if stripped.endswith("?") or _OPEN_QUESTION.search(stripped):
        return "question", REASONS["question"]
    if _AIM.search(stripped):
        return "method", REASONS["method"]
    if stripped.count(")") > stripped.count("("):
        return "fragment", REASONS["fragment"]
    verb = has_verb(stripped)
    if len(words) < MIN_CLAIM_WORDS and not (len(words) == MIN_CLAIM_WORDS - 1 and verb):
        return "fragment", REASONS["fragment"]
    if _DEFINITION.search(text):
        return "definition", REASONS["definition"]
    if _PLAN.search(stripped):
        return "plan", REASONS["plan"]
    reported = _REPORTED_BELIEF.search(text)
    if _OPINION.search(text) and not (reported and not _OPINION.search(text[:reported.end()])):
        return "opinion", REASONS["opinion"]
    if not verb:
        return "fragment", REASONS["fragment"]
    if _THRESHOLD.search(stripped) or (_ANALYSED.search(stripped) and not _FIGURES.search(stripped)):
        return "method", REASONS["method"]
    if _COMPOSITION.search(stripped):
        return "sample", REASONS["sample"]
    if _RESPONSE.search(stripped) and not re.search(r"[:;]", stripped):
        return "sample", REASONS["sample"]
    if _DATA_METHOD.search(stripped) and not _FIGURES.search(stripped):
        return "method", REASONS["method"]
    result = states_result(stripped)
    sizes = bool(_SIZES.search(stripped)) and not _COMPARED.search(stripped)
    if (_SAMPLE.search(stripped) or sizes or _group_sizes(stripped)) and not result:
        return "sample", REASONS["sample"]
    if (_is_method(stripped) or _ARMS.search(stripped) or _DESIGN.search(stripped)) and not result:
        return "method", REASONS["method"]
    return "factual", REASONS["factual"]


# ------------------------------------------------------------------------ a document's findings

# Structured-abstract headings under which a sentence is background, aim or method, not a finding.
_NOT_FINDING_LABELS = frozenset(
    """background introduction context importance objective objectives aim aims purpose hypothesis
    method methods methodology materials design setting settings participants patients subjects
    population intervention interventions exposure exposures measurement measurements main primary
    outcome outcomes measure measures data sources source study selection extraction""".split()
)
# Sentences that say what a study set out to do ("Here we investigated", "We sought to"); "Here we show
# that ..." and "In this study, we found that ..." state a finding.
_FOUND_THAT = (r"(?!\s+(?:\w+ly\s+)?(?:show|showed|demonstrate|demonstrated|find|found|report|reported|observe|"
               r"observed|reveal|revealed|establish|established|confirm|confirmed|provide evidence)\s+that\b)")
_STUDY_AIM = re.compile(
    r"^(?:(?:here|in this (?:study|paper|work|review)),? we\b" + _FOUND_THAT + r"|"
    r"we (?:aimed|sought|set out|wanted|investigated|"
    r"examined|explored|evaluated|assessed|hypothesi[sz]ed|tested whether|asked whether)|"
    r"(?:this|the present|the current|our) (?:study|paper|work|review|analysis) (?:aimed|aims|sought|seeks|"
    r"investigated|investigates|examined|examines|explored|explores|evaluates|evaluated|assessed|assesses)|"
    r"(?:little|less) is known|it is (?:unclear|unknown|not known)|whether .{0,80} (?:is|are|remains?) unclear)",
    re.I,
)
# Background, open questions, recommendations and method statements that read like results: "remains
# unknown", "should include", "has been proposed", "have been investigated".
_NOT_RESULT = re.compile(
    r"\b(?:remains?|is|are) (?:unknown|unclear|poorly understood|not known|controversial|debated)\b|"
    r"\b(?:should|must) (?:be|include|consider|receive)\b|\bhas been (?:proposed|suggested|hypothesi[sz]ed)\b|"
    r"\b(?:have|has) been (?:investigated|studied|examined|assessed|measured)\.?$|^(?:and relevance|relevance)\b|"
    r"^eligib|\beligible (?:studies|trials|participants)\b|"
    r"\b(?:was|were) (?:used|utili[sz]ed|employed|performed|conducted|recruited|enrolled) (?:to|in|from)\b",
    re.I,
)
# With `strict`: every opening that says what a study did or set out to do ("Here, using MEG we directly
# investigated how ...", "This study examined ..."), and what was not known before it.
_STUDY_DID = re.compile(
    r"^(?:(?:here|in\s+(?:this|the\s+present)\s+(?:study|work|paper|report))\s*,?\s+)?"
    r"(?:(?:using|by|with|in|through)\s+[^,]{1,80}?,?\s+)?we\s+(?:\w+ly\s+)?(?:investigated|investigate|examined|examine|"
    r"studied|study|assessed|assess|evaluated|evaluate|explored|explore|analy[sz]ed|analy[sz]e|tested|test|sought|seek|"
    r"aimed|aim|asked|ask|measured|measure|compared|compare|conducted|conduct|performed|perform|used|use|developed|"
    r"develop|hypothesi[sz]ed|hypothesi[sz]e|set\s+out|addressed|address|characteri[sz]ed|"
    r"characteri[sz]e|recruited|enrolled|reviewed|review|searched|search|designed|design|followed|surveyed|"
    r"interviewed|randomi[sz]ed|quantified|quantify|modelled|modeled)\b(?!\s+that\b)"
    r"|^(?:to|in\s+order\s+to)\s+(?:\w+ly\s+)?(?:determine|assess|investigate|examine|evaluate|explore|test|compare|"
    r"identify|characteri[sz]e|clarify|address|study|estimate|describe|quantify|understand|elucidate)\b"
    r"|^(?:the|our|this|a)\s+(?:\w+\s+)?(?:aims?|objectives?|purposes?|goals?)\s+(?:of|was|were|is|are)\b"
    r"|^(?:this|the\s+present|the\s+current|our|the)\s+(?:\w+\s+)?(?:study|trial|review|analysis|work|paper|report)\s+"
    r"(?:\w+ly\s+)?(?:aimed|aims|was\s+designed|is\s+designed|sought|seeks|investigated|investigates|examined|examines|"
    r"evaluated|evaluates|assessed|assesses|explores|explored|describes|described|was\s+conducted|included)\b"
    r"|\b(?:remains?|is|are)\s+(?:largely\s+|still\s+|currently\s+|as\s+yet\s+)?(?:unknown|unclear|uncertain|"
    r"poorly\s+understood|not\s+(?:well\s+|fully\s+)?(?:known|understood|established|clear))\b"
    r"|^little\s+is\s+known\b|^whether\b",
    re.IGNORECASE)
# What `judge` calls these is no finding; an opinion or a definition in a document may still be one.
_NOT_FINDINGS = frozenset({"method", "question", "plan", "fragment"})


def is_finding(text: str, *, strict: bool = False) -> bool:
    """Whether a document's sentence (its structured-abstract heading, if any, before it) states a
    finding, not the study's aim, method or background: no background / objective / methods heading,
    no "Here we ..." opening or background wording, and no aim, method, question, plan or fragment
    by `judge`. `strict` also refuses every opening that says what a study did or set out to do
    and what was not known before it (the explanation quotes only what such a sentence is not)."""
    if strict:
        text = text.strip()
    body = without_section_label(text)
    label = text[: len(text) - len(body)] if body != text else ""
    if label and set(re.findall(r"[a-z]+", label.lower())) & _NOT_FINDING_LABELS \
            and not re.search(r"\b(?:results?|findings|conclusions?|interpretation)\b", label.lower()):
        return False
    if strict and _STUDY_DID.search(body):
        return False
    body = body.strip()
    if _STUDY_AIM.search(body) or _NOT_RESULT.search(body):
        return False
    return judge(body)[0] not in _NOT_FINDINGS
