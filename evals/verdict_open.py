"""Open claims without gold labels: the FRoSC claims over the SciFact corpus and the
ClaimSpect vaccine claims over a corpus cut from the 50 vaccine source papers they were written from.

    python -m evals.verdict_open --frosc 10 --vaccine 5

Writes evals/results/verdict_open_claims.json (distribution of verdicts, hierarchy sizes, attribution
rates, time per claim) and keeps every report as Markdown under evals/results/open_claims/.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from claimscope.agent.graph.state import InvestigationOptions
from evals._harness import (
    RESULTS,
    SHARED,
    WORK,
    ClaimRun,
    code_version,
    ensure_corpus,
    load_runs,
    median,
    run_claims,
    services_for,
    start_log,
    write_json,
)
from evals.verdict_scifact import dropped_count, explanation_figures, revised_count

CHUNK_SENTENCES = 8


def vaccine_corpus(src: Path, dest: Path) -> Path:
    """The 50 papers (one per line, PDF-extracted text) cut into passages of CHUNK_SENTENCES sentences,
    each a document of its own, in the generic JSONL format (id, title, text)."""
    from claimscope.tools.text.segmenter import split_sentences

    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("w") as fh:
        for i, line in enumerate(src.read_text(errors="replace").splitlines(), start=1):
            sents = split_sentences(line)
            for k in range(0, len(sents), CHUNK_SENTENCES):
                part = sents[k: k + CHUNK_SENTENCES]
                fh.write(json.dumps({"id": f"vp{i}-{k // CHUNK_SENTENCES}",
                                     "title": f"Vaccine source paper {i}, passage {k // CHUNK_SENTENCES + 1}",
                                     "text": " ".join(part)}) + "\n")
    return dest


def summarise(runs: list[ClaimRun], services) -> dict:
    from evals.rubric import summarise_rubric, tree_rubric

    labels: Counter[str] = Counter()
    rubric_rows = []
    nodes, secs, attr, first = [], [], [], []
    n_sent = n_exist = n_pass = n_dropped = 0
    for r in runs:
        st = r.state
        if r.error or not st:
            labels["error"] += 1
            continue
        v = st.get("verdict") or {}
        labels[v.get("weighted_label", st.get("status", "?"))] += 1
        tree = st.get("tree") or {}
        nodes.append(max(0, len(tree.get("nodes", {})) - 1))
        rubric_rows.append(tree_rubric(st, services))
        secs.append(r.seconds)
        n, exist, passed = explanation_figures(st, services)
        n_sent, n_exist, n_pass = n_sent + n, n_exist + exist, n_pass + passed
        n_dropped += dropped_count(st)
        if n:
            attr.append(passed / n)
            first.append((passed - revised_count(st)) / n)
    return {
        "n_claims": len(runs),
        "verdicts": dict(labels),
        "nodes_per_claim_median": median([float(x) for x in nodes]),
        "claims_with_explanation": len(attr),
        "explanation_sentences": n_sent,
        "citations_exist_rate": round(n_exist / n_sent, 4) if n_sent else None,
        # pooled over sentences, as evals.verdict_scifact reports it; the mean is over claims
        "attribution_pass_rate": round(n_pass / n_sent, 4) if n_sent else None,
        "dropped_sentences": n_dropped,
        "attribution_shown_pass_rate": round(n_pass / (n_sent - n_dropped), 4) if n_sent > n_dropped else None,
        "attribution_pass_rate_mean": round(statistics.mean(attr), 4) if attr else None,
        "attribution_first_draft_pass_rate_mean": round(statistics.mean(first), 4) if first else None,
        "seconds_per_claim_median": median(secs),
        "rubric": summarise_rubric(rubric_rows),
    }


def save_reports(runs: list[ClaimRun], folder: Path) -> None:
    from claimscope.agent.report import render

    folder.mkdir(parents=True, exist_ok=True)
    for r in runs:
        report = r.state.get("report")
        if report:
            (folder / f"{r.claim_id}.md").write_text(render(report, "md"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frosc", type=int, default=49, help="How many FRoSC claims (of 49).")
    ap.add_argument("--vaccine", type=int, default=10, help="How many ClaimSpect vaccine claims (of 150).")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--out", type=Path, default=RESULTS / "verdict_open_claims.json")
    ap.add_argument("--resume", action="store_true",
                    help="Keep the last run's logs and run only the claims they do not have yet.")
    args = ap.parse_args()

    services = services_for()
    ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
    ensure_corpus(services, vaccine_corpus(SHARED / "claimspect" / "vaccine_source_papers.txt",
                                           WORK / "vaccine_corpus.jsonl"), "vaccine-papers")
    frosc = [json.loads(x) for x in (SHARED / "frosc" / "claims.jsonl").read_text().splitlines() if x.strip()]
    vaccine = json.loads((SHARED / "claimspect" / "claims_vaccine.json").read_text())
    # A run of one set (e.g. --frosc 0) keeps the other set's figures; each set names its code.
    out: dict = json.loads(args.out.read_text()) if args.out.is_file() else {}
    out["depth"] = args.depth
    sets = [
        ("frosc", [(f"frosc-{c['id']}", c["claim"]) for c in frosc[: args.frosc]], ["scifact"]),
        ("claimspect_vaccine", [(f"vaccine-{c['id']}", c["body"]) for c in vaccine[: args.vaccine]],
         ["vaccine-papers"]),
    ]
    for name, claims, corpora in sets:
        if not claims:
            continue
        opts = InvestigationOptions(corpora=corpora, sources=["local"], depth=args.depth)
        log = WORK / f"open_{name}.jsonl"
        done = start_log(log, args.resume)
        run_claims(services, claims, opts, log=log, skip=done)
        wanted = {cid for cid, _ in claims}
        runs = [r for r in load_runs(log) if r.claim_id in wanted]
        out[name] = summarise(runs, services) | {"code": code_version(), "date": time.strftime("%Y-%m-%d")}
        save_reports(runs, RESULTS / "open_claims" / name)
    write_json(args.out, out)


if __name__ == "__main__":
    main()
