"""Decomposition of comparative, conjunctive and disjunctive claims into existence sub-claims
("There exists information about whether ..."): by the LLM when one is given, by rules otherwise or
when it fails. A simple claim passes through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from claimscope.prompts import decompose as decompose_prompt
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.claim_analysis.grammar import (
    _AUX,
    _VERB_FORMS,
    _WORD,
    _first_verb,
    _lower_first,
    _norm,
    _third_person,
    _tokens,
)
from claimscope.tools.read.claim_analysis.kinds import (
    _AND_SPLIT,
    _COMPARATIVE,
    _NOT_DISJUNCTIVE,
    _OR_SPLIT,
    ClaimType,
    _conjuncts,
    _continues_predicate,
    detect_claim_type,
)

SUB_CLAIM_PREFIX = decompose_prompt.PREFIX


def bench_inputs(claim: str) -> decompose_prompt.DecomposeInput:
    """The decompose prompt's inputs for `claim` with its rule-detected type (most SciFact claims are
    simple), for `claimscope llm check` and the prompt benchmarks. Built here rather than in the
    prompt module because the rule is a tool and prompts sit below tools."""
    return decompose_prompt.DecomposeInput(claim=claim, claim_type=detect_claim_type(claim).value)


def _existence(statement: str) -> str:
    body = statement.strip().rstrip(".!?;, ")
    return f"{SUB_CLAIM_PREFIX} whether {_lower_first(body)}."


def _rule_comparative(claim: str) -> list[str]:
    text = claim.strip().rstrip(".!?")
    m = _COMPARATIVE.search(text)
    if m is None:
        return [claim]
    left, right = text[: m.start()].strip(" ,"), text[m.end():].strip(" ,")
    marker = m.group(0).lower()
    # The second entity ends where its qualifier starts ("ibuprofen | for tension headache").
    q = re.search(
        r",|\s(?:for|in|at|on|among|when|during|after|before|with|within|across|against|regarding|due\s+to"
        r"|because|over|by|from|since|while|whereas)\b",
        right,
    )
    b_part, qual = (right[: q.start()].strip(), right[q.start():].strip()) if q else (right, "")
    b_part = b_part.strip(" ,")
    qual = (" " + qual.strip(" ,")) if qual.strip(" ,") else ""
    rtoks = _tokens(b_part)
    rv = _first_verb(rtoks)
    if rv is not None and _first_verb(_tokens(left)) is None:
        # "X compared to Y may indicate Z": the predicate follows the second item and is shared.
        predicate = b_part[rtoks[rv].start:] + qual
        b_part = b_part[: rtoks[rv].start].strip(" ,")
        if left and b_part:
            return [_existence(f"{left} {predicate}"), _existence(f"{b_part} {predicate}")]
    if not left or not b_part:
        return [claim]
    # "Evidence suggests that X is more effective than Y": compare inside the that-clause.
    that = [m for m in re.finditer(r"\bthat\s+", left)
            if (w := _tokens(left[: m.start()])) and _VERB_FORMS.get(w[-1].low, ("", ""))[1] in ("3s", "past")]
    if that:
        left = left[that[-1].end():]
    toks = _tokens(left)
    v = _first_verb(toks)
    if v is None or marker.startswith(("outperform", "superior", "inferior", "non")):
        subject = left[: toks[v].start].strip() if v is not None else left
        return [
            f"{SUB_CLAIM_PREFIX} {_lower_first(subject)}{qual}.",
            f"{SUB_CLAIM_PREFIX} {_lower_first(b_part)}{qual}.",
        ]
    subject = left[: toks[v].start].strip()
    predicate = left[toks[v].start:]
    predicate = re.sub(r"\b(?:much|far|significantly|substantially|slightly)\s+(?=more|less|fewer)", "", predicate, flags=re.I)
    predicate = re.sub(r"\b(?:more|less|fewer)\b\s*", "", predicate, flags=re.I).strip()
    as_as = re.fullmatch(r"as\s+(.+?)\s+as", marker)
    if as_as:  # "is as effective as": the compared property sits inside the marker
        predicate = f"{predicate} {as_as.group(1)}"
    if not subject or not predicate:
        return [claim]
    return [_existence(f"{subject} {predicate}{qual}"), _existence(f"{b_part} {predicate}{qual}")]


def _rule_split(claim: str, splitter: re.Pattern[str]) -> list[str]:
    text = claim.strip().rstrip(".!?")
    text = re.sub(r"^(?:both|either)\s+", "", text, flags=re.I)
    protected = _NOT_DISJUNCTIVE.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    parts = [p.replace("\u00a0", " ") for p in _conjuncts(protected, splitter)]
    if len(parts) < 2:
        return [claim]
    first = _tokens(parts[0])
    v0 = _first_verb(first)
    out: list[str] = []
    if v0 is None:
        # Coordinated subjects ("both smoking and obesity raise risk"): the last part holds the predicate.
        last = _tokens(parts[-1])
        vl = _first_verb(last)
        if vl is None:
            return [claim]
        predicate = parts[-1][last[vl].start:]
        subjects = [*parts[:-1], parts[-1][: last[vl].start].strip()]
        out = [_existence(f"{s} {_singular_predicate(s, predicate)}") for s in subjects if s]
        return _dedupe(out) if len(out) >= 2 else [claim]
    subject = parts[0][: first[v0].start].strip()
    # The auxiliary group ("is", "does not", "has been") is shared by participles / base forms.
    g = v0
    while g + 1 < len(first) and (first[g + 1].low in _AUX or first[g + 1].low in {"not", "been", "also"}):
        g += 1
    aux_group = parts[0][first[v0].start: first[g].end] if first[v0].low in _AUX else ""
    if v0 == len(first) - 1 and _continues_predicate(parts[-1], first[v0].low):
        # "X increases or decreases the risk": the object after the last verb is shared.
        last = _tokens(parts[-1])
        shared = parts[-1][last[0].end:].strip()
        parts = [f"{p} {shared}" if len(_tokens(p)) == (v0 + 1 if k == 0 else 1) else p for k, p in enumerate(parts)]
    out.append(_existence(parts[0]))
    for p in parts[1:]:
        w = _tokens(p)[0].low if _tokens(p) else ""
        finite = w in _AUX or _VERB_FORMS.get(w, ("", ""))[1] == "3s" or (
            _VERB_FORMS.get(w, ("", ""))[1] == "past" and first[v0].low not in _AUX
        )
        if not _continues_predicate(p, first[v0].low):
            out.append(_existence(p))  # a clause with its own subject
        elif finite or not aux_group:
            out.append(_existence(f"{subject} {p}" if subject else p))  # "X raises A and lowers B"
        else:
            out.append(_existence(f"{subject} {aux_group} {p}" if subject else p))  # "X is A-ed or B-ed"
    return _dedupe(out) if len(out) >= 2 else [claim]


def _singular_predicate(subject: str, predicate: str) -> str:
    """Agree a plural verb with one coordinated subject ("smoking and obesity increase" ->
    "smoking increases"); subjects ending in -s are taken as plural and left alone."""
    toks = _tokens(subject)
    if not toks or toks[-1].low.endswith("s"):
        return predicate
    m = _WORD.match(predicate)
    if m is None:
        return predicate
    verb, rest = m.group(0), predicate[m.end():]
    low = verb.lower()
    swap = {"are": "is", "were": "was", "have": "has", "do": "does"}
    if low in swap:
        return swap[low] + rest
    if _VERB_FORMS.get(low, ("", ""))[1] == "base":
        return _third_person(low) + rest
    return predicate


def rule_decompose(claim: str, claim_type: ClaimType) -> list[str]:
    """Rule-based existence sub-claims: one per compared item, conjunct or alternative."""
    if claim_type == ClaimType.COMPARATIVE:
        return _rule_comparative(claim)
    if claim_type == ClaimType.CONJUNCTIVE:
        return _rule_split(claim, _AND_SPLIT)
    if claim_type == ClaimType.DISJUNCTIVE:
        return _rule_split(claim, _OR_SPLIT)
    return [claim]


def _dedupe(items: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for s in items:
        key = " ".join(s.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _decompose(claim: str, claim_type: ClaimType, llm: StructuredLLM | None) -> tuple[list[str], str | None]:
    if claim_type == ClaimType.SIMPLE:
        return [claim], None
    if llm is None:
        return rule_decompose(claim, claim_type), None
    try:
        out = llm.run(decompose_prompt.PROMPT, decompose_prompt.DecomposeInput.model_validate({"claim": claim, "claim_type": claim_type.value}))
    except LLMError as exc:
        return rule_decompose(claim, claim_type), f"the LLM could not decompose the claim ({exc}); used the rule-based split"
    subs = _dedupe([s for s in out.sub_claims if _norm(s) != _norm(claim)])
    if len(subs) < 2:
        return rule_decompose(claim, claim_type), (
            f"the LLM gave {len(subs)} usable sub-claim(s) for a {claim_type.value} claim; used the rule-based split"
        )
    return subs, None


def decompose(claim: str, claim_type: ClaimType, llm: StructuredLLM | None) -> list[str]:
    """Existence sub-claims of a comparative / conjunctive / disjunctive claim (LLM, rule-based
    fallback); a SIMPLE claim passes through as [claim]."""
    return _decompose(claim, claim_type, llm)[0]
