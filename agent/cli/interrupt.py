"""Stopping long CLI work the same way from a terminal, a background job or a process manager.

A shell that is not interactive starts `claimscope ingest ... &` with SIGINT ignored, and Python
then installs no KeyboardInterrupt handler, so `kill -INT` does nothing; SIGTERM (`kill`, a
container stopping) ends Python without any cleanup or message. Inside `stoppable()` both raise
KeyboardInterrupt, so the command's own handler says what was saved and how to go on.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextmanager
def stoppable() -> Iterator[None]:
    """SIGINT and SIGTERM raise KeyboardInterrupt while the block runs (main thread only: Python
    delivers signals there); the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            # None: a handler installed outside Python, which cannot be put back; the default is.
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
