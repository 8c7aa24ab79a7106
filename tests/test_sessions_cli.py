"""`claimscope sessions list|show|resume|export|delete` on sessions kept in the SQLite checkpointer.

The real graph and checkpointer run with trivial step bodies (tests/fixtures/sessions/stub_steps.py).
"""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from tests.fixtures.sessions import stub_steps


class Stop(Exception):
    pass


@pytest.fixture
def sessions(monkeypatch):
    """Three sessions: 'done' (complete), 'cut' (stopped after gather, as if killed), 'guided' (paused)."""
    stub_steps.install(monkeypatch)
    inv = Investigator(Services(get_settings()))
    inv.run("Green tea prevents colds", InvestigationOptions(), thread_id="done")

    def stop_after_gather(ev):
        if ev.kind == "step_finished" and ev.step == "gather":
            raise Stop

    with pytest.raises(Stop):
        inv.run("Zinc shortens colds", InvestigationOptions(), thread_id="cut", on_event=stop_after_gather)
    inv.run("Coffee causes cancer", InvestigationOptions(guided=True), thread_id="guided")
    inv.checkpointer.conn.close()
    stub_steps.CALLS.clear()
    return ["done", "cut", "guided"]


def run(*args: str, input: str | None = None):
    from claimscope.agent.cli import app

    return CliRunner().invoke(app, list(args), input=input)


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """Through the real entry point, which turns user errors into exit code 2."""
    from claimscope.agent.cli import main

    monkeypatch.setattr(sys, "argv", ["claimscope", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return int(exc.value.code or 0), captured.out + captured.err


def test_list_without_sessions(monkeypatch):
    stub_steps.install(monkeypatch)
    r = run("sessions", "list")
    assert r.exit_code == 0 and "no sessions yet" in r.output


def test_list_shows_every_session_with_its_status(sessions):
    r = run("sessions", "list", "--json")
    assert r.exit_code == 0, r.output
    rows = {s["session_id"]: s for s in json.loads(r.output)}
    assert rows["done"]["status"] == "complete" and rows["done"]["has_report"]
    assert rows["cut"]["status"] == "interrupted" and rows["cut"]["finished_steps"] == ["analyse", "gather"]
    assert rows["guided"]["status"] == "paused" and rows["guided"]["pending"]["point"] == "claim"
    table = run("sessions", "list")
    assert table.exit_code == 0
    for sid in sessions:
        assert sid in table.output
    assert "Zinc shortens colds" in table.output


def test_show_a_paused_session_explains_what_to_do(sessions):
    r = run("sessions", "show", "guided")
    assert r.exit_code == 0, r.output
    assert "waiting for the claim review" in r.output
    assert "anti_claim" in r.output and "sessions resume guided --decision accept" in r.output
    cut = run("sessions", "show", "cut")
    assert "finished steps: analyse, gather" in cut.output and "sessions resume cut" in cut.output


def test_unknown_or_malformed_session_is_a_clear_error(sessions, monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "sessions", "show", "nope")
    assert code == 2 and "unknown session 'nope'" in out and "Traceback" not in out
    code, out = run_main(monkeypatch, capsys, "sessions", "export", "bad id!")
    assert code == 2 and "invalid session id" in out


def test_resume_an_interrupted_session_reruns_no_finished_step(sessions):
    r = run("sessions", "resume", "cut", "--format", "json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.output[r.output.index("{"):])
    assert report["claim"] == "Zinc shortens colds" and report["status"] == "complete"
    assert "analyse" not in stub_steps.CALLS and "gather" not in stub_steps.CALLS
    assert stub_steps.CALLS[0] == "grow_hierarchy" and stub_steps.CALLS[-1] == "report"
    listed = {s["session_id"]: s["status"] for s in json.loads(run("sessions", "list", "--json").output)}
    assert listed["cut"] == "complete"


def test_resume_a_guided_session_with_decisions(sessions, tmp_path):
    paused = run("sessions", "resume", "guided")
    assert paused.exit_code == 0 and "is paused" in paused.output
    out = tmp_path / "r.json"
    r = run("sessions", "resume", "guided", "-d", "accept", "-d", '{"exclude": ["d2"]}', "-d", "accept",
            "-d", '{"accept": false, "note": "too few trials"}', "-f", "json", "-o", str(out))
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    assert [d["step"] for d in report["decisions"]] == ["claim", "sources", "hierarchy", "verdict"]
    assert report["decisions"][1]["choice"] == "excluded d2"
    assert "disputed" in report["decisions"][3]["choice"]


def test_resume_asks_on_the_terminal(sessions):
    r = run("sessions", "resume", "guided", "--ask", input="\n\n\n\n")
    assert r.exit_code == 0, r.output
    assert r.output.count("decision ('accept' or JSON)") == 4


def test_a_bad_decision_is_refused_and_the_session_kept(sessions, monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "sessions", "resume", "guided", "-d", "{not json")
    assert code == 2 and "a decision is 'accept' or a JSON object" in out
    code, out = run_main(monkeypatch, capsys, "sessions", "resume", "guided", "-d", '{"sub_claims": "x"}')
    assert code == 2 and "invalid decision for the claim review" in out
    r = run("sessions", "show", "guided")
    assert "waiting for the claim review" in r.output


def test_export_formats(sessions, tmp_path, monkeypatch, capsys):
    for fmt in ("md", "json", "html"):
        out = tmp_path / f"done.{fmt}"
        r = run("sessions", "export", "done", "--format", fmt, "--out", str(out))
        assert r.exit_code == 0, r.output
        assert "Green tea prevents colds" in out.read_text()
    state = run("sessions", "export", "cut", "--format", "state")
    payload = json.loads(state.output)
    assert payload["state"]["done"] == ["analyse", "gather"] and payload["session"]["status"] == "interrupted"
    code, out = run_main(monkeypatch, capsys, "sessions", "export", "cut")
    assert code == 2 and "has no report yet" in out and "sessions resume cut" in out
    code, out = run_main(monkeypatch, capsys, "sessions", "export", "done", "--format", "pdf")
    assert code == 2 and "--format must be one of" in out


def test_delete(sessions):
    kept = run("sessions", "delete", "done", input="n\n")
    assert kept.exit_code != 0
    assert "done" in {s["session_id"] for s in json.loads(run("sessions", "list", "--json").output)}
    r = run("sessions", "delete", "done", "--yes")
    assert r.exit_code == 0 and "deleted session done" in r.output
    left = {s["session_id"] for s in json.loads(run("sessions", "list", "--json").output)}
    assert left == {"cut", "guided"}


def test_sessions_started_by_the_run_manager_are_indexed_with_their_events(monkeypatch):
    stub_steps.install(monkeypatch)
    manager = RunManager(Investigator(Services(get_settings())))
    sid = manager.start("Tea is good")
    assert manager.wait(sid, timeout=60).status == "complete"
    manager.shutdown()
    r = run("sessions", "show", sid, "--events")
    assert r.exit_code == 0, r.output
    assert "created: -" not in r.output
    assert "step_started  analyse" in r.output and "step_finished report" in r.output
