"""Which step runs next.

The steps, their readiness tests and their order are `steps.TABLE`'s. Three modes behind one function: the fixed policy (the papers' order; baseline and fallback), and an
LLM choice among the steps whose inputs are present (the gateway uses native tool calls where the
model has them and a JSON-schema action choice where it does not). Whatever the LLM says, a step
whose inputs are missing is refused and the fixed policy decides instead.
"""

from __future__ import annotations

from typing import Any

from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.graph.steps import FINISH, TABLE, finished, has_evidence

_BY_NAME = {s.name: s for s in TABLE}


def eligible(state: InvestigationState) -> list[str]:
    """Steps whose inputs are present and that have not run yet (repeatable ones may run again)."""
    out = []
    for step in TABLE:
        if not step.ready(state):
            continue
        if finished(state, step.name) and not step.repeatable:
            continue
        out.append(step.name)
    return out


def fixed_policy(state: InvestigationState) -> str:
    """The papers' order: the first eligible step, the report once nothing else can run."""
    if finished(state, "gather") and not has_evidence(state):
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
    if finished(state, name) and not step.repeatable:
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
        {"name": n, "description": _BY_NAME[n].label, "parameters": {"type": "object", "properties": {}}}
        for n in names
    ]
