"""Run options: what may be chosen per investigation, declared once.

`InvestigationOptions` is the one declaration. Each field gives an option's one name, its type with
its bounds (agent/bounds.py, the types the settings use too), its description, its default (read
from a setting where one exists: `FromSetting`), and where it is offered (`Offered`: which entry
points show it, and its command-line spellings); the model's validator holds the checks that span
fields (the year order). Everything else is derived from it:

- `default_options(settings, **given)`: a run's full options, the settings' defaults filled in;
- `ToolOptions` / `SessionOptions`: the offered fields, each optional (left out = from settings),
  for the Python API, the tool schemas (OpenAI, LangChain, MCP) and the web form;
- agent/cli/options.py: the flags of `claimscope investigate`, `check` and `chat`;
- `refusal()`: the one line every entry point shows for a bad value.

Adding an option is a field here plus the code that uses it (docs/contributing.md, "Add a run option").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
    model_validator,
)

from claimscope.agent.bounds import (
    AspectsPerNode,
    ClaimKind,
    Depth,
    DocsPerQuery,
    PlannerMode,
    Sources,
    TopDocuments,
    Year,
)
from claimscope.tools.errors import InputError

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from claimscope.agent.settings import Settings

# Where an option is offered besides the Python API's `investigate(**options)`, which takes every
# field: "tools" to calling models and every front end; "sessions" also to runs a person can pause
# (MCP's start_investigation, the web form, `investigate` and `chat` on the command line); "cli" on
# `claimscope investigate` only. A field without `Offered` is for the Python API and evals alone.
Level = Literal["tools", "sessions", "cli"]
LEVELS: tuple[Level, ...] = ("tools", "sessions", "cli")


class Refused(ValueError):
    """Refused run options: the error a refusal carries inside a larger model (a tool's arguments),
    whose text is the whole line, so every renderer shows it as it is (`refused_line`)."""

CorpusName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]


@dataclass(frozen=True)
class Offered:
    """Marks an option offered beyond the Python API, at `level`; `flags` are its command-line
    spellings when they are not `--name` alone (a spelling users already know stays as an alias)."""

    level: Level = "tools"
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class FromSetting:
    """An option's default is the setting at `path` ("hierarchy.depth"): the loaded settings' value
    in `default_options`, the packaged default where options are built without settings."""

    path: str

    def __call__(self) -> Any:
        from claimscope.agent.settings import Settings

        section, name = self.path.split(".")
        model = Settings.model_fields[section].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel), self.path
        return model.model_fields[name].get_default(call_default_factory=True)

    def read(self, settings: Settings) -> Any:
        section, name = self.path.split(".")
        return getattr(getattr(settings, section), name)


class _OneLine(BaseModel):
    """Options whose refusal is one sentence (see `refusal`), however many values were bad."""

    @model_validator(mode="wrap")
    @classmethod
    def _refuse_in_one_line(cls, data: Any, handler: Any) -> Any:
        try:
            value = handler(data)
        except ValidationError as exc:
            raise Refused(refusal(exc, cls)) from None
        year_min, year_max = getattr(value, "year_min", None), getattr(value, "year_max", None)
        if year_min is not None and year_max is not None and year_min > year_max:
            raise Refused(f"year_min {year_min} is after year_max {year_max}: no document could match.")
        return value


class InvestigationOptions(_OneLine):
    """What may be chosen per investigation. The one declaration of the run options: entry points
    derive their parameters, flags, schemas and checks from these fields."""

    corpora: Annotated[list[CorpusName], Offered(flags=("--corpus", "-c"))] = Field(
        default_factory=list, max_length=20,
        description="Local corpora to search (names given to `claimscope ingest --corpus`).")
    sources: Annotated[Sources, Offered()] = Field(
        default_factory=FromSetting("search.sources"), description="Evidence sources to query.")
    depth: Annotated[Depth, Offered()] = Field(
        default_factory=FromSetting("hierarchy.depth"), description="Depth of the aspect hierarchy.")
    top_k_aspects: Annotated[AspectsPerNode, Offered(flags=("--top-k-aspects", "--aspects"))] = Field(
        default_factory=FromSetting("hierarchy.top_k"), description="Aspects proposed per node.")
    top_documents: Annotated[TopDocuments, Offered(flags=("--top-documents", "--top-docs"))] = Field(
        default_factory=FromSetting("verdict.top_documents"),
        description="Documents given a takeaway and local label.")
    docs_per_query: DocsPerQuery = Field(
        default_factory=FromSetting("search.top_k"), description="Documents kept per retrieval query.")
    year_min: Annotated[Year | None, Offered()] = Field(None, description="Earliest publication year.")
    year_max: Annotated[Year | None, Offered()] = Field(None, description="Latest publication year.")
    planner: Annotated[PlannerMode, Offered()] = Field(
        "fixed", description="'fixed' runs the steps in the papers' order; 'llm' lets the model choose the next step.")
    perspectives: Annotated[bool, Offered()] = Field(
        True, description="Summarise each stance per top-level aspect.")
    claim_kind: Annotated[ClaimKind, Offered()] = Field(
        default_factory=FromSetting("stance.claim_kind"),
        description="How to read the claim: 'empirical' (evidence reports findings on its relation), "
        "'debate' (evidence argues for or against it, e.g. 'Vaccination must be made compulsory'), or 'auto'.",
    )
    guided: Annotated[bool, Offered("sessions")] = Field(
        False, description="Pause at review points (claim, sources, hierarchy, verdict) for a person's decision.")
    stop_after: Annotated[Literal["hierarchy"] | None, Offered("cli")] = Field(
        None, description="'hierarchy': report once the aspect hierarchy is built (no stance or verdict).")


OPTION_NAMES: tuple[str, ...] = tuple(InvestigationOptions.model_fields)


def offered(field: FieldInfo) -> Offered | None:
    """Where a field is offered (None: the Python API only)."""
    return next((m for m in field.metadata if isinstance(m, Offered)), None)


def offered_at(level: Level) -> dict[str, FieldInfo]:
    """The options an entry point of `level` offers, by name, in declaration order."""
    rank = LEVELS.index(level)
    return {name: f for name, f in InvestigationOptions.model_fields.items()
            if (o := offered(f)) is not None and LEVELS.index(o.level) <= rank}


def setting_of(field: FieldInfo) -> str | None:
    """The setting that gives a field its default, as "section.key"."""
    return field.default_factory.path if isinstance(field.default_factory, FromSetting) else None


def bounds_of(field: FieldInfo) -> tuple[int | None, int | None]:
    """A numeric option's least and greatest values."""
    lo = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    hi = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    if lo is None and hi is None:  # an optional bounded type keeps its bounds inside the union
        for arg in get_args(field.annotation):
            for m in getattr(arg, "__metadata__", ()):
                for c in getattr(m, "metadata", [m]):
                    lo = getattr(c, "ge", lo)
                    hi = getattr(c, "le", hi)
    return lo, hi


def choices_of(field: FieldInfo) -> tuple[str, ...]:
    """The values a Literal option (or each item of a list of them) may take."""
    tp: Any = field.annotation
    if get_origin(tp) is list:
        tp = get_args(tp)[0]
    for arg in (tp, *get_args(tp)):
        if get_origin(arg) is Literal:
            return tuple(get_args(arg))
    return ()


def _value(value: Any) -> str:
    return str(value) if isinstance(value, int | float) or (isinstance(value, str) and value.lstrip("-").isdigit()) \
        else repr(value)


def _problem(err: Mapping[str, Any], options: tuple[str, ...] = OPTION_NAMES) -> str:
    """One bad value, in words naming the option (`options`: those the refusing model takes)."""
    line = refused_line(err)
    if line is not None:
        return line.rstrip(".")
    name = next((p for p in err["loc"] if isinstance(p, str)), "")
    field = InvestigationOptions.model_fields.get(name)
    kind, given, ctx = err["type"], err.get("input"), err.get("ctx") or {}
    if field is None:
        if kind == "extra_forbidden":
            return f"{name} is not a run option (the options are {', '.join(options)})"
        return str(err["msg"])
    if kind in ("greater_than_equal", "less_than_equal"):
        lo, hi = bounds_of(field)
        return f"{name} must be between {lo} and {hi}, not {_value(given)}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"{name} must be a whole number, not {_value(given)}"
    if kind in ("bool_parsing", "bool_type"):
        return f"{name} must be true or false, not {_value(given)}"
    if kind == "literal_error":
        each = " each" if len(err["loc"]) > 1 else ""
        return f"{name} must{each} be one of {', '.join(choices_of(field))}, not {_value(given)}"
    if kind == "too_short" and name == "sources":
        return f"sources needs at least one of {', '.join(choices_of(field))}"
    if kind == "too_long":
        most = next((m.max_length for m in field.metadata if hasattr(m, "max_length")), ctx.get("max_length"))
        return f"{name} takes at most {most} values"
    if kind == "too_short":
        least = next((m.min_length for m in field.metadata if hasattr(m, "min_length")), ctx.get("min_length"))
        return f"{name} needs at least {least} value{'s' if least != 1 else ''}"
    msg = str(err["msg"])
    return f"{name}: {msg[:1].lower()}{msg[1:]}"


def refused_line(err: Mapping[str, Any]) -> str | None:
    """The line of a refusal of run options found inside a larger model's errors, None for another error."""
    error = (err.get("ctx") or {}).get("error")
    return str(error) if err["type"] == "value_error" and isinstance(error, Refused) else None


def refusal(exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    """The one line that refuses bad run options, the same at every entry point: each bad value,
    naming its option and what it may be (`model`: the options model that refused them)."""
    options = tuple(model.model_fields) if model is not None else OPTION_NAMES
    problems = list(dict.fromkeys(_problem(e, options) for e in exc.errors()))
    return "; ".join(problems) + "."


def default_options(settings: Settings, **given: Any) -> InvestigationOptions:
    """A run's full options: what was given (None = not given), the rest from `settings` where an
    option has a setting, else the option's own default. A bad or unknown option is an InputError
    whose message is `refusal`'s."""
    fields = InvestigationOptions.model_fields
    unknown = [k for k in given if k not in fields]
    if unknown:
        raise InputError("; ".join(f"{k} is not a run option (the options are {', '.join(OPTION_NAMES)})"
                                   for k in unknown) + ".")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        path = setting_of(f)
        if path is not None:
            values[name] = FromSetting(path).read(settings)
    values.update({k: v for k, v in given.items() if v is not None})
    return validated(InvestigationOptions, values)


def validated(model: type[_OneLine], values: Any) -> Any:
    """`values` as `model`; a refusal becomes an InputError with its one line."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise InputError(refusal(exc, model)) from None


class GivenOptions(_OneLine):
    """Run options as a caller gives them: each optional, None (or left out) = the setting's default."""

    model_config = ConfigDict(extra="forbid")

    def given(self) -> dict[str, Any]:
        """The options given, by name."""
        return self.model_dump(exclude_none=True)

    def to_options(self, settings: Settings, **extra: Any) -> InvestigationOptions:
        """The full run options: the settings' defaults overridden by what was given here."""
        return default_options(settings, **self.given(), **extra)


def given_model(name: str, level: Level, doc: str) -> type[GivenOptions]:
    """The options offered at `level`, each optional with the same bounds and description."""
    fields: dict[str, Any] = {}
    for key, f in offered_at(level).items():
        annotation: Any = Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation
        fields[key] = (annotation | None, Field(None, description=f.description))
    return create_model(name, __base__=GivenOptions, __doc__=doc, __module__=__name__, **fields)


if TYPE_CHECKING:
    ToolOptions = GivenOptions
    SessionOptions = GivenOptions
    CommandLineOptions = GivenOptions
else:
    ToolOptions = given_model(
        "ToolOptions", "tools", "Per-investigation choices a caller may make; anything left out comes from "
        "claimscope's settings.")
    SessionOptions = given_model(
        "SessionOptions", "sessions", "Options of an investigation run as a session (MCP, the web app, the "
        "command line): ToolOptions plus guided review.")
    CommandLineOptions = given_model(
        "CommandLineOptions", "cli", "Options of `claimscope investigate`: SessionOptions plus stop_after.")

GIVEN_MODELS: dict[Level, type[GivenOptions]] = {
    "tools": ToolOptions, "sessions": SessionOptions, "cli": CommandLineOptions,
}

__all__ = [
    "GIVEN_MODELS", "LEVELS", "OPTION_NAMES", "CommandLineOptions", "CorpusName", "FromSetting",
    "GivenOptions", "InvestigationOptions", "Level", "Offered", "SessionOptions", "ToolOptions", "bounds_of",
    "choices_of", "default_options", "offered_at", "refusal", "refused_line", "Refused", "setting_of", "validated",
]
