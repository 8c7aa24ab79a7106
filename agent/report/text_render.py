"""Renderers of a checked text (Markdown, JSON, HTML): the text with each checked span marked by its
verdict and linked to that claim's section, a summary table (claim, verdict, confidence, strongest
evidence with its citation), what was not checked and why, and each claim's full report, rendered
by the claim report's own renderers. Every text is escaped as in those renderers.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from claimscope.agent.report import md_escape, render_html, render_markdown, report_format
from claimscope.agent.report.text_model import (
    CheckedClaim,
    StrongestEvidence,
    TextReport,
    load_text_report,
)

_SYMBOL = {"supported": "✓", "refuted": "✗", "mixed": "±", "insufficient evidence": "?", "not checked": "·"}
_BLANK_LINE = re.compile(r"\n\s*\n")


def _pieces(report: TextReport) -> list[tuple[str, CheckedClaim | None]]:
    """The text cut into (words, claim) pieces in order: a checked span with its claim, the rest
    with None. Overlapping spans (never made by the extraction) keep the first."""
    out: list[tuple[str, CheckedClaim | None]] = []
    at = 0
    for claim in sorted(report.claims, key=lambda c: c.start):
        if claim.start < at:
            continue
        out.append((report.text[at:claim.start], None))
        out.append((report.text[claim.start:claim.end], claim))
        at = claim.end
    out.append((report.text[at:], None))
    return [(words, claim) for words, claim in out if words]


def _confidence(c: CheckedClaim) -> str:
    return "-" if c.confidence is None else f"{c.confidence:.2f}"


def _evidence_text(e: StrongestEvidence | None) -> tuple[str, str]:
    """(the document, its cited sentence) of a claim's strongest evidence, unescaped."""
    if e is None:
        return "", ""
    doc = e.title or e.doc_id
    if e.year:
        doc += f" ({e.year})"
    cite = f"{e.finding.key}: {e.finding.text}" if e.finding is not None else ""
    return doc, cite


def _verdict_line(c: CheckedClaim) -> str:
    if c.verdict == "not checked":
        return f"not checked ({c.error or c.status})"
    return c.verdict + (f" ({c.label})" if c.label and c.label != c.verdict else "")


# ----------------------------------------------------------------------------------- Markdown

def _md_block(text: str) -> str:
    """Unchecked text escaped, its paragraph breaks kept."""
    parts = _BLANK_LINE.split(text)
    body = "\n\n".join(md_escape(p) for p in parts)
    # md_escape trims; the spaces around a marked span are part of the text.
    return (" " if text[:1].isspace() and not body.startswith("\n") else "") + body + \
        (" " if text[-1:].isspace() and not body.endswith("\n") else "")


def _demoted(markdown: str) -> str:
    """A claim report's Markdown with its headings two levels down, under the claim's own heading."""
    return "\n".join("##" + line if line.startswith("#") else line for line in markdown.splitlines())


def render_text_markdown(report: TextReport) -> str:
    r = report
    lines = ["# Checked text" + (f": {md_escape(r.source)}" if r.source else ""), ""]
    counts = ", ".join(f"{n} {v}" for v, n in r.counts().items())
    lines += [f"*Check:* `{r.check_id}`; *status:* {md_escape(r.status)}; {len(r.claims)} claims checked"
              + (f" ({counts})" if counts else "") + f", {len(r.not_check_worthy)} parts not check-worthy.", ""]
    lines += ["## The text", ""]
    body = ""
    for words, claim in _pieces(r):
        if claim is None:
            body += _md_block(words)
        else:
            body += f"**{md_escape(words)}** [[{claim.id} {_SYMBOL[claim.verdict]} {claim.verdict}]](#claim-{claim.id})"
    lines += [body.strip(), ""]
    lines += ["## Summary", "", "| claim | verdict | confidence | strongest evidence |", "|---|---|---|---|"]
    for c in r.claims:
        doc, cite = _evidence_text(c.evidence)
        ev = md_escape(doc) + (f": “{md_escape(cite)}”" if cite else "") if doc else "-"
        lines.append(f"| [{c.id}](#claim-{c.id}) {md_escape(c.text)} | {md_escape(_verdict_line(c))} | "
                     f"{_confidence(c)} | {ev} |")
    lines.append("")
    if r.not_check_worthy:
        lines += ["## Not checked", ""]
        lines += [f"- {md_escape(s.quote)} — *{md_escape(s.category)}:* {md_escape(s.reason)}" for s in r.not_check_worthy]
        lines.append("")
    if r.warnings:
        lines += ["## Warnings", ""] + [f"- {md_escape(w)}" for w in r.warnings] + [""]
    lines += ["## Claims", ""]
    for c in r.claims:
        lines += [f'<a id="claim-{c.id}"></a>', "", f"### {c.id}: {md_escape(c.text)}", ""]
        lines.append(f"*In the text:* “{md_escape(c.quote)}” (characters {c.start}–{c.end})  ")
        lines.append(f"*Verdict:* {md_escape(_verdict_line(c))}; *confidence:* {_confidence(c)}"
                     + (f"; *session:* `{c.session_id}`" if c.session_id else ""))
        lines.append("")
        if c.report is not None:
            lines += [_demoted(render_markdown(c.report)), ""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;line-height:1.5;color:#1d1d1f}h1{font-size:1.5rem}
h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}.meta{color:#555}
.text{white-space:pre-wrap;background:#fafafa;padding:1rem;border-radius:.4rem}
mark{padding:0 .1rem;border-radius:.2rem}mark a{color:inherit;text-decoration:none}
.v-supported{background:#d8f0d8}.v-refuted{background:#f6cfcf}.v-mixed{background:#fbf1d6}
.v-insufficient-evidence{background:#e4e4ee}.v-not-checked{background:#eee}
.tag{font-size:.75rem;vertical-align:super;color:#444}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;
font-size:.9rem;vertical-align:top}.small{font-size:.85rem;color:#555}
iframe{width:100%;height:40rem;border:1px solid #ddd;border-radius:.3rem}section.claim:target{background:#fff8d6}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _slug(verdict: str) -> str:
    return "v-" + verdict.replace(" ", "-")


def render_text_html(report: TextReport) -> str:
    r = report
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>Checked text{': ' + _e(r.source) if r.source else ''}</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>Checked text{': ' + _e(r.source) if r.source else ''}</h1>"]
    counts = ", ".join(f"{n} {v}" for v, n in r.counts().items())
    out.append(f'<p class="meta">Check <code>{_e(r.check_id)}</code>; status {_e(r.status)}; {len(r.claims)} '
               f"claims checked{' (' + _e(counts) + ')' if counts else ''}, {len(r.not_check_worthy)} parts not "
               "check-worthy.</p>")
    out.append('<h2>The text</h2><div class="text">')
    for words, claim in _pieces(r):
        if claim is None:
            out.append(_e(words))
        else:
            out.append(f'<mark class="{_slug(claim.verdict)}" title="{_e(claim.id + ": " + _verdict_line(claim))}">'
                       f'<a href="#claim-{_e(claim.id)}">{_e(words)}</a></mark>'
                       f'<span class="tag">{_e(claim.id)} {_e(_SYMBOL[claim.verdict])}</span>')
    out.append("</div>")
    out.append("<h2>Summary</h2><table><tr><th>claim</th><th>verdict</th><th>confidence</th>"
               "<th>strongest evidence</th></tr>")
    for c in r.claims:
        out.append(f'<tr><td><a href="#claim-{_e(c.id)}">{_e(c.id)}</a> {_e(c.text)}</td>'
                   f'<td class="{_slug(c.verdict)}">{_e(_verdict_line(c))}</td><td>{_confidence(c)}</td>'
                   f"<td>{_evidence_html(c.evidence)}</td></tr>")
    out.append("</table>")
    if r.not_check_worthy:
        out.append("<h2>Not checked</h2><ul>")
        out += [f"<li>{_e(s.quote)} <span class=\"small\">— {_e(s.category)}: {_e(s.reason)}</span></li>"
                for s in r.not_check_worthy]
        out.append("</ul>")
    if r.warnings:
        out.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{_e(w)}</li>" for w in r.warnings) + "</ul>")
    out.append("<h2>Claims</h2>")
    for c in r.claims:
        out.append(f'<section class="claim" id="claim-{_e(c.id)}"><h3>{_e(c.id)}: {_e(c.text)}</h3>')
        out.append(f"<p>In the text: “{_e(c.quote)}” <span class=\"small\">(characters {c.start}–{c.end})</span><br>"
                   f'Verdict: <span class="{_slug(c.verdict)}">{_e(_verdict_line(c))}</span>; confidence '
                   f"{_confidence(c)}{'; session <code>' + _e(c.session_id) + '</code>' if c.session_id else ''}</p>")
        if c.report is not None:
            # The claim's own report page, self-contained; sandboxed, as it holds retrieved text.
            out.append(f'<details><summary>Full report</summary><iframe sandbox="" title="report on {_e(c.id)}" '
                       f'srcdoc="{_e(render_html(c.report))}"></iframe></details>')
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _evidence_html(e: StrongestEvidence | None) -> str:
    doc, cite = _evidence_text(e)
    if e is None or not doc:
        return "-"
    name = f'<a href="{_e(e.link)}">{_e(doc)}</a>' if e.link and e.link.lower().startswith(("http://", "https://")) \
        else _e(doc)
    return name + (f'<br><span class="small">“{_e(cite)}”</span>' if cite else "")


# --------------------------------------------------------------------------------------- dispatch

_RENDERERS: dict[str, Callable[[TextReport], str]] = {
    "md": render_text_markdown,
    "html": render_text_html,
    "json": lambda r: r.model_dump_json(indent=2) + "\n",
}


def render_text_report(report: TextReport | dict[str, Any] | str, fmt: str) -> str:
    """Render a text report (model, dict or JSON text) as 'md', 'json' or 'html'."""
    return _RENDERERS[report_format(fmt, option="the report format")](load_text_report(report))
