"""Sessions in PostgreSQL (settings `sessions.url`): the connection pool that the checkpointer and
the session index share, schema setup that several processes may start at once, the checkpointer,
the index, leases as advisory locks, and the one-line errors for a bad URL, an unreachable server
or a missing extra. Without `sessions.url` nothing here is used and sessions stay in the SQLite
files under data_dir (`sqlite.py`).

Passwords never leave this module in a message: every URL shown goes through `mask_url`.
"""

from __future__ import annotations

import hashlib
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from claimscope.agent.sessions.common import Release, Rows, create_index_tables
from claimscope.agent.sessions.url import mask_url, url_problem
from claimscope.agent.settings import ConfigError
from claimscope.tools.errors import InputError

# The advisory lock every process takes while it creates or migrates the sessions schema.
SETUP_LOCK = zlib.crc32(b"claimscope.sessions.setup")
# Connections per process for the checkpointer and the index; the checkpointer serialises its own
# statements, index statements are short, so a few are plenty. A running session holds one more
# connection of its own (its lease, see `PostgresIndex.lease`).
POOL_SIZE = 8
CONNECT_TIMEOUT_S = 10
_FIX = "start the server or fix sessions.url (CLAIMSCOPE_SESSIONS__URL)"


class SessionsUnavailableError(InputError):
    """The sessions database cannot be reached or used; the message names it (password masked)."""


def check_url(url: str) -> str:
    """A `sessions.url` as written in the settings; refuses what cannot be a PostgreSQL URL."""
    problem = url_problem(url)
    if problem is not None:
        raise ConfigError(f"sessions.url {problem}")
    return url.strip()


def _scrub(message: str, url: str) -> str:
    """A driver message on one line, without the URL's password should the driver echo it."""
    text = " ".join(str(message).split())
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    return text.replace(password, "***") if password else text


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
        from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401
    except ImportError:
        raise ConfigError(
            "sessions.url names a PostgreSQL database, but PostgreSQL support is not installed: "
            "pip install 'claimscope[postgres]' (or unset sessions.url to keep sessions in SQLite)."
        ) from None
    return psycopg


def connect(url: str, **kwargs: Any) -> Any:
    """One autocommit connection to the sessions database, or a one-line SessionsUnavailableError."""
    psycopg = _psycopg()
    from psycopg.rows import dict_row

    try:
        return psycopg.connect(check_url(url), autocommit=True, prepare_threshold=0, row_factory=dict_row,
                               connect_timeout=CONNECT_TIMEOUT_S, **kwargs)
    except psycopg.Error as exc:
        raise SessionsUnavailableError(
            f"cannot open the sessions database {mask_url(url)} ({_scrub(str(exc), url)}); {_FIX}."
        ) from None


@contextmanager
def setup_lock(conn: Any, key: int = SETUP_LOCK) -> Iterator[None]:
    """Hold the schema-setup advisory lock on `conn` (an autocommit connection).

    Taken by polling pg_try_advisory_lock, never by a blocking pg_advisory_lock: a blocked
    statement keeps a snapshot open, and CREATE INDEX CONCURRENTLY in the process holding the lock
    waits for every older snapshot to end, so two processes would wait on each other."""
    delay = 0.01
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (key,)).fetchone()["ok"]:
        time.sleep(delay)
        delay = min(0.25, delay * 2)
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


def setup_schema(url: str, *steps: Callable[[Any], None]) -> None:
    """Run each schema step (a callable given an autocommit connection) under the setup lock."""
    psycopg = _psycopg()
    conn = connect(url)
    try:
        with setup_lock(conn):
            for step in steps:
                step(conn)
    except psycopg.Error as exc:
        raise SessionsUnavailableError(
            f"cannot set up the sessions tables in {mask_url(url)} ({_scrub(str(exc), url)}); check "
            "that the user may create tables in that database."
        ) from None
    finally:
        conn.close()


_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()


def pool(url: str) -> Any:
    """The process's connection pool for `url` (shared by the checkpointer and the session index)."""
    _psycopg()
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    with _POOLS_LOCK:
        found = _POOLS.get(url)
        if found is None or found.closed:
            found = ConnectionPool(
                url, min_size=1, max_size=POOL_SIZE, open=True, name="claimscope-sessions",
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                        "connect_timeout": CONNECT_TIMEOUT_S},
            )
            _POOLS[url] = found
        return found


def close_pools() -> None:
    """Close every pool this process opened (tests; a server lets them go at exit)."""
    with _POOLS_LOCK:
        for p in _POOLS.values():
            p.close()
        _POOLS.clear()


def checkpointer_setup(conn: Any) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver

    PostgresSaver(conn).setup()


def postgres_checkpointer(url: str) -> Any:
    """LangGraph's PostgresSaver on the shared pool, its tables created (once, under the setup lock)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    setup_schema(url, checkpointer_setup)
    return PostgresSaver(pool(url))


def is_unavailable(exc: BaseException) -> bool:
    """True for a driver error meaning the database went away (server down, connection lost)."""
    try:
        import psycopg
        from psycopg_pool import PoolTimeout
    except ImportError:
        return False
    return isinstance(exc, psycopg.OperationalError | PoolTimeout)


def unavailable(url: str, exc: BaseException, doing: str) -> SessionsUnavailableError:
    return SessionsUnavailableError(
        f"lost the sessions database {mask_url(url)} while {doing} ({_scrub(str(exc), url)}); {_FIX}."
    )


def lease_key(session_id: str) -> int:
    """The advisory-lock key (a signed 64-bit integer) a session's lease is held under."""
    return int.from_bytes(hashlib.blake2b(session_id.encode(), digest_size=8).digest(), "big", signed=True)


class PostgresIndex:
    """The index in the PostgreSQL database of the checkpointer, shared by every process using it.

    A process running a session holds a PostgreSQL advisory lock keyed by the session id on a
    connection of its own (its lease): the others then see the session as running and refuse to
    run it too, and the lock goes away with the connection if the process dies."""

    shared = True

    def __init__(self, url: str) -> None:
        self.url = url
        setup_schema(url, lambda conn: create_index_tables(conn, real="DOUBLE PRECISION"))
        self._pool = pool(url)

    @contextmanager
    def transaction(self) -> Iterator[Rows]:
        from psycopg.rows import tuple_row

        try:
            with self._pool.connection() as conn, conn.transaction():
                cur = conn.cursor(row_factory=tuple_row)
                yield Rows(lambda sql, args: cur.execute(sql.replace("?", "%s"), args))
        except Exception as exc:
            if is_unavailable(exc):
                raise unavailable(self.url, exc, "using the session index") from None
            raise

    def lease(self, session_id: str) -> Release | None:
        key = lease_key(session_id)
        conn = connect(self.url)
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
        key = lease_key(session_id)
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
