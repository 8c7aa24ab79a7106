"""Aspect tree, ClaimSpect discriminative ranking, merging, and the LLM steps with their fallbacks."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest
from pydantic import ValidationError

from claimscope.prompts import aspects as aspects_prompt
from claimscope.prompts import keywords as keywords_prompt
from claimscope.prompts import subaspects as subaspects_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Segment
from claimscope.tools.read.hierarchy import (
    NEG_FLOOR,
    AspectDraft,
    AspectNode,
    AspectTree,
    CachedEmbedder,
    discriminative_scores,
    enrich_keywords,
    harmonic_mean_rows,
    keyword_clusters,
    merge_siblings,
    node_queries,
    propose_aspects,
    rank_segments,
)
from tests.conftest import FIXTURES
from tests.fakes import CannedLLM, HashEmbedder


class DictEmbedder:
    """Fixed vectors per text, so the discriminative formula can be checked by hand."""

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {k: np.asarray(v, dtype=np.float32) for k, v in table.items()}
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return len(next(iter(self.table.values())))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def seg(text: str, doc: str = "d", i: int = 0) -> Segment:
    return Segment(doc_id=doc, start=i, end=i + 1, text=text, embed_text=text)


def fixture_segments() -> tuple[str, list[Segment], list[str]]:
    data = json.loads((FIXTURES / "hierarchy" / "vaccine_segments.json").read_text())
    segs = [seg(s["text"], s["doc_id"], i) for i, s in enumerate(data["segments"])]
    return data["claim"], segs, [s["topic"] for s in data["segments"]]


def three_level_tree() -> AspectTree:
    tree = AspectTree.new("Coffee prevents heart disease.")
    tree.add_children("root", [AspectDraft(name="risk", description="cardiac risk"), AspectDraft(name="dose", description="cups per day")])
    tree.add_children("1", [AspectDraft(name="arrhythmia"), AspectDraft(name="blood pressure")])
    tree.add_children("1.2", [AspectDraft(name="acute effect")])
    return tree


# --- the tree ---------------------------------------------------------------------------------


def test_tree_ids_links_and_navigation():
    tree = three_level_tree()
    assert [n.id for n in tree.walk()] == ["root", "1", "1.1", "1.2", "1.2.1", "2"]
    assert tree.node("1.2.1").depth == 3 and tree.node("1.2.1").parent_id == "1.2"
    assert [n.id for n in tree.ancestors("1.2.1")] == ["root", "1", "1.2"]
    assert tree.ancestors("root") == []
    assert [n.id for n in tree.siblings("1.1")] == ["1.2"]
    assert tree.siblings("root") == []
    assert [n.id for n in tree.children("1")] == ["1.1", "1.2"]
    assert tree.depth() == 3
    # A second call appends after the existing children.
    more = tree.add_children("1", [AspectDraft(name="stroke")])
    assert more[0].id == "1.3"


def test_frontier_respects_depth_and_expansion():
    tree = AspectTree.new("Coffee prevents heart disease.")
    assert [n.id for n in tree.frontier(2)] == ["root"]
    tree.add_children("root", [AspectDraft(name="risk"), AspectDraft(name="dose")])
    assert [n.id for n in tree.frontier(2)] == ["1", "2"]
    assert tree.frontier(1) == []  # depth-1 nodes may not grow under max depth 1
    tree.add_children("1", [AspectDraft(name="arrhythmia")])
    tree.mark_expanded("2")  # tried, found nothing
    assert tree.frontier(2) == []
    assert [n.id for n in tree.frontier(3)] == ["1.1"]


def test_tree_round_trips_through_json_and_renders():
    tree = three_level_tree()
    tree.set_segments("1", [("d#0", 2.5), ("d#1", 1.0)])
    tree.node("1").keywords = ["palpitations"]
    again = AspectTree.model_validate(json.loads(tree.model_dump_json()))
    assert again == tree
    text = again.render_text({"d#0": "Coffee raised palpitations.", "d#1": "Other."}, top_segments=1)
    assert text.splitlines()[0] == "Coffee prevents heart disease."
    assert "  [1] risk: cardiac risk" in text
    assert "keywords: palpitations" in text
    assert "d#0 (2.50) Coffee raised palpitations." in text and "d#1" not in text


def test_drop_leaves_removes_several_siblings_whatever_order_they_come_in():
    tree = AspectTree.new("Coffee prevents heart disease.")
    tree.add_children("root", [AspectDraft(name=n) for n in ("a", "b", "c", "d")])
    tree.drop_leaves(["1", "3"])  # dropping "1" first would renumber "3" (c) to "2" and drop d instead
    assert [(n.id, n.name) for n in tree.children("root")] == [("1", "b"), ("2", "d")]


def test_bad_ids_and_empty_claim_are_clear_errors():
    tree = AspectTree.new("x is y")
    with pytest.raises(InputError, match="No aspect '9'"):
        tree.add_children("9", [])
    with pytest.raises(InputError, match="claim is empty"):
        AspectTree.new("   ")


# --- queries and the discriminative score -------------------------------------------------------


def test_node_queries_follow_claimspect():
    tree = AspectTree.new("C")
    (node,) = tree.add_children("root", [AspectDraft(name="t", description="d", keywords=["k", "k2", "k"])])
    (child,) = tree.add_children(node.id, [AspectDraft(name="sub", description="", keywords=["w"])])
    assert node_queries(node, tree.ancestors(node.id)) == ["t: d", "k with respect to C", "k2 with respect to C"]
    assert node_queries(child, tree.ancestors(child.id)) == ["sub", "w with respect to C, t"]
    assert node_queries(tree.node("root"), []) == ["C"]


def test_harmonic_weights():
    sims = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    w = np.array([1, 1 / 2, 1 / 3])
    np.testing.assert_allclose(harmonic_mean_rows(sims), [1 / w.sum(), (1 / 3) / w.sum()])


@pytest.fixture
def hand_case():
    table = {
        "t: d": [1, 0, 0],
        "k with respect to C": [0, 1, 0],
        "u: e": [0, 0, 1],
        "v: f": [0.6, 0.8, 0],
        "s1": [0.6, 0, 0.8],
        "s2": [0, 1, 0],
        "s3": [0, 0, 1],
        "s4": [0, -1, 0],
    }
    tree = AspectTree.new("C")
    tree.add_children(
        "root",
        [
            AspectDraft(name="t", description="d", keywords=["k"]),
            AspectDraft(name="u", description="e"),
            AspectDraft(name="v", description="f"),
        ],
    )
    segs = [seg(f"s{i}", i=i) for i in range(1, 5)]
    return tree, segs, DictEmbedder(table)


def test_discriminative_formula_by_hand(hand_case):
    tree, segs, emb = hand_case
    node = tree.node("1")
    scores = discriminative_scores(node, tree.siblings("1"), tree.ancestors("1"), segs, emb, beta=2.0, gamma=0.5)
    # s1: pos = (1*0.6 + 0.5*0)/1.5 = 0.4; sibling u: 0.8, v: 0.36 -> neg = 0.5*0.58 + 0.5*0.8 = 0.69
    # s2: pos = (0 + 0.5*1)/1.5 = 1/3; u: 0, v: 0.8 -> neg = 0.5*0.4 + 0.5*0.8 = 0.6
    # s3: pos = 0 -> 0
    # s4: pos = -1/3; u: 0, v: -0.8 -> neg = -0.2, floored to NEG_FLOOR (keeps the sign right)
    expected = [
        (2 * 0.4) / (0.5 * 0.69),
        (2 * (1 / 3)) / (0.5 * 0.6),
        0.0,
        (2 * (-1 / 3)) / (0.5 * NEG_FLOOR),
    ]
    np.testing.assert_allclose(scores, expected, rtol=1e-6, atol=1e-9)


def test_discriminative_without_siblings_is_scaled_pos(hand_case):
    tree, segs, emb = hand_case
    node = tree.node("1")
    scores = discriminative_scores(node, [], tree.ancestors("1"), segs[:2], emb, beta=2.0, gamma=0.5)
    np.testing.assert_allclose(scores, [2 * 0.4 / 0.5, 2 * (1 / 3) / 0.5], rtol=1e-6)


def test_rank_segments_orders_dedupes_and_keeps(hand_case):
    tree, segs, emb = hand_case
    ranked = rank_segments(
        tree.node("1"), tree.siblings("1"), tree.ancestors("1"), [*segs, segs[0]], emb, beta=1, gamma=1, keep=2
    )
    assert [k for k, _ in ranked] == ["d#1", "d#2"]
    assert ranked[0][1] == pytest.approx(0.4 / 0.69)
    with pytest.raises(InputError):
        rank_segments(tree.node("1"), [], [], segs, emb, beta=1, gamma=1, keep=0)
    with pytest.raises(InputError, match="beta and gamma"):
        discriminative_scores(tree.node("1"), [], [], segs, emb, beta=0, gamma=1)


def test_ranking_on_fixture_puts_own_topic_first():
    claim, segs, topics = fixture_segments()
    tree = AspectTree.new(claim)
    tree.add_children(
        "root",
        [
            AspectDraft(name="efficacy", description="efficacy against infection", keywords=["effectiveness", "hospitalization"]),
            AspectDraft(name="safety", description="side effects and adverse events", keywords=["myocarditis", "anaphylaxis"]),
            AspectDraft(name="storage", description="cold storage and transport", keywords=["freezer", "cold chain"]),
        ],
    )
    emb = HashEmbedder(dim=256)
    for node_id, topic in [("1", "efficacy"), ("2", "safety"), ("3", "storage")]:
        ranked = rank_segments(tree.node(node_id), tree.siblings(node_id), tree.ancestors(node_id), segs, emb, beta=1, gamma=1, keep=2)
        top_topics = [topics[int(k.split("#")[1])] for k, _ in ranked]
        assert top_topics == [topic, topic], (node_id, ranked)


def test_cached_embedder_encodes_each_text_once():
    inner = DictEmbedder({"a": [1, 0], "b": [0, 1]})
    emb = CachedEmbedder(inner)
    emb.encode(["a", "b", "a"])
    out = emb.encode(["b", "a"])
    assert inner.calls == [["a", "b"]]
    np.testing.assert_array_equal(out, [[0, 1], [1, 0]])
    assert emb.encode([]).shape == (0, 2)


# --- merging -----------------------------------------------------------------------------------


def test_merge_siblings_unions_near_duplicates():
    drafts = [
        AspectDraft(name="vaccine safety", description="side effects", keywords=["myocarditis"]),
        AspectDraft(name="cost", description="price per dose", keywords=["price"]),
        AspectDraft(name="vaccine safety", description="side effects", keywords=["anaphylaxis", "Myocarditis"]),
    ]
    merged = merge_siblings(drafts, HashEmbedder(), threshold=0.85)
    assert [d.name for d in merged] == ["vaccine safety", "cost"]
    assert merged[0].keywords == ["myocarditis", "anaphylaxis"]
    assert drafts[0].keywords == ["myocarditis"]  # inputs untouched
    assert len(merge_siblings(drafts, HashEmbedder(), threshold=1.01)) == 3


def test_merge_nodes_unions_ranked_segments():
    a = AspectNode(id="1", name="x", depth=1, segment_keys=["s1", "s2"], segment_scores=[2.0, 1.0])
    b = AspectNode(id="2", name="x", depth=1, segment_keys=["s2", "s3"], segment_scores=[3.0, 0.5])
    (m,) = merge_siblings([a, b], HashEmbedder(), threshold=0.9)
    assert m.segment_keys == ["s2", "s1", "s3"] and m.segment_scores == [3.0, 2.0, 0.5]


# --- propose_aspects ---------------------------------------------------------------------------


def _aspect(name: str, kws: list[str]) -> dict:
    return {"name": name, "description": f"about {name}", "keywords": kws}


def test_top_level_aspects_from_llm_are_cleaned_and_capped():
    llm = CannedLLM(
        {"aspects": [{"aspects": [_aspect("Efficacy ", ["Efficacy", "efficacy", "trial"]), _aspect("efficacy", ["x"]),
                                  _aspect("safety", ["myocarditis"]), _aspect("cost", ["price"])]}]}
    )
    drafts = propose_aspects("Pfizer beats Moderna.", llm, k=2, n_keywords=4)
    assert [d.name for d in drafts] == ["Efficacy", "safety"]
    assert drafts[0].keywords == ["efficacy", "trial"] and drafts[0].origin == "llm"
    name, inputs = llm.calls[0]
    assert name == "aspects" and inputs.k == 2 and inputs.n_keywords == 4


def test_subaspects_use_parent_path_and_excerpts():
    tree = AspectTree.new("Pfizer beats Moderna.")
    tree.add_children("root", [AspectDraft(name="safety", description="side effects")])
    (child,) = tree.add_children("1", [AspectDraft(name="cardiac events", description="heart")])
    llm = CannedLLM({"subaspects": [{"aspects": [_aspect("myocarditis in young men", ["myocarditis"])]}]})
    drafts = propose_aspects(tree.claim, llm, k=3, parent=child, ancestors=tree.ancestors(child.id),
                             segments=["Myocarditis was rare.", "  Chest   pain\nfollowed the second dose. "])
    assert [d.name for d in drafts] == ["myocarditis in young men"]
    name, inputs = llm.calls[0]
    assert name == "subaspects"
    assert inputs.path == "safety > " and inputs.aspect == "cardiac events"
    assert inputs.excerpts == "1. Myocarditis was rare.\n2. Chest pain followed the second dose."
    rendered = subaspects_prompt.PROMPT.render(inputs)
    assert "Parent aspect: safety > cardiac events - heart" in rendered


def test_llm_failure_falls_back_to_keyword_clusters():
    claim, segs, _ = fixture_segments()
    llm = CannedLLM({"aspects": [LLMError("model timed out")]})
    drafts = propose_aspects(claim, llm, k=3, segments=[s.text for s in segs])
    assert 1 <= len(drafts) <= 3
    assert all(d.origin == "fallback" and "model timed out" in d.note and "keyword clusters" in d.note for d in drafts)
    names = [d.name for d in drafts]
    assert len(set(names)) == len(names)
    assert not {"pfizer", "moderna", "vaccine"} & set(names)  # claim words do not make aspects
    assert all(d.keywords and d.keywords[0] == d.name for d in drafts)


def test_llm_failure_without_segments_gives_generic_aspects():
    drafts = propose_aspects("Coffee prevents heart disease.", CannedLLM({}), k=2)
    assert [d.name for d in drafts] == ["direct evidence", "effect size and outcomes"]
    assert all(d.origin == "fallback" and "generic" in d.note for d in drafts)
    assert "coffee" in drafts[0].keywords


def test_unusable_llm_answer_also_falls_back():
    llm = CannedLLM({"aspects": [{"aspects": [_aspect("The claim", ["x"])]}]})
    tree = AspectTree.new("The claim")
    drafts = propose_aspects("The claim", llm, k=2, parent=tree.node("root"), segments=[])
    assert drafts and drafts[0].origin == "fallback" and "no usable aspects" in drafts[0].note


def test_propose_aspects_rejects_bad_arguments():
    with pytest.raises(InputError):
        propose_aspects("", CannedLLM({}), k=2)
    with pytest.raises(InputError):
        propose_aspects("claim", CannedLLM({}), k=0)


def test_keyword_clusters_separate_topics():
    _, segs, _ = fixture_segments()
    drafts = keyword_clusters([s.text for s in segs], k=3, n_keywords=4, exclude={"pfizer", "moderna", "vaccine"})
    assert len(drafts) == 3
    members = [set(d.keywords) for d in drafts]
    assert all(len(m) >= 2 for m in members)
    assert keyword_clusters([], k=3) == []


# --- enrich_keywords ---------------------------------------------------------------------------


def test_enrich_keywords_prefers_grounded_terms():
    node = AspectNode(id="1", name="safety", description="side effects", keywords=["adverse events", "reactogenicity"], depth=1)
    llm = CannedLLM({"keywords": [{"keywords": ["Invented Term", "myocarditis", "anaphylaxis"]}]})
    out = enrich_keywords(node, ["Myocarditis was seen in young men.", "Anaphylaxis was rare."], llm, max_keywords=4, claim="c")
    assert out == ["myocarditis", "anaphylaxis", "adverse events", "reactogenicity"]
    _, inputs = llm.calls[0]
    assert inputs.current == "adverse events, reactogenicity" and inputs.n == 4 and inputs.claim == "c"


def test_enrich_keywords_fallback_uses_salient_terms():
    _, segs, topics = fixture_segments()
    texts = [s.text for s, t in zip(segs, topics, strict=True) if t == "storage"] * 2
    node = AspectNode(id="3", name="storage", description="", keywords=["storage"], depth=1)
    out = enrich_keywords(node, texts, CannedLLM({"keywords": [LLMError("bad json")]}), max_keywords=5)
    assert out[0] == "storage" and len(out) == 5
    assert "transport" in out or "freezer" in out
    assert enrich_keywords(node, [], CannedLLM({}), max_keywords=3) == ["storage"]


# --- prompts -----------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [aspects_prompt, keywords_prompt, subaspects_prompt])
def test_prompts_render_bench_inputs(module):
    claim = "Aspirin lowers the risk of colorectal cancer."
    inputs = module.bench_inputs(claim)
    text = module.PROMPT.render(inputs)
    assert "Aspirin" in text or "aspirin" in text
    assert "{" not in text  # every placeholder filled
    schema = module.PROMPT.output_model.model_json_schema()
    assert schema["properties"]


def test_prompt_outputs_are_bounded():
    with pytest.raises(ValidationError):
        aspects_prompt.AspectItem(name="x" * 61, description="d", keywords=["k"])
    with pytest.raises(ValidationError):
        aspects_prompt.AspectItem(name="x", description="d", keywords=[f"k{i}" for i in range(9)])
    with pytest.raises(ValidationError):
        keywords_prompt.KeywordsOutput(keywords=["k" * 41])
