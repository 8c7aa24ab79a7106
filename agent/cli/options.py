"""The run options `claimscope investigate` and `claimscope check` share, declared once: each
option's flag, bounds and help, and their reading into the run options model
(agent.investigation.default_options), with the year-order check both need."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimscope.agent.bounds import (
    ASPECTS_MAX,
    ASPECTS_MIN,
    DEPTH_MAX,
    DEPTH_MIN,
    SOURCE_NAMES,
    TOP_DOCUMENTS_MAX,
    TOP_DOCUMENTS_MIN,
    YEAR_MAX,
    YEAR_MIN,
    parse_sources,
)
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.settings import Settings
from claimscope.tools.errors import InputError

Corpus = Annotated[list[str] | None, typer.Option("--corpus", "-c", help="Local corpus to search (repeatable).")]
Sources = Annotated[str | None, typer.Option(help=f"Comma-separated: {','.join(SOURCE_NAMES)}.")]
Depth = Annotated[int | None, typer.Option(min=DEPTH_MIN, max=DEPTH_MAX, help="Aspect hierarchy depth.")]
Aspects = Annotated[int | None, typer.Option(min=ASPECTS_MIN, max=ASPECTS_MAX, help="Aspects per node.")]
TopDocs = Annotated[int | None, typer.Option(min=TOP_DOCUMENTS_MIN, max=TOP_DOCUMENTS_MAX,
                                             help="Documents given a takeaway and label.")]
YearMin = Annotated[int | None, typer.Option(min=YEAR_MIN, max=YEAR_MAX, help="Earliest publication year.")]
YearMax = Annotated[int | None, typer.Option(min=YEAR_MIN, max=YEAR_MAX, help="Latest publication year.")]
NoPerspectives = Annotated[bool, typer.Option("--no-perspectives", help="Skip per-aspect stance summaries.")]
Format = Annotated[str, typer.Option("--format", "-f", help="Report format: md, json or html.")]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Write the report here (else print it).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]


def check_years(year_min: int | None, year_max: int | None) -> None:
    """Refuse a year range no document can fall in, before any model is loaded."""
    if year_min is not None and year_max is not None and year_min > year_max:
        raise InputError(f"--year-min {year_min} is after --year-max {year_max}: no document could match.")


def run_options(settings: Settings, *, corpus: list[str] | None, sources: str | None, depth: int | None,
                aspects: int | None, top_docs: int | None, year_min: int | None, year_max: int | None,
                no_perspectives: bool, **more: object) -> InvestigationOptions:
    """The shared flags as run options (defaults from `settings`); `more` carries a command's own."""
    from claimscope.agent.investigation import default_options

    check_years(year_min, year_max)
    return default_options(
        settings, corpora=list(corpus or []), sources=parse_sources(sources) if sources else None, depth=depth,
        top_k_aspects=aspects, top_documents=top_docs, year_min=year_min, year_max=year_max,
        perspectives=False if no_perspectives else None, **more,
    )
