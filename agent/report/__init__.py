"""The investigation report: a versioned pydantic model and its JSON, Markdown and HTML renderers.

The report defines its own nested models instead of re-exporting the tools' result types, so that
its schema (what users and other programs read) changes only when SCHEMA_VERSION does. The graph
maps the tools' results onto it (agent/assemble.py).

Every piece of text in a report may come from user input or from retrieved documents, so the
Markdown renderer escapes Markdown/HTML syntax and the HTML renderer escapes everything and only
links http(s) URLs.

One module per concern: model (the versioned Report and load_report), common (what the renderers
share), markdown, html; render() below dispatches on the format. Import from the package: its names
are re-exported here.
"""

from __future__ import annotations

from typing import Any, cast, get_args

from claimscope.agent.report.common import cited_sentences
from claimscope.agent.report.html import render_html
from claimscope.agent.report.markdown import md_escape, render_markdown
from claimscope.agent.report.model import (
    DEBATE_NOTE,
    SCHEMA_VERSION,
    AntiClaimFound,
    AttributionStatus,
    Citation,
    Decision,
    DocumentView,
    EvidenceGap,
    ExplanationSentenceView,
    ExplanationView,
    Format,
    GlobalVerdicts,
    Hierarchy,
    HierarchyNode,
    LLMUsageView,
    NodeConsensus,
    PerspectiveView,
    Report,
    SegmentView,
    SourceStatus,
    SourceUsed,
    StanceRatios,
    TrustSummary,
    VerdictView,
    load_report,
)
from claimscope.tools.errors import InputError


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"


def report_format(value: str, *, option: str = "--format") -> Format:
    """`value` as a report format; InputError naming the choices when it is not one."""
    if value not in get_args(Format):
        raise InputError(f"{option} must be md, json or html, not {value!r}.")
    return cast(Format, value)


def render(report: Report | dict[str, Any] | str, fmt: str) -> str:
    """Render a report (model, dict or JSON text) as 'md', 'json' or 'html'."""
    kind = report_format(fmt, option="the report format")
    rep = load_report(report)
    if kind == "json":
        return render_json(rep)
    if kind == "md":
        return render_markdown(rep)
    return render_html(rep)


__all__ = [
    "AntiClaimFound",
    "AttributionStatus",
    "Citation",
    "DEBATE_NOTE",
    "Decision",
    "DocumentView",
    "EvidenceGap",
    "ExplanationSentenceView",
    "ExplanationView",
    "Format",
    "GlobalVerdicts",
    "Hierarchy",
    "HierarchyNode",
    "LLMUsageView",
    "NodeConsensus",
    "PerspectiveView",
    "Report",
    "SCHEMA_VERSION",
    "SegmentView",
    "SourceStatus",
    "SourceUsed",
    "StanceRatios",
    "TrustSummary",
    "VerdictView",
    "cited_sentences",
    "load_report",
    "md_escape",
    "render",
    "render_html",
    "render_json",
    "render_markdown",
    "report_format",
]
