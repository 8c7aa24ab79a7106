"""The investigation graph end to end, offline: fixture corpus, scripted model, fake stance."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from claimscope.agent.graph import planner
from claimscope.agent.graph.build import build_graph
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator
from tests.investigation_fixtures import CLAIM, investigation_script, make_services

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph_topology.mmd"


def _opts(**kw) -> InvestigationOptions:
    base = {"corpora": ["fixture"], "sources": ["local"], "depth": 2, "top_k_aspects": 3, "top_documents": 6}
    base.update(kw)
    return InvestigationOptions(**base)


def _investigator(tmp_path, **kw) -> Investigator:
    return Investigator(make_services(tmp_path, **kw), persistent=False)


def test_topology_snapshot():
    """The graph's nodes and edges match tests/snapshots/graph_topology.mmd. After an intended change
    to the topology, rewrite the snapshot with UPDATE_SNAPSHOTS=1 and review its diff."""
    text = build_graph().get_graph().draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(text)
    assert SNAPSHOT.exists(), f"{SNAPSHOT} is missing; write it with UPDATE_SNAPSHOTS=1 and commit it"
    assert text == SNAPSHOT.read_text()


def test_full_run_produces_a_cited_report(tmp_path):
    # the fixture corpus is small: one sentence addressing the claim is enough to split an aspect
    inv = _investigator(tmp_path, hierarchy={"min_node_segments": 1})
    events = []
    result = inv.run(CLAIM, _opts(), on_event=events.append)
    assert result.status == "complete", result.warnings
    assert result.finished_steps == ["analyse", "gather", "grow_hierarchy", "grow_hierarchy", "assess",
                                     "weigh", "aggregate", "explain", "report"]
    report = result.report
    assert report["anti_claim"].startswith("Vitamin D supplementation does not")
    nodes = {n["id"]: n for n in report["hierarchy"]["nodes"]}
    assert {"1", "2", "3"} <= set(nodes) and any(n.count(".") == 1 for n in nodes)  # depth 2
    titles = {d["title"] for d in report["documents"]}
    assert not any("Zinc" in t or "Exercise" in t for t in titles)  # pruned / never relevant
    labels = {d["id"]: d["local_label"] for d in report["documents"]}
    assert labels.get("102") == "Mostly False" and labels.get("101") == "Mostly True"
    assert report["verdict"]["weighted"]["label"]
    cited = [c for s in report["explanation"]["sentences"] for c in s["citations"]]
    assert cited and all(c["text"] for c in cited)  # every citation resolves to a stored sentence
    kinds = {e.kind for e in events}
    assert {"step_started", "step_finished", "tree", "counts"} <= kinds
    lines = [str(e) for e in events if e.kind == "counts"]
    assert any(re.search(r"attribution pass rate \d+%", x) for x in lines), lines
    assert any(re.search(r"verdict: .+ \(score -?\d\.\d\d\)", x) for x in lines), lines
    assert report["usage"]["calls"] > 0 and report["timings"]["gather"] >= 0


@pytest.mark.parametrize("mode", ["stance", "llm"])
def test_local_label_modes(tmp_path, mode):
    inv = _investigator(tmp_path, verdict={"local_labels": mode})
    result = inv.run(CLAIM, _opts())
    assert result.status == "complete", result.warnings
    state = inv.state(result.thread_id)
    modes = {a["assessment"]["mode"] for a in state["assessments"].values()}
    assessed = (state.get("usage") or {}).get("document_assessment", {}).get("calls", 0)
    labels = {d["id"]: d["local_label"] for d in result.report["documents"]}
    if mode == "stance":
        assert modes == {"stance"} and assessed == 0  # no LLM call per document
        assert labels.get("102", "").endswith("False") and labels.get("101", "").endswith("True")
    else:
        assert modes == {"llm"} and assessed == len(state["assessments"])
    assert result.report["verdict"]["weighted"]["label"]


def test_planner_llm_mode_follows_valid_choices(tmp_path):
    inv = _investigator(tmp_path)
    result = inv.run(CLAIM, _opts(planner="llm", depth=1))
    assert result.status == "complete"
    assert result.finished_steps == ["analyse", "gather", "grow_hierarchy", "assess", "weigh", "aggregate",
                                     "explain", "report"]
    log = inv.state(result.thread_id)["plan_log"]
    # The planner is not asked once only the report is left.
    assert [e["chosen"] for e in log if e.get("mode") == "llm"] == result.finished_steps[:-1]


def test_planner_falls_back_when_the_model_picks_a_tool_not_offered(tmp_path):
    from claimscope.agent.llm import ActionChoice

    script = investigation_script()
    script["choose_action"] = [ActionChoice(tool="explain")]  # not offered before aggregate
    inv = _investigator(tmp_path, script=script)
    result = inv.run(CLAIM, _opts(planner="llm", depth=1))
    assert result.status == "complete"
    assert any("fixed policy used" in w for w in result.warnings)
    assert result.finished_steps[:2] == ["analyse", "gather"]


def test_planner_refuses_a_step_whose_inputs_are_missing(tmp_path):
    from claimscope.tools.llm import ActionChoice

    services = make_services(tmp_path)

    class Stubborn:
        """Delegates prompts to the scripted model but always wants to explain right away."""

        def __init__(self, inner) -> None:
            self.inner = inner
            self.usage = inner.usage

        def run(self, prompt, inputs):
            return self.inner.run(prompt, inputs)

        def choose_action(self, system, context, tools):
            return ActionChoice(tool="explain", reason="impatient")

    services._llm = Stubborn(services._llm)
    inv = Investigator(services, persistent=False)
    result = inv.run(CLAIM, _opts(planner="llm", depth=1))
    assert result.status == "complete"
    assert any("refused" in w and "explain" in w for w in result.warnings)
    assert result.finished_steps[:2] == ["analyse", "gather"]


def test_refusal_rules():
    state = {"claim": "x", "done": []}
    assert planner.refusal(state, "assess") is not None
    assert planner.refusal(state, "analyse") is None
    assert planner.refusal(state, "nonsense") == "unknown step 'nonsense'"
    assert planner.fixed_policy({"claim": "x", "done": ["analyse", "gather"], "documents": {}}) == "report"


def test_step_budget_ends_with_a_report(tmp_path):
    inv = _investigator(tmp_path, sessions={"step_budget": 3})
    result = inv.run(CLAIM, _opts())
    assert result.status == "budget_exhausted"
    assert result.report is not None and result.report["status"] == "budget_exhausted"


def test_store_fallback_warning_reaches_the_report(tmp_path):
    services = make_services(tmp_path)
    services.store.warnings.append("the collection could not be upgraded; use a new store.collection")
    result = Investigator(services, persistent=False).run(CLAIM, _opts())
    assert result.status == "complete"
    assert "the collection could not be upgraded; use a new store.collection" in result.report["warnings"]


def test_no_evidence(tmp_path):
    inv = _investigator(tmp_path)
    result = inv.run(CLAIM, _opts(corpora=["does-not-exist"]))
    assert result.status == "no_evidence"
    assert "no evidence" in " ".join(result.warnings)
    assert result.report["verdict"]["weighted"]["label"] == "insufficient evidence"


def test_resume_after_a_crash_loses_no_finished_step(tmp_path, monkeypatch):
    from claimscope.agent.graph import steps

    inv = Investigator(make_services(tmp_path), persistent=True)
    original = steps._weigh
    monkeypatch.setattr(steps, "_weigh", lambda s, sv: (_ for _ in ()).throw(RuntimeError("power cut")))
    monkeypatch.setitem(steps.NODES, "weigh", steps._timed("weigh", steps._weigh))
    inv.graph = build_graph(inv.checkpointer)
    with pytest.raises(RuntimeError, match="power cut"):
        inv.run(CLAIM, _opts(), thread_id="t1")
    before = inv.state("t1")
    assert before["done"][-1] == "assess"
    calls_before = list(inv.services.llm.scripted.calls)

    monkeypatch.setitem(steps.NODES, "weigh", steps._timed("weigh", original))
    inv.graph = build_graph(inv.checkpointer)
    result = inv.resume("t1")
    assert result.status == "complete"
    new_calls = inv.services.llm.scripted.calls[len(calls_before):]
    assert "aspects" not in new_calls and "anti_claim" not in new_calls  # finished steps not redone
    assert result.finished_steps[:5] == before["done"][:5]


def test_guided_session_pauses_applies_and_records_decisions(tmp_path):
    inv = Investigator(make_services(tmp_path), persistent=True)
    r = inv.run(CLAIM, _opts(guided=True, depth=1), thread_id="g1")
    assert r.status == "paused" and r.pending["point"] == "claim"
    r = inv.answer("g1", {"extra_queries": ["cathelicidin respiratory epithelium"]})
    assert r.pending["point"] == "sources"
    ids = [d["id"] for d in r.pending["summary"]["documents"]]
    assert "108" in ids
    r = inv.answer("g1", {"exclude": ["108"]})
    assert r.pending["point"] == "hierarchy"
    r = inv.answer("g1", {"edits": [{"op": "rename", "node_id": "1", "name": "dose schedule"},
                                    {"op": "delete", "node_id": "3"}]})
    assert r.pending["point"] == "verdict"
    r = inv.answer("g1", {"accept": True, "note": "fine"})
    assert r.status == "complete"
    report = r.report
    assert [d["step"] for d in report["decisions"]] == ["claim", "sources", "hierarchy", "verdict"]
    names = {n["id"]: n["name"] for n in report["hierarchy"]["nodes"]}
    assert names["1"] == "dose schedule" and "3" not in names
    assert "108" not in {d["id"] for d in report["documents"]}


def test_guided_bad_decision_is_refused_without_losing_the_session(tmp_path):
    from claimscope.tools.errors import InputError

    inv = Investigator(make_services(tmp_path), persistent=True)
    inv.run(CLAIM, _opts(guided=True, depth=1), thread_id="g2")
    with pytest.raises(InputError, match="claim review"):
        inv.answer("g2", {"sub_claims": "not a list"})
    assert inv.pending("g2")["point"] == "claim"


def test_rerun_from_assess_excluding_a_source(tmp_path):
    inv = Investigator(make_services(tmp_path), persistent=True)
    first = inv.run(CLAIM, _opts(depth=1), thread_id="r1")
    assert "101" in {d["id"] for d in first.report["documents"]}
    again = inv.rerun_from("r1", "assess", {"documents": {"101": None}})
    assert again.status == "complete"
    assert "101" not in {d["id"] for d in again.report["documents"]}


def test_explanation_revision_through_the_graph(tmp_path):
    script = investigation_script()
    script["explanation"] = [{"sentences": [
        {"text": "Vitamin D supplementation reduced the risk of acute respiratory infection.", "citations": [1]},
        {"text": "Coffee drinkers slept less in a survey of students.", "citations": [1]},
    ]}]
    shown: list[str] = []

    def revise(messages):  # a faithful revision: what the cited sentence [S1] says
        import re

        found = re.findall(r"^\[S1\] (.+)$", str(messages[-1]["content"]), re.M)
        shown.append(found[-1])
        return {"text": found[-1], "citations": [1]}

    script["revise"] = revise
    for on in (False, True):
        inv = Investigator(make_services(tmp_path / str(on), script=dict(script),
                                         verdict={"revise_unsupported": on, "explanation_style": "summary"}), persistent=False)
        result = inv.run(CLAIM, _opts())
        assert result.status == "complete", result.warnings
        sentences = result.report["explanation"]["sentences"]
        revise_calls = (inv.state(result.thread_id).get("usage") or {}).get("revise", {}).get("calls", 0)
        if on:
            assert revise_calls == 1
            assert sentences[1]["revised_from"] == "Coffee drinkers slept less in a survey of students."
            assert sentences[1]["status"] == "supported" and sentences[1]["text"] == shown[0]
        else:
            assert revise_calls == 0 and sentences[1]["status"] == "interpretation"
