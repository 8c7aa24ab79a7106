"""Recount stored benchmark runs with the explanation steps added after they ran: repeated
sentences merged (tools.explain.merge_repeated_sentences) and verdict.unsupported_claim_echoes = drop.

    python -m evals.echo_recount verdict_runs.jsonl open_claimspect_vaccine.jsonl open_frosc.jsonl

Reads run logs under evals/work/ (written by evals.verdict_scifact / evals.verdict_open, whose
explanations may predate these steps) and applies the product's steps to each stored explanation
(the merge, then agent.graph.explanation.handle_claim_echoes with the real stance model). A merged repeat
with the same citations keeps its stored status; one that adds citations is counted apart (its
status would need a new check). Prints per log: the attribution pass rate as stored, after the
steps (dropped sentences count as failures), over the sentences a reader sees, and how many
sentences were merged and dropped and explanations replaced by extractive quotes. No LLM call; no
claim is rerun.
"""

from __future__ import annotations

import sys

from evals._harness import WORK, load_runs, services_for


def main(argv: list[str] | None = None) -> None:
    from claimscope.agent.graph.explanation import handle_claim_echoes
    from claimscope.agent.graph.readers import local_assessments, sentence_lookup
    from claimscope.tools.explain import Explanation, merge_repeated_sentences

    names = argv if argv is not None else sys.argv[1:]
    if not names:
        sys.exit(__doc__)
    services = services_for()
    if services.settings.verdict.unsupported_claim_echoes != "drop":
        sys.exit("verdict.unsupported_claim_echoes is not \"drop\" in the config; nothing to recount")
    for name in names:
        path = WORK / name
        if not path.is_file():
            sys.exit(f"{path} not found: run the benchmark that writes it first")
        n0 = p0 = n = p = vis = pvis = dropped = fallbacks = merged = stale = 0
        for r in load_runs(path):
            st = r.state or {}
            if not st.get("explanation"):
                continue
            before = Explanation.model_validate(st["explanation"])
            kept, notes = merge_repeated_sentences(before.sentences)
            merged += len(notes)
            stale += sum(k not in before.sentences for k in kept)  # only a merge that added citations differs
            after = handle_claim_echoes(before.model_copy(update={"sentences": kept}), st["claim"],
                                        (st.get("analysis") or {}).get("anti_claim"),
                                        local_assessments(st), sentence_lookup(st, services), services)
            n0, p0 = n0 + len(before.sentences), p0 + sum(s.status == "supported" for s in before.sentences)
            n, p = n + len(after.sentences), p + sum(s.status == "supported" for s in after.sentences)
            vis, pvis = vis + len(after.visible), pvis + sum(s.status == "supported" for s in after.visible)
            dropped += sum(s.status == "dropped" for s in after.sentences)
            fallbacks += after.mode == "extractive" and before.mode == "llm"
        print(f"{name}: stored {p0}/{n0} ({p0 / max(1, n0):.1%}); with the step {p}/{n} ({p / max(1, n):.1%}); "
              f"shown {pvis}/{vis} ({pvis / max(1, vis):.1%}); repeats merged {merged} "
              f"({stale} with new citations); echoes dropped {dropped}, "
              f"explanations replaced by quotes {fallbacks}", flush=True)


if __name__ == "__main__":
    main()
