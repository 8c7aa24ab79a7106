"""Fit the learned abstract-level decision (tools.read.document_model) on SciFact TRAIN claims.

    python -m evals.train_document_rule            # features (cached), fit, write the model + results
    python -m evals.train_document_rule --no-write # fit and report only

Rows are (TRAIN claim, abstract) pairs labelled SUPPORT / CONTRADICT / NEI:
- the claim's gold evidence abstracts, with their label;
- the abstracts it cites that are not evidence (NEI);
- hard negatives from the product's own retrieval: the claim's top `--negatives` abstracts in the
  evidence store that are not gold evidence (NEI) -- on-subject abstracts that do not settle the claim;
- for the held-out claims, the rest of the `--uncovered` best-ranked abstracts that are neither gold nor
  cited ("uncovered" rows, not fitted on): what the screen would read if the corpus held none of the
  claim's evidence. The share of those claims whose every such abstract is decided NEI is the
  abstention the decision gives on a corpus that does not cover a claim (`uncovered_abstention`); the
  model is chosen by macro-F1 among the settings that reach `--min-abstention` there.

The packaged stance model was trained on 85% of the TRAIN claims (evals.train_stance.split_of), so
its scores on those are over-confident. The model is chosen by claim-grouped cross-validation on the
held-out 15% of TRAIN claims, over the coverage floor, the least probability an evidence label
needs and the regularisation; the fit on all
TRAIN rows is reported beside it. Nothing here reads SciFact dev or test.
Writes tools/read/stance_model/stance_config.json ("document_model") and evals/results/document_rule.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from evals._harness import (
    RESULTS,
    SHARED,
    WORK,
    code_version,
    ensure_corpus,
    services_for,
    write_json,
)
from evals._metrics import macro_f1
from evals.train_stance import split_of

ROWS = WORK / "document_rows.jsonl"
# Abstracts the screen reads (agent.graph.screen: SCREEN_FACTOR x the default five documents).
UNCOVERED = 15
CONFIG = Path(__file__).resolve().parent.parent / "tools" / "read" / "stance_model" / "stance_config.json"
FLOORS = (0.0, 0.2, 0.25, 0.34, 0.4, 0.5)
CS = (0.03, 0.1, 0.3, 1.0, 3.0)
# Least probability an evidence label needs (0 = the most probable label wins).
MIN_PROBABILITIES = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_rows(negatives: int, uncovered: int = UNCOVERED) -> list[dict]:
    """Features of every (TRAIN claim, abstract) row, cached in evals/work (resumable by claim)."""
    from claimscope.tools.find.store import SearchFilter
    from claimscope.tools.read.document_model import document_evidence

    done = {r["claim_id"] for r in _jsonl(ROWS)} if ROWS.exists() else set()
    claims = _jsonl(SHARED / "scifact" / "claims_train.jsonl")
    if {str(c["id"]) for c in claims} <= done:
        return _jsonl(ROWS)  # all cached: no need for the store (another run may hold it)
    services = services_for()
    ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
    corpus = {str(d["doc_id"]): d for d in _jsonl(SHARED / "scifact" / "corpus.jsonl")}
    flt = SearchFilter(corpora=["scifact"])
    t0 = time.perf_counter()
    with ROWS.open("a", encoding="utf-8") as fh:
        for n, c in enumerate(claims):
            if str(c["id"]) in done:
                continue
            labels: dict[str, tuple[str, str]] = {}
            for did, sets in c["evidence"].items():
                labels[str(did)] = (sets[0]["label"], "gold")
            for did in c["cited_doc_ids"]:
                labels.setdefault(str(did), ("NEI", "cited"))
            held = split_of("scifact:" + str(c["id"])) != "train"
            want = max(negatives, uncovered) if held else negatives
            taken = 0
            for hit in services.store.search(c["claim"], k=want + len(labels), flt=flt, sentences_per_doc=1):
                if taken >= want:
                    break
                if hit.document.id not in labels:
                    labels[hit.document.id] = ("NEI", "retrieved" if taken < negatives else "uncovered")
                    taken += 1
            for did, (label, source) in labels.items():
                doc = corpus.get(did)
                if doc is None or not doc["abstract"]:
                    continue
                res = services.stance.predict([(c["claim"], s) for s in doc["abstract"]])
                ev = document_evidence(c["claim"], doc["abstract"], res, title=doc["title"])
                fh.write(json.dumps({"claim_id": str(c["id"]), "split": split_of("scifact:" + str(c["id"])), "doc_id": did,
                                     "label": label, "source": source, "features": ev.features,
                                     "coverage_both": ev.coverage_both}) + "\n")
            if n % 50 == 0:
                print(f"{n}/{len(claims)} claims ({time.perf_counter() - t0:.0f}s)", flush=True)
    return _jsonl(ROWS)


def uncovered_abstention(scored: list[tuple[dict, str]]) -> float:
    """Share of claims whose retrieved and uncovered abstracts (the best-ranked ones that are neither
    gold nor cited) are all decided NEI: the decision's abstention on a corpus without the claim's
    evidence."""
    by_claim: dict[str, bool] = {}
    for row, label in scored:
        if row["source"] in ("retrieved", "uncovered"):
            by_claim[row["claim_id"]] = by_claim.get(row["claim_id"], True) and label == "NEI"
    return sum(by_claim.values()) / max(1, len(by_claim))


def _matrix(rows: list[dict]) -> tuple[np.ndarray, list[str]]:
    from claimscope.tools.read.document_model import FEATURES

    return np.array([[r["features"][f] for f in FEATURES] for r in rows], dtype=float), [r["label"] for r in rows]


def _fit(rows: list[dict], c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x, y = _matrix(rows)
    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(scaler.transform(x), y)
    return scaler, clf


def _probabilities(scaler, clf, rows: list[dict]) -> list[dict[str, float]]:
    x, _ = _matrix(rows)
    return [dict(zip(clf.classes_, map(float, p), strict=True)) for p in clf.predict_proba(scaler.transform(x))]


def _label(row: dict, probs: dict[str, float], floor: float, min_probability: float) -> str:
    """The decision tools.read.document_model.decide makes, from the fitted probabilities."""
    if row["coverage_both"] < floor - 1e-9:
        return "NEI"
    label = max(probs, key=lambda lab: probs[lab])
    return "NEI" if label != "NEI" and probs[label] < min_probability - 1e-9 else label


def _cv(rows: list[dict], fit_rows_of, c: float, folds: int = 5) -> list[tuple[dict, dict[str, float]]]:
    """Claim-grouped CV over `rows`: each row with the probabilities of the fold that held it out
    (each fold fits on fit_rows_of(its held-out claims))."""
    claims = sorted({r["claim_id"] for r in rows})
    rng = np.random.default_rng(13)
    rng.shuffle(claims)
    fold_of = {cid: i % folds for i, cid in enumerate(claims)}
    out: list[tuple[dict, dict[str, float]]] = []
    for k in range(folds):
        test = [r for r in rows if fold_of[r["claim_id"]] == k]
        train = fit_rows_of({cid for cid in claims if fold_of[cid] == k})
        scaler, clf = _fit(train, c)
        out += list(zip(test, _probabilities(scaler, clf, test), strict=True))
    return out


def threshold_rule_f1(rows: list[dict], rule: dict) -> float:
    """Macro-F1 of the hand-set threshold rule (max support / refute over sentences) on `rows`."""
    pred = []
    for r in rows:
        ms = r["features"]["support_max"] - rule["support_threshold"]
        mr = r["features"]["refute_max"] - rule["refute_threshold"]
        pred.append("NEI" if ms < 0 and mr < 0 else "SUPPORT" if ms >= mr else "CONTRADICT")
    return macro_f1([r["label"] for r in rows], pred, ("SUPPORT", "CONTRADICT", "NEI"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--negatives", type=int, default=4, help="Retrieved non-evidence abstracts per claim.")
    ap.add_argument("--uncovered", type=int, default=UNCOVERED,
                    help="Best-ranked abstracts, neither gold nor cited, read per held-out claim to measure abstention.")
    ap.add_argument("--min-abstention", type=float, default=0.95,
                    help="Least uncovered_abstention (held-out TRAIN claims) a setting needs to be chosen.")
    ap.add_argument("--no-write", action="store_true", help="Report only; leave stance_config.json alone.")
    ap.add_argument("--min-coverage", type=float, default=None,
                    help="Fix the coverage floor instead of choosing it: 0.5 = an abstract must cover at least half "
                         "of each end of the claim's relation to be evidence (the product's definition of evidence; "
                         "a lower floor chosen by TRAIN macro-F1 let off-relation abstracts through on claims the "
                         "corpus does not cover).")
    ap.add_argument("--out", type=Path, default=RESULTS / "document_rule.json")
    args = ap.parse_args()

    from claimscope.tools.read.document_model import FEATURES, LABELS

    all_rows = build_rows(args.negatives, args.uncovered)
    rows = [r for r in all_rows if r["source"] != "uncovered"]
    held_all = [r for r in all_rows if r["split"] != "train"]
    held = [r for r in rows if r["split"] != "train"]
    everything = rows
    held_claims = {r["claim_id"] for r in held}

    def from_held(test_claims: set[str]) -> list[dict]:
        return [r for r in held if r["claim_id"] not in test_claims]

    def from_all(test_claims: set[str]) -> list[dict]:
        return [r for r in everything if r["claim_id"] not in test_claims]

    grid = []
    for source, fit_rows_of in (("held_out", from_held), ("all_train", from_all)):
        for c in CS:
            scored = _cv(held_all, fit_rows_of, c)
            fitted = [(r, probs) for r, probs in scored if r["source"] != "uncovered"]
            y = [r["label"] for r, _ in fitted]
            for floor in ([args.min_coverage] if args.min_coverage is not None else FLOORS):
                for least in MIN_PROBABILITIES:
                    p = [_label(r, probs, floor, least) for r, probs in fitted]
                    decided = [(r, _label(r, probs, floor, least)) for r, probs in scored]
                    grid.append({"fit_on": source, "C": c, "min_coverage": floor, "min_probability": least,
                                 "cv_macro_f1": round(macro_f1(y, p, LABELS), 4),
                                 "uncovered_abstention": round(uncovered_abstention(decided), 4)})
            print(max((g for g in grid if g["fit_on"] == source and g["C"] == c),
                      key=lambda g: g["cv_macro_f1"]), flush=True)
    eligible = [g for g in grid if g["uncovered_abstention"] >= args.min_abstention - 1e-9]
    if not eligible:
        print(f"no setting reaches uncovered abstention {args.min_abstention}; taking the most abstaining one")
        top = max(g["uncovered_abstention"] for g in grid)
        eligible = [g for g in grid if g["uncovered_abstention"] >= top - 1e-9]
    best = max(eligible, key=lambda g: g["cv_macro_f1"])
    fit_rows = held if best["fit_on"] == "held_out" else everything
    scaler, clf = _fit(fit_rows, best["C"])
    order = [list(clf.classes_).index(lab) for lab in LABELS]
    model = {
        "features": list(FEATURES),
        "mean": [round(float(v), 6) for v in scaler.mean_],
        "scale": [round(float(v), 6) for v in scaler.scale_],
        "coef": [[round(float(v), 6) for v in clf.coef_[i]] for i in order],
        "intercept": [round(float(clf.intercept_[i]), 6) for i in order],
        "min_coverage": best["min_coverage"],
        "min_probability": best["min_probability"],
    }
    config = json.loads(CONFIG.read_text(encoding="utf-8"))
    rule = config.get("document", {})
    gold = [r for r in held if r["source"] == "gold"]
    out = {
        "code_version": code_version(),
        "rows": len(rows), "held_out_rows": len(held), "held_out_claims": len(held_claims),
        "rows_by_label": {lab: sum(1 for r in rows if r["label"] == lab) for lab in LABELS},
        "rows_by_source": {s: sum(1 for r in all_rows if r["source"] == s)
                           for s in ("gold", "cited", "retrieved", "uncovered")},
        "negatives_per_claim": args.negatives,
        "uncovered_per_held_out_claim": args.uncovered,
        "uncovered_rows": len(all_rows) - len(rows),
        "min_abstention": args.min_abstention,
        "chosen": best,
        "threshold_rule": rule,
        "threshold_rule_held_out_macro_f1": round(threshold_rule_f1(held, rule), 4),
        "gold_evidence_kept_by_floor": {str(f): round(sum(1 for r in gold if r["coverage_both"] >= f - 1e-9)
                                                     / max(1, len(gold)), 4) for f in FLOORS},
        "grid": grid,
        "model": model,
    }
    write_json(args.out, out)
    if not args.no_write:
        config["document_model"] = model
        CONFIG.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        print(f"wrote the document model into {CONFIG}")


if __name__ == "__main__":
    main()
