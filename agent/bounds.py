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

# The deepest aspect tree: also how far the chat's "go deeper" may grow one (agent/chat/engine.py).
DEPTH_MAX = 3

Depth = Annotated[int, Field(ge=1, le=DEPTH_MAX)]
AspectsPerNode = Annotated[int, Field(ge=1, le=8)]
TopDocuments = Annotated[int, Field(ge=1, le=50)]
DocsPerQuery = Annotated[int, Field(ge=1, le=200)]
Year = Annotated[int, Field(ge=1500, le=2100)]

Source = SourceName
SOURCE_NAMES: tuple[str, ...] = get_args(SourceName)
# At least one source; more than one entry per source name is refused by length.
Sources = Annotated[list[Source], Field(min_length=1, max_length=len(SOURCE_NAMES))]

ClaimKind = Literal["auto", "empirical", "debate"]
PlannerMode = Literal["fixed", "llm"]

__all__ = [
    "DEPTH_MAX", "SOURCE_NAMES", "AspectsPerNode", "ClaimKind", "Depth", "DocsPerQuery", "PlannerMode", "Source",
    "Sources", "TopDocuments", "Year",
]

