"""Relevance of segments to the claim, and classification of the relevant ones down the aspect tree.

Relevance (ClaimSpect's filter, adapted): segments are ordered by cosine similarity to a query
vector that blends the claim with its keywords ((1 - w) * claim + w * mean("keyword with respect to
claim")). Where to cut the ordering:

- "density" — ClaimSpect's threshold search: a judge (any callable marking texts relevant, e.g. the
  stance model or an LLM) labels a window of segments around a candidate cut; a binary search finds
  the deepest cut whose window is still at least `boundary_density` relevant.
- "threshold" — the no-judge default: keep segments whose similarity is at least `min_similarity`
  (absolute cosine, calibrated for all-MiniLM-L6-v2 by evals/relevance_filter.py) and at least
  `top_margin` of the best segment's similarity, within [min_keep, max_keep].

Whether a text addresses the claim at all is the claim's evidence test (`evidence_test`), chosen by
the claim's kind (tools.read.claim_analysis.ClaimKind):

- empirical claims: `RelationTest`, the text itself covers both ends of the claim's relation
  (tools.read.coverage); a sentence about the subject alone is not evidence;
- debate claims: `ArgumentTest`, the argument model (trained on PERSPECTRUM TRAIN) reads the text as
  arguing for or against the claim with at least `min_relevance` probability. An argument rarely
  repeats the claim's words ("herd immunity protects those who cannot be vaccinated" for
  "vaccination must be made compulsory"), so the lexical test would reject nearly all of them.

Relevance to one node of the tree (`node_relevance`): a segment is relevant to an aspect when it
addresses the claim (the evidence test) and its embedding is at least `ASPECT_MIN_SIMILARITY`
similar to the aspect's query vector. The tree is grown only from such segments: sub-aspects are discovered from the
parent's relevant segments, and a sub-aspect with too few of its own is rejected.

Classification (after TELEClass-style core-class annotation, simplified): each kept segment walks
down from the root. At each level it goes to the child whose discriminative ranking kept it (highest
score if several did); otherwise to the child whose aspect vector it is closest to, provided that
child is similar enough (`min_similarity`) and clearly ahead of its siblings (`min_margin`). It is
assigned to the deepest node reached ("root" when no first-level aspect fits).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError
from claimscope.tools.models import Embedder, Segment, StanceScorer
from claimscope.tools.read.claim_analysis import ClaimKind
from claimscope.tools.read.claim_worthiness import is_finding
from claimscope.tools.read.coverage import ComponentTerms, addresses, component_terms, coverage
from claimscope.tools.read.hierarchy import ROOT_ID, AspectNode, AspectTree, cached, node_queries
from claimscope.tools.read.hierarchy.facets import mentions

log = logging.getLogger(__name__)

Judge = Callable[[Sequence[str]], Sequence[bool]]
"""Marks each text relevant (True) or not; used by the density search."""

# Defaults, calibrated by evals/relevance_filter.py (see its results file for the figures).
MIN_SIMILARITY = 0.30
TOP_MARGIN = 0.5
KEYWORD_WEIGHT = 0.5
CLASSIFY_MIN_SIMILARITY = 0.2
CLASSIFY_MIN_MARGIN = 0.0
# Least cosine between a segment and an aspect's query vector for the segment to be about the
# aspect (the claim-relevance cut MIN_SIMILARITY, for the same embedding model).
ASPECT_MIN_SIMILARITY = 0.30
# Least coverage of each end of the claim's relation for a segment to address the claim (the
# sentence-level cut of the judgement's evidence test).
SEGMENT_MIN_COVERAGE = 0.5


class RelevanceResult(BaseModel):
    """Which segments are relevant to the claim, and why."""

    kept: list[str] = Field(description="Kept segment keys, most similar first.")
    threshold: float = Field(description="Similarity of the last kept segment (the effective cut).")
    scores: dict[str, float] = Field(description="Similarity of every input segment to the claim query.")
    method: Literal["threshold", "density"]
    judged: int = Field(0, description="Segments shown to the judge (density search only).")


def claim_query_vector(claim: str, keywords: Sequence[str], embedder: Embedder, *, keyword_weight: float) -> np.ndarray:
    """(1 - w) * claim + w * mean("keyword with respect to claim"), renormalised; the claim alone
    when there are no keywords."""
    emb = cached(embedder)
    vec = emb.encode([claim])[0].astype(np.float64)
    if keywords and keyword_weight > 0:
        kw = emb.encode([f"{k} with respect to {claim}" for k in dict.fromkeys(keywords)]).astype(np.float64)
        vec = (1 - keyword_weight) * vec + keyword_weight * kw.mean(axis=0)
    norm = np.linalg.norm(vec)
    return vec / norm if norm > 0 else vec


def relevance_filter(
    claim: str,
    segments: Sequence[Segment],
    embedder: Embedder,
    *,
    keywords: Sequence[str] = (),
    keyword_weight: float = KEYWORD_WEIGHT,
    method: Literal["auto", "threshold", "density"] = "auto",
    min_similarity: float = MIN_SIMILARITY,
    top_margin: float = TOP_MARGIN,
    min_keep: int = 1,
    max_keep: int = 200,
    judge: Judge | None = None,
    boundary_density: float = 0.2,
    window: int = 9,
) -> RelevanceResult:
    """Segments relevant to `claim`, most similar first ("auto" = density when a judge is given,
    else threshold). Keywords are typically the first-level aspects' keywords."""
    if not claim.strip():
        raise InputError("The claim is empty: give the claim text to investigate.")
    if not 0 <= keyword_weight <= 1:
        raise InputError(f"keyword_weight must be in [0, 1] (got {keyword_weight}).")
    if min_keep < 0 or max_keep < 1 or min_keep > max_keep:
        raise InputError(f"need 0 <= min_keep <= max_keep and max_keep >= 1 (got {min_keep}, {max_keep}).")
    if method == "auto":
        method = "density" if judge is not None else "threshold"
    if method == "density" and judge is None:
        raise InputError("The density relevance search needs a judge (a callable marking texts relevant).")
    unique = list({s.key: s for s in segments}.values())
    if not unique:
        return RelevanceResult(kept=[], threshold=float("nan"), scores={}, method=method)
    emb = cached(embedder)
    query = claim_query_vector(claim, keywords, emb, keyword_weight=keyword_weight)
    sims = emb.encode([s.text for s in unique]).astype(np.float64) @ query
    order = sorted(range(len(unique)), key=lambda i: -sims[i])
    scores = {unique[i].key: float(sims[i]) for i in range(len(unique))}
    judged = 0
    if method == "density":
        assert judge is not None
        ranked_texts = [unique[i].text for i in order[:max_keep]]
        n_keep, judged = density_cut(ranked_texts, judge, boundary_density=boundary_density, window=window)
    else:
        n_keep = threshold_cut([float(sims[i]) for i in order], min_similarity=min_similarity, top_margin=top_margin)
    n_keep = max(min(n_keep, max_keep, len(order)), min(min_keep, len(order)))
    kept = [unique[i].key for i in order[:n_keep]]
    threshold = float(sims[order[n_keep - 1]]) if n_keep else float("inf")
    return RelevanceResult(kept=kept, threshold=threshold, scores=scores, method=method, judged=judged)


def threshold_cut(sorted_sims: Sequence[float], *, min_similarity: float, top_margin: float) -> int:
    """How many of the (descending) similarities pass both the absolute and the relative cut."""
    if not sorted_sims:
        return 0
    cut = max(min_similarity, top_margin * sorted_sims[0])
    return sum(1 for s in sorted_sims if s >= cut)


def density_cut(ranked_texts: Sequence[str], judge: Judge, *, boundary_density: float, window: int) -> tuple[int, int]:
    """ClaimSpect's boundary search over a ranked list: binary search on the cut ratio r in [0, 1]
    for the largest r whose window of `window` texts centred at r * n is at least
    `boundary_density` relevant by the judge. Returns (texts kept, texts judged). Judgements are
    memoised, so overlapping windows cost nothing twice."""
    n = len(ranked_texts)
    if n == 0:
        return 0, 0
    verdicts: dict[int, bool] = {}

    def density(ratio: float) -> float:
        middle = int(n * ratio)
        radius = (window - 1) // 2
        idx = list(range(max(middle - radius, 0), min(middle + radius + 1, n)))
        todo = [i for i in idx if i not in verdicts]
        if todo:
            answers = list(judge([ranked_texts[i] for i in todo]))
            if len(answers) != len(todo):
                raise InputError(f"the relevance judge returned {len(answers)} verdicts for {len(todo)} texts.")
            verdicts.update(zip(todo, (bool(a) for a in answers), strict=True))
        return sum(verdicts[i] for i in idx) / len(idx)

    left, right, best = 0.0, 1.0, None
    for _ in range(int(math.log(n)) + 1):
        mid = (left + right) / 2
        if density(mid) >= boundary_density:
            best, left = mid, mid
        else:
            right = mid
    ratio = best if best is not None else left
    return int(ratio * n), len(verdicts)


# Least probability the argument model gives "for or against" (1 - neutral) for a text to argue on
# a debate claim (evals/results/argument_model.json reports the gold recall and unrelated share at it).
ARGUMENT_MIN_RELEVANCE = 0.5


class EvidenceTest(Protocol):
    """Whether texts address the claim at all (before any stance is read)."""

    kind: ClaimKind

    def addresses(self, texts: Sequence[str]) -> list[bool]:
        """One verdict per text, in order."""
        ...


class RelationTest:
    """Empirical claims: the text covers both ends of the claim's relation (tools.read.coverage). A
    segment's title is left out: under an on-claim title every sentence would pass, the sample
    size and the BMI table too."""

    kind = ClaimKind.EMPIRICAL

    def __init__(self, claim: str, *, min_coverage: float = SEGMENT_MIN_COVERAGE,
                 terms: ComponentTerms | None = None) -> None:
        self.terms = terms or component_terms(claim)
        self.min_coverage = min_coverage

    def addresses(self, texts: Sequence[str]) -> list[bool]:
        return [addresses(coverage(self.terms, t), self.min_coverage) for t in texts]


class ArgumentTest:
    """Debate claims: the argument model reads the text as for or against the claim (1 - neutral)
    with at least `min_relevance` probability."""

    kind = ClaimKind.DEBATE

    def __init__(self, claim: str, scorer: StanceScorer, *, min_relevance: float = ARGUMENT_MIN_RELEVANCE) -> None:
        if not 0 <= min_relevance <= 1:
            raise InputError(f"min_relevance must be in [0, 1] (got {min_relevance}).")
        self.claim = claim
        self.scorer = scorer
        self.min_relevance = min_relevance

    def relevance(self, texts: Sequence[str]) -> list[float]:
        """Probability that each text argues for or against the claim."""
        return [1.0 - r.neutral for r in self.scorer.predict([(self.claim, t) for t in texts])] if texts else []

    def addresses(self, texts: Sequence[str]) -> list[bool]:
        return [p >= self.min_relevance - 1e-9 for p in self.relevance(texts)]


def evidence_test(claim: str, kind: ClaimKind, *, argument_scorer: StanceScorer | None = None,
                  min_relevance: float = ARGUMENT_MIN_RELEVANCE) -> EvidenceTest:
    """The evidence test for a claim of `kind` (a debate claim without an argument scorer falls back
    to the relation test)."""
    if kind == ClaimKind.DEBATE and argument_scorer is not None:
        return ArgumentTest(claim, argument_scorer, min_relevance=min_relevance)
    return RelationTest(claim)


def addresses_claim(test: EvidenceTest, segment: Segment) -> bool:
    """Whether the segment's own text addresses the claim (`test`)."""
    return test.addresses([segment.text])[0]


def aspect_vector(node: AspectNode, ancestors: Sequence[AspectNode], embedder: Embedder) -> np.ndarray:
    """A node's unit query vector: the mean of its query embeddings (see node_queries)."""
    qv = cached(embedder).encode(node_queries(node, ancestors)).astype(np.float64).mean(axis=0)
    norm = np.linalg.norm(qv)
    return qv / norm if norm > 0 else qv


class NodeRelevance(BaseModel):
    """Which of a node's candidate segments are relevant to it, and why the others are not."""

    relevant: list[str] = Field(description="Keys of segments relevant to the claim and the aspect, input order.")
    on_claim: dict[str, bool] = Field(description="Segment key -> addresses the claim.")
    similarity: dict[str, float] = Field(description="Segment key -> cosine with the aspect's wording.")


def node_relevance(
    test: EvidenceTest,
    node: AspectNode,
    ancestors: Sequence[AspectNode],
    segments: Sequence[Segment],
    embedder: Embedder,
    *,
    min_similarity: float = ASPECT_MIN_SIMILARITY,
) -> NodeRelevance:
    """The segments relevant to aspect `node`: they address the claim (`test`) and are about the
    aspect."""
    unique = list({s.key: s for s in segments}.values())
    if not unique:
        return NodeRelevance(relevant=[], on_claim={}, similarity={})
    on_claim = dict(zip((s.key for s in unique), test.addresses([s.text for s in unique]), strict=True))
    emb = cached(embedder)
    # The aspect's own wording only: its keyword queries carry the claim as context, which every
    # on-claim segment matches whatever the aspect.
    vec = emb.encode([node_queries(node, ancestors)[0]])[0].astype(np.float64)
    vec = vec / (np.linalg.norm(vec) or 1.0)
    values = emb.encode([s.text for s in unique]).astype(np.float64) @ vec
    sims = {s.key: float(v) for s, v in zip(unique, values, strict=True)}
    relevant = [s.key for s in unique if on_claim[s.key] and sims[s.key] >= min_similarity]
    return NodeRelevance(relevant=relevant, on_claim=on_claim, similarity=sims)


def aspect_vectors(tree: AspectTree, embedder: Embedder) -> dict[str, np.ndarray]:
    """One unit vector per non-root node: the mean of its query embeddings (see node_queries)."""
    emb = cached(embedder)
    return {node.id: aspect_vector(node, tree.ancestors(node.id), emb) for node in tree.walk() if node.id != ROOT_ID}


def classify_segments(
    tree: AspectTree,
    segments: Sequence[Segment],
    embedder: Embedder,
    *,
    min_similarity: float = CLASSIFY_MIN_SIMILARITY,
    min_margin: float = CLASSIFY_MIN_MARGIN,
    use_rankings: bool = True,
) -> dict[str, str]:
    """Segment key -> id of the most specific node it fits ("root" when no first-level aspect fits).

    With `use_rankings`, a segment that the discriminative ranking put in the kept list of one or more
    children goes to the child where its score is highest (that ranking already weighed the siblings);
    other segments follow the similarity rule. A child with defining terms (a facet) takes only the
    findings the tree step found to be about it (its kept segments, `tools.read.hierarchy.facets.belongs`);
    a facet not ranked yet takes findings that use its terms."""
    unique = list({s.key: s for s in segments}.values())
    if not unique:
        return {}
    emb = cached(embedder)
    vectors = aspect_vectors(tree, emb)
    ranked = {n.id: dict(zip(n.segment_keys, n.segment_scores, strict=False)) for n in tree.walk()} if use_rankings else {}
    seg_vecs = emb.encode([s.text for s in unique]).astype(np.float64)
    out = {}
    for seg, vec in zip(unique, seg_vecs, strict=True):
        current = ROOT_ID
        while True:
            children = tree.node(current).children
            if not children:
                break
            # A facet takes only findings about it: an aims or methods sentence, or one that uses a
            # facet's word about something else ("peripheral blood leukocytes"), stays above it.
            children = [c for c in children if not tree.nodes[c].terms
                        or (seg.key in ranked[c] if ranked.get(c)
                            else mentions(seg.text, tree.nodes[c].terms) and is_finding(seg.text))]
            if not children:
                break
            by_rank = [(ranked[c][seg.key], c) for c in children if seg.key in ranked.get(c, {})]
            if by_rank:
                current = max(by_rank)[1]
                continue
            sims = sorted(((float(vectors[c] @ vec), c) for c in children), reverse=True)
            best_sim, best = sims[0]
            runner_up = sims[1][0] if len(sims) > 1 else -1.0
            if best_sim < min_similarity or best_sim - runner_up < min_margin:
                break
            current = best
        out[seg.key] = current
    return out


def sibling_uniqueness(tree: AspectTree, embedder: Embedder, threshold: float) -> float:
    """Share of sibling pairs whose "name: description" embeddings have cosine below `threshold`
    (1.0 when the tree has no sibling pairs: nothing is duplicated)."""
    emb = cached(embedder)
    total = unique = 0
    for node in tree.walk():
        kids: list[AspectNode] = tree.children(node.id)
        if len(kids) < 2:
            continue
        vecs = emb.encode([f"{k.name}: {k.description}" for k in kids]).astype(np.float64)
        for i, j in combinations(range(len(kids)), 2):
            total += 1
            unique += float(vecs[i] @ vecs[j]) < threshold
    return unique / total if total else 1.0
