"""Compare tools.appraise.trust propagation with the ClaimTrust release on its own data.

Data: /work/shared/data/claimtrust (814 political news articles labelled real/fake, 1,415
LLM-labelled claim relations between them, the release's document_trust_scores.csv).

Reports (evals/results/trust_claimtrust.json):
- reproduction: the release's scores recomputed with propagate_trust (max abs difference);
- how well each scoring separates real from fake articles (ROC AUC), on the documents that were
  NOT seeds, since seeds are given their label:
  release (TrustRank - Anti-TrustRank, a = 0.5, 200 seeds), ours with the same seeds as priors
  (a = 0.85, isolated documents keep their prior), and ours without any seed (structure only).
Run: python -m evals.trust_claimtrust
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from claimscope.tools.appraise.trust import DocEdge, normalise_edges, propagate_trust

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claimtrust"
OUT = Path(__file__).resolve().parent / "results" / "trust_claimtrust.json"


def load() -> tuple[list[str], list[DocEdge], dict[str, float], dict[str, int]]:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    with open(DATA / "claim_relations_llm.csv", encoding="utf-8", errors="replace") as fh:
        for row in csv.DictReader(fh):
            key = (row["id1"][:4], row["id2"][:4])
            if row["relation"] == "1":
                counts[key][0] += 1
            elif row["relation"] == "-1":
                counts[key][1] += 1
    edges = normalise_edges({k: (v[0], v[1]) for k, v in counts.items()})
    docs = sorted({d for k in counts for d in k})
    with open(DATA / "document_trust_scores.csv", encoding="utf-8") as fh:
        released = {r["doc_id"]: float(r["scaled_score"]) for r in csv.DictReader(fh)}
    with open(DATA / "articles_filtered.csv", encoding="utf-8", errors="replace") as fh:
        validity = {
            r["id"]: int(r["validity"]) for r in csv.DictReader(fh) if r["validity"] in ("0", "1")
        }
    return docs, edges, released, validity


def recover_seeds(
    docs: list[str], edges: list[DocEdge], released: dict[str, float]
) -> tuple[set[str], set[str]]:
    """The release's seed sets (its top-200 tie-break depends on pandas' unstable sort), recovered
    by inverting the affine fixed point: (I - a/2 A)(t - s) = (1 - a)(seed_t/n_t - seed_a/n_a)."""
    idx = {d: i for i, d in enumerate(docs)}
    n = len(docs)
    a_mat = np.zeros((n, n))
    pos: dict[str, float] = defaultdict(float)
    neg: dict[str, float] = defaultdict(float)
    for e in edges:
        (pos if e.weight > 0 else neg)[e.target] += abs(e.weight)
    for e in edges:
        denom = pos[e.target] if e.weight > 0 else neg[e.target]
        a_mat[idx[e.target], idx[e.source]] += e.weight / denom
    y = np.array([released[d] for d in docs]) / 1000.0
    v = (np.eye(n) - 0.25 * a_mat) @ y / 0.5
    return {d for d in docs if v[idx[d]] > 1e-3}, {d for d in docs if v[idx[d]] < -1e-3}


def auc(scores: dict[str, float], labels: dict[str, int], keep: set[str]) -> float:
    """ROC AUC of real (1) over fake (0), ties counted half."""
    pos = [scores[d] for d in keep if labels.get(d) == 1]
    neg = [scores[d] for d in keep if labels.get(d) == 0]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def main() -> None:
    docs, edges, released, validity = load()
    trust_seed, anti_seed = recover_seeds(docs, edges, released)

    def release_run(seed: set[str]) -> dict[str, float]:
        pri = {d: (1.0 / len(seed) if d in seed else 0.0) for d in docs}
        return propagate_trust(
            docs,
            edges,
            pri,
            alpha=0.5,
            max_iterations=100,
            tolerance=1e-9,
            isolated="neutral",
            start="zero",
        ).scores

    t, a = release_run(trust_seed), release_run(anti_seed)
    ours_release = {d: (t[d] - a[d]) * 1000 for d in docs}
    max_diff = max(abs(ours_release[d] - released[d]) for d in docs)

    seeded_priors = {d: 1.0 if d in trust_seed else 0.0 if d in anti_seed else 0.5 for d in docs}
    seeded = propagate_trust(
        docs, edges, seeded_priors, alpha=0.85, max_iterations=100, tolerance=1e-6
    )
    unseeded = propagate_trust(docs, edges, {}, alpha=0.85, max_iterations=100, tolerance=1e-6)

    held_out = set(docs) - trust_seed - anti_seed
    n_real = sum(validity.get(d) == 1 for d in held_out)
    result = {
        "documents": len(docs),
        "edges": len(edges),
        "seeds": {"trusted": len(trust_seed), "distrusted": len(anti_seed)},
        "held_out_documents": {
            "total": len(held_out),
            "real": n_real,
            "fake": len(held_out) - n_real,
        },
        "reproduction_max_abs_diff_scaled": max_diff,
        "auc_real_vs_fake_held_out": {
            "release_scores": auc(released, validity, held_out),
            "ours_seeded_alpha0.85": auc(seeded.scores, validity, held_out),
            "ours_unseeded_alpha0.85": auc(unseeded.scores, validity, held_out),
        },
        "iterations": {"ours_seeded": seeded.iterations, "ours_unseeded": unseeded.iterations},
        "converged": {"ours_seeded": seeded.converged, "ours_unseeded": unseeded.converged},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
