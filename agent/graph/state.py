"""State schemas of the investigation graph.

Everything in the state is plain JSON-able data (pydantic models are dumped at node boundaries) so
that the SQLite checkpointer can store it and a resumed run never depends on pickled classes.
Accumulating fields carry reducers; single-writer fields are replaced.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, Required, TypedDict

# The run options are declared with their entry points' derivations in agent/options.py; the state
# holds them dumped, and readers.options_of reads them back.
from claimscope.agent.options import InvestigationOptions as InvestigationOptions

Status = Literal["running", "no_evidence", "complete", "budget_exhausted", "failed"]


def merge_dicts(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """Shallow merge: later writers add or replace keys; a None value removes its key."""
    out = dict(old or {})
    for k, v in (new or {}).items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def add_floats(old: dict[str, float] | None, new: dict[str, float] | None) -> dict[str, float]:
    """Sum per key: a step that runs several times (hierarchy growth) accumulates its time."""
    out = dict(old or {})
    for k, v in (new or {}).items():
        out[k] = out.get(k, 0.0) + v
    return out


USAGE_FIELDS = ("calls", "attempts", "failures", "prompt_tokens", "completion_tokens", "cost_usd", "seconds",
                "text_fields", "degenerate_fields", "regenerated", "fell_back")


def add_usage(old: dict[str, dict[str, float]] | None, new: dict[str, dict[str, float]] | None
              ) -> dict[str, dict[str, float]]:
    """LLM usage per prompt name, summed over the steps of one investigation."""
    out = {k: dict(v) for k, v in (old or {}).items()}
    for name, rec in (new or {}).items():
        cur = out.setdefault(name, {})
        for f in USAGE_FIELDS:
            if rec.get(f) is not None:
                cur[f] = (cur.get(f) or 0) + rec[f]
    return out


def record_steps(old: list[str] | None, new: list[str] | None) -> list[str]:
    """Finished steps in order. An entry "!name" forgets every earlier "name" (used to re-run a step
    and what follows it, e.g. after a source is excluded in chat)."""
    out = list(old or [])
    for item in new or []:
        if item.startswith("!"):
            out = [s for s in out if s != item[1:]]
        else:
            out.append(item)
    return out


def record_step_warnings(old: dict[str, list[str]] | None, new: dict[str, list[str] | None] | None
                         ) -> dict[str, list[str]]:
    """The warnings each step recorded, by step: a step that runs again adds to its earlier ones; a
    None forgets a step's (a re-run replaces the warnings of the steps it runs again: Investigator.rerun_from)."""
    out = {k: list(v) for k, v in (old or {}).items()}
    for step, warnings in (new or {}).items():
        if warnings is None:
            out.pop(step, None)
        else:
            out[step] = [*out.get(step, []), *warnings]
    return out


class InvestigationInput(TypedDict, total=False):
    claim: Required[str]
    options: Required[dict[str, Any]]
    warnings: list[str]  # recorded with the claim before the first step (e.g. that it was translated)


class InvestigationOutput(TypedDict, total=False):
    status: Status
    report: dict[str, Any]
    warnings: list[str]


# ------------------------------------------------------------------------------------ records
# The records the steps write. They stay plain JSON (the checkpointer stores them); the ones built
# by hand are TypedDicts, and the ones that are a tools model's `model_dump(mode="json")` are named
# after that model and read back through agent/graph/readers.py, which validates them.

Dumped = dict[str, Any]


class DocumentRecord(TypedDict):
    """A gathered document: the store corpus that holds it, the query tags that found it (claim,
    anti_claim, sub_claim, query, or added in review) and its best retrieval score."""

    corpus: str
    found_by: list[str]
    score: float


class ScreenRecord(TypedDict, total=False):
    """Which of the best-ranked gathered documents are evidence on the claim (read right after
    gathering): the documents read, the evidence, those on the claim's subject only."""

    checked: int
    evidence: list[str]
    on_subject: list[str]
    without_object: list[str]
    claim_kind: str
    labels: dict[str, str]
    confidence: dict[str, float]
    subject_terms: list[str]
    object_terms: list[str]


class PassageFilterRecord(TypedDict):
    """The sub-claim passage filter of a decomposed claim."""

    fell_back: bool
    kept_passages: int
    passages: int
    documents_kept: int


class AssessmentRecord(TypedDict):
    """One weighed document: its takeaway (tools.explain.Takeaway, None when labelled without one)
    and its local label (tools.explain.LocalAssessment)."""

    takeaway: Dumped | None
    assessment: Dumped


class ReputationRecord(TypedDict, total=False):
    """tools.appraise.trust.Reputation: the prior in [0, 1] and the components it was built from, and what
    is known of the work (retraction, study design, participants, notices of corrections)."""

    score: Required[float]
    components: Required[dict[str, float]]
    retracted: bool
    design: str | None
    sample_size: int | None
    notices: list[Dumped]


class TrustRecord(TypedDict, total=False):
    """tools.appraise.trust.TrustResult (scores per document, convergence) plus the stance edges it ran on."""

    scores: dict[str, float]
    iterations: int
    converged: bool
    oscillating: bool
    period: int | None
    deltas: list[float]
    history_tail: list[dict[str, float]]
    edges: list[Dumped]


class StanceRecord(TypedDict):
    """tools.models.StanceResult of one segment toward the claim."""

    label: str
    support: float
    neutral: float
    refute: float


class SourceReportRecord(TypedDict, total=False):
    """tools.find.scholarly.SourceReport: what one scholarly source returned for one query."""

    source: str
    query: str
    status: str
    count: int
    message: str


class DecisionRecord(TypedDict):
    """A person's decision at a review point, and what applying it changed."""

    point: str
    decision: Dumped
    applied: list[str]


class InvestigationState(TypedDict, total=False):
    claim: str
    options: Dumped  # agent.options.InvestigationOptions
    investigation_corpus: str
    analysis: Dumped  # tools.read.claim_analysis.ClaimAnalysis
    documents: Annotated[dict[str, DocumentRecord], merge_dicts]
    source_reports: Annotated[list[SourceReportRecord], operator.add]
    passage_filter: PassageFilterRecord
    screen: ScreenRecord
    tree: Dumped  # tools.read.hierarchy.AspectTree
    hierarchy_complete: bool
    relevance: Dumped  # tools.read.relevance.RelevanceResult
    assignments: dict[str, str]  # segment key -> aspect node id
    stances: dict[str, StanceRecord]  # segment key -> stance toward the claim
    node_consensus: dict[str, Dumped]  # node id -> tools.weigh.verdict.Consensus
    perspectives: dict[str, Dumped]  # "node:stance" -> tools.explain.Perspective
    assessments: dict[str, AssessmentRecord]
    reputation: dict[str, ReputationRecord]
    trust: TrustRecord
    verdict: Dumped  # tools.weigh.verdict.Verdict
    explanation: Dumped  # tools.explain.Explanation
    report: Dumped  # agent.report.Report
    done: Annotated[list[str], record_steps]
    step_count: int
    warnings: Annotated[list[str], operator.add]
    warning_steps: Annotated[dict[str, list[str]], record_step_warnings]  # step -> the warnings it recorded
    timings: Annotated[dict[str, float], add_floats]
    plan_log: Annotated[list[Dumped], operator.add]
    decisions: Annotated[list[DecisionRecord], operator.add]
    usage: Annotated[dict[str, dict[str, float]], add_usage]
    status: Status
