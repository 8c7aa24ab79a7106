"""Repairing a damaged SQLite sessions database (the checkpointer file and its session index):
keep a backup, copy every row that can still be read into a fresh file, and put the fresh file in
place. Damage is recognised and reported by `sqlite.database_guard`.
"""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import BaseModel, Field

from claimscope.agent.sessions.common import create_index_tables
from claimscope.agent.sessions.sqlite import checkpoint_schema, index_path_for
from claimscope.agent.sessions.url import mask_url
from claimscope.agent.settings import Settings
from claimscope.tools.errors import InputError

# Rowids tried after an unreadable stretch of a table: a damaged page hides a run of rows, and the
# rows after it are often still readable.
_SKIPS = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)


class TableRecovery(BaseModel):
    table: str
    recovered: int = 0
    unreadable: bool = Field(default=False, description="Some stretch of the table could not be read.")


class FileRepair(BaseModel):
    path: str
    backup: str | None = Field(default=None, description="Where the damaged file was kept; None if it was healthy.")
    healthy: bool = False
    tables: list[TableRecovery] = Field(default_factory=list)


def is_healthy(path: Path) -> bool:
    """True if SQLite's own integrity check passes (a missing file counts as healthy)."""
    if not path.exists():
        return True
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("PRAGMA integrity_check").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False
    return bool(row) and row[0] == "ok"


def _rows(src: sqlite3.Connection, table: str, columns: list[str], out: TableRecovery) -> Iterator[tuple]:
    """Every readable row of `table`, walking rowids and stepping over unreadable stretches."""
    cols = ", ".join(f'"{c}"' for c in columns)
    last = -(2**63)
    while True:
        try:
            for row in src.execute(f'SELECT rowid, {cols} FROM "{table}" WHERE rowid > ? ORDER BY rowid', (last,)):
                last = row[0]
                yield row[1:]
            return
        except sqlite3.DatabaseError:
            out.unreadable = True
            for skip in _SKIPS:
                try:
                    nxt = src.execute(f'SELECT rowid FROM "{table}" WHERE rowid > ? ORDER BY rowid LIMIT 1',
                                      (last + skip,)).fetchone()
                except sqlite3.DatabaseError:
                    continue
                if nxt is None:
                    return
                last = nxt[0] - 1
                break
            else:
                return


def _scratch_copy(backup: Path) -> Path:
    """A copy of the damaged file to read from. A truncated file still claims its old size in the
    header, which makes SQLite refuse every statement; the copy claims the pages it really has, so
    the pages before the cut can be read."""
    scratch = backup.with_name(backup.name + ".scratch")
    shutil.copy2(backup, scratch)
    log = backup.with_name(backup.name + "-wal")
    if log.exists():  # committed rows not yet folded into the file are read from the log
        shutil.copy2(log, scratch.with_name(scratch.name + "-wal"))
    size = scratch.stat().st_size
    if size < 100:
        return scratch
    with scratch.open("r+b") as fh:
        header = fh.read(100)
        if header[:16] != b"SQLite format 3\x00":
            return scratch
        page_size = struct.unpack(">H", header[16:18])[0]
        page_size = 65536 if page_size == 1 else page_size
        claimed = struct.unpack(">I", header[28:32])[0]
        if page_size and claimed > size // page_size:
            fh.seek(28)
            fh.write(struct.pack(">I", size // page_size))
    return scratch


def repair_file(path: Path, create_schema: Callable[[sqlite3.Connection], None]) -> FileRepair:
    """Back up a damaged SQLite file, copy its readable rows into a fresh one with `create_schema`'s
    tables, and put the fresh file in its place. A healthy or missing file is left alone."""
    result = FileRepair(path=str(path))
    if is_healthy(path):
        result.healthy = True
        return result
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    backup = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    shutil.copy2(path, backup)
    # The journal and write-ahead log may hold committed rows; -shm is only an index of the log.
    for suffix in ("-journal", "-wal"):
        side = path.with_name(path.name + suffix)
        if side.exists() and side.stat().st_size:
            shutil.copy2(side, backup.with_name(backup.name + suffix))
    result.backup = str(backup)
    fresh = path.with_name(f"{path.name}.repairing")
    fresh.unlink(missing_ok=True)
    dst = sqlite3.connect(str(fresh))
    try:
        create_schema(dst)
        tables = [r[0] for r in dst.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                            "AND name NOT LIKE 'sqlite_%'")]
        scratch = _scratch_copy(backup)
        src = sqlite3.connect(str(scratch))
        try:
            for table in tables:
                columns = [r[1] for r in dst.execute(f'PRAGMA table_info("{table}")')]
                rec = TableRecovery(table=table)
                marks = ", ".join("?" for _ in columns)
                insert = f'INSERT OR IGNORE INTO "{table}" ({", ".join(columns)}) VALUES ({marks})'
                try:
                    for row in _rows(src, table, columns, rec):
                        dst.execute(insert, row)
                        rec.recovered += 1
                except sqlite3.DatabaseError:  # not even the table's schema could be read
                    rec.unreadable = True
                result.tables.append(rec)
        finally:
            src.close()
            for suffix in ("", "-journal", "-wal", "-shm"):
                scratch.with_name(scratch.name + suffix).unlink(missing_ok=True)
        dst.commit()
    finally:
        dst.close()
    for suffix in ("-journal", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    fresh.replace(path)
    return result


def refuse_postgres(settings: Settings) -> None:
    """Repair works on the SQLite files; sessions kept in PostgreSQL are the server's to recover."""
    if settings.sessions.url:
        raise InputError(
            f"`claimscope sessions repair` repairs the SQLite session files only; these sessions are in "
            f"PostgreSQL ({mask_url(settings.sessions.url)}, sessions.url), whose own tools recover them "
            "(pg_dump / pg_restore, or the provider's point-in-time recovery)."
        )


def repair_sessions(checkpoint_path: Path) -> list[FileRepair]:
    """Repair the checkpointer file and the session index beside it."""
    return [repair_file(checkpoint_path, checkpoint_schema),
            repair_file(index_path_for(checkpoint_path), create_index_tables)]
