"""The analysis as independent readers judge it: aspects, quotes, evidence table, perspectives and
explanation of whole reports, read by people who see only the report (and the abstracts it tabulates).

    python -m evals.expert_read run [--tag baseline]     # investigate the claims, keep each report
    python -m evals.expert_read packets [--tag baseline] # one reading packet per report, for the readers
    python -m evals.expert_read score [--tag baseline]   # judgments -> evals/results/expert_read.json

The claims (nothing here is tuned on them): 20 SciFact dev claims that have evidence in the corpus
(seeded sample), 5 FRoSC claims over the SciFact corpus, 5 ClaimSpect vaccine claims over the 50
vaccine source papers. Each report is kept as Markdown and JSON under
evals/labels/expert_read/<tag>/reports/ with the commit that produced it.

A packet (evals/labels/expert_read/<tag>/packets/<id>.json) holds the rendered report and the items a
reader judges, each numbered: every aspect (is it a facet a scientist examining this claim would look
at?), every pair of sibling aspects (distinct?), every quote shown under an aspect (does it belong
there?), every evidence-table cell of the first TABLE_ROWS rows (population, n, intervention or exposure, comparator, outcome,
direction; a "-" is right only when the abstract does not state it: the abstract is in the packet),
every perspective sentence and every explanation sentence with the sentences they cite (supported?
faithful? a finding on the claim in the verdict's direction?), and the report as a whole (do its
parts contradict each other?). The guide is docs/methods/expert-reading-guide.md. Readers write
evals/labels/expert_read/<tag>/judgments/<reader>/<id>.json; two readers on at least a quarter of the
reports. `score` takes the first reader of each report (readers sorted by name) for the figures and
reports the agreement where two read the same report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from itertools import combinations
from pathlib import Path
from typing import Any

from evals._harness import (
    RESULTS,
    SHARED,
    WORK,
    code_version,
    ensure_corpus,
    load_runs,
    run_claims,
    services_for,
    start_log,
    write_json,
)

LABELS = Path(__file__).resolve().parent / "labels" / "expert_read"
# Evidence-table rows judged per report: the first ones, as the report orders them (a report that
# abstains tabulates every document it read, up to 20).
TABLE_ROWS = 5
TABLE_COLUMNS: tuple[str, ...] = ("population", "n", "intervention", "comparator", "outcome", "direction")
TARGETS: dict[str, float] = {
    "aspect_on_claim": 0.90, "aspect_distinct": 0.95, "quote_fits_aspect": 0.80,
    "report_consistent": 1.0, "perspective_attribution": 0.90,
    "explanation_faithful": 0.98, "explanation_on_point": 0.85,
    **{f"table_{c}": 0.80 for c in TABLE_COLUMNS},
}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def claim_sets(n_scifact: int = 20, n_frosc: int = 5, n_vaccine: int = 5, seed: int = 23
               ) -> list[tuple[str, list[tuple[str, str]], list[str]]]:
    """(set name, [(claim id, claim)], corpora) for the three sets."""
    rng = random.Random(seed)
    dev = [c for c in _jsonl(SHARED / "scifact" / "claims_dev.jsonl") if c.get("evidence")]
    scifact = rng.sample(dev, n_scifact)
    frosc = rng.sample(_jsonl(SHARED / "frosc" / "claims.jsonl"), n_frosc)
    vaccine = rng.sample(json.loads((SHARED / "claimspect" / "claims_vaccine.json").read_text()), n_vaccine)
    return [
        ("scifact_dev", [(f"scifact-{c['id']}", c["claim"]) for c in scifact], ["scifact"]),
        ("frosc", [(f"frosc-{c['id']}", c["claim"]) for c in frosc], ["scifact"]),
        ("claimspect_vaccine", [(f"vaccine-{c['id']}", c["body"]) for c in vaccine], ["vaccine-papers"]),
    ]


def _folder(tag: str, labels: Path | None = None) -> Path:
    return (labels or LABELS) / tag


def run(tag: str, depth: int | None, resume: bool, aspects: str | None = None, labels: Path | None = None) -> None:
    """Investigate every claim and keep its report (Markdown for the reader, JSON for the packet);
    `aspects` overrides hierarchy.aspects (proposed / facets)."""
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.report import render
    from evals.verdict_open import vaccine_corpus

    services = services_for(**({"hierarchy": {"aspects": aspects}} if aspects else {}))
    ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
    ensure_corpus(services, vaccine_corpus(SHARED / "claimspect" / "vaccine_source_papers.txt",
                                           WORK / "vaccine_corpus.jsonl"), "vaccine-papers")
    reports = _folder(tag, labels) / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    manifest_path = _folder(tag, labels) / "manifest.json"
    manifest: dict[str, Any] = (json.loads(manifest_path.read_text(encoding="utf-8")) if resume and manifest_path.exists()
                                else {"code_version": code_version(), "depth": depth, "aspects": aspects, "claims": {}})
    for name, claims, corpora in claim_sets():
        extra = {"depth": depth} if depth is not None else {}
        opts = InvestigationOptions(corpora=corpora, sources=["local"], **extra)
        log = WORK / f"expert_read_{tag}_{name}.jsonl"
        done = start_log(log, resume)
        for claim in claims:
            # One claim at a time, its report kept as it ends: a stopped run loses only the claim it was on.
            run_claims(services, [claim], opts, log=log, skip=done)
            for r in load_runs(log):
                report = r.state.get("report")
                manifest["claims"][r.claim_id] = {"set": name, "claim": r.claim, "seconds": round(r.seconds, 1),
                                                  "status": r.state.get("status"), "error": r.error}
                if report and not (reports / f"{r.claim_id}.json").exists():
                    (reports / f"{r.claim_id}.md").write_text(render(report, "md"), encoding="utf-8")
                    (reports / f"{r.claim_id}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
            manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _abstracts() -> dict[str, dict[str, Any]]:
    """Title and sentences of every document a report can tabulate, by id."""
    docs = {str(d["doc_id"]): {"title": d["title"], "sentences": d["abstract"]}
            for d in _jsonl(SHARED / "scifact" / "corpus.jsonl")}
    vaccine = WORK / "vaccine_corpus.jsonl"
    if vaccine.exists():
        from claimscope.tools.text.segmenter import split_sentences

        for d in _jsonl(vaccine):
            docs[str(d["id"])] = {"title": d["title"], "sentences": split_sentences(d["text"])}
    return docs


def packet(report: dict[str, Any], markdown: str, abstracts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The items a reader judges in one report, numbered, with what the reader needs to judge them."""
    from claimscope.agent.report.common import population_cell
    from claimscope.agent.report.model import load_report
    from claimscope.tools.text.segmenter import split_sentences

    r = load_report(report)
    nodes = r.hierarchy.by_id()
    aspects, siblings, quotes, perspective = [], [], [], []
    for node in r.hierarchy.nodes:
        if node.id != r.hierarchy.root:
            parent = next((p for p in r.hierarchy.nodes if node.id in p.children), None)
            aspects.append({"i": len(aspects), "aspect": node.name, "description": node.description,
                            "parent": parent.name if parent is not None and parent.id != r.hierarchy.root else ""})
        for a, b in combinations([nodes[c] for c in node.children if c in nodes], 2):
            siblings.append({"i": len(siblings), "a": a.name, "b": b.name,
                             "a_description": a.description, "b_description": b.description})
        if node.id == r.hierarchy.root:
            continue
        for s in node.top_segments:
            quotes.append({"i": len(quotes), "aspect": node.name, "quote": s.text})
        for p in node.perspectives:
            cited = [c.text for c in p.citations if c.text]
            for sentence in split_sentences(p.summary):
                perspective.append({"i": len(perspective), "aspect": node.name, "stance": str(p.stance),
                                    "sentence": sentence, "cited": cited})
    table: list[dict[str, Any]] = []
    for d in r.documents:
        if d.local_label is None and not d.design and not d.finding:
            continue
        if len(table) >= TABLE_ROWS:
            break
        source = abstracts.get(d.id, {})
        table.append({"i": len(table), "doc_id": d.id, "title": d.title,
                      "abstract": source.get("sentences", []),
                      "cells": {"population": d.population or "-",
                                "n": "-" if d.sample_size is None else str(d.sample_size),
                                "intervention": d.intervention or "-", "comparator": d.comparator or "-",
                                "outcome": d.outcome or "-", "direction": d.direction or "-"},
                      "shown_as": population_cell(d),
                      "finding": d.finding.text if d.finding else ""})
    explanation = [{"i": i, "sentence": s.text, "cited": [c.text for c in s.citations if c.text]}
                   for i, s in enumerate(x for x in r.explanation.sentences if x.status != "dropped")]
    return {"claim": r.claim, "verdict": r.verdict.weighted.label.value, "report_markdown": markdown,
            "aspects": aspects, "siblings": siblings, "quotes": quotes, "table": table,
            "perspective": perspective, "explanation": explanation}


def packets(tag: str, labels: Path | None = None) -> None:
    folder = _folder(tag, labels)
    out = folder / "packets"
    out.mkdir(parents=True, exist_ok=True)
    abstracts = _abstracts()
    for path in sorted((folder / "reports").glob("*.json")):
        p = packet(json.loads(path.read_text(encoding="utf-8")),
                   path.with_suffix(".md").read_text(encoding="utf-8"), abstracts)
        p["report_id"] = path.stem
        (out / path.name).write_text(json.dumps(p, indent=1) + "\n", encoding="utf-8")
        print(f"{path.stem}: {len(p['aspects'])} aspects, {len(p['siblings'])} sibling pairs, {len(p['quotes'])} "
              f"quotes, {len(p['table'])} table rows, {len(p['perspective'])} perspective and "
              f"{len(p['explanation'])} explanation sentences")


def _yes(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("yes", "no"):
        return v.strip().lower() == "yes"
    return None


def item_judgments(j: dict[str, Any]) -> dict[str, dict[str, bool]]:
    """measure -> {item key: yes/no} of one reader's judgment of one report."""
    out: dict[str, dict[str, bool]] = {}

    def put(measure: str, key: str, value: Any) -> None:
        v = _yes(value)
        if v is not None:
            out.setdefault(measure, {})[key] = v

    for a in j.get("aspects", []):
        put("aspect_on_claim", str(a.get("i")), a.get("on_claim"))
    for s in j.get("siblings", []):
        put("aspect_distinct", str(s.get("i")), s.get("distinct"))
    for q in j.get("quotes", []):
        put("quote_fits_aspect", str(q.get("i")), q.get("fits"))
    for t in j.get("table", []):
        for c in TABLE_COLUMNS:
            put(f"table_{c}", str(t.get("i")), t.get(c))
    for p in j.get("perspective", []):
        put("perspective_attribution", str(p.get("i")), p.get("supported"))
    for e in j.get("explanation", []):
        put("explanation_faithful", str(e.get("i")), e.get("faithful"))
        put("explanation_on_point", str(e.get("i")), e.get("on_point"))
    put("report_consistent", "report", j.get("consistent"))
    return out


def score(tag: str, out: Path, labels: Path | None = None) -> None:
    folder = _folder(tag, labels)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    by_report: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted((folder / "judgments").glob("*/*.json")):
        by_report.setdefault(path.stem, {})[path.parent.name] = json.loads(path.read_text(encoding="utf-8"))
    totals: dict[str, list[bool]] = {}
    per_set: dict[str, dict[str, list[bool]]] = {}
    agree: dict[str, list[bool]] = {}
    notes = []
    for rid, readers in sorted(by_report.items()):
        names = sorted(readers)
        first = item_judgments(readers[names[0]])
        group = manifest["claims"].get(rid, {}).get("set", "?")
        for measure, items in first.items():
            totals.setdefault(measure, []).extend(items.values())
            per_set.setdefault(group, {}).setdefault(measure, []).extend(items.values())
        if readers[names[0]].get("consistent", True) not in (True, "yes"):
            notes.append({"report": rid, "inconsistency": readers[names[0]].get("consistency_note", "")})
        if len(names) > 1:
            second = item_judgments(readers[names[1]])
            for measure, items in first.items():
                for key, v in items.items():
                    if key in second.get(measure, {}):
                        agree.setdefault(measure, []).append(v == second[measure][key])

    def share(xs: list[bool]) -> float | None:
        return round(sum(xs) / len(xs), 4) if xs else None

    figures = {m: share(totals.get(m, [])) for m in TARGETS}
    result = {
        "code_version": code_version(), "judged_code_version": manifest.get("code_version"), "tag": tag,
        "n_reports": len(by_report),
        "n_double_read": sum(1 for r in by_report.values() if len(r) > 1),
        "reports_by_set": {s: sum(1 for rid in by_report if manifest["claims"].get(rid, {}).get("set") == s)
                           for s in ("scifact_dev", "frosc", "claimspect_vaccine")},
        **figures,
        "items": {m: len(totals.get(m, [])) for m in TARGETS},
        "targets": TARGETS,
        "met": {m: (figures[m] is not None and figures[m] >= t - 1e-9) for m, t in TARGETS.items()},
        "by_set": {s: {m: share(v) for m, v in ms.items()} for s, ms in per_set.items()},
        "reader_agreement": {m: {"items": len(v), "agreement": share(v)} for m, v in agree.items()},
        "inconsistencies": notes,
        "guide": "docs/methods/expert-reading-guide.md",
    }
    # One file keeps every tag's figures (the baseline beside the latest), the latest on top.
    previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    runs = {**previous.get("runs", {}), tag: result}
    write_json(out, {**result, "runs": runs})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "packets", "score"))
    ap.add_argument("--tag", default="baseline", help="Which set of reports (a folder under evals/labels/expert_read).")
    ap.add_argument("--depth", type=int, default=None, help="Aspect depth (default: the configured one).")
    ap.add_argument("--resume", action="store_true", help="Keep the claims already run under this tag.")
    ap.add_argument("--aspects", choices=("proposed", "facets"), default=None,
                    help="run: where the aspects come from (hierarchy.aspects); default the configured one.")
    ap.add_argument("--out", type=Path, default=RESULTS / "expert_read.json")
    ap.add_argument("--labels", type=Path, default=None,
                    help="Where the reports, packets and judgments live (default evals/labels/expert_read); lets a "
                         "checkout of an earlier commit write its reports into this one.")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.command == "run":
        run(args.tag, args.depth, args.resume, args.aspects, args.labels)
    elif args.command == "packets":
        packets(args.tag, args.labels)
    else:
        score(args.tag, args.out, args.labels)


if __name__ == "__main__":
    main()
