"""Graded verdicts: the 7-grade local label scale, the global label thresholds, per-aspect
consensus and the weighted / unweighted global verdict with a calibratable confidence.

Scale and thresholds follow Tan et al. ("faithful reasoning over scientific claims"):

    local:  True 1.0, Mostly True .66, Somewhat True .33, No Evidence 0,
            Somewhat False -.33, Mostly False -.66, False -1
    global: score >= .66 generally supported; .33 < score < .66 leaning supported;
            -.66 < score < -.33 leaning refuted; score <= -.66 generally refuted; else controversial

Documented choices at the edges (tested exactly in tests/test_verdict.py):
- A score of exactly +-.66 is "generally"; a score of exactly +-.33 is "controversial" (the
  leaning bands are open intervals, as published). Comparisons use a 1e-9 tolerance so that a mean
  of label scores that equals an edge in exact arithmetic (e.g. three "Mostly True") lands on the
  same side of it whatever the floating-point rounding.
- "No Evidence" documents (and neutral segments in a consensus) are left out of the averages: they
  say nothing about the claim, and averaging their 0 in would turn "little evidence" into
  "controversial". When nothing is left, the label is INSUFFICIENT (an addition to the published
  five labels, so that "no evidence at all" is never reported as a balanced controversy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum

import numpy as np
from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError
from claimscope.tools.models import Stance

# Edges of the global label bands (Tan et al.), and the tolerance used when comparing to them.
GENERAL_EDGE = 0.66
LEANING_EDGE = 0.33
EDGE_TOLERANCE = 1e-9

# Pseudo-count of the coverage factor of the confidence: n / (n + k) evidence documents.
DEFAULT_CONFIDENCE_PSEUDO_COUNT = 2.0


class LocalLabel(StrEnum):
    """Per-document label on the 7-grade scale; `.score` gives its numeric value."""

    TRUE = "True"
    MOSTLY_TRUE = "Mostly True"
    SOMEWHAT_TRUE = "Somewhat True"
    NO_EVIDENCE = "No Evidence"
    SOMEWHAT_FALSE = "Somewhat False"
    MOSTLY_FALSE = "Mostly False"
    FALSE = "False"

    @property
    def score(self) -> float:
        return _LOCAL_SCORES[self]

    @classmethod
    def from_score(cls, value: float) -> LocalLabel:
        """The label whose score is nearest to `value` (ties go toward No Evidence)."""
        if not math.isfinite(value):
            raise InputError(f"a local label score must be a finite number, got {value!r}.")
        # Sorted by distance to 0 first, so that a tie (e.g. 0.165) picks the weaker claim.
        ordered = sorted(cls, key=lambda lab: abs(lab.score))
        return min(ordered, key=lambda lab: abs(lab.score - value))

    @classmethod
    def parse(cls, text: str) -> LocalLabel:
        """Case- and space-insensitive parse of a label name (as an LLM may write it)."""
        norm = " ".join(text.replace("_", " ").split()).lower()
        for lab in cls:
            if lab.value.lower() == norm:
                return lab
        names = ", ".join(lab.value for lab in cls)
        raise InputError(f"unknown local label {text!r}; expected one of: {names}.")


_LOCAL_SCORES: dict[LocalLabel, float] = {
    LocalLabel.TRUE: 1.0,
    LocalLabel.MOSTLY_TRUE: 0.66,
    LocalLabel.SOMEWHAT_TRUE: 0.33,
    LocalLabel.NO_EVIDENCE: 0.0,
    LocalLabel.SOMEWHAT_FALSE: -0.33,
    LocalLabel.MOSTLY_FALSE: -0.66,
    LocalLabel.FALSE: -1.0,
}


class GlobalLabel(StrEnum):
    """Label of an aggregated score (global verdict or one aspect's consensus)."""

    GENERALLY_SUPPORTED = "generally supported"
    LEANING_SUPPORTED = "leaning supported"
    CONTROVERSIAL = "controversial"
    LEANING_REFUTED = "leaning refuted"
    GENERALLY_REFUTED = "generally refuted"
    INSUFFICIENT = "insufficient evidence"


class SciFactLabel(StrEnum):
    SUPPORT = "SUPPORT"
    CONTRADICT = "CONTRADICT"
    NEI = "NEI"


def global_label(score: float | None) -> GlobalLabel:
    """Label of an aggregated score in [-1, 1]; None means no evidence was aggregated.

    At exactly +-.66 -> generally supported / refuted; at exactly +-.33 -> controversial.
    """
    if score is None:
        return GlobalLabel.INSUFFICIENT
    if not math.isfinite(score):
        raise InputError(f"an aggregated score must be finite, got {score!r}.")
    if score >= GENERAL_EDGE - EDGE_TOLERANCE:
        return GlobalLabel.GENERALLY_SUPPORTED
    if score <= -GENERAL_EDGE + EDGE_TOLERANCE:
        return GlobalLabel.GENERALLY_REFUTED
    if score > LEANING_EDGE + EDGE_TOLERANCE:
        return GlobalLabel.LEANING_SUPPORTED
    if score < -LEANING_EDGE - EDGE_TOLERANCE:
        return GlobalLabel.LEANING_REFUTED
    return GlobalLabel.CONTROVERSIAL


# ---------------------------------------------------------------------------------------------
# Per-aspect consensus


class StanceRatios(BaseModel):
    """Shares of support / neutral / oppose; all zero when there was nothing to count."""

    support: float = 0.0
    neutral: float = 0.0
    oppose: float = 0.0


class Consensus(BaseModel):
    """What the segments under one aspect say, counted and weighted."""

    support: int = Field(0, description="Segments supporting the claim.")
    neutral: int = Field(0, description="Segments taking no position.")
    oppose: int = Field(0, description="Segments refuting the claim.")
    raw_ratios: StanceRatios = Field(default_factory=StanceRatios, description="Count shares.")
    weighted_ratios: StanceRatios = Field(
        default_factory=StanceRatios, description="Shares of the summed weights (e.g. trust)."
    )
    score: float | None = Field(
        None,
        description="(W_support - W_oppose) / (W_support + W_oppose) in [-1, 1]; neutral is left "
        "out; None when no weighted support or opposition exists.",
    )
    label: GlobalLabel = GlobalLabel.INSUFFICIENT
    thin: bool = Field(
        False, description="Fewer segments take a side than a settled consensus needs (verdict.min_node_evidence): "
        "the label is at most 'leaning' and a report draws the aspect as resting on little.")


# One counted segment: its stance, the weight of its source and, optionally, the source's id (segments
# of one document are one study when a "generally" label needs several).
CountedSegment = tuple[Stance, float] | tuple[Stance, float, str]


def _check_weight(w: float, what: str) -> float:
    w = float(w)
    if not math.isfinite(w) or w < 0:
        raise InputError(f"{what} must be a finite number >= 0, got {w!r}.")
    return w


def aspect_consensus(stances: Sequence[CountedSegment], *, min_evidence: int = 1,
                     min_documents_generally: int = 1, strong_labels: bool = True) -> Consensus:
    """Consensus of one aspect from (stance, weight[, doc id]) tuples, one per segment: the one rule
    for every aspect of a tree, the claim itself included, so that an aspect and a sub-aspect that
    rest on the same segments read alike.

    The weight is whatever the caller trusts the segment's source by (reputation x trust, or 1.0
    for an unweighted count). Neutral segments are counted and shown in the ratios but do not move
    the score (see the module docstring). One segment taking a side is graded, as the verdict grades
    one document: with fewer than `min_evidence` of them the consensus is `thin`, at most "leaning"
    (one sentence does not make an aspect "generally supported"); a "generally" label also needs
    segments from `min_documents_generally` documents (a segment without a doc id counts as its own
    document). Without `strong_labels` (a debate claim, whose sides are read less surely) the label is
    at most "leaning". With no segment taking a side the label is "insufficient evidence".
    """
    if min_evidence < 1:
        raise InputError(f"min_evidence must be at least 1 (got {min_evidence}); fix verdict.min_node_evidence.")
    if min_documents_generally < 1:
        raise InputError(f"min_documents_generally must be >= 1, got {min_documents_generally}.")
    counts = {Stance.SUPPORT: 0, Stance.NEUTRAL: 0, Stance.REFUTE: 0}
    weights = {Stance.SUPPORT: 0.0, Stance.NEUTRAL: 0.0, Stance.REFUTE: 0.0}
    sources: set[str | int] = set()
    for i, seg in enumerate(stances):
        st = Stance(seg[0])
        counts[st] += 1
        weights[st] += _check_weight(seg[1], "a consensus weight")
        doc = seg[2] if len(seg) == 3 else ""
        if st is not Stance.NEUTRAL:
            sources.add(doc or i)

    n = sum(counts.values())
    total_w = sum(weights.values())
    raw = StanceRatios()
    if n:
        raw = StanceRatios(
            support=counts[Stance.SUPPORT] / n,
            neutral=counts[Stance.NEUTRAL] / n,
            oppose=counts[Stance.REFUTE] / n,
        )
    weighted = StanceRatios()
    if total_w > 0:
        weighted = StanceRatios(
            support=weights[Stance.SUPPORT] / total_w,
            neutral=weights[Stance.NEUTRAL] / total_w,
            oppose=weights[Stance.REFUTE] / total_w,
        )
    polar = weights[Stance.SUPPORT] + weights[Stance.REFUTE]
    score = (weights[Stance.SUPPORT] - weights[Stance.REFUTE]) / polar if polar > 0 else None
    sided = counts[Stance.SUPPORT] + counts[Stance.REFUTE]
    thin = sided < min_evidence
    return Consensus(
        support=counts[Stance.SUPPORT],
        neutral=counts[Stance.NEUTRAL],
        oppose=counts[Stance.REFUTE],
        raw_ratios=raw,
        weighted_ratios=weighted,
        score=score,
        label=graded_label(score, len(sources), min_documents_generally, strong=strong_labels and not thin),
        thin=thin,
    )


# ---------------------------------------------------------------------------------------------
# Global verdict


class LocalItem(BaseModel):
    """One document's contribution to the global verdict."""

    doc_id: str
    label: LocalLabel
    reputation: float = Field(1.0, ge=0, description="Reputation prior in [0, 1] (tools.appraise.trust).")
    trust: float = Field(1.0, ge=0, description="Propagated trust in [0, 1] (tools.appraise.trust).")


class Verdict(BaseModel):
    """Global verdict over the documents' local labels."""

    weighted_score: float | None = Field(
        None, description="Mean local score weighted by reputation x trust; None without evidence."
    )
    unweighted_score: float | None = Field(
        None, description="Plain mean local score; None without evidence."
    )
    weighted_label: GlobalLabel = GlobalLabel.INSUFFICIENT
    unweighted_label: GlobalLabel = GlobalLabel.INSUFFICIENT
    confidence: float = Field(
        0.0, ge=0, le=1, description="Calibratable confidence in weighted_label."
    )
    confidence_raw: float = Field(
        0.0, ge=0, le=1, description="The uncalibrated confidence feature."
    )
    agreement: float = Field(
        0.0, ge=0, le=1, description="|sum w*s| / sum w*|s|: 1 when all evidence points one way."
    )
    n_documents: int = Field(0, description="Documents given (including No Evidence).")
    n_evidence: int = Field(0, description="Documents whose label is not No Evidence.")


class ConfidenceCalibration(BaseModel):
    """Platt scaling of the raw confidence: sigmoid(a * raw + b). Identity when a is None."""

    a: float | None = None
    b: float = 0.0

    def apply(self, raw: float) -> float:
        if self.a is None:
            return raw
        return 1.0 / (1.0 + math.exp(-(self.a * raw + self.b)))


def raw_confidence(
    score: float | None,
    n_evidence: int,
    agreement: float,
    *,
    pseudo_count: float = DEFAULT_CONFIDENCE_PSEUDO_COUNT,
) -> float:
    """Uncalibrated confidence in the label of `score`, in [0, 1].

    coverage = n / (n + k) rewards more evidence documents (k = pseudo_count; 1 doc -> .33 at k=2).
    For a directional label (leaning / generally) strength = (|score| + agreement) / 2: strong and
    one-sided evidence. For "controversial" strength = 1 - |score| / .33: the closer to an even
    split, the surer the controversy. confidence = coverage * strength. With no evidence
    (INSUFFICIENT) the feature says nothing either way, so it is the uninformative 0.5; a fitted
    ConfidenceCalibration learns how often "no evidence found" is right.
    """
    if pseudo_count <= 0:
        raise InputError(f"confidence pseudo_count must be > 0, got {pseudo_count}.")
    label = global_label(score)
    if label is GlobalLabel.INSUFFICIENT or score is None:
        return 0.5
    coverage = n_evidence / (n_evidence + pseudo_count)
    if label is GlobalLabel.CONTROVERSIAL:
        strength = max(0.0, 1.0 - abs(score) / LEANING_EDGE)
    else:
        strength = (abs(score) + agreement) / 2.0
    return float(min(1.0, max(0.0, coverage * strength)))


def graded_label(score: float | None, n_documents: int, min_documents_generally: int = 1, *,
                 strong: bool = True) -> GlobalLabel:
    """global_label(score), with the strength the evidence allows: a "generally" label needs
    `min_documents_generally` evidence documents and reads "leaning" with fewer (one abstract is
    one study, however clear), and always without `strong` (evidence read less surely, such as a
    debate claim's arguments)."""
    label = global_label(score)
    if n_documents < min_documents_generally or not strong:
        if label is GlobalLabel.GENERALLY_SUPPORTED:
            return GlobalLabel.LEANING_SUPPORTED
        if label is GlobalLabel.GENERALLY_REFUTED:
            return GlobalLabel.LEANING_REFUTED
    return label


def global_verdict(
    items: Sequence[LocalItem],
    *,
    calibration: ConfidenceCalibration | None = None,
    pseudo_count: float = DEFAULT_CONFIDENCE_PSEUDO_COUNT,
    min_documents_generally: int = 1,
    strong_labels: bool = True,
) -> Verdict:
    """Weighted (reputation x trust) and unweighted mean of the local scores, with their labels.

    "No Evidence" documents are excluded from both means (module docstring). If every evidence
    document has weight 0 (e.g. all retracted) the weighted score is None -> INSUFFICIENT, while
    the unweighted score still reports what they said. A "generally" label needs
    `min_documents_generally` evidence documents, and is never given without `strong_labels`
    (graded_label).
    """
    if min_documents_generally < 1:
        raise InputError(f"min_documents_generally must be >= 1, got {min_documents_generally}.")
    evidence = [it for it in items if it.label is not LocalLabel.NO_EVIDENCE]
    n_e = len(evidence)
    unweighted = sum(it.label.score for it in evidence) / n_e if n_e else None
    ws = [
        _check_weight(it.reputation, "reputation") * _check_weight(it.trust, "trust")
        for it in evidence
    ]
    total_w = sum(ws)
    weighted: float | None = None
    agreement = 0.0
    if total_w > 0:
        signed = sum(w * it.label.score for w, it in zip(ws, evidence, strict=True))
        weighted = signed / total_w
        mass = sum(w * abs(it.label.score) for w, it in zip(ws, evidence, strict=True))
        agreement = abs(signed) / mass if mass > 0 else 0.0
    n_weighted = sum(1 for w in ws if w > 0)
    raw = raw_confidence(weighted, n_weighted, agreement, pseudo_count=pseudo_count)
    conf = (calibration or ConfidenceCalibration()).apply(raw)
    return Verdict(
        weighted_score=weighted,
        unweighted_score=unweighted,
        weighted_label=graded_label(weighted, n_weighted, min_documents_generally, strong=strong_labels),
        unweighted_label=graded_label(unweighted, n_e, min_documents_generally, strong=strong_labels),
        confidence=conf,
        confidence_raw=raw,
        agreement=min(1.0, agreement),
        n_documents=len(items),
        n_evidence=n_e,
    )


def to_scifact_label(verdict: Verdict, *, use_weighted: bool = True) -> SciFactLabel:
    """SciFact label of a verdict: supported labels -> SUPPORT, refuted -> CONTRADICT, controversial
    or insufficient -> NEI (a balanced or absent body of evidence is not enough information)."""
    label = verdict.weighted_label if use_weighted else verdict.unweighted_label
    if label in (GlobalLabel.GENERALLY_SUPPORTED, GlobalLabel.LEANING_SUPPORTED):
        return SciFactLabel.SUPPORT
    if label in (GlobalLabel.GENERALLY_REFUTED, GlobalLabel.LEANING_REFUTED):
        return SciFactLabel.CONTRADICT
    return SciFactLabel.NEI


def fit_confidence_calibration(
    raw: Sequence[float], correct: Sequence[bool], *, iterations: int = 500
) -> ConfidenceCalibration:
    """Platt-scale raw confidences against correctness (fit on TRAIN claims only).

    Plain Newton iterations on the logistic log-likelihood with a tiny ridge, so no sklearn needed.
    """
    x = np.asarray(raw, dtype=float)
    y = np.asarray(correct, dtype=float)
    if x.shape != y.shape or x.size < 2:
        raise InputError(
            "calibration needs at least two (raw confidence, correct) pairs of equal length."
        )
    if y.min() == y.max():
        raise InputError("calibration needs both correct and incorrect examples.")
    X = np.stack([x, np.ones_like(x)], axis=1)
    theta = np.zeros(2)
    ridge = 1e-6 * np.eye(2)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-X @ theta))
        grad = X.T @ (p - y)
        hess = X.T @ (X * (p * (1 - p))[:, None]) + ridge
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return ConfidenceCalibration(a=float(theta[0]), b=float(theta[1]))
