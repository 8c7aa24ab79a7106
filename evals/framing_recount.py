"""Recount stored benchmark runs as if global_explanation's stance-framing guard had been on.

    python -m evals.framing_recount open_frosc.jsonl open_claimspect_vaccine.jsonl verdict_runs.jsonl

Reads run logs under evals/work/ (written by evals.verdict_open / evals.verdict_scifact) and prints,
per log, the attribution pass rate over all explanation sentences and over those the guard keeps
(tools.explain.copied_text_reason), and how many explanations the guard
would leave empty (those fall back to the extractive quotes). No claim is rerun.
"""

from __future__ import annotations

import sys

from claimscope.tools.explain import copied_text_reason
from evals._harness import WORK, load_runs


def main(argv: list[str] | None = None) -> None:
    names = argv if argv is not None else sys.argv[1:]
    if not names:
        sys.exit(__doc__)
    for name in names:
        path = WORK / name
        if not path.is_file():
            sys.exit(f"{path} not found: run the benchmark that writes it first")
        n = p = n2 = p2 = empty = 0
        for r in load_runs(path):
            sents = ((r.state or {}).get("explanation") or {}).get("sentences", [])
            # stored sentences already passed the example guard, so only the framing guard removes any
            kept = [s for s in sents if copied_text_reason(s["text"]) is None]
            n, p = n + len(sents), p + sum(s.get("status") == "supported" for s in sents)
            n2, p2 = n2 + len(kept), p2 + sum(s.get("status") == "supported" for s in kept)
            empty += bool(sents) and not kept
        print(f"{name}: all sentences {p}/{n} pass ({p / max(1, n):.1%}); without the framing "
              f"{p2}/{n2} ({p2 / max(1, n2):.1%}); explanations left empty {empty}")


if __name__ == "__main__":
    main()
