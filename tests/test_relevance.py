"""Relevance filter (threshold and ClaimSpect density search), classification down the tree,
sibling uniqueness."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from claimscope.tools.errors import InputError
from claimscope.tools.models import Segment
from claimscope.tools.read.hierarchy import AspectDraft, AspectTree
from claimscope.tools.read.relevance import (
    claim_query_vector,
    classify_segments,
    density_cut,
    relevance_filter,
    sibling_uniqueness,
    threshold_cut,
)
from tests.conftest import FIXTURES
from tests.fakes import HashEmbedder


class ContentHashEmbedder(HashEmbedder):
    """HashEmbedder over content words only, so function words do not make texts look related."""

    STOP = {"the", "of", "in", "a", "an", "and", "for", "was", "were", "is", "at", "than", "after", "to", "its",
            "such", "as", "can", "be", "which", "both", "other"}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return super().encode([" ".join(w for w in t.lower().split() if w not in self.STOP) for t in texts])


def load_fixture() -> tuple[str, list[Segment], list[str]]:
    data = json.loads((FIXTURES / "hierarchy" / "vaccine_segments.json").read_text())
    segs = [Segment(doc_id=s["doc_id"], start=i, end=i + 1, text=s["text"], embed_text=s["text"])
            for i, s in enumerate(data["segments"])]
    return data["claim"], segs, [s["topic"] for s in data["segments"]]


def vaccine_tree(claim: str) -> AspectTree:
    tree = AspectTree.new(claim)
    tree.add_children(
        "root",
        [
            AspectDraft(name="efficacy", description="efficacy against infection", keywords=["effectiveness", "hospitalization"]),
            AspectDraft(name="safety", description="side effects and adverse events", keywords=["myocarditis", "anaphylaxis"]),
            AspectDraft(name="storage", description="cold storage and transport", keywords=["freezer", "cold chain"]),
        ],
    )
    tree.add_children(
        "2",
        [
            AspectDraft(name="myocarditis", description="myocarditis in young men", keywords=["myocarditis"]),
            AspectDraft(name="local reactions", description="injection site pain and fatigue", keywords=["injection site pain"]),
        ],
    )
    return tree


# --- cuts --------------------------------------------------------------------------------------


def test_threshold_cut_absolute_and_relative():
    sims = [0.8, 0.5, 0.41, 0.39, 0.1]
    assert threshold_cut(sims, min_similarity=0.4, top_margin=0.0) == 3
    assert threshold_cut(sims, min_similarity=0.0, top_margin=0.6) == 2  # 0.6 * 0.8 = 0.48
    assert threshold_cut([], min_similarity=0.4, top_margin=0.5) == 0


def test_density_cut_matches_hand_trace():
    texts = [f"t{i}" for i in range(100)]
    relevant = {f"t{i}" for i in range(30)}
    seen: list[str] = []

    def judge(batch: Sequence[str]) -> list[bool]:
        seen.extend(batch)
        return [t in relevant for t in batch]

    kept, judged = density_cut(texts, judge, boundary_density=0.2, window=9)
    # ratios tried: .5 (46-54: 0) .25 (21-29: 1) .375 (33-41: 0) .3125 (27-35: 3/9) .34375 (30-38: 0)
    assert kept == 31
    assert judged == 30 and len(seen) == len(set(seen)) == 30  # overlapping windows judged once


def test_density_cut_checks_judge_answers():
    with pytest.raises(InputError, match="verdicts"):
        density_cut(["a", "b", "c"], lambda batch: [True], boundary_density=0.2, window=3)
    assert density_cut([], lambda batch: [], boundary_density=0.2, window=9) == (0, 0)


# --- relevance_filter --------------------------------------------------------------------------


def test_threshold_filter_drops_off_topic_segments():
    claim, segs, topics = load_fixture()
    res = relevance_filter(claim, [*segs, segs[0]], ContentHashEmbedder(dim=256), min_similarity=0.1, top_margin=0.0)
    assert res.method == "threshold"
    assert set(res.scores) == {s.key for s in segs}
    kept_topics = {topics[int(k.split("#")[1])] for k in res.kept}
    assert "irrelevant" not in kept_topics and len(res.kept) >= 6
    assert [res.scores[k] for k in res.kept] == sorted((res.scores[k] for k in res.kept), reverse=True)
    assert res.threshold == res.scores[res.kept[-1]]
    assert all(v < res.threshold for k, v in res.scores.items() if k not in res.kept)


def test_filter_bounds_and_errors():
    claim, segs, _ = load_fixture()
    emb = HashEmbedder()
    assert len(relevance_filter(claim, segs, emb, min_similarity=0.99, min_keep=2).kept) == 2
    assert len(relevance_filter(claim, segs, emb, min_similarity=-1.0, max_keep=5).kept) == 5
    empty = relevance_filter(claim, [], emb)
    assert empty.kept == [] and empty.scores == {}
    with pytest.raises(InputError):
        relevance_filter(" ", segs, emb)
    with pytest.raises(InputError, match="judge"):
        relevance_filter(claim, segs, emb, method="density")
    with pytest.raises(InputError):
        relevance_filter(claim, segs, emb, keyword_weight=1.5)


def test_filter_with_judge_uses_density_search():
    claim, segs, topics = load_fixture()
    by_text = dict(zip((s.text for s in segs), topics, strict=True))
    emb = ContentHashEmbedder(dim=256)
    plain = relevance_filter(claim, segs, emb, min_similarity=-1, top_margin=0)
    res = relevance_filter(claim, segs, emb, judge=lambda b: [by_text[t] != "irrelevant" for t in b],
                           boundary_density=0.5, window=3)
    assert res.method == "density" and res.judged > 0
    assert res.kept == plain.kept[: len(res.kept)] and len(res.kept) >= 6  # a prefix of the similarity order
    # 12 texts -> 3 halvings (.5, .75, .875): the search cannot keep more than int(.875 * 12) = 10.
    assert len(relevance_filter(claim, segs, emb, judge=lambda b: [True] * len(b)).kept) == 10
    assert relevance_filter(claim, segs, emb, judge=lambda b: [False] * len(b), min_keep=0).kept == []


def test_keywords_shift_the_query_vector():
    emb = HashEmbedder(dim=128)
    plain = claim_query_vector("vaccine comparison", [], emb, keyword_weight=0.5)
    blended = claim_query_vector("vaccine comparison", ["myocarditis"], emb, keyword_weight=0.5)
    np.testing.assert_allclose(np.linalg.norm(blended), 1.0, rtol=1e-6)
    kw_vec = emb.encode(["myocarditis with respect to vaccine comparison"])[0]
    assert float(blended @ kw_vec) > float(plain @ kw_vec)


# --- classification ----------------------------------------------------------------------------


def test_classify_to_most_specific_fitting_node():
    claim, segs, topics = load_fixture()
    tree = vaccine_tree(claim)
    out = classify_segments(tree, segs, ContentHashEmbedder(dim=256), min_similarity=0.1, min_margin=0.0)
    assert set(out) == {s.key for s in segs}
    by_topic = {"efficacy": "1", "safety": "2", "storage": "3", "irrelevant": "root"}
    for s, topic in zip(segs, topics, strict=True):
        assert out[s.key].split(".")[0] == by_topic[topic], (s.text, out[s.key])
    assert out["p3#4"] == "2.1"  # the myocarditis sentence reaches the leaf
    assert out["p3#5"] == "2.2"  # injection site pain -> local reactions


def test_classification_margin_keeps_ambiguous_segments_high():
    claim, segs, _ = load_fixture()
    tree = vaccine_tree(claim)
    strict = classify_segments(tree, segs, ContentHashEmbedder(dim=256), min_similarity=0.1, min_margin=0.99)
    assert set(strict.values()) == {"root"}
    assert classify_segments(tree, [], HashEmbedder()) == {}


def test_sibling_uniqueness():
    tree = AspectTree.new("c")
    tree.add_children("root", [AspectDraft(name="cost", description="price per dose"),
                               AspectDraft(name="cost", description="price per dose"),
                               AspectDraft(name="myocarditis", description="heart inflammation")])
    assert sibling_uniqueness(tree, HashEmbedder(), 0.9) == pytest.approx(2 / 3)
    assert sibling_uniqueness(AspectTree.new("c"), HashEmbedder(), 0.9) == 1.0


@pytest.mark.slow
def test_real_minilm_filter_and_classification_on_fixture():
    """End to end with the packaged all-MiniLM-L6-v2 and the default cuts."""
    from claimscope.tools.find.embeddings import load_embedder

    claim, segs, topics = load_fixture()
    emb = load_embedder("packaged:all-MiniLM-L6-v2")
    res = relevance_filter(claim, segs, emb)
    kept_topics = [topics[int(k.split("#")[1])] for k in res.kept]
    assert "irrelevant" not in kept_topics
    assert len(kept_topics) >= 5
    out = classify_segments(vaccine_tree(claim), segs, emb)
    by_topic = {"efficacy": "1", "safety": "2", "storage": "3"}
    hits = sum(out[s.key].split(".")[0] == by_topic[t] for s, t in zip(segs, topics, strict=True) if t in by_topic)
    assert hits >= 8  # of the 10 on-topic segments


def test_discriminative_rankings_take_precedence():
    claim, segs, _ = load_fixture()
    tree = vaccine_tree(claim)
    myo = "p3#4"  # the myocarditis sentence, which similarity alone sends to 2.1
    tree.set_segments("3", [(myo, 1.5)])
    tree.set_segments("1", [(myo, 0.9), ("p1#0", 2.0)])
    emb = ContentHashEmbedder(dim=256)
    out = classify_segments(tree, segs, emb, min_similarity=0.1)
    assert out[myo] == "3"  # ranked under storage (1.5) and efficacy (0.9): the higher score wins
    assert out["p1#0"] == "1"
    assert classify_segments(tree, segs, emb, min_similarity=0.1, use_rankings=False)[myo] == "2.1"


def test_a_ranked_facet_takes_only_its_kept_findings():
    """Once the tree step has ranked a facet, a finding that uses the facet's word but is not among
    its kept segments stays above it (the word used about something else)."""
    tree = AspectTree.new("Vitamin D supplementation reduces infections")
    (facet,) = tree.add_children("root", [AspectDraft(name="blood levels", description="serum level",
                                                      terms=["blood"])])
    texts = ["Infections fell with serum 25(OH)D blood levels above 30 ng/ml in the trial.",
             "Infections were fewer in peripheral blood leukocytes of treated patients."]
    about, other = (Segment(doc_id="d", start=i, end=i + 1, text=t, embed_text=t) for i, t in enumerate(texts))
    tree.set_segments(facet.id, [(about.key, 1.0)])
    out = classify_segments(tree, [about, other], HashEmbedder(dim=64), min_similarity=-1.0, min_margin=0.0)
    assert out[about.key] == facet.id
    assert out[other.key] == "root"
    # not ranked yet: a finding that uses its terms may go under it
    tree.set_segments(facet.id, [])
    assert classify_segments(tree, [other], HashEmbedder(dim=64), min_similarity=-1.0, min_margin=0.0)[other.key] == facet.id
