"""What a search returns: the documents found for a query and one report per source, whose status
says what the source did (ok, cached, unreachable, unauthorised, rate_limited, error).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from claimscope.tools.models import Document, SourceKind

Status = Literal["ok", "unreachable", "unauthorised", "rate_limited", "error", "cached"]


class SourceReport(BaseModel):
    """What one source did for one query."""

    source: SourceKind
    query: str
    status: Status
    count: int = Field(0, description="Documents this source contributed for the query.")
    message: str = ""


class SearchOutcome(BaseModel):
    """Documents found for a query, deduplicated across sources, and one report per source."""

    documents: list[Document] = Field(default_factory=list)
    reports: list[SourceReport] = Field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """One line per source that failed (zero results is not a failure)."""
        return [
            f"{r.source.value}: {r.status} for query {r.query!r}: {r.message}"
            for r in self.reports
            if r.status not in ("ok", "cached")
        ]
