"""The session index: one row per session (claim, created, status, last error) plus each session's
event log, so `claimscope sessions list` can show sessions without loading their state; kept in a
SQLite file beside the checkpointer or in the checkpointer's PostgreSQL database. A process running
a session holds its lease there, so others see it running and refuse to run it too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from claimscope.agent.sessions.checkpoint import in_memory
from claimscope.agent.sessions.common import Release, RunEvent, running_elsewhere_error
from claimscope.agent.sessions.postgres import PostgresIndex
from claimscope.agent.sessions.sqlite import FileLeases, SqliteIndex, index_path_for, leases_for
from claimscope.agent.settings import Settings


class SessionIndex:
    """The session index: one row per session plus each session's event log, in a SQLite file
    beside the checkpointer or, with `url`, in the checkpointer's PostgreSQL database."""

    def __init__(self, path: Path | None = None, *, url: str | None = None) -> None:
        self._backend: SqliteIndex | PostgresIndex = PostgresIndex(url) if url else SqliteIndex(path)
        self.shared = self._backend.shared

    @classmethod
    def beside(cls, checkpointer: BaseCheckpointSaver, settings: Settings) -> SessionIndex:
        """The index that goes with `checkpointer`: in memory for a checkpointer in memory, else in
        the sessions database the settings name (PostgreSQL with `sessions.url`, else the SQLite
        file beside `sessions.path`)."""
        if in_memory(checkpointer):
            return cls(None)
        if settings.sessions.url:
            return cls(url=settings.sessions.url)
        return cls(index_path_for(settings.resolve(settings.sessions.path)))

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

    def lease(self, session_id: str) -> Release | None:
        """Claim the right to run the session; returns its release, or None when another process
        sharing the index holds it (always granted for an index in memory)."""
        return self._backend.lease(session_id)

    def running_elsewhere(self, session_id: str) -> bool:
        """Another process sharing the index holds the session's lease (or this one, on its
        lease connection: callers look at their own runs first)."""
        return self._backend.running_elsewhere(session_id)

    def close(self) -> None:
        self._backend.close()


@contextmanager
def session_lease(holder: SessionIndex | FileLeases, session_id: str) -> Iterator[None]:
    """Hold the session's lease while the block runs it in this thread (the command line);
    InputError if another process sharing the index runs it."""
    release = holder.lease(session_id)
    if release is None:
        raise running_elsewhere_error(session_id)
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
    holder = SessionIndex(url=settings.sessions.url) if settings.sessions.url else \
        leases_for(index_path_for(settings.resolve(settings.sessions.path)))
    with session_lease(holder, session_id):
        yield
