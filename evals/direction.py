"""Direction reader benchmark -> evals/results/direction.json.

    python -m evals.direction [--split train|validation]

Evidence Inference 2.0 (MIT): each annotation is a trial finding labelled "significantly increased",
"significantly decreased" or "no significant difference" for an intervention against a comparator
on an outcome, with the evidence span. tools.read.direction.sentence_direction reads the span; the score
is how often it reads UP / DOWN / NONE as labelled (UNKNOWN and ASSOCIATED count as misses), and
how often it commits at all. The lexicon was written from the train split; validation is reported.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

from evals._harness import RESULTS, SHARED, code_version, write_json

EI = SHARED / "evidence_inference"
GOLD = {"significantly increased": "up", "significantly increase": "up", "significantly decreased": "down",
        "no significant difference": "none"}


def load(split: str) -> list[tuple[str, str]]:
    ids = set((EI / f"ev2_{split}_article_ids.txt").read_text().split())
    out = []
    with (EI / "v2_annotations.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if r["PMCID"] in ids and r["Label"] in GOLD and r["Annotations"].strip():
                out.append((r["Annotations"], GOLD[r["Label"]]))
    return out


def score(rows: list[tuple[str, str]]) -> dict:
    from claimscope.tools.read.direction import sentence_direction

    pred = [sentence_direction(t).value for t, _ in rows]
    gold = [g for _, g in rows]
    committed = [(p, g) for p, g in zip(pred, gold, strict=True) if p in ("up", "down", "none")]
    per = {}
    for c in ("up", "down", "none"):
        tp = sum(1 for p, g in zip(pred, gold, strict=True) if p == g == c)
        n_pred = pred.count(c)
        n_gold = gold.count(c)
        per[c] = {"precision": round(tp / n_pred, 4) if n_pred else None,
                  "recall": round(tp / n_gold, 4) if n_gold else None, "n": n_gold}
    return {
        "n": len(rows),
        "accuracy": round(sum(p == g for p, g in zip(pred, gold, strict=True)) / len(rows), 4),
        "committed_rate": round(len(committed) / len(rows), 4),
        "accuracy_when_committed": round(sum(p == g for p, g in committed) / len(committed), 4) if committed else None,
        "per_class": per,
        "predicted": dict(Counter(pred)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "direction.json")
    args = ap.parse_args()
    out = {"code_version": code_version(), "data": "Evidence Inference 2.0 annotations (MIT)"}
    for split in ("train", "validation"):
        out[split] = score(load(split))
        print(split, out[split])
    write_json(args.out, out)


if __name__ == "__main__":
    main()
