"""State schemas of the investigation graph.

Everything in the state is plain JSON-able data (pydantic models are dumped at node boundaries) so
that the SQLite checkpointer can store it and a resumed run never depends on pickled classes.
Accumulating fields carry reducers; single-writer fields are replaced.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

Status = Literal["running", "no_evidence", "complete", "budget_exhausted", "failed"]
PlannerMode = Literal["fixed", "llm"]


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


class InvestigationOptions(BaseModel):
    """What a user may choose per investigation (defaults come from settings)."""

    corpora: list[str] = Field(default_factory=list, description="Local corpora to search.")
    sources: list[Literal["local", "semantic_scholar", "serpapi"]] = Field(
        default_factory=lambda: ["local"], description="Evidence sources."
    )
    depth: int = Field(2, ge=1, le=3, description="Aspect hierarchy depth.")
    top_k_aspects: int = Field(3, ge=1, le=8, description="Aspects per node.")
    top_documents: int = Field(5, ge=1, le=50, description="Documents given a takeaway and local label.")
    docs_per_query: int = Field(50, ge=1, le=200, description="Documents kept per retrieval query.")
    year_min: int | None = None
    year_max: int | None = None
    planner: PlannerMode = Field("fixed", description="'fixed' policy or 'llm' chooses the next step.")
    perspectives: bool = Field(True, description="Summarise each stance per top-level aspect (LLM).")
    guided: bool = Field(False, description="Pause for a person's review at each review point.")
    claim_kind: Literal["auto", "empirical", "debate"] = Field(
        "auto", description="How the claim is read: detected, empirical (findings on its relation) or debate "
        "(arguments for or against it).",
    )
    stop_after: Literal["hierarchy"] | None = Field(
        None, description="'hierarchy': report once the aspect hierarchy is built (no stance/verdict)."
    )


class InvestigationInput(TypedDict):
    claim: str
    options: dict[str, Any]


class InvestigationOutput(TypedDict, total=False):
    status: Status
    report: dict[str, Any]
    warnings: list[str]


class InvestigationState(TypedDict, total=False):
    claim: str
    options: dict[str, Any]
    investigation_corpus: str
    analysis: dict[str, Any]
    documents: Annotated[dict[str, dict[str, Any]], merge_dicts]
    source_reports: Annotated[list[dict[str, Any]], operator.add]
    passage_filter: dict[str, Any]
    screen: dict[str, Any]
    tree: dict[str, Any]
    hierarchy_complete: bool
    relevance: dict[str, Any]
    assignments: dict[str, str]
    stances: dict[str, dict[str, Any]]
    node_consensus: dict[str, dict[str, Any]]
    perspectives: dict[str, dict[str, Any]]
    assessments: dict[str, dict[str, Any]]
    reputation: dict[str, dict[str, Any]]
    trust: dict[str, Any]
    verdict: dict[str, Any]
    aspect_verdicts: dict[str, dict[str, Any]]
    explanation: dict[str, Any]
    report: dict[str, Any]
    done: Annotated[list[str], record_steps]
    step_count: int
    warnings: Annotated[list[str], operator.add]
    timings: Annotated[dict[str, float], add_floats]
    plan_log: Annotated[list[dict[str, Any]], operator.add]
    decisions: Annotated[list[dict[str, Any]], operator.add]
    usage: Annotated[dict[str, dict[str, float]], add_usage]
    status: Status
