"""Claim-component coverage: does a text speak to the claim's relation, or only to its subject?

An abstract about vitamin D and mortality is about the subject of "Vitamin D supplementation
prevents respiratory infections" but says nothing on respiratory infections; a stance model reads
its "supplementation reduced mortality" as support all the same. Evidence has to cover both ends of
the claim's relation: its subject (intervention / exposure / entity) and its object (outcome /
property), as split by tools.read.claim_analysis.claim_components.

A component's coverage in a text is the share of its content terms (Snowball stems, the keyword
index's tokeniser) that the text uses, each term weighted by its specificity: terms that say how
or how much ("risk", "levels", "increase", "patients") carry no weight, since any text in the
field uses them. The document-level decision (tools.read.stance) takes the coverage as features, and
`addresses` is the documented minimum below which a document is not evidence at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from claimscope.tools.find.sparse import tokenize
from claimscope.tools.read.claim_analysis import claim_components

# Stems of words that say how, how much or of whom, not what: they neither make a text on-claim
# nor off-claim (tools.find.sparse.tokenize form, so "reduces" and "reduced" are one entry).
GENERIC_TERMS: frozenset[str] = frozenset(tokenize(
    """risk risks chance chances likelihood odds probability level levels rate rates amount amounts
    number numbers effect effects impact impacts role roles influence association associated link
    linked relationship relation related correlation correlated increase increases increased decrease
    decreases decreased reduce reduces reduced reduction lower lowers lowered higher high low more less
    greater smaller significant significantly likely unlikely better worse improve improves improved
    cause causes caused lead leads development develop developing occurrence incidence prevalence
    people person persons individuals individual patients patient subjects humans human adults adult
    population populations general overall certain various several many much often use uses used
    using new novel major key important main specific function functions activity
    found find finds finding findings report reports reported result results show shows showed shown
    suggest suggests suggested say says said estimate estimates estimated line study studies evidence
    data different group groups least one two most majority minority help helps helped
    consumption consume consumed intake exposure exposed administration administer administered
    administering treatment treated therapy therapies
    """
))

# Coverage below which a document does not address a component (chosen on SciFact TRAIN claims:
# evals/results/document_rule.json reports what share of gold evidence abstracts it keeps).
DEFAULT_MIN_COVERAGE = 0.5


class ComponentTerms(BaseModel):
    """The content terms of each end of a claim's relation."""

    subject: list[str] = Field(description="Stemmed specific terms of the claim's subject.")
    object: list[str] = Field(description="Stemmed specific terms of the claim's object ([] if none).")
    acronyms: list[str] = Field(default_factory=list,
                                description="Terms the claim writes as an acronym (CR, ADHD), lower-case: a "
                                            "text also covers one by spelling it out (caloric restriction).")


class Coverage(BaseModel):
    """Share of each component's terms that a text uses (1.0 for a component without terms)."""

    subject: float = Field(ge=0, le=1)
    object: float = Field(ge=0, le=1)

    @property
    def both(self) -> float:
        """The weaker end: a text covers the relation only as far as it covers both ends."""
        return min(self.subject, self.object)


def _specific(text: str) -> list[str]:
    terms = list(dict.fromkeys(t for t in _terms(text) if t not in GENERIC_TERMS))
    # A bare number ("19" of COVID-19, "2" of type 2 diabetes) turns up in nearly every abstract:
    # it names nothing on its own, so it counts only where a component has nothing else.
    words = [t for t in terms if not t.isdigit()]
    return words or terms


def component_terms(claim: str) -> ComponentTerms:
    """Specific terms of the claim's subject and object. A term in both ends (a claim about X and
    X-related Y) belongs to the subject only. When the split leaves one end empty (no recognisable
    verb, or a pronoun subject: "This is in line with ..."), the terms are halved in claim order, so
    a text must still cover the claim's start and its end: one shared topic word is not enough."""
    parts = claim_components(claim)
    subject = _specific(parts.subject)
    obj = [t for t in _specific(parts.object) if t not in subject]
    if not subject or not obj:
        terms = subject or obj
        half = (len(terms) + 1) // 2
        subject, obj = terms[:half], terms[half:]
    return ComponentTerms(subject=subject, object=obj, acronyms=acronyms(claim))


# An acronym as claims write one: 2-6 capitals, no digits (a gene or a cell line such as "IL6" or
# "HeLa" is a name, not initials), optionally a plural "s".
_ACRONYM = re.compile(r"\b([A-Z]{2,6})s?\b")


def acronyms(claim: str) -> list[str]:
    """The claim's acronyms, lower-case ("CR is associated with ..." -> ["cr"])."""
    return list(dict.fromkeys(m.group(1).lower() for m in _ACRONYM.finditer(claim)))


def _spelled_out(acronym: str, words: list[str]) -> bool:
    """True if consecutive content `words` (stems, stop words out) start with the acronym's letters in
    order ("cr": caloric restriction, calorie-restricted); a generic term is no part of a name, or any
    two-letter acronym would be spelled out somewhere in every abstract ("cancer risk")."""
    n = len(acronym)
    return any(all(words[i + k][0] == acronym[k] for k in range(n)) for i in range(len(words) - n + 1))


# British spellings folded onto American ones on both sides ("anaemia" / "anemia", "oestrogen").
_SPELLING = (("aem", "em"), ("oes", "es"), ("oed", "ed"), ("isation", "ization"), ("yse", "yze"))
# A claim term this long also matches inside a compound of the text ("weight" in "birthweight").
MIN_INFIX_CHARS = 5


def _fold(text: str) -> str:
    low = text.lower()
    for a, b in _SPELLING:
        low = low.replace(a, b)
    return low


def _terms(text: str) -> list[str]:
    return tokenize(_fold(text))


def _matched(term: str, present: set[str], joined: str) -> bool:
    if term in present:
        return True
    return len(term) >= MIN_INFIX_CHARS and term in joined


def _share(terms: list[str], present: set[str], joined: str, spelled: set[str]) -> float:
    if not terms:
        return 1.0
    return sum(1 for t in terms if t in spelled or _matched(_fold(t), present, joined)) / len(terms)


def coverage(terms: ComponentTerms, texts: str | Iterable[str]) -> Coverage:
    """How far `texts` (one text, or several read together, e.g. title + sentence) cover each end.
    A term counts when the text has it, or (for terms of MIN_INFIX_CHARS or more) has it inside a
    longer word: compounds and hyphen-free spellings are common in titles. A term the claim writes
    as an acronym also counts where the text spells it out: an abstract on "caloric restriction"
    covers a claim about "CR" though it never abbreviates it."""
    items = [texts] if isinstance(texts, str) else list(texts)
    present = {t for text in items for t in _terms(text)}
    joined = " " + " ".join(sorted(present)) + " "
    spelled: set[str] = set()
    if terms.acronyms:
        word_lists = [[t if t not in GENERIC_TERMS else "_" for t in _terms(text)] for text in items]
        spelled = {a for a in terms.acronyms if a not in present and any(_spelled_out(a, w) for w in word_lists)}
    return Coverage(subject=_share(terms.subject, present, joined, spelled),
                    object=_share(terms.object, present, joined, spelled))


def addresses(cov: Coverage, min_coverage: float = DEFAULT_MIN_COVERAGE) -> bool:
    """True when a text covers both ends of the relation at least to `min_coverage`."""
    return cov.both >= min_coverage - 1e-9
