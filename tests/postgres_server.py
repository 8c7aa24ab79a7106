"""A throwaway PostgreSQL server for the tests and the benchmarks: a fresh cluster in a temporary
directory, on a free loopback port, trusted (no password checked), fsync off, gone when stopped.

It needs PostgreSQL's server programs (initdb, pg_ctl, postgres): $CLAIMSCOPE_PG_BIN, else the
newest /usr/lib/postgresql/*/bin, else those on PATH. PostgreSQL refuses to run as root, so as root
the server runs as the `postgres` system user (or `nobody`). `start_postgres` raises
PostgresUnavailable with the reason when none can start; the tests skip with it.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

SUPERUSER = "claimscope"
# A password in every URL handed out, so the code under test must mask it; trust auth ignores it.
PASSWORD = "s3cret-pw"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why."""


def _bin_dir() -> Path:
    env = os.environ.get("CLAIMSCOPE_PG_BIN")
    candidates = [Path(env)] if env else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                         key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for c in candidates:
        if all((c / exe).is_file() for exe in ("initdb", "pg_ctl", "postgres")):
            return c
    raise PostgresUnavailable("PostgreSQL server programs (initdb, pg_ctl, postgres) not found; install "
                              "postgresql or set CLAIMSCOPE_PG_BIN to their directory")


def _run_as() -> dict[str, Any]:
    """subprocess arguments that drop root to an unprivileged user (none when not root)."""
    if os.geteuid() != 0:
        return {}
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    raise PostgresUnavailable("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.as_user = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="claimscope-pg-"))
        if self.as_user:
            os.chown(self.root, self.as_user["user"], self.as_user["group"])
        self.data = self.root / "data"
        self.port = _free_port()
        self.running = False

    def _pg(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.bin / args[0]), *args[1:]], capture_output=True, text=True,
                              timeout=timeout, cwd=self.root, **self.as_user)

    def start(self) -> PostgresServer:
        try:
            init = self._pg("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                            "--no-sync", "--no-instructions")
        except (OSError, subprocess.SubprocessError) as exc:
            self.remove()
            raise PostgresUnavailable(f"initdb cannot run: {exc}") from exc
        if init.returncode != 0:
            self.remove()
            raise PostgresUnavailable(f"initdb failed: {' '.join((init.stderr or init.stdout).split())[-300:]}")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        start = self._pg("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w",
                         "-t", "60", "start")
        if start.returncode != 0:
            log = (self.root / "log").read_text(errors="replace") if (self.root / "log").exists() else ""
            self.remove()
            raise PostgresUnavailable(f"PostgreSQL did not start: {' '.join((log or start.stderr).split())[-300:]}")
        self.running = True
        atexit.register(self.stop)
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.running:
            self.running = False
            self._pg("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        self.remove()

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def start_postgres() -> PostgresServer:
    """A started throwaway server (stop() it); PostgresUnavailable says why there is none."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise PostgresUnavailable("psycopg is not installed (pip install -e '.[postgres]')") from None
    deadline = time.monotonic() + 5
    while True:
        server = PostgresServer()
        try:
            return server.start()
        except PostgresUnavailable as exc:
            # Another program may take the free port between choosing it and binding it: try another.
            if "could not bind" not in str(exc) or time.monotonic() > deadline:
                raise
