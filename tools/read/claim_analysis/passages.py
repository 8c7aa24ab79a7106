"""The sub-claim passage filter: passages the stance model says support (entail) at least one
sub-claim, the union over sub-claims, or every passage when none does.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError
from claimscope.tools.models import SegmentHit, StanceScorer


class FilterResult(BaseModel):
    """Which passages survived the sub-claim filter, and whether the filter fell back to all."""

    model_config = {"arbitrary_types_allowed": True}

    kept_indices: list[int] = Field(description="Indices (into the input passages) of the kept passages.")
    kept: list[SegmentHit | str] = Field(description="The kept passages, in input order.")
    fell_back: bool = Field(description="True when no passage entailed a sub-claim and all were kept.")
    support: list[float] = Field(description="Per input passage: its best support probability over sub-claims.")
    best_sub_claim: list[int] = Field(description="Per input passage: index of the sub-claim it supports most.")


def _passage_text(p: SegmentHit | str) -> str:
    return p.segment.text if isinstance(p, SegmentHit) else p


def filter_passages(
    sub_claims: list[str],
    passages: list[SegmentHit | str],
    scorer: StanceScorer,
    threshold: float = 0.5,
) -> FilterResult:
    """Keep the passages whose support (entailment) probability for at least one sub-claim is
    >= threshold (union over sub-claims). When none reaches it, keep every passage and say so
    (fell_back=True): the RAG+NLI method falls back to the retrieved passages rather than to nothing.
    """
    if not sub_claims or not any(s.strip() for s in sub_claims):
        raise InputError("filter_passages needs at least one sub-claim; pass [claim] for a simple claim.")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the entailment threshold must be between 0 and 1, got {threshold}.")
    subs = [s for s in sub_claims if s.strip()]
    if not passages:
        return FilterResult(kept_indices=[], kept=[], fell_back=False, support=[], best_sub_claim=[])
    texts = [_passage_text(p) for p in passages]
    pairs = [(s, t) for t in texts for s in subs]
    results = scorer.predict(pairs)
    if len(results) != len(pairs):
        raise ValueError(f"the stance scorer returned {len(results)} results for {len(pairs)} pairs")
    support: list[float] = []
    best: list[int] = []
    for i in range(len(texts)):
        row = [r.support for r in results[i * len(subs): (i + 1) * len(subs)]]
        j = max(range(len(row)), key=row.__getitem__)
        support.append(float(row[j]))
        best.append(j)
    kept = [i for i, s in enumerate(support) if s >= threshold]
    fell_back = not kept
    if fell_back:
        kept = list(range(len(passages)))
    return FilterResult(
        kept_indices=kept,
        kept=[passages[i] for i in kept],
        fell_back=fell_back,
        support=support,
        best_sub_claim=best,
    )
