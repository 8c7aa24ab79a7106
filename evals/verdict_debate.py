"""Debate claims end to end: PERSPECTRUM dev claims over a corpus of PERSPECTRUM's perspective pool.

    python -m evals.verdict_debate --n 10                # the product as shipped (argument model)
    python -m evals.verdict_debate --n 10 --baseline     # debate claims read like empirical ones

The corpus is PERSPECTRUM's whole perspective pool (11,112 one-sentence arguments written for 907
claims), ingested as a generic JSONL (id, title, text): claimscope has to find the arguments on the
claim among those written for every other claim. PERSPECTRUM's gold (which perspectives argue for or
against which claim) is never shown to the pipeline; it judges the result independently of the
pipeline's own relevance test:

- `gold_relevance_top5`: share of each node's top-5 segments that are gold perspectives of the claim
  (a floor: an argument written for a near-duplicate claim counts as off-claim);
- `segment_stance_accuracy`: of the gold perspectives the assess step labelled support or refute,
  the share whose label matches PERSPECTRUM's (support / undermine);
- `claims_with_both_sides`: claims whose report has at least one supporting and one undermining
  perspective (segments labelled support and refute in the tree);
- the analysis rubric of evals.rubric (its relevance uses the claim's own evidence test).

Claims are a seeded sample of PERSPECTRUM dev (never trained or tuned on); the claim kind is
detected as a user would get it (`--claim-kind` forces one). Writes evals/results/verdict_debate.json
(one entry per `--label`, default "argument_model" or "baseline") and the reports under
evals/results/debate_claims/<label>/.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

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
from evals.verdict_scifact import explanation_figures

DATA = SHARED / "perspectrum"
CORPUS = "perspectrum"
SEED = 5
_SIGN = {"SUPPORT": "support", "UNDERMINE": "refute"}


def pool_corpus(dest: Path) -> Path:
    """PERSPECTRUM's perspective pool as a generic JSONL corpus: one document per perspective."""
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    pool = json.loads((DATA / "perspective_pool_v1.0.json").read_text())
    with dest.open("w") as fh:
        for p in pool:
            fh.write(json.dumps({"id": f"p{p['pId']}", "title": "", "text": p["text"]}) + "\n")
    return dest


def dev_claims(n: int, seed: int) -> list[dict[str, Any]]:
    claims = json.loads((DATA / "perspectrum_with_answers_v1.0.json").read_text())
    split = json.loads((DATA / "dataset_split_v1.0.json").read_text())
    dev = [c for c in claims if split.get(str(c["cId"])) == "dev"]
    random.Random(seed).shuffle(dev)
    return dev[:n]


def gold_stances(claim: dict[str, Any]) -> dict[str, str]:
    """Document id ("p<pId>") -> "support" / "refute" for the claim's gold perspectives."""
    return {f"p{pid}": _SIGN[c["stance_label_3"]] for c in claim["perspectives"] for pid in c["pids"]
            if c["stance_label_3"] in _SIGN}


def claim_figures(state: dict[str, Any], gold: dict[str, str]) -> dict[str, Any]:
    """Gold-judged figures of one investigation."""
    doc = lambda key: key.rpartition("#")[0]  # noqa: E731
    tree = state.get("tree") or {}
    nodes = [n for nid, n in (tree.get("nodes") or {}).items() if nid != "root"]
    top5 = [[doc(k) in gold for k in n.get("segment_keys", [])[:5]] for n in nodes]
    stances = state.get("stances") or {}
    judged = [(gold[doc(k)], v["label"]) for k, v in stances.items()
              if doc(k) in gold and v["label"] in ("support", "refute")]
    labels = Counter(v["label"] for v in stances.values())
    weighed = (state.get("assessments") or {})
    signs = []
    for d, a in weighed.items():
        score = float((a.get("assessment") or {}).get("score", 0.0))
        if d in gold and score != 0:
            signs.append((score > 0) == (gold[d] == "support"))
    verdict = state.get("verdict") or {}
    return {
        "claim_kind": (state.get("analysis") or {}).get("claim_kind"),
        "status": state.get("status"),
        "label": verdict.get("weighted_label"),
        "nodes": len(nodes),
        "gold_relevance_top5": [sum(t) / len(t) for t in top5 if t],
        "segments_support": labels.get("support", 0),
        "segments_refute": labels.get("refute", 0),
        "gold_stance_pairs": len(judged),
        "gold_stance_correct": sum(g == p for g, p in judged),
        "weighed_documents": len(weighed),
        "weighed_gold": sum(1 for d in weighed if d in gold),
        "weighed_sign_correct": sum(signs),
        "weighed_sign_judged": len(signs),
        "perspective_summaries": len(state.get("perspectives") or {}),
    }


def summarise(runs: list[ClaimRun], claims: dict[str, dict[str, Any]], services: Any) -> dict[str, Any]:
    from evals.rubric import summarise_rubric, tree_rubric

    rows, rubric_rows, secs = [], [], []
    n_sent = n_pass = 0
    errors = 0
    for r in runs:
        if r.error or not r.state:
            errors += 1
            continue
        row = claim_figures(r.state, gold_stances(claims[r.claim_id]))
        row["seconds"] = round(r.seconds, 1)
        rows.append({"claim_id": r.claim_id, "claim": r.claim} | row)
        rubric_rows.append(tree_rubric(r.state, services))
        secs.append(r.seconds)
        n, _, passed = explanation_figures(r.state, services)
        n_sent, n_pass = n_sent + n, n_pass + passed
    rel = [x for row in rows for x in row["gold_relevance_top5"]]
    pairs = sum(row["gold_stance_pairs"] for row in rows)
    judged = sum(row["weighed_sign_judged"] for row in rows)
    return {
        "n_claims": len(runs),
        "errors": errors,
        "claim_kinds": dict(Counter(str(row["claim_kind"]) for row in rows)),
        "statuses": dict(Counter(str(row["status"]) for row in rows)),
        "verdicts": dict(Counter(str(row["label"]) for row in rows)),
        "claims_with_tree": sum(1 for row in rows if row["nodes"]),
        "nodes_per_claim_median": median([float(row["nodes"]) for row in rows]),
        "gold_relevance_top5": round(statistics.mean(rel), 4) if rel else None,
        "segment_stance_accuracy": round(sum(row["gold_stance_correct"] for row in rows) / pairs, 4) if pairs else None,
        "segment_stance_pairs": pairs,
        "claims_with_both_sides": sum(1 for row in rows if row["segments_support"] and row["segments_refute"]),
        "weighed_documents_gold_share": (round(sum(row["weighed_gold"] for row in rows)
                                               / max(1, sum(row["weighed_documents"] for row in rows)), 4)),
        "weighed_sign_accuracy": round(sum(row["weighed_sign_correct"] for row in rows) / judged, 4) if judged else None,
        "weighed_sign_judged": judged,
        "explanation_sentences": n_sent,
        "attribution_pass_rate": round(n_pass / n_sent, 4) if n_sent else None,
        "seconds_per_claim_median": median(secs),
        "rubric": summarise_rubric(rubric_rows),
        "claims": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10, help="How many PERSPECTRUM dev claims (of 139).")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--claim-kind", choices=["auto", "empirical", "debate"], default="auto")
    ap.add_argument("--baseline", action="store_true",
                    help="Read debate claims like empirical ones (stance.argument_model: false).")
    ap.add_argument("--label", default="", help="Name of this run in the results file.")
    ap.add_argument("--out", type=Path, default=RESULTS / "verdict_debate.json")
    ap.add_argument("--resume", action="store_true", help="Run only the claims the last run's log lacks.")
    args = ap.parse_args()
    label = args.label or ("baseline" if args.baseline else "argument_model")

    overrides = {"stance": {"argument_model": False}} if args.baseline else {}
    services = services_for(**overrides)
    ensure_corpus(services, pool_corpus(WORK / "perspectrum_pool.jsonl"), CORPUS)
    chosen = dev_claims(args.n, args.seed)
    by_id = {f"persp-{c['cId']}": c for c in chosen}
    opts = InvestigationOptions(corpora=[CORPUS], sources=["local"], depth=args.depth, claim_kind=args.claim_kind)
    log = WORK / f"debate_{label}.jsonl"
    done = start_log(log, args.resume)
    run_claims(services, [(cid, c["text"]) for cid, c in by_id.items()], opts, log=log, skip=done)
    runs = [r for r in load_runs(log) if r.claim_id in by_id]
    out: dict[str, Any] = json.loads(args.out.read_text()) if args.out.is_file() else {}
    out[label] = summarise(runs, by_id, services) | {
        "code": code_version(), "date": time.strftime("%Y-%m-%d"), "depth": args.depth,
        "claim_kind_option": args.claim_kind, "seed": args.seed,
        "load_average_at_end": round(__import__("os").getloadavg()[0], 2)}
    write_json(args.out, out)
    from claimscope.agent.report import render

    folder = RESULTS / "debate_claims" / label
    folder.mkdir(parents=True, exist_ok=True)
    for r in runs:
        if r.state.get("report"):
            (folder / f"{r.claim_id}.md").write_text(render(r.state["report"], "md"))


if __name__ == "__main__":
    main()
