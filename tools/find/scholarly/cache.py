"""The on-disk cache of successful API responses, keyed by request (API keys excluded), with a TTL."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class ResponseCache:
    """Successful API responses as JSON files under `root`, reused for `days` days.

    Keys hash the source, method, URL, sorted query parameters and body; API keys are never part
    of a key or a file. Files are written atomically so concurrent runs can share a cache.
    """

    def __init__(self, root: Path | None, days: int) -> None:
        self.root = Path(root).expanduser() if root is not None else None
        self.days = days

    @property
    def enabled(self) -> bool:
        return self.root is not None and self.days > 0

    @staticmethod
    def key(source: str, method: str, url: str, params: Sequence[tuple[str, Any]], payload: Any = None) -> str:
        clean = sorted((k, v) for k, v in params if k.lower() not in ("api_key", "x-api-key"))
        blob = json.dumps([source, method.upper(), url, clean, payload], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The cached body, or None when absent, expired or unreadable."""
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            saved = float(entry["saved_at"])
            body = entry["body"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if time.time() - saved > self.days * 86400:
            return None
        return body

    def put(self, key: str, body: Any, request: str = "") -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"saved_at": time.time(), "request": request, "body": body}), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            # A cache that cannot be written only costs a repeated request later.
            pass
