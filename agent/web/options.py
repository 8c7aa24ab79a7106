"""The run options of the web's forms (a new investigation, a text to check), read by the options
model (agent/options.py): a form field carries an option under its one name, so a form shows what
it chooses to and every option it sends is bounded, checked and refused as at every other entry point."""

from __future__ import annotations

from typing import Any, get_origin

from starlette.datastructures import FormData

from claimscope.agent.options import (
    GIVEN_MODELS,
    GivenOptions,
    Level,
    default_options,
    offered_at,
    validated,
)
from claimscope.agent.settings import Settings


def form_options(form: FormData, level: Level) -> GivenOptions:
    """The options a form sent, as the options model of `level` (an option the form does not send
    comes from the settings); a bad value is an InputError with the model's one line."""
    given: dict[str, Any] = {}
    for name, field in offered_at(level).items():
        if get_origin(field.annotation) is list:
            values = [v.strip() for v in form.getlist(name) if isinstance(v, str) and v.strip()]
            if values:
                given[name] = values
        elif field.annotation is bool:
            if name in form:  # a ticked box; an unticked one sends nothing
                given[name] = True
        elif isinstance(value := form.get(name), str) and value.strip():
            given[name] = value.strip()
    return validated(GIVEN_MODELS[level], given)


def form_defaults(settings: Settings) -> dict[str, Any]:
    """What a blank form shows: every option's default, read from `settings` where it has one."""
    return default_options(settings).model_dump(mode="json")


def form_values(form: FormData, level: Level) -> dict[str, Any]:
    """The options a refused form sent, by name, to show them again as the person left them."""
    out: dict[str, Any] = {}
    for name, field in offered_at(level).items():
        if get_origin(field.annotation) is list:
            if values := [v for v in form.getlist(name) if isinstance(v, str) and v.strip()]:
                out[name] = values
        elif field.annotation is bool:
            if name in form:
                out[name] = True
        elif isinstance(value := form.get(name), str) and value.strip():
            out[name] = value
    return out
