"""Sessions in PostgreSQL (sessions.url): the checkpointer and the session index shared by several
processes, against a real throwaway server (tests/postgres_server.py; the tests that need it skip
with the reason when none can start). The graph runs on the offline fixture with the scripted model.
"""

from __future__ import annotations

import concurrent.futures
import json
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunEvent, RunManager, SessionIndex
from claimscope.tools.errors import InputError
from evals.postgres_sessions import claim_for, finish_worker, options, run_worker
from tests.conftest import run_main
from tests.investigation_fixtures import make_services
from tests.postgres_server import PASSWORD, PostgresUnavailable, start_postgres

pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install -e '.[postgres]')")

# A guard against a hang, never a timing expectation.
GUARD_S = 300


@pytest.fixture(scope="session")
def postgres_server():
    try:
        server = start_postgres()
    except PostgresUnavailable as exc:
        pytest.skip(f"no PostgreSQL server for these tests: {exc}")
    yield server
    server.stop()


@pytest.fixture
def pg_url(postgres_server):
    """A fresh empty database of the shared server, per test."""
    from claimscope.agent.sessions.postgres import close_pools

    yield postgres_server.create_database("t_" + uuid.uuid4().hex[:12])
    close_pools()


def _manager(tmp_path: Path, url: str, name: str, workers: int = 2) -> RunManager:
    services = make_services(tmp_path / name, sessions={"url": url})
    return RunManager(Investigator(services), max_workers=workers)


def _report_claim(manager: RunManager, sid: str) -> str:
    return (manager.result(sid).report or {}).get("claim", "")


def _leased_elsewhere(tmp_path: Path, url: str, n: int, sid: str) -> tuple[SessionIndex, Callable[[], None]]:
    """Session `sid` checkpointed up to its analysis, then marked running under a lease that a
    second index on the same database holds (as another worker process would)."""
    first = Investigator(make_services(tmp_path / "a", sessions={"url": url}))

    def stop_after_analyse(ev: ProgressEvent) -> None:
        if ev.kind == "step_finished" and ev.step == "analyse":
            raise InputError("stopped")

    with pytest.raises(InputError):
        first.run(claim_for(n), options(), thread_id=sid, on_event=stop_after_analyse)
    elsewhere = SessionIndex(url=url)
    elsewhere.upsert(sid, claim=claim_for(n), status="running")
    release = elsewhere.lease(sid)
    assert release is not None
    return elsewhere, release


def test_two_processes_share_sessions_without_cross_talk(tmp_path, pg_url):
    a = _manager(tmp_path, pg_url, "a")
    child_spec = {"url": pg_url, "work": str(tmp_path / "b"), "out": str(tmp_path / "b.json"),
                  "sessions": {"b1": claim_for(2), "b2": claim_for(3)}, "expect": ["a1", "a2", "b1", "b2"]}
    child = run_worker(child_spec)
    a.start(claim_for(0), options(), session_id="a1")
    a.start(claim_for(1), options(), session_id="a2")
    for sid in ("a1", "a2"):
        assert a.wait(sid, timeout=GUARD_S).status == "complete"
    seen_by_b = finish_worker(child, child_spec)
    claims = {"a1": claim_for(0), "a2": claim_for(1), "b1": claim_for(2), "b2": claim_for(3)}

    # The other process saw this one's sessions, and each session's report is about its own claim.
    assert set(seen_by_b["seen"]) == set(claims)
    for sid, claim in claims.items():
        row = seen_by_b["seen"][sid]
        assert (row["status"], row["claim"], row["report_claim"]) == ("complete", claim, claim), sid
        assert row["events"] > 0 and row["events_in_order"], sid
    # And this process sees the other's, events included, numbered as the other recorded them.
    listed = {i.session_id: i for i in a.list()}
    assert set(listed) == set(claims)
    for sid in ("b1", "b2"):
        assert listed[sid].status == "complete" and not listed[sid].active
        assert _report_claim(a, sid) == claims[sid]
        seqs = [e.seq for e in a.events(sid)]
        assert seqs == list(range(1, seen_by_b["seen"][sid]["events"] + 1))
    a.shutdown()


def test_a_session_cut_short_in_one_instance_is_resumed_in_another(tmp_path, pg_url):
    class Stop(Exception):
        pass

    first = Investigator(make_services(tmp_path / "a", sessions={"url": pg_url}))

    def stop_after_gather(ev: ProgressEvent) -> None:
        if ev.kind == "step_finished" and ev.step == "gather":
            raise Stop

    with pytest.raises(Stop):
        first.run(claim_for(4), options(), thread_id="cut", on_event=stop_after_gather)

    other = _manager(tmp_path, pg_url, "b")
    assert other.investigator.checkpointer is not first.checkpointer
    info = other.status("cut")
    assert info.status == "interrupted" and info.finished_steps == ["analyse", "gather"]
    assert other.resume("cut") is True
    final = other.wait("cut", timeout=GUARD_S)
    assert final.status == "complete" and _report_claim(other, "cut") == claim_for(4)
    started = [e.step for e in other.events("cut") if e.kind == "step_started"]
    assert "analyse" not in started and "gather" not in started and started[-1] == "report"
    # The first instance reads the finished session from the database too.
    assert first.result("cut").report["claim"] == claim_for(4)
    other.shutdown()


def test_delete_removes_the_session_for_every_instance_and_only_that_one(tmp_path, pg_url):
    a = _manager(tmp_path, pg_url, "a")
    for i, sid in enumerate(("keep", "drop")):
        a.start(claim_for(i), options(), session_id=sid)
    for sid in ("keep", "drop"):
        a.wait(sid, timeout=GUARD_S)
    b = _manager(tmp_path, pg_url, "b")
    b.delete("drop")
    assert [i.session_id for i in a.list()] == ["keep"]
    with pytest.raises(InputError, match="unknown session 'drop'"):
        a.status("drop")
    assert a.events("keep") and _report_claim(b, "keep") == claim_for(0)
    a.shutdown()
    b.shutdown()


def test_a_session_running_elsewhere_is_shown_running_and_not_run_twice(tmp_path, pg_url, monkeypatch, capsys):
    """A lease held by another process (here a second index on the same database) makes the session
    read as running; its events reach a watcher through the database; it cannot be resumed or
    deleted meanwhile, and can once the lease is gone."""
    elsewhere, release = _leased_elsewhere(tmp_path, pg_url, 5, "busy")
    assert elsewhere.lease("busy") is None

    watcher = _manager(tmp_path, pg_url, "b")
    info = watcher.status("busy")
    assert info.active and info.status == "running"
    for act in (lambda: watcher.resume("busy"), lambda: watcher.delete("busy")):
        with pytest.raises(InputError, match="running in another claimscope process"):
            act()
    monkeypatch.setenv("CLAIMSCOPE_SESSIONS__URL", pg_url)
    code, out = run_main(monkeypatch, capsys, "sessions", "resume", "busy")
    assert code == 2 and "running in another claimscope process" in out, out
    late = RunEvent(seq=1, time=time.time(), kind="step_started", step="gather")
    threading.Timer(0.2, lambda: elsewhere.add_event("busy", late)).start()
    assert [e.seq for e in watcher.wait_events("busy", 0, timeout=GUARD_S)] == [1]
    deadline = time.monotonic() + GUARD_S
    while not watcher.events("busy") and time.monotonic() < deadline:  # read twice a second at most
        time.sleep(0.1)
    assert [e.step for e in watcher.events("busy")] == ["gather"]

    release()
    assert watcher.status("busy").status == "interrupted" and not watcher.is_active("busy")
    assert watcher.resume("busy") is True
    assert watcher.wait("busy", timeout=GUARD_S).status == "complete"
    watcher.shutdown()


def test_the_same_session_id_cannot_be_started_twice(tmp_path, pg_url):
    a, b = _manager(tmp_path, pg_url, "a"), _manager(tmp_path, pg_url, "b")
    a.start(claim_for(0), options(), session_id="once")
    with pytest.raises(InputError, match="already exists"):
        b.start(claim_for(1), options(), session_id="once")
    a.wait("once", timeout=GUARD_S)
    assert _report_claim(b, "once") == claim_for(0)
    a.shutdown()
    b.shutdown()


def test_concurrent_schema_setup_does_not_deadlock(pg_url):
    """Several processes starting at once on an empty database each set up the schema (the
    checkpointer's CREATE INDEX CONCURRENTLY included); each uses connections of its own, as
    separate processes would."""
    from claimscope.agent.sessions.postgres import postgres_checkpointer

    n = 6
    barrier = threading.Barrier(n)

    def start_one(_: int) -> list[str]:
        barrier.wait()
        SessionIndex(url=pg_url)
        saver = postgres_checkpointer(pg_url)
        return list(saver.list(None))

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        results = list(pool.map(start_one, range(n), timeout=GUARD_S))
    assert results == [[]] * n


# ------------------------------------------------------------------------ errors (no server needed)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("url", "says"), [
    ("postgresql://ana:{pw}@127.0.0.1:{port}/claimscope", "cannot open the sessions database "
     "postgresql://ana:***@127.0.0.1:{port}/claimscope"),
    ("mysql://ana:{pw}@db.example.org/claimscope", "must be a PostgreSQL URL"),
    ("postgresql://ana:{pw}@db.example.org:port/claimscope", "is not a valid URL"),
])
def test_a_bad_or_unreachable_url_is_one_line_without_the_password(monkeypatch, capsys, url, says):
    port = _closed_port()
    monkeypatch.setenv("CLAIMSCOPE_SESSIONS__URL", url.format(pw=PASSWORD, port=port))
    code, out = run_main(monkeypatch, capsys, "sessions", "list")
    assert code == 2
    assert says.format(port=port) in out and "sessions.url" in out
    assert PASSWORD not in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1, out


def test_without_the_postgres_extra_the_error_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now raises ImportError
    monkeypatch.setenv("CLAIMSCOPE_SESSIONS__URL", f"postgresql://ana:{PASSWORD}@127.0.0.1:5432/claimscope")
    code, out = run_main(monkeypatch, capsys, "sessions", "list")
    assert code == 2 and "pip install 'claimscope[postgres]'" in out
    assert PASSWORD not in out and len(out.strip().splitlines()) == 1


def test_repair_says_it_is_for_sqlite_only(monkeypatch, capsys):
    monkeypatch.setenv("CLAIMSCOPE_SESSIONS__URL", f"postgresql://ana:{PASSWORD}@db.example.org/claimscope")
    code, out = run_main(monkeypatch, capsys, "sessions", "repair")
    assert code == 2 and "SQLite session files only" in out and "postgresql://ana:***@db.example.org" in out
    assert PASSWORD not in out


def test_mask_url_hides_only_the_password():
    from claimscope.agent.sessions.url import mask_url

    assert mask_url("postgresql://ana:p%40ss@db:5432/c?sslmode=require") == \
        "postgresql://ana:***@db:5432/c?sslmode=require"
    assert mask_url("postgresql://ana@db/c") == "postgresql://ana@db/c"
    assert mask_url("postgresql://db/c") == "postgresql://db/c"


def test_the_cli_lists_sessions_kept_in_postgres(tmp_path, pg_url, monkeypatch, capsys):
    a = _manager(tmp_path, pg_url, "a")
    a.start(claim_for(0), options(), session_id="cli1")
    a.wait("cli1", timeout=GUARD_S)
    monkeypatch.setenv("CLAIMSCOPE_SESSIONS__URL", pg_url)
    code, out = run_main(monkeypatch, capsys, "sessions", "list", "--json")
    assert code == 0, out
    rows = json.loads(out[out.index("["):])
    assert [(r["session_id"], r["status"], r["claim"]) for r in rows] == [("cli1", "complete", claim_for(0))]
    a.shutdown()


def test_the_web_app_of_another_worker_streams_a_session_run_elsewhere(tmp_path, pg_url):
    """Worker B's progress stream follows a session whose lease another process holds, through the
    events that process writes to the database, and ends when the lease goes."""
    from starlette.testclient import TestClient

    from claimscope.agent.web import create_app

    elsewhere, release = _leased_elsewhere(tmp_path, pg_url, 6, "watched")
    for seq, step in ((1, "analyse"), (2, "gather")):
        elsewhere.add_event("watched", RunEvent(seq=seq, time=time.time(), kind="step_started", step=step))
    worker_b = _manager(tmp_path, pg_url, "b")
    with TestClient(create_app(worker_b), base_url="http://127.0.0.1:8000") as client:
        status = client.get("/sessions/watched/status").json()
        assert status["status"] == "running" and status["active"]
        threading.Timer(0.5, release).start()
        stream = client.get("/sessions/watched/events").text
    assert "id: 1\nevent: progress" in stream and "id: 2\nevent: progress" in stream
    assert stream.rstrip().endswith('"status": "interrupted", "has_report": false, "paused": false}')
    worker_b.shutdown()


def test_the_benchmark_reports_a_missing_server_instead_of_failing(monkeypatch):
    import tests.postgres_server as pg
    from evals.postgres_sessions import measure

    def unavailable():
        raise PostgresUnavailable("PostgreSQL server programs (initdb, pg_ctl, postgres) not found")

    monkeypatch.setattr(pg, "start_postgres", unavailable)
    assert measure() == {"skipped": "PostgreSQL server programs (initdb, pg_ctl, postgres) not found"}
