"""Merging near-duplicate sibling aspects before they enter the tree."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TypeVar

from claimscope.tools.models import Embedder
from claimscope.tools.read.hierarchy.cache import cached
from claimscope.tools.read.hierarchy.terms import _dedupe
from claimscope.tools.read.hierarchy.tree import AspectDraft, AspectNode

log = logging.getLogger(__name__)

A = TypeVar("A", AspectDraft, AspectNode)


def merge_siblings(nodes: Sequence[A], embedder: Embedder, *, threshold: float) -> list[A]:
    """Greedy merge, in order: an aspect whose "name: description" embedding has cosine >= threshold
    with an earlier kept aspect is folded into it (keywords and ranked segments unioned)."""
    if not nodes:
        return []
    vecs = cached(embedder).encode([f"{n.name}: {n.description}" for n in nodes])
    kept: list[int] = []
    merged: dict[int, A] = {}
    node: A
    for i, node in enumerate(nodes):
        target = next((j for j in kept if float(vecs[i] @ vecs[j]) >= threshold), None)
        if target is None:
            kept.append(i)
            merged[i] = node.model_copy(deep=True)
            continue
        into: A = merged[target]
        into.keywords = _dedupe([*into.keywords, *node.keywords])
        if isinstance(into, AspectNode) and isinstance(node, AspectNode):
            best = dict(zip(into.segment_keys, into.segment_scores, strict=False))
            for key, score in zip(node.segment_keys, node.segment_scores, strict=False):
                best[key] = max(score, best.get(key, score))
            ranked = sorted(best.items(), key=lambda kv: -kv[1])
            into.segment_keys = [k for k, _ in ranked]
            into.segment_scores = [s for _, s in ranked]
        log.info("merged near-duplicate aspect %r into %r", node.name, into.name)
    return [merged[i] for i in kept]
