"""Abstention benchmark -> evals/results/abstention.json.

    python -m evals.abstention [--n 40] [--resume]

Claims whose topic the corpus does not cover must end "insufficient evidence". The set: `--n`
Check-COVID test claims (news claims on COVID-19; the SciFact corpus predates the pandemic), drawn
with a fixed seed from the composed and extracted test files (distinct claims), plus the vitamin D
and coffee claims a new user might try first (no SciFact abstract mentions vitamin D with
respiratory infection, or coffee with diabetes), plus 110 claims written from fields the corpus does
not cover (climate, economics, politics, technology, education), many in the generic wording that
biomedical text shares ("increases over time", "a correlation between", "a pollutant"). Each runs as a full investigation over the SciFact
corpus with the product's defaults. Evaluation only: nothing is tuned on these claims.

Fields: n_claims, insufficient_rate (share ending "insufficient evidence") overall and by field,
verdicts (label counts),
per-claim label / status / documents screened, seconds_per_claim_median, load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections import Counter
from pathlib import Path

from claimscope.agent.graph.state import InvestigationOptions
from evals._harness import (
    RESULTS,
    SHARED,
    WORK,
    code_version,
    ensure_corpus,
    load_runs,
    median,
    run_claims,
    services_for,
    start_log,
    write_json,
)

EXTRA = [
    ("vitamin-d", "Vitamin D supplementation prevents respiratory infections"),
    ("coffee", "Coffee consumption lowers the risk of type 2 diabetes"),
]


OTHER_FIELDS = Path(__file__).resolve().parent / "labels" / "abstention_other_fields.tsv"


def other_field_claims() -> list[tuple[str, str, str]]:
    """(id, field, claim) for the claims written from fields the corpus does not cover."""
    rows = [line.rstrip("\n").split("\t") for line in OTHER_FIELDS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    return [(r[0], r[1], r[2]) for r in rows[1:]]


def field_of(claim_id: str, fields: dict[str, str]) -> str:
    if claim_id in fields:
        return fields[claim_id]
    return "covid (Check-COVID test)" if claim_id.startswith("cc-") else "biomedical (new-user examples)"


def check_covid_sample(n: int, seed: int) -> list[tuple[str, str]]:
    rows = []
    for name in ("covidCheck_test_composed.jsonl", "covidCheck_test_extracted.jsonl"):
        path = SHARED / "check_covid" / "test" / name
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_claim: dict[str, str] = {}
    for r in rows:
        by_claim.setdefault(" ".join(r["claim"].split()), f"cc-{r['id']}")
    claims = sorted(by_claim.items(), key=lambda kv: kv[1])
    random.Random(seed).shuffle(claims)
    return [(cid, claim) for claim, cid in claims[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="Check-COVID test claims.")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--resume", action="store_true", help="Run only the claims the last log lacks.")
    ap.add_argument("--reuse", action="store_true", help="Recompute the figures from the last log.")
    ap.add_argument("--out", type=Path, default=RESULTS / "abstention.json")
    args = ap.parse_args()

    others = other_field_claims()
    fields = {cid: field for cid, field, _ in others}
    claims = check_covid_sample(args.n, args.seed) + EXTRA + [(cid, claim) for cid, _, claim in others]
    services = services_for()
    ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
    log = WORK / "abstention_runs.jsonl"
    if not args.reuse:
        done = start_log(log, args.resume)
        opts = InvestigationOptions(corpora=["scifact"], sources=["local"], depth=args.depth)
        run_claims(services, claims, opts, log=log, skip=done)
    wanted = {cid for cid, _ in claims}
    runs = [r for r in load_runs(log) if r.claim_id in wanted]
    per_claim = []
    for r in runs:
        st = r.state or {}
        verdict = (st.get("verdict") or {}).get("weighted_label", "insufficient evidence" if r.error is None else "error")
        screen = st.get("screen") or {}
        per_claim.append({"id": r.claim_id, "claim": r.claim, "verdict": verdict, "status": st.get("status"),
                          "screened": screen.get("checked"), "screened_evidence": screen.get("evidence", []),
                          "evidence_documents": (st.get("verdict") or {}).get("n_evidence"),
                          "field": field_of(r.claim_id, fields),
                          "seconds": round(r.seconds, 1), "error": r.error})
    labels = [p["verdict"] for p in per_claim]
    by_field: dict[str, list[str]] = {}
    for p in per_claim:
        by_field.setdefault(p["field"], []).append(p["verdict"])
    out = {
        "code_version": code_version(),
        "n_claims": len(per_claim),
        "insufficient_rate": round(labels.count("insufficient evidence") / len(labels), 4) if labels else None,
        "verdicts": dict(Counter(labels)),
        "insufficient_rate_by_field": {f: {"n": len(v), "insufficient_rate": round(v.count("insufficient evidence")
                                                                                  / len(v), 4)}
                                       for f, v in sorted(by_field.items())},
        "seconds_per_claim_median": median([p["seconds"] for p in per_claim]),
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
        "set": f"{args.n} Check-COVID test claims (seed {args.seed}) + vitamin D + coffee + {len(others)} claims "
               "from other fields (evals/labels/abstention_other_fields.tsv), SciFact corpus",
        "claims": per_claim,
    }
    write_json(args.out, out)


if __name__ == "__main__":
    main()
