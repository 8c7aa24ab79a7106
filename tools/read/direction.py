"""Direction of a finding: does a claim or an evidence sentence say the outcome goes up, down, or
does not change?

Refutation of a causal or comparative claim turns on direction words: "X lowers Y" is refuted by
"Y was higher with X" and by "no significant difference in Y". A small cross-encoder misreads these
often (it scores "aspirin reduced infarction" as support for "aspirin increases infarction"), so the
document decision (tools.read.document_model) also reads the direction of the claim and of each
sentence that covers the claim's relation, and compares them.

The reader is a lexicon with negation handling, measured on Evidence Inference 2.0 trial findings
(significantly increased / decreased / no significant difference; `python -m evals.direction`,
evals/results/direction.json). It answers UNKNOWN rather than guess.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Direction(StrEnum):
    UP = "up"
    DOWN = "down"
    NONE = "none"  # no difference / no effect / no association
    ASSOCIATED = "associated"  # a relation without a sign ("is associated with")
    UNKNOWN = "unknown"


_NONE_PATTERNS = [
    r"\bno (?:statistically )?significant(?:ly)? (?:\w+ )?(?:difference|differences|change|changes|effect|effects|"
    r"association|associations|correlation|relationship|increase|decrease|reduction|improvement|benefit)",
    r"\bnot (?:statistically )?significant(?:ly)?\b", r"\bnon-?significant(?:ly)?\b", r"\bnonsignificant\b",
    r"\b(?:did|does|do|was|were|is|are|could|can|may) not (?:\w+ly )?(?:differ|change|affect|alter|influence|"
    r"improve|reduce|increase|decrease|lower|raise|prevent|protect|cause|predict|associate|correlate|modify|"
    r"result|lead|show|have an? (?:significant )?effect|reach)",
    r"\bno (?:\w+ )?(?:difference|differences|effect|effects|association|associations|correlation|change|"
    r"benefit|impact|relationship|link|influence)\b",
    r"\b(?:similar|comparable|equivalent|unchanged|unaffected|unaltered|independent of|not associated|"
    r"not related|not correlated|not linked|was not|were not)\b(?! (?:only|just))",
    r"\bneither\b", r"\bfailed to\b", r"\bas effective as\b", r"\bnon-?inferior\b",
    r"\bp\s*[>=]\s*0?\.(?:[1-9]|0[5-9])",
]
_UP_WORDS = (
    r"increas\w*|rais(?:e|ed|es|ing)|elevat\w*|higher|greater|more|enhanc\w*|promot\w*|induc\w*|boost\w*|"
    r"accelerat\w*|ris(?:e|es|ing)|rose|augment\w*|stimulat\w*|upregulat\w*|up-regulat\w*|improv\w*|"
    r"positively|longer|larger|gain\w*|exacerbat\w*|worsen\w*|excess"
)
_DOWN_WORDS = (
    r"reduc\w*|decreas\w*|lower\w*|declin\w*|fell|fall(?:s|ing)?|drop\w*|diminish\w*|attenuat\w*|inhibit\w*|"
    r"suppress\w*|prevent\w*|protect\w*|alleviat\w*|less|fewer|smaller|shorter|slow\w*|negatively|inversely|"
    r"downregulat\w*|down-regulat\w*|mitigat\w*|block\w*|impair\w*|abolish\w*|lessen\w*|cut|cuts|halv\w*|"
    r"decline|loss|deplet\w*"
)
_ASSOC = r"associat\w*|link\w*|correlat\w*|relat(?:ed|ion|ionship)|predict\w*|contribut\w*|affect\w*|influenc\w*"
_NONE_RE = re.compile("|".join(_NONE_PATTERNS), re.IGNORECASE)
_UP_RE = re.compile(rf"\b(?:{_UP_WORDS})\b", re.IGNORECASE)
_DOWN_RE = re.compile(rf"\b(?:{_DOWN_WORDS})\b", re.IGNORECASE)
_ASSOC_RE = re.compile(rf"\b(?:{_ASSOC})\b", re.IGNORECASE)
# "more than", "less than 5%": quantities, not directions.
_QUANTITY_RE = re.compile(r"\b(?:more|less|fewer|greater|higher|lower) than (?:\d|one|two|three|half|a third)",
                          re.IGNORECASE)
# "increased risk of" reads UP; "reduced risk" DOWN: the first direction word usually carries it.


def _clean(text: str) -> str:
    return _QUANTITY_RE.sub(" ", " ".join(text.split()))


def _signed(text: str) -> Direction:
    ups = [m.start() for m in _UP_RE.finditer(text)]
    downs = [m.start() for m in _DOWN_RE.finditer(text)]
    if ups and not downs:
        return Direction.UP
    if downs and not ups:
        return Direction.DOWN
    if ups and downs:
        # Both: the first is usually the finding's verb ("reduced the increase in" is rare).
        return Direction.UP if ups[0] < downs[0] else Direction.DOWN
    return Direction.UNKNOWN


def sentence_direction(sentence: str) -> Direction:
    """What an evidence sentence reports: UP, DOWN, NONE (no significant difference / effect),
    ASSOCIATED (a relation without a sign) or UNKNOWN."""
    text = _clean(sentence)
    if _NONE_RE.search(text):
        return Direction.NONE
    signed = _signed(text)
    if signed is not Direction.UNKNOWN:
        return signed
    return Direction.ASSOCIATED if _ASSOC_RE.search(text) else Direction.UNKNOWN


def claim_direction(relation: str, obj: str = "") -> Direction:
    """What a claim asserts, from its relation (verb group) and the start of its object
    ("lowers", "is associated with reduced", "does not increase")."""
    head = " ".join(obj.split()[:3])
    text = _clean(f"{relation} {head}")
    if re.search(r"\b(?:not|no|never|neither|unrelated|independent)\b", relation, re.IGNORECASE):
        return Direction.NONE
    signed = _signed(text)
    if signed is not Direction.UNKNOWN:
        return signed
    return Direction.ASSOCIATED if _ASSOC_RE.search(text) or relation.strip() else Direction.UNKNOWN


def agreement(claim: Direction, sentence: Direction) -> int:
    """+1 when the sentence's direction bears the claim out, -1 when it goes against it, 0 when
    either direction is unknown or the pair says nothing (a signed claim and a sign-free sentence)."""
    if Direction.UNKNOWN in (claim, sentence):
        return 0
    if claim in (Direction.UP, Direction.DOWN):
        if sentence is claim:
            return 1
        if sentence in (Direction.UP, Direction.DOWN, Direction.NONE):
            return -1
        return 0
    if claim is Direction.NONE:
        return 1 if sentence is Direction.NONE else -1 if sentence in (Direction.UP, Direction.DOWN) else 0
    # ASSOCIATED claim: any signed finding bears it out, a null finding goes against it.
    return -1 if sentence is Direction.NONE else 1
