"""Background investigations keyed by session id, for front ends that must not block on a run
(the MCP server, the web app, the chat).

A run executes in a worker thread of the `RunManager`; its progress events are kept in order per
session (numbered from 1) so a client can poll `events(session_id, since=n)` or block on
`wait_events`. The run belongs to the manager, not to whoever started it: a client that disconnects
loses nothing, and the graph's checkpointer keeps every finished step so a run interrupted by the
process dying is continued with `resume`. Where sessions are kept (checkpointer, session index,
leases) is `agent/sessions/`'s.

Cancellation is cooperative: the flag is checked at every progress event, so a run stops at the next
event (at the latest when the step in flight finishes); finished steps stay checkpointed.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.review import parse_decision
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import (
    Investigator,
    RunResult,
    accept_claim,
    check_corpora,
    default_options,
    translation_wanted,
)
from claimscope.agent.sessions.checkpoint import checkpoint_threads, checkpoint_time
from claimscope.agent.sessions.common import (
    Release,
    RunEvent,
    check_session_id,
    no_release,
    once,
    running_elsewhere_error,
)
from claimscope.agent.sessions.index import SessionIndex, session_lease
from claimscope.tools.errors import ClaimscopeError, InputError

# RunEvent and SessionIndex are what the manager hands out; front ends import them from here.
__all__ = ["FINAL_STATUSES", "RunCancelledError", "RunEvent", "RunManager", "SessionIndex", "SessionInfo"]

SessionStatus = Literal[
    "queued", "running", "paused", "complete", "no_evidence", "budget_exhausted", "failed",
    "cancelled", "interrupted",
]
# Statuses after which nothing happens until someone acts (answer, resume, or nothing at all).
FINAL_STATUSES: frozenset[str] = frozenset({"complete", "no_evidence", "budget_exhausted", "failed"})
# How often a session run by another process sharing the index is looked at again (seconds).
ELSEWHERE_POLL_S = 0.5


class RunCancelledError(ClaimscopeError):
    """Raised inside a run's event handler to stop it; the manager records the session as cancelled."""


class SessionInfo(BaseModel):
    """What a front end shows about a session."""

    session_id: str
    claim: str = ""
    status: SessionStatus | str
    active: bool = Field(False, description="A worker is running (or about to run) it: of this process, or "
                         "of another process using the same sessions (it holds the session's lease).")
    created: float | None = None
    updated: float | None = None
    finished_steps: list[str] = Field(default_factory=list)
    current_step: str | None = None
    events: int = Field(0, description="Events recorded so far; pass as `since` to get only newer ones.")
    pending: dict[str, Any] | None = Field(None, description="The review a guided session waits for.")
    error: str | None = None
    has_report: bool = False


class _Live:
    """In-process bookkeeping of one session."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.events: list[RunEvent] = []
        self.cancel = threading.Event()
        self.future: Future[None] | None = None
        self.status: str = "queued"
        self.error: str | None = None
        self.current_step: str | None = None



class RunManager:
    """Runs investigations in worker threads and keeps their progress, one session id each.

    `investigator` is shared by every run (its graph and checkpointer are thread-safe; the
    services are the same store / models for all sessions). `max_workers` bounds how many runs
    execute at once; further ones wait as "queued".
    """

    def __init__(
        self,
        investigator: Investigator | None = None,
        *,
        max_workers: int = 2,
        index_path: Path | None | Literal["auto"] = "auto",
    ) -> None:
        self.investigator = investigator or Investigator()
        if index_path == "auto":
            self.index = SessionIndex.beside(self.investigator.checkpointer, self.investigator.services.settings)
        else:
            self.index = SessionIndex(index_path)
        # Whether another process runs a session, by id: (monotonic time asked, answer). Asked at
        # most every ELSEWHERE_POLL_S per session, since progress streams ask on every poll.
        self._elsewhere: dict[str, tuple[float, bool]] = {}
        # Events of sessions run by another process: (monotonic time read, events so far).
        self._remote: dict[str, tuple[float, list[RunEvent]]] = {}
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="claimscope-run")
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._closed = False

    # ----------------------------------------------------------------------------------- starting

    def start(
        self,
        claim: str,
        options: InvestigationOptions | None = None,
        *,
        session_id: str | None = None,
    ) -> str:
        """Start an investigation in the background and return its session id at once."""
        # Everything that can refuse the run does so here, before a session is recorded; the worker's
        # run() is given the accepted claim (a translation included) and checks nothing again.
        accepted = accept_claim(claim, self.investigator.services, translate=translation_wanted())
        sid = check_session_id(session_id) if session_id else uuid.uuid4().hex[:12]
        if self._known(sid):
            raise InputError(f"session {sid!r} already exists; resume it or choose another id.")
        opts = options or self._default_options()
        check_corpora(self.investigator.services, list(opts.corpora), opts.sources)
        if not self.index.create(sid, claim=accepted.text, options=opts.model_dump(mode="json")):
            # Another process sharing the index took the id between the check above and now.
            raise InputError(f"session {sid!r} already exists; resume it or choose another id.")
        self._submit(sid, lambda on_event: self.investigator.run(accepted, opts, thread_id=sid, on_event=on_event))
        return sid

    def answer(self, session_id: str, decision: Any) -> None:
        """Give a paused guided session its review decision and continue it in the background.

        The decision is validated here, so a bad one is refused before anything runs."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        waiting = self.investigator.pending(sid)
        if waiting is None:
            info = self.status(sid)
            raise InputError(f"session {sid!r} is not waiting for a review decision (status {info.status}).")
        parse_decision(waiting["point"], decision, waiting.get("summary"))
        if decision in ({}, None, True, ""):
            # LangGraph reads a dict resume value as {interrupt id: value}: an empty one resumes nothing.
            decision = "accept"
        self._submit(sid, lambda on_event: self.investigator.answer(sid, decision, on_event=on_event))

    def resume(self, session_id: str) -> bool:
        """Continue a session that stopped before its end (process died, cancelled).

        Returns False when there is nothing to run (finished, or paused for a review)."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        state = self.investigator.state(sid)
        if not state:
            raise InputError(f"session {sid!r} never started a step; start it again with its claim.")
        if state.get("report") or self.investigator.pending(sid) is not None:
            return False
        self._submit(sid, lambda on_event: self.investigator.resume(sid, on_event=on_event))
        return True

    def cancel(self, session_id: str) -> bool:
        """Ask a running or queued session to stop; True if it was active."""
        sid = self._existing(session_id)
        with self._lock:
            live = self._live.get(sid)
            if live is None or live.future is None or live.future.done():
                return False
            live.cancel.set()
            if live.future.cancel():  # still queued: it never starts
                self._set_status(live, "cancelled")
            return True

    # ----------------------------------------------------------------------------------- reading

    def status(self, session_id: str) -> SessionInfo:
        sid = self._existing(session_id)
        row = self.index.get(sid) or {}
        with self._lock:
            live = self._live.get(sid)
            active = bool(live and live.future and not live.future.done())
            live_status = live.status if live else None
            live_error = live.error if live else None
            current = live.current_step if live and active else None
            n_events = len(live.events) if live else None
        elsewhere = not active and self._running_elsewhere(sid, fresh=True)
        state = self.investigator.state(sid)
        pending = None if active or elsewhere else self.investigator.pending(sid)
        if active:
            status = live_status or "running"
        elif elsewhere:
            status = row["status"] if row.get("status") in ("queued", "running") else "running"
        elif live_status in ("failed", "cancelled"):
            status = live_status
        elif pending is not None:
            status = "paused"
        elif state.get("status") in FINAL_STATUSES and state.get("report"):
            status = state["status"]
        elif state:
            # Started earlier (or by another process) and not finished: resumable.
            status = row["status"] if row.get("status") in ("cancelled", "failed") else "interrupted"
        else:
            status = row.get("status") or "queued"
            if status in ("queued", "running"):
                status = "interrupted"
        if n_events is None:
            n_events = len(self.index.events(sid))
        if not row and state:
            row = {"created": checkpoint_time(self.investigator.checkpointer, sid, first=True),
                   "updated": checkpoint_time(self.investigator.checkpointer, sid)}
        return SessionInfo(
            session_id=sid, claim=state.get("claim") or row.get("claim", ""), status=status,
            active=active or elsewhere,
            created=row.get("created"), updated=row.get("updated"),
            finished_steps=list(state.get("done", [])), current_step=current, events=n_events,
            pending=pending, error=live_error or row.get("error"), has_report=bool(state.get("report")),
        )

    def events(self, session_id: str, since: int = 0) -> list[RunEvent]:
        """The session's events after number `since`, in order."""
        sid = check_session_id(session_id)
        if self._running_elsewhere(sid):
            # Progress streams poll this many times a second: read the database at most every
            # ELSEWHERE_POLL_S, and only the events not read yet.
            return [e for e in self._remote_events(sid) if e.seq > since]
        sid = self._existing(sid)
        with self._lock:
            self._remote.pop(sid, None)
            live = self._live.get(sid)
            if live is not None:
                return [e for e in live.events if e.seq > since]
        return self.index.events(sid, since)

    def _remote_events(self, sid: str) -> list[RunEvent]:
        now = time.monotonic()
        with self._lock:
            read_at, known = self._remote.get(sid, (0.0, []))
        if now - read_at >= ELSEWHERE_POLL_S:
            known = known + self.index.events(sid, known[-1].seq if known else 0)
            with self._lock:
                self._remote[sid] = (now, known)
        return known

    def wait_events(self, session_id: str, since: int = 0, timeout: float | None = None) -> list[RunEvent]:
        """Block until there are events after `since` or the session is no longer active (or the
        timeout passes); returns the new events (possibly none)."""
        sid = self._existing(session_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                live = self._live.get(sid)
                if live is None:
                    break
                new = [e for e in live.events if e.seq > since]
                if new or live.future is None or live.future.done():
                    return new
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return []
                self._changed.wait(timeout=remaining if remaining is not None else 1.0)
        new = self.index.events(sid, since)
        # Run by another process sharing the index: its events arrive through the index only.
        while not new and self._running_elsewhere(sid):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            time.sleep(ELSEWHERE_POLL_S if remaining is None else min(ELSEWHERE_POLL_S, remaining))
            new = self.index.events(sid, since)
        return new

    async def await_events(self, session_id: str, since: int = 0, timeout: float = 30.0) -> list[RunEvent]:
        """`wait_events` for async callers; polls in short slices so a cancelled caller (a client
        that went away) stops waiting promptly while the run itself goes on."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            chunk = max(0.0, min(0.25, remaining))
            new = await asyncio.to_thread(self.wait_events, session_id, since, chunk)
            if new or not self.is_active(session_id) or remaining <= 0:
                return new

    def wait(self, session_id: str, timeout: float | None = None) -> SessionInfo:
        """Block until the session's worker finishes (or the timeout passes)."""
        sid = self._existing(session_id)
        with self._lock:
            live = self._live.get(sid)
            future = live.future if live else None
        if future is not None:
            try:
                future.result(timeout=timeout)
            except TimeoutError:
                pass
            except Exception:  # the worker records its own failure
                pass
        return self.status(sid)

    def is_active(self, session_id: str) -> bool:
        """A worker of this process, or of another sharing the sessions database, runs the session."""
        with self._lock:
            live = self._live.get(session_id)
            if live and live.future and not live.future.done():
                return True
        return self._running_elsewhere(session_id)

    def _running_elsewhere(self, sid: str, *, fresh: bool = False) -> bool:
        if not self.index.shared:
            return False
        now = time.monotonic()
        with self._lock:
            asked = self._elsewhere.get(sid)
            live = self._live.get(sid)
            if live and live.future and not live.future.done():
                return False  # the lease seen in the database is this process's own
        if asked is None or fresh or now - asked[0] >= ELSEWHERE_POLL_S:
            asked = (now, self.index.running_elsewhere(sid))
            with self._lock:
                self._elsewhere[sid] = asked
        return asked[1]

    def result(self, session_id: str) -> RunResult:
        return self.investigator.result(self._existing(session_id))

    def verdict_label(self, info: SessionInfo) -> str:
        """The weighted verdict label of a session's report ("" before there is one)."""
        if not info.has_report:
            return ""
        report = self.result(info.session_id).report or {}
        return str(((report.get("verdict") or {}).get("weighted") or {}).get("label") or "")

    def list(self) -> list[SessionInfo]:
        """Every session: those of the index and any other thread of the checkpointer (e.g. started
        by `claimscope investigate`), oldest first."""
        ids = [r["id"] for r in self.index.all()]
        ids += sorted(set(checkpoint_threads(self.investigator.checkpointer)) - set(ids))
        return [self.status(i) for i in ids]

    @contextmanager
    def hold(self, session_id: str) -> Iterator[str]:
        """Run the session in the calling thread (the command line) rather than a worker: refused
        while it is active here or elsewhere, and leased meanwhile; yields its checked id."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        with session_lease(self.index, sid):
            yield sid

    def delete(self, session_id: str) -> None:
        """Forget a session: its checkpoints, index row and events."""
        sid = self._existing(session_id)
        self._refuse_if_active(sid)
        self.investigator.checkpointer.delete_thread(sid)
        self.index.delete(sid)
        with self._lock:
            self._live.pop(sid, None)

    def shutdown(self, *, cancel: bool = True, wait: bool = True) -> None:
        """Stop accepting work; with `cancel`, ask running sessions to stop at their next event."""
        with self._lock:
            self._closed = True
            if cancel:
                for live in self._live.values():
                    live.cancel.set()
        self._pool.shutdown(wait=wait, cancel_futures=cancel)

    # ----------------------------------------------------------------------------------- internals

    def _default_options(self) -> InvestigationOptions:
        return default_options(self.investigator.services.settings)

    def _known(self, sid: str) -> bool:
        with self._lock:
            live = self._live.get(sid)
            if live is not None and (not self.index.shared or (live.future and not live.future.done())):
                return True
        if self.index.get(sid) is not None or bool(self.investigator.state(sid)):
            return True
        if live is not None:
            # Finished here, then deleted by another process sharing the index.
            with self._lock:
                self._live.pop(sid, None)
        return False

    def _existing(self, session_id: str) -> str:
        sid = check_session_id(session_id)
        if not self._known(sid):
            raise InputError(f"unknown session {sid!r}; `claimscope sessions list` (or the MCP tool "
                             "start_investigation) gives valid ids.")
        return sid

    def _refuse_if_active(self, sid: str) -> None:
        if self._running_elsewhere(sid, fresh=True):
            raise running_elsewhere_error(sid)
        if self.is_active(sid):
            raise InputError(f"session {sid!r} is running; wait for it (get_status) or cancel it first.")

    def _set_status(self, live: _Live, status: str, error: str | None = None) -> None:
        # Called with self._lock held.
        live.status = status
        live.error = error
        self._changed.notify_all()
        self.index.upsert(live.session_id, status=status, error=error)

    def _submit(self, sid: str, work: Any) -> None:
        with self._lock:
            if self._closed:
                raise InputError("the run manager is shutting down; start the session again later.")
        release = self.index.lease(sid)
        if release is None:
            raise running_elsewhere_error(sid)
        try:
            self._queue(sid, work, release)
        except BaseException:
            release()
            raise

    def _queue(self, sid: str, work: Any, release: Release) -> None:
        with self._lock:
            if self._closed:
                raise InputError("the run manager is shutting down; start the session again later.")
            live = self._live.get(sid)
            if live is None:
                live = _Live(sid)
                # Continue the numbering of events recorded by an earlier process.
                live.events = self.index.events(sid)
                self._live[sid] = live
            live.cancel.clear()
            self._set_status(live, "queued")
            release_once = once(release)
            live.future = self._pool.submit(self._work, live, work, release_once)
            # Released by the run itself before its future completes (so whoever waits on it finds
            # the session free), or here when it is cancelled while still queued.
            live.future.add_done_callback(lambda _f: release_once())

    def _record(self, live: _Live, ev: ProgressEvent) -> None:
        with self._lock:
            event = RunEvent(seq=len(live.events) + 1, time=time.time(), **ev.model_dump())
            live.events.append(event)
            if ev.kind == "step_started":
                live.current_step = ev.step
            elif ev.kind == "step_finished" and live.current_step == ev.step:
                live.current_step = None
            self._changed.notify_all()
        self.index.add_event(live.session_id, event)

    def _work(self, live: _Live, work: Any, release: Release = no_release) -> None:
        try:
            self._run(live, work)
        finally:
            release()

    def _run(self, live: _Live, work: Any) -> None:
        def on_event(ev: ProgressEvent) -> None:
            self._record(live, ev)
            if live.cancel.is_set():
                raise RunCancelledError(f"session {live.session_id} cancelled")

        with self._lock:
            if live.cancel.is_set():
                self._set_status(live, "cancelled")
                return
            self._set_status(live, "running")
        try:
            result: RunResult = work(on_event)
        except RunCancelledError:
            with self._lock:
                self._set_status(live, "cancelled")
            return
        except ClaimscopeError as exc:
            with self._lock:
                self._set_status(live, "failed", str(exc))
            return
        except Exception as exc:  # a crash in a step must not vanish with the worker thread
            with self._lock:
                self._set_status(live, "failed", f"{type(exc).__name__}: {exc}")
            return
        with self._lock:
            live.current_step = None
            status = result.status if result.status != "running" else "interrupted"
            self._set_status(live, status)
