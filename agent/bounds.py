"""The bounds the run options (agent/options.py) share with the settings that give their defaults.

A setting that supplies a run option's default (hierarchy.depth -> depth, verdict.top_documents ->
top_documents, search.top_k -> docs_per_query, search.sources -> sources, stance.claim_kind ->
claim_kind) uses the same annotated type here, so a config value no run could accept is refused when
the settings are loaded, with its key named, rather than by every investigation later. Every entry
point reads the bounds from the options model, whose fields use these types.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from claimscope.tools.models import SourceName

DEPTH_MIN, DEPTH_MAX = 1, 3
ASPECTS_MIN, ASPECTS_MAX = 1, 8
TOP_DOCUMENTS_MIN, TOP_DOCUMENTS_MAX = 1, 50
DOCS_PER_QUERY_MIN, DOCS_PER_QUERY_MAX = 1, 200
YEAR_MIN, YEAR_MAX = 1500, 2100

Depth = Annotated[int, Field(ge=DEPTH_MIN, le=DEPTH_MAX)]
AspectsPerNode = Annotated[int, Field(ge=ASPECTS_MIN, le=ASPECTS_MAX)]
TopDocuments = Annotated[int, Field(ge=TOP_DOCUMENTS_MIN, le=TOP_DOCUMENTS_MAX)]
DocsPerQuery = Annotated[int, Field(ge=DOCS_PER_QUERY_MIN, le=DOCS_PER_QUERY_MAX)]
Year = Annotated[int, Field(ge=YEAR_MIN, le=YEAR_MAX)]

Source = SourceName
SOURCE_NAMES: tuple[str, ...] = get_args(SourceName)
# At least one source; more than one entry per source name is refused by length.
Sources = Annotated[list[Source], Field(min_length=1, max_length=len(SOURCE_NAMES))]

ClaimKind = Literal["auto", "empirical", "debate"]
PlannerMode = Literal["fixed", "llm"]

__all__ = [
    "ASPECTS_MAX", "ASPECTS_MIN", "DEPTH_MAX", "DEPTH_MIN", "DOCS_PER_QUERY_MAX", "DOCS_PER_QUERY_MIN",
    "SOURCE_NAMES", "TOP_DOCUMENTS_MAX", "TOP_DOCUMENTS_MIN", "YEAR_MAX", "YEAR_MIN", "AspectsPerNode",
    "ClaimKind", "Depth", "DocsPerQuery", "PlannerMode", "Source", "Sources", "TopDocuments", "Year",
]

