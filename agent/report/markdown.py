"""The Markdown rendering of a report. Every text may come from user input or retrieved documents,
so Markdown and HTML syntax in it is escaped.
"""

from __future__ import annotations

import re

from claimscope.agent.report.common import (
    QUOTED_NOTE,
    _fmt_score,
    _node_counts,
    _source_order,
    _trust_line,
    _walk,
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
    unevidenced_line,
    unsettled,
    unweighed_line,
)
from claimscope.agent.report.model import DEBATE_NOTE, Citation, NodeConsensus, Report
from claimscope.tools.appraise.study_design import design_name

_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}<>|#!~])")




def md_escape(text: str) -> str:
    """Backslash-escape Markdown (and raw HTML) syntax; collapse newlines so text stays inline."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _md_bar(c: NodeConsensus, width: int = 20) -> str:
    """The consensus as a bar of shares, '' for one resting on too little to be a share of anything."""
    if unsettled(c):
        return ""
    r = c.weighted_ratios
    if r.support + r.neutral + r.oppose == 0:  # all weights zero: show the plain counts
        r = c.raw_ratios
    s, o = round(r.support * width), round(r.oppose * width)
    n = max(0, width - s - o) if (c.support + c.neutral + c.oppose) else 0
    return "`" + "+" * s + "." * n + "-" * o + "`" if (s + n + o) else "`(no segments)`"


def render_markdown(report: Report) -> str:
    r = report
    refs = {d: i + 1 for i, d in enumerate(_source_order(r))}
    docs = document_views(r)

    def cite(c: Citation) -> str:
        return f"[{refs.get(c.doc_id, '?')}:{c.sentence}]"

    lines: list[str] = [f"# Claim: {md_escape(r.claim)}", ""]
    if r.anti_claim:
        lines.append(f"*Opposite claim searched:* {md_escape(r.anti_claim)}  ")
        if r.anti_claim_found is not None:
            lines.append(f"*Found only by the opposite claim's search:* {anti_claim_found(r, refs)}  ")
    if r.claim_type:
        lines.append(f"*Claim type:* {md_escape(r.claim_type)}  ")
    if r.claim_kind == "debate":
        lines.append(f"*Read as:* {md_escape(DEBATE_NOTE)}  ")
    if r.sub_claims:
        lines.append("*Sub-claims:* " + "; ".join(md_escape(s) for s in r.sub_claims) + "  ")
    lines.append(f"*Status:* {md_escape(r.status.replace('_', ' '))}")
    lines.append("")

    v = r.verdict
    lines += [
        "## Verdict",
        "",
        f"**{v.weighted.label.value}** (weighted score {_fmt_score(v.weighted.score)}, "
        f"confidence {v.confidence:.2f})  ",
        f"Unweighted: {v.unweighted.label.value} ({_fmt_score(v.unweighted.score)}); "
        f"{v.n_evidence} of {v.n_documents} documents with evidence.",
        "",
    ]
    if r.designs:
        lines += [f"*Study designs:* {md_escape(r.designs)}", ""]

    lines += ["## Explanation", ""]
    shown = [s for s in r.explanation.sentences if s.status != "dropped"]
    if r.evidence_gap is not None:
        lines += [f"- {_with_code(t, md_escape, lambda c: f'`{c}`')}" for t in r.evidence_gap.summary]
    elif not shown:
        lines.append("No explanation could be attributed to the evidence.")
    for s in shown:
        mark = (
            " *(interpretation: not supported by the cited sentences)*"
            if s.status == "interpretation"
            else " *(revised to what the cited sentences say)*" if s.revised_from
            else ""
        )
        cites = " ".join(cite(c) for c in s.citations)
        lines.append(f"- {md_escape(s.text)} {cites}{mark}".rstrip())
    if r.explanation.mode == "extractive" and shown:
        lines += [
            "",
            f"*{QUOTED_NOTE}*",
        ]
    lines.append("")

    lines += ["## Aspects", ""]
    if not r.hierarchy.nodes:
        lines.append("No aspect hierarchy was built.")
    for node, depth in _walk(r.hierarchy):
        indent = "  " * depth
        c = node.consensus
        summary = ""
        if c is not None:
            bar = _md_bar(c)
            summary = f"{' ' + bar if bar else ''} {md_escape(consensus_words(c))} ({_node_counts(c)})"
        lines.append(f"{indent}- **{md_escape(node.name)}**{summary}")
        if node.description:
            lines.append(f"{indent}  {md_escape(node.description)}")
        if node.keywords:
            lines.append(f"{indent}  *keywords:* {md_escape(', '.join(node.keywords))}")
        if node.designs:
            lines.append(f"{indent}  *designs:* {md_escape(node.designs)}")
        for p in node.perspectives:
            cites = " ".join(cite(c) for c in p.citations)
            lines.append(f"{indent}  - *{p.stance.value}:* {md_escape(p.summary)} {cites}".rstrip())
        for seg in shown_segments(node):
            ref = cite(Citation(doc_id=seg.doc_id, sentence=seg.sentence))
            lines.append(f'{indent}  - ({seg.stance.value}) "{md_escape(seg.text)}" {ref}')
    if empty := unevidenced_line(r.hierarchy):
        lines += ["", f"*No evidence classified under:* {md_escape(empty)}"]
    lines.append("")

    lines += ["## Documents", ""]
    rows = table_order(r)
    if rows:
        lines += [
            "| # | document | year | label | reputation | trust |",
            "|---|---|---|---|---|---|",
        ]
    for doc_id, d in rows:
        if d is None:  # cited, with nothing else known of it
            lines.append(f"| {refs[doc_id]} | {md_escape(doc_id)} | - | {label_cell(r, d)} | - | - |")
            continue
        title = md_escape(source_name(d, d.id))
        link = d.link
        name = f"[{title}](<{link}>)" if link else title
        label = label_cell(r, d)
        if d.sign_conflict:
            label += " (sign conflict)"
        rep = "-" if d.reputation is None else f"{d.reputation:.2f}"
        tr = "-" if d.trust is None else f"{d.trust:.2f}"
        if d.retracted:
            name = f"**RETRACTED** {name}"
        lines.append(f"| {refs[d.id]} | {name} | {d.year or '-'} | {label} | {rep} | {tr} |")
    if note := unweighed_line(r, refs):
        lines += ["", f"*{md_escape(note)}*"]
    lines.append("")
    lines += _md_evidence_table(r, refs)
    for d in r.documents:
        if d.takeaway or d.label_explanation:
            lines.append(f"**[{refs[d.id]}] {md_escape(source_name(d, d.id))}**  ")
            if d.takeaway:
                lines.append(f"Takeaway: {md_escape(d.takeaway)}  ")
            if d.label_explanation:
                lines.append(
                    f"Why {d.local_label.value if d.local_label else 'this label'}: {md_escape(d.label_explanation)}"
                    + ("  " if d.disagreement else "")
                )
            if d.disagreement:
                lines.append(f"Judges disagreed: {md_escape(d.disagreement)}")
            lines.append("")
    for d in r.documents:
        if d.notices:
            lines.append(f"**[{refs[d.id]}] {'Retracted' if d.retracted else 'Notices'}:** "
                         + "; ".join(md_escape(n) for n in d.notices))
            lines.append("")

    lines += ["## Cited sentences", ""]
    cited = cited_sentences(r)
    for doc_id in (d for d in _source_order(r) if d in cited):
        sents = cited[doc_id]
        title = source_name(docs.get(doc_id))
        lines.append(f"**[{refs[doc_id]}] {md_escape(title)}** ({md_escape(doc_id)})")
        for idx, text in sents.items():
            lines.append(f"- {idx}: {md_escape(text)}")
        lines.append("")

    lines += _md_footer(r)
    return "\n".join(lines).rstrip() + "\n"


def _md_evidence_table(r: Report, refs: dict[str, int]) -> list[str]:
    """One row per document with a label: design, population and size, what the finding compares (intervention,
    comparator, outcome), direction and the sentence it rests on."""
    rows = [d for d in r.documents if d.local_label is not None or d.design or d.finding]
    if not rows:
        return []
    lines = ["### Evidence table", "",
             "| # | design | population (n) | intervention | comparator | outcome | direction | finding | label | "
             "reputation | trust |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in rows:
        design = md_escape(design_name(d.design)) if d.design else "-"
        if d.retracted:
            design = f"**RETRACTED** {design}"
        finding = (f'"{md_escape(d.finding.text)}" [{refs[d.id]}:{d.finding.sentence}]'
                   if d.finding and d.finding.text else "-")
        lines.append(
            f"| {refs[d.id]} | {design} | {md_escape(population_cell(d))} | "
            f"{md_escape(d.intervention or '-')} | {md_escape(d.comparator or '-')} | {md_escape(d.outcome or '-')} | "
            f"{d.direction or '-'} | {finding} | {label_cell(r, d)} | "
            f"{'-' if d.reputation is None else f'{d.reputation:.2f}'} | {'-' if d.trust is None else f'{d.trust:.2f}'} |")
    return [*lines, ""]


def _md_footer(r: Report) -> list[str]:
    lines: list[str] = []
    if r.sources:
        lines += ["## Sources searched", ""]
        for s in r.sources:
            detail = f" ({md_escape(s.detail)})" if s.detail else ""
            lines.append(f"- {md_escape(s.name)}: {s.status}, {s.documents} documents{detail}")
        lines.append("")
    if r.warnings:
        lines += ["## Warnings", ""] + [f"- {md_escape(w)}" for w in r.warnings] + [""]
    if r.decisions:
        lines += ["## Decisions", ""]
        lines += [f"- {md_escape(d.step)}: {md_escape(d.choice)}" for d in r.decisions] + [""]
    t = r.trust
    u = r.usage
    lines += [
        "## Run",
        "",
        f"- {_trust_line(t)}",
        f"- LLM: {md_escape(u.model) or '-'}, {u.calls} calls, {u.prompt_tokens} prompt + "
        f"{u.completion_tokens} completion tokens"
        + (f", ${u.cost_usd:.4f}" if u.cost_usd is not None else ""),
    ]
    if r.timings:
        total = sum(r.timings.values())
        steps = ", ".join(f"{md_escape(k)} {v:.1f}s" for k, v in r.timings.items())
        lines.append(f"- Time: {total:.1f}s ({steps})")
    lines.append(
        f"- Report schema {r.schema_version}" + (f", {r.created_at}" if r.created_at else "")
    )
    return lines
