"""What the Markdown and HTML renderers share: score and count formatting, the tree walk, and the
cited sentences in report order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from claimscope.agent.report.model import (
    DocumentView,
    Hierarchy,
    HierarchyNode,
    NodeConsensus,
    Report,
    SegmentView,
    TrustSummary,
)
from claimscope.tools.weigh.verdict import GlobalLabel

# Under an explanation whose every sentence is a quote (its mode "extractive").
QUOTED_NOTE = "Quoted from the evidence: no model-written sentence of this explanation was used."


def _fmt_score(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2f}"


def population_cell(d: DocumentView) -> str:
    """The evidence table's "population (n)" cell, unescaped: "adults with type 2 diabetes (n = 412)",
    either part alone, or "-"."""
    n = f"n = {d.sample_size}" if d.sample_size is not None else ""
    if d.population:
        return f"{d.population} ({n})" if n else d.population
    return n or "-"


OPENING_WORDS = 8


def opening_words(sentences: Sequence[str], n: int = OPENING_WORDS) -> str:
    """A text's first `n` words, "…" where they are cut: what names a document without a title."""
    words = " ".join(sentences).split()
    if len(words) > n:
        return " ".join(words[:n]).rstrip(",;:") + "…"
    return " ".join(words).rstrip(".")


def document_name(title: str | None, opening: str = "") -> str:
    """How the report and the chat name a document beside its id (unescaped): its title (without a
    closing full stop), else its opening words in quotes, else "(untitled)". A placeholder pasted
    as if it were the title ("p3405 untitled: Mostly True") read as a slip."""
    title = (title or "").strip().rstrip(".").strip()
    if title:
        return title
    return f'"{opening}"' if opening else "(untitled)"


def source_name(doc: DocumentView | None, fallback: str = "untitled document") -> str:
    """How the report names a document (unescaped): its title, its opening words in quotes, or
    `fallback` when it has neither (the sources list shows its id beside "untitled document": "103
    (103)" read as a slip; the documents table shows the id itself)."""
    if doc is None:
        return "a document not among those weighed"
    return doc.title or (f'"{doc.opening}"' if doc.opening else fallback)


def gathered_share(gathered: int, only: int) -> str:
    """'3 of the 51 documents gathered', 'the one document gathered' or 'all 3 documents gathered':
    what the opposite claim's search alone found, for the report's line and the chat's answer."""
    return (f"{only} of the {gathered} documents gathered" if only < gathered else
            "the one document gathered" if only == 1 else f"all {only} documents gathered")


def anti_claim_found(r: Report, refs: dict[str, int]) -> str:
    """'6 of the 56 documents gathered; #3 and #12 of the documents below' (unescaped)."""
    found = r.anti_claim_found
    if found is None:
        return ""
    gathered, only = found.gathered, found.only
    # one document is said as one ("1 of the 54 documents gathered; none of them is" read as a slip)
    if not only:
        return ("none (no document was gathered)" if not gathered else
                "not the one document gathered" if gathered == 1 else f"none of the {gathered} documents gathered")
    head = gathered_share(gathered, only)
    shown = [f"#{refs[d]}" for d in found.in_report if d in refs]
    if not shown:
        return head + ("; it is not among the documents below" if only == 1 else
                       "; none of them is among the documents below")
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    return head + f"; {listed} of the documents below"


def unsettled(c: NodeConsensus) -> bool:
    """Whether an aspect's consensus rests on too little to read as settled: too few sentences taking a
    side (`thin`), or none graded at all. Its bar is not drawn as a share of a body of evidence."""
    return c.thin or c.label is GlobalLabel.INSUFFICIENT


def _sides(c: NodeConsensus) -> str:
    """'1 opposing sentence', '2 supporting sentences and 1 opposing sentence'."""
    return " and ".join(f"{n} {word} sentence{'' if n == 1 else 's'}"
                        for n, word in ((c.support, "supporting"), (c.oppose, "opposing")) if n)


def consensus_words(c: NodeConsensus) -> str:
    """An aspect's consensus in words (unescaped): its label, and on how little it rests when that is too
    little to settle ("leaning refuted, on 1 opposing sentence only"); "1 opposing sentence — too little
    to grade" where no label was given to sentences that take a side. A bare "insufficient evidence"
    beside a bar all one colour read as a contradiction."""
    sided = c.support + c.oppose
    if c.label is GlobalLabel.INSUFFICIENT:
        return f"{_sides(c)} — too little to grade" if sided else "insufficient evidence: no sentence takes a side"
    return f"{c.label.value}, on {_sides(c)} only" if c.thin else c.label.value


def _node_counts(c: NodeConsensus) -> str:
    """'+0.50; +3 / =1 / -1' — the score only when it rests on enough (an aspect with too little
    evidence shows its counts, not a '+1.00' from one sentence)."""
    counts = f"+{c.support} / ={c.neutral} / -{c.oppose}"
    if unsettled(c):
        return counts
    return f"{_fmt_score(c.score)}; {counts}"


def unevidenced(node: HierarchyNode, root: str) -> bool:
    """Whether `node` is an aspect below the claim under which no segment that addresses the claim
    was classified: its counts, which include its sub-aspects', are all zero."""
    c = node.consensus
    return node.id != root and c is not None and c.support + c.neutral + c.oppose == 0


def _subtree(h: Hierarchy, node_id: str) -> list[HierarchyNode]:
    """`node_id` and the nodes below it, depth first."""
    nodes = h.by_id()
    out: list[HierarchyNode] = []
    seen: set[str] = set()
    frontier = [node_id]
    while frontier:
        node = nodes.get(frontier.pop(0))
        if node is not None and node.id not in seen:
            seen.add(node.id)
            out.append(node)
            frontier[:0] = node.children
    return out


def _walk(h: Hierarchy) -> Iterable[tuple[HierarchyNode, int]]:
    """Depth-first over the tree from the root (nodes unreachable from it come last, at depth 0),
    leaving out the aspects with no evidence and their sub-aspects (unevidenced_line names them)."""
    nodes = h.by_id()
    seen: set[str] = set()

    def visit(node_id: str, depth: int) -> Iterable[tuple[HierarchyNode, int]]:
        node = nodes.get(node_id)
        if node is None or node_id in seen:
            return
        if unevidenced(node, h.root):
            seen.update(n.id for n in _subtree(h, node_id))
            return
        seen.add(node_id)
        yield node, depth
        for child in node.children:
            yield from visit(child, depth + 1)

    yield from visit(h.root, 0)
    for n in h.nodes:
        if n.id not in seen:
            yield from visit(n.id, 0)


SHOWN_SEGMENTS = 3


def shown_segments(node: HierarchyNode, limit: int = SHOWN_SEGMENTS) -> list[SegmentView]:
    """The aspect's quotes to print under its perspectives: a sentence a perspective already quotes
    whole, citing it, is not printed a second time (it read as two findings)."""
    def flat(text: str) -> str:
        return " ".join(text.split())

    quoted = {(c.doc_id, c.sentence, flat(p.summary)) for p in node.perspectives for c in p.citations}
    out = [seg for seg in node.top_segments
           if not any(d == seg.doc_id and i == seg.sentence and flat(seg.text) and flat(seg.text) in summary
                      for d, i, summary in quoted)]
    return out[:limit]


def unevidenced_line(h: Hierarchy) -> str:
    """The aspects the tree walk leaves out, unescaped: "genetic factors; environmental factors
    (pregnancy-related factors, gender-related factors)"; "" when there are none."""
    parts: list[str] = []
    named: set[str] = set()
    nodes = h.by_id()
    parent = {child: n.id for n in h.nodes for child in n.children}
    for node in h.nodes:
        if node.id in named or not unevidenced(node, h.root):
            continue
        above = nodes.get(parent.get(node.id, ""))
        if above is not None and unevidenced(above, h.root):
            continue
        below = _subtree(h, node.id)
        named.update(n.id for n in below)
        parts.append(node.name + (f" ({', '.join(n.name for n in below[1:])})" if len(below) > 1 else ""))
    return "; ".join(parts)


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
    for d in report.documents:
        if d.finding is not None:
            add(d.finding.doc_id, d.finding.sentence, d.finding.text)
    return {d: dict(sorted(v.items())) for d, v in out.items()}


def _source_order(report: Report) -> list[str]:
    """Documents in report order, then any cited document the report does not list."""
    order = [d.id for d in report.documents]
    order += [d for d in cited_sentences(report) if d not in set(order)]
    return order


def document_views(r: Report) -> dict[str, DocumentView]:
    """Every document the report describes, weighed or only quoted, by id."""
    return {d.id: d for d in [*r.documents, *r.quoted_documents]}


def label_cell(r: Report, d: DocumentView | None) -> str:
    """A document's label in the report's tables (unescaped): its local label; "not weighed" for a document
    the report cites that was not among those weighed for its verdict; "-" before anything was weighed."""
    if d is not None and d.local_label is not None:
        return d.local_label.value
    return "not weighed" if r.verdict.n_documents else "-"


def unweighed_line(r: Report, refs: dict[str, int]) -> str:
    """'#6 and #7 are quoted in this report but are not among the 5 documents weighed for its verdict.'
    (unescaped; "" when every cited document was weighed)."""
    n = r.verdict.n_documents
    if not n:
        return ""
    docs = document_views(r)
    cited = cited_sentences(r)
    ids = [f"#{refs[d]}" for d in _source_order(r) if d in cited and (d not in docs or docs[d].local_label is None)]
    if not ids:
        return ""
    listed = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]
    weighed = "the one document" if n == 1 else f"the {n} documents"
    return (f"{listed} {'is' if len(ids) == 1 else 'are'} quoted in this report but "
            f"{'is' if len(ids) == 1 else 'are'} not among {weighed} weighed for its verdict.")


def table_order(r: Report) -> list[tuple[str, DocumentView | None]]:
    """The documents table's rows: every document the report lists or cites, in the order that numbers
    them (a citation "[6:4]" always finds row 6), with its view where the report has one."""
    docs = document_views(r)
    return [(d, docs.get(d)) for d in _source_order(r)]


def _trust_line(t: TrustSummary) -> str:
    if t.iterations == 0 and t.edges == 0:
        return "Trust propagation: not run (no evidence documents to relate)"
    return (f"Trust propagation: {'converged' if t.converged else 'did not converge'}"
            f"{' (oscillating)' if t.oscillating else ''} after {t.iterations} iterations, {t.edges} relations")


def _with_code(text: str, escape: Callable[[str], str], code: Callable[[str], str]) -> str:
    """`text` with its backtick spans (commands the product suggests) as code, the rest escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        return escape(text)
    return "".join(code(p) if i % 2 else escape(p) for i, p in enumerate(parts))
