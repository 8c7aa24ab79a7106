"""The root `claimscope` Typer app, on its own so that the command modules register on it without
importing the package that imports them."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="claimscope",
    help="Investigate nuanced claims against the literature.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
