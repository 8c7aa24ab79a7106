"""The `claimscope` command. Each sub-module registers its commands on `app`."""

from __future__ import annotations

import sys

import typer

app = typer.Typer(
    name="claimscope",
    help="Investigate nuanced claims against the literature.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Sub-modules register their commands on import; keep this list the only wiring.
from claimscope.agent.cli import chat as _chat  # noqa: E402,F401
from claimscope.agent.cli import check as _check  # noqa: E402,F401
from claimscope.agent.cli import corpus as _corpus  # noqa: E402,F401
from claimscope.agent.cli import investigate as _investigate  # noqa: E402,F401
from claimscope.agent.cli import llm as _llm  # noqa: E402,F401
from claimscope.agent.cli import retractions as _retractions  # noqa: E402,F401
from claimscope.agent.cli import sessions as _sessions  # noqa: E402,F401
from claimscope.agent.cli import web as _web  # noqa: E402,F401


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
