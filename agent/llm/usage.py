"""Token, latency and cost accounting for LLM calls, per prompt and in total (thread-safe).

One gateway serves every investigation of a process (the MCP server runs several at once), so its
totals are the process's. `usage_scope()` marks the calls of one piece of work: inside it, and in
the threads it hands its context to, a meter's `snapshot()` counts only the calls made there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import BaseModel, Field


class PromptUsage(BaseModel):
    """Totals for one prompt name (or for all prompts)."""

    calls: int = Field(default=0, description="Logical calls (one run() or choose_action()), however many attempts.")
    attempts: int = Field(default=0, description="Requests sent to the model, retries included.")
    failures: int = Field(default=0, description="Calls that ended in LLMError.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="Sum over calls litellm could price; None if none could.")
    seconds: float = Field(default=0.0, description="Wall-clock seconds spent in calls, retries and waits included.")
    text_fields: int = Field(default=0, description="Text fields of first answers checked by the text guard.")
    degenerate_fields: int = Field(default=0, description="Of those, fields that failed it (repetition, script, echo, length).")
    regenerated: int = Field(default=0, description="Answers regenerated because a field failed the guard.")
    fell_back: int = Field(default=0, description="Regenerated answers that failed again (the caller's fallback was used).")

    def _add(self, other: PromptUsage) -> None:
        self.calls += other.calls
        self.attempts += other.attempts
        self.failures += other.failures
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd
        self.seconds += other.seconds
        self.text_fields += other.text_fields
        self.degenerate_fields += other.degenerate_fields
        self.regenerated += other.regenerated
        self.fell_back += other.fell_back


class Usage(PromptUsage):
    """Totals plus a breakdown by prompt name."""

    by_prompt: dict[str, PromptUsage] = Field(default_factory=dict)


class UsageScope:
    """The usage recorded, per meter, while one `usage_scope()` was active."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_meter: dict[int, Usage] = {}

    def add(self, meter: UsageMeter, name: str, record: PromptUsage) -> None:
        with self._lock:
            _add_to(self._by_meter.setdefault(id(meter), Usage()), name, record)

    def of(self, meter: UsageMeter) -> Usage:
        with self._lock:
            return self._by_meter.get(id(meter), Usage()).model_copy(deep=True)


_SCOPE: ContextVar[UsageScope | None] = ContextVar("claimscope_usage_scope", default=None)


@contextmanager
def usage_scope() -> Iterator[UsageScope]:
    """Count the LLM calls made in this context (and contexts copied from it) apart from the rest
    of the process; nested scopes count into the innermost one only."""
    scope = UsageScope()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def _add_to(usage: Usage, name: str, record: PromptUsage) -> None:
    usage._add(record)
    usage.by_prompt.setdefault(name, PromptUsage())._add(record)


class UsageMeter:
    """Accumulates `PromptUsage` records from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()

    def record(self, name: str, record: PromptUsage) -> None:
        with self._lock:
            _add_to(self._usage, name, record)
        scope = _SCOPE.get()
        if scope is not None:
            scope.add(self, name, record)

    def snapshot(self) -> Usage:
        """Inside a `usage_scope()`, what this meter recorded in that scope; else its totals."""
        scope = _SCOPE.get()
        if scope is not None:
            return scope.of(self)
        with self._lock:
            return self._usage.model_copy(deep=True)

    def total(self) -> Usage:
        """The totals since construction or the last reset, whatever scope is active."""
        with self._lock:
            return self._usage.model_copy(deep=True)

    def reset(self) -> Usage:
        """Start from zero and return the totals so far."""
        with self._lock:
            old, self._usage = self._usage, Usage()
            return old
