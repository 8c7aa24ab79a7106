"""`claimscope ingest`, `claimscope corpus ...` and `claimscope search` (issue #2)."""

from __future__ import annotations

from agent.cli import app  # noqa: F401
