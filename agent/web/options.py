"""The run options of the web's forms (a new investigation, a text to check), read by the options
model (agent/options.py): a form field carries an option under its one name, so a form shows what
it chooses to and every option it sends is bounded, checked and refused as at every other entry point."""

from __future__ import annotations

from typing import Any, get_origin

from starlette.datastructures import FormData

from claimscope.agent.options import (
    GIVEN_MODELS,
    GivenOptions,
    InvestigationOptions,
    Level,
    bounds_of,
    choices_of,
    default_options,
    offered_at,
    validated,
)
from claimscope.agent.settings import Settings


def _offered() -> dict[str, Any]:
    fields = InvestigationOptions.model_fields
    lo, hi = bounds_of(fields["depth"])
    assert lo is not None and hi is not None
    return {"source_names": choices_of(fields["sources"]), "depths": list(range(lo, hi + 1)),
            "claim_kinds": choices_of(fields["claim_kind"])}


# The values a form's lists offer (sources, depths, ways of reading a claim), as the model bounds them.
FORM_OFFERS: dict[str, Any] = _offered()


def form_values(form: FormData, level: Level) -> dict[str, Any]:
    """The options a form sent, by name (an option it does not send is left out): what a refused
    form shows again, as the person left it, and what `form_options` reads."""
    sent: dict[str, Any] = {}
    for name, field in offered_at(level).items():
        if get_origin(field.annotation) is list:
            if values := [v.strip() for v in form.getlist(name) if isinstance(v, str) and v.strip()]:
                sent[name] = values
        elif field.annotation is bool:
            if name in form:  # a ticked box; an unticked one sends nothing
                sent[name] = True
        elif isinstance(value := form.get(name), str) and value.strip():
            sent[name] = value.strip()
    return sent


def form_options(form: FormData, level: Level) -> GivenOptions:
    """The options a form sent, as the options model of `level` (an option the form does not send
    comes from the settings); a bad value is an InputError with the model's one line."""
    return validated(GIVEN_MODELS[level], form_values(form, level))


def form_defaults(settings: Settings) -> dict[str, Any]:
    """What a blank form shows: every option's default, read from `settings` where it has one."""
    return default_options(settings).model_dump(mode="json")
