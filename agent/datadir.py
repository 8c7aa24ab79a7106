"""Where claimscope stores things, checked before use: the data directory must exist and be
writable, the evidence store must be readable, and a full disk is named as such; otherwise one line
says which folder and what to do."""

from __future__ import annotations

import errno
import pickle
import sqlite3
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from claimscope.agent.settings import Settings
from claimscope.tools.errors import InputError

if TYPE_CHECKING:
    from claimscope.agent.services import Services
    from claimscope.tools.find.store import EvidenceStore


def ensure_data_dir(settings: Settings) -> Path:
    """Create the data directory if needed and check it can be written; InputError if not."""
    path = settings.data_dir.expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(
            f"the data directory {path} cannot be used ({reason}): set CLAIMSCOPE_DATA_DIR (or data_dir "
            "in config.yaml) to a folder you can write."
        ) from exc
    return path


def open_store(services: Services) -> EvidenceStore:
    """The services' evidence store, opened now; a damaged store directory is one InputError
    naming it and the way out, not whatever the storage library raised."""
    settings = services.settings
    where = settings.store.url or str(settings.data_dir.expanduser() / settings.store.path)
    try:
        return services.store
    except (ValueError, EOFError, pickle.UnpicklingError, sqlite3.DatabaseError) as exc:
        raise InputError(
            f"the evidence store at {where} cannot be read ({type(exc).__name__}: {exc}); it looks damaged "
            f"(a full disk or an interrupted write). Move it aside (e.g. `mv {where} {where}.damaged`) and "
            "ingest your corpora again with `claimscope ingest PATH --corpus NAME`; sessions are kept apart."
        ) from exc


def disk_full(exc: BaseException) -> bool:
    """True for the errors a full disk (or quota) raises through the OS or SQLite."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower()
