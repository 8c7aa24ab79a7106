"""Qdrant clients, one per local path or server URL per process: Qdrant's local mode locks its
directory, so every store object on a path shares one client, closed with the last one.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient

from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.store.mirror import _CORPUS_NAMES, _MIRRORS

_CLIENTS: dict[str, list[Any]] = {}  # key -> [client, refcount]
_CLIENTS_LOCK = threading.Lock()


def _acquire_client(path: Path | None, url: str | None) -> tuple[str, QdrantClient]:
    if url:
        key = "url:" + url
    elif path is not None:
        key = "path:" + str(Path(path).expanduser().resolve())
    else:
        raise InputError("EvidenceStore needs a local path or a Qdrant server url.")
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(key)
        if entry is None:
            try:
                if url:
                    client = QdrantClient(url=url, timeout=60)
                    client.get_collections()
                else:
                    assert path is not None
                    Path(path).expanduser().mkdir(parents=True, exist_ok=True)
                    client = QdrantClient(path=str(Path(path).expanduser()))
            except RuntimeError as exc:
                raise InputError(
                    f"the Qdrant store at {path} is in use by another process ({exc}). Close the "
                    "other claimscope process, or run a Qdrant server and set store.url."
                ) from exc
            except Exception as exc:  # connection errors come in many types
                if url:
                    raise SourceUnavailableError(
                        f"cannot reach the Qdrant server at {url} ({exc}). Start it (e.g. "
                        "`docker run -p 6333:6333 qdrant/qdrant`) or unset store.url."
                    ) from exc
                raise
            entry = [client, 0]
            _CLIENTS[key] = entry
        entry[1] += 1
        return key, entry[0]


def _release_client(key: str) -> None:
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del _CLIENTS[key]
            for mkey in [m for m in _MIRRORS if m[0] == key]:
                del _MIRRORS[mkey]
            for ckey in [c for c in _CORPUS_NAMES if c[0] == key]:
                del _CORPUS_NAMES[ckey]
            entry[0].close()


@atexit.register
def _close_all_clients() -> None:
    """Close the shared clients before interpreter shutdown; closing them from QdrantClient.__del__
    at that point fails noisily ("sys.meta_path is None") and may leave local-mode locks behind."""
    with _CLIENTS_LOCK:
        entries = list(_CLIENTS.values())
        _CLIENTS.clear()
        _MIRRORS.clear()
        _CORPUS_NAMES.clear()
    for client, _ in entries:
        try:
            client.close()
        except Exception:  # best effort at exit
            pass


# The in-process mirror used for search in local mode.
