"""Choose `search.top_k` (documents kept per retrieval query) on SciFact TRAIN claims.

    python -m evals.gather_top_k --n 100

For each train claim, runs the product's claim analysis (embedded LLM: anti-claim, sub-claims of a
decomposed claim) and the gather step's queries over the SciFact corpus, and reports, for each
candidate k, the recall of the claim's cited documents among the union of the top-k documents of
every query, with the number of documents gathered (what the later steps pay for). The sub-claim
passage filter and the aspect-keyword queries are left out, so this is the recall of the gather
queries alone. Writes evals/results/gather_top_k.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from evals._harness import RESULTS, SHARED, WORK, ensure_corpus, services_for, write_json

K_GRID = [10, 20, 30, 40, 50, 60, 80, 100]
CACHE = WORK / "gather_top_k_cache.json"


def collect(args: argparse.Namespace) -> list[dict]:
    """Per train claim: its cited documents and the top documents of each gather query."""
    from claimscope.tools.find.store import SearchFilter
    from claimscope.tools.read.claim_analysis import analyse_claim

    services = services_for()
    ensure_corpus(services, args.corpus, "scifact")
    rows = [json.loads(line) for line in args.claims.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("cited_doc_ids")]
    random.Random(args.seed).shuffle(rows)
    rows = rows[: args.n]
    flt = SearchFilter(corpora=["scifact"])
    kmax = max(K_GRID)
    per_claim = []
    t0 = time.perf_counter()
    for i, r in enumerate(rows):
        analysis = analyse_claim(r["claim"], services.llm)
        queries = list(dict.fromkeys([r["claim"], analysis.anti_claim, *analysis.sub_claims, *analysis.queries]))
        ranked = [[h.document.id for h in services.store.search(q, k=kmax, flt=flt, sentences_per_doc=1)]
                  for q in queries if q and q.strip()]
        per_claim.append({"id": r["id"], "gold": [str(d) for d in r["cited_doc_ids"]], "ranked": ranked,
                          "anti_claim_source": analysis.anti_claim_source})
        if (i + 1) % 10 == 0:
            print(f"{i + 1}/{len(rows)} claims ({time.perf_counter() - t0:.0f}s)", flush=True)
    CACHE.write_text(json.dumps(per_claim))
    return per_claim


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="Train claims (with cited documents).")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--corpus", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    ap.add_argument("--claims", type=Path, default=SHARED / "scifact" / "claims_train.jsonl")
    ap.add_argument("--target", type=float, default=0.9, help="Recall the chosen k must reach.")
    ap.add_argument("--knee", type=float, default=0.0005,
                    help="Recall gain per extra document below which more documents are not worth it.")
    ap.add_argument("--reuse", action="store_true", help="Rescore the last run's retrieved lists.")
    ap.add_argument("--out", type=Path, default=RESULTS / "gather_top_k.json")
    args = ap.parse_args()
    if "train" not in args.claims.name:
        raise SystemExit("gather_top_k chooses a setting: give it TRAIN claims only (claims_train.jsonl).")

    t0 = time.perf_counter()
    per_claim = json.loads(CACHE.read_text()) if args.reuse and CACHE.exists() else collect(args)
    table = []
    for k in K_GRID:
        recall, gathered, claim_only = [], [], []
        for c in per_claim:
            union = {d for lst in c["ranked"] for d in lst[:k]}
            gold = set(c["gold"])
            recall.append(len(gold & union) / len(gold))
            claim_only.append(len(gold & set(c["ranked"][0][:k])) / len(gold))
            gathered.append(len(union))
        table.append({"top_k": k, "gold_doc_recall": round(statistics.mean(recall), 4),
                      "claim_query_only_recall": round(statistics.mean(claim_only), 4),
                      "documents_gathered_median": statistics.median(gathered)})
    reaching = next((row["top_k"] for row in table if row["gold_doc_recall"] >= args.target), None)
    # The knee: the first k after which the next step of the grid adds less than `knee` recall per
    # extra document. Train recall runs above dev's, so reaching the target on train is
    # not enough; past the knee more documents cost little but add almost nothing.
    knee = next((a["top_k"] for a, b in zip(table, table[1:], strict=False)
                 if (b["gold_doc_recall"] - a["gold_doc_recall"]) / (b["top_k"] - a["top_k"]) < args.knee),
                table[-1]["top_k"])
    write_json(args.out, {"split": "SciFact train (never dev or test)", "n_claims": len(per_claim),
                          "target_recall": args.target, "smallest_top_k_reaching_target": reaching,
                          "knee_top_k": knee, "knee_gain_per_document": args.knee,
                          "chosen_top_k": max(knee, reaching or 0), "table": table,
                          "anti_claim_from_llm": sum(c.get("anti_claim_source") == "llm" for c in per_claim),
                          "seconds": round(time.perf_counter() - t0, 1)})


if __name__ == "__main__":
    main()
