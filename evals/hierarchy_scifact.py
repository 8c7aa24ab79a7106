"""Benchmark of the first half of the investigation on SciFact dev claims.

    python -m evals.hierarchy_scifact --n 30 [--corpus ../shared/data/scifact/corpus.jsonl]

Runs each claim with the embedded defaults until the aspect hierarchy is built and writes
evals/results/hierarchy_scifact.json: wall time per claim and per step, LLM calls and tokens, nodes
and depth, sibling uniqueness, top-5 segment relevance per node (stance model: 1 - P(neutral) of
(aspect, segment)), recall of the gold evidence documents among the gathered ones, and the share of
documents found only through the anti-claim query; and the analysis rubric of evals.rubric
(segment relevance, off-claim nodes, copied names, degenerate text before and after fallback,
attribution of explanations and perspectives). Claims the screen ends at "insufficient evidence"
build no tree and count only in the time and recall figures.
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

from claimscope.agent.graph.state import InvestigationOptions
from evals._harness import (
    RESULTS,
    WORK,
    calls,
    ensure_corpus,
    load_runs,
    median,
    run_claims,
    scifact_args,
    services_for,
    start_log,
    tokens,
    write_json,
)

FIRST_HALF = {"analyse", "gather", "grow_hierarchy"}
FIRST_HALF_PROMPTS = {"anti_claim", "decompose", "aspects", "subaspects", "keywords", "choose_action"}
UNIQUENESS_THRESHOLD = 0.8


def dev_claims(path: Path, n: int, seed: int) -> list[tuple[str, str, list[str]]]:
    """A seeded sample of dev claims with their gold documents (the cited abstracts)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    random.Random(seed).shuffle(rows)
    return [(str(r["id"]), r["claim"], [str(d) for d in r.get("cited_doc_ids", [])]) for r in rows[:n]]


def main() -> None:
    ap = scifact_args(__doc__.split("\n\n")[0], n=30, seed=13, out=RESULTS / "hierarchy_scifact.json")
    ap.add_argument("--from-log", type=Path, default=None,
                    help="Compute the figures from another runner's log of whole investigations "
                         "(e.g. evals/work/verdict_runs.jsonl) instead of running claims.")
    args = ap.parse_args()

    services = services_for()
    ensure_corpus(services, args.corpus, "scifact")
    claims = dev_claims(args.claims, 10_000 if args.from_log else args.n, args.seed)
    log = args.from_log or WORK / "hierarchy_runs.jsonl"
    if not args.reuse and not args.from_log:
        done = start_log(log, args.resume)
        opts = InvestigationOptions(corpora=["scifact"], sources=["local"], depth=args.depth,
                                    stop_after="hierarchy")
        run_claims(services, [(cid, text) for cid, text, _ in claims], opts, log=log, skip=done)
    runs = load_runs(log)
    gold = {cid: g for cid, _, g in claims}

    from claimscope.tools.read.hierarchy import AspectTree
    from evals.rubric import summarise_rubric, tree_rubric
    from evals.verdict_scifact import explanation_figures

    secs, toks, llm_calls, nodes, depths, rel, recall, anti_share = [], [], [], [], [], [], [], []
    rubric_rows = []
    n_sent = n_pass = 0
    per_step: dict[str, list[float]] = {}
    errors = [r.claim_id for r in runs if r.error]
    for r in runs:
        st = r.state
        if r.error or not st:
            continue
        timings = st.get("timings") or {}
        secs.append(sum(v for k, v in timings.items() if k in FIRST_HALF))
        for k, v in timings.items():
            per_step.setdefault(k, []).append(v)
        toks.append(tokens(st, FIRST_HALF_PROMPTS))
        llm_calls.append(calls(st, FIRST_HALF_PROMPTS))
        docs = st.get("documents") or {}
        g = gold.get(r.claim_id, [])
        if g:
            recall.append(sum(1 for d in g if d in docs) / len(g))
        if docs:
            anti_share.append(sum(1 for d in docs.values() if d.get("found_by") == ["anti_claim"]) / len(docs))
        rubric_rows.append(tree_rubric(st, services))
        n, _, passed = explanation_figures(st, services)
        n_sent, n_pass = n_sent + n, n_pass + passed
        if not st.get("tree"):
            continue
        tree = AspectTree.model_validate(st["tree"])
        nodes.append(len(tree.nodes) - 1)
        depths.append(tree.depth())
        rel.append(_segment_relevance(services, tree))

    out = {
        "source_log": str(log.relative_to(log.parents[2])) if args.from_log else None,
        "n_claims": len(runs),
        "n_failed": len(errors),
        "failed_claims": errors,
        "depth": args.depth,
        "seconds_per_claim_median": median(secs),
        "seconds_per_claim_p90": round(sorted(secs)[int(0.9 * (len(secs) - 1))], 1) if secs else None,
        "seconds_per_step_median": {k: median(v) for k, v in per_step.items()},
        "llm_calls_per_claim_median": median([float(c) for c in llm_calls]),
        "llm_tokens_per_claim_median": median([float(t) for t in toks]),
        "nodes_per_claim_median": median([float(n) for n in nodes]),
        "depth_median": median([float(d) for d in depths]),
        "sibling_uniqueness_threshold": UNIQUENESS_THRESHOLD,
        # the stance model's 1 - P(neutral) of (aspect, segment), the figure reported before the rubric
        "segment_relevance_top5_stance": round(statistics.mean(rel), 4) if rel else None,
        **summarise_rubric(rubric_rows),
        "explanation_sentences": n_sent,
        "attribution_pass_rate": round(n_pass / n_sent, 4) if n_sent else None,
        "gold_doc_recall": round(statistics.mean(recall), 4) if recall else None,
        "anticlaim_only_share": round(statistics.mean(anti_share), 4) if anti_share else None,
        "llm": services.settings.llm.model,
        "embedded_model": services.settings.llm.embedded_model,
    }
    write_json(args.out, out)


def _segment_relevance(services, tree) -> float:
    """Mean over aspect nodes of the mean relevance of their top-5 segments, where relevance is
    1 - P(neutral) of the stance model on ("aspect: description", segment)."""
    per_node = []
    for node in tree.walk():
        if node.id == "root" or not node.segment_keys:
            continue
        texts = []
        for key in node.segment_keys[:5]:
            seg = services.store.get_segment(key)
            if seg is not None:
                texts.append(seg.text)
        if not texts:
            continue
        query = f"{node.name}: {node.description}"
        res = services.stance.predict([(query, t) for t in texts])
        per_node.append(statistics.mean(1.0 - r.neutral for r in res))
    return statistics.mean(per_node) if per_node else 0.0


if __name__ == "__main__":
    main()
