"""How far each source can be trusted: a reputation prior from bibliographic metadata, a document
graph from stance relations between documents' key sentences, and ClaimTrust propagation over it.

ClaimTrust (Qian, Li, Wang, arXiv 2503.10702), as implemented in the authors' release
(rank/rank.py of github.com/Li-Bo-github/ClaimTrust-..., same code in Averyyy/ClaimRank):

    s(k+1)_d = (1 - a) * s0_d + a * f(I(k)_d),   f(I) = (I + 1) / 2,   I_d = P_d - N_d
    P_d = sum_i W+[i, d] * s(k)_i / sum_i W+[i, d]   (trust-weighted mean of d's supporters)
    N_d = sum_i W-[i, d] * s(k)_i / sum_i W-[i, d]   (same over d's refuters)

where an edge i -> d carries the net relation (supporting minus refuting claim pairs between the two
documents) divided by the largest |net| in the graph. Because P and N are weighted means, the map
is a contraction with factor <= a, so for a < 1 it converges from any start; at a = 1 it can cycle,
which propagate_trust detects and reports instead of returning a non-converged vector silently.

One documented deviation: in the release a document that nobody relates to gets f = 0.5, so with
a = 0.85 its reputation prior is flattened to ~0.5. Here such a document keeps its prior
(isolated="prior", the default); isolated="neutral" reproduces the release exactly (see
tests/test_trust.py, which recomputes the release's document_trust_scores.csv).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from claimscope.tools.appraise.study_design import DESIGN_SCORES
from claimscope.tools.errors import InputError
from claimscope.tools.models import Document, Notice, Stance, StanceScorer

# ---------------------------------------------------------------------------------------------
# Reputation prior

# Venue strings that denote a preprint server (not peer reviewed).
PREPRINT_VENUES = (
    "arxiv",
    "biorxiv",
    "medrxiv",
    "ssrn",
    "research square",
    "preprints",
    "chemrxiv",
)


class ReputationConfig(BaseModel):
    """Knobs of the reputation prior (mirrored by the trust.* settings)."""

    prior: float = Field(0.5, ge=0, le=1, description="Score of a document without any signal.")
    citation_ref: int = Field(1000, ge=1, description="Citations that count as a full 1.0.")
    influential_ref: int = Field(100, ge=1, description="Influential citations that count as 1.0.")
    half_life_years: float = Field(10.0, gt=0, description="Age at which recency is 0.5.")
    weights: dict[str, float] = Field(
        default_factory=lambda: {
            "citations": 0.35,
            "influential": 0.25,
            "venue": 0.2,
            "recency": 0.2,
            "design": 0.3,
        },
        description="Component weights; renormalised over the components that are known.",
    )
    top_venues: list[str] = Field(
        default_factory=list, description="Venues (case-insensitive substrings) scored 1.0."
    )
    design_scores: dict[str, float] = Field(
        default_factory=lambda: dict(DESIGN_SCORES),
        description="Design component per study design (tools/appraise/study_design.Design values).",
    )


class Reputation(BaseModel):
    """A document's reputation prior, the components it was made from, and what the report shows
    beside it (design, sample size, editorial notices)."""

    score: float = Field(ge=0, le=1)
    components: dict[str, float] = Field(
        default_factory=dict,
        description="Each known component in [0, 1]; 'retracted' = 1.0 when retraction forced 0.",
    )
    retracted: bool = False
    design: str | None = None
    sample_size: int | None = None
    notices: list[Notice] = Field(default_factory=list)


def _log_norm(value: int, ref: int) -> float:
    return min(1.0, math.log1p(max(0, value)) / math.log1p(ref))


def venue_score(venue: str | None, top_venues: Iterable[str] = ()) -> float | None:
    """1.0 for a listed top venue, 0.3 for a preprint server, 0.7 for any other named venue
    (peer reviewed as far as we can tell), None when the venue is unknown."""
    if venue is None or not venue.strip():
        return None
    v = venue.lower()
    if any(t.lower() in v for t in top_venues if t.strip()):
        return 1.0
    if any(p in v for p in PREPRINT_VENUES):
        return 0.3
    return 0.7


def reputation(
    doc: Document, *, now_year: int, config: ReputationConfig | None = None
) -> Reputation:
    """Reputation prior in [0, 1] from citations, influential citations, venue, recency and design.

    Components (each in [0, 1], only those the metadata provides):
      citations   = log(1 + c) / log(1 + citation_ref), capped at 1 (1000 citations -> 1.0)
      influential = log(1 + i) / log(1 + influential_ref), capped at 1
      venue       = venue_score(venue)
      recency     = 0.5 ** (age / half_life_years), age = now_year - year (>= 0)
      design      = design_scores[study_design] (the evidence hierarchy), when the design is tagged
    score = weighted mean of the known components (weights renormalised over them); no component
    known -> config.prior. A document known to be retracted scores 0 whatever else it has.
    """
    cfg = config or ReputationConfig()
    comps: dict[str, float] = {}
    if doc.citation_count is not None:
        comps["citations"] = _log_norm(doc.citation_count, cfg.citation_ref)
    if doc.influential_citation_count is not None:
        comps["influential"] = _log_norm(doc.influential_citation_count, cfg.influential_ref)
    vs = venue_score(doc.venue, cfg.top_venues)
    if vs is not None:
        comps["venue"] = vs
    if doc.year is not None:
        age = max(0, now_year - doc.year)
        comps["recency"] = 0.5 ** (age / cfg.half_life_years)
    if doc.study_design is not None and doc.study_design in cfg.design_scores:
        comps["design"] = min(1.0, max(0.0, cfg.design_scores[doc.study_design]))
    shown = Reputation(score=0.0, design=doc.study_design, sample_size=doc.sample_size, notices=list(doc.notices))
    if doc.retracted:
        return shown.model_copy(update={"components": {**comps, "retracted": 1.0}, "retracted": True})
    total_w = sum(cfg.weights.get(k, 0.0) for k in comps)
    if total_w <= 0:
        return shown.model_copy(update={"score": cfg.prior, "components": comps})
    score = sum(cfg.weights.get(k, 0.0) * v for k, v in comps.items()) / total_w
    return shown.model_copy(update={"score": min(1.0, max(0.0, score)), "components": comps})


# ---------------------------------------------------------------------------------------------
# Document graph


class DocEdge(BaseModel):
    """source -> target: what `source`'s key sentences say about `target`'s."""

    source: str
    target: str
    weight: float = Field(ge=-1, le=1, description="Net relation / max |net| in the graph.")
    support: int = Field(0, ge=0, description="Sentence pairs where source supports target.")
    refute: int = Field(0, ge=0, description="Sentence pairs where source refutes target.")


def normalise_edges(counts: Mapping[tuple[str, str], tuple[int, int]]) -> list[DocEdge]:
    """Edges from (source, target) -> (support, refute) counts, as in the ClaimTrust release:
    weight = (support - refute) / max |support - refute|; pairs with a net of 0 get no edge."""
    nets = {k: s - r for k, (s, r) in counts.items()}
    top = max((abs(n) for n in nets.values()), default=0)
    if top == 0:
        return []
    return [
        DocEdge(source=src, target=tgt, weight=nets[(src, tgt)] / top, support=s, refute=r)
        for (src, tgt), (s, r) in sorted(counts.items())
        if nets[(src, tgt)] != 0
    ]


def build_document_graph(
    key_sentences: dict[str, list[str]],
    scorer: StanceScorer,
    *,
    threshold: float,
    symmetric: bool = True,
) -> list[DocEdge]:
    """Document graph from stance relations between the documents' key sentences.

    For documents A != B, each (sentence of B as claim, sentence of A as evidence) pair is scored;
    a SUPPORT or REFUTE label whose probability is >= threshold counts as one supporting /
    refuting relation A -> B. With symmetric=True (default) only one order per document pair is
    scored and the counts are used for both directions, halving the cost (stance between two
    claims on the same topic is close to symmetric); with symmetric=False both orders are scored.
    Cost: sum over document pairs of |sentences A| * |sentences B| stance predictions, so callers
    should pass a few key sentences per document (e.g. the 2-3 most claim-relevant).
    """
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the stance threshold must be in [0, 1], got {threshold}.")
    ids = sorted(d for d, sents in key_sentences.items() if sents)
    ordered: list[tuple[str, str]] = []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :] if symmetric else ids:
            if a != b:
                ordered.append((a, b))
    pairs: list[tuple[str, str]] = []
    owners: list[tuple[str, str]] = []
    for a, b in ordered:
        for claim in key_sentences[b]:
            for evidence in key_sentences[a]:
                pairs.append((claim, evidence))
                owners.append((a, b))
    results = scorer.predict(pairs) if pairs else []
    if len(results) != len(pairs):
        raise InputError(
            f"the stance scorer returned {len(results)} results for {len(pairs)} pairs."
        )
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for (a, b), res in zip(owners, results, strict=True):
        s, r = counts.get((a, b), (0, 0))
        if res.label is Stance.SUPPORT and res.support >= threshold:
            s += 1
        elif res.label is Stance.REFUTE and res.refute >= threshold:
            r += 1
        counts[(a, b)] = (s, r)
    if symmetric:
        counts.update({(b, a): v for (a, b), v in list(counts.items())})
    return normalise_edges(counts)


# ---------------------------------------------------------------------------------------------
# Propagation


class TrustResult(BaseModel):
    """Outcome of ClaimTrust propagation."""

    scores: dict[str, float]
    iterations: int = Field(description="Iterations run.")
    converged: bool = Field(description="Max absolute change fell below the tolerance.")
    oscillating: bool = Field(description="Not converged and the scores cycle instead of settling.")
    period: int | None = Field(None, description="Cycle length when a cycle was found.")
    deltas: list[float] = Field(
        default_factory=list, description="Max |change| of the last iterations."
    )
    history_tail: list[dict[str, float]] = Field(
        default_factory=list, description="Score vectors of the last few iterations (oldest first)."
    )


HISTORY = 8


def _check_unit(value: float, what: str) -> float:
    v = float(value)
    if not math.isfinite(v) or not 0.0 <= v <= 1.0:
        raise InputError(f"{what} must be in [0, 1], got {value!r}.")
    return v


def propagate_trust(
    doc_ids: Sequence[str],
    edges: Sequence[DocEdge],
    priors: Mapping[str, float],
    *,
    alpha: float,
    max_iterations: int,
    tolerance: float,
    trusted: Iterable[str] = frozenset(),
    retracted: Iterable[str] = frozenset(),
    default_prior: float = 0.5,
    isolated: Literal["prior", "neutral"] = "prior",
    start: Literal["prior", "zero"] = "prior",
) -> TrustResult:
    """ClaimTrust scores for `doc_ids` (formula in the module docstring).

    s0_d = 1.0 for trusted documents, else priors[d] (default_prior when missing); retracted
    documents are pinned to 0 at every iteration (they still count, with trust 0, as neighbours).
    Edges that mention unknown documents are an input error. Iteration starts from s0 (or from 0,
    as the release does) and stops when the max absolute change is below `tolerance`. If it does
    not converge, the last HISTORY vectors are checked for a cycle (a vector repeating within
    tolerance * 10 after p = 2..HISTORY-1 steps) or for changes that keep reversing direction
    without halving over the tail; either sets `oscillating`. A slow monotone approach is reported
    as not converged but not oscillating.
    """
    alpha = _check_unit(alpha, "alpha")
    if max_iterations < 1:
        raise InputError(f"max_iterations must be >= 1, got {max_iterations}.")
    if tolerance <= 0:
        raise InputError(f"tolerance must be > 0, got {tolerance}.")
    ids = list(dict.fromkeys(doc_ids))
    index = {d: i for i, d in enumerate(ids)}
    n = len(ids)
    if n == 0:
        return TrustResult(scores={}, iterations=0, converged=True, oscillating=False)
    trusted_set = set(trusted)
    pinned_zero = np.array([d in set(retracted) for d in ids], dtype=bool)

    s0 = np.empty(n)
    for d, i in index.items():
        s0[i] = (
            1.0
            if d in trusted_set
            else _check_unit(priors.get(d, default_prior), f"prior of {d!r}")
        )
    s0[pinned_zero] = 0.0

    w_pos = np.zeros((n, n))
    w_neg = np.zeros((n, n))
    for e in edges:
        if e.source not in index or e.target not in index:
            missing = e.source if e.source not in index else e.target
            raise InputError(
                f"edge {e.source!r} -> {e.target!r} names {missing!r}, which is not in doc_ids."
            )
        i, j = index[e.source], index[e.target]
        if e.weight > 0:
            w_pos[i, j] += e.weight
        elif e.weight < 0:
            w_neg[i, j] -= e.weight
    pos_sum = w_pos.sum(axis=0)
    neg_sum = w_neg.sum(axis=0)
    has_in = (pos_sum > 0) | (neg_sum > 0)
    safe_pos = np.where(pos_sum > 0, pos_sum, 1.0)
    safe_neg = np.where(neg_sum > 0, neg_sum, 1.0)

    s = s0.copy() if start == "prior" else np.zeros(n)
    history: list[np.ndarray] = [s.copy()]
    deltas: list[float] = []
    converged = False
    iterations = 0
    for k in range(max_iterations):
        iterations = k + 1
        pos = np.where(pos_sum > 0, (s @ w_pos) / safe_pos, 0.0)
        neg = np.where(neg_sum > 0, (s @ w_neg) / safe_neg, 0.0)
        f = (pos - neg + 1.0) / 2.0
        if isolated == "prior":
            f = np.where(has_in, f, s0)
        new = (1.0 - alpha) * s0 + alpha * f
        new[pinned_zero] = 0.0
        delta = float(np.max(np.abs(new - s)))
        s = new
        deltas.append(delta)
        history.append(s.copy())
        history = history[-HISTORY:]
        if delta < tolerance:
            converged = True
            break

    period: int | None = None
    oscillating = False
    if not converged:
        last = history[-1]
        for p in range(2, len(history)):
            if float(np.max(np.abs(history[-1 - p] - last))) < tolerance * 10:
                period = p
                break
        # A slow but monotone approach (a close to 1) also fails to shrink quickly; what marks an
        # oscillation is that successive changes keep reversing direction without dying out.
        tail = deltas[-HISTORY:]
        not_shrinking = len(tail) >= 2 and tail[-1] >= 0.5 * tail[0]
        steps = [history[i + 1] - history[i] for i in range(len(history) - 1)]
        turns = [float(np.dot(steps[i], steps[i + 1])) <= 0 for i in range(len(steps) - 1)]
        reversing = bool(turns) and sum(turns) >= len(turns) / 2
        oscillating = period is not None or (not_shrinking and reversing)
    return TrustResult(
        scores={d: float(s[i]) for d, i in index.items()},
        iterations=iterations,
        converged=converged,
        oscillating=oscillating,
        period=period,
        deltas=deltas[-HISTORY:],
        history_tail=[{d: float(v[i]) for d, i in index.items()} for v in history[-5:]],
    )


def rerank(
    items: Sequence[tuple[str, float]],
    trust: Mapping[str, float],
    *,
    weight: float,
    default_trust: float = 0.5,
) -> list[tuple[str, float]]:
    """Re-rank (doc_id, similarity) pairs by (1 - weight) * sim' + weight * trust.

    sim' is the similarity min-max normalised over `items` (retrieval scores such as RRF are not on
    a [0, 1] scale; all-equal similarities count as 1.0), so `weight` means the same for any
    retriever. Documents without a trust score get default_trust. Ties keep the input order.
    """
    weight = _check_unit(weight, "the trust weight")
    if not items:
        return []
    sims = np.array([float(s) for _, s in items])
    if not np.all(np.isfinite(sims)):
        raise InputError("similarities to re-rank must be finite numbers.")
    lo, hi = float(sims.min()), float(sims.max())
    norm = (sims - lo) / (hi - lo) if hi > lo else np.ones_like(sims)
    combined = [
        (doc_id, (1.0 - weight) * float(norm[i]) + weight * float(trust.get(doc_id, default_trust)))
        for i, (doc_id, _) in enumerate(items)
    ]
    order = sorted(range(len(combined)), key=lambda i: -combined[i][1])
    return [combined[i] for i in order]
