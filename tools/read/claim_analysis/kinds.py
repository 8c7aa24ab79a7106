"""What kind of claim it is: its kind (empirical or debate, which decides what counts as evidence)
and its type (simple, comparative, conjunctive or disjunctive, which decides whether it is split).
"""

from __future__ import annotations

import re
from enum import StrEnum

from claimscope.tools.read.claim_analysis.grammar import (
    _AUX,
    _BE,
    _DO,
    _HAVE,
    _MODALS,
    _NOUN_LIKE,
    _VERB_FORMS,
    _WORD,
    _first_verb,
    _tokens,
)


class ClaimKind(StrEnum):
    """What kind of evidence a claim calls for.

    EMPIRICAL claims state a relation that studies measure ("Coffee lowers the risk of type 2
    diabetes"): evidence names both ends of the relation (tools.read.coverage) and reports a finding.
    DEBATE claims say what ought to be done or how something should be judged ("Vaccination must
    be made compulsory"): they are argued from consequences and values, so evidence is an argument
    that bears on the claim without repeating it (tools.argument)."""

    EMPIRICAL = "empirical"
    DEBATE = "debate"


# Obligation, permission and recommendation: what a policy or value claim asserts.
_NORMATIVE = re.compile(
    r"\b(should|shouldn't|ought|must|mustn't|shall|needs? to|has to|have to|deserves?|obligation|"
    r"(is|are|was|were|would be|be) (not )?(morally |ethically |really |actually )?(justified|unjustified|justifiable|"
    r"unjustifiable|immoral|moral|unethical|ethical|fair|unfair|wrong|acceptable|unacceptable|desirable|"
    r"undesirable|legitimate|illegitimate|a scam|a waste|a violation|tantamount|"
    r"a (good|bad) idea|(a )?good for|(a )?bad for|a force for|better than|worse than|a human right|a right|"
    r"worth)|right to|better off|it is (good|bad|wrong|right|crucial|essential|important) to)\b",
    re.IGNORECASE,
)
# Base-form verbs that open a proposal ("Ban sunbeds", "Make all museums free of charge").
_PROPOSAL_VERBS = frozenset(
    """abolish adopt allow ban build cap close cut end enforce expand fund give grant impose institute introduce
    keep legalise legalize let limit lower make nationalise nationalize outlaw permit place privatise privatize
    prohibit protect provide put raise regulate reinstate remove replace require restrict scrap stop subsidise
    subsidize tax throw treat abandon boycott bring create establish extend increase leave reduce reform
    return withdraw""".split()
)
# A proposal verb followed by one of these is a noun ("Increase of p62 ...", "Return to work ...").
_NOUN_AFTER = frozenset("of in on at to is was are were for with by".split())


def detect_claim_kind(claim: str) -> ClaimKind:
    """DEBATE for a normative claim (an obligation or permission modal, a moral or value verdict,
    or a sentence opening with a proposal verb such as "Ban ..."), EMPIRICAL otherwise. Checked
    on PERSPECTRUM and SciFact TRAIN claims by `python -m evals.claim_kind`."""
    text = " ".join(claim.split())
    if _NORMATIVE.search(text):
        return ClaimKind.DEBATE
    words = _WORD.findall(text)
    if (len(words) > 1 and words[0].lower() in _PROPOSAL_VERBS and words[0][0].isupper()
            and words[1].lower() not in _NOUN_AFTER):
        return ClaimKind.DEBATE
    return ClaimKind.EMPIRICAL


class ClaimType(StrEnum):
    """How a claim is built; anything but SIMPLE is decomposed into sub-claims."""

    SIMPLE = "simple"
    COMPARATIVE = "comparative"
    CONJUNCTIVE = "conjunctive"
    DISJUNCTIVE = "disjunctive"


_COMPARATIVE = re.compile(
    r"\b(?:than|compared\s+(?:to|with)|in\s+comparison\s+(?:to|with)|relative\s+to|versus|vs\.?"
    r"|outperforms?|outperformed|superior\s+to|inferior\s+to|non-?inferior\s+to|differs?\s+from"
    r"|different\s+from|the\s+same\s+as|as\s+(?!well\b)\w+(?:\s+\w+)?\s+as)\b",
    re.IGNORECASE,
)
# "more than 50%", "other than", "rather than" compare a quantity or exclude; no second entity.
_NOT_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|greater|higher|lower)\s+than\s+(?:\d|(?:a\s+(?:third|quarter|half|decade|year)|half|twice|double)\b)"
    r"|\b(?:other|rather)\s+than\b|\bmore\s+harm\s+than\s+good\b"
    # "stronger than expected": a comparison with an expectation, not with a second entity.
    r"|\bthan\s+(?:expected|anticipated|predicted|previously\s+(?:thought|reported|believed)|thought|assumed|usual|before)\b",
    re.IGNORECASE,
)
_NOT_DISJUNCTIVE = re.compile(r"\b(?:with\s+or\s+without|whether\s+or\s+not|more\s+or\s+less|or\s+so)\b", re.IGNORECASE)
_AND_SPLIT = re.compile(r"\s*,?\s+(?:and|as\s+well\s+as)\s+", re.IGNORECASE)
_OR_SPLIT = re.compile(r"\s*,?\s+(?:or)\s+", re.IGNORECASE)


def _conjuncts(text: str, splitter: re.Pattern[str]) -> list[str]:
    parts = [p.strip(" ,;") for p in splitter.split(text)]
    return [p for p in parts if p]


def detect_claim_type(claim: str) -> ClaimType:
    """Rule-based claim type. Comparisons win over 'or', 'or' over 'and'. 'and' / 'or' count only
    when they join predicates ("X raises A and lowers B", "X is downregulated or mutated") or
    claim-initial subjects ("Both X and Y cause Z", "Either X or Y protects"), never nouns inside a
    phrase ("Ca2+ and cAMP signalling", "between X and Y", "regional or distant metastases"),
    because splitting a noun phrase loses what the claim says."""
    text = " ".join(claim.split())
    if _COMPARATIVE.search(text) and not (
        _NOT_COMPARATIVE.search(text) and len(_COMPARATIVE.findall(text)) <= len(_NOT_COMPARATIVE.findall(text))
    ):
        return ClaimType.COMPARATIVE
    if _coordinated(text, _OR_SPLIT, "either"):
        return ClaimType.DISJUNCTIVE
    if _coordinated(text, _AND_SPLIT, "both"):
        return ClaimType.CONJUNCTIVE
    return ClaimType.SIMPLE


def _coordinated(text: str, splitter: re.Pattern[str], opener: str) -> bool:
    protected = _NOT_DISJUNCTIVE.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    parts = _conjuncts(protected, splitter)
    if len(parts) < 2:
        return False
    if re.match(rf"{opener}\b", text, re.IGNORECASE):
        return _first_verb(_tokens(parts[-1])) is not None
    first = _tokens(parts[0])
    v0 = _first_verb(first)
    if v0 is None:
        return False
    return any(_continues_predicate(p, first[v0].low) for p in parts[1:])


def _continues_predicate(part: str, head_verb: str) -> bool:
    """True if `part` starts with a verb that continues a predicate: a finite verb ("increases"),
    or a participle / base form after an auxiliary ("is downregulated or mutated", "does not
    repress X or exert Y")."""
    toks = _tokens(part)
    if not toks:
        return False
    w = toks[0].low
    if w in _AUX:
        return True
    form = _VERB_FORMS.get(w, ("", ""))[1]
    if form == "3s" or (form == "past" and head_verb not in _AUX):
        return True
    if w in _NOUN_LIKE:  # "the ownership and use of data"
        return False
    # After "is"/"has" only a participle continues ("is downregulated or mutated"); after
    # "does"/"may" only a base form ("may complicate X and lead to Y"). "is a strategy to
    # justify X and influence Y" coordinates infinitives inside the object instead.
    if head_verb in _BE or head_verb in _HAVE:
        return form == "past"
    if head_verb in _DO or head_verb in _MODALS:
        return form == "base"
    return False
