"""How the claim-kind rules read known claim sets: debate claims should be read as debate, scientific
ones as empirical.

    python -m evals.claim_kind

PERSPECTRUM claims are debate claims (all of them, by construction of the data set); SciFact, FRoSC
and ClaimSpect claims are statements of fact. The rules (tools.read.claim_analysis.detect_claim_kind)
were written looking at PERSPECTRUM and SciFact TRAIN claims only; the other sets are reported as
they come. No model is run. Writes evals/results/claim_kind.json with the share read as debate per
set and the claims behind every surprise on the non-debate sets.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals._harness import RESULTS, SHARED, write_json


def _jsonl(path: Path, field: str) -> list[str]:
    return [json.loads(line)[field] for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "claim_kind.json")
    args = ap.parse_args()
    from claimscope.tools.read.claim_analysis import ClaimKind, detect_claim_kind

    persp = json.loads((SHARED / "perspectrum" / "perspectrum_with_answers_v1.0.json").read_text())
    split = json.loads((SHARED / "perspectrum" / "dataset_split_v1.0.json").read_text())
    debate_sets = {f"perspectrum_{s}": [c["text"] for c in persp if split.get(str(c["cId"])) == s]
                   for s in ("train", "dev")}
    fact_sets = {
        "scifact_train": _jsonl(SHARED / "scifact" / "claims_train.jsonl", "claim"),
        "scifact_dev": _jsonl(SHARED / "scifact" / "claims_dev.jsonl", "claim"),
        "frosc": _jsonl(SHARED / "frosc" / "claims.jsonl", "claim"),
        "claimspect_dtra": [c["body"] for c in json.loads((SHARED / "claimspect" / "claims_dtra.json").read_text())],
        "claimspect_vaccine": [c["body"] for c in
                               json.loads((SHARED / "claimspect" / "claims_vaccine.json").read_text())],
    }
    out: dict = {"debate_sets": {}, "statement_sets": {}}
    for name, claims in debate_sets.items():
        kinds = [detect_claim_kind(c) for c in claims]
        out["debate_sets"][name] = {"claims": len(claims),
                                    "read_as_debate": round(kinds.count(ClaimKind.DEBATE) / len(claims), 4)}
    for name, claims in fact_sets.items():
        hits = [c for c in claims if detect_claim_kind(c) is ClaimKind.DEBATE]
        out["statement_sets"][name] = {"claims": len(claims), "read_as_debate": len(hits), "examples": hits[:10]}
    write_json(args.out, out)


if __name__ == "__main__":
    main()
