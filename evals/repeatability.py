"""Does a whole investigation repeat? -> evals/results/repeatability.json.

    python -m evals.repeatability --ids 1140,1359,362,380 --runs 2
    python -m evals.repeatability --compare LOG LOG [LOG ...]     # compare stored run logs only

Investigates the given SciFact dev claims `--runs` times, each run in a fresh process (no stance
cache, a new embedded LLM server), with the configured settings (so `llm.seed` as in config.yaml),
and compares the runs claim by claim: verdict label and score, every document's local label, the
aspect tree and the explanation text. Logs: evals/work/repeat_run{N}.jsonl. Any log with the same
claims (e.g. a verdict_scifact log) can be added with `--compare`.
The default ids are the four dev claims whose verdict changed between two unseeded runs of
`evals.verdict_scifact` : the claims most sensitive to sampling.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from evals._harness import RESULTS, SHARED, WORK, code_version, load_runs, write_json

DEFAULT_IDS = "1140,1359,362,380"


def run_once(ids: list[str], log: Path, claims_path: Path, corpus: Path) -> None:
    """One run of the claims in this process (called in a fresh subprocess by main)."""
    from claimscope.agent.graph.state import InvestigationOptions
    from evals._harness import ensure_corpus, run_claims, services_for, start_log

    rows = {str(json.loads(x)["id"]): json.loads(x)["claim"]
            for x in claims_path.read_text().splitlines() if x.strip()}
    missing = [i for i in ids if i not in rows]
    if missing:
        raise SystemExit(f"claim ids not in {claims_path}: {', '.join(missing)}")
    services = services_for()
    ensure_corpus(services, corpus, "scifact")
    start_log(log, False)
    opts = InvestigationOptions(corpora=["scifact"], sources=["local"], depth=2)
    run_claims(services, [(i, rows[i]) for i in ids], opts, log=log)


def fingerprint(state: dict) -> dict:
    """What a user reads of one investigation, for comparing runs."""
    verdict = state.get("verdict") or {}
    return {
        "verdict": verdict.get("weighted_label"),
        "score": verdict.get("weighted_score"),
        "labels": {d: a["assessment"]["label"] for d, a in sorted((state.get("assessments") or {}).items())},
        "tree": json.dumps(state.get("tree"), sort_keys=True),
        "explanation": [s["text"] for s in (state.get("explanation") or {}).get("sentences", [])],
    }


def compare(logs: list[Path]) -> dict:
    runs = [{r.claim_id: r for r in load_runs(p)} for p in logs]
    common = sorted(set.intersection(*(set(r) for r in runs)), key=int)
    fields = ("verdict", "score", "labels", "tree", "explanation")
    same = dict.fromkeys(fields, 0)
    per_claim = {}
    for cid in common:
        fps = [fingerprint(r[cid].state or {}) for r in runs]
        agree = {f: all(fp[f] == fps[0][f] for fp in fps) for f in fields}
        for f in fields:
            same[f] += agree[f]
        per_claim[cid] = {"verdicts": [fp["verdict"] for fp in fps], "scores": [fp["score"] for fp in fps],
                          "identical": all(agree.values()), "seconds": [round(r[cid].seconds) for r in runs]}
    return {"logs": [str(p) for p in logs], "claims": len(common),
            "claims_identical_in_every_field": sum(c["identical"] for c in per_claim.values()),
            "same_across_runs": same, "per_claim": per_claim}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ids", default=DEFAULT_IDS, help="comma-separated SciFact dev claim ids")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--compare", nargs="+", type=Path, metavar="LOG", help="only compare these stored logs")
    ap.add_argument("--claims", type=Path, default=SHARED / "scifact" / "claims_dev.jsonl")
    ap.add_argument("--corpus", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    ap.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # internal: one run into this log
    ap.add_argument("--out", type=Path, default=RESULTS / "repeatability.json")
    args = ap.parse_args(argv)
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    if args.one:
        run_once(ids, args.one, args.claims, args.corpus)
        return
    if args.compare:
        logs = args.compare
    else:
        if args.runs < 2:
            raise SystemExit("--runs must be at least 2 to compare runs.")
        logs = [WORK / f"repeat_run{n}.jsonl" for n in range(1, args.runs + 1)]
        for log in logs:
            subprocess.run([sys.executable, "-m", "evals.repeatability", "--ids", ",".join(ids), "--one", str(log),
                            "--claims", str(args.claims), "--corpus", str(args.corpus)], check=True)
    missing = [str(p) for p in logs if not p.is_file()]
    if missing:
        raise SystemExit(f"run logs not found: {', '.join(missing)}")
    from claimscope.agent.settings import load_settings

    # With --compare the logs come from earlier runs, whose code this process cannot know.
    code = {"compared_at": code_version()} if args.compare else {"code": code_version()}
    out = compare(logs) | {"llm_seed": load_settings().llm.seed} | code
    write_json(args.out, out)
    print(f"{out['claims_identical_in_every_field']} of {out['claims']} claims identical in every field; "
          f"{json.dumps(out['same_across_runs'])}")


if __name__ == "__main__":
    main()
