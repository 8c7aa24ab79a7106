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

from typing import Any

from claimscope.agent.report.common import cited_sentences
from claimscope.agent.report.html import render_html
from claimscope.agent.report.markdown import md_escape, render_markdown
from claimscope.agent.report.model import (
    DEBATE_NOTE,
    SCHEMA_VERSION,
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


def render(report: Report | dict[str, Any] | str, fmt: Format) -> str:
    """Render a report (model, dict or JSON text) as 'md', 'json' or 'html'."""
    rep = load_report(report)
    if fmt == "json":
        return render_json(rep)
    if fmt == "md":
        return render_markdown(rep)
    if fmt == "html":
        return render_html(rep)
    raise InputError(f"unknown report format {fmt!r}; use md, json or html.")


__all__ = [
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
]
