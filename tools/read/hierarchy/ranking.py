"""Ranking segments for a node: its queries and the discriminative score against its siblings.

Discriminative score of segment s for node t with siblings N (ClaimSpect; docs/methods/hierarchy.md):
    pos(s) = harmonic-weighted mean (weights 1, 1/2, 1/3, ...) of cos(s, q_i), queries from `node_queries`
    neg(s) = 0.5 * mean_{n in N} pos_n(s) + 0.5 * max_{n in N} pos_n(s)
    score  = (beta * pos) / (gamma * neg)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from claimscope.tools.errors import InputError
from claimscope.tools.models import Embedder, Segment
from claimscope.tools.read.hierarchy.cache import cached
from claimscope.tools.read.hierarchy.tree import AspectNode

# Sibling affinities below this are treated as "unrelated": flooring keeps pos/neg finite and stops a
# slightly negative cosine from flipping the sign of the score.
NEG_FLOOR = 0.05


def node_queries(node: AspectNode, ancestors: Sequence[AspectNode]) -> list[str]:
    """q0 = "name: description", then qi = "keyword_i with respect to <ancestors>" (ancestors from
    the root, whose name is the claim). Duplicates removed, order kept (the order sets the weights)."""
    context = ", ".join(a.name for a in ancestors if a.name.strip())
    first = f"{node.name}: {node.description}" if node.description.strip() else node.name
    queries = [first]
    for kw in node.keywords:
        queries.append(f"{kw} with respect to {context}" if context else kw)
    return list(dict.fromkeys(q for q in queries if q.strip()))


def harmonic_mean_rows(sims: np.ndarray) -> np.ndarray:
    """Row-wise weighted mean with weights 1, 1/2, 1/3, ... (normalised): earlier queries count more."""
    weights = 1.0 / np.arange(1, sims.shape[1] + 1, dtype=np.float64)
    return (sims @ weights) / weights.sum()


def _affinity(queries: Sequence[str], seg_vecs: np.ndarray, embedder: Embedder) -> np.ndarray:
    if not queries:  # a node with neither name nor keywords says nothing about any segment
        return np.zeros(len(seg_vecs))
    qv = embedder.encode(list(queries))
    return harmonic_mean_rows(seg_vecs.astype(np.float64) @ qv.astype(np.float64).T)


def discriminative_scores(
    node: AspectNode,
    siblings: Sequence[AspectNode],
    ancestors: Sequence[AspectNode],
    segments: Sequence[Segment],
    embedder: Embedder,
    *,
    beta: float,
    gamma: float,
) -> list[float]:
    """ClaimSpect's discriminative score of each segment for `node` (formula in the module doc).

    Siblings share the node's ancestors, so their queries use the same context. With no siblings
    neg is 1 (nothing to discriminate against). neg is floored at NEG_FLOOR.
    """
    if beta <= 0 or gamma <= 0:
        raise InputError(f"beta and gamma must be positive (got beta={beta}, gamma={gamma}); fix hierarchy.beta/gamma in config.yaml.")
    if not segments:
        return []
    emb = cached(embedder)
    seg_vecs = emb.encode([s.text for s in segments])
    pos = _affinity(node_queries(node, ancestors), seg_vecs, emb)
    if siblings:
        per_sibling = np.stack([_affinity(node_queries(s, ancestors), seg_vecs, emb) for s in siblings])
        neg = 0.5 * per_sibling.mean(axis=0) + 0.5 * per_sibling.max(axis=0)
    else:
        neg = np.ones_like(pos)
    neg = np.maximum(neg, NEG_FLOOR)
    return [float(x) for x in (beta * pos) / (gamma * neg)]


def rank_segments(
    node: AspectNode,
    siblings: Sequence[AspectNode],
    ancestors: Sequence[AspectNode],
    candidates: Sequence[Segment],
    embedder: Embedder,
    *,
    beta: float,
    gamma: float,
    keep: int,
) -> list[tuple[str, float]]:
    """The `keep` best (segment key, discriminative score) pairs for `node`, best first."""
    if keep < 1:
        raise InputError(f"keep must be at least 1 (got {keep}); fix hierarchy.segments_per_node.")
    unique = list({s.key: s for s in candidates}.values())
    scores = discriminative_scores(node, siblings, ancestors, unique, embedder, beta=beta, gamma=gamma)
    order = sorted(range(len(unique)), key=lambda i: -scores[i])
    return [(unique[i].key, scores[i]) for i in order[:keep]]
