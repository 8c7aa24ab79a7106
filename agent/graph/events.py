"""Typed progress events streamed while an investigation runs (LangGraph "custom" stream mode).

The CLI, chat and MCP front ends consume the same events.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.config import get_stream_writer
from pydantic import BaseModel, Field

EventKind = Literal["step_started", "step_finished", "counts", "tree", "warning", "plan", "source"]


class ProgressEvent(BaseModel):
    kind: EventKind
    step: str = ""
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


def emit(kind: EventKind, step: str = "", message: str = "", **data: Any) -> None:
    """Send an event to whoever streams the run; a no-op outside a streaming run."""
    try:
        writer = get_stream_writer()
    except RuntimeError:
        return
    writer(ProgressEvent(kind=kind, step=step, message=message, data=data).model_dump())
