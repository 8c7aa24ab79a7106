"""claimscope's public Python API, and the tool definitions other assistants use.

    from claimscope.agent.api import investigate, check_text, search_evidence, tool_schemas, langchain_tools

    report = investigate("Vitamin D supplementation prevents colds", corpora=["scifact"])
    print(report.verdict.weighted.label)
    checked = check_text(open("press_release.md").read(), corpora=["scifact"])
    print(checked.counts())

The argument models below (`InvestigateArgs`, `SearchArgs`, `CheckTextArgs`, with `ToolOptions`, which
agent/options.py derives from the run options' one declaration) are the single source of the tools'
parameters: the OpenAI function schemas (`tool_schemas()`), the LangChain tools (`langchain_tools()`)
and the MCP server's tools (agent/mcp_server.py) are all generated from them, so the three cannot
drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any

from langchain_core.tools import StructuredTool, ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from claimscope.agent.check import CheckHandler, EditedClaim
from claimscope.agent.check import check_text as run_check
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.investigation import Investigator, RunResult, ainvestigate, investigate
from claimscope.agent.options import (
    CorpusName,
    InvestigationOptions,
    SessionOptions,
    ToolOptions,
    default_options,
    refused_line,
)
from claimscope.agent.report import Report, render
from claimscope.agent.report.text_model import TextReport
from claimscope.agent.report.text_render import render_text_report
from claimscope.agent.runs import RunEvent, RunManager, SessionInfo
from claimscope.agent.services import Services
from claimscope.agent.settings import Settings, get_settings, load_settings
from claimscope.tools.errors import ClaimscopeError, InputError
from claimscope.tools.find.store import SearchFilter
from claimscope.tools.read.claim_analysis import MAX_CLAIM_CHARS, MIN_CLAIM_CHARS

__all__ = [
    "EvidenceHit", "InvestigateArgs", "InvestigationOptions", "Investigator", "ProgressEvent", "Report",
    "RunEvent", "RunManager", "RunResult", "SearchArgs", "Services", "SessionInfo", "SessionOptions", "Settings", "ToolOptions",
    "CheckTextArgs", "TextReport", "check_text", "ainvestigate", "default_options", "get_settings", "investigate", "langchain_tools", "load_settings",
    "search_evidence", "tool_schemas", "validate_args",
]

INVESTIGATE_NAME = "investigate_claim"
INVESTIGATE_DESCRIPTION = (
    "Investigate a nuanced scientific or political claim against the literature: search for the claim and "
    "its opposite, build a hierarchy of the claim's aspects, weigh each source's stance by reputation and "
    "corroboration, and return a graded verdict (generally supported / leaning supported / controversial / "
    "leaning refuted / generally refuted) with an explanation citing source sentences. Takes minutes."
)
SEARCH_NAME = "search_evidence"
SEARCH_DESCRIPTION = (
    "Search a local evidence corpus (already ingested with `claimscope ingest`) for documents about a query; "
    "returns the best documents with their best-matching sentences and scores. Fast."
)

CHECK_NAME = "check_text"
CHECK_DESCRIPTION = (
    "Check a whole text (a press release, an abstract, a draft answer) claim by claim: split it into atomic, "
    "self-contained claims tied to their spans, keep the check-worthy ones (factual statements evidence could "
    "settle, not opinions, plans or definitions), investigate each against the literature, and return the text "
    "with each claim marked supported / refuted / mixed / insufficient evidence. Takes minutes per claim."
)

# A claim's content is checked once, at intake (investigation.accept_claim), with the same message
# for every entry point; the schema only shows a calling model the bounds intake applies.
Claim = Annotated[str, Field(json_schema_extra={"minLength": MIN_CLAIM_CHARS, "maxLength": MAX_CLAIM_CHARS})]


# Each tool parameter is one annotated type, used by the argument models below and by the MCP
# server's tool signatures alike.
ClaimParam = Annotated[Claim, Field(description="The claim to investigate, as one statement.")]
QueryParam = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500),
                       Field(description="What to look for (a claim, a question or keywords).")]
CorpusParam = Annotated[CorpusName, Field(description="The local corpus to search.")]
TopKParam = Annotated[int, Field(ge=1, le=50, description="How many documents to return.")]


class InvestigateArgs(BaseModel):
    """Arguments of the investigate_claim tool."""

    model_config = ConfigDict(extra="forbid")

    claim: ClaimParam
    options: ToolOptions | None = Field(None, description="Optional choices; omit for the defaults.")


class SearchArgs(BaseModel):
    """Arguments of the search_evidence tool."""

    model_config = ConfigDict(extra="forbid")

    query: QueryParam
    corpus: CorpusParam
    k: TopKParam = 10


# The text's length bound is a setting (check.max_text_chars), applied where the text is read.
TextParam = Annotated[str, StringConstraints(min_length=1), Field(
    description="The text to check, as plain text or Markdown (at most check.max_text_chars characters, "
    "50,000 by default).")]
ClaimEditsParam = Annotated[list[EditedClaim] | None, Field(
    None, max_length=200, description="Optional edits of the extracted claims, by id ('c1', ...): "
    "check_worthy false drops a claim, true checks one the rules left out; text rewords it.")]


class CheckTextArgs(BaseModel):
    """Arguments of the check_text tool."""

    model_config = ConfigDict(extra="forbid")

    text: TextParam
    options: ToolOptions | None = Field(None, description="Optional choices for every claim; omit for the defaults.")
    claims: ClaimEditsParam = None


class EvidenceHit(BaseModel):
    """A document found by search_evidence."""

    doc_id: str
    corpus: str
    title: str = ""
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    url: str | None = None
    score: float
    sentences: list[str] = Field(default_factory=list, description="Its best-matching sentences ('doc#i: text').")


def describe_validation_error(exc: ValidationError, what: str) -> str:
    """One line naming each bad field and why, for a person or a calling model. Refused run options
    read as the options model words them (agent/options.refusal), alone when nothing else is wrong,
    so that every entry point shows the same line for them."""
    errors = exc.errors()
    refused = [line.rstrip(".") for e in errors if (line := refused_line(e)) is not None]
    others = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in errors
              if refused_line(e) is None]
    if refused and not others:
        return "; ".join(dict.fromkeys(refused)) + "."
    return f"invalid {what} ({'; '.join([*others, *refused])})."


def validate_args(model: type[BaseModel], raw: Any) -> Any:
    """`raw` validated against `model`; a ValidationError becomes an InputError that names each bad field."""
    if raw is None:
        raw = {}
    if isinstance(raw, model):
        return raw
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, model.__name__)) from exc


def search_evidence(query: str, corpus: str, k: int = 10, *, services: Services | None = None) -> list[EvidenceHit]:
    """The best documents of a local corpus for `query`, with their best-matching sentences."""
    args = validate_args(SearchArgs, {"query": query, "corpus": corpus, "k": k})
    services = services or Services(get_settings())
    store = services.store
    names = sorted(c.name for c in store.corpora())
    if args.corpus not in names:
        have = ", ".join(names) if names else "none yet (ingest one with `claimscope ingest PATH --corpus NAME`)"
        raise InputError(f"unknown corpus {args.corpus!r}; available corpora: {have}.")
    hits = store.search(args.query, k=args.k, flt=SearchFilter(corpora=[args.corpus]), sentences_per_doc=3)
    return [
        EvidenceHit(
            doc_id=h.document.id, corpus=h.corpus or args.corpus, title=h.document.title, year=h.document.year,
            venue=h.document.venue, doi=h.document.doi, url=h.document.url, score=round(float(h.score), 6),
            sentences=[f"{s.segment.key}: {s.segment.text}" for s in h.segments],
        )
        for h in hits
    ]


def check_text(
    text: str,
    *,
    services: Services | None = None,
    claims: list[EditedClaim] | list[dict[str, Any]] | None = None,
    on_event: CheckHandler | None = None,
    cancel: Any = None,
    **options: Any,
) -> TextReport:
    """Check every check-worthy claim of `text` and return the report on the text (`TextReport`;
    `agent.report.text_render.render_text_report` renders it). `options` are ToolOptions' fields,
    the same as `investigate`'s; `claims` edits the extracted claims; `cancel` a threading.Event."""
    opts = validate_args(ToolOptions, options)
    svc = services or Services(get_settings())
    return run_check(text, services=svc, claims=claims, on_event=on_event, cancel=cancel, **opts.given())


# ------------------------------------------------------------------------------------ tool schemas

_TOOLS: dict[str, tuple[type[BaseModel], str]] = {
    INVESTIGATE_NAME: (InvestigateArgs, INVESTIGATE_DESCRIPTION),
    SEARCH_NAME: (SearchArgs, SEARCH_DESCRIPTION),
    CHECK_NAME: (CheckTextArgs, CHECK_DESCRIPTION),
}


def _schema_model(name: str) -> type[BaseModel]:
    model, description = _TOOLS[name]
    # convert_to_openai_tool takes the name and description from the class and its docstring.
    return type(name, (model,), {"__doc__": description, "__module__": __name__})


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI tool definitions ({"type": "function", "function": {...}}) for investigate_claim,
    search_evidence and check_text, generated from their argument models (references inlined)."""
    return [convert_to_openai_tool(_schema_model(name)) for name in _TOOLS]


def _tool_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input and unusable results reach the calling model as a ToolException message."""
    @wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ClaimscopeError as exc:
            raise ToolException(str(exc)) from exc

    return wrapped


def langchain_tools(services: Services | None = None) -> list[StructuredTool]:
    """LangChain tools for investigate_claim, search_evidence and check_text (same argument models as
    tool_schemas()). investigate_claim and check_text return the Markdown report as content and the
    report dict as artifact; search_evidence returns the hits as JSON text."""
    def run_investigation(claim: str, options: ToolOptions | dict[str, Any] | None = None) -> tuple[str, dict]:
        opts = validate_args(ToolOptions, options.model_dump() if isinstance(options, BaseModel) else options)
        svc = services or Services(get_settings())
        report = investigate(claim, services=svc, **opts.given())
        data = report.model_dump(mode="json")
        return render(data, "md"), data

    def run_search(query: str, corpus: str, k: int = 10) -> str:
        hits = search_evidence(query, corpus, k, services=services)
        return json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False)

    def run_check(text: str, options: ToolOptions | dict[str, Any] | None = None,
                  claims: list[EditedClaim] | list[dict[str, Any]] | None = None) -> tuple[str, dict]:
        opts = validate_args(ToolOptions, options.model_dump() if isinstance(options, BaseModel) else options)
        edits = [c.model_dump(exclude_none=True) if isinstance(c, BaseModel) else c for c in claims or []]
        report = check_text(text, services=services, claims=edits or None, **opts.given())
        data = report.model_dump(mode="json")
        return render_text_report(report, "md"), data

    return [
        StructuredTool.from_function(
            func=_tool_error(run_investigation), name=INVESTIGATE_NAME, description=INVESTIGATE_DESCRIPTION,
            args_schema=InvestigateArgs, response_format="content_and_artifact", handle_tool_error=True,
            handle_validation_error=lambda exc: describe_validation_error(exc, f"{INVESTIGATE_NAME} arguments"),
        ),
        StructuredTool.from_function(
            func=_tool_error(run_search), name=SEARCH_NAME, description=SEARCH_DESCRIPTION,
            args_schema=SearchArgs, handle_tool_error=True,
            handle_validation_error=lambda exc: describe_validation_error(exc, f"{SEARCH_NAME} arguments"),
        ),
        StructuredTool.from_function(
            func=_tool_error(run_check), name=CHECK_NAME, description=CHECK_DESCRIPTION,
            args_schema=CheckTextArgs, response_format="content_and_artifact", handle_tool_error=True,
            handle_validation_error=lambda exc: describe_validation_error(exc, f"{CHECK_NAME} arguments"),
        ),
    ]

