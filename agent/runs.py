"""Background investigations keyed by session id, for front ends that must not block on a run
(the MCP server, the chat).

A run executes in a worker thread of the `RunManager`; its progress events are kept in order per
session (numbered from 1) so a client can poll `events(session_id, since=n)` or block on
`wait_events`. The run belongs to the manager, not to whoever started it: a client that disconnects
loses nothing, and the graph's checkpointer keeps every finished step so a run interrupted by the
process dying is continued with `resume`. A small session index (claim, created, status, last
error) lives in a SQLite file beside the checkpointer so `claimscope sessions list` can show
sessions without loading their state.

Cancellation is cooperative: the flag is checked at every progress event, so a run stops at the next
event (at the latest when the step in flight finishes); finished steps stay checkpointed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, Field

from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator, RunResult
from claimscope.agent.settings import Settings
from claimscope.tools.errors import ClaimscopeError, InputError

try:
    import fcntl
except ImportError:  # Windows: no flock; a SQLite session is then not leased (as before leases)
    fcntl = None  # type: ignore[assignment]

SessionStatus = Literal[
    "queued", "running", "paused", "complete", "no_evidence", "budget_exhausted", "failed",
    "cancelled", "interrupted",
]
# Statuses after which nothing happens until someone acts (answer, resume, or nothing at all).
FINAL_STATUSES: frozenset[str] = frozenset({"complete", "no_evidence", "budget_exhausted", "failed"})
# How often a session run by another process sharing the index is looked at again (seconds).
ELSEWHERE_POLL_S = 0.5
SESSION_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
# How long taking a SQLite session's lease retries while it is busy: another process only looking
# whether the session runs holds the lock for a moment, a process running it for the whole run.
LEASE_RETRY_S = 0.5


class RunCancelledError(ClaimscopeError):
    """Raised inside a run's event handler to stop it; the manager records the session as cancelled."""


class RunEvent(BaseModel):
    """A progress event of one session, numbered in the order it was produced."""

    seq: int = Field(description="1-based position in the session's event log.")
    time: float = Field(description="Unix time the manager received the event.")
    kind: str
    step: str = ""
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


class SessionInfo(BaseModel):
    """What a front end shows about a session."""

    session_id: str
    claim: str = ""
    status: SessionStatus | str
    active: bool = Field(False, description="A worker is running (or about to run) it: of this process, or "
                         "of another process using the same sessions (it holds the session's lease).")
    created: float | None = None
    updated: float | None = None
    finished_steps: list[str] = Field(default_factory=list)
    current_step: str | None = None
    events: int = Field(0, description="Events recorded so far; pass as `since` to get only newer ones.")
    pending: dict[str, Any] | None = Field(None, description="The review a guided session waits for.")
    error: str | None = None
    has_report: bool = False


class _Live:
    """In-process bookkeeping of one session."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.events: list[RunEvent] = []
        self.cancel = threading.Event()
        self.future: Future[None] | None = None
        self.status: str = "queued"
        self.error: str | None = None
        self.current_step: str | None = None


class _Rows:
    """What a backend's transaction yields: `execute(sql, args)` with SQLite's `?` placeholders,
    returning a cursor whose rows are tuples."""

    def __init__(self, run: Callable[[str, tuple[Any, ...]], Any]) -> None:
        self._run = run

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self._run(sql, args)


class FileLeases:
    """Leases of sessions kept in SQLite files: the process running a session holds an exclusive
    flock on a file named after it in a folder beside the session index, as a PostgreSQL worker
    holds an advisory lock. Other processes (`claimscope sessions list` in another terminal, a
    web app) then see the session as running and refuse to run it too; the kernel drops the lock
    when the process ends, however it ends, so a dead run leaves no stale lease. The file keeps
    the holder's pid and host name for a person looking."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, session_id: str) -> Path:
        safe = session_id if session_id and set(session_id) <= SESSION_ID_CHARS and len(session_id) <= 64 else \
            hashlib.blake2b(session_id.encode(), digest_size=16).hexdigest()
        return self.folder / f"{safe}.lease"

    def lease(self, session_id: str) -> Callable[[], None] | None:
        """Take the session's lease: its release, or None while another holder has it."""
        if fcntl is None:
            return _no_release
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._path(session_id), os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + LEASE_RETRY_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return None
                time.sleep(0.02)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())

        def release() -> None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

        return _once(release)

    def held(self, session_id: str) -> bool:
        """Some process, this one included, holds the session's lease."""
        if fcntl is None:
            return False
        try:
            fd = os.open(self._path(session_id), os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing drops the shared lock taken to look
        return False

    def forget(self, session_id: str) -> None:
        """Remove the lease file of a deleted session (refused meanwhile while it runs)."""
        self._path(session_id).unlink(missing_ok=True)


def leases_for(index_path: Path) -> FileLeases:
    """The leases of the sessions whose index is the SQLite file `index_path`."""
    return FileLeases(index_path.with_name(index_path.name.removesuffix(".sqlite") + ".leases"))


class _SqliteIndex:
    """The index in a SQLite file of its own beside the checkpointer (so its writes never wait on
    the checkpointer's). Several processes may use the files at once (a run on the command line,
    `claimscope sessions list` in another terminal, the web app), so a running session is leased
    (`FileLeases`); an index in memory belongs to one process, which needs no lease."""

    def __init__(self, path: Path | None) -> None:
        self._lock = threading.Lock()
        target = ":memory:" if path is None else str(path)
        self.shared = path is not None
        self._leases = leases_for(path) if path is not None else None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        from claimscope.agent.sessions_repair import database_guard

        with database_guard(path or Path(":memory:")):
            self._conn = sqlite3.connect(target, check_same_thread=False, timeout=30)
            with self._lock, self._conn:
                create_index_tables(self._conn)

    @contextmanager
    def transaction(self) -> Iterator[_Rows]:
        with self._lock, self._conn:
            yield _Rows(self._conn.execute)

    def lease(self, session_id: str) -> Callable[[], None] | None:
        return self._leases.lease(session_id) if self._leases is not None else _no_release

    def running_elsewhere(self, session_id: str) -> bool:
        return self._leases is not None and self._leases.held(session_id)

    def forget(self, session_id: str) -> None:
        if self._leases is not None:
            self._leases.forget(session_id)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _PostgresIndex:
    """The index in the PostgreSQL database of the checkpointer, shared by every process using it.

    A process running a session holds a PostgreSQL advisory lock keyed by the session id on a
    connection of its own (its lease): the others then see the session as running and refuse to
    run it too, and the lock goes away with the connection if the process dies."""

    shared = True

    def __init__(self, url: str) -> None:
        from claimscope.agent import sessions_db

        self._db = sessions_db
        self.url = url
        sessions_db.setup_schema(url, lambda conn: create_index_tables(conn, real="DOUBLE PRECISION"))
        self._pool = sessions_db.pool(url)

    @contextmanager
    def transaction(self) -> Iterator[_Rows]:
        from psycopg.rows import tuple_row

        try:
            with self._pool.connection() as conn, conn.transaction():
                cur = conn.cursor(row_factory=tuple_row)
                yield _Rows(lambda sql, args: cur.execute(sql.replace("?", "%s"), args))
        except Exception as exc:
            if self._db.is_unavailable(exc):
                raise self._db.unavailable(self.url, exc, "using the session index") from None
            raise

    def lease(self, session_id: str) -> Callable[[], None] | None:
        key = self._db.lease_key(session_id)
        conn = self._db.connect(self.url)
        if not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (key,)).fetchone()["ok"]:
            conn.close()
            return None

        def release() -> None:
            # Unlocked explicitly: the server ends a closed connection's session (and its locks)
            # a moment after the close, when whoever waited on the run may already look.
            try:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            except Exception:  # the connection is gone, and the lock with it
                pass
            conn.close()

        return release

    def running_elsewhere(self, session_id: str) -> bool:
        key = self._db.lease_key(session_id)
        with self.transaction() as db:
            row = db.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1)",
                ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF),
            ).fetchone()
        return bool(row[0])

    def forget(self, session_id: str) -> None:
        """An advisory lock leaves nothing behind."""

    def close(self) -> None:
        """The pool is the process's, shared with the checkpointer: it stays open."""


def _no_release() -> None:
    pass


def _once(fn: Callable[[], None]) -> Callable[[], None]:
    lock, done = threading.Lock(), [False]

    def call() -> None:
        with lock:
            if done[0]:
                return
            done[0] = True
        fn()

    return call


class SessionIndex:
    """The session index: one row per session plus each session's event log, in a SQLite file
    beside the checkpointer or, with `url`, in the checkpointer's PostgreSQL database."""

    def __init__(self, path: Path | None = None, *, url: str | None = None) -> None:
        self._backend: _SqliteIndex | _PostgresIndex = _PostgresIndex(url) if url else _SqliteIndex(path)
        self.shared = self._backend.shared

    def create(self, session_id: str, *, claim: str, options: dict[str, Any]) -> bool:
        """Record a new queued session; False (nothing written) if the id is taken."""
        now = time.time()
        with self._backend.transaction() as db:
            cur = db.execute(
                "INSERT INTO sessions (id, claim, created, updated, status, error, options) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (session_id, claim, now, now, "queued", None, json.dumps(options)),
            )
            return bool(cur.rowcount)

    def upsert(self, session_id: str, *, claim: str | None = None, status: str | None = None,
               error: str | None = None, options: dict[str, Any] | None = None) -> None:
        now = time.time()
        with self._backend.transaction() as db:
            cur = db.execute(
                "INSERT INTO sessions (id, claim, created, updated, status, error, options) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (session_id, claim or "", now, now, status or "queued", error, json.dumps(options or {})),
            )
            if cur.rowcount:
                return
            sets, args = ["updated = ?", "error = ?"], [now, error]
            if claim is not None:
                sets.append("claim = ?")
                args.append(claim)
            if status is not None:
                sets.append("status = ?")
                args.append(status)
            db.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*args, session_id))

    def get(self, session_id: str) -> dict[str, Any] | None:
        with self._backend.transaction() as db:
            row = db.execute(
                "SELECT id, claim, created, updated, status, error FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        if row is None:
            return None
        return dict(zip(("id", "claim", "created", "updated", "status", "error"), row, strict=True))

    def all(self) -> list[dict[str, Any]]:
        with self._backend.transaction() as db:
            rows = db.execute(
                "SELECT id, claim, created, updated, status, error FROM sessions ORDER BY created, id"
            ).fetchall()
        return [dict(zip(("id", "claim", "created", "updated", "status", "error"), r, strict=True)) for r in rows]

    def add_event(self, session_id: str, event: RunEvent) -> None:
        with self._backend.transaction() as db:
            db.execute("INSERT INTO events (session_id, seq, body) VALUES (?, ?, ?) "
                       "ON CONFLICT (session_id, seq) DO UPDATE SET body = excluded.body",
                       (session_id, event.seq, event.model_dump_json()))

    def events(self, session_id: str, since: int = 0) -> list[RunEvent]:
        with self._backend.transaction() as db:
            rows = db.execute(
                "SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq", (session_id, since)
            ).fetchall()
        return [RunEvent.model_validate_json(r[0]) for r in rows]

    def delete(self, session_id: str) -> None:
        with self._backend.transaction() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            db.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
        self._backend.forget(session_id)

    def lease(self, session_id: str) -> Callable[[], None] | None:
        """Claim the right to run the session; returns its release, or None when another process
        sharing the index holds it (always granted for an index in memory)."""
        return self._backend.lease(session_id)

    def running_elsewhere(self, session_id: str) -> bool:
        """Another process sharing the index holds the session's lease (or this one, on its
        lease connection: callers look at their own runs first)."""
        return self._backend.running_elsewhere(session_id)

    def close(self) -> None:
        self._backend.close()


RUNNING_ELSEWHERE = ("is running in another claimscope process sharing the sessions database; wait for "
                     "it (`claimscope sessions list` shows it as running, get_status over MCP) or stop it there.")


@contextmanager
def session_lease(index: SessionIndex, session_id: str) -> Iterator[None]:
    """Hold the session's lease while the block runs it in this thread (the command line);
    InputError if another process sharing the index runs it."""
    release = index.lease(session_id)
    if release is None:
        raise InputError(f"session {session_id!r} {RUNNING_ELSEWHERE}")
    try:
        yield
    finally:
        release()


@contextmanager
def shared_session_lease(settings: Settings, session_id: str | None) -> Iterator[None]:
    """`session_lease` for a command that runs a session without a RunManager (nothing to hold
    without a session id): the PostgreSQL index's lease, or the lease file beside the SQLite one
    (taken without opening the index, which a damaged file must not stop)."""
    if not session_id:
        yield
        return
    if settings.sessions.url:
        with session_lease(SessionIndex(url=settings.sessions.url), session_id):
            yield
        return
    release = leases_for(index_path_for(settings.resolve(settings.sessions.path))).lease(session_id)
    if release is None:
        raise InputError(f"session {session_id!r} {RUNNING_ELSEWHERE}")
    try:
        yield
    finally:
        release()


def create_index_tables(conn: Any, real: str = "REAL") -> None:
    """The session index's tables (kept here so a repaired index gets the same schema); `real`:
    the column type of Unix times (PostgreSQL's REAL is single precision, too coarse for them)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, claim TEXT NOT NULL, "
        f"created {real} NOT NULL, updated {real} NOT NULL, status TEXT NOT NULL, error TEXT, "
        "options TEXT NOT NULL DEFAULT '{}')"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
        "body TEXT NOT NULL, PRIMARY KEY (session_id, seq))"
    )


def index_path_for(checkpoint_path: Path) -> Path:
    """The session index file that sits beside a checkpointer file."""
    return checkpoint_path.with_name(checkpoint_path.stem + ".index.sqlite")


def check_session_id(session_id: str) -> str:
    """A session id as typed by a person or a client; refuses what cannot be one."""
    sid = (session_id or "").strip()
    if not sid or len(sid) > 64 or not set(sid) <= SESSION_ID_CHARS:
        raise InputError(f"invalid session id {session_id!r}: use 1-64 letters, digits, '-', '_' or '.' "
                         "(`claimscope sessions list` shows the existing ones).")
    return sid


class RunManager:
    """Runs investigations in worker threads and keeps their progress, one session id each.

    `investigator` is shared by every run (its graph and checkpointer are thread-safe; the
    services are the same store / models for all sessions). `max_workers` bounds how many runs
    execute at once; further ones wait as "queued".
    """

    def __init__(
        self,
        investigator: Investigator | None = None,
        *,
        max_workers: int = 2,
        index_path: Path | None | Literal["auto"] = "auto",
    ) -> None:
        self.investigator = investigator or Investigator()
        settings = self.investigator.services.settings
        if index_path == "auto" and settings.sessions.url and not _in_memory(self.investigator):
            self.index = SessionIndex(url=settings.sessions.url)
        else:
            if index_path == "auto":
                index_path = (index_path_for(settings.resolve(settings.sessions.path))
                              if not _in_memory(self.investigator) else None)
            self.index = SessionIndex(index_path)
        # Whether another process runs a session, by id: (monotonic time asked, answer). Asked at
        # most every ELSEWHERE_POLL_S per session, since progress streams ask on every poll.
        self._elsewhere: dict[str, tuple[float, bool]] = {}
        # Events of sessions run by another process: (monotonic time read, events so far).
        self._remote: dict[str, tuple[float, list[RunEvent]]] = {}
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="claimscope-run")
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._closed = False

    # ----------------------------------------------------------------------------------- starting

    def start(
        self,
        claim: str,
        options: InvestigationOptions | None = None,
        *,
        session_id: str | None = None,
    ) -> str:
        """Start an investigation in the background and return its session id at once."""
        from claimscope.agent.investigation import accept_claim, check_corpora, translation_wanted

        # Everything that can refuse the run does so here, before a session is recorded; a claim
        # translated here is investigated as its English text (run() then has nothing to refuse).
        claim, notes = accept_claim(claim, self.investigator.services, translate=translation_wanted())
        sid = check_session_id(session_id) if session_id else uuid.uuid4().hex[:12]
        if self._known(sid):
            raise InputError(f"session {sid!r} already exists; resume it or choose another id.")
        opts = options or self._default_options()
        check_corpora(self.investigator.services, list(opts.corpora), opts.sources)
        if not self.index.create(sid, claim=claim, options=opts.model_dump(mode="json")):
            # Another process sharing the index took the id between the check above and now.
            raise InputError(f"session {sid!r} already exists; resume it or choose another id.")
        self._submit(sid, lambda on_event: self.investigator.run(claim, opts, thread_id=sid, on_event=on_event,
                                                                 notes=notes))
        return sid

    def answer(self, session_id: str, decision: Any) -> None:
        """Give a paused guided session its review decision and continue it in the background.

        The decision is validated here, so a bad one is refused before anything runs."""
        from claimscope.agent.graph.review import parse_decision

        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        waiting = self.investigator.pending(sid)
        if waiting is None:
            info = self.status(sid)
            raise InputError(f"session {sid!r} is not waiting for a review decision (status {info.status}).")
        parse_decision(waiting["point"], decision, waiting.get("summary"))
        if decision in ({}, None, True, ""):
            # LangGraph reads a dict resume value as {interrupt id: value}: an empty one resumes nothing.
            decision = "accept"
        self._submit(sid, lambda on_event: self.investigator.answer(sid, decision, on_event=on_event))

    def resume(self, session_id: str) -> bool:
        """Continue a session that stopped before its end (process died, cancelled).

        Returns False when there is nothing to run (finished, or paused for a review)."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        state = self.investigator.state(sid)
        if not state:
            raise InputError(f"session {sid!r} never started a step; start it again with its claim.")
        if state.get("report") or self.investigator.pending(sid) is not None:
            return False
        self._submit(sid, lambda on_event: self.investigator.resume(sid, on_event=on_event))
        return True

    def cancel(self, session_id: str) -> bool:
        """Ask a running or queued session to stop; True if it was active."""
        sid = self._existing(session_id)
        with self._lock:
            live = self._live.get(sid)
            if live is None or live.future is None or live.future.done():
                return False
            live.cancel.set()
            if live.future.cancel():  # still queued: it never starts
                self._set_status(live, "cancelled")
            return True

    # ----------------------------------------------------------------------------------- reading

    def status(self, session_id: str) -> SessionInfo:
        sid = self._existing(session_id)
        row = self.index.get(sid) or {}
        with self._lock:
            live = self._live.get(sid)
            active = bool(live and live.future and not live.future.done())
            live_status = live.status if live else None
            live_error = live.error if live else None
            current = live.current_step if live and active else None
            n_events = len(live.events) if live else None
        elsewhere = not active and self._running_elsewhere(sid, fresh=True)
        state = self.investigator.state(sid)
        pending = None if active or elsewhere else self.investigator.pending(sid)
        if active:
            status = live_status or "running"
        elif elsewhere:
            status = row["status"] if row.get("status") in ("queued", "running") else "running"
        elif live_status in ("failed", "cancelled"):
            status = live_status
        elif pending is not None:
            status = "paused"
        elif state.get("status") in FINAL_STATUSES and state.get("report"):
            status = state["status"]
        elif state:
            # Started earlier (or by another process) and not finished: resumable.
            status = row["status"] if row.get("status") in ("cancelled", "failed") else "interrupted"
        else:
            status = row.get("status") or "queued"
            if status in ("queued", "running"):
                status = "interrupted"
        if n_events is None:
            n_events = len(self.index.events(sid))
        if not row and state:
            row = {"created": self._checkpoint_time(sid, first=True), "updated": self._checkpoint_time(sid)}
        return SessionInfo(
            session_id=sid, claim=state.get("claim") or row.get("claim", ""), status=status,
            active=active or elsewhere,
            created=row.get("created"), updated=row.get("updated"),
            finished_steps=list(state.get("done", [])), current_step=current, events=n_events,
            pending=pending, error=live_error or row.get("error"), has_report=bool(state.get("report")),
        )

    def events(self, session_id: str, since: int = 0) -> list[RunEvent]:
        """The session's events after number `since`, in order."""
        sid = check_session_id(session_id)
        if self._running_elsewhere(sid):
            # Progress streams poll this many times a second: read the database at most every
            # ELSEWHERE_POLL_S, and only the events not read yet.
            return [e for e in self._remote_events(sid) if e.seq > since]
        sid = self._existing(sid)
        with self._lock:
            self._remote.pop(sid, None)
            live = self._live.get(sid)
            if live is not None:
                return [e for e in live.events if e.seq > since]
        return self.index.events(sid, since)

    def _remote_events(self, sid: str) -> list[RunEvent]:
        now = time.monotonic()
        with self._lock:
            read_at, known = self._remote.get(sid, (0.0, []))
        if now - read_at >= ELSEWHERE_POLL_S:
            known = known + self.index.events(sid, known[-1].seq if known else 0)
            with self._lock:
                self._remote[sid] = (now, known)
        return known

    def wait_events(self, session_id: str, since: int = 0, timeout: float | None = None) -> list[RunEvent]:
        """Block until there are events after `since` or the session is no longer active (or the
        timeout passes); returns the new events (possibly none)."""
        sid = self._existing(session_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                live = self._live.get(sid)
                if live is None:
                    break
                new = [e for e in live.events if e.seq > since]
                if new or live.future is None or live.future.done():
                    return new
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return []
                self._changed.wait(timeout=remaining if remaining is not None else 1.0)
        new = self.index.events(sid, since)
        # Run by another process sharing the index: its events arrive through the index only.
        while not new and self._running_elsewhere(sid):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            time.sleep(ELSEWHERE_POLL_S if remaining is None else min(ELSEWHERE_POLL_S, remaining))
            new = self.index.events(sid, since)
        return new

    async def await_events(self, session_id: str, since: int = 0, timeout: float = 30.0) -> list[RunEvent]:
        """`wait_events` for async callers; polls in short slices so a cancelled caller (a client
        that went away) stops waiting promptly while the run itself goes on."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            chunk = max(0.0, min(0.25, remaining))
            new = await asyncio.to_thread(self.wait_events, session_id, since, chunk)
            if new or not self.is_active(session_id) or remaining <= 0:
                return new

    def wait(self, session_id: str, timeout: float | None = None) -> SessionInfo:
        """Block until the session's worker finishes (or the timeout passes)."""
        sid = self._existing(session_id)
        with self._lock:
            live = self._live.get(sid)
            future = live.future if live else None
        if future is not None:
            try:
                future.result(timeout=timeout)
            except TimeoutError:
                pass
            except Exception:  # the worker records its own failure
                pass
        return self.status(sid)

    def is_active(self, session_id: str) -> bool:
        """A worker of this process, or of another sharing the sessions database, runs the session."""
        with self._lock:
            live = self._live.get(session_id)
            if live and live.future and not live.future.done():
                return True
        return self._running_elsewhere(session_id)

    def _running_elsewhere(self, sid: str, *, fresh: bool = False) -> bool:
        if not self.index.shared:
            return False
        now = time.monotonic()
        with self._lock:
            asked = self._elsewhere.get(sid)
            live = self._live.get(sid)
            if live and live.future and not live.future.done():
                return False  # the lease seen in the database is this process's own
        if asked is None or fresh or now - asked[0] >= ELSEWHERE_POLL_S:
            asked = (now, self.index.running_elsewhere(sid))
            with self._lock:
                self._elsewhere[sid] = asked
        return asked[1]

    def result(self, session_id: str) -> RunResult:
        return self.investigator.result(self._existing(session_id))

    def verdict_label(self, info: SessionInfo) -> str:
        """The weighted verdict label of a session's report ("" before there is one)."""
        if not info.has_report:
            return ""
        report = self.result(info.session_id).report or {}
        return str(((report.get("verdict") or {}).get("weighted") or {}).get("label") or "")

    def list(self) -> list[SessionInfo]:
        """Every session: those of the index and any other thread of the checkpointer (e.g. started
        by `claimscope investigate`), oldest first."""
        ids = [r["id"] for r in self.index.all()]
        ids += sorted(set(checkpoint_threads(self.investigator.checkpointer)) - set(ids))
        return [self.status(i) for i in ids]

    @contextmanager
    def hold(self, session_id: str) -> Iterator[str]:
        """Run the session in the calling thread (the command line) rather than a worker: refused
        while it is active here or elsewhere, and leased meanwhile; yields its checked id."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        with session_lease(self.index, sid):
            yield sid

    def delete(self, session_id: str) -> None:
        """Forget a session: its checkpoints, index row and events."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        self.investigator.checkpointer.delete_thread(sid)
        self.index.delete(sid)
        with self._lock:
            self._live.pop(sid, None)

    def shutdown(self, *, cancel: bool = True, wait: bool = True) -> None:
        """Stop accepting work; with `cancel`, ask running sessions to stop at their next event."""
        with self._lock:
            self._closed = True
            if cancel:
                for live in self._live.values():
                    live.cancel.set()
        self._pool.shutdown(wait=wait, cancel_futures=cancel)

    # ----------------------------------------------------------------------------------- internals

    def _default_options(self) -> InvestigationOptions:
        from claimscope.agent.investigation import default_options

        return default_options(self.investigator.services.settings)

    def _known(self, sid: str) -> bool:
        with self._lock:
            live = self._live.get(sid)
            if live is not None and (not self.index.shared or (live.future and not live.future.done())):
                return True
        if self.index.get(sid) is not None or bool(self.investigator.state(sid)):
            return True
        if live is not None:
            # Finished here, then deleted by another process sharing the index.
            with self._lock:
                self._live.pop(sid, None)
        return False

    def _existing(self, session_id: str) -> str:
        sid = check_session_id(session_id)
        if not self._known(sid):
            raise InputError(f"unknown session {sid!r}; `claimscope sessions list` (or the MCP tool "
                             "start_investigation) gives valid ids.")
        return sid

    def _refuse_if_active(self, sid: str) -> None:
        if self._running_elsewhere(sid, fresh=True):
            raise InputError(f"session {sid!r} {RUNNING_ELSEWHERE}")
        if self.is_active(sid):
            raise InputError(f"session {sid!r} is running; wait for it (get_status) or cancel it first.")

    def _checkpoint_time(self, sid: str, *, first: bool = False) -> float | None:
        """Unix time of the session's latest (or first) checkpoint, for sessions not in the index."""
        config = RunnableConfig(configurable={"thread_id": sid})
        stamp = None
        for item in self.investigator.checkpointer.list(config, limit=None if first else 1):
            stamp = item.checkpoint.get("ts")
        if not stamp:
            return None
        try:
            return dt.datetime.fromisoformat(stamp).timestamp()
        except ValueError:
            return None

    def _set_status(self, live: _Live, status: str, error: str | None = None) -> None:
        # Called with self._lock held.
        live.status = status
        live.error = error
        self._changed.notify_all()
        self.index.upsert(live.session_id, status=status, error=error)

    def _submit(self, sid: str, work: Any) -> None:
        with self._lock:
            if self._closed:
                raise InputError("the run manager is shutting down; start the session again later.")
        release = self.index.lease(sid)
        if release is None:
            raise InputError(f"session {sid!r} {RUNNING_ELSEWHERE}")
        try:
            self._queue(sid, work, release)
        except BaseException:
            release()
            raise

    def _queue(self, sid: str, work: Any, release: Callable[[], None]) -> None:
        with self._lock:
            if self._closed:
                raise InputError("the run manager is shutting down; start the session again later.")
            live = self._live.get(sid)
            if live is None:
                live = _Live(sid)
                # Continue the numbering of events recorded by an earlier process.
                live.events = self.index.events(sid)
                self._live[sid] = live
            live.cancel.clear()
            self._set_status(live, "queued")
            once = _once(release)
            live.future = self._pool.submit(self._work, live, work, once)
            # Released by the run itself before its future completes (so whoever waits on it finds
            # the session free), or here when it is cancelled while still queued.
            live.future.add_done_callback(lambda _f: once())

    def _record(self, live: _Live, ev: ProgressEvent) -> None:
        with self._lock:
            event = RunEvent(seq=len(live.events) + 1, time=time.time(), **ev.model_dump())
            live.events.append(event)
            if ev.kind == "step_started":
                live.current_step = ev.step
            elif ev.kind == "step_finished" and live.current_step == ev.step:
                live.current_step = None
            self._changed.notify_all()
        self.index.add_event(live.session_id, event)

    def _work(self, live: _Live, work: Any, release: Callable[[], None] = _no_release) -> None:
        try:
            self._run(live, work)
        finally:
            release()

    def _run(self, live: _Live, work: Any) -> None:
        def on_event(ev: ProgressEvent) -> None:
            self._record(live, ev)
            if live.cancel.is_set():
                raise RunCancelledError(f"session {live.session_id} cancelled")

        with self._lock:
            if live.cancel.is_set():
                self._set_status(live, "cancelled")
                return
            self._set_status(live, "running")
        try:
            result: RunResult = work(on_event)
        except RunCancelledError:
            with self._lock:
                self._set_status(live, "cancelled")
            return
        except ClaimscopeError as exc:
            with self._lock:
                self._set_status(live, "failed", str(exc))
            return
        except Exception as exc:  # a crash in a step must not vanish with the worker thread
            with self._lock:
                self._set_status(live, "failed", f"{type(exc).__name__}: {exc}")
            return
        with self._lock:
            live.current_step = None
            status = result.status if result.status != "running" else "interrupted"
            self._set_status(live, status)


def _in_memory(investigator: Investigator) -> bool:
    from langgraph.checkpoint.memory import InMemorySaver

    return isinstance(investigator.checkpointer, InMemorySaver)


def checkpoint_threads(checkpointer: Any) -> list[str]:
    """Thread ids the checkpointer holds (SQL for SQLite and PostgreSQL, else its own listing)."""
    conn = getattr(checkpointer, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        lock = getattr(checkpointer, "lock", None)
        with lock if lock is not None else _nullcontext():
            rows = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
        return [r[0] for r in rows]
    if type(checkpointer).__module__.startswith("langgraph.checkpoint.postgres"):
        with checkpointer.conn.connection() as pg:
            return [r["thread_id"] for r in pg.execute("SELECT DISTINCT thread_id FROM checkpoints ORDER BY 1")]
    storage = getattr(checkpointer, "storage", None)
    if isinstance(storage, dict):
        return list(storage)
    return sorted({c.config["configurable"]["thread_id"] for c in checkpointer.list(None)})


@contextmanager
def _nullcontext() -> Iterator[None]:
    yield
