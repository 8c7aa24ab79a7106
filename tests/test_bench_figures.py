"""The verdict benchmarks' attribution figures: dropped sentences are failures in the overall rate
and absent from the rate over what the reader sees."""

import evals.verdict_open as vo
from evals._harness import ClaimRun
from evals.verdict_scifact import dropped_count


def _state(*statuses: str) -> dict:
    return {"verdict": {"weighted_label": "leaning supported"},
            "explanation": {"sentences": [{"text": f"S{i}.", "citations": ["d#0"], "status": s}
                                          for i, s in enumerate(statuses)]}}


def test_dropped_count_counts_only_dropped_sentences():
    assert dropped_count(_state("supported", "dropped", "interpretation", "dropped")) == 2
    assert dropped_count({}) == 0


def test_open_summary_separates_shown_rate_from_overall_rate(monkeypatch):
    def figures(state, services):
        sents = state["explanation"]["sentences"]
        return len(sents), len(sents), sum(s["status"] == "supported" for s in sents)

    monkeypatch.setattr(vo, "explanation_figures", figures)
    runs = [ClaimRun(claim_id="a", claim="x", seconds=1.0, state=_state("supported", "dropped")),
            ClaimRun(claim_id="b", claim="y", seconds=2.0, state=_state("supported", "supported", "interpretation"))]
    out = vo.summarise(runs, services=None)
    assert out["attribution_pass_rate"] == 0.6          # 3 of 5, the dropped one a failure
    assert out["dropped_sentences"] == 1
    assert out["attribution_shown_pass_rate"] == 0.75   # 3 of the 4 the reader sees
