"""The investigation report: a versioned pydantic model and its JSON, Markdown and HTML renderers.

The report defines its own nested models instead of re-exporting the tools' result types, so that
its schema (what users and other programs read) changes only when SCHEMA_VERSION does. The graph
maps the tools' results onto it (agent/assemble.py).

Every piece of text in a report may come from user input or from retrieved documents, so the
Markdown renderer escapes Markdown/HTML syntax and the HTML renderer escapes everything and only
links http(s) URLs.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from claimscope.tools.errors import InputError
from claimscope.tools.models import SentenceKey, Stance
from claimscope.tools.verdict import Consensus, GlobalLabel, LocalLabel, Verdict

SCHEMA_VERSION = "1"

AttributionStatus = Literal["supported", "interpretation", "dropped"]
SourceStatus = Literal["ok", "cached", "failed", "skipped"]
Format = Literal["md", "json", "html"]


# ---------------------------------------------------------------------------------------------
# Model


class Citation(BaseModel):
    """A pointer to one sentence of one document, with the sentence itself."""

    doc_id: str
    sentence: int = Field(ge=0, description="0-based sentence index in the document.")
    text: str = Field("", description="The cited sentence as stored in the evidence store.")

    @property
    def key(self) -> str:
        return str(SentenceKey.sentence(self.doc_id, self.sentence))

    @classmethod
    def from_key(cls, key: str, text: str = "") -> Citation:
        """From a sentence key 'docid#idx' (a span cites its first sentence)."""
        parsed = SentenceKey.parse(key)
        return cls(doc_id=parsed.doc_id, sentence=parsed.index, text=text)


class StanceRatios(BaseModel):
    support: float = 0.0
    neutral: float = 0.0
    oppose: float = 0.0


class NodeConsensus(BaseModel):
    """Counts, raw and weighted ratios, score and label of the segments under one aspect."""

    support: int = 0
    neutral: int = 0
    oppose: int = 0
    raw_ratios: StanceRatios = Field(default_factory=StanceRatios)
    weighted_ratios: StanceRatios = Field(default_factory=StanceRatios)
    score: float | None = None
    label: GlobalLabel = GlobalLabel.INSUFFICIENT

    @classmethod
    def from_consensus(cls, c: Consensus) -> NodeConsensus:
        return cls.model_validate(c.model_dump())


class SegmentView(BaseModel):
    """A top segment of an aspect, with its stance toward the claim."""

    doc_id: str
    sentence: int = Field(ge=0)
    text: str
    stance: Stance
    score: float | None = Field(None, description="Ranking score of the segment under the aspect.")


class PerspectiveView(BaseModel):
    """A short summary of what the segments of one stance say about an aspect."""

    stance: Stance
    summary: str
    citations: list[Citation] = Field(default_factory=list)


class HierarchyNode(BaseModel):
    id: str
    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    children: list[str] = Field(
        default_factory=list, description="Ids of the child nodes, in order."
    )
    consensus: NodeConsensus | None = None
    perspectives: list[PerspectiveView] = Field(default_factory=list)
    top_segments: list[SegmentView] = Field(default_factory=list)


class Hierarchy(BaseModel):
    root: str = "root"
    nodes: list[HierarchyNode] = Field(default_factory=list)

    def by_id(self) -> dict[str, HierarchyNode]:
        return {n.id: n for n in self.nodes}


class DocumentView(BaseModel):
    """One document that contributed to the verdict."""

    id: str
    title: str = ""
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    doi: str | None = None
    source: str = "local"
    reputation: float | None = Field(None, ge=0, le=1)
    reputation_components: dict[str, float] = Field(default_factory=dict)
    trust: float | None = Field(None, ge=0, le=1)
    local_label: LocalLabel | None = None
    label_explanation: str = ""
    sign_conflict: bool = Field(
        False, description="The label disagrees in sign with its cited stance."
    )
    takeaway: str = ""

    @property
    def link(self) -> str | None:
        """An http(s) link to the document: the URL, else the DOI resolver."""
        if self.url and _is_http(self.url):
            return self.url
        if self.doi:
            return "https://doi.org/" + self.doi.removeprefix("https://doi.org/")
        return None


class VerdictView(BaseModel):
    score: float | None = None
    label: GlobalLabel = GlobalLabel.INSUFFICIENT


class GlobalVerdicts(BaseModel):
    weighted: VerdictView = Field(
        default_factory=VerdictView, description="Weighted by reputation x trust."
    )
    unweighted: VerdictView = Field(default_factory=VerdictView)
    confidence: float = Field(0.0, ge=0, le=1)
    n_documents: int = 0
    n_evidence: int = Field(0, description="Documents whose label is not No Evidence.")

    @classmethod
    def from_verdict(cls, v: Verdict) -> GlobalVerdicts:
        return cls(
            weighted=VerdictView(score=v.weighted_score, label=v.weighted_label),
            unweighted=VerdictView(score=v.unweighted_score, label=v.unweighted_label),
            confidence=v.confidence,
            n_documents=v.n_documents,
            n_evidence=v.n_evidence,
        )


class ExplanationSentenceView(BaseModel):
    text: str
    citations: list[Citation] = Field(default_factory=list)
    status: AttributionStatus = "supported"
    support: float | None = Field(None, ge=0, le=1, description="Attribution support probability.")
    revised_from: str | None = Field(
        None, description="The first wording, when the sentence failed the attribution check and was "
        "revised to what its citations say (verdict.revise_unsupported)."
    )


class ExplanationView(BaseModel):
    sentences: list[ExplanationSentenceView] = Field(default_factory=list)
    mode: Literal["llm", "extractive"] = "llm"


class SourceUsed(BaseModel):
    name: str = Field(description="e.g. 'semantic_scholar' or 'local:scifact'.")
    status: SourceStatus = "ok"
    documents: int = Field(0, ge=0, description="Documents this source contributed.")
    detail: str = ""


class Decision(BaseModel):
    """A choice made by the user in a guided session."""

    step: str
    question: str = ""
    choice: str


class LLMUsageView(BaseModel):
    model: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(None, description="None when the provider's price is unknown.")


class TrustSummary(BaseModel):
    converged: bool = True
    oscillating: bool = False
    iterations: int = 0
    edges: int = Field(0, description="Support / refute relations in the document graph.")


def _trust_line(t: TrustSummary) -> str:
    if t.iterations == 0 and t.edges == 0:
        return "Trust propagation: not run (no evidence documents to relate)"
    return (f"Trust propagation: {'converged' if t.converged else 'did not converge'}"
            f"{' (oscillating)' if t.oscillating else ''} after {t.iterations} iterations, {t.edges} relations")


class EvidenceGap(BaseModel):
    """Why a verdict is "insufficient evidence": what was searched, and what was found instead."""

    queries: list[str] = Field(default_factory=list, description="What was searched (claim, opposite, ...).")
    sources: list[str] = Field(default_factory=list, description="Where, e.g. 'local:scifact'.")
    documents_found: int = Field(0, ge=0, description="Documents the searches returned.")
    documents_read: int = Field(0, ge=0, description="Best-matching documents read for evidence.")
    subject: str = Field("", description="The claim's subject (what evidence must be about).")
    object: str = Field("", description="The claim's object or outcome (what evidence must speak to).")
    on_subject: list[str] = Field(default_factory=list,
                                  description="Ids of documents about the subject that do not address the claim.")
    summary: list[str] = Field(default_factory=list, description="The gap in plain sentences, for the reader.")


# What a reader of a debate claim's report must know before reading its verdict.
DEBATE_NOTE = ("a debate claim: the evidence is arguments for or against it, and the verdict weighs the "
               "arguments found in the sources, not a finding of fact")


class Report(BaseModel):
    """Everything an investigation found, in a stable, versioned shape."""

    schema_version: Literal["1"] = SCHEMA_VERSION
    claim: str
    anti_claim: str | None = None
    sub_claims: list[str] = Field(default_factory=list)
    claim_type: str = ""
    claim_kind: str = Field("", description="empirical or debate: how the evidence was read.")
    status: str = "complete"
    hierarchy: Hierarchy = Field(default_factory=Hierarchy)
    documents: list[DocumentView] = Field(default_factory=list)
    verdict: GlobalVerdicts = Field(default_factory=GlobalVerdicts)
    trust: TrustSummary = Field(default_factory=TrustSummary)
    explanation: ExplanationView = Field(default_factory=ExplanationView)
    evidence_gap: EvidenceGap | None = Field(
        None, description="Set when the verdict is 'insufficient evidence': what was searched and not found.")
    sources: list[SourceUsed] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    usage: LLMUsageView = Field(default_factory=LLMUsageView)
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per step.")
    created_at: str | None = Field(None, description="ISO-8601 UTC time the report was assembled.")


def load_report(data: str | dict[str, Any] | Report) -> Report:
    """A Report from JSON text, a dict or a Report, with a readable error when it is not one."""
    if isinstance(data, Report):
        return data
    try:
        if isinstance(data, str):
            data = json.loads(data)
        if (
            isinstance(data, dict)
            and str(data.get("schema_version", SCHEMA_VERSION)) != SCHEMA_VERSION
        ):
            raise InputError(
                f"this report has schema version {data.get('schema_version')!r}; this claimscope "
                f"reads version {SCHEMA_VERSION!r}. Re-run the investigation with this version."
            )
        return Report.model_validate(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"the report is not valid JSON ({exc}).") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"not a claimscope report: {where}: {first['msg']}.") from exc


# ---------------------------------------------------------------------------------------------
# Shared helpers


def _is_http(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


def _fmt_score(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def _node_counts(c: NodeConsensus) -> str:
    """'+0.50; +3 / =1 / -1' — the score only when it earned a label (an aspect with too little
    evidence shows its counts, not a '+1.00' from one sentence)."""
    counts = f"+{c.support} / ={c.neutral} / -{c.oppose}"
    if c.label is GlobalLabel.INSUFFICIENT:
        return counts
    return f"{_fmt_score(c.score)}; {counts}"


def _walk(h: Hierarchy) -> Iterable[tuple[HierarchyNode, int]]:
    """Depth-first over the tree from the root (nodes unreachable from it come last, at depth 0)."""
    nodes = h.by_id()
    seen: set[str] = set()

    def visit(node_id: str, depth: int) -> Iterable[tuple[HierarchyNode, int]]:
        node = nodes.get(node_id)
        if node is None or node_id in seen:
            return
        seen.add(node_id)
        yield node, depth
        for child in node.children:
            yield from visit(child, depth + 1)

    yield from visit(h.root, 0)
    for n in h.nodes:
        if n.id not in seen:
            yield from visit(n.id, 0)


def cited_sentences(report: Report) -> dict[str, dict[int, str]]:
    """doc id -> {sentence index -> text} of every sentence the report cites or shows."""
    out: dict[str, dict[int, str]] = {}

    def add(doc_id: str, idx: int, text: str) -> None:
        bucket = out.setdefault(doc_id, {})
        if text or idx not in bucket:
            bucket[idx] = text

    for s in report.explanation.sentences:
        for c in s.citations:
            add(c.doc_id, c.sentence, c.text)
    for node in report.hierarchy.nodes:
        for seg in node.top_segments:
            add(seg.doc_id, seg.sentence, seg.text)
        for p in node.perspectives:
            for c in p.citations:
                add(c.doc_id, c.sentence, c.text)
    return {d: dict(sorted(v.items())) for d, v in out.items()}


def _source_order(report: Report) -> list[str]:
    """Documents in report order, then any cited document the report does not list."""
    order = [d.id for d in report.documents]
    order += [d for d in cited_sentences(report) if d not in set(order)]
    return order


# ---------------------------------------------------------------------------------------------
# JSON


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"


# ---------------------------------------------------------------------------------------------
# Markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}<>|#!~])")


def _with_code(text: str, escape: Callable[[str], str], code: Callable[[str], str]) -> str:
    """`text` with its backtick spans (commands the product suggests) as code, the rest escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        return escape(text)
    return "".join(code(p) if i % 2 else escape(p) for i, p in enumerate(parts))


def md_escape(text: str) -> str:
    """Backslash-escape Markdown (and raw HTML) syntax; collapse newlines so text stays inline."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _md_bar(c: NodeConsensus, width: int = 20) -> str:
    r = c.weighted_ratios
    if r.support + r.neutral + r.oppose == 0:  # all weights zero: show the plain counts
        r = c.raw_ratios
    s, o = round(r.support * width), round(r.oppose * width)
    n = max(0, width - s - o) if (c.support + c.neutral + c.oppose) else 0
    return "`" + "+" * s + "." * n + "-" * o + "`" if (s + n + o) else "`(no segments)`"


def render_markdown(report: Report) -> str:
    r = report
    refs = {d: i + 1 for i, d in enumerate(_source_order(r))}
    docs = {d.id: d for d in r.documents}

    def cite(c: Citation) -> str:
        return f"[{refs.get(c.doc_id, '?')}:{c.sentence}]"

    lines: list[str] = [f"# Claim: {md_escape(r.claim)}", ""]
    if r.anti_claim:
        lines.append(f"*Opposite claim searched:* {md_escape(r.anti_claim)}  ")
    if r.claim_type:
        lines.append(f"*Claim type:* {md_escape(r.claim_type)}  ")
    if r.claim_kind == "debate":
        lines.append(f"*Read as:* {md_escape(DEBATE_NOTE)}  ")
    if r.sub_claims:
        lines.append("*Sub-claims:* " + "; ".join(md_escape(s) for s in r.sub_claims) + "  ")
    lines.append(f"*Status:* {md_escape(r.status)}")
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
            "*Quoted from the evidence: no model-written sentence of this explanation was used.*",
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
            summary = f" {_md_bar(c)} {c.label.value} ({_node_counts(c)})"
        lines.append(f"{indent}- **{md_escape(node.name)}**{summary}")
        if node.description:
            lines.append(f"{indent}  {md_escape(node.description)}")
        if node.keywords:
            lines.append(f"{indent}  *keywords:* {md_escape(', '.join(node.keywords))}")
        for p in node.perspectives:
            cites = " ".join(cite(c) for c in p.citations)
            lines.append(f"{indent}  - *{p.stance.value}:* {md_escape(p.summary)} {cites}".rstrip())
        for seg in node.top_segments[:3]:
            ref = cite(Citation(doc_id=seg.doc_id, sentence=seg.sentence))
            lines.append(f'{indent}  - ({seg.stance.value}) "{md_escape(seg.text)}" {ref}')
    lines.append("")

    lines += ["## Documents", ""]
    if r.documents:
        lines += [
            "| # | document | year | label | reputation | trust |",
            "|---|---|---|---|---|---|",
        ]
    for d in r.documents:
        title = md_escape(d.title or d.id)
        link = d.link
        name = f"[{title}](<{link}>)" if link else title
        label = d.local_label.value if d.local_label else "-"
        if d.sign_conflict:
            label += " (sign conflict)"
        rep = "-" if d.reputation is None else f"{d.reputation:.2f}"
        tr = "-" if d.trust is None else f"{d.trust:.2f}"
        lines.append(f"| {refs[d.id]} | {name} | {d.year or '-'} | {label} | {rep} | {tr} |")
    lines.append("")
    for d in r.documents:
        if d.takeaway or d.label_explanation:
            lines.append(f"**[{refs[d.id]}] {md_escape(d.title or d.id)}**  ")
            if d.takeaway:
                lines.append(f"Takeaway: {md_escape(d.takeaway)}  ")
            if d.label_explanation:
                lines.append(
                    f"Why {d.local_label.value if d.local_label else 'this label'}: {md_escape(d.label_explanation)}"
                )
            lines.append("")

    lines += ["## Cited sentences", ""]
    cited = cited_sentences(r)
    for doc_id in (d for d in _source_order(r) if d in cited):
        sents = cited[doc_id]
        title = docs[doc_id].title if doc_id in docs and docs[doc_id].title else doc_id
        lines.append(f"**[{refs[doc_id]}] {md_escape(title)}** ({md_escape(doc_id)})")
        for idx, text in sents.items():
            lines.append(f"- {idx}: {md_escape(text)}")
        lines.append("")

    lines += _md_footer(r)
    return "\n".join(lines).rstrip() + "\n"


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


# ---------------------------------------------------------------------------------------------
# HTML

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
ul.tree,ul.tree ul{list-style:none;padding-left:1.2rem}ul.tree{padding-left:0}
.node-name{font-weight:600}.kw{color:#666;font-size:.85rem}.seg{font-size:.9rem;color:#333}
.st-support{color:#2d7a37}.st-refute{color:#a4322c}.st-neutral{color:#666}
.interp{color:#8a6d00;font-style:italic}a.cite{text-decoration:none;font-size:.8rem;vertical-align:super}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;
font-size:.9rem}.conflict{color:#a4322c}.src li{margin:.2rem 0}.src li:target{background:#fff3b0}
.small{font-size:.85rem;color:#555}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _slug(label: GlobalLabel) -> str:
    return "l-" + label.value.replace(" ", "-")


def render_html(report: Report) -> str:
    r = report
    order = _source_order(r)
    refs = {d: i + 1 for i, d in enumerate(order)}
    docs = {d.id: d for d in r.documents}

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
    if r.claim_type:
        meta.append(f"Claim type: {_e(r.claim_type)}")
    if r.claim_kind == "debate":
        meta.append(f"Read as: {_e(DEBATE_NOTE)}")
    if r.sub_claims:
        meta.append("Sub-claims: " + "; ".join(_e(s) for s in r.sub_claims))
    meta.append(f"Status: {_e(r.status)}")
    out += ["<br>".join(meta), "</p>"]

    v = r.verdict
    out += [
        f'<div class="verdict {_slug(v.weighted.label)}"><strong>{_e(v.weighted.label.value)}</strong>'
        f" (weighted score {_e(_fmt_score(v.weighted.score))}, confidence {v.confidence:.2f})<br>"
        f'<span class="small">Unweighted: {_e(v.unweighted.label.value)} '
        f"({_e(_fmt_score(v.unweighted.score))}); {v.n_evidence} of {v.n_documents} documents "
        "with evidence.</span></div>",
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
            '<p class="small">Quoted from the evidence: no model-written sentence of this explanation was used.</p>'
        )

    out.append("<h2>Aspects</h2>")
    out += _html_tree(r.hierarchy, bar, cite)

    out.append("<h2>Documents</h2>")
    if r.documents:
        out.append(
            "<table><tr><th>#</th><th>document</th><th>year</th><th>label</th><th>reputation</th>"
            "<th>trust</th></tr>"
        )
        for d in r.documents:
            link = d.link
            title = _e(d.title or d.id)
            name = f'<a href="{_e(link)}" rel="noopener noreferrer">{title}</a>' if link else title
            label = _e(d.local_label.value) if d.local_label else "-"
            if d.sign_conflict:
                label += ' <span class="conflict" title="label and cited stance disagree in sign">(sign conflict)</span>'
            comps = ", ".join(f"{_e(k)} {val:.2f}" for k, val in d.reputation_components.items())
            rep = (
                "-" if d.reputation is None else f'<span title="{comps}">{d.reputation:.2f}</span>'
            )
            tr = "-" if d.trust is None else f"{d.trust:.2f}"
            out.append(
                f'<tr><td><a href="#{anchor(d.id)}">{refs[d.id]}</a></td><td>{name}'
                f"{'<br><span class=small>' + _e(d.venue) + '</span>' if d.venue else ''}</td>"
                f"<td>{d.year or '-'}</td><td>{label}</td><td>{rep}</td><td>{tr}</td></tr>"
            )
        out.append("</table>")
        for d in r.documents:
            if d.takeaway or d.label_explanation:
                out.append(f"<p><strong>[{refs[d.id]}] {_e(d.title or d.id)}</strong><br>")
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
        d = docs.get(doc_id)
        title = _e(d.title) if d and d.title else _e(doc_id)
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
        seen.add(node_id)
        c = node.consensus
        head = f'<span class="node-name">{_e(node.name)}</span>'
        if c is not None:
            head += (
                f'{bar(c)}<span class="{_slug(c.label)}">{_e(c.label.value)}</span> '
                f'<span class="small">({_e(_node_counts(c))})</span>'
            )
        out.append(f"<li>{head}")
        if node.description:
            out.append(f"<div>{_e(node.description)}</div>")
        if node.keywords:
            out.append(f'<div class="kw">keywords: {_e(", ".join(node.keywords))}</div>')
        for p in node.perspectives:
            cites = "".join(cite(ci) for ci in p.citations)
            out.append(
                f'<div class="seg"><span class="st-{p.stance.value}">{_e(p.stance.value)}:</span> '
                f"{_e(p.summary)}{cites}</div>"
            )
        for seg in node.top_segments[:3]:
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


# ---------------------------------------------------------------------------------------------


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
