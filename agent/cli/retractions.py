"""`claimscope retractions import FILE|info`: the Retraction Watch index consulted for every
evidence document with a DOI (setting search.retractions)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from claimscope.agent.cli.root import app

retractions_app = typer.Typer(help="Import the Retraction Watch data, so retracted sources get trust 0.",
                              no_args_is_help=True)
app.add_typer(retractions_app, name="retractions")

console = Console(soft_wrap=True)


def _index_path() -> Path:
    from claimscope.agent.datadir import ensure_data_dir
    from claimscope.agent.settings import get_settings

    settings = get_settings()
    ensure_data_dir(settings)
    return settings.resolve(settings.search.retractions)


@retractions_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="The Retraction Watch CSV (retraction_watch.csv, as Crossref distributes it).")],
) -> None:
    """Replace the retraction index with the notices of FILE."""
    from claimscope.tools.appraise.retractions import RetractionIndex

    path = _index_path()
    summary = RetractionIndex(path).import_csv(file)
    console.print(f"imported {summary.rows} rows: {summary.works} works with notices, {summary.retracted} retracted, "
                  f"{summary.skipped} rows skipped (no original DOI or an unknown nature) -> {path}",
                  markup=False, highlight=False)


@retractions_app.command("info")
def info() -> None:
    """How many works the retraction index holds, and where it is."""
    from claimscope.tools.appraise.retractions import RetractionIndex

    path = _index_path()
    if not path.is_file():
        console.print(f"no retraction index at {path}: import one with `claimscope retractions import FILE`",
                      markup=False, highlight=False)
        return
    console.print(f"{len(RetractionIndex(path))} works with notices in {path}", markup=False, highlight=False)
