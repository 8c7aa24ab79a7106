"""The graph's wiring, in one place.

    START -> plan -> (analyse | gather | grow_hierarchy | assess | weigh | aggregate | explain) -> plan
                  -> review (guided sessions: a person's decision at a review point) -> plan
                  -> report -> END

Every step returns to the planner, which picks the next one (fixed policy or LLM choice among the
steps whose inputs are present) and sends the run to the report when the step budget is spent.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from claimscope.agent.graph import planner, steps
from claimscope.agent.graph.events import emit
from claimscope.agent.graph.readers import options_of
from claimscope.agent.graph.review import due_review, review
from claimscope.agent.graph.state import InvestigationInput, InvestigationOutput, InvestigationState
from claimscope.agent.services import Services
from claimscope.tools.llm import LLMError, ToolSpec

PLANNER_SYSTEM = (
    "You steer a fact-checking investigation. Choose the next step from the tools offered. "
    "Prefer the step that unlocks the most evidence for the claim; choose 'report' only when "
    "nothing useful is left."
)

def plan(state: InvestigationState, runtime: Runtime[Services]) -> Command[str]:
    """Choose the next step; refuse an LLM choice whose inputs are missing."""
    services = runtime.context
    count = state.get("step_count", 0)
    budget = services.settings.sessions.step_budget
    if count >= budget:
        msg = f"step budget of {budget} reached; reporting what was found so far"
        emit("warning", "plan", msg)
        return Command(goto=steps.FINISH, update={"status": "budget_exhausted", "warnings": [msg]})

    point = due_review(state)
    if point is not None:
        return Command(goto="review", update={"step_count": count + 1,
                                              "plan_log": [{"step": count + 1, "review": point}]})
    choice = planner.fixed_policy(state)
    log: dict[str, Any] = {"step": count + 1, "policy": choice, "mode": "fixed"}
    warnings: list[str] = []
    mode = options_of(state).planner
    stopping = options_of(state).stop_after == "hierarchy" and state.get("hierarchy_complete")
    if mode == "llm" and choice != steps.FINISH and not stopping:
        allowed = [*planner.eligible(state)]
        if steps.FINISH not in allowed:
            allowed.append(steps.FINISH)
        try:
            action = services.llm.choose_action(  # type: ignore[attr-defined]
                PLANNER_SYSTEM, planner.describe_state(state),
                [ToolSpec(**spec) for spec in planner.tool_specs(allowed)],
            )
            why = planner.refusal(state, action.tool)
            if why is None and not (action.tool == steps.FINISH and choice != steps.FINISH
                                    and not state.get("done")):
                log.update(mode="llm", chosen=action.tool, reason=action.reason)
                choice = action.tool
            else:
                log.update(mode="llm", refused=action.tool, why=why or "nothing investigated yet")
                warnings.append(f"planner chose {action.tool!r}, refused: {why or 'nothing investigated yet'}")
        except LLMError as exc:
            log.update(mode="fallback", error=str(exc))
            warnings.append(f"planner LLM failed ({exc}); fixed policy used")
    emit("plan", "plan", f"next: {choice}", decision=log)
    return Command(goto=choice, update={"step_count": count + 1, "plan_log": [log], "warnings": warnings})


def build_graph(checkpointer: BaseCheckpointSaver | None = None
                ) -> CompiledStateGraph[InvestigationState, Services, InvestigationInput, InvestigationOutput]:
    g = StateGraph(
        InvestigationState, context_schema=Services,
        input_schema=InvestigationInput, output_schema=InvestigationOutput,
    )
    # Where the planner may send the run: a review point or any step of the table (LangGraph draws
    # these edges from `destinations`, the plan node's Command naming its target at run time).
    g.add_node("plan", plan, destinations=("review", *steps.NODES))
    g.add_node("review", review)
    g.add_edge("review", "plan")
    for name, fn in steps.NODES.items():
        g.add_node(name, fn)
    g.add_edge(START, "plan")
    for name in steps.NODES:
        if name != steps.FINISH:
            g.add_edge(name, "plan")
    g.add_edge(steps.FINISH, END)
    return g.compile(checkpointer=checkpointer)
