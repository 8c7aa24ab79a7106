"""The run options on the command line, derived from the options model (agent/options.py).

`run_option_flags(level)` gives a command one flag per option offered at `level`: spelled `--name`
(or as the model spells it, older spellings kept), with the model's description, bounds, choices
and setting as its help. The values are read into the model before the command's body runs, so a
bad one is refused with the line every entry point shows, and before any model is loaded. The
output flags several commands share are declared here too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_origin

import typer
from pydantic.fields import FieldInfo
from rich.console import Console

from claimscope.agent.options import (
    GIVEN_MODELS,
    GivenOptions,
    Level,
    bounds_of,
    choices_of,
    offered,
    offered_at,
    setting_of,
    validated,
)
from claimscope.tools.errors import InputError

F = TypeVar("F", bound=Callable[..., Any])

Format = Annotated[str, typer.Option("--format", "-f", help="Report format: md, json or html.")]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Write the report here (else print it).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]


def write_output(text: str, out: Path | None, log: Console, *, what: str, advice: str, nl: bool = True) -> None:
    """Print `text` to standard output, or write it to `out` (its folder made) and say so on `log`.
    A failed write is an InputError naming `what` (e.g. "the report"; "" names only the file) and
    `advice`: what the user can do, since the work that made `text` is kept."""
    if out is None:
        typer.echo(text, nl=nl)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        target = f"{what} to {out}" if what else str(out)
        raise InputError(f"could not write {target} ({exc.strerror or exc}); {advice}") from exc
    log.print(f"{what} written to {out}" if what else f"written to {out}", markup=False, highlight=False)


# The placeholder of a command's `given` parameter: run_option_flags replaces it by the flags and
# passes the options read from them.
FROM_FLAGS = GivenOptions()


def _is_list(field: FieldInfo) -> bool:
    return get_origin(field.annotation) is list


def _is_bool(field: FieldInfo) -> bool:
    return field.annotation is bool


def _flag(name: str, field: FieldInfo) -> Any:
    """The typer annotation of one option's flag."""
    dashed = name.replace("_", "-")
    mark = offered(field)
    decls = list(mark.flags) if mark and mark.flags else [f"--{dashed}"]
    choices = choices_of(field)
    help_text = (field.description or "").rstrip(".") + "."
    typ: Any
    if _is_bool(field):
        typ, decls = bool | None, [f"--{dashed}/--no-{dashed}"]
    elif _is_list(field) and choices:
        typ = str | None
        help_text += f" Comma-separated: {','.join(choices)}."
    elif _is_list(field):
        typ = list[str] | None
        help_text += " Repeatable."
    elif choices:
        typ = str | None
        help_text += f" One of {', '.join(choices)}."
    else:
        typ = int | None
        lo, hi = bounds_of(field)
        if lo is not None:
            help_text += f" {lo} to {hi}."
    path = setting_of(field)
    if path is not None:
        help_text += f" Default: the setting {path}."
    elif field.default not in (None, False, [], ...) and not _is_list(field):
        help_text += f" Default: {str(field.default).lower() if _is_bool(field) else field.default}."
    return Annotated[typ, typer.Option(*decls, help=help_text)]


def read_flags(level: Level, values: dict[str, Any]) -> GivenOptions:
    """The flags' values as the options model of `level` (a comma-separated list split, each name
    once); a bad value is an InputError with the model's one line."""
    fields = offered_at(level)
    given: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, str) and _is_list(fields[name]):
            value = list(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
        given[name] = value
    return validated(GIVEN_MODELS[level], given)


def run_option_flags(level: Level) -> Callable[[F], F]:
    """Replace a command's `given` parameter by the flags of the options offered at `level`; the
    command is called with `given`, the options read from them."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        params = list(signature.parameters.values())
        at = [p.name for p in params].index("given")
        flags = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                   annotation=_flag(name, field)) for name, field in offered_at(level).items()]
        clash = {p.name for p in params} & {p.name for p in flags}
        if clash:
            raise TypeError(f"{fn.__name__} declares run options itself: {', '.join(sorted(clash))}")
        shown = [*params[:at], *flags, *params[at + 1:]]

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            values = {p.name: kwargs.pop(p.name) for p in flags}
            return fn(**kwargs, given=read_flags(level, values))

        command.__signature__ = signature.replace(parameters=shown)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in shown}
        return command  # type: ignore[return-value]

    return decorate

