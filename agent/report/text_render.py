"""Renderers of a checked text (Markdown, JSON, HTML): the text with each checked span marked by its
verdict and linked to that claim's section, a summary table (claim, verdict, confidence, strongest
evidence with its citation), what was not checked and why, and each claim's full report, rendered
by the claim report's own renderers. Every text is escaped as in those renderers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from claimscope.agent.report import md_escape, render_html, render_markdown, report_format
from claimscope.agent.report.html import escape as _e
from claimscope.agent.report.text_model import (
    CheckedClaim,
    StrongestEvidence,
    TextReport,
    load_text_report,
)

_SYMBOL = {"supported": "✓", "refuted": "✗", "mixed": "±", "insufficient evidence": "?", "not checked": "·"}
_BLANK_LINE = re.compile(r"\n\s*\n")


class _Span(Protocol):
    start: int
    end: int


S = TypeVar("S", bound=_Span)


def text_pieces(text: str, spans: Sequence[S]) -> list[tuple[str, S | None]]:
    """`text` cut into (words, span) pieces in order: each span's words with it, the rest with
    None. Overlapping spans (never made by the extraction) keep the first."""
    out: list[tuple[str, S | None]] = []
    at = 0
    for span in sorted(spans, key=lambda c: c.start):
        if span.start < at:
            continue
        out.append((text[at:span.start], None))
        out.append((text[span.start:span.end], span))
        at = span.end
    out.append((text[at:], None))
    return [(words, span) for words, span in out if words]


def _pieces(report: TextReport) -> list[tuple[str, CheckedClaim | None]]:
    return text_pieces(report.text, report.claims)


def _shown_verdicts(report: TextReport) -> list[str]:
    """The verdicts the marked text shows, in the verdicts' order (its legend)."""
    return list(report.counts())


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def summary_line(report: TextReport) -> str:
    """'4 claims (1 refuted, 1 mixed, 2 insufficient evidence), 1 part not check-worthy'."""
    counts = ", ".join(f"{n} {v}" for v, n in report.counts().items())
    return (_plural(len(report.claims), "claim", "claims") + (f" ({counts})" if counts else "")
            + ", " + _plural(len(report.not_check_worthy), "part", "parts") + " not check-worthy")


def _confidence(c: CheckedClaim) -> str:
    return "-" if c.confidence is None else f"{c.confidence:.2f}"


def _evidence_text(e: StrongestEvidence | None) -> tuple[str, str]:
    """(the document, its cited sentence) of a claim's strongest evidence, unescaped."""
    if e is None:
        return "", ""
    # A title's own full stop would meet the sentence's colon ("... cohort study.: “...”").
    doc = (e.title or e.doc_id).rstrip(" .")
    if e.year:
        doc += f" ({e.year})"
    cite = f"“{e.finding.text}” ({e.finding.key})" if e.finding is not None else ""
    return doc, cite


def _verdict_line(c: CheckedClaim) -> str:
    if c.verdict == "not checked":
        return f"not checked ({c.error or c.status})"
    return c.verdict + (f" ({c.label})" if c.label and c.label != c.verdict else "")


# ----------------------------------------------------------------------------------- Markdown

def _md_block(text: str) -> str:
    """Unchecked text escaped, its paragraph breaks kept."""
    if not text.strip():  # the space between two marked spans: one space, or its paragraph break
        return "\n\n" if _BLANK_LINE.search(text) else " "
    parts = _BLANK_LINE.split(text)
    body = "\n\n".join(md_escape(p) for p in parts)
    # md_escape trims; the spaces around a marked span are part of the text.
    return (" " if text[:1].isspace() and not body.startswith("\n") else "") + body + \
        (" " if text[-1:].isspace() and not body.endswith("\n") else "")


def _demoted(markdown: str) -> str:
    """A claim report's Markdown under the claim's own heading: without its title (the claim, which
    that heading already says) and with its sections two levels down."""
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join("##" + line if line.startswith("#") else line for line in lines).strip("\n")


def render_text_markdown(report: TextReport) -> str:
    r = report
    lines = ["# Checked text" + (f": {md_escape(r.source)}" if r.source else ""), ""]
    lines += [f"*Check:* `{r.check_id}`; *status:* {md_escape(r.status)}; {md_escape(summary_line(r))}.", ""]
    lines += ["## The text", ""]
    body = ""
    for words, claim in _pieces(r):
        if claim is None:
            body += _md_block(words)
        else:
            body += f"**{md_escape(words)}** [[{claim.id} {_SYMBOL[claim.verdict]} {claim.verdict}]](#claim-{claim.id})"
    lines += [body.strip(), ""]
    if r.claims:
        lines += ["*Marks:* " + ", ".join(f"{_SYMBOL[v]} {v}" for v in _shown_verdicts(r)) + ".", ""]
    lines += ["## Summary", "", "| claim | verdict | confidence | strongest evidence |", "|---|---|---|---|"]
    for c in r.claims:
        doc, cite = _evidence_text(c.evidence)
        ev = md_escape(doc) + (f": {md_escape(cite)}" if cite else "") if doc else "-"
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
.tag{font-size:.75rem;vertical-align:super;color:#444}table.summary td:nth-child(2){white-space:nowrap}.legend span{padding:0 .3rem;border-radius:.2rem;margin-right:.3rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;
font-size:.9rem;vertical-align:top}.small{font-size:.85rem;color:#555}
iframe{width:100%;height:40rem;border:1px solid #ddd;border-radius:.3rem}section.claim:target{background:#fff8d6}
"""


def _slug(verdict: str) -> str:
    return "v-" + verdict.replace(" ", "-")


ClaimLink = Callable[[CheckedClaim], "str | None"]


def _html_body(r: TextReport, claim_link: ClaimLink | None) -> list[str]:
    """The report's body. With `claim_link`, each claim's full report is the page it links to
    (the web app's session page); without, it is embedded below its claim."""
    def target(c: CheckedClaim) -> str:
        url = claim_link(c) if claim_link is not None else None
        return _e(url) if url else f"#claim-{_e(c.id)}"

    out = []
    if claim_link is None:  # the web page says where the check stands in its own header
        out.append(f'<p class="meta">Check <code>{_e(r.check_id)}</code>; status {_e(r.status)}; '
                   f"{_e(summary_line(r))}.</p>")
    # One string: the text keeps its own line breaks (white-space: pre-wrap), and no others.
    text = ""
    for words, claim in _pieces(r):
        if claim is None:
            text += _e(words)
        else:
            text += (f'<mark class="{_slug(claim.verdict)}" data-claim="{_e(claim.id)}" '
                     f'title="{_e(claim.id + ": " + _verdict_line(claim))}">'
                     f'<a href="{target(claim)}">{_e(words)}</a></mark>'
                     f'<span class="tag">{_e(claim.id)} {_e(_SYMBOL[claim.verdict])}</span>')
    out.append(f'<h2>The text</h2><div class="text">{text.strip()}</div>')
    if r.claims:
        out.append('<p class="legend small">' + " ".join(
            f'<span class="{_slug(v)}">{_e(_SYMBOL[v])} {_e(v)}</span>' for v in _shown_verdicts(r)) + "</p>")
    out.append('<h2>Summary</h2><table class="summary"><tr><th>claim</th><th>verdict</th><th>confidence</th>'
               "<th>strongest evidence</th></tr>")
    for c in r.claims:
        out.append(f'<tr><td><a href="{target(c)}">{_e(c.id)}</a> {_e(c.text)}</td>'
                   f'<td class="{_slug(c.verdict)}">{_e(_verdict_line(c))}</td><td>{_confidence(c)}</td>'
                   f"<td>{_evidence_html(c.evidence)}</td></tr>")
    out.append("</table>")
    if r.not_check_worthy:
        out.append('<h2>Not checked</h2><ul class="not-checked">')
        out += [f"<li>{_e(s.quote)} <span class=\"small\">— {_e(s.category)}: {_e(s.reason)}</span></li>"
                for s in r.not_check_worthy]
        out.append("</ul>")
    if r.warnings:
        out.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{_e(w)}</li>" for w in r.warnings) + "</ul>")
    if claim_link is not None:
        return out
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
    return out


def render_text_html(report: TextReport) -> str:
    r = report
    title = f"Checked text{': ' + _e(r.source) if r.source else ''}"
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{title}</title>", f"<style>{_CSS}</style></head><body>", f"<h1>{title}</h1>",
           *_html_body(r, None), "</body></html>"]
    return "\n".join(out) + "\n"


def marked_text_html(report: TextReport, claim_link: ClaimLink) -> tuple[str, str]:
    """(stylesheet, body) of the report on a text for a page of the web app: the marked text, the
    summary, what was not checked; each claim linked by `claim_link` to its own full report."""
    return _CSS, "\n".join(_html_body(report, claim_link))


def _evidence_html(e: StrongestEvidence | None) -> str:
    doc, cite = _evidence_text(e)
    if e is None or not doc:
        return "-"
    name = f'<a href="{_e(e.link)}">{_e(doc)}</a>' if e.link and e.link.lower().startswith(("http://", "https://")) \
        else _e(doc)
    return name + (f'<br><span class="small">{_e(cite)}</span>' if cite else "")


# --------------------------------------------------------------------------------------- dispatch

_RENDERERS: dict[str, Callable[[TextReport], str]] = {
    "md": render_text_markdown,
    "html": render_text_html,
    "json": lambda r: r.model_dump_json(indent=2) + "\n",
}


def render_text_report(report: TextReport | dict[str, Any] | str, fmt: str) -> str:
    """Render a text report (model, dict or JSON text) as 'md', 'json' or 'html'."""
    return _RENDERERS[report_format(fmt, option="the report format")](load_text_report(report))
