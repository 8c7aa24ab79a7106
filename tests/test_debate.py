"""Debate claims: detected by their wording, read by the argument model instead of the relation test,
and investigated end to end into on-claim aspects with arguments on both sides."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from claimscope.tools.models import Stance, StanceResult
from claimscope.tools.read.claim_analysis import ClaimKind, analyse_claim, detect_claim_kind
from tests.conftest import FIXTURES

DEBATE_CLAIM = "Vaccination must be made compulsory"
DEBATE_CORPUS = FIXTURES / "debate" / "corpus.jsonl"


@pytest.mark.parametrize("claim", [
    "Vaccination must be made compulsory",
    "Sunbeds should be banned",
    "Ban sunbeds in every country",
    "The death penalty is justified for the worst crimes",
    "It is wrong to keep animals in zoos",
    "Everyone has the right to anonymous speech online",
])
def test_normative_claims_are_read_as_debate(claim: str) -> None:
    assert detect_claim_kind(claim) is ClaimKind.DEBATE


@pytest.mark.parametrize("claim", [
    "Coffee consumption lowers the risk of type 2 diabetes",
    "Increase of p62 in prostate tumor stroma results in defective autophagy.",
    "KLF4 is necessary for VSMCs to gain genetic characteristics of other cell types.",
    "Women with a lower birth weight are more likely to develop breast cancer later in life.",
    "Vitamin D supplementation prevents respiratory infections",
])
def test_empirical_claims_stay_empirical(claim: str) -> None:
    assert detect_claim_kind(claim) is ClaimKind.EMPIRICAL


def test_the_caller_can_choose_the_kind() -> None:
    assert analyse_claim(DEBATE_CLAIM, None).claim_kind is ClaimKind.DEBATE
    assert analyse_claim(DEBATE_CLAIM, None, kind=ClaimKind.EMPIRICAL).claim_kind is ClaimKind.EMPIRICAL


class TableArguments:
    """A fake argument model: a fixed reading per text (by a word it contains), else 'argues past'."""

    def __init__(self, table: dict[str, Stance]) -> None:
        self.table = table
        self.config: dict = {}

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        out = []
        for _, text in pairs:
            stance = next((s for word, s in self.table.items() if word in text.lower()), Stance.NEUTRAL)
            p = {Stance.SUPPORT: (0.85, 0.1, 0.05), Stance.REFUTE: (0.05, 0.1, 0.85),
                 Stance.NEUTRAL: (0.05, 0.9, 0.05)}[stance]
            out.append(StanceResult(label=stance, support=p[0], neutral=p[1], refute=p[2]))
        return out


ARGUMENTS = {"herd immunity": Stance.SUPPORT, "outbreaks": Stance.SUPPORT, "right to decide": Stance.REFUTE,
             "bodily autonomy": Stance.REFUTE, "erode": Stance.REFUTE}


def test_argument_test_reads_relevance_not_words() -> None:
    from claimscope.tools.read.relevance import ArgumentTest, RelationTest, evidence_test

    texts = ["Vaccination of most children creates herd immunity that protects newborns.",
             "Chess requires as much training as many physical sports."]
    test = evidence_test(DEBATE_CLAIM, ClaimKind.DEBATE, argument_scorer=TableArguments(ARGUMENTS))
    assert isinstance(test, ArgumentTest)
    assert test.addresses(texts) == [True, False]
    # the lexical test rejects the argument: it never says "compulsory"
    assert RelationTest(DEBATE_CLAIM).addresses(texts) == [False, False]
    # without an argument model a debate claim falls back to the relation test
    assert isinstance(evidence_test(DEBATE_CLAIM, ClaimKind.DEBATE), RelationTest)
    with pytest.raises(Exception, match="min_relevance"):
        ArgumentTest(DEBATE_CLAIM, TableArguments({}), min_relevance=2)


def _debate_script() -> dict:
    from tests.investigation_fixtures import investigation_script

    script = investigation_script()
    script["anti_claim"] = [{"anti_claim": "Vaccination must not be made compulsory"}]
    script["decompose"] = [{"sub_claims": [DEBATE_CLAIM]}]
    script["aspects"] = [{"aspects": [
        {"name": "protection of children", "description": "Vaccination of children, herd immunity and outbreaks",
         "keywords": ["herd immunity", "outbreaks"]},
        {"name": "parental rights", "description": "Parents deciding on vaccination of their children",
         "keywords": ["parents", "autonomy"]},
    ]}]
    script["subaspects"] = [{"aspects": []}]
    script["keywords"] = [{"keywords": ["vaccination", "children", "parents"]}]
    return script


def _debate_services(tmp_path, hierarchy=None, **overrides):
    from claimscope.agent.llm.fake import scripted_llm
    from claimscope.agent.services import Services
    from claimscope.tools.find.ingest import read_path
    from claimscope.tools.find.store import EvidenceStore
    from tests.fakes import HashEmbedder, KeywordStance
    from tests.investigation_fixtures import make_settings

    # The hashing embedder's cosines are far below MiniLM's: its relevance cut is lowered to match.
    settings = make_settings(tmp_path, hierarchy={"relevance_min_similarity": 0.1, **(hierarchy or {})}, **overrides)
    embedder = HashEmbedder(dim=128)
    store = EvidenceStore(embedder, path=tmp_path / "qdrant")
    store.add_documents(read_path(DEBATE_CORPUS).documents, corpus="debate")
    return Services(settings, _store=store, _embedder=embedder, _llm=scripted_llm(_debate_script()),
                    _stance=KeywordStance(), _argument=TableArguments(ARGUMENTS))


def _run(services, **opts):
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator

    inv = Investigator(services, persistent=False)
    result = inv.run(DEBATE_CLAIM, InvestigationOptions(corpora=["debate"], sources=["local"], depth=1,
                                                        top_documents=5, **opts))
    return result, inv.state(result.thread_id)


def test_a_debate_claim_is_investigated_from_its_arguments(tmp_path) -> None:
    from claimscope.agent.report import render

    result, state = _run(_debate_services(tmp_path))
    assert result.status == "complete", result.warnings
    report = result.report
    assert report["claim_kind"] == "debate"
    # the tree holds only the arguments on the claim, never the off-topic perspectives
    keys = [k for n in state["tree"]["nodes"].values() for k in n["segment_keys"]]
    assert keys and {k.split("#")[0] for k in keys} <= {"d1", "d2", "d3", "d4", "d5"}
    labels = {k.split("#")[0]: v["label"] for k, v in state["stances"].items()}
    assert labels.get("d1") == "support" and labels.get("d4") == "refute"
    assert {"d6", "d7", "d8"}.isdisjoint(labels)
    assert "a debate claim" in render(report, "md")
    # the explanation quotes the arguments themselves, each citing itself and saying its side
    texts = {json.loads(line)["text"] for line in DEBATE_CORPUS.read_text().splitlines()}
    sentences = report["explanation"]["sentences"]
    assert sentences and all(s["status"] == "supported" for s in sentences)
    for s in sentences:
        side, _, quote = s["text"].partition(": ")
        assert side in ("For the claim", "Against the claim") and quote in texts, s["text"]
        assert (side == "For the claim") == (ARGUMENTS[next(w for w in ARGUMENTS if w in quote.lower())]
                                             is Stance.SUPPORT)


def test_a_debate_claim_has_its_aspects_proposed_from_its_arguments_not_as_study_facets(tmp_path) -> None:
    """Facets are questions about a study's design; a debate's aspects are its lines of argument. With
    facets (the default), a debate claim gets no "population studied" but aspects proposed from its
    arguments."""
    result, state = _run(_debate_services(tmp_path, hierarchy={"aspects": "facets"}))
    assert result.status == "complete", result.warnings
    tops = [state["tree"]["nodes"][c] for c in state["tree"]["nodes"]["root"]["children"]]
    assert tops and all(not n["terms"] for n in tops)
    assert {n["name"] for n in tops} <= {"protection of children", "parental rights"}


def test_without_the_argument_model_a_debate_claim_finds_no_evidence(tmp_path) -> None:
    result, _ = _run(_debate_services(tmp_path, stance={"argument_model": False}))
    assert result.status == "no_evidence"
    assert result.report["verdict"]["weighted"]["label"] == "insufficient evidence"


def test_the_run_option_overrides_detection(tmp_path) -> None:
    result, state = _run(_debate_services(tmp_path), claim_kind="empirical")
    assert state["analysis"]["claim_kind"] == "empirical"
    assert result.status == "no_evidence"


@pytest.mark.slow
def test_the_packaged_argument_model_reads_arguments_offline() -> None:
    """The shipped model (tools/read/argument_model) on arguments written for this test, not PERSPECTRUM's."""
    from claimscope.tools.read.stance import load_argument_model

    model = load_argument_model()
    sunbeds = "Sunbeds should be banned"
    got = model.predict([
        (DEBATE_CLAIM, "Herd immunity protects babies and people who are too ill to be vaccinated."),
        (DEBATE_CLAIM, "Forcing an injection on a healthy person violates their bodily autonomy."),
        (DEBATE_CLAIM, "The chess olympiad attracts more teams every year."),
        (sunbeds, "Tanning beds greatly raise the risk of melanoma in young people."),
    ])
    assert [r.label for r in got] == [Stance.SUPPORT, Stance.REFUTE, Stance.NEUTRAL, Stance.SUPPORT]


def test_claim_kind_is_an_option_of_the_api_and_the_settings(tmp_path) -> None:
    from pydantic import ValidationError

    from claimscope.agent.api import ToolOptions
    from tests.investigation_fixtures import make_settings

    assert ToolOptions(claim_kind="debate").to_options(make_settings(tmp_path)).claim_kind == "debate"
    assert ToolOptions().to_options(make_settings(tmp_path, stance={"claim_kind": "empirical"})).claim_kind == "empirical"
    with pytest.raises(ValidationError):
        ToolOptions(claim_kind="opinion")


def test_a_debate_verdict_reads_at_most_leaning(tmp_path) -> None:
    from claimscope.agent.graph.screen import configured_verdict as _verdict
    from claimscope.agent.services import Services
    from claimscope.tools.weigh.verdict import LocalItem, LocalLabel
    from tests.investigation_fixtures import make_settings

    items = [LocalItem(doc_id=f"d{i}", label=LocalLabel.TRUE) for i in range(5)]
    services = Services(make_settings(tmp_path))
    assert _verdict(items, services).weighted_label == "generally supported"
    assert _verdict(items, services, debate=True).weighted_label == "leaning supported"
    strong = Services(make_settings(tmp_path, verdict={"debate_strong_labels": True}))
    assert _verdict(items, strong, debate=True).weighted_label == "generally supported"
    from claimscope.tools.weigh.verdict import aspect_consensus

    four = [(Stance.SUPPORT, 1.0)] * 4
    assert aspect_consensus(four).label == "generally supported"
    assert aspect_consensus(four, strong_labels=False).label == "leaning supported"


def test_a_reviewer_can_correct_the_claim_kind(tmp_path) -> None:
    """Guided review of the claim: the person says the claim is a debate claim; its arguments are found."""
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator

    inv = Investigator(_debate_services(tmp_path), persistent=True)
    opts = InvestigationOptions(corpora=["debate"], sources=["local"], depth=1, top_documents=5, guided=True,
                                claim_kind="empirical")
    r = inv.run(DEBATE_CLAIM, opts, thread_id="kind")
    assert r.pending["point"] == "claim" and r.pending["summary"]["claim_kind"] == "empirical"
    r = inv.answer("kind", {"claim_kind": "debate"})
    while r.pending:
        r = inv.answer("kind", "accept")
    assert r.status == "complete" and r.report["claim_kind"] == "debate"
    assert "claim read as debate" in r.report["decisions"][0]["choice"]
