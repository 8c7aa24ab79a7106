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


def test_rubric_counts_relevance_offclaim_nodes_copies_and_degenerate_text():
    from types import SimpleNamespace

    from claimscope.tools.models import Segment
    from claimscope.tools.read.hierarchy import ROOT_ID, AspectDraft, AspectTree
    from evals.rubric import summarise_rubric, tree_rubric
    from tests.fakes import HashEmbedder

    claim = "Vitamin D supplementation prevents respiratory infections."
    texts = {
        "a#0": "Vitamin D supplementation reduced respiratory infections in children.",
        "a#1": "Daily vitamin D supplementation lowered the rate of respiratory infections.",
        "b#0": "Radius bone mineral density fell in older women.",
        "b#1": "Fracture markers correlated with bone density at the radius.",
    }
    segs = {k: Segment(doc_id=k.split("#")[0], start=int(k[-1]), end=int(k[-1]) + 1, text=t, embed_text=t)
            for k, t in texts.items()}
    store = SimpleNamespace(get_segments=lambda keys: [segs[k] for k in keys if k in segs])
    services = SimpleNamespace(store=store, embedder=HashEmbedder(), stance=None)
    tree = AspectTree.new(claim)
    on, off = tree.add_children(ROOT_ID, [
        AspectDraft(name="vitamin d supplementation", description="Whether taking it cuts how often people catch colds"),
        AspectDraft(name="bone density", description=texts["b#0"]),  # copied from a source sentence
    ])
    tree.set_segments(on.id, [("a#0", 1.0), ("a#1", 0.9)])
    tree.set_segments(off.id, [("b#0", 1.0), ("b#1", 0.9)])
    loop = "Doses are too low. Doses are too low."
    state = {"claim": claim, "tree": tree.model_dump(mode="json"),
             "report": {"hierarchy": {"nodes": [{"id": "1", "name": "bone density", "description": loop,
                                                 "perspectives": []}]},
                        "explanation": {"sentences": [{"text": texts["a#0"], "status": "supported"}]}},
             "usage": {"aspects": {"text_fields": 10, "degenerate_fields": 1, "regenerated": 1, "fell_back": 0}},
             "perspectives": {"1:support": {"sentences_checked": 2, "sentences_supported": 1}}}
    row = tree_rubric(state, services)
    assert row["nodes"] == 2 and row["offclaim_nodes"] == 1 and row["copied_fields"] == 1
    out = summarise_rubric([row])
    assert out["offclaim_node_rate"] == 0.5 and out["sentence_name_rate"] == 0.25
    assert out["segment_relevance_top5"] is not None and out["segment_relevance_top5"] <= 0.5
    assert out["degenerate_text_rate_before_fallback"] == 0.1
    assert out["degenerate_text_rate_after_fallback"] == round(1 / 3, 4)  # the looping description
    assert out["perspective_attribution_pass_rate"] == 0.5


def test_rubric_leaves_out_quotes_clipped_to_the_field_length():
    from evals.rubric import report_texts

    source = "The proportion of women in the trial group was 51% greater than the proportion of women in the control group."
    clipped = source[:60] + "…"
    state = {"report": {"hierarchy": {"nodes": [{"id": "1", "name": "n", "description": "d", "perspectives": [
        {"summary": clipped, "citations": [{"doc_id": "a", "sentence": 0, "text": source}]},
        {"summary": "Doses are too low…", "citations": [{"doc_id": "a", "sentence": 0, "text": source}]},
    ]}]}}}
    assert report_texts(state) == ["n", "d", "Doses are too low…"]
    # a finding quoted among restated ones is shown as the authors' words: still their text, not the model's
    state["report"]["explanation"] = {"sentences": [
        {"text": f'The authors write: "{source}"', "citations": [{"doc_id": "a", "sentence": 0, "text": source}]}]}
    assert report_texts(state) == ["n", "d", "Doses are too low…"]
