"""How far the evidence tests reach debate claims: PERSPECTRUM dev perspectives against their claims.

    python -m evals.perspectrum_coverage

claimscope's evidence test (tools/read/coverage.py) asks a text to cover both ends of the claim's
relation: right for "X lowers the risk of Y" over abstracts, where an abstract about X alone is not
evidence. A debate perspective argues from consequences ("Vaccination must be made compulsory" ->
"Herd immunity protects those who cannot be vaccinated"), so it rarely repeats the claim's words.
This runner measures, on the 139 PERSPECTRUM dev claims and their gold (support / undermine)
perspectives, the share that pass the relation test at sentence level, and the share of claims left
with at least two passing perspectives (what an aspect needs to be kept); then the same for the
argument test that debate claims use (tools.read.relevance.ArgumentTest, the argument model), with the
share of other claims' perspectives (a random one per gold perspective) it wrongly passes.

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
    import random

    from claimscope.tools.read.coverage import addresses, component_terms, coverage
    from claimscope.tools.read.relevance import SEGMENT_MIN_COVERAGE, ArgumentTest
    from claimscope.tools.read.stance import load_argument_model

    scorer = load_argument_model()
    rng = random.Random(3)
    arg_total = arg_pass = arg_claims_ok = other_total = other_pass = 0

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
        gold = [pool[pid] for p in c["perspectives"] for pid in p["pids"] if pid in pool]
        own = {pid for p in c["perspectives"] for pid in p["pids"]}
        others = [pool[pid] for pid in rng.sample(sorted(pool), len(gold) * 2) if pid not in own][: len(gold)]
        test = ArgumentTest(c["text"], scorer)
        ok = test.addresses(gold)
        arg_total += len(ok)
        arg_pass += sum(ok)
        arg_claims_ok += sum(ok) >= 2
        wrong = test.addresses(others)
        other_total += len(wrong)
        other_pass += sum(wrong)
    write_json(args.out, {
        "split": "dev",
        "claims": len(dev),
        "gold_perspectives": total,
        "cover_both_ends_rate": round(both / total, 4),
        "cover_subject_rate": round(subject / total, 4),
        "claims_with_two_passing_perspectives": round(claims_ok / len(dev), 4),
        "cover_both_ends_rate_by_stance": {k: round(v[1] / v[0], 4) for k, v in sorted(by_stance.items())},
        "min_coverage": SEGMENT_MIN_COVERAGE,
        "argument_test": {
            "gold_pass_rate": round(arg_pass / arg_total, 4),
            "claims_with_two_passing_perspectives": round(arg_claims_ok / len(dev), 4),
            "other_claims_perspectives_pass_rate": round(other_pass / other_total, 4),
            "min_relevance": test.min_relevance,
        },
    })


if __name__ == "__main__":
    main()
