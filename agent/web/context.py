"""What every web route shares: the server's settings, the run manager, the templates and the
locks (`WebContext`), and `blocking` (a route's store, model and file work off the event loop); kept
apart from the app's assembly so that the route modules and the app that mounts them import it
rather than each other."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import BaseModel, Field

from claimscope.agent.runs import RunManager
from claimscope.agent.web.messages import plain, run_error
from claimscope.agent.web.security import new_csrf_token

HERE = Path(__file__).resolve().parent
MB = 1_000_000


class WebConfig(BaseModel):
    """Choices of one web server."""

    token: str | None = Field(None, description="Access token every request must carry (required off loopback).")
    max_upload_bytes: int = Field(20 * MB, ge=1_000, description="Largest corpus file accepted for upload.")
    sse_keepalive_s: float = Field(15.0, gt=0, description="Seconds between keep-alive comments on a quiet stream.")


class IngestJob(BaseModel):
    """An uploaded file being added to a corpus, for the corpora page's progress bar."""

    id: str
    corpus: str
    file: str
    total: int
    done: int = 0
    finished: bool = False
    added: int = 0
    segments: int = 0
    duplicates: int = 0
    problems: list[dict[str, str]] = Field(default_factory=list)
    error: str | None = None


class WebContext:
    """What every route shares: the run manager, templates, the CSRF token, and one lock per chat."""

    def __init__(self, manager: RunManager, config: WebConfig) -> None:
        self.manager = manager
        self.config = config
        self.csrf = new_csrf_token()
        # autoescape everything: every text from corpora, models and people is escaped on output.
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"),
                               autoescape=select_autoescape(default=True, default_for_string=True))
        self.env.globals["csrf"] = self.csrf
        self.env.filters["when"] = _when
        self.env.filters["plain"] = plain
        self.env.filters["run_error"] = run_error
        self._chat_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self.ingest_lock = threading.Lock()
        self.jobs: dict[str, IngestJob] = {}
        # Sessions asked to stop that were still running then (the page says "cancelling…").
        self.cancelling: set[str] = set()

    def chat_lock(self, session_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._chat_locks.setdefault(session_id, threading.Lock())

    def render(self, name: str, **values: Any) -> str:
        return self.env.get_template(name).render(**values)


T = TypeVar("T")


async def blocking(fn: Callable[[], T]) -> T:
    """Run `fn` (store, model or file work) in a worker thread, off the event loop."""
    return await anyio.to_thread.run_sync(fn)


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
