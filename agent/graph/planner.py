"""Which step runs next.

Three modes behind one function: the fixed policy (the papers' order; baseline and fallback), and an
LLM choice among the steps whose inputs are present (the gateway uses native tool calls where the
model has them and a JSON-schema action choice where it does not). Whatever the LLM says, a step
whose inputs are missing is refused and the fixed policy decides instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from claimscope.agent.graph.state import InvestigationState

FINISH: Final = "report"


def _done(state: InvestigationState, name: str) -> bool:
    return name in state.get("done", [])


def _has_evidence(state: InvestigationState) -> bool:
    """Documents were gathered, and the screen (when it ran) found evidence among them."""
    screen = state.get("screen")
    return bool(state.get("documents")) and (screen is None or bool(screen.get("evidence")))


def _frontier_open(state: InvestigationState) -> bool:
    return _done(state, "gather") and _has_evidence(state) and not state.get("hierarchy_complete", False)


@dataclass(frozen=True)
class Step:
    name: str
    description: str
    ready: Callable[[InvestigationState], bool]
    repeatable: bool = False


STEPS: tuple[Step, ...] = (
    Step("analyse", "Classify the claim, split it into sub-claims and write its anti-claim.",
         lambda s: True),
    Step("gather", "Search local corpora and scholarly sources for the claim and the anti-claim.",
         lambda s: _done(s, "analyse")),
    Step("grow_hierarchy", "Grow the aspect hierarchy by one level (aspects, keywords, ranked segments).",
         _frontier_open, repeatable=True),
    Step("assess", "Filter segments for relevance, classify them to aspects and score their stance.",
         lambda s: _done(s, "gather") and _has_evidence(s) and s.get("hierarchy_complete", False)),
    Step("weigh", "Takeaways and local labels per document, reputation, and trust propagation.",
         lambda s: _done(s, "assess")),
    Step("aggregate", "Consensus per aspect and the global verdict.",
         lambda s: _done(s, "weigh")),
    Step("explain", "Write the global explanation and check every sentence's citations.",
         lambda s: _done(s, "aggregate")),
    Step(FINISH, "Assemble the report (always possible; ends the investigation).", lambda s: True),
)
STEP_NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)
_BY_NAME = {s.name: s for s in STEPS}


def eligible(state: InvestigationState) -> list[str]:
    """Steps whose inputs are present and that have not run yet (repeatable ones may run again)."""
    out = []
    for step in STEPS:
        if not step.ready(state):
            continue
        if _done(state, step.name) and not step.repeatable:
            continue
        out.append(step.name)
    return out


def fixed_policy(state: InvestigationState) -> str:
    """The papers' order: the first eligible step, the report once nothing else can run."""
    if _done(state, "gather") and not _has_evidence(state):
        return FINISH
    if (state.get("options") or {}).get("stop_after") == "hierarchy" and state.get("hierarchy_complete"):
        return FINISH
    for name in eligible(state):
        return name
    return FINISH


def refusal(state: InvestigationState, name: str) -> str | None:
    """Why `name` may not run now, or None when it may."""
    step = _BY_NAME.get(name)
    if step is None:
        return f"unknown step {name!r}"
    if _done(state, name) and not step.repeatable:
        return f"step {name!r} has already run"
    if not step.ready(state):
        return f"step {name!r} needs inputs that are not there yet"
    return None


def describe_state(state: InvestigationState) -> str:
    """A compact text view of the state for the LLM planner."""
    tree = state.get("tree") or {}
    lines = [
        f"claim: {state.get('claim', '')}",
        f"finished steps: {', '.join(state.get('done', [])) or 'none'}",
        f"documents gathered: {len(state.get('documents', {}))}",
        f"aspect nodes: {max(0, len(tree.get('nodes', {})) - 1)}",
        f"hierarchy complete: {state.get('hierarchy_complete', False)}",
    ]
    return "\n".join(lines)


def tool_specs(names: list[str]) -> list[dict[str, Any]]:
    """Name/description/parameters for each allowed step, the shape the gateway's ToolSpec takes."""
    return [
        {"name": n, "description": _BY_NAME[n].description, "parameters": {"type": "object", "properties": {}}}
        for n in names
    ]
