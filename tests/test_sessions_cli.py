"""`claimscope sessions list|show|resume|export|delete` on sessions kept in the SQLite checkpointer.

The real graph and checkpointer run with trivial step bodies (tests/fixtures/sessions/stub_steps.py).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator, default_options
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from tests.conftest import run_main
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
    sid = manager.start("Tea is good", default_options(get_settings(), sources=["semantic_scholar"]))
    assert manager.wait(sid, timeout=60).status == "complete"
    manager.shutdown()
    r = run("sessions", "show", sid, "--events")
    assert r.exit_code == 0, r.output
    assert "created: -" not in r.output
    assert "step_started  analyse" in r.output and "step_finished report" in r.output


# ------------------------------------------------------------------ a damaged sessions database


def _truncate(path, fraction: float) -> None:
    """Cut the file at a page boundary, as a full disk or a killed copy leaves it."""
    size = path.stat().st_size
    keep = max(4096, int(size * fraction) // 4096 * 4096)
    with path.open("r+b") as fh:
        fh.truncate(keep)


def _sessions_file():
    settings = get_settings()
    return settings.resolve(settings.sessions.path)


def test_a_damaged_sessions_database_is_one_line_saying_what_to_do(sessions, monkeypatch, capsys):
    path = _sessions_file()
    _truncate(path, 0.5)
    for args in (("sessions", "list"), ("sessions", "show", "done"), ("sessions", "export", "done")):
        code, out = run_main(monkeypatch, capsys, *args)
        assert code == 2, out
        assert "Traceback" not in out and len(out.strip().splitlines()) == 1, out
        assert str(path) in out and "claimscope sessions repair" in out


def test_repair_keeps_a_backup_recovers_what_is_readable_and_starts_fresh(sessions, monkeypatch, capsys):
    path = _sessions_file()
    original = path.read_bytes()
    _truncate(path, 0.6)
    damaged = path.read_bytes()
    r = run("sessions", "repair")
    assert r.exit_code == 0, r.output
    assert "backup kept at" in r.output and "recovered" in r.output
    backups = list(path.parent.glob(path.name + ".damaged-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == damaged
    # The fresh file is a healthy database holding only rows read from the damaged one.
    from claimscope.agent.sessions.repair import is_healthy

    assert is_healthy(path) and path.read_bytes() != original
    listed = run("sessions", "list", "--json")
    assert listed.exit_code == 0, listed.output
    ids = {s["session_id"] for s in json.loads(listed.output)}
    assert ids <= set(sessions) and ids, listed.output  # the first sessions lie before the cut
    again = run("sessions", "repair")
    assert again.exit_code == 0 and "no damage found" in again.output


def test_repair_of_an_unreadable_file_still_starts_fresh(sessions):
    path = _sessions_file()
    path.write_bytes(b"this is not a database at all" * 100)
    r = run("sessions", "repair")
    assert r.exit_code == 0, r.output
    assert run("sessions", "list").exit_code == 0


def test_investigate_without_session_works_while_the_database_is_damaged(sessions, monkeypatch, capsys):
    import claimscope.agent.resources as res
    from tests.fakes import HashEmbedder

    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    path = _sessions_file()
    _truncate(path, 0.5)
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "-f", "json",
                         "--sources", "semantic_scholar")  # something to search; the stub steps never do
    assert code == 0, out
    assert "not saved as a session" in out and '"claim": "Green tea prevents colds"' in out
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "--session", "x1")
    assert code == 2 and "claimscope sessions repair" in out


@pytest.mark.parametrize("args", [("sessions", "list"), ("corpus", "list"), ("investigate", "Green tea prevents colds")])
def test_an_unwritable_data_directory_is_one_line(args, monkeypatch, capsys):
    stub_steps.install(monkeypatch)
    monkeypatch.setenv("CLAIMSCOPE_DATA_DIR", "/proc/x")
    get_settings.cache_clear()
    code, out = run_main(monkeypatch, capsys, *args)
    assert code == 2, out
    assert "Traceback" not in out and "/proc/x" in out and "CLAIMSCOPE_DATA_DIR" in out, out


# ------------------------------------------------------------------ leases of SQLite sessions


def _leases():
    from claimscope.agent.sessions.sqlite import index_path_for, leases_for

    settings = get_settings()
    return leases_for(index_path_for(settings.resolve(settings.sessions.path)))


def test_a_lease_is_held_until_released_and_refused_meanwhile():
    leases = _leases()
    assert not leases.held("s1")
    release = leases.lease("s1")
    assert release is not None and leases.held("s1")
    # A second holder (another process; here another open file) cannot take it...
    assert leases.lease("s1") is None
    # ...nor does looking get in the way of the holder's own check.
    assert leases.held("s1") and not leases.held("s2")
    release()
    assert not leases.held("s1")
    again = leases.lease("s1")
    assert again is not None
    again()


def test_investigate_refuses_a_session_another_process_runs(sessions, monkeypatch, capsys):
    release = _leases().lease("cut")
    assert release is not None
    try:
        code, out = run_main(monkeypatch, capsys, "investigate", "Zinc shortens colds", "--session", "cut",
                             "--sources", "semantic_scholar")
        listed = {s["session_id"]: s for s in json.loads(run("sessions", "list", "--json").output)}
    finally:
        release()
    assert code == 2 and "session 'cut' is running in another claimscope process" in out, out
    assert len(out.strip().splitlines()) == 1 and stub_steps.CALLS == []
    assert listed["cut"]["status"] == "running" and listed["cut"]["active"]
    assert run("sessions", "list", "--json").output.count('"interrupted"') == 1  # the lease is gone


def test_a_live_cli_run_shows_running_refuses_resume_and_its_lease_dies_with_it(sessions, monkeypatch, capsys):
    """The reported case: `claimscope investigate` running in one terminal, `sessions list` and
    `sessions resume` in another; then the run's process is killed."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from claimscope.agent.sessions.checkpoint import checkpoint_threads

    repo = Path(__file__).resolve().parent.parent
    live = subprocess.Popen(
        [sys.executable, "-m", "tests.fixtures.sessions.live_run", "3", "Vitamin D prevents falls",
         "--session", "live", "--sources", "semantic_scholar", "-q"],
        cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        inv = Investigator(Services(get_settings()))
        deadline = time.monotonic() + 60
        while "live" not in checkpoint_threads(inv.checkpointer):  # its first step is checkpointed
            assert live.poll() is None and time.monotonic() < deadline, live.stderr.read().decode()
            time.sleep(0.2)
        inv.checkpointer.conn.close()
        listed = {s["session_id"]: s for s in json.loads(run("sessions", "list", "--json").output)}
        assert listed["live"]["status"] == "running" and listed["live"]["active"], listed["live"]
        assert listed["cut"]["status"] == "interrupted"  # the others are as they were
        started = time.monotonic()
        code, out = run_main(monkeypatch, capsys, "sessions", "resume", "live")
        assert code == 2 and out.strip().startswith("error: session 'live' is running in another claimscope "
                                                    "process") and len(out.strip().splitlines()) == 1, out
        assert time.monotonic() - started < 5 and stub_steps.CALLS == []  # refused at once, nothing re-run
        assert live.poll() is None  # still running all along
    finally:
        live.kill()  # SIGKILL: no cleanup of any kind
        live.wait(timeout=30)
    listed = {s["session_id"]: s for s in json.loads(run("sessions", "list", "--json").output)}
    assert listed["live"]["status"] == "interrupted" and not listed["live"]["active"]
    r = run("sessions", "resume", "live", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output[r.output.index("{"):])["claim"] == "Vitamin D prevents falls"
