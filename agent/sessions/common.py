"""What every sessions backend shares: session ids, the entries of a session's event log, the
index tables, the refusal of a session another process runs, and the release a lease returns."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError

SESSION_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

RUNNING_ELSEWHERE = ("is running in another claimscope process sharing the sessions database; wait for "
                     "it (`claimscope sessions list` shows it as running, get_status over MCP) or stop it there.")

# Ends a lease: called once when the run ends (calling it again does nothing).
Release = Callable[[], None]


class RunEvent(BaseModel):
    """A progress event of one session, numbered in the order it was produced."""

    seq: int = Field(description="1-based position in the session's event log.")
    time: float = Field(description="Unix time the manager received the event.")
    kind: str
    step: str = ""
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


def check_session_id(session_id: str) -> str:
    """A session id as typed by a person or a client; refuses what cannot be one."""
    sid = (session_id or "").strip()
    if not sid or len(sid) > 64 or not set(sid) <= SESSION_ID_CHARS:
        raise InputError(f"invalid session id {session_id!r}: use 1-64 letters, digits, '-', '_' or '.' "
                         "(`claimscope sessions list` shows the existing ones).")
    return sid


def running_elsewhere_error(session_id: str) -> InputError:
    """The refusal of a session whose lease another process holds."""
    return InputError(f"session {session_id!r} {RUNNING_ELSEWHERE}")


def create_index_tables(conn: Any, real: str = "REAL") -> None:
    """The session index's tables, for both backends and for a repaired SQLite index; `real`: the
    column type of Unix times (PostgreSQL's REAL is single precision, too coarse for them)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, claim TEXT NOT NULL, "
        f"created {real} NOT NULL, updated {real} NOT NULL, status TEXT NOT NULL, error TEXT, "
        "options TEXT NOT NULL DEFAULT '{}')"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
        "body TEXT NOT NULL, PRIMARY KEY (session_id, seq))"
    )


class Rows:
    """What a backend's transaction yields: `execute(sql, args)` with SQLite's `?` placeholders,
    returning a cursor whose rows are tuples."""

    def __init__(self, run: Callable[[str, tuple[Any, ...]], Any]) -> None:
        self._run = run

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self._run(sql, args)


def no_release() -> None:
    """The release of a lease nobody else could take (an index in memory, a system without flock)."""


def once(fn: Release) -> Release:
    """`fn`, run on the first call only (a lease is released by whichever of its holders ends first)."""
    lock, done = threading.Lock(), [False]

    def call() -> None:
        with lock:
            if done[0]:
                return
            done[0] = True
        fn()

    return call
