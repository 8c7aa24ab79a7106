"""Fit the sample-size chooser (tools/appraise/sample_size_model.json): which of the numbers the patterns
propose (tools.appraise.sample_size.readings) is the number of participants an abstract states.

    python -m evals.train_sample_size            # cross-validate, fit, write the model + results
    python -m evals.train_sample_size --no-write # cross-validate only

Training records (hand-read, blind to the extractor; see evals.study_design):
- evals/labels/pubmedqa_sample_size_tune.tsv, _tune2.tsv, _tune3.tsv (PubMedQA PQA-L);
- evals/labels/scifact_sample_size_tune.tsv (SciFact abstracts that mention people);
- the tune half (evals.study_design.half) of evals/labels/pubmedqa_sample_size.tsv.
Never read here: the fresh set (pubmedqa_sample_size_fresh.tsv), the held-out halves, the
SciFact title set.

Model: logistic regression over tools.appraise.sample_size.candidate_features, one row per proposed number
(1 where it is the hand-read number). C and the floor under which no number is read are chosen by
5-fold cross-validation (folds by record) on the share of records read right: the number where one
is stated, no number where none is. Writes tools/appraise/sample_size_model.json and
evals/results/sample_size_model.json.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

from evals._harness import RESULTS, SHARED, write_json
from evals.study_design import (
    PUBMEDQA_SIZES,
    TUNE_SIZES,
    half,
    pubmedqa_size_items,
    scifact_size_items,
)

MODEL_OUT = Path(__file__).resolve().parents[1] / "tools" / "appraise" / "sample_size_model.json"
GRID_C = (0.1, 0.3, 1.0, 3.0, 10.0)
GRID_FLOOR = (0.05, 0.1, 0.15, 0.2, 0.3)
FOLDS = 5


def training_items() -> list[dict[str, Any]]:
    pqal = SHARED / "pubmedqa" / "ori_pqal.json"
    items = [dict(it, src=f"pubmedqa_{name}") for name, labels in TUNE_SIZES.items()
             for it in pubmedqa_size_items(pqal, labels)]
    items += [dict(it, src="pubmedqa_first") for it in pubmedqa_size_items(pqal, PUBMEDQA_SIZES)
              if half(it["id"]) == "tune"]
    items += [dict(it, src="scifact") for it in scifact_size_items(SHARED / "scifact" / "corpus.jsonl")]
    return items


def _fold(record_id: str) -> int:
    return int(hashlib.sha256(f"size-fold:{record_id}".encode()).hexdigest(), 16) % FOLDS


def _rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from claimscope.tools.appraise.sample_size import candidate_features, sample_size_rules

    out = []
    for it in items:
        text = " ".join(it["sentences"])
        out.append({**it, "candidates": candidate_features(text), "rules": sample_size_rules(text)})
    return out


def _fit(rows: list[dict[str, Any]], c: float) -> Any:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    x = [f for r in rows for f in r["candidates"].values()]
    y = [int(v == r["gold"]) for r in rows for v in r["candidates"]]
    vec = DictVectorizer()
    clf = LogisticRegression(C=c, max_iter=5000).fit(vec.fit_transform(x), y)
    return vec, clf


def _as_model(vec: Any, clf: Any, floor: float) -> dict[str, Any]:
    return {"features": list(vec.get_feature_names_out()), "coef": [round(float(w), 6) for w in clf.coef_[0]],
            "intercept": round(float(clf.intercept_[0]), 6), "floor": floor}


def _best(rows: list[dict[str, Any]], vec: Any, clf: Any) -> list[tuple[int | None, float]]:
    """Each record's best candidate and its score, as the shipped SizeChooser picks it."""
    from claimscope.tools.appraise.sample_size import SizeChooser

    chooser = SizeChooser.model_validate(_as_model(vec, clf, 0.0))
    return [best if (best := chooser.best(r["candidates"])) is not None else (None, 0.0) for r in rows]


def score(rows: list[dict[str, Any]], preds: list[int | None]) -> dict[str, Any]:
    stated = [(r, p) for r, p in zip(rows, preds, strict=True) if r["gold"] is not None]
    none = [(r, p) for r, p in zip(rows, preds, strict=True) if r["gold"] is None]
    right = sum(p == r["gold"] for r, p in stated) + sum(p is None for _, p in none)
    return {"records": len(rows), "read_right": round(right / len(rows), 4),
            "exact_match": round(sum(p == r["gold"] for r, p in stated) / len(stated), 4), "n": len(stated),
            "sums_exact_match": round(sum(p == r["gold"] for r, p in stated if r["kind"] == "sum")
                                      / max(1, sum(r["kind"] == "sum" for r, _ in stated)), 4),
            "spurious": sum(p is not None for _, p in none), "no_number_stated": len(none)}


def cross_validate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    grid: dict[str, Any] = {}
    for c in GRID_C:
        best: list[tuple[int | None, float]] = [(None, 0.0)] * len(rows)
        for k in range(FOLDS):
            train = [r for r in rows if _fold(r["id"]) != k]
            test = [i for i, r in enumerate(rows) if _fold(r["id"]) == k]
            vec, clf = _fit(train, c)
            for i, b in zip(test, _best([rows[i] for i in test], vec, clf), strict=True):
                best[i] = b
        for floor in GRID_FLOOR:
            grid[f"C={c},floor={floor}"] = {"C": c, "floor": floor,
                                            **score(rows, [v if s >= floor else None for v, s in best])}
    return grid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true", help="cross-validate only")
    args = ap.parse_args()
    rows = _rows(training_items())
    grid = cross_validate(rows)
    chosen = max(grid.values(), key=lambda g: (g["read_right"], g["exact_match"], -g["C"]))
    rules = score(rows, [r["rules"] for r in rows])
    by_source = {src: {"rules": score(sub, [r["rules"] for r in sub])} for src in sorted({r["src"] for r in rows})
                 if (sub := [r for r in rows if r["src"] == src])}
    print(f"{len(rows)} records; cross-validated chooser (C={chosen['C']}, floor={chosen['floor']}): "
          f"exact match {chosen['exact_match']}, sums {chosen['sums_exact_match']}, spurious {chosen['spurious']}/"
          f"{chosen['no_number_stated']}; the patterns' fixed order: {rules['exact_match']}, sums "
          f"{rules['sums_exact_match']}, spurious {rules['spurious']}")
    if args.no_write:
        return
    vec, clf = _fit(rows, chosen["C"])
    write_json(MODEL_OUT, _as_model(vec, clf, chosen["floor"]))
    write_json(RESULTS / "sample_size_model.json", {
        "command": "python -m evals.train_sample_size",
        "trained_on": {src: sum(r["src"] == src for r in rows) for src in sorted({r["src"] for r in rows})},
        "cross_validated": {"chosen": chosen, "rules": rules, "grid": grid},
        "rules_by_source": by_source,
    })


if __name__ == "__main__":
    main()
