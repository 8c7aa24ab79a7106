"""Benchmark of the whole investigation on SciFact dev claims over the SciFact corpus.

    python -m evals.verdict_scifact --n 50

Maps each global verdict to SUPPORT / CONTRADICT / NEI (tools.weigh.verdict.to_scifact_label) and writes
evals/results/verdict_scifact.json: accuracy, macro-F1, per-class figures, ECE of the verdict
confidence, the share of explanation sentences whose citations all exist in the evidence store, the
share that pass the attribution check, wall time and tokens per claim.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from claimscope.agent.graph.state import InvestigationOptions
from evals._harness import (
    RESULTS,
    WORK,
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
from evals._metrics import ece, macro_f1, per_class

LABELS = ["SUPPORT", "CONTRADICT", "NEI"]


def gold_label(row: dict) -> str:
    labels = {e["label"] for ev in row.get("evidence", {}).values() for e in ev}
    if not labels:
        return "NEI"
    return "CONTRADICT" if "CONTRADICT" in labels and "SUPPORT" not in labels else "SUPPORT" if "SUPPORT" in labels else "CONTRADICT"


def sample(path: Path, n: int, seed: int) -> list[dict]:
    """A seeded sample stratified by gold label (SciFact dev is ~41% SUPPORT, ~21% CONTRADICT, ~38% NEI)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rng = random.Random(seed)
    by: dict[str, list[dict]] = {lab: [r for r in rows if gold_label(r) == lab] for lab in LABELS}
    for v in by.values():
        rng.shuffle(v)
    out: list[dict] = []
    shares = {lab: len(v) / len(rows) for lab, v in by.items()}
    for lab in LABELS:
        out += by[lab][: round(n * shares[lab])]
    rng.shuffle(out)
    return out[:n]


def explanation_figures(state: dict, services) -> tuple[int, int, int]:
    """(sentences, sentences whose citations all exist, sentences that pass attribution, revised
    ones included)."""
    from claimscope.agent.graph.readers import sentence_lookup

    sentences = (state.get("explanation") or {}).get("sentences", [])
    get = sentence_lookup(state, services)
    exist = sum(1 for s in sentences if s.get("citations") and all(get(k) is not None for k in s["citations"]))
    passed = sum(1 for s in sentences if s.get("status") == "supported")
    return len(sentences), exist, passed


def dropped_count(state: dict) -> int:
    """Sentences removed from what the reader sees (status "dropped"): they count as failures in
    the attribution rate, and are left out of the shown rate."""
    return sum(1 for s in (state.get("explanation") or {}).get("sentences", []) if s.get("status") == "dropped")


def revised_count(state: dict) -> int:
    """Sentences that pass only in their revised wording (verdict.revise_unsupported)."""
    return sum(1 for s in (state.get("explanation") or {}).get("sentences", [])
               if s.get("revised_from") and s.get("status") == "supported")


def recheck_attribution(state: dict, services) -> tuple[int, int]:
    """(sentences, passing) when the run's stored explanation is checked again with the current
    attribution check and settings: a diagnostic for a check changed after the run, not the run's
    own figure."""
    from claimscope.agent.graph.readers import local_assessments, sentence_lookup
    from claimscope.tools.explain import (
        Explanation,
        ExplanationSentence,
        check_attribution,
        citable_evidence,
    )

    stored = state.get("explanation") or {}
    sentences = [ExplanationSentence(text=s["text"], citations=s.get("citations", []))
                 for s in stored.get("sentences", [])]
    if not sentences:
        return 0, 0
    v = services.settings.verdict
    get = sentence_lookup(state, services)
    checked = check_attribution(Explanation(sentences=sentences, mode=stored.get("mode", "llm")), get,
                                services.stance, threshold=v.attribution_threshold, mode="flag",
                                min_overlap=v.attribution_overlap,
                                recite_from=citable_evidence(local_assessments(state), get),
                                recite_within_documents=v.recite_within_documents)
    return len(sentences), sum(1 for s in checked.sentences if s.status == "supported")


def main() -> None:
    ap = scifact_args(__doc__.split("\n\n")[0], n=50, seed=7, out=RESULTS / "verdict_scifact.json")
    args = ap.parse_args()

    from claimscope.tools.weigh.verdict import Verdict, to_scifact_label

    services = services_for()
    ensure_corpus(services, args.corpus, "scifact")
    rows = sample(args.claims, args.n, args.seed)
    gold = {str(r["id"]): gold_label(r) for r in rows}
    log = WORK / "verdict_runs.jsonl"
    if not args.reuse:
        done = start_log(log, args.resume)
        opts = InvestigationOptions(corpora=["scifact"], sources=["local"], depth=args.depth)
        run_claims(services, [(str(r["id"]), r["claim"]) for r in rows], opts, log=log, skip=done)
    # Only the sampled claims: a log from a larger --n scores its subset (the stratified samples
    # nest while the rounded per-label counts fit in n, as for 30 and 50).
    runs = [r for r in load_runs(log) if r.claim_id in gold]

    g, p, conf, secs, toks = [], [], [], [], []
    llm_labels: dict[str, int] = {}
    modes: dict[str, int] = {}
    conflicts = 0
    per_step: dict[str, list[float]] = {}
    n_sent = n_exist = n_pass = n_revised = n_dropped = 0
    re_sent = re_pass = 0
    failed = []
    for r in runs:
        st = r.state
        if r.error or not st:
            failed.append(r.claim_id)
            continue
        verdict = Verdict.model_validate(st["verdict"]) if st.get("verdict") else None
        pred = to_scifact_label(verdict).value if verdict else "NEI"
        g.append(gold[r.claim_id])
        p.append(pred)
        conf.append(verdict.confidence if verdict else 0.0)
        secs.append(r.seconds)
        toks.append(float(tokens(st)))
        for k, v in (st.get("timings") or {}).items():
            per_step.setdefault(k, []).append(v)
        for a in (st.get("assessments") or {}).values():
            lab = a["assessment"]["label"]
            llm_labels[lab] = llm_labels.get(lab, 0) + 1
            mode = a["assessment"].get("mode", "llm")
            modes[mode] = modes.get(mode, 0) + 1
            conflicts += bool(a["assessment"].get("sign_conflict"))
        a, b, c = explanation_figures(st, services)
        n_sent, n_exist, n_pass = n_sent + a, n_exist + b, n_pass + c
        n_revised += revised_count(st)
        n_dropped += dropped_count(st)
        a, b = recheck_attribution(st, services)
        re_sent, re_pass = re_sent + a, re_pass + b

    correct = [a == b for a, b in zip(g, p, strict=True)]
    out = {
        "n_claims": len(runs),
        "n_failed": len(failed),
        "failed_claims": failed,
        "depth": args.depth,
        "accuracy": round(sum(correct) / len(correct), 4) if correct else None,
        "macro_f1": macro_f1(g, p, LABELS) if g else None,
        "per_class": per_class(g, p, LABELS) if g else {},
        "gold_distribution": {lab: g.count(lab) for lab in LABELS},
        "pred_distribution": {lab: p.count(lab) for lab in LABELS},
        "ece": ece(conf, correct) if conf else None,
        "explanation_sentences": n_sent,
        "citations_exist_rate": round(n_exist / n_sent, 4) if n_sent else None,
        "attribution_pass_rate": round(n_pass / n_sent, 4) if n_sent else None,
        # The LLM's own wording before any revision (revised sentences count as failures here).
        "attribution_first_draft_pass_rate": round((n_pass - n_revised) / n_sent, 4) if n_sent else None,
        "revised_sentences": n_revised,
        # What the reader sees: dropped sentences are gone from the report, so they leave both
        # sides of this rate (attribution_pass_rate counts them as failures).
        "dropped_sentences": n_dropped,
        "attribution_shown_pass_rate": round(n_pass / (n_sent - n_dropped), 4) if n_sent > n_dropped else None,
        "seconds_per_claim_median": median(secs),
        "seconds_per_step_median": {k: median(v) for k, v in per_step.items()},
        "tokens_per_claim_median": median(toks),
        "llm": services.settings.llm.model,
        "embedded_model": services.settings.llm.embedded_model,
        # Diagnostic: the stored explanations checked again with the current attribution check.
        "diagnostic_attribution_recheck": {"sentences": re_sent,
                                           "pass_rate": round(re_pass / re_sent, 4) if re_sent else None},
        "local_labels_setting": services.settings.verdict.local_labels,
        "local_labels_mode": services.settings.verdict.local_label_mode(services.settings.llm.model),
        "local_label_distribution": dict(sorted(llm_labels.items(), key=lambda kv: -kv[1])),
        "local_label_modes": modes,
        "sign_conflicts": conflicts,
    }
    write_json(args.out, out)


if __name__ == "__main__":
    main()
