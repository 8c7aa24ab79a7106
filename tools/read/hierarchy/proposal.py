"""The LLM steps with their fallbacks: aspects proposed for the claim or a node (names tidied and
checked, copied descriptions replaced), and a node's keywords refreshed from its segments.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from claimscope.prompts import aspects as aspects_prompt
from claimscope.prompts import keywords as keywords_prompt
from claimscope.prompts import subaspects as subaspects_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.hierarchy.clusters import (
    format_excerpts,
    keyword_clusters,
    salient_terms,
)
from claimscope.tools.read.hierarchy.terms import _clip, _dedupe, _ordered_terms, _terms
from claimscope.tools.read.hierarchy.tree import (
    DESCRIPTION_CHARS,
    KEYWORD_CHARS,
    NAME_CHARS,
    ROOT_ID,
    AspectDraft,
    AspectNode,
)
from claimscope.tools.text.text_guard import copied_from, name_problems, tidy_name

log = logging.getLogger(__name__)

def propose_aspects(
    claim: str,
    llm: StructuredLLM,
    *,
    k: int,
    parent: AspectNode | None = None,
    ancestors: Sequence[AspectNode] = (),
    segments: Sequence[str] = (),
    n_keywords: int = 5,
) -> list[AspectDraft]:
    """Up to k aspect drafts: the claim's top-level aspects (parent None or the root), else the
    sub-aspects of `parent` discovered from its top-ranked `segments` (texts, best first).

    On LLMError (or an unusable answer) returns keyword clusters of `segments` (or generic evidence
    aspects when there are none) with origin='fallback' and a note saying so.
    """
    if not claim.strip():
        raise InputError("The claim is empty: give the claim text to investigate.")
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k}); fix hierarchy.top_k.")
    n_keywords = max(1, min(8, n_keywords))
    ask = min(k, 8)
    top_level = parent is None or parent.id == ROOT_ID
    out: aspects_prompt.AspectsOutput | subaspects_prompt.SubaspectsOutput
    try:
        if top_level:
            out = llm.run(aspects_prompt.PROMPT, aspects_prompt.AspectsInput(claim=claim, k=ask, n_keywords=n_keywords))
        else:
            assert parent is not None
            path = "".join(f"{a.name} > " for a in ancestors if a.id != ROOT_ID)
            out = llm.run(
                subaspects_prompt.PROMPT,
                subaspects_prompt.SubaspectsInput(
                    claim=claim,
                    path=path,
                    aspect=parent.name,
                    description=parent.description,
                    excerpts=format_excerpts(segments),
                    k=ask,
                    n_keywords=n_keywords,
                ),
            )
        # Only sub-aspects are written from excerpts, so only they can copy one.
        drafts = _clean_drafts([(a.name, a.description, a.keywords) for a in out.aspects], exclude=parent,
                               sources=() if top_level else segments)
        if drafts:
            return drafts[:k]
        reason = "the LLM proposed no usable aspects"
    except LLMError as exc:
        reason = f"the LLM failed ({exc})"
    where = "the claim" if top_level else f"aspect {parent.name!r}" if parent else "the claim"
    context_terms = _terms(claim) | (_terms(parent.name) if parent and not top_level else set())
    drafts = keyword_clusters(segments, k=k, n_keywords=n_keywords, exclude=context_terms)
    if drafts:
        note = f"{reason}; aspects of {where} are keyword clusters of {len(segments)} segments"
    else:
        drafts = _generic_aspects(claim, k)
        note = f"{reason}; {where} got generic evidence aspects (no segments to cluster)"
    log.warning("propose_aspects: %s", note)
    return [d.model_copy(update={"origin": "fallback", "note": note}) for d in drafts]


def enrich_keywords(
    node: AspectNode,
    segments: Sequence[str],
    llm: StructuredLLM,
    *,
    max_keywords: int,
    claim: str = "",
) -> list[str]:
    """The node's keywords refreshed from its retrieved `segments` (texts, best first).

    Order: LLM keywords found in the segments, then the node's current keywords, then the other LLM
    keywords; capped at `max_keywords`. On LLMError the LLM part is replaced by salient terms of the
    segments (logged), so the step never fails.
    """
    if max_keywords < 1:
        raise InputError(f"max_keywords must be at least 1 (got {max_keywords}); fix hierarchy.keywords.")
    if not segments:
        return _dedupe(node.keywords)[:max_keywords]
    corpus = " ".join(s.lower() for s in segments)
    try:
        out = llm.run(
            keywords_prompt.PROMPT,
            keywords_prompt.KeywordsInput(
                claim=claim or node.name,
                aspect=node.name,
                description=node.description,
                current=", ".join(node.keywords) or "(none)",
                excerpts=format_excerpts(segments),
                n=min(8, max_keywords),
            ),
        )
        proposed = [k.lower()[:KEYWORD_CHARS].strip() for k in out.keywords]
        grounded = [k for k in proposed if k in corpus]
        others = [k for k in proposed if k not in corpus]
        return _dedupe([*grounded, *node.keywords, *others])[:max_keywords]
    except LLMError as exc:
        log.warning("enrich_keywords(%s): LLM failed (%s); using salient terms of %d segments", node.id, exc, len(segments))
        exclude = {w for k in node.keywords for w in _terms(k)}
        extra = [t for t, _ in salient_terms(segments, exclude=exclude)]
        return _dedupe([*node.keywords, *extra])[:max_keywords]


def _clean_drafts(items: Sequence[tuple[str, str, Sequence[str]]], exclude: AspectNode | None,
                  sources: Sequence[str] = ()) -> list[AspectDraft]:
    """Usable drafts: names tidied into phrases (slugs become words), names that are sentences or
    copies of a source dropped, descriptions copied from a source replaced by a written one."""
    seen = {exclude.name.strip().lower()} if exclude is not None else set()
    drafts = []
    for raw_name, raw_description, keywords in items:
        name = _clip(tidy_name(raw_name), NAME_CHARS)
        if not name or name.lower() in seen:
            continue
        if problems := name_problems(name) or (["is copied from an excerpt"] if copied_from(name, sources) else []):
            log.info("dropped aspect name %r: %s", name, "; ".join(problems))
            continue
        seen.add(name.lower())
        description = " ".join(raw_description.split())
        if not description or copied_from(description, sources) or copied_from(description, [name], min_words=1):
            description = written_description(name, exclude)
        drafts.append(
            AspectDraft(
                name=name,
                description=_clip(description, DESCRIPTION_CHARS),
                keywords=_dedupe(k.lower()[:KEYWORD_CHARS].strip() for k in keywords)[:8],
            )
        )
    return drafts


def written_description(name: str, parent: AspectNode | None) -> str:
    """The description given to an aspect whose own was a copied source sentence (or missing)."""
    within = f" within {parent.name}" if parent is not None and parent.id != ROOT_ID else ""
    return f"What the studies report on {name}{within}, and how it bears on the claim."


_GENERIC = [
    ("direct evidence", "Studies that directly test the claim and what they conclude.", ["direct test", "primary outcome", "main finding"]),
    ("effect size and outcomes", "How large and consistent the reported effects are across outcomes.", ["effect size", "outcome measure", "consistency"]),
    ("study quality and limitations", "Design, sample size, bias and other limits of the evidence.", ["study design", "sample size", "bias"]),
    ("population and context", "For whom and under which conditions the claim would hold.", ["population", "subgroup", "setting"]),
    ("mechanism", "Biological or causal mechanisms that would explain the claim.", ["mechanism", "pathway", "causal"]),
]


def _generic_aspects(claim: str, k: int) -> list[AspectDraft]:
    claim_terms = _ordered_terms(claim)[:3]
    return [
        AspectDraft(name=name, description=desc, keywords=_dedupe([*kws, *claim_terms])[:8])
        for name, desc, kws in _GENERIC[:k]
    ]
