"""A step is declared once, in `agent/graph/steps.py: TABLE`; the graph, the planner, the review points
and the web app's progress list are derived from it, and no other module lists the steps again."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from claimscope.agent.graph import planner, review, steps
from claimscope.agent.graph.build import build_graph
from claimscope.agent.web import routes

REPO = Path(__file__).resolve().parents[1]
NAMES = [s.name for s in steps.TABLE]


def test_every_structure_is_the_table():
    assert list(steps.STEP_NAMES) == NAMES and len(set(NAMES)) == len(NAMES)
    assert list(steps.NODES) == NAMES
    assert steps.FINISH == NAMES[-1]
    assert list(routes.STEPS) == NAMES
    assert set(planner._BY_NAME) == set(NAMES)
    for name in NAMES:
        assert planner.refusal({"claim": "x"}, name) != f"unknown step {name!r}"
    assert planner.tool_specs(NAMES) == [
        {"name": s.name, "description": s.label, "parameters": {"type": "object", "properties": {}}}
        for s in steps.TABLE]
    reviewed = [s for s in steps.TABLE if s.review]
    assert list(review.REVIEW_AFTER.items()) == [(s.review, s.name) for s in reviewed]
    assert set(review.REVIEW_AFTER) == set(get_args(review.ReviewPoint)) == set(review.DECISIONS)


def test_the_graph_has_a_node_and_a_plan_edge_per_step():
    graph = build_graph().get_graph()
    assert set(graph.nodes) == {"__start__", "__end__", "plan", "review", *NAMES}
    edges = {(e.source, e.target) for e in graph.edges}
    for name in NAMES:
        assert ("plan", name) in edges
        assert (name, "plan" if name != steps.FINISH else "__end__") in edges
    assert ("plan", "review") in edges


def step_lists(root: Path) -> list[str]:
    """Module-level assignments outside agent/graph/steps.py that name three or more steps:
    a second declaration of the steps."""
    found = []
    for path in sorted((root / "agent").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "agent/graph/steps.py" or "__pycache__" in path.parts:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Assign | ast.AnnAssign):
                continue
            named = {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in NAMES}
            if len(named) >= 3:
                found.append(f"{rel}:{node.lineno}")
    return found


def test_no_other_module_lists_the_steps():
    assert step_lists(REPO) == []
