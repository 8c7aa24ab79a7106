"""Token, latency and cost accounting for LLM calls, per prompt and in total (thread-safe)."""

from __future__ import annotations

import threading

from pydantic import BaseModel, Field


class PromptUsage(BaseModel):
    """Totals for one prompt name (or for all prompts)."""

    calls: int = Field(0, description="Logical calls (one run() or choose_action()), however many attempts.")
    attempts: int = Field(0, description="Requests sent to the model, retries included.")
    failures: int = Field(0, description="Calls that ended in LLMError.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(None, description="Sum over calls litellm could price; None if none could.")
    seconds: float = Field(0.0, description="Wall-clock seconds spent in calls, retries and waits included.")
    text_fields: int = Field(0, description="Text fields of first answers checked by the text guard.")
    degenerate_fields: int = Field(0, description="Of those, fields that failed it (repetition, script, echo, length).")
    regenerated: int = Field(0, description="Answers regenerated because a field failed the guard.")
    fell_back: int = Field(0, description="Regenerated answers that failed again (the caller's fallback was used).")

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


class UsageMeter:
    """Accumulates `PromptUsage` records from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()

    def record(self, name: str, record: PromptUsage) -> None:
        with self._lock:
            self._usage._add(record)
            self._usage.by_prompt.setdefault(name, PromptUsage())._add(record)

    def snapshot(self) -> Usage:
        with self._lock:
            return self._usage.model_copy(deep=True)

    def reset(self) -> Usage:
        """Start from zero and return the totals so far."""
        with self._lock:
            old, self._usage = self._usage, Usage()
            return old
