"""How far the evidence test reaches debate claims: PERSPECTRUM dev perspectives against their claims.

    python -m evals.perspectrum_coverage

claimscope's evidence test (tools/coverage.py) asks a text to cover both ends of the claim's
relation: right for "X lowers the risk of Y" over abstracts, where an abstract about X alone is not
evidence. A debate perspective argues from consequences ("Vaccination must be made compulsory" ->
"Herd immunity protects those who cannot be vaccinated"), so it rarely repeats the claim's words.
This runner measures, on the 139 PERSPECTRUM dev claims and their gold (support / undermine)
perspectives, the share that pass the test at sentence level, and the share of claims left with
at least two passing perspectives (what an aspect needs to be kept). No model is run.

Writes evals/results/perspectrum_coverage.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals._harness import RESULTS, SHARED, write_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED / "perspectrum")
    ap.add_argument("--out", type=Path, default=RESULTS / "perspectrum_coverage.json")
    args = ap.parse_args()
    from tools.coverage import addresses, component_terms, coverage
    from tools.relevance import SEGMENT_MIN_COVERAGE

    pool = {p["pId"]: p["text"] for p in json.loads((args.data / "perspective_pool_v1.0.json").read_text())}
    claims = json.loads((args.data / "perspectrum_with_answers_v1.0.json").read_text())
    split = json.loads((args.data / "dataset_split_v1.0.json").read_text())
    dev = [c for c in claims if split.get(str(c["cId"])) == "dev"]
    total = both = subject = 0
    claims_ok = 0
    by_stance: dict[str, list[int]] = {}
    for c in dev:
        terms = component_terms(c["text"])
        passing = 0
        for p in c["perspectives"]:
            for pid in p["pids"]:
                if pid not in pool:
                    continue
                cov = coverage(terms, pool[pid])
                ok = addresses(cov, SEGMENT_MIN_COVERAGE)
                total += 1
                both += ok
                subject += cov.subject >= SEGMENT_MIN_COVERAGE
                passing += ok
                counts = by_stance.setdefault(p["stance_label_3"], [0, 0])
                counts[0] += 1
                counts[1] += ok
        claims_ok += passing >= 2
    write_json(args.out, {
        "split": "dev",
        "claims": len(dev),
        "gold_perspectives": total,
        "cover_both_ends_rate": round(both / total, 4),
        "cover_subject_rate": round(subject / total, 4),
        "claims_with_two_passing_perspectives": round(claims_ok / len(dev), 4),
        "cover_both_ends_rate_by_stance": {k: round(v[1] / v[0], 4) for k, v in sorted(by_stance.items())},
        "min_coverage": SEGMENT_MIN_COVERAGE,
    })


if __name__ == "__main__":
    main()
