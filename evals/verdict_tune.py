"""Choose the verdict's evidence rule on SciFact TRAIN claims, never on dev.

    python -m evals.verdict_tune [--llm 20]

The verdict benchmark runs whole investigations (about 3 minutes a claim), too slow to search
settings with. This runner replays the part of the investigation that decides the verdict, fast:
for each SciFact train claim held out of the stance model's training it retrieves the top documents from the SciFact corpus (the product's store
and fusion; the claim query only, not the anti-claim or aspect queries), scores every sentence of
each abstract with the stance model, and then, for every candidate setting, turns the documents
into local labels (tools.explain.stance_assessment over tools.read.stance.decide_document) and a global
verdict (tools.weigh.verdict.global_verdict, equal weights: the SciFact corpus has no citation data, so
reputation is flat) mapped to SUPPORT / CONTRADICT / NEI.

Searched: documents labelled (`verdict.top_documents`), and the support / refute thresholds of the
document decision (`verdict.support_threshold` / `verdict.refute_threshold`). With `--llm N` the
best setting is also run with the LLM's assessment of every document the stance model counts as
evidence on N claims, comparing `verdict.local_labels` stance and hybrid (under each
`verdict.on_conflict` policy) on the same claims.
Then a Platt calibration of the verdict confidence is fitted on the train predictions of the chosen
setting. Writes evals/results/verdict_tune.json; the chosen values go into config.yaml by hand.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from evals._harness import RESULTS, SHARED, WORK, ensure_corpus, services_for, write_json
from evals._metrics import ece, macro_f1
from evals.verdict_scifact import LABELS, gold_label

CACHE = WORK / "verdict_tune_cache.json"
TOP_DOCS = [1, 2, 3, 5, 10]
THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def held_out_claims(path: Path) -> list[dict]:
    """The SciFact train claims the stance model never saw (evals.train_stance holds 15% of each
    source's claims out, by a hash of the claim): tuning on claims it was trained on would pick
    thresholds for its overconfident readings of its own training data."""
    from evals.train_stance import split_of

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if split_of("scifact:" + str(r["id"])) != "train"]


def collect(services: Any, rows: list[dict], k: int) -> list[dict]:
    """Per claim: gold label and the top-k documents with every sentence's stance."""
    from claimscope.tools.find.store import SearchFilter

    flt = SearchFilter(corpora=["scifact"])
    out = []
    t0 = time.perf_counter()
    for i, r in enumerate(rows):
        hits = services.store.search(r["claim"], k=k, flt=flt, sentences_per_doc=1)
        docs = {d.id: d for d in services.store.get_documents([h.document.id for h in hits], corpus="scifact")}
        entry = {"id": str(r["id"]), "claim": r["claim"], "gold": gold_label(r), "docs": []}
        for h in hits:
            doc = docs.get(h.document.id)
            if doc is None or not doc.sentences:
                continue
            res = services.stance.predict([(r["claim"], s) for s in doc.sentences])
            entry["docs"].append({"id": doc.id, "score": h.score,
                                  "stance": [[x.support, x.neutral, x.refute] for x in res]})
        out.append(entry)
        if (i + 1) % 25 == 0:
            print(f"{i + 1}/{len(rows)} claims ({time.perf_counter() - t0:.0f}s)", flush=True)
    return out


def _results(rows: list[list[float]]) -> list[Any]:
    from claimscope.tools.models import Stance, StanceResult

    names = [Stance.SUPPORT, Stance.NEUTRAL, Stance.REFUTE]
    return [StanceResult(label=names[max(range(3), key=lambda j: p[j])], support=p[0], neutral=p[1], refute=p[2])
            for p in rows]


def stance_items(entry: dict, top: int, rule: dict[str, float]) -> list[Any]:
    """LocalItems from the stance model's document decisions on the claim's top documents."""
    from claimscope.tools.explain import stance_assessment
    from claimscope.tools.models import Document
    from claimscope.tools.read.stance import decide_document
    from claimscope.tools.weigh.verdict import LocalItem

    items = []
    for d in entry["docs"][:top]:
        res = _results(d["stance"])
        doc = Document(id=d["id"], title="", sentences=["."] * len(res))
        la = stance_assessment(doc, decide_document(res, rule))
        items.append(LocalItem(doc_id=d["id"], label=la.label))
    return items


def score(entries: list[dict], preds: list[Any]) -> dict[str, Any]:
    from claimscope.tools.weigh.verdict import to_scifact_label

    g = [e["gold"] for e in entries]
    p = [to_scifact_label(v).value for v in preds]
    return {"macro_f1": macro_f1(g, p, LABELS), "accuracy": round(sum(a == b for a, b in zip(g, p, strict=True)) / len(g), 4),
            "pred_distribution": {lab: p.count(lab) for lab in LABELS}}


def grid(entries: list[dict]) -> list[dict[str, Any]]:
    from claimscope.tools.weigh.verdict import global_verdict

    table = []
    for top in TOP_DOCS:
        for ts in THRESHOLDS:
            for tr in THRESHOLDS:
                rule = {"support_threshold": ts, "refute_threshold": tr}
                preds = [global_verdict(stance_items(e, top, rule)) for e in entries]
                table.append({"top_documents": top, "support_threshold": ts, "refute_threshold": tr,
                              **score(entries, preds)})
    return sorted(table, key=lambda r: (-r["macro_f1"], -r["accuracy"], r["top_documents"]))


LLM_CACHE = WORK / "verdict_tune_llm.json"


def fingerprint(prompt: Any) -> str:
    """Short hash of what the model is asked (system, template, examples, output schema): a changed
    prompt gets new answers instead of the cached answers to the old one."""
    import hashlib

    text = json.dumps([prompt.system, prompt.template, prompt.output_model.model_json_schema(),
                       [(i.model_dump_json(), o.model_dump_json()) for i, o in prompt.examples]], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


class _Memo:
    """One LLM answer per (prompt, inputs), so that the policies compared see the same answer; kept
    on disk (`LLM_CACHE`) so that a rerun or a new rule over the same answers costs no LLM time.
    A failed call is remembered as a failure (label_document then falls back as in the product)."""

    def __init__(self, llm: Any, path: Path | None = None) -> None:
        self.llm, self.calls, self.path = llm, 0, path
        self.cache: dict[str, Any] = json.loads(path.read_text()) if path and path.exists() else {}

    def run(self, prompt: Any, inputs: Any) -> Any:
        from claimscope.tools.llm import LLMError

        key = f"{prompt.name}@{fingerprint(prompt)}\n{inputs.model_dump_json()}"
        if key not in self.cache:
            self.calls += 1
            try:
                self.cache[key] = {"ok": self.llm.run(prompt, inputs).model_dump(mode="json")}
            except LLMError as exc:
                self.cache[key] = {"error": str(exc)}
            if self.path:
                self.path.write_text(json.dumps(self.cache))
        hit = self.cache[key]
        if "error" in hit:
            raise LLMError(hit["error"])
        return prompt.output_model.model_validate(hit["ok"])


POLICIES = ("stance", "llm", "abstain")


def llm_comparison(services: Any, entries: list[dict], best: dict[str, Any]) -> dict[str, Any]:
    """stance vs hybrid local labels on the same claims, hybrid under each `verdict.on_conflict`
    policy. As in the product's hybrid mode, the LLM assesses only the documents the stance model
    counts as evidence (tools.explain.label_document). The llm-only mode is not rerun here: it needs
    an LLM call for every top document; its SciFact dev figures when it was the default are in
    CHANGELOG.md (macro-F1 0.21, 88 of 110 abstracts "Mostly True")."""
    from claimscope.tools.explain import label_document
    from claimscope.tools.read.stance import decide_document
    from claimscope.tools.weigh.verdict import LocalItem, global_verdict

    rule = {"support_threshold": best["support_threshold"], "refute_threshold": best["refute_threshold"]}
    memo = _Memo(services.llm, LLM_CACHE)
    modes = ["stance", *(f"hybrid_{p}" for p in POLICIES)]
    preds: dict[str, list[Any]] = {m: [] for m in modes}
    conflicts: list[dict[str, str]] = []
    t0 = time.perf_counter()
    for n, e in enumerate(entries):
        top = e["docs"][: best["top_documents"]]
        docs = {d.id: d for d in services.store.get_documents([d["id"] for d in top], corpus="scifact")}
        items: dict[str, list[Any]] = {m: [] for m in modes}
        for d in top:
            doc = docs[d["id"]]
            res = _results(d["stance"])
            decision = decide_document(res, rule)
            _, st = label_document(e["claim"], doc, res, decision, None, mode="stance")
            items["stance"].append(LocalItem(doc_id=doc.id, label=st.label))
            for p in POLICIES:
                _, hy = label_document(e["claim"], doc, res, decision, memo, mode="hybrid", on_conflict=p)
                items[f"hybrid_{p}"].append(LocalItem(doc_id=doc.id, label=hy.label))
                if p == "stance" and hy.sign_conflict:
                    conflicts.append({"claim": e["id"], "gold": e["gold"], "doc": doc.id,
                                      "stance": st.label.value, "warning": hy.warning or ""})
        for m in modes:
            preds[m].append(global_verdict(items[m]))
        print(f"llm comparison {n + 1}/{len(entries)} ({time.perf_counter() - t0:.0f}s, {memo.calls} LLM calls)",
              flush=True)
    return {"n_claims": len(entries), "llm_calls": memo.calls, "sign_conflicts": conflicts,
            "seconds": round(time.perf_counter() - t0, 1),
            **{m: score(entries, p) for m, p in preds.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm", type=int, default=0, help="Train claims for the LLM-mode comparison (slow).")
    ap.add_argument("--corpus", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    ap.add_argument("--claims", type=Path, default=SHARED / "scifact" / "claims_train.jsonl")
    ap.add_argument("--reuse", action="store_true", help="Reuse the retrieved documents and stances of the last run.")
    ap.add_argument("--out", type=Path, default=RESULTS / "verdict_tune.json")
    args = ap.parse_args()
    if "train" not in args.claims.name:
        raise SystemExit("verdict_tune chooses settings: give it TRAIN claims only (claims_train.jsonl).")

    from claimscope.tools.weigh.verdict import (
        fit_confidence_calibration,
        global_verdict,
        to_scifact_label,
    )

    services = services_for()
    rows = held_out_claims(args.claims)
    if args.reuse and CACHE.exists():
        entries = json.loads(CACHE.read_text())
    else:
        ensure_corpus(services, args.corpus, "scifact")
        t0 = time.perf_counter()
        entries = collect(services, rows, max(TOP_DOCS))
        print(f"collected {len(entries)} claims in {time.perf_counter() - t0:.0f}s", flush=True)
        CACHE.write_text(json.dumps(entries))
    table = grid(entries)
    best = table[0]
    rule = {"support_threshold": best["support_threshold"], "refute_threshold": best["refute_threshold"]}
    preds = [global_verdict(stance_items(e, best["top_documents"], rule)) for e in entries]
    correct = [to_scifact_label(v).value == e["gold"] for v, e in zip(preds, entries, strict=True)]
    cal = fit_confidence_calibration([v.confidence_raw for v in preds], correct)
    calibrated = [cal.apply(v.confidence_raw) for v in preds]
    packaged = next(r for r in table if r["top_documents"] == 10 and r["support_threshold"] == 0.3
                    and r["refute_threshold"] == 0.4)
    out: dict[str, Any] = {
        "split": "SciFact train claims held out of the stance model's training (never dev or test)",
        "n_claims": len(entries),
        "gold_distribution": {lab: sum(e["gold"] == lab for e in entries) for lab in LABELS},
        "best": best,
        "top10": table[:10],
        "near_packaged_rule_top10_docs": packaged,
        "confidence_calibration": {"a": round(cal.a or 0.0, 4), "b": round(cal.b, 4),
                                   "ece_raw": ece([v.confidence_raw for v in preds], correct),
                                   "ece_calibrated": ece(calibrated, correct)},
    }
    if args.llm:
        out["llm_comparison"] = llm_comparison(services, entries[: args.llm], best)
    write_json(args.out, out)


if __name__ == "__main__":
    main()
