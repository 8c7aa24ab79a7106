"""Sessions in SQLite files under data_dir (the default): the checkpointer file, the session index
in a file of its own beside it, leases as flocks on files in a folder beside the index, and
damage reported as one line naming the file and `claimscope sessions repair`.

SQLite reports damage as `sqlite3.DatabaseError` ("database disk image is malformed", "file is not
a database") at whatever statement first touches a bad page, so every place that opens or reads
the files runs inside `database_guard`.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from claimscope.agent.sessions.common import (
    SESSION_ID_CHARS,
    Release,
    Rows,
    create_index_tables,
    no_release,
    once,
)
from claimscope.tools.errors import InputError

try:
    import fcntl
except ImportError:  # Windows: no flock; a SQLite session is then not leased
    fcntl = None  # type: ignore[assignment]

# How long taking a session's lease retries while it is busy: another process only looking
# whether the session runs holds the lock for a moment, a process running it for the whole run.
LEASE_RETRY_S = 0.5


class SessionsDatabaseError(InputError):
    """The sessions database cannot be read; the message names the file and the way out."""

    def __init__(self, path: Path, exc: BaseException) -> None:
        self.path = path
        super().__init__(
            f"the sessions database {path} is damaged ({exc}). Run `claimscope sessions repair` "
            "(it keeps a backup, recovers what is readable and starts a fresh file); meanwhile "
            "`claimscope investigate` without --session still works."
        )


@contextmanager
def database_guard(path: Path) -> Iterator[None]:
    """Turn SQLite damage reported inside the block into a SessionsDatabaseError naming `path`."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise
        raise SessionsDatabaseError(path, exc) from exc


def sqlite_checkpointer(path: Path) -> BaseCheckpointSaver:
    """A SQLite checkpointer usable from the thread that runs the graph."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with database_guard(path):
        conn = sqlite3.connect(str(path), check_same_thread=False)
        saver = SqliteSaver(conn)
        saver.setup()
        # setup() only reads the schema: touch the data too, so damage is reported here, in one line.
        conn.execute("SELECT count(*) FROM checkpoints").fetchone()
    return saver


def checkpoint_schema(conn: sqlite3.Connection) -> None:
    """The checkpointer's tables, created by LangGraph's own saver so they always match it."""
    SqliteSaver(conn).setup()


def index_path_for(checkpoint_path: Path) -> Path:
    """The session index file that sits beside a checkpointer file."""
    return checkpoint_path.with_name(checkpoint_path.stem + ".index.sqlite")


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

    def lease(self, session_id: str) -> Release | None:
        """Take the session's lease: its release, or None while another holder has it."""
        if fcntl is None:
            return no_release
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

        return once(release)

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


class SqliteIndex:
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
        with database_guard(path or Path(":memory:")):
            self._conn = sqlite3.connect(target, check_same_thread=False, timeout=30)
            with self._lock, self._conn:
                create_index_tables(self._conn)

    @contextmanager
    def transaction(self) -> Iterator[Rows]:
        with self._lock, self._conn:
            yield Rows(self._conn.execute)

    def lease(self, session_id: str) -> Release | None:
        return self._leases.lease(session_id) if self._leases is not None else no_release

    def running_elsewhere(self, session_id: str) -> bool:
        return self._leases is not None and self._leases.held(session_id)

    def forget(self, session_id: str) -> None:
        if self._leases is not None:
            self._leases.forget(session_id)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
