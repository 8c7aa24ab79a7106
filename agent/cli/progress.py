"""Progress of long work that stays visible wherever stderr goes: a live bar (or spinner) on a
terminal, and plain periodic lines in a log file, CI or a container, where a live display would
print nothing until the end.

Plain lines come every `CLAIMSCOPE_PROGRESS_SECONDS` seconds (default 15) and at every tenth of
the work, whichever is sooner, so a six-minute ingest says how far it is about forty times; the
seconds are kept by a clock of their own, so one long item (a document of thousands of sentences)
still gets its lines, naming it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.status import Status

DEFAULT_SECONDS = 15.0
ENV_SECONDS = "CLAIMSCOPE_PROGRESS_SECONDS"


def interval_s() -> float:
    """Seconds between plain progress lines (CLAIMSCOPE_PROGRESS_SECONDS; bad values fall back)."""
    try:
        value = float(os.environ.get(ENV_SECONDS, DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS
    return value if value > 0 else DEFAULT_SECONDS


class PlainProgress:
    """Counts work done and writes a line when `every_s` seconds or a tenth of the total passed."""

    def __init__(self, label: str, total: int, write: Callable[[str], None], *, every_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.total = max(0, total)
        self.done = 0
        self._write = write
        self.every_s = every_s if every_s is not None else interval_s()
        self._clock = clock
        self._start = self._last = clock()
        self._last_tenth = 0
        self._lock = threading.Lock()
        self.doing = ""  # the item in flight, when worth naming

    def tick(self) -> None:
        """A line if `every_s` seconds passed without one: called by a timer, so long work on a
        single item is not silent."""
        with self._lock:
            now = self._clock()
            if now - self._last >= self.every_s:
                self._line(now)

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            now = self._clock()
            tenth = (10 * self.done // self.total) if self.total else 0
            if now - self._last >= self.every_s or tenth > self._last_tenth:
                self._line(now)
            self._last_tenth = max(self._last_tenth, tenth)

    def _line(self, now: float) -> None:
        self._last = now
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        doing = f"; {self.doing}" if self.doing else ""
        self._write(f"{self.label}: {self.done}/{self.total}{pct}, {now - self._start:.0f} s{doing}")


class Counter:
    """What `counted` yields: `counter(n)` advances by n; `counter.doing(text)` names the item in
    flight ("" when none is worth naming) on the bar or the next plain line."""

    def __init__(self, advance: Callable[[int], None], doing: Callable[[str], None]) -> None:
        self._advance = advance
        self.doing = doing

    def __call__(self, n: int = 1) -> None:
        self._advance(n)


@contextmanager
def counted(console: Console, label: str, total: int, *, quiet: bool = False) -> Iterator[Counter]:
    """A `Counter`: a bar on a terminal, plain lines elsewhere, nothing when quiet."""
    if quiet:
        yield Counter(lambda n: None, lambda text: None)
        return
    if console.is_terminal:
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("{task.fields[doing]}"),
                      console=console, transient=True) as bar:
            task = bar.add_task(label, total=total, doing="")
            yield Counter(lambda n: bar.advance(task, n), lambda text: bar.update(task, doing=text))
        return
    plain = PlainProgress(label, total, lambda line: console.print(line, markup=False, highlight=False))

    def set_doing(text: str) -> None:
        plain.doing = text

    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(min(1.0, plain.every_s)):
            plain.tick()

    timer = threading.Thread(target=beat, name="claimscope-progress", daemon=True)
    timer.start()
    try:
        yield Counter(plain.advance, set_doing)
    finally:
        stop.set()
        timer.join(timeout=2)


class Heartbeat:
    """For work reported by events (an investigation): off a terminal, a plain line naming the step
    in flight whenever `every_s` seconds pass without an event; on a terminal, a spinner."""

    def __init__(self, console: Console, *, every_s: float | None = None) -> None:
        self.console = console
        self.every = every_s if every_s is not None else interval_s()
        self.step = ""
        self._step_start = time.monotonic()
        self._last = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status: Status | None = None

    def saw(self, step: str, started: bool = False) -> None:
        """An event arrived (for `step`); `started` when the step has just begun."""
        now = time.monotonic()
        self._last = now
        if started or step != self.step:
            self.step, self._step_start = step, now
        if self._status is not None:
            self._status.update(f"{self.step}…")

    def __enter__(self) -> Heartbeat:
        if self.console.is_terminal:
            self._status = self.console.status("starting…")
            self._status.__enter__()
        else:
            self._thread = threading.Thread(target=self._beat, name="claimscope-heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._status is not None:
            self._status.__exit__(None, None, None)
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.every)):
            now = time.monotonic()
            if now - self._last >= self.every:
                self._last = now
                what = f"still in {self.step}" if self.step else "still working"
                self.console.print(f"  … {what} ({now - self._step_start:.0f} s)", markup=False, highlight=False)
