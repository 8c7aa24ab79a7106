"""The anti-claim, the claim's opposite (a second query everywhere the claim is queried): from the
LLM, checked to keep the claim's terms, with a rule-based negation when the LLM fails or returns
something unusable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from claimscope.prompts import anti_claim as anti_claim_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.claim_analysis.grammar import (
    _BE,
    _DO,
    _HAVE,
    _MODALS,
    _PARTICIPLES,
    _VERB_FORMS,
    _WORD,
    _first_verb,
    _lower_first,
    _norm,
    _tokens,
)
from claimscope.tools.read.claim_analysis.validation import MIN_CLAIM_WORDS, validate_claim

# Share of the claim's content words an LLM anti-claim must keep to be accepted as its opposite.
MIN_ANTI_CLAIM_OVERLAP = 0.4


_CONTRACTIONS = {
    "doesn't": "does", "don't": "do", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "hasn't": "has", "haven't": "have", "hadn't": "had", "can't": "can", "cannot": "can",
    "couldn't": "could", "won't": "will", "wouldn't": "would", "shouldn't": "should", "mustn't": "must",
    "mightn't": "might",
}
_NEGATED_AUX = re.compile(r"\b(does|do|did|is|are|was|were|has|have|had|can|could|may|might|will|would|should|must|shall)\s+not\b", re.I)
_CONTRACTED = re.compile(r"\b(" + "|".join(re.escape(c) for c in _CONTRACTIONS) + r")(?=\W|$)", re.I)
_CAN_NOT = re.compile(r"\bcan\s+not\b", re.I)
_FAILS = re.compile(r"\b(fails|failed|fail)\s+to\b", re.I)
_NEVER = re.compile(r"\s*\bnever\b", re.I)
_NO = re.compile(r"\bno\b(?!\s+longer\b)", re.I)
_NOT = re.compile(r"\s*\bnot\b", re.I)


def _case_like(word: str, model: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


# A negation after one of these belongs to a subordinate or contrasted clause, not the main one.
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:that|which|who|whom|whose|but|although|though|while|whereas|because|if)\b", re.I)


def _remove_negation(text: str) -> str | None:
    """The positive form of a claim whose main clause is negated, or None if it is not: a
    negation after a comma or a clause word ("..., not Y", "that is not", "but not") belongs to
    another clause, so "X may trigger Y, suggesting Z not captured" is negated as a positive claim."""
    norm = text.replace("’", "'")
    found: list[tuple[int, re.Match[str], Callable[[re.Match[str]], str]]] = []
    for rx, repl in (
        (_CAN_NOT, lambda m: _case_like("can", m.group(0))),
        (_NEGATED_AUX, lambda m: m.group(1)),
        (_CONTRACTED, lambda m: _case_like(_CONTRACTIONS[m.group(1).lower()], m.group(1))),
        (_FAILS, lambda m: _case_like({"fails": "does", "failed": "did", "fail": "do"}[m.group(1).lower()], m.group(1))),
        (_NEVER, lambda m: ""),
        (_NO, lambda m: _case_like("some", m.group(0))),
        (_NOT, lambda m: ""),
    ):
        m = rx.search(norm)
        if m is not None:
            found.append((m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m, repl))
    if not found:
        return None
    start, m, repl = min(found, key=lambda f: f[0])
    if _CLAUSE_BREAK.search(norm[:start]):
        return None
    return (norm[: m.start()] + repl(m) + norm[m.end():]).strip()


def negate_claim(claim: str) -> str:
    """Rule-based opposite of a claim: a negated claim loses its negation ("does not reduce" ->
    "does reduce", "no association" -> "some association"); otherwise the first finite verb is
    negated ("is" -> "is not", "can" -> "cannot", "increases" -> "does not increase", "reduced" ->
    "did not reduce"); a claim without a recognisable verb becomes "It is not the case that ..."."""
    text = " ".join(claim.split())
    if not text:
        raise InputError("cannot negate an empty claim.")
    positive = _remove_negation(text)
    if positive is not None:
        return positive
    toks = _tokens(text)
    i = _first_verb(toks)
    if i is not None:
        tok = toks[i]
        w = tok.low
        head, tail = text[: tok.start], text[tok.end:]
        if i + 1 < len(toks) and toks[i + 1].low in ("not", "never"):
            # "X, however, does not reduce Y": the main verb is negated after all.
            return (text[: toks[i + 1].start].rstrip() + text[toks[i + 1].end:]).strip()
        if w == "can":
            return f"{head}{_case_like('cannot', tok.text)}{tail}"
        if w in _BE or w in _MODALS or w in _DO:
            return f"{head}{tok.text} not{tail}"
        if w in _HAVE:
            nxt = toks[i + 1].low if i + 1 < len(toks) else ""
            if nxt in _PARTICIPLES or nxt.endswith("ed"):
                return f"{head}{tok.text} not{tail}"
            return f"{head}{_HAVE[w]} not have{tail}"
        base, form = _VERB_FORMS[w]
        aux = {"3s": "does", "base": "do", "past": "did"}[form]
        return f"{head}{aux} not {base}{tail}"
    body = text.rstrip(".!?")
    end = text[len(body):] or "."
    return f"It is not the case that {_lower_first(body)}{end}"


def _anti_claim(claim: str, llm: StructuredLLM | None) -> tuple[str, Literal["llm", "rule"], str | None]:
    if llm is None:
        return negate_claim(claim), "rule", None
    try:
        out = llm.run(anti_claim_prompt.PROMPT, anti_claim_prompt.AntiClaimInput(claim=claim))
    except LLMError as exc:
        return negate_claim(claim), "rule", f"the LLM could not write the anti-claim ({exc}); used the rule-based negation"
    text = " ".join(out.anti_claim.split())
    if _norm(text) == _norm(claim) or len(_WORD.findall(text)) < MIN_CLAIM_WORDS:
        return negate_claim(claim), "rule", "the LLM's anti-claim repeated the claim or was empty; used the rule-based negation"
    if _content_overlap(claim, text) < MIN_ANTI_CLAIM_OVERLAP:
        # An opposite keeps the claim's subject and outcome; a small model sometimes drifts off topic.
        return negate_claim(claim), "rule", (
            f"the LLM's anti-claim {text!r} does not keep the claim's terms; used the rule-based negation"
        )
    return text, "llm", None


_STOPWORDS = {
    "the", "and", "that", "with", "from", "this", "these", "those", "than", "there", "their", "which",
    "does", "have", "been", "were", "into", "more", "less", "also", "such", "when", "only", "some",
}


def _content_words(text: str) -> set[str]:
    return {w for w in _norm(text).split() if len(w) > 3 and w not in _STOPWORDS}


def _content_overlap(claim: str, other: str) -> float:
    """Share of the claim's content words that `other` also uses (1.0 for a claim without any)."""
    words = _content_words(claim)
    if not words:
        return 1.0
    other_words = _content_words(other)
    # Crude stemming: "reduce" in the opposite matches "reduces" in the claim.
    hits = sum(1 for w in words if w in other_words or any(o[:5] == w[:5] for o in other_words if len(o) >= 5 and len(w) >= 5))
    return hits / len(words)


def anti_claim(claim: str, llm: StructuredLLM | None) -> tuple[str, Literal["llm", "rule"]]:
    """The claim's opposite and where it came from: the LLM, or the rule-based negation when there
    is no LLM, it raises LLMError, or it returns the claim itself."""
    text, source, _ = _anti_claim(validate_claim(claim), llm)
    return text, source
