"""A claim split at its main verb into subject, relation and object, by rules (no LLM): what
coverage and the document model check both ends of.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.tools.read.claim_analysis.grammar import (
    _AUX,
    _NOUN_LIKE,
    _PARTICIPLES,
    _VERB_FORMS,
    _first_verb,
    _tokens,
)


class ClaimComponents(BaseModel):
    """What a claim relates: its subject (the intervention, exposure or entity), the relation (the
    verb group) and its object (the outcome or property). Evidence must speak to both ends."""

    subject: str = Field(description="Text before the main verb, e.g. 'Vitamin D supplementation'.")
    relation: str = Field(description="The verb group, e.g. 'prevents', 'is associated with'; '' if none.")
    object: str = Field(description="Text after the verb group, e.g. 'respiratory infections'; '' if none.")


# Words a verb group may continue with before its object starts ("is not significantly associated with").
_VERB_GROUP = {"not", "never", "no", "longer", "been", "be", "being", "also", "often", "usually", "generally",
               "significantly", "strongly", "directly", "indirectly", "independently", "positively",
               "negatively", "inversely", "causally", "to", "with", "by", "in", "of", "on", "for", "from",
               "into", "than", "as", "at", "against"} | _PARTICIPLES


def claim_components(claim: str) -> ClaimComponents:
    """Split a claim at its main verb into subject / relation / object (rules, no LLM).

    "Coffee consumption lowers the risk of type 2 diabetes" -> ("Coffee consumption", "lowers",
    "the risk of type 2 diabetes"). A that-clause after a reporting verb is split instead ("Studies
    show that X reduces Y" -> X / reduces / Y). Without a recognisable verb the whole claim is the
    subject and the object is empty."""
    text = " ".join(claim.split()).rstrip(".!?")
    toks = _tokens(text)
    v = _first_verb(toks)
    if v is None:
        return ClaimComponents(subject=text, relation="", object="")
    end = v + 1
    while end < len(toks) and (toks[end].low in _VERB_GROUP or toks[end].low in _AUX
                               or (toks[end].low in _VERB_FORMS and _VERB_FORMS[toks[end].low][1] != "base"
                                   and toks[end].low not in _NOUN_LIKE)
                               or toks[end].low.endswith("ly")):
        end += 1
    if end < len(toks) and toks[end].low == "that" and end + 1 < len(toks):
        inner = claim_components(text[toks[end + 1].start:])
        if inner.relation:
            return inner
    subject = text[: toks[v].start].strip(" ,")
    last = toks[end - 1]
    relation = text[toks[v].start: last.end]
    obj = text[last.end:].strip(" ,") if end < len(toks) else ""
    if not subject:
        return ClaimComponents(subject=text, relation="", object="")
    return ClaimComponents(subject=subject, relation=relation, object=obj)
