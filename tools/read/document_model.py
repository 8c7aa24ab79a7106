"""The learned abstract-level decision: does an abstract support, contradict or say nothing on a claim?

The per-sentence stance model reads direction well enough but not relevance: it scores an
on-subject, off-relation sentence ("vitamin D supplementation reduced mortality" for a claim about
respiratory infections) as support. The decision therefore combines several signals in a small
multinomial logistic regression fitted on SciFact TRAIN claims (`python -m evals.train_document_rule`,
cross-validated by claim; weights in tools/read/stance_model/stance_config.json under "document_model"):

- the strongest and second-strongest sentence support and refute, over all sentences and over the
  sentences that (read with the title) cover both ends of the claim's relation (tools.read.coverage);
- how far the whole abstract covers the claim's subject and object;
- the least neutral sentence;
- whether the direction a sentence on the relation reports (up / down / no difference) bears the
  claim's direction out or goes against it (tools.read.direction), weighted by how polar the stance
  model reads that sentence.

An abstract whose coverage of either end falls below the model's `min_coverage` is never evidence,
whatever the stance model says: topical is not evidence. Rationale sentences are the strongest
sentences for the winning stance, those on the relation first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError
from claimscope.tools.models import StanceResult
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.coverage import ComponentTerms, addresses, component_terms, coverage
from claimscope.tools.read.direction import agreement, claim_direction, sentence_direction

LABELS: tuple[str, str, str] = ("SUPPORT", "CONTRADICT", "NEI")
FEATURES: tuple[str, ...] = (
    "support_max", "refute_max", "support_2nd", "refute_2nd",
    "support_on_relation", "refute_on_relation",
    "coverage_subject", "coverage_object", "neutral_min",
    "direction_agree", "direction_oppose",
)
# A sentence is on the relation when it, read with the title, covers both ends this far.
SENTENCE_MIN_COVERAGE = 0.5


class DocumentModel(BaseModel):
    """Multinomial logistic regression over standardised FEATURES, with a coverage floor."""

    features: list[str] = Field(description="Feature names, in the column order of coef.")
    mean: list[float] = Field(description="Per-feature mean used to standardise.")
    scale: list[float] = Field(description="Per-feature standard deviation used to standardise.")
    coef: list[list[float]] = Field(description="One row of weights per label (LABELS order).")
    intercept: list[float] = Field(description="One intercept per label (LABELS order).")
    min_coverage: float = Field(0.0, ge=0, le=1, description="Below this coverage of either end: NEI.")
    min_probability: float = Field(
        0.0, ge=0, le=1,
        description="An abstract is evidence only when its SUPPORT or CONTRADICT probability is the highest "
                    "and reaches this; 0 = the most probable label.",
    )

    def model_post_init(self, _: Any) -> None:
        f = len(self.features)
        if not (len(self.mean) == len(self.scale) == f and len(self.coef) == len(LABELS) == len(self.intercept)
                and all(len(row) == f for row in self.coef)):
            raise InputError("document_model in stance_config.json has inconsistent shapes; rebuild it with "
                             "`python -m evals.train_document_rule`.")
        unknown = set(self.features) - set(FEATURES)
        if unknown:
            raise InputError(f"document_model uses unknown features {sorted(unknown)}; rebuild it with "
                             "`python -m evals.train_document_rule`.")

    def probabilities(self, x: dict[str, float]) -> dict[str, float]:
        z = [(x[name] - m) / (s or 1.0) for name, m, s in zip(self.features, self.mean, self.scale, strict=True)]
        logits = [b + sum(w * v for w, v in zip(row, z, strict=True))
                  for row, b in zip(self.coef, self.intercept, strict=True)]
        top = max(logits)
        e = [math.exp(v - top) for v in logits]
        total = sum(e)
        return {lab: v / total for lab, v in zip(LABELS, e, strict=True)}


class DocumentEvidence(BaseModel):
    """The features of one (claim, abstract) pair and which sentences are on the claim's relation."""

    features: dict[str, float]
    on_relation: list[bool] = Field(description="Per sentence: covers both ends (with the title).")
    coverage_both: float = Field(description="The abstract's coverage of its weaker end.")


def _top2(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values, reverse=True)
    return (ordered[0] if ordered else 0.0), (ordered[1] if len(ordered) > 1 else 0.0)


def document_evidence(claim: str, sentences: Sequence[str], results: Sequence[StanceResult], *,
                      title: str = "", terms: ComponentTerms | None = None) -> DocumentEvidence:
    """Features of an abstract toward a claim from its sentences' stance results (one per sentence)."""
    if len(results) != len(sentences):
        raise InputError(f"document_evidence needs one stance result per sentence ({len(sentences)}), "
                         f"got {len(results)}.")
    terms = terms or component_terms(claim)
    parts = claim_components(claim)
    wanted = claim_direction(parts.relation, parts.object)
    whole = coverage(terms, [title, *sentences])
    on = [addresses(coverage(terms, [title, s]), SENTENCE_MIN_COVERAGE) for s in sentences]
    s1, s2 = _top2([r.support for r in results])
    r1, r2 = _top2([r.refute for r in results])
    feats = {
        "support_max": s1, "refute_max": r1, "support_2nd": s2, "refute_2nd": r2,
        "support_on_relation": max((r.support for r, o in zip(results, on, strict=True) if o), default=0.0),
        "refute_on_relation": max((r.refute for r, o in zip(results, on, strict=True) if o), default=0.0),
        "coverage_subject": whole.subject, "coverage_object": whole.object,
        "neutral_min": min((r.neutral for r in results), default=1.0),
        "direction_agree": 0.0, "direction_oppose": 0.0,
    }
    for sentence, r, o in zip(sentences, results, on, strict=True):
        if not o:
            continue
        turn = agreement(wanted, sentence_direction(sentence))
        polar = 1.0 - r.neutral
        if turn > 0:
            feats["direction_agree"] = max(feats["direction_agree"], polar)
        elif turn < 0:
            feats["direction_oppose"] = max(feats["direction_oppose"], polar)
    return DocumentEvidence(features=feats, on_relation=on, coverage_both=whole.both)


def decide(model: DocumentModel, claim: str, sentences: Sequence[str], results: Sequence[StanceResult], *,
           title: str = "", rationale_threshold: float = 0.5) -> tuple[str, float, list[int], DocumentEvidence]:
    """(label, confidence, rationale indices, evidence) of the learned decision for one abstract."""
    ev = document_evidence(claim, sentences, results, title=title)
    if ev.coverage_both < model.min_coverage - 1e-9:
        # Not about the claim's relation, whatever the sentences' stance.
        return "NEI", round(1 - max(ev.features["support_max"], ev.features["refute_max"]), 6), [], ev
    probs = model.probabilities(ev.features)
    label = max(LABELS, key=lambda lab: probs[lab])
    if label == "NEI":
        return label, probs[label], [], ev
    if probs[label] < model.min_probability - 1e-9:
        # A borderline call: the cost of counting off-claim text as evidence is a confident wrong verdict.
        return "NEI", round(1 - probs[label], 6), [], ev
    col = [r.support if label == "SUPPORT" else r.refute for r in results]
    order = sorted(range(len(col)), key=lambda i: (not ev.on_relation[i], -col[i]))
    best = order[0]
    idx = sorted({best} | {i for i in order if col[i] >= rationale_threshold and ev.on_relation[i]})
    return label, probs[label], idx, ev


def load_document_model(config: dict[str, Any] | None) -> DocumentModel | None:
    """The learned model stored under "document_model" in a stance model's config, else None."""
    raw = (config or {}).get("document_model")
    return DocumentModel.model_validate(raw) if raw else None
