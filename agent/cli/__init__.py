"""The `claimscope` command. Each sub-module registers its commands on `app` (cli/root.py)."""

from __future__ import annotations

import sys

import typer

# The command modules register on `app` (cli/root.py) when imported: keep this list the only wiring.
from claimscope.agent.cli import chat as _chat  # noqa: F401
from claimscope.agent.cli import check as _check  # noqa: F401
from claimscope.agent.cli import corpus as _corpus  # noqa: F401
from claimscope.agent.cli import investigate as _investigate  # noqa: F401
from claimscope.agent.cli import llm as _llm  # noqa: F401
from claimscope.agent.cli import retractions as _retractions  # noqa: F401
from claimscope.agent.cli import sessions as _sessions  # noqa: F401
from claimscope.agent.cli import web as _web  # noqa: F401
from claimscope.agent.cli.root import app

__all__ = ["app", "main"]

def main() -> None:
    """Entry point: runs the app and turns user-facing errors into a message and exit code 2."""
    from claimscope.tools.errors import ClaimscopeError

    try:
        app()
    except ClaimscopeError as exc:  # bad settings included (ConfigError is an InputError)
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.secho("interrupted.", err=True)
        sys.exit(130)
    except OSError as exc:  # a full disk or an unwritable folder reached by a command that did not check
        where = f": {exc.filename}" if exc.filename else ""
        typer.secho(f"error: {exc.strerror or exc}{where}. Free space or choose a writable folder "
                    "(CLAIMSCOPE_DATA_DIR).", fg=typer.colors.RED, err=True)
        sys.exit(2)
