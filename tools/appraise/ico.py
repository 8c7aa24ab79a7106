"""Intervention, comparator and outcome of a finding, read from its sentence by patterns.

Over 600 lines: one concept (a study's PICO read by patterns: finding sentence, title, abstract
arms, population, the outcome the abstract states), whose patterns share their phrase pieces.

A trial's result sentence names what was compared and on what: "Compared with losartan,
telmisartan reduced FPG by 8%", "HDLC in the exercise group was significantly higher than in the
control group", "There were no differences in the closure rate between the A and B groups". The
patterns below read those shapes; a field a sentence does not name is None, never guessed
("between groups" names no arm). `ico_from_abstract` fills what a finding leaves open from the
abstract's own statement of the arms ("randomised to X or Y", "X versus Y").

Measured on Evidence Inference (evals/study_design.py, `ico_*`): evidence spans in, the prompt's
intervention / comparator / outcome as gold.

An association names its exposure first and its outcome second ("Placental weight was associated
with maternal breast cancer risk"), so its subject is no outcome; with a claim, the claim's own
exposure and outcome decide the columns (`claim_oriented`). A cell is a whole noun phrase, never
one cut inside a compound term or ending on a modifier (`is_fragment`).

The population (PICO's P) is the document's, not the finding's: `extract_population` reads the
title and abstract for who the study included, from the sentences about the study itself
(`study_sentences`: not a report of earlier work, an aside, or a background section while anything
else names them), every group a sentence lists; measured against hand labels (`population` in
evals/results/study_design.json).

What the abstract states was measured (`stated_outcome`: an outcome section, a named primary
outcome, "... were measured", the aim, a result naming its quantity) is the one outcome reader the
evidence table (where its finding names none, or its title's reading disagrees) and the chat's
outcome answers share.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.tools.find.sparse import tokenize
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.coverage import (
    DEFAULT_MIN_COVERAGE,
    ComponentTerms,
    component_terms,
    coverage,
)
from claimscope.tools.text.segmenter import section_headings, split_sentences, without_section_label

_I = re.IGNORECASE

# A phrase: words, numbers, hyphens, slashes, parentheses and "+", never a clause boundary.
_P = r"[^,;:.?!]{2,120}?"
_PW = r"[^,;:?!]{2,120}?"  # a phrase that may hold a decimal point ("1.5 mg")
_ARM = r"(?:\s+(?:groups?|arms?|patients|participants|subjects|cohorts?|conditions?|treatment|therapy|trial))?"
_THE = r"(?:the\s+|those\s+(?:in\s+|with\s+|on\s+|receiving\s+|treated\s+with\s+|given\s+)?|patients\s+(?:in|on|receiving|"\
       r"treated\s+with|given)\s+(?:the\s+)?|participants\s+(?:in|on|receiving)\s+(?:the\s+)?|subjects\s+(?:in|on|"\
       r"receiving)\s+(?:the\s+)?)?"
_CMP = (r"(?:significantly\s+|statistically\s+significantly\s+|slightly\s+|markedly\s+|much\s+|also\s+|not\s+|no\s+)*"
        r"(?:higher|lower|greater|less|better|worse|more|fewer|longer|shorter|larger|smaller|increased|decreased|"
        r"reduced|improved|elevated|superior|inferior|faster|slower)")
_THAN = (r"(?:than|compared\s+(?:with|to)|as\s+compared\s+(?:with|to)|in\s+comparison\s+(?:with|to)|versus|vs\.?|"
         r"relative\s+to|over)")
_BETWEEN_TAIL = r"(?:\s+groups?|\s+arms?|\s+treatments?|\s+conditions?)?"
_EFFECT = (r"(?:significantly\s+|also\s+|further\s+|markedly\s+|both\s+|did\s+not\s+|not\s+)*"
           r"(?:reduced|increased|improved|decreased|lowered|raised|enhanced|prolonged|shortened|attenuated|"
           r"prevented|caused|produced|resulted\s+in|led\s+to|affected|changed|altered|worsened|relieved|delayed|"
           r"accelerated|reduce|increase|improve|decrease|affect|change|alter)\b")
_DIFF = (r"(?:no\s+(?:statistically\s+)?(?:significant\s+)?|(?:a\s+)?(?:statistically\s+)?(?:significant\s+)?|"
         r"(?:were|was)\s+(?:not\s+)?(?:any\s+)?(?:statistically\s+)?(?:significant\s+)?)differences?")
_ASPECT = r"(?:in|of|for|regarding|in\s+terms\s+of|with\s+respect\s+to|with\s+regard\s+to|on)"

# Templates, most specific first; each names the fields it reads.
_TEMPLATES: list[re.Pattern[str]] = [
    # "Compared with losartan, telmisartan reduced FPG by 8%"
    re.compile(r"\bcompared\s+(?:with|to)\s+" + _THE + r"(?P<c>" + _P + r")" + _ARM + r",\s+" + _THE + r"(?P<i>" + _P
               + r")" + _ARM + r"\s+(?:had|showed|produced|was\s+associated\s+with\s+)?" + _EFFECT
               + r"\s+(?:the\s+)?(?P<o>" + _P + r")(?=\s+(?:by|from|to|at|in|after|over|during|and|\()|[,;.]|$)", _I),
    # "No significant difference in the closure rate between the A and B groups"
    re.compile(_DIFF + r"\s+(?:was\s+|were\s+)?(?:\w+\s+)?(?:observed\s+|found\s+|seen\s+|noted\s+|detected\s+)?"
               + _ASPECT + r"\s+(?:the\s+)?(?P<o>" + _P + r")\s+between\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM
               + r"\s+(?:and|vs\.?|versus)\s+" + _THE + r"(?P<c>" + _P + r")" + _BETWEEN_TAIL + r"(?=\s*[,;.(]|\s+(?:at|after|in|"
               r"during|on|for|with)\b|$)", _I),
    # "No difference between A and B in O"
    re.compile(_DIFF + r"\s+(?:was\s+|were\s+)?(?:\w+\s+)?(?:observed\s+|found\s+|seen\s+|noted\s+)?between\s+" + _THE
               + r"(?P<i>" + _P + r")" + _ARM + r"\s+(?:and|vs\.?|versus)\s+" + _THE + r"(?P<c>" + _P + r")"
               + _BETWEEN_TAIL + r"\s+" + _ASPECT + r"\s+(?:the\s+)?(?P<o>" + _P + r")(?=\s*[,;.(]|$)", _I),
    # "O was significantly higher in the A group than in the B group"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:was|were|is|are)\s+(?:\w+\s+){0,2}?" + _CMP
               + r"(?:\s+\([^)]*\))?\s+(?:in|with|for|among|on|after)\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM
               + r"(?:\s+\([^)]*\))?\s+" + _THAN + r"\s+(?:in\s+|with\s+|for\s+|among\s+|on\s+|after\s+|that\s+(?:in|of|with)\s+|"
               r"those\s+(?:in|of|with|receiving|treated\s+with)\s+)?" + _THE + r"(?P<c>" + _P + r")" + _ARM
               + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and)\b|$)", _I),
    # "O in the A group was significantly higher than that in the B group"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:in|with|for|among|of)\s+" + _THE + r"(?P<i>" + _P + r")"
               + _ARM + r"\s+(?:was|were)\s+(?:\w+\s+){0,2}?" + _CMP + r"(?:\s+\([^)]*\))?\s+" + _THAN
               + r"\s+(?:that|those)?\s*(?:in|with|for|of)?\s*" + _THE + r"(?P<c>" + _P + r")" + _ARM
               + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and)\b|$)", _I),
    # "The rate of progression to AIDS or death was slower in patients with a stable partnership"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:was|were)\s+(?:\w+ly\s+)?" + _CMP
               + r"\s+(?:in|among|for)\s+(?:the\s+)?(?:patients|participants|subjects|people|individuals|women|men|children|"
               r"adults|infants|those|mice|rats|animals)\s+(?:with|who\s+(?:had|received|reported|took|used|were\s+given)|"
               r"receiving|treated\s+with|given|taking|exposed\s+to)\s+(?:a\s+|an\s+|the\s+)?(?P<i>" + _P
               + r")(?=\s*[,;.(]|\s+(?:than|compared|versus|vs|at|after|during|and|who|in)\b|$)", _I),
    # "A was significantly better than B for O" / "EDOF was significantly better than AOMF for HCVA"
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+(?:was|were|is|are)\s+(?:\w+\s+){0,2}?"
               r"(?:more\s+effective|less\s+effective|better|worse|superior|inferior|similar|comparable|equivalent|"
               r"non-?inferior)\s+(?:than|to|with)\s+" + _THE + r"(?P<c>" + _P + r")" + _ARM + r"\s+" + _ASPECT
               + r"\s+(?:the\s+)?(?P<o>" + _P + r")(?=\s*[,;.(]|$)", _I),
    # "Muscle strength improved more with exercise training than with usual care": the outcome is the
    # subject, the arms follow the comparative
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:\w+ly\s+)?(?:(?:was|were)\s+(?:\w+ly\s+)?)?"
               r"(?:improved|increased|decreased|declined|fell|rose|changed|reduced|dropped)\s+(?:\w+ly\s+)?"
               r"(?:more|less|further)\s+(?:with|in|among|after|for|on|by)\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM
               + r"\s+than\s+(?:with\s+|in\s+|among\s+|after\s+|for\s+|on\s+|by\s+)?" + _THE + r"(?P<c>" + _P + r")"
               + _ARM + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and)\b|$)", _I),
    # "Telmisartan significantly reduced FPG compared with losartan"
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+" + _EFFECT + r"\s+(?:the\s+)?(?P<o>" + _P
               + r")\s+(?:\([^)]*\)\s+)?(?:significantly\s+)?(?:more\s+|less\s+)?" + _THAN + r"\s+" + _THE
               + r"(?P<c>" + _P + r")" + _ARM + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and)\b|$)", _I),
    # "O was X in the A group and Y in the B group"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:was|were)\s+[^;]{0,80}?\b(?:in|for|with)\s+" + _THE
               + r"(?P<i>" + _P + r")" + _ARM + r"(?:\s+\([^)]*\))?,?\s+(?:and|vs\.?|versus|compared\s+(?:with|to)|while|"
               r"whereas)\s+[^;]{0,60}?\b(?:in|for|with)\s+" + _THE + r"(?P<c>" + _P + r")" + _ARM + r"(?=\s*[,;.(]|$)",
               _I),
    # "Significantly higher PIP was recorded with I-Gel than PLMA", "fewer early failures in the
    # cautery study than in the fascial interposition group"
    re.compile(r"(?<!was )(?<!were )(?<!significantly )(?<!is )(?<!are )(?<!be )"
               r"\b(?:significantly\s+|\w+ly\s+)?(?:higher|lower|more|fewer|less|greater|better|worse|longer|shorter)\s+"
               r"(?:the\s+)?(?P<o>" + _P + r")\s+(?:(?:was|were)\s+(?:recorded|observed|found|reported|seen|noted|"
               r"detected)\s+)?(?:in|with|for|among|by)\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+" + _THAN
               + r"\s+(?:in\s+|with\s+|for\s+|among\s+|by\s+|those\s+(?:in|with|receiving|who\s+received)\s+)?" + _THE
               + r"(?P<c>" + _P + r")" + _ARM + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and|from)\b|$)", _I),
    # "There were significantly more perfect queries in the French group vs. the English group"
    re.compile(r"\bthere\s+(?:was|were)\s+(?:\w+ly\s+)?(?:more|fewer|less|greater|higher|lower)\s+(?:the\s+)?(?P<o>" + _P
               + r")\s+(?:in|with|for|among)\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+" + _THAN + r"\s+(?:in\s+|with\s+"
               r"|for\s+|among\s+)?" + _THE + r"(?P<c>" + _P + r")" + _ARM + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|"
               r"with|and)\b|$)", _I),
    # "SBP, DBP and pulse did not show significant difference between SJDBT group and placebo group"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>[^;:]{2,160}?)\s+(?:did\s+not\s+show|showed\s+no|had\s+no)\s+(?:\w+\s+){0,2}?"
               r"differences?\s+between\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+(?:and|vs\.?|versus)\s+" + _THE
               + r"(?P<c>" + _P + r")" + _ARM + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with)\b|$)", _I),
    # "Budesonide/formoterol had a lower maximum value than formoterol"
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+(?:had|showed|reported|experienced|achieved|"
               r"demonstrated|required|needed)\s+(?:a\s+|an\s+)?(?:\w+\s+){0,2}?" + _CMP + r"\s+(?P<o>" + _P + r")\s+"
               r"(?:\([^)]*\)\s+)?" + _THAN + r"\s+(?:in\s+|did\s+|with\s+)?" + _THE + r"(?P<c>" + _P + r")" + _ARM
               + r"(?=\s*[,;.(]|\s+(?:at|after|in|during|on|for|with|and)\b|$)", _I),
    # "Patients treated with aspirin had fewer strokes"
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+(?:had|showed|experienced|reported|achieved)\s+"
               r"(?:a\s+|an\s+)?(?:\w+ly\s+)?" + _CMP + r"\s+(?P<o>" + _P + r")(?=\s+(?:at|after|in|during|on|for|with|"
               r"and|from|\()\b|\s*[,;.(]|$)", _I),
    # "Meswak-based toothpaste resulted in significantly less plaque"
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")\s+(?:resulted\s+in|led\s+to|caused|produced)\s+(?:a\s+|an\s+)?"
               r"(?:\w+ly\s+)?(?:less|more|lower|higher|greater|fewer|(?:decrease|increase|reduction|improvement|rise|"
               r"fall|change)s?\s+(?:in|of))\s+(?:the\s+)?(?P<o>" + _P + r")(?=\s+(?:by|from|to|at|in|after|over|during|and|\()|"
               r"[,;.]|$)", _I),
    # "Compared with Group P2.5, the CR rate was significantly improved at all intervals in Group P+D"
    re.compile(r"\bcompared\s+(?:with|to)\s+" + _THE + r"(?P<c>" + _P + r")" + _ARM + r",\s+(?:the\s+)?(?P<o>" + _P
               + r")\s+(?:was|were)\s+[^;]{0,60}?\b(?:in|with|for|among)\s+" + _THE + r"(?P<i>" + _P + r")" + _ARM
               + r"(?=\s*[,;.(]|$)", _I),
    # "No significant difference was found between the vomiting scores of each group"
    re.compile(_DIFF + r"\s+(?:was\s+|were\s+)?(?:\w+\s+)?(?:observed\s+|found\s+|seen\s+|noted\s+)?between\s+(?:the\s+)?"
               r"(?P<o>" + _P + r")\s+(?:of|in)\s+(?:each|both|the\s+two|the\s+three|all|the)\s+(?:\w+\s+)?groups?\b", _I),
    # "With regard to desaturation, lip bleeding and dental injury, there were no ..."
    re.compile(r"^(?:with\s+regard\s+to|regarding|concerning|as\s+for|as\s+regards|with\s+respect\s+to)\s+(?:the\s+)?"
               r"(?P<o>[^;:]{2,100}?),\s+(?:there|no|the|a|both|all)\b", _I),
    # "A significantly reduced O" (no comparator named)
    re.compile(r"^(?:\w+,\s+)?" + _THE + r"(?P<i>" + _P + r")" + _ARM + r"\s+" + _EFFECT + r"\s+(?:the\s+)?(?P<o>" + _P
               + r")(?=\s+(?:by|from|to|at|in|after|over|during|\()|[,;.]|$)", _I),
    # "There was no significant difference between groups in exacerbation rate"
    re.compile(_DIFF + r"\s+(?:was\s+|were\s+)?(?:\w+\s+)?(?:observed\s+|found\s+|seen\s+|noted\s+)?between\s+(?:the\s+)?"
               r"(?:two\s+|three\s+|treatment\s+|study\s+|trial\s+)?(?:groups|arms)\s+" + _ASPECT + r"\s+(?:the\s+)?(?P<o>"
               + _P + r")(?=\s+(?:at|after|during|in|between)\b|\s*[,;.(]|$)", _I),
    # "There were no significant differences in O between groups"
    re.compile(_DIFF + r"\s+(?:was\s+|were\s+)?(?:\w+\s+)?(?:observed\s+|found\s+|seen\s+|noted\s+|detected\s+)?" + _ASPECT
               + r"\s+(?:the\s+)?(?P<o>" + _P + r")(?=\s+(?:between|among|across|in|at|after|during)\b|\s*[,;.(]|$)", _I),
    # "O did not differ between / was similar in the two groups"
    re.compile(r"^(?:\w+,\s+)?(?:the\s+)?(?P<o>" + _P + r")\s+(?:did\s+not\s+(?:differ|change)|(?:was|were)\s+"
               r"(?:not\s+)?(?:significantly\s+)?(?:different|similar|comparable|not\s+affected|unaffected|unchanged|"
               r"higher|lower|greater|less|better|worse|increased|decreased|reduced|improved))\b", _I),
]
# An association names its exposure first and its outcome second, whatever the direction words say:
# "A stable partnership was associated with a slower rate of progression to AIDS or death", "the
# association between placental weight and maternal breast cancer risk".
_DIRECTION = (r"(?:(?:\w+ly\s+)?(?:higher|lower|increased|decreased|reduced|greater|smaller|slower|faster|elevated|"
              r"better|worse|poorer|improved|shorter|longer|more|less|fewer|excess)\s+)?(?:both\s+)?"
              r"(?:(?:(?:mean|median|average)\s+)?(?:increases?|decreases?|reductions?|rises?|falls?|changes?|"
              r"improvements?|declines?|elevations?)\s+(?:in|of)\s+(?:the\s+)?)?")
_ASSOCIATION_END = (r"(?=\s*[,;.(\[]|\s+(?:in|among|at|after|during|for|when|whereas|while|but|independent(?:ly)?|"
                    r"compared|than|across|over|between|within|only|both|irrespective|regardless|and\s+(?:\w+ly\s+)?"
                    r"(?:was|were|is|are|has|have|had|should|may|might|could|can|would|will|with|in|not))\b|$)")
_ASSOCIATIONS: list[re.Pattern[str]] = [
    re.compile(r"^(?:[^,;:]{0,60},\s+)?(?:the\s+|a\s+|an\s+)?(?P<i>[^,;:]{2,100}?)\s+(?:\([^)]*\)\s+)?(?:was|were|is|are|"
               r"has\s+been|have\s+been|remained|appeared)\s+(?:\w+ly\s+)?(?:not\s+)?(?:\w+ly\s+)?(?:associated|"
               r"correlated|linked)\s+(?:with|to)\s+(?:an?\s+|the\s+)?" + _DIRECTION + r"(?P<o>[^,;:]{2,120}?)"
               + _ASSOCIATION_END, _I),
    re.compile(r"\b(?:associations?|relationships?|relations?|correlations?|links?)\s+(?:(?:was|were)\s+(?:\w+\s+)?"
               r"(?:found|observed|noted|seen|detected|shown)\s+)?(?:between|of)\s+(?:the\s+|a\s+|an\s+)?"
               r"(?P<i>[^,;:()]{2,80}?)\s+(?:and|with|to)\s+(?:the\s+|a\s+|an\s+)?" + _DIRECTION
               + r"(?P<o>[^,;:()]{2,100}?)" + _ASSOCIATION_END, _I),
]
_ASSOCIATED_BEFORE = re.compile(r"\b(?:associations?|relationships?|relations?|correlations?|links?)\s+"
                                r"(?:(?:was|were)\s+(?:\w+\s+)?\w+\s+)?$", _I)
# An arm named anywhere in a sentence: "I versus C", "between I and C", "in the A group ... in the B group".
_VERSUS = re.compile(r"(?:^|[\s(])(?P<i>[A-Za-z][^,;:.()]{1,60}?)\s+(?:versus|vs\.?)\s+(?P<c>[A-Za-z][^,;:.()]{1,60}?)"
                     r"(?=\s*[,;:.()]|\s+(?:groups?|arms?|in|at|for|was|were|on|respectively)\b|$)", _I)
_BETWEEN = re.compile(r"\bbetween\s+" + _THE + r"(?P<i>[^,;:.()]{2,60}?)" + _ARM + r"\s+and\s+" + _THE
                      + r"(?P<c>[^,;:.()]{2,60}?)" + _BETWEEN_TAIL + r"(?=\s*[,;:.()]|\s+(?:in|at|for|on|was|were|regarding)\b|$)",
                      _I)
_COMPARED_TO = re.compile(r"\b(?:compared|as\s+opposed|relative|in\s+comparison)\s+(?:with|to)\s+" + _THE
                          + r"(?P<c>[^,;:.()]{2,60}?)" + _ARM + r"(?=\s*[,;:.()]|\s+(?:at|after|in|during|on|for|and|was|"
                          r"were|group)\b|$)|\b(?:versus|vs\.?)\s+(?P<c2>placebo|sham|control|saline|vehicle|usual\s+care|"
                          r"standard\s+care|no\s+treatment)\b", _I)
_TREATED = re.compile(r"\b(?:treatment|therapy|supplementation|administration|infusion|injections?|pretreatment)\s+(?:with|of)"
                      r"\s+(?P<i>[^,;:.()]{2,50}?)(?=\s*[,;:.()]|\s+(?:at|after|in|during|on|for|and|was|were|resulted|"
                      r"compared|versus|vs|than|group)\b|$)|\b(?:receiving|given|treated\s+with|taking)\s+(?P<i2>[^,;:.()]{2,50}?)"
                      r"(?=\s*[,;:.()]|\s+(?:at|after|in|during|on|for|and|was|were|compared|versus|vs|than|group|had|"
                      r"showed)\b|$)|\b(?P<i3>[A-Za-z][\w/+-]{2,40})-(?:treated|exposed|based)\b|\bfollowing\s+"
                      r"(?P<i4>[^,;:.()]{2,50}?)\s+(?:supplementation|treatment|administration|therapy|intake)\b", _I)
_GROUP = re.compile(r"\b(?:in|for|with|of|among)\s+the\s+(?P<g>[^,;:.()]{2,50}?)\s+(?:group|arm)\b", _I)
_PLACEBO = re.compile(r"\b(?:placebo|sham|usual care|standard care|no treatment|control)\b", _I)
# The arms as an abstract states them.
_RANDOMISED = re.compile(r"\b(?:randomi[sz]ed|randomly\s+(?:assigned|allocated))\s+(?:\([^)]*\)\s+)?(?:\w+\s+){0,4}?"
                         r"(?:to|into|between)\s+(?:receive\s+|either\s+|one\s+of\s+(?:two|three)\s+(?:groups|arms)[:,]?\s+)*"
                         r"(?:the\s+)?(?P<i>[^,;:.]{2,80}?)\s*(?:\([^)]*\)\s*)?,?\s+(?:or|and|versus|vs\.?)\s+(?:to\s+)?"
                         r"(?:receive\s+)?(?:the\s+)?(?P<c>[^,;:.]{2,80}?)(?=\s*[,;:.(]|\s+(?:for|during|at|in|on|daily|groups?)\b|$)",
                         _I)

# An outcome as a sentence's subject: "The mean gastric residual volume after feeding ... was 59.7 ml",
# "Lactate dehydrogenase significantly decreased in group 2", after an opening adverbial
# ("At 12 months, ", "However, ").
_OPENING = re.compile(r"^(?:(?:the\s+)?(?:results?|analys[ie]s|(?:[\w-]+\s+){0,3}tests?|(?:\w+\s+)?anova|(?:\w+\s+)?"
                      r"regression(?:\s+analys[ie]s)?|comparisons?|data)\s+(?:also\s+)?(?:showed|revealed|indicated|"
                      r"demonstrated|suggested)\s+(?:that\s+)?|we\s+(?:also\s+)?(?:found|observed|noted|saw)\s+(?:that\s+)?|"
                      r"(?:however|overall|similarly|also|furthermore|moreover|in addition|additionally|finally|"
                      r"notably|importantly|likewise|in contrast|conversely|thus|therefore|interestingly)\s*,?\s+|"
                      r"(?:at|after|by|during|following|before|from|on|over|within|until|in)\s+[^,]{1,50},\s+)+", _I)
_SUBJECT = re.compile(r"^(?P<o>[A-Za-z\u2018\u201c\"'][^,;:]{2,140}?)\s+(?:\([^)]*\)\s+)?(?:(?:was|were|is|are|has|have|had)\s+"
                      r"(?:been\s+)?(?:\w+ly\s+)?(?:not\s+)?|(?:did|does)\s+not\s+|(?:\w+ly\s+)?(?:also\s+)?(?:tended\s+to\s+)?)"
                      r"(?:higher|lower|greater|less|better|worse|more|fewer|longer|shorter|larger|smaller|similar|comparable|"
                      r"different|differ|increased|decreased|reduced|improved|declined|rose|fell|changed|unchanged|"
                      r"elevated|enhanced|occurred|remained|showed|observed|found|seen|noted|detected|reported|recorded|"
                      r"significant|significantly|statistically|numbered|averaged|ranged|decrease|increase|improve|"
                      r"affected|unaffected|measured|associated)\b|^(?P<o2>[A-Za-z][^,;:]{2,140}?)\s+(?:was|were)\s+\d", _I)
# A table row pasted as evidence: "Total mortality 98/2006 (4.9%) 132/2027 (6.5%) 0.76", "(1) Smoking
# causes bad breath .......... 98.4 100 N.S."
_TABLE_ROW = re.compile(r"^(?:\(\d+\)\s*)?(?P<o>[A-Za-z][^0-9=<>:;]{2,120}?)\s*(?:\.{2,}[\s.]*|\s)(?:[-\u2212+]?\d|<|>|\()")
_THERE_WERE = re.compile(r"\bthere\s+(?:was|were)\s+(?:a\s+|an\s+|no\s+|\w+\s+)?(?:\w+\s+)?(?:cases?|episodes?|events?|"
                         r"increases?|decreases?|reductions?|improvements?|changes?|rises?|falls?|declines?|trends?|"
                         r"tendency)\s+(?:of|in|for|toward|towards)\s+(?:the\s+)?(?P<o>[^,;:.()]{2,100}?)"
                         r"(?=\s+(?:in|between|among|across|at|after|during|with|for|to)\b|\s*[,;:.()]|$)", _I)
_IN_TERMS = re.compile(r"\b(?:in\s+terms\s+of|regarding|with\s+(?:respect|regard)\s+to)\s+(?:the\s+)?(?:changes?\s+in\s+)?"
                       r"(?P<o>[^,;:.()]{2,100}?)(?=\s*[,;:.()]|\s+(?:between|among|at|in|was|were)\b|$)", _I)
# "no effect of prebiotics on diarrhoea", "did not influence VO2 peak", "a significant increase in
# the initial claudication distance", "No severe adverse effects were reported", "a significant
# time effect for lean body mass".
_EFFECT_ON = re.compile(r"\b(?:no\s+(?:significant\s+)?effects?\s+(?:of\s+[^,;:.()]{2,60}?\s+)?on|(?:did|does|seemed)\s+not\s+"
                        r"(?:to\s+)?(?:influence|affect|alter|change|improve|reduce|increase)|(?:significant\s+|marked\s+|"
                        r"greater\s+|small\s+|slight\s+)?(?:increases?|decreases?|reductions?|improvements?|changes?|"
                        r"rises?|falls?|declines?)\s+in|effects?\s+for)\s+(?:the\s+)?(?P<o>[^,;:.()]{2,100}?)"
                        r"(?=\s*[,;:.()]|\s+(?:between|among|at|in|was|were|which|with|from|after|during|compared|versus|vs|"
                        r"than|for|by)\b|$)", _I)
_NONE_WERE = re.compile(r"^no\s+(?P<o>[^,;:.()]{2,100}?)\s+(?:was|were|occurred)\s*(?:reported|observed|seen|found|noted|"
                        r"detected|recorded|identified)?\b", _I)
_ARM_TAIL = re.compile(r"\s+(?:in|of|for|with|among|on)\s+(?:the\s+|both\s+|all\s+|each\s+)?[^,;:]{0,60}?(?:groups?|arms?|"
                       r"patients|participants|subjects|trials?)\b.*$", _I)
_NOT_ARM = re.compile(r"\b(?:was|were|is|are|showed|had|has|have|did|does|than|there|which|that|who|whom)\b|^(?:in|at|from|by|"
                      r"during|between|among|for|with|to|on|significantly|both|all|each|any|two|three)\b(?!-)", _I)
_NOT_OUTCOME = re.compile(r"\bthan\b|^(?:when|if|because|since|after|before|once|until|unless|treated|receiving|given|taking|treatment\s+with|exposure\s+to|supplementation\s+with|administration\s+of|of|"
                          r"were|was|using|about|in|at|from|by|during|between|among|for|with|to|on|significantly|there|"
                          r"here|it|this|these|"
                          r"they|we|those|both|all|patients|participants|subjects|group|groups|no|a\s+total|(?:one|two|three)\b(?!-)|"
                          r"compared|results?|differences?|analysis|table|figure|fig)\b(?!-)", _I)
_CONTROL_ARM = re.compile(r"^(?:placebo|sham|control|usual care|standard care|no treatment|vehicle)\b", _I)
_LEADING = re.compile(r"^(?:the|a|an|both|all|those|patients|participants|subjects|group|mean|median|overall)\s+", _I)
_TRAILING = re.compile(r"\s+(?:groups?|arms?|patients|participants|subjects|was|were|is|are|alone|only|respectively)$", _I)


class ICO(BaseModel):
    """What a finding compares: the intervention or exposure, its comparator and the outcome."""

    intervention: str | None = Field(None, description="The treatment or exposure the finding is about.")
    comparator: str | None = Field(None, description="What it is compared with (placebo, another arm).")
    outcome: str | None = Field(None, description="What was measured.")

    def merged(self, other: ICO) -> ICO:
        """This reading, its missing fields filled from `other`."""
        return ICO(intervention=self.intervention or other.intervention,
                   comparator=self.comparator or other.comparator, outcome=self.outcome or other.outcome)


def _clean(phrase: str | None) -> str | None:
    if phrase is None:
        return None
    p = " ".join(phrase.split()).strip(" ,;:-")
    p = re.sub(r"^(?:participants|patients|subjects|children|women|men)[\u2019']s?\s+", "", p, flags=_I)
    for _ in range(2):
        p = re.sub(r"^(?:and|but|or|while|whereas)\s+", "", p, flags=_I)  # "but the mean cholesterol level ..."
        p = _LEADING.sub("", p)
        p = _TRAILING.sub("", p).strip(" ,;:-")
    p = re.sub(r"\s+[-\u2212]?\d+(?:\.\d+)?\s*%$", "", p)  # a result after the arm: "usual care 14%"
    # An unclosed parenthesis is a cut-off abbreviation: "(HbA1c" -> "".
    if p.count("(") > p.count(")"):
        p = p[: p.rfind("(")].strip()
    if len(p) < 2 or len(p.split()) > 15 or not re.search(r"[A-Za-z]", p):
        return None
    return p


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def _first_sentence(text: str) -> str:
    # Thousands separators go: the phrase patterns end at commas, and "2,500 g" is one number.
    return _THOUSANDS.sub("", html.unescape(" ".join(text.split())))


def extract_ico(sentence: str) -> ICO:
    """Intervention, comparator and outcome that one finding sentence names; fields it does not name
    are None."""
    text = _first_sentence(without_section_label(sentence))
    found = _association(text)
    for pattern in _TEMPLATES:
        m = pattern.search(text)
        if not m:
            continue
        fields = m.groupdict()
        read = ICO(intervention=_arm(fields.get("i")), comparator=_arm(fields.get("c")),
                   outcome=_outcome(fields.get("o")))
        found = found.merged(read)
        if found.intervention and found.comparator and found.outcome:
            break
    if not found.outcome:
        found = found.merged(ICO(outcome=_outcome_anywhere(text)))
    if not (found.intervention and found.comparator):
        found = found.merged(_arms(text))
    if found.intervention and not found.comparator and (placebo := _PLACEBO.search(text)):
        found = found.merged(ICO(comparator=placebo.group(0).lower()))
    # An arm is neither the outcome nor the other arm: a template that read one phrase twice
    # ("the macular integrity index ... in the DHA group") named no arm.
    if found.intervention and found.intervention in (found.outcome, found.comparator):
        found = ICO(intervention=None, comparator=found.comparator, outcome=found.outcome).merged(_arms(text))
        if found.intervention in (found.outcome, found.comparator):
            found = ICO(intervention=None, comparator=found.comparator, outcome=found.outcome)
    # The comparator is the control arm, whichever the sentence names first.
    if found.intervention and found.comparator and _CONTROL_ARM.search(found.intervention) \
            and not _CONTROL_ARM.search(found.comparator):
        found = ICO(intervention=found.comparator, comparator=found.intervention, outcome=found.outcome)
    return found


# What names a treatment or exposure, not an outcome: "Nausea was not associated with amoxicillin treatment".
_EXPOSURE_NOUN = re.compile(r"\b(?:treatment|therapy|use|exposure|intake|supplementation|administration|"
                            r"vaccination|smoking|drinking)\b", _I)
_LEADING_DIRECTION = re.compile(r"^(?:(?:the|a|an)\s+)?" + _DIRECTION, _I)


def _association(text: str) -> ICO:
    """The exposure and outcome of an association the sentence states (_ASSOCIATIONS), else nothing;
    one in a subordinate clause ("While X was associated with Y, there was no difference ...") is
    not the sentence's finding."""
    for body in (_OPENING.sub("", text), text):
        for pattern in _ASSOCIATIONS:
            m = pattern.search(body)
            if not m:
                continue
            if _CONCESSIVE.match(m.group("i")):
                return ICO()
            i, o = _arm(_LEADING_DIRECTION.sub("", m.group("i"))), _outcome(m.group("o"))
            if i and o and i != o:
                # The exposure may come second: "Nausea was not associated with amoxicillin treatment".
                swap = _EXPOSURE_NOUN.search(o) and not _EXPOSURE_NOUN.search(i)
                return ICO(intervention=o, outcome=i) if swap else ICO(intervention=i, outcome=o)
    return ICO()


# A group named by what its members did or got: "patients who underwent needlescopic appendectomy",
# "HAART who reported a stable partnership", "Beta-blocked patients who received early atropine".
_WHO_GOT = re.compile(r"^(?:.*?\s)?(?:who|that)\s+(?:had\s+)?(?:underwent|received|reported|took|used|had|were\s+given|"
                      r"were\s+treated\s+with|were\s+assigned\s+to|were\s+randomi[sz]ed\s+to|were\s+exposed\s+to)\s+", _I)
# "Treatment with GIK", "treatment of young infants with macrolide antibiotics": the arm is what was given.
_TREATMENT_WITH = re.compile(r"^(?:treatment|therapy|supplementation|administration|use)\s+(?:of\s+(?:[\w-]+\s+){1,4}?"
                             r"(?:with|using)\s+|with\s+|of\s+)(?=\S)", _I)
_CONCESSIVE = re.compile(r"^\s*(?:although|though|while|whereas)\s+", _I)


def _arm(phrase: str | None) -> str | None:
    if phrase:
        phrase = _TREATMENT_WITH.sub("", _WHO_GOT.sub("", phrase.strip()))
    p = _clean(phrase)
    return None if p is None or _NOT_ARM.search(p) else p


# An outcome phrase ends before a verb of its own and not on a function word: "quit rates were
# observed" -> "quit rates", "risk of breast cancer before but not" -> "risk of breast cancer".
_VERB = re.compile(r"\s+(?:is|are|was|were|be|been|being|has|have|had)\b.*$", _I)
_DANGLING = re.compile(r"(?:\s+(?:a|an|the|of|to|and|or|but|not|nor|before|after|with|without|for|in|on|by|at|from|"
                       r"as|than|that|which|whereas|while|both|only))+$", _I)


# A clause a conjunction opens ends the outcome: "maternal breast cancer risk as placental weight
# increased" -> "maternal breast cancer risk" ("adverse events such as nausea", "as well as" stay).
_CLAUSE_AFTER = re.compile(r"(?<!\bsuch)(?<!\bwell)\s+(?:as(?!\s+well\s+as\b|\s+(?:assessed|measured|determined|"
                           r"defined|evaluated|indicated|estimated|reported|rated|scored)\b)|because|since|when|whereas|"
                           r"while|although|though|if|unless)\s+.*$", _I)


def _outcome(phrase: str | None) -> str | None:
    # "Although the need for operation was lower ...": the outcome follows a concessive opener.
    p = _clean(_CONCESSIVE.sub("", phrase) if phrase else phrase)
    if p is None or _NOT_OUTCOME.search(p):
        return None
    p = _DANGLING.sub("", _CLAUSE_AFTER.sub("", _VERB.sub("", p)))
    return p if len(p) >= 2 else None


def _outcome_anywhere(text: str) -> str | None:
    """The outcome outside the comparison templates: 'in terms of O', 'there were N cases of O', a
    table row's label, or the sentence's subject."""
    for pattern in (_IN_TERMS, _THERE_WERE, _NONE_WERE, _EFFECT_ON):
        m = pattern.search(text)
        if m and (o := _outcome(m.group("o"))):
            return o
    body = _OPENING.sub("", text)
    m = _TABLE_ROW.match(body)
    # A row label is short and verbless, and numbers follow it.
    if m and len(m.group("o").split()) <= 10 and not re.search(
            r"\b(?:was|were|is|are|had|has|showed|occurred|\w+ed)\b", m.group("o"), _I) \
            and len(re.findall(r"\d+(?:[.,/]\d+)?", body[m.end("o"):m.end("o") + 40])) >= 2:
        return _outcome(m.group("o").rstrip(". "))
    m = _SUBJECT.match(body)
    if m:
        return _outcome(_ARM_TAIL.sub("", m.group("o") or m.group("o2")))
    return None


# "... with I-Gel compared to PLMA", "in the krill group compared with the fish group", "with intranasal
# and intramuscular glucagon, respectively", "after 8-week liraglutide treatment".
_WITH_COMPARED = re.compile(r"\b(?:with|in|after|following|by)\s+" + _THE + r"(?P<i>[^,;:.()]{2,60}?)" + _ARM
                            + r"\s+(?:(?:as\s+)?compared\s+(?:with|to)|versus|vs\.?|relative\s+to|than\s+(?:with|in|after)"
                            r")\s+" + _THE + r"(?P<c>[^,;:.()]{2,60}?)" + _ARM + r"(?=\s*[,;:.()]|\s+(?:at|after|in|during|"
                            r"on|for|and|was|were|group|groups|respectively)\b|$)", _I)
_RESPECTIVELY = re.compile(r"\b(?:with|in|for)\s+" + _THE + r"(?P<i>[^,;:.()]{2,60}?)" + _ARM + r"\s+and\s+" + _THE
                           + r"(?P<c>[^,;:.()]{2,60}?)" + _ARM + r",?\s+respectively\b", _I)
_AFTER_TREATMENT = re.compile(r"\b(?:after|following)\s+(?:\d+[- ](?:week|month|day|year)s?\s+)?"
                              r"(?P<i>[A-Za-z][\w/+-]{2,40})\s+(?:treatment|therapy|supplementation|"
                              r"administration|use)\b", _I)


def _arms(text: str) -> ICO:
    """The arms a sentence names outside the templates: "between I and C", "I versus C", "treated with
    I", "compared with C", "in the A group ... in the B group"."""
    found = ICO()
    for pattern in (_RESPECTIVELY, _WITH_COMPARED):
        # "in expired tidal volume was seen with I-Gel compared to PLMA": the first "in" reads a clause,
        # the later "with" the arm
        start = 0
        while (m := pattern.search(text, start)) is not None:
            i, c = _arm(m.group("i")), _arm(m.group("c"))
            if i and c and i != c:
                return ICO(intervention=i, comparator=c)
            start = m.start() + 1
    for pattern in (_BETWEEN, _VERSUS):
        m = pattern.search(text)
        if m and pattern is _BETWEEN and _ASSOCIATED_BEFORE.search(text, 0, m.start()):
            continue  # "the association between X and Y" names an exposure and an outcome, not two arms
        if m:
            i, c = _arm(m.group("i")), _arm(m.group("c"))
            if i and c:
                return ICO(intervention=i, comparator=c)
    m = _TREATED.search(text) or _AFTER_TREATMENT.search(text)
    if m:
        found = found.merged(ICO(intervention=_arm(next(g for g in m.groups() if g))))
    m = _COMPARED_TO.search(text)
    if m:
        c = _arm(m.group("c") or m.group("c2"))
        if c and c != found.intervention:
            found = found.merged(ICO(comparator=c))
    groups = [g for g in dict.fromkeys(_arm(g) for g in _GROUP.findall(text)) if g]
    groups = [g for g in groups if g not in (found.intervention, found.comparator)]
    if not found.intervention and groups:
        found = found.merged(ICO(intervention=groups.pop(0)))
    if not found.comparator and groups:
        found = found.merged(ICO(comparator=groups.pop(0)))
    return found


def ico_from_abstract(sentences: Iterable[str]) -> ICO:
    """The arms an abstract states ("randomised to X or Y"), for what a finding leaves open."""
    for s in sentences:
        m = _RANDOMISED.search(_first_sentence(s))
        if m:
            i, c = _clean(m.group("i")), _clean(m.group("c"))
            if i and c:
                return ICO(intervention=i, comparator=c)
    return ICO()


def document_ico(finding: str | None, sentences: Sequence[str], *, claim: str | None = None,
                 title: str | None = None) -> ICO:
    """What a document's finding compares: read from the finding sentence, with the arms the
    abstract states ("randomised to X or Y") and then what its `title` names ("Effects of X on Y",
    title_ico) where the finding names none. A reading that is a piece of a clause rather than a
    phrase ("acceleration in SSB consumption trends ... would be expected to") is dropped first. With
    `claim`, oriented by the claim's relation (claim_oriented)."""
    read = extract_ico(finding) if finding else ICO()
    read = ICO(intervention=_cell(read.intervention, arm=True), comparator=_cell(read.comparator, arm=True),
               outcome=_cell(read.outcome))
    plain = read
    if not (read.intervention and read.comparator):
        read = read.merged(ico_from_abstract(sentences))
    named = title_ico(title)
    if not (read.intervention and read.outcome):
        read = read.merged(named)
    if claim:
        oriented = claim_oriented(claim, read, finding, sentences)
        # What orientation leaves open (a finding naming only the exposure) the title may still name.
        rest = claim_oriented(claim, named, None, [])
        read = ICO(intervention=oriented.intervention or (rest.intervention if rest.intervention != oriented.outcome else None),
                   comparator=oriented.comparator,
                   outcome=oriented.outcome or (rest.outcome if rest.outcome != oriented.intervention else None))
    # Every column passes the cell test, whichever path filled it (title templates and claim
    # phrases included); an empty comparator takes the control arm the abstract states.
    out = ICO(intervention=_cell(read.intervention, arm=True), comparator=_cell(read.comparator, arm=True),
              outcome=_cell(read.outcome))
    # People named alone with nothing they are compared with are who answered, not what was given
    # ("Care providers reported higher compliance").
    if out.intervention and out.comparator is None and names_people(out.intervention) \
            and not _EXPOSED_PEOPLE.search(out.intervention):
        out = ICO(comparator=out.comparator, outcome=out.outcome)
    # An outcome is what was measured: not whom the study included, nor its exposure read twice; the
    # finding's own outcome stands in when orientation picked one of those.
    if out.intervention and out.outcome and set(tokens(out.outcome)) < set(tokens(out.intervention)):
        # "dermal depth after 8 weeks" read as the arm is the outcome read twice: no arm named
        out = ICO(comparator=out.comparator, outcome=out.outcome)
    population = extract_population(title, sentences) if sentences or title else None
    if out.outcome and not is_outcome(out.outcome, population=population, exposure=out.intervention):
        fallback = plain.outcome
        fits = fallback and is_outcome(fallback, population=population, exposure=out.intervention)
        out = ICO(intervention=out.intervention, comparator=out.comparator, outcome=fallback if fits else None)
    # What the abstract says outright it measured wins over an outcome its title or the claim suggested
    # (the people studied, the exposure), and any outcome it states fills an empty cell; one the finding
    # sentence itself names stays, being what it compares.
    stated = stated_outcome(sentences, population=population) if sentences else None
    named_by_finding = bool(out.outcome and finding and set(tokens(out.outcome)) <= set(tokens(finding)))
    if stated and (out.outcome is None or (stated.outright and not named_by_finding
                                           and not set(tokens(out.outcome)) & set(tokens(stated.outcome)))):
        outcome = _cell(stated.outcome)
        # an exposure that is the outcome's own words is the outcome read twice
        drop = out.intervention and outcome and set(tokens(out.intervention)) <= set(tokens(outcome))
        out = ICO(intervention=None if drop else out.intervention, comparator=out.comparator, outcome=outcome)
    if out.comparator is None:
        control = stated_control([finding or "", *sentences, title or ""])
        if control and control not in ((out.intervention or "").lower(), (out.outcome or "").lower()):
            out = ICO(intervention=out.intervention, comparator=control, outcome=out.outcome)
    return out


# A table cell is a noun phrase: one holding a clause's verb, modal or opening word is a fragment.
_FRAGMENT = re.compile(r"\b(?:would|could|should|can|may|might|will|shall|is|are|was|were|be|been|being|has|have|"
                       r"had|does|did|provides?|suffers?|appears?|seems?|remains?|expected)\b|^(?:whether|this|these|"
                       r"that|however|it|there|thus|which|we|our|here)\b", _I)
CELL_MAX_WORDS = 15
# A phrase that opens on a preposition or conjunction is the tail of a clause ("as placental weight",
# "such as placental weight"); the Latin "in vitro" / "in vivo" terms are nouns' modifiers.
_CUT_START = re.compile(r"(?:such\s+as|as|and|or|but|nor|of|to|than|with|without|by|from|at|on|in|into|because|since|when|"
                        r"while|whereas|although|though|if|unless|until)\s+(?!(?:vitro|vivo|utero|situ|silico)\b)", _I)
# A verb's -ing form with its object after it is a clause's predicate, not a measure ("providing a
# palliative care" cut out of "... can lead the way in providing a palliative care approach").
_GERUND_START = re.compile(r"\w{3,}ing\s+(?:a|an|the|this|these|that|those|their|its|his|her|our|such)\s", _I)


# A phrase cut before its noun: it ends on a function word ("standards ... to streamline vaccine
# for"), on a possessive with nothing owned ("Nigeria' s"), or on a modifier ("ligand-dependent",
# "solar-powered", "mitochondrial", "acute myocardial", "birthweight and premenopausal", "mouse
# embryonic", "UCP1-independent thermogenic").
_CUT_END = re.compile(r"(?:(?:^|\s)(?:a|an|the|of|to|and|or|but|not|nor|with|without|for|in|on|by|at|from|as|than|that|"
                      r"which|whose|its|their|this|these|those|very|more|most|less|through|via|into|onto|upon|across|"
                      r"against|toward|towards|about|over|under|within|between|among|during|after|before|while|whereas)|\w\s*[\u2019']\s+s|"
                      r"-(?:dependent|independent|powered|based|induced|mediated|related|associated|like|free|"
                      r"specific|derived|treated|resistant|sensitive|positive|negative|driven|bound|linked|resident)|"
                      r"\b[a-z]+(?:ial|ual|ical|inal|onal|ular|ary|ous|ive|ible|able|etic|atic|ific))$", _I)
# Outcomes and exposures are named by their noun: one ending on any modifier ("premenopausal",
# "thermogenic", "acute", "pregnant") is cut. An arm may end on one, its noun ("group") being dropped
# ("the needlescopic group" -> "needlescopic"), so arms are held to _CUT_END alone.
_MODIFIER_END = re.compile(r"(?:\b[a-z]+(?:al|ic|[ai]tory)|\b(?:nuclear|linear|lumbar|polar|bipolar|solar|lunar|similar|"
                           r"vulvar|plantar|alveolar|bovine|porcine|canine|feline|murine|equine|ovine|uterine|"
                           r"intrauterine|endocrine|exocrine|malignant|pregnant|recurrent|persistent|deficient|"
                           r"resistant|latent|dominant|intermittent|concurrent|subsequent|transient|prevalent|acute|"
                           r"chronic|severe|mild|moderate|early|late|overall))$", _I)
# Nouns with an adjective's ending, common in a study's arms and outcomes.
_NOUN_ENDINGS = {"survival", "withdrawal", "removal", "referral", "approval", "trial", "denial", "dismissal", "ritual",
                 "individual", "manual", "residual", "potential", "official", "chemical", "terminal", "capillary",
                 "summary", "salary", "diary", "infirmary", "sedative", "contraceptive", "laxative", "preservative",
                 "diuretic", "narrative", "relative", "detective", "objective", "initiative", "alternative",
                 "representative", "incentive", "derivative", "adhesive", "explosive", "variable", "vegetable",
                 "table", "cable", "primary", "anniversary", "boundary", "library", "glossary", "dispensary",
                 "pituitary", "mortuary", "sanctuary", "anaesthetic", "anesthetic", "antiemetic", "emetic",
                 "commentary", "documentary", "burial", "material", "hospital", "interval", "signal", "animal",
                 "journal", "canal", "mammal", "arrival", "renewal", "proposal", "disposal", "reversal", "retrieval",
                 "refusal", "appraisal", "rental", "festival", "crystal", "metal", "capital", "rival", "criminal",
                 "general", "radical", "principal", "mineral", "decimal", "tribunal", "rehearsal", "spiral", "vial",
                 "dial", "medal", "goal", "coal", "meal", "deal", "seal", "appeal", "ordeal", "cereal", "ideal",
                 "retinal", "barbital", "phenobarbital", "pentobarbital", "chloral", "portal", "carnival",
                 "clinic", "topic", "logic", "music", "antibiotic", "epidemic", "pandemic", "mechanic", "arsenic",
                 "garlic", "traffic", "republic", "critic", "tonic", "mimic", "panic", "fabric", "rubric", "public",
                 "plastic", "antipsychotic", "anxiolytic", "hypnotic", "narcotic", "analgesic", "antiseptic",
                 "anticholinergic", "antiepileptic", "antiarrhythmic", "antispasmodic", "antidiabetic",
                 "antithrombotic", "antihistaminic", "cosmetic", "metric", "statistic", "characteristic",
                 "heuristic", "colic", "tic", "mosaic", "relic", "tactic", "diabetic", "asthmatic", "epileptic",
                 "schizophrenic", "alcoholic", "laboratory", "dormitory", "repository", "territory", "observatory",
                 "lavatory", "conservatory", "total"}


def is_fragment(phrase: str, *, arm: bool = False) -> bool:
    """Whether `phrase` is a piece of a clause rather than a noun phrase: it holds a clause's verb,
    modal or opening word, or it is cut before its noun (_CUT_END; for an outcome or exposure, not an
    `arm`, any modifier at its end too: _MODIFIER_END)."""
    p = phrase.strip(" .,;:")
    if _FRAGMENT.search(p) or (not arm and (_CUT_START.match(p) or _GERUND_START.match(p))):
        return True
    last = p.split()[-1].lower() if p.split() else ""
    cut = _CUT_END.search(p) or (not arm and _MODIFIER_END.search(p))
    return bool(cut) and last not in _NOUN_ENDINGS


# People named by what they took or did are an exposure's arm: "statin users", "smokers".
_EXPOSED_PEOPLE = re.compile(r"(?:users|smokers|drinkers|recipients|donors|survivors)$", _I)


def names_people(phrase: str) -> bool:
    """Whether `phrase` names a group of people (or animals) by its head word: "care providers",
    "HIV-infected women"."""
    words = phrase.split()
    # "cost per patient", "movement of children": a measure taken on people
    return (bool(words) and _PEOPLE.fullmatch(words[-1].strip(" ,.;:()'\"")) is not None
            and not re.search(r"\b(?:of|per|in|for|among|with|by|between|to|on)\b", phrase, _I))


def is_outcome(phrase: str | None, *, population: str | None = None, exposure: str | None = None) -> bool:
    """Whether `phrase` can fill the outcome column: a whole noun phrase (is_fragment) that names
    neither people (the study's respondents, "care providers"), nor only words of its `population`
    ("acute myocardial infarction" where patients with it were studied), nor its `exposure`
    again."""
    if not phrase or is_fragment(phrase) or names_people(phrase):
        return False
    own = set(tokens(phrase))
    # The population names it with no more than its head and a qualifier or two; a longer one holding
    # its words (a clause read as who took part) says nothing of it.
    pop = set(tokens(population))
    return bool(own) and not (own <= pop and len(pop - own) <= 2) and not (exposure and own == set(tokens(exposure)))


def _cell(phrase: str | None, *, arm: bool = False) -> str | None:
    """`phrase` as a table cell: None when it is a fragment (is_fragment) or longer than CELL_MAX_WORDS."""
    if phrase is None or is_fragment(phrase, arm=arm) or len(phrase.split()) > CELL_MAX_WORDS:
        return None
    return phrase


# An abstract's own control arm ("compared with healthy controls", "placebo", "sham-operated rats"); a
# lone "control" is left out, being mostly glycaemic or infection control.
_CONTROL_STATED = re.compile(r"\b(?:(?:healthy|matched|age-matched|normal|untreated|vehicle-treated|sham-operated|"
                             r"wild-type|non-diabetic|nondiabetic|unexposed|non-smoking)\s+)?(?:controls\b|control\s+(?:group|arm|"
                             r"subjects|participants|individuals|mice|rats|animals|cells)\b|placebo|sham\b|usual\s+care|"
                             r"standard\s+care|wild-type\s+(?:mice|littermates|controls)|(?<![\w-])(?:non-?|never[\s-])users\b)", _I)


def stated_control(sentences: Sequence[str]) -> str | None:
    """The control arm the abstract names, as a cell ("healthy controls", "placebo"), else None."""
    for s in sentences:
        m = _CONTROL_STATED.search(s)
        if m:
            return " ".join(m.group(0).split()).lower()
    return None


# A claim's relation that names its exposure last: "is determined by", "depends on", "results from".
_PASSIVE = re.compile(r"\b(?:is|are|was|were|be|being|been)\s+(?:\w+ly\s+)?\w+(?:ed|en)\s+(?:\w+ly\s+)?by\b|"
                      r"\b(?:depends?|depended)\s+(?:\w+ly\s+)?on\b|\b(?:results?|resulted|stems?|arises?)\s+"
                      r"(?:\w+ly\s+)?from\b|\b(?:is|are|was|were)\s+(?:\w+ly\s+)?due\s+to\b", _I)

# The same relation when the claim's analysis leaves it in the object: "Obesity is | due to genetic factors".
_PASSIVE_OBJECT = re.compile(r"(?:\w+ly\s+)?(?:due\s+to|caused\s+by|driven\s+by|explained\s+by|determined\s+by|"
                             r"attributable\s+to|secondary\s+to|(?:the|a)\s+(?:result|consequence|product)\s+of)\b", _I)

# A phrase of a sentence that can name an exposure or an outcome lies within a clause piece (it
# ends at punctuation, a verb of being or comparing, a clause word, or "in" / "at" before a setting) and neither starts nor ends
# on a function word, a number or a comparison word ("with breast cancer risk in" -> "breast cancer").
_PHRASE_BREAK = re.compile(r"[,;:()\[\]=<>]|\b(?:is|are|was|were|be|been|being|has|have|had|did|does|do|than|compared|"
                           r"versus|vs|whereas|while|when|which|that|who|whom|but|during|after|before|since|until|"
                           r"in|at|within|among|between|associated|related|linked|correlated|showed|found|noted|observed)\b", _I)
_EDGE = re.compile(r"^(?:a|an|the|of|to|in|on|at|for|by|from|with|without|and|or|per|its|their|this|these|those|through|"
                   r"via|into|onto|upon|across|against|toward|towards|about|over|under|we|our|here|"
                   r"no|not|any|all|both|each|more|less|higher|lower|increased|decreased|reduced|slower|faster|"
                   r"rate|rates|risk|risks|\d[\d.,%]*|\w+ly)$", _I)
PHRASE_MAX_WORDS = 8
_ADVERB = re.compile(r"(?!(?:early|family|daily|weekly|monthly|yearly|elderly|assembly|anomaly|supply|only)$)\w{3,}ly", _I)


def _phrases(text: str) -> list[tuple[str, str, str]]:
    """Candidate names in `text`: runs of up to PHRASE_MAX_WORDS words inside one clause piece, each
    with the content words right before and after it ("" at a piece's end or beside a function word),
    which say whether it was cut out of a longer term."""
    out: list[tuple[str, str, str]] = []
    for piece in _PHRASE_BREAK.split(_first_sentence(without_section_label(text))):
        words = [w.strip(".") for w in piece.split()]
        edge = [bool(_EDGE.match(w)) or not w for w in words]
        for i in range(len(words)):
            for j in range(i, min(len(words), i + PHRASE_MAX_WORDS)):
                # An adverb inside is a clause's ("fetal liver CD3+ cells specifically express").
                if not edge[i] and not edge[j] and not any(_ADVERB.fullmatch(w) for w in words[i + 1: j]):
                    out.append((" ".join(words[i: j + 1]), "" if i == 0 or edge[i - 1] else words[i - 1],
                                "" if j + 1 == len(words) or edge[j + 1] else words[j + 1]))
    return out


def claim_oriented(claim: str, read: ICO, finding: str | None, sentences: Sequence[str]) -> ICO:
    """`read` laid out along the claim's relation (tools.read.claim_analysis.claim_components: the subject
    is the exposure or intervention, the object the outcome), whichever column the sentence's shape
    put each in ("Birth weight was associated with breast cancer risk" reads birth weight as the
    outcome): a field naming the claim's subject goes in the intervention column, one naming its
    object in the outcome column. An end no field names comes from the finding sentence's shortest
    phrase that covers at least two of its terms (tools.read.coverage), else, for an empty column, the
    abstract's first such phrase. Words that only say who ("women") are not an exposure. A claim without both ends
    leaves `read` as it is."""
    parts = claim_components(claim)
    terms = component_terms(claim)
    if not (parts.subject and parts.object and terms.subject and terms.object):
        return read
    if _PASSIVE.search(parts.relation or "") or _PASSIVE_OBJECT.match(parts.object):
        # "Obesity is determined by genetic factors": the agent is the exposure, the subject the outcome
        terms = ComponentTerms(subject=terms.object, object=terms.subject)
    who = {t for w in claim.split() if names_who_or_where(w) for t in tokenize(w)}
    ends = ComponentTerms(subject=[t for t in terms.subject if t not in who] or terms.subject,
                          object=[t for t in terms.object if t not in who] or terms.object)

    def side(phrase: str | None) -> str | None:
        """Which end of the claim a field names ("subject", "object"), if either."""
        if not phrase:
            return None
        cov = coverage(ends, phrase)
        if max(cov.subject, cov.object) < DEFAULT_MIN_COVERAGE - 1e-9 or cov.subject == cov.object:
            return None
        return "subject" if cov.subject > cov.object else "object"

    def names_claim(word: str) -> bool:
        cov = coverage(ends, word)
        return max(cov.subject, cov.object) > 0

    def phrase_for(end: str, texts: Sequence[str]) -> str | None:
        """The phrase of the first text that has one covering two terms of `end`: the one covering
        most of its terms, a whole term before one cut out of a longer term, then the shortest."""
        n = len(ends.subject if end == "subject" else ends.object)
        for text in texts:
            found = []
            for p, before, after in _phrases(text):
                if is_fragment(p):
                    continue
                cov = coverage(ends, p)
                mine, other = (cov.subject, cov.object) if end == "subject" else (cov.object, cov.subject)
                if round(mine * n) >= min(2, n) and mine > other:
                    # Cut out of a longer term: a modifier before it ("stable" partner, "epidermal" growth
                    # factor) or a word of the claim's on either side (growth factor "receptor").
                    cut = bool(before and (is_fragment(before) or names_claim(before))) or bool(after and names_claim(after))
                    found.append((round(mine * n), not cut, -len(p.split()), p))
            if found:
                return _clean(max(found)[3])
        return None

    here = [finding] if finding else []
    i, c, o = read.intervention, read.comparator, read.outcome
    if side(i) == "subject":
        intervention = i
    elif side(o) == "subject":
        intervention = o  # the sentence's subject was the exposure
    elif side(i) == "object":
        # "between <outcome> and <exposure>": the other arm, or the association's other end, is the exposure
        if c and not _CONTROL_ARM.search(c) and side(c) != "object":
            intervention, c = c, None
        else:
            intervention = o if o and side(o) is None else None
    else:
        intervention = phrase_for("subject", here) or i or phrase_for("subject", sentences)
    if side(o) == "object":
        outcome = o
    elif side(i) == "object":
        outcome = i
    elif side(c) == "object":
        outcome, c = c, None  # "association between <exposure> and <outcome>"
    else:
        outcome = (phrase_for("object", here) or (o if side(o) is None else None)
                   or phrase_for("object", sentences))
    comparator = c if c not in (intervention, outcome) else None
    return ICO(intervention=intervention, comparator=comparator, outcome=outcome)


_STOP = {"the", "a", "an", "of", "in", "with", "and", "or", "to", "for", "on", "at", "by", "group", "groups", "arm",
         "arms", "patients", "those", "participants", "subjects", "receiving", "received", "treated", "who", "was",
         "were", "is", "are", "as", "from", "mg", "plus"}


def tokens(text: str | None) -> list[str]:
    """Normalised content tokens of a field: lower case, HTML entities decoded, punctuation and
    function words dropped."""
    if not text:
        return []
    t = html.unescape(html.unescape(text)).lower()
    return [w for w in re.findall(r"[a-z0-9]+(?:[.-][a-z0-9]+)*", t) if w not in _STOP]


def token_f1(pred: str | None, gold: str | None) -> float:
    """Token-level F1 between a predicted and a gold field (0 when either is empty)."""
    p, g = tokens(pred), tokens(gold)
    if not p or not g:
        return 0.0
    common = sum(min(p.count(w), g.count(w)) for w in set(p))
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


# Population (PICO's P): who or what a study included, from its abstract, else its title.
# A head noun names the kind of subject; the words before it that qualify it ("adult", "Dutch",
# "breast cancer") and a post-modifier ("with portal hypertension", "aged 65 years or older",
# "who underwent laparoscopic cholecystectomy") make the phrase.
_HEAD = (r"(?:patients|participants|subjects|individuals|persons|people|adults|children|infants|newborns|neonates|"
         r"adolescents|teenagers|youths?|girls|boys|women|men|mothers|fathers|parents|pregnancies|students|residents|"
         r"trainees|nurses|physicians|doctors|surgeons|clinicians|dentists|pharmacists|workers|employees|volunteers|"
         r"(?:health\s*care\s+|care\s+)?providers|caregivers|carers|practitioners|professionals|"
         r"veterans|(?:non-?|never-?|ex-)?smokers|athletes|soldiers|recipients|survivors|users|donors|outpatients|inpatients|octogenarians|"
         r"nonagenarians|elderly|laypersons|laypeople|respondents|twins|families|households|fetuses|hypertensives|"
         r"diabetics|cadavers|population|(?:cadaver(?:ic)?\s+)?knees|mice|rats|rabbits|dogs|pigs|piglets|sheep|monkeys|macaques|"
         r"primates|guinea\s+pigs|hamsters|zebrafish|cats|horses|animals|cows|calves|ewes|chickens|broilers)")
# Who or where a claim is about, as a word of its own ("women", "some countries", "older adults"):
# a text naming them shares the claim's setting, not its subject.
_WHO_OR_WHERE = re.compile(r"(?:" + _HEAD + r"|woman|man|child|patient|participant|adult|person|individual|girl|boy|"
                           r"mother|infant|adolescent|resident|older|elderly|young|younger|aged|countr(?:y|ies)|"
                           r"nations?|national|regions?|regional|states?|cit(?:y|ies)|communit(?:y|ies)|areas?|"
                           r"world|worldwide|global|globally|societ(?:y|ies)|public)", _I)


# Who a phrase names by its head word (names_people): people and animals, not places.
_PEOPLE = re.compile(r"(?:" + _HEAD + r"|woman|man|child|patient|participant|adult|person|individual|girl|boy|"
                     r"mother|infant|adolescent|resident|provider|caregiver|respondent|controls)", _I)


def names_who_or_where(word: str) -> bool:
    """True when `word` only says who or where ("women", "countries", "elderly"), the kind of word
    that many abstracts share with a claim without being about its subject."""
    return bool(_WHO_OR_WHERE.fullmatch(word.strip(" ,.;:()'\"")))


# A case report's single person: "A 12-year-old boy diagnosed with ASD".
_ONE = r"(?:an?\s+\d{1,3}-(?:year|month|week|day)-old\s+(?:\w+\s+){0,2}?(?:boy|girl|man|woman|patient|infant|child|neonate))"
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
                r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)")
_NUM = (r"(?:\d{1,3}(?:[, ]\d{3})+|\d+|" + _NUMBER_WORD + r"(?:(?:[\s-]+|\s+and\s+)" + _NUMBER_WORD + r")*)")
# Words that cannot qualify a head ("were 62 patients", "the remaining patients").
_NOT_MODIFIER = re.compile(r"^(?:the|a|an|of|in|on|at|to|for|from|with|by|and|or|all|each|both|these|those|their|our|"
                           r"other|remaining|total|were|was|are|is|had|have|has|be|been|included|enrolled|recruited|"
                           r"studied|examined|analy[sz]ed|evaluated|reviewed|assessed|compared|among|between|than|"
                           r"consecutive|eligible|selected|randomly|random|identified|data|records|charts|group|groups|"
                           r"\d[\d,.%]*|n|that|which|who|whom|we|it|this|study|cohort|sample|series|total|number|"
                           r"aged|age|years?|old|mean|median|only|also|further|then|there|here|however|including|"
                           r"involving|comprising|select|train|treat|enables?|allows?|helps?|identify|compare|includes?|"
                           r"recruit|study|assess|evaluate|examine|follow|predict|when|where|whether|if|not|no|most|many|some|"
                           r"several|few|more|fewer|half|majority|million|billion|into|onto|via|per|after|before|"
                           r"under|over|within|without|through|across|versus|vs|using|use|used|\w*-?(?:year|month|week|day)s?-old|[A-Z]|"
                           r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|"
                           r"forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)(?:-\w+)?)$", _I)
_MODIFIER = r"(?:[A-Za-z][\w'/-]*\s+)"
_POST = (r"(?:\s*\([^()]{0,80}\))?(?P<{}>\s+(?:with|without|who|undergoing|aged|treated|receiving|diagnosed|attending|"
         r"admitted|scheduled|presenting|suffering|living|born|registered|referred|hospitali[sz]ed|requiring|"
         r"having|on|after|from|in|at|of|older|younger|over|under|between|operated|followed|enrolled|seen)\b[^;:.()?]*)?")
_HEADED = re.compile(r"(?P<pre>(?:" + _MODIFIER + r"){0,4})(?P<head>" + _HEAD + r")\b" + _POST.replace("{}", "post")
                     + r"|(?P<one>" + _ONE + r")\b" + _POST.replace("{}", "post1"), _I)
# Cues that the phrase is the population included, strongest first.
_N_BEFORE = re.compile(r"\b" + _NUM + r"\s+(?:consecutive\s+|eligible\s+)?$", _I)
# "(n = 412)", not a count of studies ("(n = 3 studies)").
_N_AFTER = re.compile(r"^\s*\(n\s*[=>]\s*\d[\d,]*(?!\d|[\d,]*\s+(?:studies|trials|cohorts|articles|reports|papers|datasets)\b)", _I)
_ENROL_BEFORE = re.compile(r"\b(?:includ(?:ed|es|ing)|enrolled|recruited|studied|examined|analy[sz]ed|evaluated|reviewed|"
                           r"(?:obtained|sampled|collected|taken|drawn)\s+from|"
                           r"investigated|followed|identified|selected|surveyed|interviewed|performed\s+on|"
                           r"(?:conducted|study|studies|trial|review|analysis|survey)\s+(?:of|in|among|on)|records\s+of|charts\s+of|data\s+(?:of|from|on)|cohort\s+of|sample\s+of|"
                           r"series\s+of|group\s+of|consisted\s+of|comprised|comprising|involving|(?:participants|subjects|"
                           r"patients|population|sample|cohort)\s+(?:were|was|included|comprised))\s+"
                           r"(?:the\s+|all\s+|a\s+total\s+of\s+|consecutive\s+|eligible\s+)*(?:" + _NUM + r"\s+)?$", _I)
_ENROL_AFTER = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,\s*)?(?:were|was)\s+(?:\w+\s+)?(?:included|enrolled|recruited|"
                          r"studied|examined|analy[sz]ed|evaluated|reviewed|randomi[sz]ed|selected|identified|followed|"
                          r"assessed|investigated|tested|surveyed|interviewed|divided|allocated|assigned)\b|^\s+(?:took\s+part|"
                          r"participated)\b", _I)
# Where a post-modifier stops: a main verb, a period of time, a second clause.
_POST_STOP = re.compile(r"\s+(?:(?:were|was|are|is|had|have|has|did|do|will|would|could|may|might|showed|developed|"
                        r"completed|participated|took|met|gave|performed|agreed|consented|exhibited|reported|received|"
                        r"underwent|answered|filled|experienced|presented|presents|came|visited|died|survived|returned|suffer|suffers|"
                        r"appears?|seems?|tends?|remains?)\b|(?:also|often|still|frequently|usually|typically|commonly|"
                        r"mostly|generally)\s+\w+|(?:from|between|during|since)\s+(?:\d|january|february|"
                        r"march|april|may|june|july|august|september|october|november|december)|over\s+(?:a|the)\s+"
                        r"(?:period|\d)|for\s+(?:a\s+|the\s+)?(?:period|mean|median|\d)|(?:and|while|whereas|but)\s+"
                        r"(?:the|then|their|were|was|had|\d)|using\b|by\s+(?:means|using)|to\s+(?:determine|assess|"
                        r"evaluate|compare|investigate|examine|identify)|in\s+(?:this|these|the\s+present|our)\b|of\s+(?:whom|which)\b|whose\b|"
                        r"than\b|compared\b|versus\b|vs\b|\w{3,}ly\s+\w+ed\b|(?:who|that)\s+(?:were|was)\s+(?:included|enrolled|randomi[sz]ed)|according\s+to|based\s+on|"
                        r"as\s+defined|to\s+(?!\d)|(?:in|at)\s+(?:our|the|a|two|three|\w+)\s+(?:\w+\s+){0,2}?(?:clinics?|hospitals?|departments?|"
                        r"cent(?:er|re)s?|units?|institutions?|practices?|wards?))|,(?!\s+(?:who|with|without|aged|undergoing|"
                        r"treated|receiving|diagnosed)\b)", _I)
# A count that is a rate ("per 100 women"), and a clause that says when or whether, not who was
# included ("when the participants were children").
_RATE = re.compile(r"\b(?:per|every|each|out\s+of)\s+" + _NUM + r"\s+$", _I)
_ASIDE = re.compile(r"\b(?:when|while|whereas|if|whether|as|because|until|unless|once|since)\s+(?:the\s+|all\s+)?$", _I)
_REL_VERB = re.compile(r"\b(?:who|that|whom)\s+\w+", _I)
_GENERIC = {"patients", "participants", "subjects", "individuals", "persons", "people", "cases", "animals", "population"}
_SPECIES = re.compile(r"^(?:mice|rats|rabbits|dogs|pigs|piglets|sheep|monkeys|macaques|primates|guinea pigs|hamsters|"
                      r"zebrafish|cats|horses|cows|calves|ewes|chickens|broilers|cadavers)$", _I)
POPULATION_MAX_WORDS = 12
# In vitro work names its cells instead of people: "HepG2 cells", "human umbilical vein endothelial cells".
_CELLS = re.compile(r"\b(?P<c>[A-Z][A-Za-z]*\d[\w/-]*(?:\s+\w+)?\s+cells|(?:cultured\s+|primary\s+)?(?:human|murine|mouse|"
                    r"rat|bovine|porcine|canine)\s+(?:[\w-]+\s+){0,3}?cells|[A-Z][\w-]*\d[\w-]*\s+cell\s+lines?)\b")


def _trim_post(post: str) -> str:
    """The post-modifier up to where the sentence's own verb or a time span begins; a relative
    clause ("who underwent X") keeps its first verb."""
    start = 0
    rel = _REL_VERB.match(post.strip())
    if rel:
        start = len(post) - len(post.lstrip()) + rel.end()
    m = _POST_STOP.search(post, start)
    return post[: m.start()] if m else post


def _qualifiers(pre: str) -> list[str]:
    """The run of qualifying words right before a head ("adult Dutch" of "were 62 adult Dutch")."""
    kept: list[str] = []
    for w in reversed(pre.split()):
        # A heading in capitals ("PARTICIPANTS Individuals aged 65 and older") is not a qualifier.
        if _NOT_MODIFIER.match(w.strip("(),")) or (re.search(r"\d", w) and not re.search(r"[A-Za-z]", w)) \
                or (w.isalpha() and w.isupper() and len(w) >= 6):
            break
        if re.fullmatch(r"\w+(?:ed|ly)", w, _I) and w.lower() not in {"aged", "hospitalised", "hospitalized", "infected",
                                                                      "impaired", "sighted", "matched", "treated"}:
            break
        kept.insert(0, w.strip("(),"))
    return kept


def _population_phrase(m: re.Match[str]) -> tuple[str, int] | None:
    """The phrase a headed match makes and how many qualifying words precede its head; None when it
    is a bare generic head ("patients") or too long to be a phrase."""
    kept = _qualifiers(m.group("pre") or "")
    head = m.group("head") or m.group("one")
    post = _trim_post(m.group("post") or m.group("post1") or "")
    phrase = " ".join([*kept, head, post.strip()]).strip()
    if not m.group("one"):
        phrase = re.sub(r"^(?:an?|the)\s+", "", phrase, flags=_I)
    phrase = re.sub(r"(?:\s+(?:who|that|which|whom|treated|and|or|with|the|a|an|of|in|at|on|had|have|has|were|was|"
                    r"are|is))+$", "", " ".join(phrase.split()), flags=_I).rstrip(" ,-")
    words = phrase.split()
    if len(words) > POPULATION_MAX_WORDS:
        # Cut before the last preposition within the limit, not mid-phrase.
        cut = max((i for i, w in enumerate(words[:POPULATION_MAX_WORDS + 1])
                   if w.lower() in {"in", "at", "from", "with", "who", "and", "of", "on", "after", "for"}), default=0)
        if cut <= len(kept):
            return None
        phrase = " ".join(words[:cut]).rstrip(" ,-")
    if phrase.lower() in _GENERIC or len(phrase) < 3:
        return None
    return phrase, len(kept)


def _candidates(text: str, *, title: bool = False) -> list[tuple[int, int, str]]:
    """(tier, position, phrase) for every headed phrase in `text`: tier 0 has a count or an
    enrolment verb beside it, tier 1 follows "in" / "among" / "of" or opens a sentence, tier 2 is any
    other mention; a lone word (other than a species) ranks one tier lower than its cue. A phrase listed
    with other groups stands for the list (_joined)."""
    out = []
    groups = _group_items(text)
    for m in _HEADED.finditer(text):
        head_start = m.start("head") if m.group("head") else m.start("one")
        head = m.group("head") or ""
        lead = text[max(0, head_start - 120): head_start]
        # A capitalised head inside a sentence is a name ("Floating Hospital for Children").
        if not title and head[:1].isupper() and not re.search(r"(?:^|[.;:?!]\s+|\b[A-Z]{6,}:?\s+)\S*\s*$", lead) \
                and not _N_BEFORE.search(lead):
            continue
        # A possessor is not who was included ("studies of children's birth records", "mothers' recall").
        if head and re.match(r"[\u2019']", text[m.end("head"):]):
            continue
        read = _population_phrase(m)
        if read is None and head.lower() in _GENERIC:
            # "Six hundred and twenty consecutive patients underwent total fundoplication for GERD".
            u = re.match(r"\s+(?P<p>underwent\s+[^;:.()?]+)", text[m.end("head"):], _I)
            if u and _N_BEFORE.search(lead):
                p = _trim_post(" " + u.group("p").split(" ", 1)[1])
                words = f"{head} who underwent {p.strip()}".split()[:POPULATION_MAX_WORDS]
                read = (re.sub(r"(?:\s+(?:and|or|with|the|a|an|of|in|at|on|for))+$", "", " ".join(words), flags=_I), 0)
        if read is None:
            continue
        phrase, n_kept = read
        phrase, list_start = _joined(groups, head_start, phrase)
        if _CONTROL_GROUP.match(phrase):
            continue  # the comparison group alone is not who the study is about
        if list_start is not None:
            lead = text[max(0, list_start - 120): list_start]  # the cue stands before the list's first group
        elif n_kept:
            lead = re.sub(r"(?:\S+\s+){" + str(n_kept) + r"}$", "", lead)
        after = text[m.end("head") if m.group("head") else m.end("one"):]
        # A sentence start, or a structured abstract's heading in capitals ("PARTICIPANTS").
        opens = re.search(r"(?:^\s*|[.;:?]\s+|\b[A-Z]{6,}:?\s+)(?i:(?:consecutive|all|eligible)\s+)?$", lead)
        # A verbless sentence that is only the phrase is a structured abstract's PARTICIPANTS section.
        alone = opens and re.match(r"\s*(?:\([^()]*\)\s*)?[.;]", text[m.end():])
        counted = _N_BEFORE.search(lead) and not _RATE.search(lead)
        enrolled = (enrol := _ENROL_BEFORE.search(lead)) and not _ASIDE.search(lead[: enrol.start()])
        if m.group("one") or alone or counted or _N_AFTER.match(after) or enrolled or _ENROL_AFTER.match(after):
            tier = 0
        elif enrol:
            tier = 2  # "... when the participants were children": a circumstance, not who was included
        elif opens or re.search(r"\b(?:in|among|of|for|on)\s+(?:the\s+)?$", lead, _I):
            tier = 1
        else:
            tier = 2
        if " " not in phrase and not _SPECIES.match(phrase):
            tier += 1
        out.append((tier, m.start(), phrase))
    return out


def extract_population(title: str | None, sentences: Sequence[str]) -> str | None:
    """Who (or what) a study included, as a short noun phrase ("adults with type 2 diabetes", "C57BL/6
    mice"), from its abstract (a phrase beside a count or an enrolment verb first), else its title; None
    when neither states one. The sentences about the study itself come first (study_sentences): a
    background section's general statements ("Patients with X have ...") are read only when they
    and the title give nothing, and reports of earlier work never. A phrase listed with other groups
    ("COPD smokers, normal smokers and former smokers") keeps them all."""
    own, background = study_sentences(sentences)
    body = _first_sentence(" ".join(own))
    found = sorted(_candidates(body))
    if found and found[0][0] == 0:
        return found[0][2]
    in_title = sorted(_candidates(_first_sentence(title), title=True)) if title else []
    if in_title and in_title[0][0] <= 1:
        return in_title[0][2]
    if found and found[0][0] == 1:
        return found[0][2]
    before = sorted(_candidates(_first_sentence(" ".join(background))))
    if before and before[0][0] == 0:
        return before[0][2]
    # An organism counts wherever the abstract names it, but not in an aside about something else.
    everything = _first_sentence(" ".join(_APPOSITIVE.sub("", s) for s in sentences))
    cells = _CELLS.search(body) or (_CELLS.search(_first_sentence(title)) if title else None)
    return cells.group("c") if cells else _organism(title, everything)


# Sentences about other work, not about whom this study examined: a structured abstract's background
# section (read last, _BACKGROUND_HEADING) unless it states the study's aim, and reports of earlier
# findings ("Recent studies in COPD patients have shown ...", "X has been implicated in ...").
_BACKGROUND_HEADING = re.compile(r"^(?:BACKGROUND|INTRODUCTION|CONTEXT|IMPORTANCE)\b")
_OWN_STUDY = re.compile(r"\b(?:this|the\s+present|the\s+current|our)\s+(?:\w+\s+)?(?:study|trial|analysis|"
                        r"work|survey|investigation)\b|\bwe\s+(?:\w+ly\s+)?(?:aimed|sought|set\s+out|studied|"
                        r"investigated|examined|evaluated|assessed|compared|measured|enrolled|recruited|included|"
                        r"conducted|performed|analy[sz]ed)\b|^(?:to|the\s+(?:aim|objective|purpose|goal))\b", _I)
_REPORTED = (r"(?:shown|suggested|reported|demonstrated|found|indicated|revealed|implicated|described|established|"
             r"proposed|observed|documented|identified)")
_PRIOR_WORK = re.compile(
    r"^(?:\w+,\s+)?(?:recent|previous|prior|earlier|past|other|published|existing)\s+(?:[\w-]+\s+){0,2}?(?:studies|"
    r"reports|work|research|trials|data|evidence|findings|observations|analyses|investigations|literature|reviews)\b|"
    r"^(?:\w+,\s+)?(?:several|many|some|numerous|most|few)\s+(?:[\w-]+\s+){0,2}?(?:studies|reports|trials|"
    r"investigators|authors|groups)\s+(?:[^,;:.]+\s+)?(?:have|has)\s+(?:\w+ly\s+)?" + _REPORTED + r"\b|"
    r"^(?:\w+,\s+)?it\s+(?:is|has\s+been|was|had\s+been)\s+(?:\w+ly\s+)?(?:known|" + _REPORTED + r"|recogni[sz]ed|"
    r"believed|thought|hypothesi[sz]ed)\b|\b(?:have|has)\s+(?:\w+ly\s+)?been\s+(?:\w+ly\s+)?" + _REPORTED + r"\b|"
    r"(?<!not\s)\bpreviously\s+" + _REPORTED + r"\b", _I)
# An aside that describes a thing by what is known of it elsewhere: "RAD52, a gene dispensable for
# normal development in mice, was among the top hits".
_APPOSITIVE = re.compile(r",\s+(?:a|an)\s+[^,;:.()]{2,100}?,(?=\s+(?:was|were|is|are|has|have|had|\w+ed)\b)", _I)


def study_sentences(sentences: Sequence[str]) -> tuple[list[str], list[str]]:
    """The sentences that say whom this study examined (outside a background section, or stating
    the study's aim there) and, apart, the background section's other sentences; a report of earlier
    work is in neither, and each keeps no descriptive aside. A passage given as one item (a section
    of an abstract) is read sentence by sentence."""
    own: list[str] = []
    background: list[str] = []
    for passage, heading in zip(sentences, section_headings(sentences), strict=True):
        for s in split_sentences(passage) or [passage]:
            body = without_section_label(s).strip()
            if _PRIOR_WORK.search(body):
                continue
            aside_free = _APPOSITIVE.sub("", s)
            if _BACKGROUND_HEADING.match(heading) and not _OWN_STUDY.search(body):
                background.append(aside_free)
            else:
                own.append(aside_free)
    return own, background


def not_about_this_study(sentences: Sequence[str]) -> set[int]:
    """Indices of the sentences that are not about this study (as study_sentences reads them): a
    report of earlier work, or a background section's sentence that does not state the study's
    aim. A population, a design or a count is never cited to one of these."""
    return {i for i, (s, heading) in enumerate(zip(sentences, section_headings(sentences), strict=True))
            if _PRIOR_WORK.search(body := without_section_label(s).strip())
            or (_BACKGROUND_HEADING.match(heading) and not _OWN_STUDY.search(body))}


# Groups a sentence lists together ("12 COPD smokers, 15 normal smokers and 14 never-smoking
# controls", "healthy nonsmokers (n = 11), normal smokers (n = 12) and smokers with COPD (n = 14)"):
# the population is all of them, not the one a cue sits beside. A group whose phrase goes on past
# what is read of it ("mice deficient in ...") ends the list.
_GROUP_HEAD = re.compile(r"\b(?:" + _HEAD + r"|controls)\b", _I)
_GROUP_PRE = re.compile(r"(?:[A-Za-z][\w'/-]*\s+){0,4}$")
_GROUP_POST = re.compile(r"\s+(?:with|without)\s+(?:[\w'/-]+\s+){0,5}?[\w'/-]+(?=\s*[,;.(]|\s+(?:and|or|from|in|at|"
                         r"who|during|for|were|was|had)\b|$)", _I)
_GROUP_SEP = re.compile(r"\s*(?:\([^()]{0,60}\)\s*)?(?:,\s*(?:and\s+)?|\s+and\s+)(?:" + _NUM + r"\s+)?", _I)
_GROUP_END = re.compile(r"\s*(?:[,;.(]|$)|\s+(?:and|or|were|was|are|is|had|have|has|from|in|at|of|for|who|to|"
                        r"during|underwent|received|aged|versus|vs)\b", _I)
_CONTROL_GROUP = re.compile(r"^(?:(?:healthy|normal|matched|age-matched)\s+)?controls?(?:\s+\w+)?$", _I)
GROUPS_MAX_WORDS = 20


def _group_items(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, phrase, listed with the next) of every group `text` names: a head with the
    qualifiers before it and a "with ..." after it."""
    found = []
    for h in _GROUP_HEAD.finditer(text):
        pre = _GROUP_PRE.search(text, 0, h.start())
        kept = _qualifiers(pre.group(0)) if pre else []
        start = h.start() - len(" ".join(kept)) - (1 if kept else 0)
        post = _GROUP_POST.match(text, h.end())
        end = post.end() if post else h.end()
        found.append((start, end, " ".join([*kept, h.group(0), post.group(0).strip() if post else ""]).strip(),
                      bool(_GROUP_END.match(text, end))))
    return [(start, end, phrase, clean and i + 1 < len(found) and found[i + 1][3]
             and _GROUP_SEP.fullmatch(text, end, found[i + 1][0]) is not None)
            for i, (start, end, phrase, clean) in enumerate(found)]


def _joined(items: list[tuple[int, int, str, bool]], head_start: int, phrase: str) -> tuple[str, int | None]:
    """`phrase`, or the list of groups it is one of, joined ("a, b and c"), with where the list starts
    when it starts before `phrase`'s group (else None); `phrase` stands for its own place in the list."""
    at = next((i for i, item in enumerate(items) if item[0] <= head_start < item[1]), None)
    if at is None:
        return phrase, None
    first = last = at
    while first > 0 and items[first - 1][3]:
        first -= 1
    while items[last][3]:
        last += 1
    names = list(dict.fromkeys(phrase if i == at else items[i][2] for i in range(first, last + 1)))
    if len(names) < 2 or len(" ".join(names).split()) > GROUPS_MAX_WORDS:
        return phrase, None
    return ", ".join(names[:-1]) + " and " + names[-1], items[first][0] if first < at else None


# Laboratory work names its organism rather than a group of people: "mice lacking VGLUT2", "Drosophila
# Dicer-2", "Arabidopsis mutants". Named in the title or at least twice in the abstract, it is the
# system studied; one passing mention is often earlier work ("as shown in mice").
_ORGANISMS = {name: re.compile(pattern, _I) for name, pattern in {
    "mice": r"\bmice\b|\bmouse\b|\bmurine\b", "rats": r"\brats?\b", "Drosophila": r"\bDrosophila\b|\bfruit\s+fl(?:y|ies)\b",
    "Arabidopsis": r"\bArabidopsis\b", "C. elegans": r"\bC\.\s*elegans\b|\bCaenorhabditis\b", "zebrafish": r"\bzebrafish\b",
    "yeast": r"\byeasts?\b|\bSaccharomyces\b", "E. coli": r"\bE\.\s*coli\b|\bEscherichia\s+coli\b",
    "rhesus monkeys": r"\brhesus\b|\bmacaques?\b",
}.items()}


def _organism(title: str | None, body: str) -> str | None:
    """The organism a laboratory study names most (in its title, or twice in its abstract), else None."""
    counts = {name: 3 * len(p.findall(title or "")) + len(p.findall(body)) for name, p in _ORGANISMS.items()}
    name, n = max(counts.items(), key=lambda kv: kv[1])
    return name if n >= 2 else None


# What a title says a study compares: "Effects of X on Y in Z", "X versus Y for Z", "Association
# between X and Y", "X and risk of Y", "X inhibits Y". A row whose document gives no finding
# sentence is read from its title first: the title names the study's own exposure and outcome,
# where the abstract's background sentences name the field's.
_TITLE_VERB = (r"(?:inhibits?|suppress(?:es)?|reduces?|lowers?|decreases?|increases?|raises?|improves?|prevents?|"
               r"promotes?|induces?|causes?|enhances?|impairs?|attenuates?|protects?\s+against|predicts?|"
               r"regulates?|controls?|mediates?|drives?|blocks?|limits?|restricts?|triggers?|activates?|"
               r"(?:is|are|was|were)\s+(?:not\s+)?(?:positively\s+|inversely\s+|negatively\s+|independently\s+)?"
               r"(?:associated|correlated|linked)\s+with|(?:is|are)\s+(?:essential|required|necessary|critical)\s+for|correlates?\s+with)")
_TITLE_SUBJECT = r"(?P<i>[^:;,]{2,80}?)"
# A verb title's subject is a short name, not a clause ("ADAR1 Forms a Complex with Dicer to").
_VERB_SUBJECT = r"(?P<i>(?:[^\s:;,]+\s+){0,5}?[^\s:;,]+)"
_TITLE_OBJECT = r"(?P<o>[^:;,]{2,100}?)"
_TITLE_STOP = (r"\s*[:;,.?]|\s*$|\s+(?:in|among)\s+(?:a\s+|an\s+|the\s+)?(?:[\w-]+\s+){0,5}?" + _HEAD + r"\b|"
               r"\s+for\s+(?:(?!(?:in|of|with|and|or)\b)[\w-]+\s+)?" + _HEAD + r"\b|"
               r"\s+in\s+(?:vivo|vitro|mice|rats|humans)\b")
_TITLE_END = r"(?=" + _TITLE_STOP + r")"
_TITLE_TEMPLATES: list[re.Pattern[str]] = [
    # "Treatment of antidepressant-associated sexual dysfunction with sildenafil"
    re.compile(r"^(?:the\s+)?(?:treatment|prevention)\s+of\s+" + _TITLE_OBJECT + r"\s+(?:with|by|using)\s+"
               + _TITLE_SUBJECT + _TITLE_END, _I),
    # "Effects of electro-acupuncture therapy on post-stroke depression in patients with ..."
    re.compile(r"^(?:the\s+)?(?:[\w-]+\s+)?(?:effects?|impact|influence|efficacy|effectiveness|safety|"
               r"benefits?|role|contribution)\s+of\s+" + _TITLE_SUBJECT + r"\s+(?:on|upon|against|in|for)\s+(?!(?:[\w-]+\s+){0,4}?on\s)"
               r"(?:the\s+)?" + _TITLE_OBJECT + _TITLE_END, _I),
    # "Association between birth weight and breast cancer", "Relationship of X to Y"
    re.compile(r"^(?:the\s+)?(?:associations?|relationships?|relations?|links?|correlations?)\s+(?:between|of)\s+"
               + _TITLE_SUBJECT + r"\s+(?:and|with|to)\s+(?:the\s+)?" + _TITLE_OBJECT + _TITLE_END, _I),
    # "Telmisartan versus losartan for ...", "X compared with Y in ..."
    re.compile(r"^" + _TITLE_SUBJECT + r"\s+(?:versus|vs\.?|compared\s+(?:with|to))\s+(?P<c>[^:;,]{2,80}?)"
               r"(?:\s+(?:for|in\s+the\s+treatment\s+of|on)\s+" + _TITLE_OBJECT + r")?" + _TITLE_END, _I),
    # "Birth size and breast cancer risk", "Stable partnership and progression to AIDS or death"
    re.compile(r"^" + _TITLE_SUBJECT + r"\s+and\s+(?:the\s+)?" + r"(?P<o>(?:(?:risk|incidence|prevalence|progression|"
               r"development|onset|mortality|survival|outcomes?|recurrence)\s+(?:of|to|from|in|after)\s+[^:;,]{2,80}?|"
               r"[^:;,]{2,80}?\s+(?:risk|incidence|prevalence|mortality|survival|outcomes?|recurrence)))" + _TITLE_END, _I),
    # "Immunosuppressant FTY720 inhibits thymocyte emigration"
    re.compile(r"^" + _VERB_SUBJECT + r"\s+(?:(?:may|might|can|could|does|do)\s+(?:not\s+)?)?(?:\w+ly\s+)?" + _TITLE_VERB + r"\s+(?:the\s+)?" + _TITLE_OBJECT
               + r"(?=\s+(?:through|via|by)\b|" + _TITLE_STOP + r")", _I),
]


_WORD = re.compile(r"[A-Za-z][\w-]*")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z]?[a-z]+)*\b")
# A template's subject that is no exposure: cut before its object ("... with"), a measure or a kind of
# paper ("Incidence and risk of ..."), or a clause ("X is ..."); a verb title's subject holding a
# preposition is a clause too ("ADAR1 forms a complex with Dicer").
_NOT_TITLE_SUBJECT = re.compile(r"\s(?:to|through|via|by|with|of|and)$|^(?:incidence|prevalence|risk|rates?|frequency|"
                                r"trends?|patterns?|characteristics|analysis|comparison|overview|review)\b|"
                                r"\b(?:correlates?|is|are|was|were|may|might|can|could)\b", _I)
_VERB_SUBJECT_CLAUSE = re.compile(r"\b(?:through|to|via|with)\b", _I)
_TITLE_ARMS = re.compile(r"\s+(?:compared\s+(?:with|to)|versus|vs\.?)\s+", _I)
_SECOND_VERB = re.compile(r"\s+and\s+" + _TITLE_VERB + r"\b.*$", _I)


def title_ico(title: str | None) -> ICO:
    """What a study's title says it compares: the intervention or exposure, a comparator ("X versus Y")
    and the outcome; fields it does not name are None."""
    if not title:
        return ICO()
    text = _first_sentence(title).strip()
    words = [w for w in _WORD.findall(text) if len(w) > 3]
    if words and sum(w[0].isupper() for w in words) >= 0.6 * len(words):
        # A title in Title Case: its capitals are the style, not names ("Birth Size and Breast Cancer
        # Risk" -> "birth size", "breast cancer risk"); acronyms and mixed-case names keep theirs.
        text = _CAPITALISED.sub(lambda m: m.group(0).lower(), text)
    for pattern in _TITLE_TEMPLATES:
        m = pattern.search(text)
        if not m:
            continue
        fields = m.groupdict()
        subject = fields.get("i") or ""
        verb_title = pattern is _TITLE_TEMPLATES[-1]
        if _NOT_TITLE_SUBJECT.search(subject) or (verb_title and _VERB_SUBJECT_CLAUSE.search(subject)):
            continue
        # "Oral semaglutide compared with placebo" names both arms; "... signalling and regulates
        # neuronal death" ends the outcome at its second verb.
        arms = _TITLE_ARMS.split(subject, maxsplit=1)
        outcome = _SECOND_VERB.sub("", fields.get("o") or "")
        read = ICO(intervention=_arm(arms[0]), comparator=_arm(fields.get("c") or (arms[1] if len(arms) > 1 else None)),
                   outcome=_outcome(outcome))
        if read.intervention and (read.outcome or read.comparator):
            return read
    return ICO()


# What an abstract states was measured (`stated_outcome`): an outcome section ("MAIN OUTCOME
# MEASURES Incidence of invasive breast cancer."), "the primary outcome was ...", "we measured ...",
# "... were measured", "... was used to compare ...", the aim ("to examine the effect of X on Y", "the
# association between X and Y"), or a result whose measured quantity is named ("the incidence of X
# was lower"). A narrative review or an editorial states none, and is given none.
class StatedOutcome(BaseModel):
    """The outcome an abstract states, and the index of the sentence that states it."""

    outcome: str = Field(description="The outcome phrase, whole, as the sentence words it.")
    sentence: int = Field(description="Index of the sentence that states it.")
    said_as: Literal["section", "named", "measured", "aim", "result"] = Field(
        description="How the sentence states it: an outcome section, a named primary or secondary outcome, what "
                    "the study says it measured (the three say it outright), the study's aim, or a result.")

    @property
    def outright(self) -> bool:
        """Whether the sentence says outright that this was measured (not an aim's or a result's wording)."""
        return self.said_as in ("section", "named", "measured")


_OUTCOME_HEADING = re.compile(r"\b(?:OUTCOMES?|END\s*-?\s*POINTS?)\b")
# The same heading in title case, which the segmenter does not take for one: "Main Outcomes and Measures ...".
_OUTCOME_LABEL = re.compile(r"^(?:(?:Main|Primary)\s+)?Outcomes?(?:\s+(?:and\s+)?Measures?)?\s+(?=[A-Z])")
_RESULT_HEADING = re.compile(r"\bRESULTS?\b")
# An aside in brackets goes, not one a word is built on ("(GUSTO)-defined bleeding").
_ASIDE = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\])(?=[\s,;.:]|$)")
# Where a stated outcome ends: a clause, how it was measured, or the people and setting it was measured in.
_STATED_END = re.compile(
    r"\s*[;:]|\.(?:\s|$)|,\s+(?:defined|measured|assessed|rated|evaluated|expressed|determined|calculated|estimated|"
    r"adjusted|adjusting|controlling|ascertained|as|which|that|using|with|based|according|at|by|in|among|during|"
    r"from|while|whereas|and\s+(?:to|we|the\s+(?:secondary|other))\b)\b|"
    r"\s+(?:(?:as|and)\s+)?(?:assessed|measured|defined|determined|evaluated|rated|estimated|quantified|ascertained|"
    r"expressed|confirmed|stratified|adjusted)\s+(?:by|with|using|as|on|in|at|from|through|via|during|over|for|after)\b|"
    r"\s+(?:using|through|via|according\s+to|based\s+on|between|among|across|versus|vs\.?|and\s+to|"
    r"and\s+(?:we|it|they)\b)\b|"
    r"\s+(?:in|among|for)\s+(?:(?:a|an|the|all|both|each|\d[\d,.]*|[\w-]+)\s+){0,4}?" + _HEAD + r"\b", _I)
_VERB_ONLY = re.compile(r"^\w+(?:ed|en)$", _I)
_STATED_LEAD = re.compile(r"^(?:(?:the|a|an|our|its|their|potential|possible)\s+)+", _I)
_STATED_MAX_WORDS = 30
# The subject of "... were measured" that is no measured quantity.
_NOT_MEASURED = re.compile(r"^(?:data|samples?|specimens?|records?|charts?|questionnaires?|results?|analys[ie]s|"
                           r"outcomes?|variables?|parameters?|measurements?|it|this|these|they|all|each|both|study|"
                           r"studies|trials?|models?|methods?|groups?|differences?|associations?|quality|characteristics|"
                           r"baseline\s+characteristics|eligibility|consent|information|compliance\s+with|interviews?|"
                           r"sessions?|transcripts?|recordings?|images?|videos?|scans?|surveys?)\b", _I)
_ASSOCIATION_OF = re.compile(r"\b(?:associations?|relationships?|relations?|links?|correlations?)\s+(?:between|of)\s+"
                             r"(?P<rest>.+)$", _I)
# The outcome a section or a "primary outcome" sentence names.
_NAMED_OUTCOME = re.compile(
    r"(?<!\bof\s)(?<!\bof\sthe\s)\b(?:primary|main|principal|secondary|co-?primary|key)\s+(?:(?:efficacy|safety|clinical|study|composite)\s+)?"
    r"(?:outcomes?|end-?\s?points?|outcome\s+measures?|measures?\s+of\s+outcome)\s+(?:measures?\s+)?(?:was|were|is|are|"
    r"included|includes|comprised|consisted\s+of)\s+(?P<o>.+)$", _I)
_NAMED_SUBJECT = re.compile(
    r"^(?P<o>[^;:]{2,150}?)\s+(?:was|were|is|are)\s+(?:the\s+|our\s+)?(?:primary|main|principal|secondary)\s+"
    r"(?:(?:efficacy|safety|study)\s+)?(?:outcomes?|end-?\s?points?|outcome\s+measures?)\b", _I)
_MEASURED = (r"(?P<verb>measured|assessed|evaluated|quantified|recorded|determined|estimated|monitored|ascertained|"
             r"compared)")
_WE_MEASURED = re.compile(r"\bwe\s+(?:also\s+|then\s+|\w+ly\s+)?" + _MEASURED + r"\s+(?P<o>.+)$", _I)
_WERE_MEASURED = re.compile(r"^(?P<o>[^;:]{2,200}?)\s+(?:was|were)\s+(?:also\s+|then\s+|\w+ly\s+)?" + _MEASURED
                            + r"\b", _I)
_USED_TO = re.compile(r"\b(?:was|were)\s+used\s+to\s+(?P<verb>compare|estimate|assess|evaluate|measure|quantify|"
                      r"determine|calculate)\s+(?P<o>.+)$", _I)
# A sentence that states the study's aim.
_AIM_HEADING = re.compile(r"\b(?:OBJECTIVES?|AIMS?|PURPOSE|GOALS?)\b")
_AIM = re.compile(r"^to\s+\w+|\bthe\s+(?:aim|objective|purpose|goal)s?\s+(?:of\s+[^,]+?\s+)?(?:was|were|is)\s+to\b|"
                  r"\bwe\s+(?:aimed|sought|set\s+out|wanted|wished)\s+to\b|\b(?:this|the\s+present|the\s+current|our)\s+"
                  r"(?:[\w-]+\s+)?(?:study|trial|analysis|review)\s+(?:was\s+designed\s+to|aimed\s+to|aims\s+to|sought\s+to|"
                  r"was\s+undertaken\s+to|was\s+conducted\s+to)\b|\bwe\s+(?:\w+ly\s+)?(?:examined|investigated|explored|"
                  r"studied)\b", _I)
_EFFECT_OF_ON = re.compile(r"\b(?:effects?|impacts?|influence|efficacy|effectiveness)\s+of\s+.+?\s+(?:on|upon)\s+"
                           r"(?P<o>.+)$", _I)
_WHETHER = re.compile(r"\b(?:whether|if)\s+.+?\s+(?:(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:associated\s+with|related\s+to|"
                      r"linked\s+to)|(?:reduces?|increases?|improves?|prevents?|affects?|lowers?|raises?|decreases?|"
                      r"predicts?|alters?|changes?))\s+(?:(?:a|an|the)\s+)?(?:(?:lower|higher|reduced|increased|"
                      r"reduction|increase|decrease|change|improvement)s?\s+(?:in|of)\s+)?(?P<o>.+)$", _I)
# A result that names its measured quantity: "the incidence of X was lower", "Mean HbA1c levels were similar".
_MEASURE_NOUN = (r"(?:incidence|rates?|risks?|odds|hazards?|prevalence|proportions?|percentages?|numbers?|frequency|"
                 r"frequencies|levels?|concentrations?|scores?|duration|length|mortality|survival|values?|counts?)")
_RESULT = re.compile(r"^(?:compared\s+(?:with|to)\s+[^,]{2,200},\s+)?(?P<o>(?:[\w-]+\s+){0,3}?" + _MEASURE_NOUN
                     + r"\b[^,;:]{0,80}?)\s+(?:was|were|did)\s+(?:\w+ly\s+)?(?:not\s+)?(?:\w+ly\s+)?(?:lower|higher|"
                     r"increased|decreased|reduced|greater|smaller|shorter|longer|similar|different|differ|unchanged|"
                     r"elevated|improved|doubled|halved|comparable|raised|worse|better)\b", _I)


def _unnested(text: str) -> str:
    """`text` without what brackets hold inside other brackets, so that the outer aside can go whole
    ("interleukins (tumour necrosis factor-alpha (TNF-alpha), interleukin (IL)-6)")."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
            if depth == 1:
                out.append(ch)
        elif ch in ")]" and depth:
            if depth == 1:
                out.append(ch)
            depth -= 1
        elif depth <= 1:
            out.append(ch)
    return "".join(out)


def _stated_phrase(text: str) -> str | None:
    """The outcome phrase at the start of `text`, ended where _STATED_END says; an association's
    outcome is its last end ("associations between X and Y and Z" -> "Z"). None when what is left
    is no noun phrase or is too long to be one."""
    p = " ".join(_ASIDE.sub("", _unnested(text)).split())
    association = _ASSOCIATION_OF.match(_STATED_LEAD.sub("", p))
    if association:
        rest = association.group("rest")
        rest = rest[: m.start()] if (m := _STATED_END.search(rest)) else rest
        ends = re.split(r"\s+with\s+|,?\s+and\s+", rest, flags=_I)
        p = ends[-1] if len(ends) > 1 else ""
    p = p[: m.start()] if (m := _STATED_END.search(p)) else p
    p = _STATED_LEAD.sub("", p.strip(" ,.;:")).strip(" ,.;:")
    # "Analysis of the primary outcome was conducted using ...": a verb, not what was measured
    if not p or len(p.split()) > _STATED_MAX_WORDS or is_fragment(p) or _VERB_ONLY.match(p):
        return None
    return p


def _named(body: str) -> str | None:
    if m := _NAMED_OUTCOME.search(body):
        return _stated_phrase(m.group("o"))
    if m := _NAMED_SUBJECT.match(body):
        return _stated_phrase(m.group("o"))
    return None


def _measured(body: str) -> str | None:
    for pattern in (_WE_MEASURED, _USED_TO, _WERE_MEASURED):
        m = pattern.search(body)
        if not m:
            continue
        o = m.group("o")
        if pattern is _WERE_MEASURED and _NOT_MEASURED.match(_STATED_LEAD.sub("", o)):
            continue
        # "We compared drug A with drug B" names the arms, not what was measured.
        if m.group("verb").lower().startswith("compar") and re.search(
                r"\b(?:with|to|against)\b", _STATED_END.split(o, maxsplit=1)[0], _I):
            continue
        if (found := _stated_phrase(o)) is not None:
            return found
    return None


def _aimed(body: str) -> str | None:
    for pattern in (_EFFECT_OF_ON, _WHETHER):
        if (m := pattern.search(body)) and (found := _stated_phrase(m.group("o"))):
            return found
    if m := _ASSOCIATION_OF.search(body):
        return _stated_phrase(m.group(0))
    return None


def _result(body: str) -> str | None:
    m = _RESULT.match(_OPENING.sub("", body))
    return _stated_phrase(m.group("o")) if m else None


def stated_outcome(sentences: Sequence[str], *, population: str | None = None) -> StatedOutcome | None:
    """The outcome the abstract states was measured, and the sentence that states it, else None:
    first an outcome section's, then a "primary outcome" sentence's, then what the study says it
    measured, then its stated aim, then a result that names its measured quantity; each the first
    sentence about the study itself (not background or earlier work) that states one that can fill
    the outcome column (is_outcome: a whole noun phrase, not the people studied)."""
    skip = not_about_this_study(sentences)
    headings = section_headings(sentences)
    bodies = [_first_sentence(without_section_label(s)).strip() for s in sentences]

    def section(i: int) -> str | None:
        body = _OUTCOME_LABEL.sub("", bodies[i])
        if body == bodies[i] and (not _OUTCOME_HEADING.search(headings[i]) or _RESULT_HEADING.search(headings[i])):
            return None
        said = _named(body) or _measured(body)
        # the section's heading says what follows it is the outcome: a phrase without a verb of its own
        return said or _stated_phrase(body)

    def aimed(i: int) -> str | None:
        return _aimed(bodies[i]) if _AIM_HEADING.search(headings[i]) or _AIM.search(bodies[i]) else None

    readers: list[tuple[Literal["section", "named", "measured", "aim", "result"], Callable[[int], str | None]]] = [
        ("section", section), ("named", lambda i: _named(bodies[i])), ("measured", lambda i: _measured(bodies[i])),
        ("aim", aimed), ("result", lambda i: _result(bodies[i]))]
    for said_as, read in readers:
        for i in range(len(sentences)):
            if i in skip:
                continue
            phrase = read(i)
            if phrase and is_outcome(phrase, population=population):
                return StatedOutcome(outcome=phrase, sentence=i, said_as=said_as)
    return None
