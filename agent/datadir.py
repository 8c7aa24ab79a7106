"""The data directory must exist and be writable before anything is stored in it; otherwise one
line says which folder and how to choose another."""

from __future__ import annotations

import tempfile
from pathlib import Path

from claimscope.agent.settings import Settings
from claimscope.tools.errors import InputError


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
