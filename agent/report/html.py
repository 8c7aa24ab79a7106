"""The HTML rendering of a report: one self-contained page. Every text is escaped and only http(s)
URLs are linked.
"""

from __future__ import annotations

import html
from typing import Any

from claimscope.agent.report.common import (
    QUOTED_NOTE,
    _fmt_score,
    _node_counts,
    _source_order,
    _subtree,
    _trust_line,
    _with_code,
    anti_claim_found,
    cited_sentences,
    consensus_words,
    document_views,
    label_cell,
    population_cell,
    shown_segments,
    source_name,
    table_order,
    unevidenced,
    unevidenced_line,
    unsettled,
    unweighed_line,
)
from claimscope.agent.report.model import DEBATE_NOTE, Citation, Hierarchy, NodeConsensus, Report
from claimscope.tools.appraise.study_design import design_name
from claimscope.tools.weigh.verdict import GlobalLabel

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;line-height:1.45;color:#1d1d1f}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
.meta{color:#555}.verdict{font-size:1.2rem;padding:.6rem .9rem;border-radius:.4rem;background:#f3f3f3}
.l-generally-supported{background:#d8f0d8}.l-leaning-supported{background:#eaf6e3}
.l-controversial{background:#fbf1d6}.l-leaning-refuted{background:#fbe4dc}.l-generally-refuted{background:#f6cfcf}
.bar{display:inline-flex;width:10rem;height:.8rem;border-radius:.2rem;overflow:hidden;
vertical-align:middle;background:#eee;margin:0 .4rem}
.bar span{display:block;height:100%}.b-s{background:#3a9b47}.b-n{background:#b9b9b9}.b-o{background:#c8423b}
.bar.thin{background:#f7f7f7;outline:1px dashed #bbb}
.bar.thin .b-s{background:repeating-linear-gradient(135deg,#9fd1a6 0 3px,#f7f7f7 3px 6px)}
.bar.thin .b-n{background:repeating-linear-gradient(135deg,#d6d6d6 0 3px,#f7f7f7 3px 6px)}
.bar.thin .b-o{background:repeating-linear-gradient(135deg,#e3a29e 0 3px,#f7f7f7 3px 6px)}
span.thin{color:#555;font-style:italic}
ul.tree,ul.tree ul{list-style:none;padding-left:1.2rem}ul.tree{padding-left:0}
.node-name{font-weight:600}.kw{color:#666;font-size:.85rem}.seg{font-size:.9rem;color:#333}
.st-support{color:#2d7a37}.st-refute{color:#a4322c}.st-neutral{color:#666}
.interp{color:#8a6d00;font-style:italic}a.cite{text-decoration:none;font-size:.8rem;vertical-align:super}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;
font-size:.9rem}.conflict{color:#a4322c}.src li{margin:.2rem 0}.src li:target{background:#fff3b0}
.small{font-size:.85rem;color:#555}.retracted{background:#a4322c;color:#fff;font-weight:700;font-size:.75rem;
padding:0 .3rem;border-radius:.2rem}.retracted-note{color:#a4322c}
"""


def escape(text: object) -> str:
    """Any value as HTML text (quotes escaped too, for attribute values)."""
    return html.escape(str(text), quote=True)


_e = escape


def _slug(label: GlobalLabel) -> str:
    return "l-" + label.value.replace(" ", "-")


def render_html(report: Report) -> str:
    r = report
    order = _source_order(r)
    refs = {d: i + 1 for i, d in enumerate(order)}
    docs = document_views(r)

    def anchor(doc_id: str, idx: int | None = None) -> str:
        base = f"src{refs[doc_id]}" if doc_id in refs else "src0"
        return base if idx is None else f"{base}-s{idx}"

    def cite(c: Citation) -> str:
        title = _e(c.text) if c.text else _e(c.key)
        return (
            f'<a class="cite" href="#{anchor(c.doc_id, c.sentence)}" title="{title}">'
            f"[{refs.get(c.doc_id, '?')}:{c.sentence}]</a>"
        )

    def bar(c: NodeConsensus) -> str:
        rt = c.weighted_ratios
        if rt.support + rt.neutral + rt.oppose == 0:
            rt = c.raw_ratios
        parts = [
            ("b-s", rt.support, "support"),
            ("b-n", rt.neutral, "neutral"),
            ("b-o", rt.oppose, "oppose"),
        ]
        spans = "".join(
            f'<span class="{cls}" style="width:{100 * v:.1f}%" title="{name} {100 * v:.0f}%"></span>'
            for cls, v, name in parts
            if v > 0
        )
        if unsettled(c):
            # hatched and pale: what a few sentences say, not the share of a settled body of evidence
            return (f'<span class="bar thin" role="img" aria-label="too few sentences for a consensus" '
                    f'title="too few sentences for a consensus">{spans}</span>')
        return f'<span class="bar" role="img" aria-label="consensus">{spans}</span>'

    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>claimscope: {_e(r.claim)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(r.claim)}</h1>",
        '<p class="meta">',
    ]
    meta = []
    if r.anti_claim:
        meta.append(f"Opposite claim searched: <em>{_e(r.anti_claim)}</em>")
        if r.anti_claim_found is not None:
            meta.append(f"Found only by the opposite claim's search: {_e(anti_claim_found(r, refs))}")
    if r.claim_type:
        meta.append(f"Claim type: {_e(r.claim_type)}")
    if r.claim_kind == "debate":
        meta.append(f"Read as: {_e(DEBATE_NOTE)}")
    if r.sub_claims:
        meta.append("Sub-claims: " + "; ".join(_e(s) for s in r.sub_claims))
    meta.append(f"Status: {_e(r.status.replace('_', ' '))}")
    out += ["<br>".join(meta), "</p>"]

    v = r.verdict
    out += [
        f'<div class="verdict {_slug(v.weighted.label)}"><strong>{_e(v.weighted.label.value)}</strong>'
        f" (weighted score {_e(_fmt_score(v.weighted.score))}, confidence {v.confidence:.2f})<br>"
        f'<span class="small">Unweighted: {_e(v.unweighted.label.value)} '
        f"({_e(_fmt_score(v.unweighted.score))}); {v.n_evidence} of {v.n_documents} documents "
        "with evidence.</span></div>",
        *([f'<p class="small">Study designs: {_e(r.designs)}</p>'] if r.designs else []),
        "<h2>Explanation</h2>",
    ]
    shown = [s for s in r.explanation.sentences if s.status != "dropped"]
    if shown:
        out.append("<p>")
        for s in shown:
            cites = "".join(cite(c) for c in s.citations)
            if s.status == "interpretation":
                out.append(
                    f'<span class="interp" title="not supported by the cited sentences">{_e(s.text)}</span>{cites} '
                )
            elif s.revised_from:
                out.append(f'<span title="revised to what the cited sentences say; first wording: '
                           f'{_e(s.revised_from)}">{_e(s.text)}</span>{cites} ')
            else:
                out.append(f"<span>{_e(s.text)}</span>{cites} ")
        out.append("</p>")
        if any(s.status == "interpretation" for s in shown):
            out.append(
                '<p class="small"><span class="interp">Italic</span> sentences are interpretation: '
                "the stance model did not find them supported by the sentences they cite.</p>"
            )
    elif r.evidence_gap is not None:
        out.append("<ul>" + "".join(f"<li>{_with_code(t, _e, lambda c: f'<code>{_e(c)}</code>')}</li>"
                                    for t in r.evidence_gap.summary) + "</ul>")
    else:
        out.append("<p>No explanation could be attributed to the evidence.</p>")
    if r.explanation.mode == "extractive" and shown:
        out.append(
            f'<p class="small">{QUOTED_NOTE}</p>'
        )

    out.append("<h2>Aspects</h2>")
    out += _html_tree(r.hierarchy, bar, cite)

    out.append("<h2>Documents</h2>")
    if rows := table_order(r):
        out.append(
            "<table><tr><th>#</th><th>document</th><th>year</th><th>label</th><th>reputation</th>"
            "<th>trust</th></tr>"
        )
        for doc_id, row in rows:
            if row is None:  # cited, with nothing else known of it
                out.append(f'<tr><td><a href="#{anchor(doc_id)}">{refs[doc_id]}</a></td><td>{_e(doc_id)}</td>'
                           f"<td>-</td><td>{_e(label_cell(r, row))}</td><td>-</td><td>-</td></tr>")
                continue
            d = row
            link = d.link
            title = _e(source_name(d, d.id))
            name = f'<a href="{_e(link)}" rel="noopener noreferrer">{title}</a>' if link else title
            label = _e(label_cell(r, d))
            if d.sign_conflict:
                why = _e(d.disagreement) if d.disagreement else "label and cited stance disagree in sign"
                label += f' <span class="conflict" title="{why}">(sign conflict)</span>'
            comps = ", ".join(f"{_e(k)} {val:.2f}" for k, val in d.reputation_components.items())
            rep = (
                "-" if d.reputation is None else f'<span title="{comps}">{d.reputation:.2f}</span>'
            )
            tr = "-" if d.trust is None else f"{d.trust:.2f}"
            if d.retracted:
                name = f'<span class="retracted">RETRACTED</span> {name}'
            out.append(
                f'<tr><td><a href="#{anchor(d.id)}">{refs[d.id]}</a></td><td>{name}'
                f"{'<br><span class=small>' + _e(d.venue) + '</span>' if d.venue else ''}</td>"
                f"<td>{d.year or '-'}</td><td>{label}</td><td>{rep}</td><td>{tr}</td></tr>"
            )
        out.append("</table>")
        if note := unweighed_line(r, refs):
            out.append(f'<p class="small">{_e(note)}</p>')
        out += _html_evidence_table(r, refs, anchor)
        for d in r.documents:
            if d.notices:
                out.append(f'<p class="{"retracted-note" if d.retracted else "small"}"><strong>[{refs[d.id]}] '
                           f'{"Retracted" if d.retracted else "Notices"}:</strong> '
                           + "; ".join(_e(n) for n in d.notices) + "</p>")
        for d in r.documents:
            if d.takeaway or d.label_explanation:
                out.append(f"<p><strong>[{refs[d.id]}] {_e(source_name(d, d.id))}</strong><br>")
                if d.takeaway:
                    out.append(f"Takeaway: {_e(d.takeaway)}<br>")
                if d.label_explanation:
                    out.append(f"Label: {_e(d.label_explanation)}")
                out.append("</p>")
    else:
        out.append("<p>No documents were assessed.</p>")

    out.append('<h2>Sources</h2><ol class="src">')
    cited = cited_sentences(r)
    for doc_id in order:
        listed = docs.get(doc_id)
        title = _e(source_name(listed))
        out.append(
            f'<li id="{anchor(doc_id)}" value="{refs[doc_id]}"><strong>{title}</strong> '
            f'<span class="small">({_e(doc_id)})</span><ul>'
        )
        for idx, text in cited.get(doc_id, {}).items():
            out.append(
                f'<li id="{anchor(doc_id, idx)}"><span class="small">sentence {idx}:</span> {_e(text)}</li>'
            )
        out.append("</ul></li>")
    out.append("</ol>")

    out += _html_footer(r)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _html_evidence_table(r: Report, refs: dict[str, int], anchor: Any) -> list[str]:
    """One row per document with a label: design, population and size, what the finding compares (intervention,
    comparator, outcome), direction and the sentence it rests on."""
    rows = [d for d in r.documents if d.local_label is not None or d.design or d.finding]
    if not rows:
        return []
    out = ["<h3>Evidence table</h3>",
           "<table><tr><th>#</th><th>design</th><th>population (n)</th><th>intervention</th><th>comparator</th>"
           "<th>outcome</th><th>direction</th><th>finding</th><th>label</th><th>reputation</th><th>trust</th></tr>"]
    for d in rows:
        design = _e(design_name(d.design)) if d.design else "-"
        if d.retracted:
            design = f'<span class="retracted">RETRACTED</span> {design}'
        finding = "-"
        if d.finding and d.finding.text:
            finding = (f'&ldquo;{_e(d.finding.text)}&rdquo; <a class="cite" href="#{anchor(d.id, d.finding.sentence)}">'
                       f"[{refs[d.id]}:{d.finding.sentence}]</a>")
        out.append(
            f'<tr><td><a href="#{anchor(d.id)}">{refs[d.id]}</a></td><td>{design}</td>'
            f"<td>{_e(population_cell(d))}</td><td>{_e(d.intervention or '-')}</td>"
            f"<td>{_e(d.comparator or '-')}</td><td>{_e(d.outcome or '-')}</td><td>{_e(d.direction or '-')}</td>"
            f"<td>{finding}</td><td>{_e(label_cell(r, d))}</td>"
            f"<td>{'-' if d.reputation is None else f'{d.reputation:.2f}'}</td>"
            f"<td>{'-' if d.trust is None else f'{d.trust:.2f}'}</td></tr>")
    out.append("</table>")
    return out


def _html_tree(h: Hierarchy, bar: Any, cite: Any) -> list[str]:
    if not h.nodes:
        return ["<p>No aspect hierarchy was built.</p>"]
    nodes = h.by_id()
    seen: set[str] = set()
    out: list[str] = ['<ul class="tree">']

    def visit(node_id: str) -> None:
        node = nodes.get(node_id)
        if node is None or node_id in seen:
            return
        if unevidenced(node, h.root):
            seen.update(n.id for n in _subtree(h, node_id))
            return
        seen.add(node_id)
        c = node.consensus
        head = f'<span class="node-name">{_e(node.name)}</span>'
        if c is not None:
            head += (
                f'{bar(c)}<span class="{"thin" if unsettled(c) else _slug(c.label)}">{_e(consensus_words(c))}</span> '
                f'<span class="small">({_e(_node_counts(c))})</span>'
            )
        out.append(f"<li>{head}")
        if node.description:
            out.append(f"<div>{_e(node.description)}</div>")
        if node.keywords:
            out.append(f'<div class="kw">keywords: {_e(", ".join(node.keywords))}</div>')
        if node.designs:
            out.append(f'<div class="kw">designs: {_e(node.designs)}</div>')
        for p in node.perspectives:
            cites = "".join(cite(ci) for ci in p.citations)
            out.append(
                f'<div class="seg"><span class="st-{p.stance.value}">{_e(p.stance.value)}:</span> '
                f"{_e(p.summary)}{cites}</div>"
            )
        for seg in shown_segments(node):
            ref = cite(Citation(doc_id=seg.doc_id, sentence=seg.sentence, text=seg.text))
            out.append(
                f'<div class="seg"><span class="st-{seg.stance.value}">({_e(seg.stance.value)})</span> '
                f"&ldquo;{_e(seg.text)}&rdquo;{ref}</div>"
            )
        kids = [k for k in node.children if k in nodes and k not in seen]
        if kids:
            out.append("<ul>")
            for k in kids:
                visit(k)
            out.append("</ul>")
        out.append("</li>")

    visit(h.root)
    for n in h.nodes:
        visit(n.id)
    out.append("</ul>")
    if empty := unevidenced_line(h):
        out.append(f'<p class="small">No evidence classified under: {_e(empty)}</p>')
    return out


def _html_footer(r: Report) -> list[str]:
    out: list[str] = []
    if r.sources:
        out.append("<h2>Sources searched</h2><ul>")
        for s in r.sources:
            detail = f" ({_e(s.detail)})" if s.detail else ""
            out.append(f"<li>{_e(s.name)}: {_e(s.status)}, {s.documents} documents{detail}</li>")
        out.append("</ul>")
    if r.warnings:
        out.append(
            "<h2>Warnings</h2><ul>" + "".join(f"<li>{_e(w)}</li>" for w in r.warnings) + "</ul>"
        )
    if r.decisions:
        out.append(
            "<h2>Decisions</h2><ul>"
            + "".join(f"<li>{_e(d.step)}: {_e(d.choice)}</li>" for d in r.decisions)
            + "</ul>"
        )
    t, u = r.trust, r.usage
    run = [
        _trust_line(t),
        f"LLM: {_e(u.model) or '-'}, {u.calls} calls, {u.prompt_tokens} prompt + {u.completion_tokens} completion tokens"
        + (f", ${u.cost_usd:.4f}" if u.cost_usd is not None else ""),
    ]
    if r.timings:
        steps = ", ".join(f"{_e(k)} {v:.1f}s" for k, v in r.timings.items())
        run.append(f"Time: {sum(r.timings.values()):.1f}s ({steps})")
    run.append(
        f"Report schema {_e(r.schema_version)}" + (f", {_e(r.created_at)}" if r.created_at else "")
    )
    out.append('<h2>Run</h2><ul class="small">' + "".join(f"<li>{x}</li>" for x in run) + "</ul>")
    return out
