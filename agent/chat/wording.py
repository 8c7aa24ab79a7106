"""The chat's wording: counts and verbs that agree in number, citation brackets only where there is
something to cite, the report summary and the review prompt."""

from __future__ import annotations

import json
from typing import Any

from claimscope.agent.chat.questions import Direction
from claimscope.agent.graph.readers import cited_sentences
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.report.common import QUOTED_NOTE, document_name, opening_words
from claimscope.tools.models import Document, SentenceKey

GERUND: dict[Direction, str] = {"support": "supporting", "oppose": "opposing", "neutral": "neutral on"}
STANCE_READ: dict[Direction, str] = {"support": "supports the claim", "oppose": "opposes the claim",
                                      "neutral": "neutral"}
STANCE_HEAD: dict[Direction, str] = {"support": "Supporting", "oppose": "Opposing", "neutral": "Neutral"}


def source_text(view: dict[str, Any]) -> str:
    """A report document as an answer names it, as the report does (report.common.document_name):
    "102 Monthly high-dose vitamin D ... (2017)", an untitled one by its opening words."""
    year = f" ({view['year']})" if view.get("year") else ""
    return f"{view['id']} {document_name(view.get('title'), str(view.get('opening') or ''))}{year}"


def document_text(doc: Document) -> str:
    """A gathered document (one the report does not show included) named as source_text names it."""
    year = f" ({doc.year})" if doc.year else ""
    return f"{doc.id} {document_name(doc.title, opening_words(doc.sentences))}{year}"


def top_aspects(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's aspects directly under the claim (its hierarchy's first level)."""
    return [n for n in (report.get("hierarchy") or {}).get("nodes", []) if n["id"] != "root" and "." not in n["id"]]


def sentence_start(text: str) -> str:
    """`text` opening with a capital, as an answer shown on its own (messages are written lower-case to
    read inside other sentences)."""
    return text[:1].upper() + text[1:] if text else text


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def listed(parts: list[str]) -> str:
    """'a, b and c' (one part alone as it is)."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def verb(direction: Direction, n: int) -> str:
    """The verb phrase for `n` sources (or sentences) pointing in `direction`, agreeing in number."""
    one = n == 1
    return {"support": "supports the claim" if one else "support the claim",
            "oppose": "opposes the claim" if one else "oppose the claim",
            "neutral": "gives no evidence on the claim" if one else "give no evidence on the claim"}[direction]


def tally(counts: dict[str, int]) -> str:
    """'3 support the claim, 1 is neutral and 2 oppose it' (parts with no sentence left out)."""
    parts = [f"{counts[d]} {verb(d, counts[d])}" for d in ("support", "neutral", "oppose") if counts.get(d)]
    return listed([parts[0]] + [p.replace(" the claim", " it") for p in parts[1:]])


def others(by_dir: dict[Direction, list[dict[str, Any]]], skip: Direction) -> str:
    """The other directions' counts, '1 supports it, 4 give no evidence on it'. A document the report
    never labelled is counted as such, not as one that gives no evidence (a run that abstains
    labels only the documents its screen read)."""
    parts: list[str] = []
    for d, docs in by_dir.items():
        if d == skip or not docs:
            continue
        labelled = [x for x in docs if x.get("local_label")] if d == "neutral" else docs
        if labelled:
            parts.append(f"{len(labelled)} {verb(d, len(labelled)).replace(' the claim', ' it')}")
        if unlabelled := len(docs) - len(labelled):
            parts.append(f"{unlabelled} {'is' if unlabelled == 1 else 'are'} not labelled")
    return ", ".join(parts) or "none is labelled"


def cite(keys: list[str]) -> str:
    """' [k1, k2]' for a line that cites something, '' for one that cites nothing."""
    return f" [{', '.join(keys)}]" if keys else ""


def document_keys(state: InvestigationState, view: dict[str, Any]) -> list[str]:
    """The sentences a report document's label rests on: those its assessment cites, else its finding."""
    keys = [str(SentenceKey.sentence(view["id"], i)) for i in cited_sentences(state, view["id"])]
    finding = view.get("finding") or {}
    if not keys and finding.get("doc_id") == view["id"] and "sentence" in finding:
        keys = [str(SentenceKey.sentence(view["id"], finding["sentence"]))]
    return keys


def explanation_keys(report: dict[str, Any]) -> list[str]:
    return [str(SentenceKey.sentence(c['doc_id'], c['sentence'])) for s in report.get("explanation", {}).get("sentences", [])
            for c in s.get("citations", [])]


def summary_text(report: dict[str, Any]) -> str:
    if not report:
        return "The investigation ended without a report."
    v = report.get("verdict", {})
    w = v.get("weighted", {})
    score = w.get("score")
    lines = [f"Verdict: {w.get('label', 'n/a')}"
             + (f" (score {score:+.2f}, confidence {v.get('confidence', 0):.2f})" if score is not None else "")]
    for node in top_aspects(report):
        c = node.get("consensus") or {}
        lines.append(f"  [{node['id']}] {node['name']}: {c.get('label', 'n/a')}")
    explanation = report.get("explanation", {})
    for s in explanation.get("sentences", []):
        keys = ", ".join(str(SentenceKey.sentence(c['doc_id'], c['sentence'])) for c in s.get("citations", []))
        flag = "" if s.get("status") == "supported" else " (interpretation)"
        lines.append(f"{s['text']} [{keys}]{flag}")
    if explanation.get("mode") == "extractive" and explanation.get("sentences"):
        # as the report says under it: every sentence above is an author's, not the tool's
        lines.append(QUOTED_NOTE)
    for w_ in report.get("warnings", [])[:5]:
        # warnings are written to read inside other text: shown alone, each is a sentence
        text = sentence_start(str(w_).strip())
        lines.append(f"Warning: {text}" + ("" if text.endswith((".", "!", "?")) else "."))
    return "\n".join(lines)


def review_prompt(pending: dict[str, Any]) -> str:
    summary = json.dumps(pending.get("summary", {}), indent=1)[:3000]
    return (f"Review point '{pending.get('point')}'. Found:\n{summary}\n"
            f"You may {pending.get('actions', 'accept')}. Type 'accept' or a JSON decision.")
