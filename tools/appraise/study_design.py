"""Study design of a document, from metadata where a source gives publication types, else from the
title and abstract by patterns and a small classifier; its sample size comes from tools.appraise.sample_size.

Order of evidence: a source's publication types (Semantic Scholar's MetaAnalysis / Review /
CaseReport, OpenAlex's review), then the title, then the abstract. Within a text, the most specific
design wins (a meta-analysis of RCTs is a meta-analysis; an RCT in mice is an animal study).
Patterns read designs of people well where a text names them ("randomised", "case-control"), so a
title naming one, or an abstract naming any but a cohort, decides. Laboratory, animal and review
papers rarely name what they are, and cohort cues (follow-up, hazard ratios, registries) are common
in surveys and in laboratory work on patient samples: the rest goes to a classifier (logistic
regression over TF-IDF and the cues of design_features, tools/appraise/study_design_model.json, fitted by
`python -m evals.train_study_design`). What it is unsure of falls back to the patterns, else stays
undecided (None): the reputation prior then leaves the design component out. The model is asked
about undecided abstracts only when the caller passes one (setting trust.design_llm), and its
answer is kept only when validated.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

from claimscope.prompts.study_design import ABSTRACT_CHARS, PROMPT, StudyDesignInput
from claimscope.tools.appraise.ico import not_about_this_study
from claimscope.tools.appraise.sample_size import sample_size
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import Document


class Design(StrEnum):
    META_ANALYSIS = "meta_analysis"
    RCT = "rct"
    COHORT = "cohort"
    CASE_CONTROL = "case_control"
    CROSS_SECTIONAL = "cross_sectional"
    CASE_REPORT = "case_report"
    ANIMAL = "animal"
    IN_VITRO = "in_vitro"
    MODELLING = "modelling"
    NARRATIVE_REVIEW = "narrative_review"
    OTHER = "other"


# How a design is named in prose: singular and plural ("3 RCTs and 1 meta-analysis").
DESIGN_NAMES: dict[Design, tuple[str, str]] = {
    Design.META_ANALYSIS: ("meta-analysis / systematic review", "meta-analyses / systematic reviews"),
    Design.RCT: ("RCT", "RCTs"),
    Design.COHORT: ("cohort study", "cohort studies"),
    Design.CASE_CONTROL: ("case-control study", "case-control studies"),
    Design.CROSS_SECTIONAL: ("cross-sectional study", "cross-sectional studies"),
    Design.CASE_REPORT: ("case report / series", "case reports / series"),
    Design.ANIMAL: ("animal study", "animal studies"),
    Design.IN_VITRO: ("in vitro study", "in vitro studies"),
    Design.MODELLING: ("modelling study", "modelling studies"),
    Design.NARRATIVE_REVIEW: ("narrative review", "narrative reviews"),
    Design.OTHER: ("other study", "other studies"),
}


# The evidence hierarchy: how much a study design can establish on its own (design component of the
# prior). Syntheses of trials above trials, trials above observational designs, and designs
# that do not observe people (animal, in vitro, modelling) below those that do.
DESIGN_SCORES: dict[str, float] = {
    "meta_analysis": 1.0,
    "rct": 0.9,
    "cohort": 0.7,
    "case_control": 0.6,
    "cross_sectional": 0.5,
    "narrative_review": 0.4,
    "case_report": 0.3,
    "animal": 0.3,
    "modelling": 0.3,
    "in_vitro": 0.2,
    "other": 0.4,
}



def design_name(design: Design | str, count: int = 1) -> str:
    singular, plural = DESIGN_NAMES[Design(design)]
    return singular if count == 1 else plural


class DesignTag(BaseModel):
    design: Design | None = Field(None, description="None when neither metadata nor patterns decide.")
    basis: str = Field("", description="'metadata', 'title', 'abstract', 'classifier' or 'llm': where the design "
                       "was read.")
    sample_size: int | None = Field(None, ge=0)


_I = re.IGNORECASE
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)")
# "120", "1,204", "forty-seven", "one hundred and twelve"
_COUNT = rf"(?:\d[\d,]*|{_NUMBER_WORD}(?:(?:[ -]|\s+and\s+){_NUMBER_WORD})*)"
# Most specific first: the first design whose pattern matches a text is its design. A design can
# appear twice: its explicit names early, its weaker cues (what such a study does rather than what
# it is called) after the explicit names of the designs it is confused with.
_PATTERNS: list[tuple[Design, re.Pattern[str]]] = [
    (Design.META_ANALYSIS, re.compile(r"\bmeta-?\s?analy[sz]|\bsystematic(?:ally)?\s+(?:literature\s+)?(?:review|"
                                      r"search|evaluat|identif)|\bpooled analysis of (?:\d+|\w+) (?:randomi[sz]ed|"
                                      r"trials|studies)|\bumbrella review|\bnetwork meta|\b(?:searched|search of) "
                                      r"(?:\w+ ){0,3}(?:medline|pubmed|embase|cochrane|databases?)\b|"
                                      r"\beligible (?:studies|trials)\b|\bsystematic research review\b|\b(?:medline|embase|pubmed|cochrane "
                                      r"library|web of science|scopus)\b[^.]{0,80}\b(?:were|was) searched\b|"
                                      r"\b(?:studies|trials|articles) (?:were|was) (?:selected|retrieved)\b|\bincluded (?:studies|trials)\b|"
                                      r"(?-i:\bSTUDY SELECTION\b|\bDATA SOURCES\b)", _I)),
    # "in vitro fertilisation" is a treatment of people, not a laboratory study.
    (Design.IN_VITRO, re.compile(r"\bin[ -]vitro\b(?![ -]fertili[sz]ation)|\bcell lines?\b|\bcultured (?:\w+ )?cells\b|"
                                 r"\bcell cultures?\b|\bincubat(?:ed|ion) (?:of|with)\b|\bcells were (?:treated|"
                                 r"transfected|incubated|exposed)\b|\bfibroblasts?\b|\bdisc diffusion\b|"
                                 r"\bmicrodilution\b|\bminimum inhibitory concentrations?\b|(?<!circulating )\b(?:cancer|tumou?r|"
                                 r"carcinoma|leuka?emia|melanoma|glioma) cells\b", _I)),
    (Design.ANIMAL, re.compile(r"\b(?:mice|mouse|murine|rats?|rodents?|zebrafish|drosophila|primates?|"
                               r"macaques?|monkeys|pigs|piglets|swine|dogs|rabbits|hamsters|sheep|ewes|lambs|cattle|cows|"
                               r"calves|horses|cats|chickens|c\. elegans)\b|"
                               r"\banimal models?\b|\bknockout\b|\bin vivo\b|\b" + _COUNT + r" "
                               r"(?:\w+ )?animals\b", _I)),
    (Design.RCT, re.compile(r"(?<!non-)(?<!non )(?<!non)\brandomi[sz]ed(?:,)? (?:\w+[ -]){0,3}(?:trial|study)\b|"
                            r"\b(?:were|was|been) randomi[sz]ed\b|\brandomly (?:assigned|allocated)\b|"
                            r"\brandomi[sz]ed (?:to|into)\b|\bwe randomi[sz]ed\b|\brandomi[sz]ed manner\b|"
                            r"\bplacebo-controlled\b|\bcontrolled trial\b|\bcrossover trial\b|\bdouble[- ]blind", _I)),
    (Design.CASE_CONTROL, re.compile(r"\bcase-?\s?(?:control|referent|cohort)\b|\bcases and (?:\w+ )?controls\b|"
                                     r"\b(?:healthy|matched|age-matched|sex-matched|gender-matched|normal) (?:\w+ )?"
                                     r"(?:controls?|control (?:subjects|group|participants|patients|individuals)|"
                                     r"volunteers)\b|\bmatched (?:for|on|by) (?:\w+[ ,]+){0,3}(?:age|sex|gender)\b", _I)),
    (Design.CROSS_SECTIONAL, re.compile(r"\bcross-?\s?sectional\b|\bprevalence study\b|\btransversal study\b", _I)),
    (Design.COHORT, re.compile(r"\bcohorts?\b|\bprospective(?:ly)?\b|\blongitudinal(?:ly)?\b|\bfollow-?up (?:study|"
                               r"of \d|period|visits?|data|time|duration|was|interval)|\bfollowed (?:up )?(?:for|"
                               r"until|over|annually|monthly|yearly|prospectively|every)\b|\bmedian follow-?up\b|"
                               r"\bhazard ratios?\b|\bproportional hazards?\b|\bperson-years\b|\bkaplan-meier\b|"
                               r"\bsurvival analys[ie]s\b|\bincidence rates?\b|\bregistry\b|\bregister-based\b|"
                               r"\bpopulation-based\b|\b(?:data|record) linkage\b|\bretrospective(?:ly)?\b", _I)),
    (Design.CASE_REPORT, re.compile(r"\bcase reports?\b|\bcase series\b|\bwe (?:report|describe|present) "
                                    r"(?:a|an|the|two|three|\d+) (?:\w+ )?(?:cases?|patients?)\b|"
                                    r"\b(?:a|an) \d+-year-old\b", _I)),
    # Weaker cues, after the explicit names above.
    (Design.CROSS_SECTIONAL, re.compile(r"(?<!health )(?<!heath )\bsurvey\b(?! short)|\bquestionnaires? (?:was|were) (?:sent|mailed|administered|"
                                        r"completed|distributed)", _I)),
    (Design.CASE_CONTROL, re.compile(r"\b(?:and|with|to|versus|vs\.?) " + _COUNT + r" (?:\w+ ){0,2}controls\b|"
                                     r"\bcontrol group (?:consisted|comprised|was composed|included)\b|\b(?:comprised|formed|constituted|"
                                     r"served as) the control group\b|"
                                     r"\bcompared (?:with|to) (?:\w+ ){0,2}controls\b|\band " + _COUNT + r" (?:(?:age|sex|gender)[- ]"
                                     r"(?:and (?:age|sex|gender)-)?matched |matched )?healthy\b", _I)),
    (Design.COHORT, re.compile(r"\bconsecutive (?:\w+ ){0,2}(?:patients|cases|subjects|women|men|children|adults|"
                               r"admissions|participants|individuals)\b|\b(?:enrolled|admitted|recruited|included) "
                               r"consecutively\b|\bconsecutively (?:enrolled|admitted|recruited|included)\b|\bmedical records\b|\bchart review\b|\brecords were reviewed\b|"
                               r"\bwe reviewed\b|\bincidence of\b|\bbetween (?:(?:january|february|march|april|may|june|"
                               r"july|august|september|october|november|december) )?(?:19|20)\d\d and\b|"
                               r"\bfrom (?:19|20)\d\d (?:to|through|until) (?:19|20)\d\d\b|\bsecondary analysis\b|\bat baseline\b|"
                               r"\b(?:patients|subjects|participants|women|men|children|cases) were (?:divided|"
                               r"categori[sz]ed|stratified|classified|grouped) (?:into|in|according)\b", _I)),
    (Design.MODELLING, re.compile(r"\bmathematical model|\bsimulation|\bcost-effectiveness|\bmarkov model|"
                                  r"\bcomputational model|\bin silico\b|\bmodelling study|\bmodeling study", _I)),
    (Design.NARRATIVE_REVIEW, re.compile(r"\b(?:this|a|our|in this) (?:narrative |brief |mini-?)?review\b|"
                                         r"\bwe review\b|\breview of the literature\b|\bhere,? we review", _I)),
]
_ANIMAL = dict(_PATTERNS)[Design.ANIMAL]
# An abstract's own "DESIGN:" statement, read before the rest of the text.
_DESIGN_SECTION = re.compile(r"\b(?:DESIGN|STUDY DESIGN|Design|Study design)\b\s*[:.,-]?\s+([^.]{3,200})")

# Publication types from metadata (lower case) -> design; types that do not name a design
# (JournalArticle, Study, article) are ignored.
_METADATA: dict[str, Design] = {
    "metaanalysis": Design.META_ANALYSIS,
    "meta-analysis": Design.META_ANALYSIS,
    "systematic-review": Design.META_ANALYSIS,
    "casereport": Design.CASE_REPORT,
    "case-report": Design.CASE_REPORT,
}
# Reviews in metadata include systematic ones: the abstract decides which, else narrative.
_REVIEW_TYPES = {"review"}

def design_from_text(text: str) -> Design | None:
    """The design `text` states: its 'DESIGN:' section first, else the first (most specific)
    pattern that matches; between in vitro and animal, the one named more often (animal studies
    often culture cells, and cell studies mention the animals the cells came from)."""
    section = _DESIGN_SECTION.search(text)
    if section:
        stated = _first_design(section.group(1))
        if stated is not None:
            return stated
    return _first_design(text)


def _first_design(text: str) -> Design | None:
    for design, pattern in _PATTERNS:
        if pattern.search(text):
            if design is Design.IN_VITRO:
                vitro = len(pattern.findall(text))
                animal = len(_ANIMAL.findall(text))
                if animal > vitro:
                    return Design.ANIMAL
            return design
    return None


def design_sentence(design: Design, sentences: list[str]) -> int | None:
    """The index of the first sentence that names `design` by one of its patterns (the sentence an
    answer cites for "this is an RCT"), None when only the title or metadata says it."""
    patterns = [p for d, p in _PATTERNS if d is design]
    other_work = not_about_this_study(sentences)
    return next((i for i, s in enumerate(sentences)
                 if i not in other_work and any(p.search(s) for p in patterns)), None)


TOKEN_PATTERN = r"(?u)\b\w\w+\b"
_TOKEN = re.compile(TOKEN_PATTERN)
MODEL_PATH = Path(__file__).resolve().parent / "study_design_model.json"
# Designs of people that abstracts name; a title naming one decides before the classifier is asked.
PEOPLE_DESIGNS = frozenset({Design.META_ANALYSIS, Design.RCT, Design.COHORT, Design.CASE_CONTROL,
                            Design.CROSS_SECTIONAL, Design.CASE_REPORT})
# Designs whose patterns in an abstract decide before the classifier is asked. Not cohort: its cues
# (hazard ratios, registries, "prospectively", follow-up) are common in surveys and in laboratory
# papers on patient samples, where the classifier, which sees them as features, does better.
DECISIVE_IN_ABSTRACT = PEOPLE_DESIGNS - {Design.COHORT}
# Below this probability the classifier's answer is not taken (patterns, else undecided).
CLASSIFIER_MIN_PROB = 0.35
# A text shorter than this (about two sentences) is a snippet, not an abstract: the classifier's cues (tense,
# numbers, results reported) say nothing there, and it would read any plain statement as a review.
CLASSIFIER_MIN_WORDS = 15

# What the classifier reads besides the words, so that it learns when a pattern is to be trusted
# and what no word list shows: a review summarises and discusses in the present tense; a primary
# study reports numbers and results in the past tense; animal and cell cues counted against each
# other. Pattern cues are scaled down so that they weigh like a few informative words.
_PATTERN_SCALE = 0.3
_REVIEW_CUES = re.compile(r"\b(?:review|reviews|reviewed|discuss|discusses|discussed|summari[sz]e|summari[sz]es|"
                          r"highlight|highlights|overview|recent|advances|emerging|perspective|focus(?:es)? on|"
                          r"we propose|current understanding|insights?)\b", _I)
_RESULT_CUES = re.compile(r"\b(?:we (?:found|show|showed|demonstrate|demonstrated|identify|identified|report|observed|"
                          r"find)|here we|our (?:results|data|findings)|results (?:show|showed|indicate|suggest)|"
                          r"significantly|p\s*[<=>])|\d+(?:\.\d+)?\s*%|\bn\s*=", _I)
_PAST = re.compile(r"\b(?:was|were|had)\b", _I)
_PRESENT = re.compile(r"\b(?:is|are|has|have)\b", _I)
_VITRO = dict(_PATTERNS)[Design.IN_VITRO]
_STYLE = ("digit_sentences", "review_cues", "result_cues", "animal_cues", "vitro_cues", "animal_vs_vitro",
          "past_tense", "sentences", "words")
FEATURE_NAMES: tuple[str, ...] = (
    *(f"pattern{i}:{d.value}" for i, (d, _) in enumerate(_PATTERNS)),
    *(f"abstract:{d.value}" for d in Design),
    *(f"title:{d.value}" for d in Design),
    "design_section",
    *(f"style:{name}" for name in _STYLE),
)


def design_features(sentences: list[str], title: str = "") -> list[float]:
    """The classifier's cues besides the words (FEATURE_NAMES, in order) of an abstract, and of its
    title where the caller reads one."""
    body = " ".join(sentences)
    return _cues(sentences, body, design_from_text(body), design_from_text(title) if title else None)


def _cues(sentences: list[str], body: str, first: Design | None, named: Design | None) -> list[float]:
    """design_features, given the designs the patterns read in the abstract (`first`) and the title."""
    out = [_PATTERN_SCALE * bool(p.search(body)) for _, p in _PATTERNS]
    out += [_PATTERN_SCALE * (first is d) for d in Design]
    out += [_PATTERN_SCALE * (named is d) for d in Design]
    out.append(_PATTERN_SCALE * bool(_DESIGN_SECTION.search(body)))
    n = max(1, len(sentences))
    animal, vitro = len(_ANIMAL.findall(body)), len(_VITRO.findall(body))
    past, present = len(_PAST.findall(body)), len(_PRESENT.findall(body))
    out += [sum(bool(re.search(r"\d", s)) for s in sentences) / n,
            min(len(_REVIEW_CUES.findall(body)), 5) / 5,
            min(len(_RESULT_CUES.findall(body)), 5) / 5,
            math.log1p(animal) / 2, math.log1p(vitro) / 2, (animal - vitro) / (animal + vitro + 1),
            past / (past + present + 1), min(n, 20) / 20, min(len(body.split()), 400) / 400]
    return [float(v) for v in out]


class DesignClassifier(BaseModel):
    """Multinomial logistic regression over the TF-IDF of word unigrams and bigrams (sublinear tf,
    l2-normalised), as scikit-learn's TfidfVectorizer computes it, and over the cues of
    design_features when the model names them."""

    classes: list[str]
    terms: list[str]
    idf: list[float]
    coef: list[list[float]] = Field(description="One row per term: its weight for each class.")
    intercept: list[float]
    features: list[str] = Field(default_factory=list, description="The design_features the model was fitted "
                                "on, in order (FEATURE_NAMES); empty for words alone.")
    feature_coef: list[list[float]] = Field(default_factory=list, description="One row per feature: its weight "
                                            "for each class.")
    _index: dict[str, int] = PrivateAttr(default_factory=dict)

    def model_post_init(self, _context: object) -> None:
        if self.features and tuple(self.features) != FEATURE_NAMES:
            raise ValueError("the design classifier was fitted on other features than this version computes; "
                             "fit it again with `python -m evals.train_study_design`.")
        if len(self.feature_coef) != len(self.features):
            raise ValueError("the design classifier needs one row of feature_coef per feature.")
        self._index = {t: i for i, t in enumerate(self.terms)}

    def probabilities(self, text: str, features: list[float] | None = None) -> list[float]:
        """Class probabilities of `text`; `features` are its design_features, required when the model
        names any."""
        if self.features and features is None:
            raise ValueError("this design classifier reads design_features: pass them with the text.")
        words = _TOKEN.findall(text.lower())
        counts = Counter(words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)])
        weights: dict[int, float] = {}
        for term, n in counts.items():
            i = self._index.get(term)
            if i is not None:
                weights[i] = (1.0 + math.log(n)) * self.idf[i]
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        scores = list(self.intercept)
        for i, w in weights.items():
            for k, c in enumerate(self.coef[i]):
                scores[k] += c * w / norm
        if self.features:
            for value, row in zip(features or [], self.feature_coef, strict=True):
                if value:
                    for k, c in enumerate(row):
                        scores[k] += c * value
        top = max(scores)
        exp = [math.exp(v - top) for v in scores]
        total = sum(exp)
        return [e / total for e in exp]

    def predict(self, text: str, features: list[float] | None = None) -> tuple[Design, float]:
        probs = self.probabilities(text, features)
        k = max(range(len(probs)), key=probs.__getitem__)
        return Design(self.classes[k]), probs[k]


@lru_cache(maxsize=1)
def packaged_classifier() -> DesignClassifier | None:
    """The classifier shipped with the package (None if its file is missing)."""
    if not MODEL_PATH.is_file():
        return None
    return DesignClassifier.model_validate(json.loads(MODEL_PATH.read_text()))


def tag_design(doc: Document, *, use_title: bool = True,
               classifier: DesignClassifier | bool = True) -> DesignTag:
    """Design (metadata > title > abstract) and stated sample size of a document.

    A title or an abstract that names a design of people decides (in an abstract, all but cohort);
    the rest goes to the classifier, which reads the words and the pattern cues of title and
    abstract; what it is unsure of falls back to the title's design, then the abstract's, else
    undecided. `use_title=False` reads the abstract alone (the benchmark, whose labels come from
    titles). `classifier`: True for the packaged one, False for patterns alone, or a
    DesignClassifier.
    """
    size = sample_size(doc.text)
    types = [t.lower() for t in doc.publication_types]
    for t in types:
        if t in _METADATA:
            return DesignTag(design=_METADATA[t], basis="metadata", sample_size=size)
    title = doc.title if use_title else ""
    named = design_from_text(title) if title else None
    if named in PEOPLE_DESIGNS:
        return DesignTag(design=named, basis="title", sample_size=size)
    # What the abstract says of other work ("Randomised trials comparing these treatments are
    # lacking") names no design of this study.
    other_work = not_about_this_study(doc.sentences)
    d = design_from_text(" ".join(s for i, s in enumerate(doc.sentences) if i not in other_work))
    if any(t in _REVIEW_TYPES for t in types) and d not in (Design.META_ANALYSIS,):
        return DesignTag(design=Design.NARRATIVE_REVIEW, basis="metadata", sample_size=size)
    model = packaged_classifier() if classifier is True else classifier or None
    if d not in DECISIVE_IN_ABSTRACT and model is not None and len(doc.text.split()) >= CLASSIFIER_MIN_WORDS:
        guess, prob = model.predict(f"{title}. {doc.text}" if title else doc.text,
                                    _cues(doc.sentences, doc.text, d, named))
        if prob >= CLASSIFIER_MIN_PROB:
            return DesignTag(design=guess, basis="classifier", sample_size=size)
    if named is not None:
        return DesignTag(design=named, basis="title", sample_size=size)
    if d is not None:
        return DesignTag(design=d, basis="abstract", sample_size=size)
    return DesignTag(design=None, basis="", sample_size=size)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def tag_design_llm(doc: Document, llm: StructuredLLM) -> DesignTag | None:
    """The model's reading of an abstract the patterns left undecided, validated: the design is
    kept only when the model quotes at least three words of the abstract that show it, and the
    number of participants only when the abstract contains that number. None when the model
    fails, answers 'unclear', or its quote is not in the abstract."""
    text = doc.text
    if not text.strip():
        return None
    try:
        out = llm.run(PROMPT, StudyDesignInput(title=doc.title[:400], abstract=text[:ABSTRACT_CHARS]))
    except LLMError:
        return None
    quote = _norm(out.quote)
    if out.design == "unclear" or len(quote.split()) < 3 or quote not in _norm(text):
        return None
    size = out.participants
    if size is not None and not re.search(rf"(?<![\d,]){size:,}(?![\d,])|(?<!\d){size}(?!\d)", text):
        size = None
    return DesignTag(design=Design(out.design), basis="llm", sample_size=size)


def tagged(doc: Document, llm: StructuredLLM | None = None,
           classifier: DesignClassifier | bool = True) -> Document:
    """`doc` with study_design and sample_size set (kept when already set); with `llm`, an
    abstract that patterns and classifier leave undecided is read by the model (tag_design_llm)."""
    if doc.study_design is not None:
        return doc
    tag = tag_design(doc, classifier=classifier)
    if tag.design is None and llm is not None:
        read = tag_design_llm(doc, llm)
        if read is not None:
            tag = read.model_copy(update={"sample_size": tag.sample_size if tag.sample_size is not None
                                          else read.sample_size})
    return doc.model_copy(update={"study_design": tag.design.value if tag.design else None,
                                  "sample_size": doc.sample_size if doc.sample_size is not None else tag.sample_size})


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def design_summary(items: Iterable[tuple[str | None, str]]) -> str:
    """'3 RCTs and 1 meta-analysis / systematic review support; 2 cohort studies oppose' from
    (design, direction) pairs, direction 'supports' or 'opposes' (others ignored). Untagged designs
    count as 'studies of unknown design'. Designs are listed in order of the evidence hierarchy."""
    counts: dict[str, Counter[str]] = {"supports": Counter(), "opposes": Counter()}
    for design, direction in items:
        if direction in counts:
            counts[direction][design or ""] += 1
    order = [d.value for d in Design] + [""]
    out = []
    for direction, verb_one, verb_many in (("supports", "supports", "support"), ("opposes", "opposes", "oppose")):
        c = counts[direction]
        if not c:
            continue
        parts = [f"{n} {design_name(d, n) if d else ('study' if n == 1 else 'studies') + ' of unknown design'}"
                 for d in order if (n := c.get(d, 0))]
        total = sum(c.values())
        out.append(f"{_join(parts)} {verb_one if total == 1 else verb_many}")
    return "; ".join(out)
