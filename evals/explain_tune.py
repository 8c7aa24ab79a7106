"""Measure the global explanation prompt on SciFact TRAIN claims, never on dev.

    python -m evals.explain_tune [--n 40]

The dev benchmark runs whole investigations (about 2 minutes a claim), too slow to compare
explanation prompts with, and comparing them on dev would tune on it. This runner replays the
explanation step on the held-out train claims of evals.verdict_tune (run that first: it writes the
retrieved documents and their sentence stances to evals/work/verdict_tune_cache.json):
for each claim, the top `verdict.top_documents` documents get their local labels as in the
product's hybrid mode (tools.explain.label_document with the configured rule and conflict policy),
then tools.explain.global_explanation writes the summary and tools.explain.check_attribution checks
it with the product's settings, as the graph's explain step does. Only claims with at least one
local label other than No Evidence have something to explain; the first `--n` of them are used.

LLM answers are kept in evals/work/verdict_tune_llm.json, keyed by a fingerprint of the prompt, so
the local labels cost nothing after evals.verdict_tune --llm and an unchanged prompt is not rerun.
Figures go to evals/results/explain_tune.json under `--label` (default: the explanation prompt's
fingerprint); earlier entries are kept, so one file holds the before and after of a change.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from evals._harness import RESULTS, SHARED, services_for, write_json
from evals.verdict_tune import CACHE, LLM_CACHE, _Memo, _results, fingerprint

OUT = RESULTS / "explain_tune.json"


def explain_and_check(claim: str, local: list[Any], get: Any, services: Any, llm: Any) -> dict[str, Any]:
    """The graph's explain step on these local labels, as a record for the results file."""
    from claimscope.agent.graph.explanation import explain_claim

    expl = explain_claim(claim, local, get, services, llm)
    return {"mode": expl.mode, "removed": [w for w in expl.warnings if w.startswith("Removed a sentence")],
            "sentences": [{"text": s.text, "citations": s.citations, "status": s.status,
                           "support": round(s.support, 4)} for s in expl.sentences]}


def train_claims(services: Any, entries: list[dict], docs: dict[str, Any], n: int, llm: Any) -> tuple[list[dict], int]:
    """Explanations of the first `n` cached train claims with something to explain, and how many
    cached documents were skipped because the corpus file segments them differently."""
    from claimscope.tools.explain import label_document, sentence_lookup
    from claimscope.tools.read.stance import decide_document
    from claimscope.tools.weigh.verdict import LocalLabel

    v = services.settings.verdict
    rule = {"support_threshold": v.support_threshold, "refute_threshold": v.refute_threshold}
    claims: list[dict[str, Any]] = []
    mismatched = 0
    t0 = time.perf_counter()
    for e in entries:
        if len(claims) >= n:
            break
        local, used = [], []
        for d in e["docs"][: v.top_documents]:
            doc = docs.get(d["id"])
            if doc is None or len(doc.sentences) != len(d["stance"]):
                mismatched += 1
                continue
            res = _results(d["stance"])
            _, la = label_document(e["claim"], doc, res, decide_document(res, rule), llm,
                                   mode="hybrid", on_conflict=v.on_conflict)
            local.append(la)
            used.append(doc)
        if all(a.label == LocalLabel.NO_EVIDENCE for a in local):
            continue
        claims.append({"id": e["id"], **explain_and_check(e["claim"], local, sentence_lookup(used), services, llm)})
        print(f"explanations {len(claims)}/{n} ({time.perf_counter() - t0:.0f}s, {llm.calls} LLM calls)", flush=True)
    return claims, mismatched


def log_claims(services: Any, log: Path, docs: dict[str, Any], n: int, llm: Any) -> list[dict]:
    """The explain step replayed on the local labels stored in an investigation log (the
    benchmark runs' evals/work/*.jsonl): what the current prompt writes for the same inputs."""
    from claimscope.tools.explain import LocalAssessment, sentence_lookup
    from evals._harness import load_runs

    claims = []
    t0 = time.perf_counter()
    for r in load_runs(log):
        if len(claims) >= n:
            break
        state = r.state or {}
        local = [LocalAssessment.model_validate(a["assessment"]) for a in (state.get("assessments") or {}).values()]
        if not state.get("explanation", {}).get("sentences"):
            continue  # nothing was explained in the run (no evidence); the replay has nothing to compare
        used = [docs[d] for d in (state.get("documents") or {}) if d in docs]
        claims.append({"id": r.claim_id, **explain_and_check(state["claim"], local, sentence_lookup(used), services, llm)})
        print(f"replayed {len(claims)} ({time.perf_counter() - t0:.0f}s, {llm.calls} LLM calls)", flush=True)
    return claims


def figures(claims: list[dict]) -> dict[str, Any]:
    sents = [s for c in claims for s in c["sentences"]]
    llm_sents = [s for c in claims if c["mode"] == "llm" for s in c["sentences"]]

    def rate(xs: list[dict]) -> float:
        return round(sum(s["status"] == "supported" for s in xs) / max(1, len(xs)), 4)

    return {
        "n_claims": len(claims),
        "explanations_extractive": sum(c["mode"] == "extractive" for c in claims),
        "sentences": len(sents),
        "attribution_pass_rate": rate(sents),
        "llm_sentences": len(llm_sents),
        "llm_attribution_pass_rate": rate(llm_sents),
        "sentences_removed_by_guards": sum(len(c["removed"]) for c in claims),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="Claims with something to explain (train claims, or the first of the log's).")
    ap.add_argument("--from-log", type=Path, default=None,
                    help="Instead: replay the explain step on the local labels of a stored run log "
                         "(a report of a prompt chosen on train, e.g. evals/work/verdict_runs.jsonl).")
    ap.add_argument("--corpus", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    ap.add_argument("--label", default=None,
                    help="Name of this run in the results file (default: the prompt's fingerprint); "
                         "give one when code outside the prompt text changed, e.g. what the model is shown.")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if args.from_log is None and not CACHE.exists():
        raise SystemExit(f"{CACHE} not found: run `python -m evals.verdict_tune` first (it retrieves the "
                         "held-out train claims' documents and scores their sentences).")
    if args.from_log is not None and not args.from_log.is_file():
        raise SystemExit(f"{args.from_log} not found: give a log written by evals.verdict_scifact or evals.verdict_open.")
    if args.n < 1:
        raise SystemExit("--n must be at least 1.")
    from claimscope.prompts import explanation as explanation_prompt
    from claimscope.tools.find.ingest import read_path

    docs = {d.id: d for d in read_path(args.corpus).documents}
    services = services_for()
    llm = _Memo(services.llm, LLM_CACHE)
    t0 = time.perf_counter()
    if args.from_log is None:
        claims, mismatched = train_claims(services, json.loads(CACHE.read_text()), docs, args.n, llm)
        section, key = "train", args.label or fingerprint(explanation_prompt.PROMPT)
    else:
        claims, mismatched = log_claims(services, args.from_log, docs, args.n, llm), 0
        section, key = "log_replays", f"{args.from_log.name}@{args.label or fingerprint(explanation_prompt.PROMPT)}"
    run = {"prompt_fingerprint": fingerprint(explanation_prompt.PROMPT), "system": explanation_prompt.PROMPT.system,
           **figures(claims),
           "documents_skipped_segmentation_mismatch": mismatched, "llm_calls": llm.calls,
           "seconds": round(time.perf_counter() - t0, 1), "claims": claims}
    out = json.loads(args.out.read_text()) if args.out.exists() else {}
    out.setdefault("train_split", "SciFact train claims held out of the stance model's training (never dev or test)")
    out.setdefault(section, {})[key] = run
    out["summary"] = {f"{sec}:{k}": {f: r[f] for f in ("n_claims", "sentences", "attribution_pass_rate",
                                                        "explanations_extractive", "sentences_removed_by_guards")}
                      for sec in ("train", "log_replays") for k, r in out.get(sec, {}).items()}
    write_json(args.out, out)


if __name__ == "__main__":
    main()
