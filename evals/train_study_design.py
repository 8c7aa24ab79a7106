"""Fit the study-design classifier (tools/appraise/study_design_model.json) that reads what the design
patterns leave to it: abstracts that name no design of people (trial, cohort, case-control,
cross-sectional, meta-analysis, case report), most of them laboratory, animal and review papers.

    python -m evals.train_study_design            # cross-validate, fit, write the model + results
    python -m evals.train_study_design --no-write # cross-validate only

Training rows (labels from sources independent of the tagger; see evals.study_design):
- evals/labels/scifact_design_tune.tsv and _tune2.tsv to _tune5.tsv: 4,714 SciFact abstracts whose
  title names no design (every such abstract of the corpus but the 130 held-out ones), labelled by
  hand blind to the tagger by 23 readers (the tune sets; the classifier reads title + abstract);
- the tune half (evals.study_design.half) of the title-labelled SciFact set and of the MeSH-labelled
  PubMedQA set (abstract only, as the benchmark reads them).
Never read here: the fresh hand-labelled sets (scifact_design_fresh.tsv), the held-out halves.

Model: TF-IDF of word unigrams and bigrams (sublinear tf, l2) and the pattern and style cues of
tools.appraise.study_design.design_features, multinomial logistic regression; the hand-labelled rows may
weigh more. C and that weight are chosen by 5-fold cross-validation of the tagger as shipped
(explicit designs of people by patterns, the rest by the classifier), by the sum of its accuracy
on the three sources. Writes tools/appraise/study_design_model.json and
evals/results/study_design_model.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from evals._harness import RESULTS, SHARED, write_json
from evals.study_design import (
    HAND_TUNE_DESIGNS,
    half,
    hand_design_items,
    pubmedqa_items,
    scifact_items,
)

MODEL_OUT = Path(__file__).resolve().parents[1] / "tools" / "appraise" / "study_design_model.json"
GRID_C = (30.0, 100.0)
GRID_WEIGHT = (1.0, 3.0)
MAX_FEATURES = 8000


def training_items() -> list[dict[str, Any]]:
    hand = [dict(it, src="hand") for labels in HAND_TUNE_DESIGNS
            for it in hand_design_items(SHARED / "scifact" / "corpus.jsonl", labels)]
    titles, _ = scifact_items(SHARED / "scifact" / "corpus.jsonl")
    mesh = pubmedqa_items(SHARED / "pubmedqa" / "ori_pqal.json")
    old = [dict(it, src=name) for name, items in (("titles", titles), ("mesh", mesh))
           for it in items if half(it["id"]) == "tune"]
    return hand + old


def _text(it: dict[str, Any]) -> str:
    body = " ".join(it["sentences"])
    return f"{it['title']}. {body}" if it.get("use_title") else body


def _features(it: dict[str, Any]) -> list[float]:
    from claimscope.tools.appraise.study_design import design_features

    return design_features(list(it["sentences"]), it["title"] if it.get("use_title") else "")


def prepared(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`items` with the classifier's input text and design_features, computed once for every fit."""
    return [dict(it, text=_text(it), features=_features(it)) for it in items]


def _matrix(vec: Any, texts: list[str], feats: np.ndarray) -> Any:
    from scipy import sparse

    return sparse.hstack([vec.transform(texts), sparse.csr_matrix(feats)]).tocsr()


def _fit(texts: list[str], feats: np.ndarray, y: np.ndarray, weights: np.ndarray, c: float) -> tuple[Any, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from claimscope.tools.appraise.study_design import TOKEN_PATTERN

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=MAX_FEATURES,
                          token_pattern=TOKEN_PATTERN).fit(texts)
    clf = LogisticRegression(C=c, max_iter=5000).fit(_matrix(vec, texts, feats), y, sample_weight=weights)
    return vec, clf


def _as_model(vec: Any, clf: Any, meta: dict[str, Any]) -> dict[str, Any]:
    from claimscope.tools.appraise.study_design import FEATURE_NAMES

    vocab = sorted(vec.vocabulary_, key=vec.vocabulary_.get)
    rows = [[round(float(v), 5) for v in row] for row in clf.coef_.T]  # one row per term, then per feature
    return {
        "classes": [str(c) for c in clf.classes_],
        "terms": vocab,
        "idf": [round(float(v), 6) for v in vec.idf_],
        "coef": rows[:len(vocab)],
        "intercept": [round(float(v), 5) for v in clf.intercept_],
        "features": list(FEATURE_NAMES),
        "feature_coef": rows[len(vocab):],
        **meta,
    }


def cross_validate(items: list[dict[str, Any]], c: float, weight: float, folds: int = 5) -> dict[str, Any]:
    """Accuracy of the tagger as shipped (patterns for designs of people, else the classifier), by
    source, with the classifier refitted without each fold; `items` as prepared()."""
    from sklearn.model_selection import KFold

    from claimscope.tools.appraise.study_design import DesignClassifier, tag_design
    from claimscope.tools.models import Document

    texts = [it["text"] for it in items]
    feats = np.array([it["features"] for it in items])
    y = np.array([it["gold"] for it in items])
    src = np.array([it["src"] for it in items])
    pred = np.empty(len(items), dtype=object)
    for tr, te in KFold(folds, shuffle=True, random_state=0).split(texts):
        vec, clf = _fit([texts[i] for i in tr], feats[tr], y[tr], np.where(src[tr] == "hand", weight, 1.0), c)
        model = DesignClassifier.model_validate(_as_model(vec, clf, {}))
        for i in te:
            it = items[i]
            doc = Document(id=it["id"], title=it["title"] if it.get("use_title") else "", sentences=it["sentences"])
            tag = tag_design(doc, use_title=bool(it.get("use_title")), classifier=model)
            pred[i] = tag.design.value if tag.design else "undecided"
    out: dict[str, Any] = {"C": c, "hand_weight": weight}
    for s in ("hand", "titles", "mesh"):
        idx = src == s
        out[s] = {"n": int(idx.sum()), "accuracy": round(float(np.mean(pred[idx] == y[idx])), 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    items = prepared(training_items())
    grid = [cross_validate(items, c, w) for c in GRID_C for w in GRID_WEIGHT]
    for row in grid:
        print(json.dumps(row))
    # The three sources weigh alike: a user's corpus may be laboratory papers (hand-labelled SciFact)
    # or clinical ones (title- and MeSH-labelled), and the hand-labelled rows far outnumber the rest.
    best = max(grid, key=lambda r: r["hand"]["accuracy"] + r["titles"]["accuracy"] + r["mesh"]["accuracy"])
    texts = [it["text"] for it in items]
    feats = np.array([it["features"] for it in items])
    y = np.array([it["gold"] for it in items])
    weights = np.array([best["hand_weight"] if it["src"] == "hand" else 1.0 for it in items])
    vec, clf = _fit(texts, feats, y, weights, best["C"])
    meta = {"trained_on": {s: sum(it["src"] == s for it in items) for s in ("hand", "titles", "mesh")},
            "C": best["C"], "hand_weight": best["hand_weight"], "command": "python -m evals.train_study_design"}
    model = _as_model(vec, clf, meta)
    # The product's own transform must reproduce the library's probabilities.
    from claimscope.tools.appraise.study_design import DesignClassifier

    ours = DesignClassifier.model_validate(model)
    theirs = clf.predict_proba(_matrix(vec, texts[:50], feats[:50]))
    mine = np.array([ours.probabilities(t, list(f)) for t, f in zip(texts[:50], feats[:50], strict=True)])
    gap = float(np.abs(theirs - mine).max())
    print(f"chosen C={best['C']} hand weight={best['hand_weight']}: cross-validated {best}; "
          f"max probability gap to scikit-learn {gap:.2e}")
    assert gap < 1e-3, gap
    result = {"command": "python -m evals.train_study_design", "grid": grid, "chosen": best,
              "probability_gap_to_sklearn": gap, "features": len(model["terms"]), "trained_on": meta["trained_on"]}
    if not args.no_write:
        MODEL_OUT.write_text(json.dumps(model, separators=(",", ":")) + "\n")
        write_json(RESULTS / "study_design_model.json", result)


if __name__ == "__main__":
    main()
