"""The checkpointer an investigator runs with, chosen by the settings (SQLite file, PostgreSQL
database, or memory), what it holds, and the one-line error a failure of its database becomes."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from claimscope.agent.datadir import disk_full
from claimscope.agent.sessions import postgres
from claimscope.agent.sessions.sqlite import SessionsDatabaseError, sqlite_checkpointer
from claimscope.agent.settings import Settings


class Checkpoints:
    """A checkpointer (`saver`) and the database it keeps sessions in: the SQLite file (`path`) or
    the PostgreSQL URL (`url`) named in its errors; neither for one injected by a caller."""

    def __init__(self, saver: BaseCheckpointSaver, *, path: Path | None = None, url: str | None = None) -> None:
        self.saver, self.path, self.url = saver, path, url

    @classmethod
    def open(cls, settings: Settings, *, persistent: bool = True) -> Checkpoints:
        """The sessions database the settings name (PostgreSQL with `sessions.url`, else the SQLite
        file `sessions.path`), or memory when not `persistent`."""
        if not persistent:
            return cls(InMemorySaver())
        if settings.sessions.url:
            return cls(postgres.postgres_checkpointer(settings.sessions.url), url=settings.sessions.url)
        path = settings.resolve(settings.sessions.path)
        return cls(sqlite_checkpointer(path), path=path)

    @contextmanager
    def guard(self, doing: str) -> Iterator[None]:
        """Turn a failure of the sessions database inside the block (SQLite damage, a PostgreSQL
        server gone) into one line naming the database; `doing` says what was under way. A full
        disk is left to the caller, who knows what was lost."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if self.path is None or disk_full(exc):
                raise
            raise SessionsDatabaseError(self.path, exc) from exc
        except Exception as exc:
            if self.url is None or not postgres.is_unavailable(exc):
                raise
            raise postgres.unavailable(self.url, exc, doing) from None


def in_memory(checkpointer: BaseCheckpointSaver) -> bool:
    """The checkpointer keeps sessions in this process only (tests, an investigator not persistent)."""
    return isinstance(checkpointer, InMemorySaver)


def checkpoint_threads(checkpointer: Any) -> list[str]:
    """Thread ids the checkpointer holds (SQL for SQLite and PostgreSQL, else its own listing)."""
    conn = getattr(checkpointer, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        lock = getattr(checkpointer, "lock", None)
        with lock if lock is not None else nullcontext():
            rows = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
        return [r[0] for r in rows]
    if type(checkpointer).__module__.startswith("langgraph.checkpoint.postgres"):
        with checkpointer.conn.connection() as pg:
            return [r["thread_id"] for r in pg.execute("SELECT DISTINCT thread_id FROM checkpoints ORDER BY 1")]
    storage = getattr(checkpointer, "storage", None)
    if isinstance(storage, dict):
        return list(storage)
    return sorted({c.config["configurable"]["thread_id"] for c in checkpointer.list(None)})


def checkpoint_time(checkpointer: BaseCheckpointSaver, thread_id: str, *, first: bool = False) -> float | None:
    """Unix time of the thread's latest (or first) checkpoint (for sessions not in the index)."""
    config = RunnableConfig(configurable={"thread_id": thread_id})
    stamp = None
    for item in checkpointer.list(config, limit=None if first else 1):
        stamp = item.checkpoint.get("ts")
    if not stamp:
        return None
    try:
        return dt.datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None
