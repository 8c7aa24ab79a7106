"""Judgement: what counts as evidence (claim components, direction, the learned document decision)
and the honest "insufficient evidence" end of an investigation."""

from __future__ import annotations

import pytest

from claimscope.tools.errors import InputError
from claimscope.tools.models import Stance, StanceResult
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.coverage import addresses, component_terms, coverage
from claimscope.tools.read.direction import (
    Direction,
    agreement,
    claim_direction,
    sentence_direction,
)
from claimscope.tools.read.document_model import (
    FEATURES,
    DocumentModel,
    decide,
    document_evidence,
    load_document_model,
)
from claimscope.tools.read.stance import decide_document
from claimscope.tools.weigh.verdict import GlobalLabel, LocalItem, LocalLabel, global_verdict

VITD = "Vitamin D supplementation prevents respiratory infections"
SUP = StanceResult(label=Stance.SUPPORT, support=0.8, neutral=0.1, refute=0.1)
REF = StanceResult(label=Stance.REFUTE, support=0.1, neutral=0.1, refute=0.8)
NEU = StanceResult(label=Stance.NEUTRAL, support=0.1, neutral=0.8, refute=0.1)


@pytest.mark.parametrize(("claim", "subject", "relation", "obj"), [
    (VITD, "Vitamin D supplementation", "prevents", "respiratory infections"),
    ("Coffee consumption lowers the risk of type 2 diabetes", "Coffee consumption", "lowers",
     "the risk of type 2 diabetes"),
    ("ALDH1 expression is associated with poorer prognosis", "ALDH1 expression", "is associated with",
     "poorer prognosis"),
    ("Studies show that masks reduce transmission of COVID-19", "masks", "reduce", "transmission of COVID-19"),
    ("Quantum gravity", "Quantum gravity", "", ""),
])
def test_claim_components(claim, subject, relation, obj):
    parts = claim_components(claim)
    assert (parts.subject, parts.relation, parts.object) == (subject, relation, obj)


def test_coverage_needs_both_ends_of_the_relation():
    terms = component_terms(VITD)
    assert terms.subject == ["vitamin", "d", "supplement"] and terms.object == ["respiratori", "infect"]
    on_subject = coverage(terms, ["Vitamin D supplementation was associated with significantly reduced mortality."])
    assert on_subject.subject == 1.0 and on_subject.object == 0.0 and not addresses(on_subject)
    on_claim = coverage(terms, ["Trial of vitamin D", "Supplementation reduced acute respiratory infection."])
    assert addresses(on_claim)
    # generic words ("risk") carry no weight; compounds and British spellings still match
    assert component_terms("Coffee consumption lowers the risk of type 2 diabetes").object == ["type", "diabet"]
    assert coverage(component_terms("Birth-weight is associated with anemia"), "Birthweight and anaemia").both == 1.0


def test_a_claim_the_split_cannot_parse_still_needs_both_halves():
    # No main verb is recognised ("hover"), so the terms are halved in claim order: an abstract
    # sharing the numbers and "virus" alone does not cover the claim.
    terms = component_terms("Estimates from different groups for the R0 of the 2019-nCoV virus hover between 2 and 3.")
    assert terms.subject == ["r0", "ncov"] and terms.object == ["virus", "hover"]
    assert not addresses(coverage(terms, "Group 2 received a virus inhibitor; group 3 placebo."))


@pytest.mark.parametrize(("text", "direction"), [
    ("Aspirin significantly increased the incidence of myocardial infarction.", Direction.UP),
    ("Statin therapy lowered LDL cholesterol by 35% compared with placebo.", Direction.DOWN),
    ("There was no significant difference in infarction between the groups.", Direction.NONE),
    ("Exercise did not reduce depressive symptoms.", Direction.NONE),
    ("More than 40% of patients were women.", Direction.UNKNOWN),
    ("Serum levels were associated with fracture risk.", Direction.ASSOCIATED),
])
def test_sentence_direction(text, direction):
    assert sentence_direction(text) is direction


def test_claim_direction_and_agreement():
    down = claim_direction("lowers", "the risk of type 2 diabetes")
    assert down is Direction.DOWN
    assert claim_direction("does not increase", "the risk") is Direction.NONE
    assert claim_direction("is associated with", "breast cancer") is Direction.ASSOCIATED
    assert agreement(down, Direction.DOWN) == 1
    assert agreement(down, Direction.UP) == -1 and agreement(down, Direction.NONE) == -1
    assert agreement(Direction.NONE, Direction.NONE) == 1 and agreement(Direction.ASSOCIATED, Direction.UP) == 1
    assert agreement(down, Direction.UNKNOWN) == 0


def hand_model(min_coverage: float = 0.5) -> DocumentModel:
    """A readable stand-in for the fitted model: on-relation support / refute and direction decide."""
    w = {lab: [0.0] * len(FEATURES) for lab in ("SUPPORT", "CONTRADICT", "NEI")}
    w["SUPPORT"][FEATURES.index("support_on_relation")] = 6.0
    w["SUPPORT"][FEATURES.index("direction_agree")] = 3.0
    w["SUPPORT"][FEATURES.index("direction_oppose")] = -3.0
    w["CONTRADICT"][FEATURES.index("refute_on_relation")] = 6.0
    w["CONTRADICT"][FEATURES.index("direction_oppose")] = 3.0
    return DocumentModel(features=list(FEATURES), mean=[0.0] * len(FEATURES), scale=[1.0] * len(FEATURES),
                         coef=[w["SUPPORT"], w["CONTRADICT"], w["NEI"]], intercept=[0.0, 0.0, 4.0],
                         min_coverage=min_coverage)


def test_learned_decision_topical_is_not_evidence():
    sentences = ["Vitamin D supplementation was associated with significantly reduced mortality.",
                 "91.9% of cases had 25OHD serum levels below 30 ng/ml."]
    label, _, idx, ev = decide(hand_model(), VITD, sentences, [SUP, SUP], title="Vitamin D and mortality")
    assert label == "NEI" and idx == [] and ev.coverage_both == 0.0
    # the same stance on sentences that do speak to the relation is evidence, and cited
    on = ["Vitamin D supplementation reduced acute respiratory infections.", "Adverse events were rare."]
    label, conf, idx, ev = decide(hand_model(), VITD, on, [SUP, NEU], title="Vitamin D trial")
    assert label == "SUPPORT" and idx == [0] and conf > 0.5 and ev.on_relation == [True, False]


def test_learned_decision_borderline_evidence_is_not_counted():
    on = ["Vitamin D supplementation reduced acute respiratory infections.", "Adverse events were rare."]
    label, conf, _, _ = decide(hand_model(), VITD, on, [SUP, NEU], title="Vitamin D trial")
    assert label == "SUPPORT"
    strict = hand_model().model_copy(update={"min_probability": min(1.0, conf + 0.01)})
    label, nei_conf, idx, _ = decide(strict, VITD, on, [SUP, NEU], title="Vitamin D trial")
    assert label == "NEI" and idx == [] and nei_conf == pytest.approx(1 - conf, abs=1e-5)


def test_learned_decision_reads_direction():
    claim = "Aspirin lowers the risk of myocardial infarction"
    up = ["Aspirin significantly increased the incidence of myocardial infarction compared with placebo."]
    # the stance model misreads the direction (scores support); the direction features overrule it
    weak = StanceResult(label=Stance.SUPPORT, support=0.45, neutral=0.1, refute=0.45)
    assert decide(hand_model(), claim, up, [weak])[0] == "CONTRADICT"
    down = ["Aspirin significantly reduced the incidence of myocardial infarction compared with placebo."]
    assert decide(hand_model(), claim, down, [weak])[0] == "SUPPORT"
    null = ["There was no significant difference in myocardial infarction between aspirin and placebo."]
    assert decide(hand_model(), claim, null, [weak])[0] == "CONTRADICT"


def test_document_decision_fallbacks():
    assert load_document_model(None) is None and load_document_model({"document": {}}) is None
    with pytest.raises(InputError, match="train_document_rule"):
        DocumentModel(features=list(FEATURES), mean=[0.0], scale=[1.0], coef=[[0.0]], intercept=[0.0])
    # without a model (or without the texts it needs) the threshold rule decides
    assert decide_document([SUP], {"support_threshold": 0.5}).label == "SUPPORT"
    assert decide_document([SUP], {"support_threshold": 0.5}, model=hand_model()).label == "SUPPORT"
    learned = decide_document([SUP], {}, claim=VITD, sentences=["Vitamin D lowered mortality."], model=hand_model())
    assert learned.label == "NEI" and learned.learned and learned.coverage == 0.0
    with pytest.raises(InputError, match="one stance result per sentence"):
        document_evidence(VITD, ["a", "b"], [SUP])


def test_one_document_is_at_most_leaning():
    one = [LocalItem(doc_id="a", label=LocalLabel.TRUE)]
    assert global_verdict(one).weighted_label is GlobalLabel.GENERALLY_SUPPORTED  # the published scale
    assert global_verdict(one, min_documents_generally=2).weighted_label is GlobalLabel.LEANING_SUPPORTED
    two = [*one, LocalItem(doc_id="b", label=LocalLabel.MOSTLY_TRUE)]
    assert global_verdict(two, min_documents_generally=2).weighted_label is GlobalLabel.GENERALLY_SUPPORTED
    refuted = [LocalItem(doc_id="a", label=LocalLabel.FALSE)]
    assert global_verdict(refuted, min_documents_generally=2).weighted_label is GlobalLabel.LEANING_REFUTED
    assert global_verdict([], min_documents_generally=2).weighted_label is GlobalLabel.INSUFFICIENT
    with pytest.raises(InputError):
        global_verdict(one, min_documents_generally=0)


# ------------------------------------------------------------------------------- through the graph


class _ModelStance:
    """The keyword stance fake, shipping the hand-set document model as a packaged model would."""

    def __init__(self) -> None:
        from tests.fakes import KeywordStance

        self._inner = KeywordStance()
        self.config = {"document_model": hand_model().model_dump()}

    def predict(self, pairs):
        return self._inner.predict(pairs)


def _run(tmp_path, claim: str, *, learned: bool = True, **verdict):
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from tests.investigation_fixtures import make_services

    services = make_services(tmp_path, verdict=verdict)
    if learned:
        services._stance = _ModelStance()
    inv = Investigator(services, persistent=False)
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=2, top_documents=4)
    return inv, inv.run(claim, opts)


def test_on_subject_corpus_ends_insufficient_with_what_was_searched(tmp_path):
    # The fixture corpus is about vitamin D and respiratory infection, nothing on bone fractures:
    # the keyword stance scores "vitamin D supplementation reduced ..." as support all the same.
    claim = "Vitamin D supplementation prevents bone fractures"
    inv, result = _run(tmp_path, claim)
    assert result.status == "no_evidence", result.warnings
    assert result.finished_steps == ["analyse", "gather", "report"]  # no aspects built over off-claim text
    report = result.report
    assert report["verdict"]["weighted"]["label"] == "insufficient evidence"
    # the confidence is that of the least sure "not evidence" decision, not the uninformative 0.5
    state = inv.state(result.thread_id)
    decisions = list(state["screen"]["confidence"].values())
    assert report["verdict"]["confidence"] == pytest.approx(min(decisions), abs=1e-3)
    assert report["explanation"]["sentences"] == []  # nothing off-topic is cited as a finding
    gap = report["evidence_gap"]
    assert gap["subject"] == "Vitamin D supplementation" and gap["object"] == "bone fractures"
    assert gap["documents_read"] >= 1 and gap["on_subject"]
    text = " ".join(gap["summary"])
    assert "found nothing in" in text and "evidence on whether vitamin D supplementation prevents bone fractures" in text
    assert "not counted as evidence" in text and claim in text  # the searched queries are named
    assert "about vitamin D supplementation but not bone fractures" in text  # none mentions fractures
    assert any("addresses the claim's relation" in w for w in report["warnings"])
    # the documents read are shown with the screen's reading, not as unlabelled rows
    assert {d["local_label"] for d in report["documents"]} == {"No Evidence"}
    assert all(d["label_explanation"].startswith("Screened after gathering") for d in report["documents"])

    from claimscope.agent.report import Report, render_html, render_markdown

    md = render_markdown(Report.model_validate(report))
    assert "not counted as evidence" in md and "No explanation could be attributed" not in md
    html = render_html(Report.model_validate(report))
    assert "not counted as evidence" in html and "<code>claimscope ingest PATH --corpus NAME</code>" in html
    assert "(`claimscope ingest PATH --corpus NAME`)" in md  # a code span, not escaped backticks
    gap = Report.model_validate(report).evidence_gap
    hostile = gap.model_copy(update={"summary": ['e.g. "<script>x</script>" and `<b>`']})
    html = render_html(Report.model_validate(report).model_copy(update={"evidence_gap": hostile}))
    assert "<script>x" not in html and "<code>&lt;b&gt;</code>" in html


def test_same_corpus_with_thresholds_only_would_have_answered(tmp_path):
    # The contrast the learned decision makes: the thresholds alone count the topical sentences.
    _, result = _run(tmp_path, "Vitamin D supplementation prevents bone fractures", learned=False)
    assert result.status == "complete"
    assert result.report["evidence_gap"] is None


def test_on_claim_corpus_still_investigates(tmp_path):
    inv, result = _run(tmp_path, VITD)
    assert result.status == "complete", result.warnings
    state = inv.state(result.thread_id)
    assert state["screen"]["evidence"]
    assert result.report["verdict"]["weighted"]["label"] != "insufficient evidence"


def test_a_person_can_add_evidence_after_an_empty_screen(tmp_path):
    from claimscope.agent.graph.review import _apply_sources

    state = {"documents": {"101": {"corpus": "fixture", "found_by": ["claim"], "score": 0.5}},
             "screen": {"checked": 1, "evidence": [], "on_subject": ["101"], "labels": {"101": "NEI"}},
             "status": "no_evidence", "options": {"corpora": ["fixture"]}}

    class _Store:
        def get_documents(self, ids, corpus=None):
            from claimscope.tools.models import Document

            return [Document(id=i, title="t", sentences=["s"]) for i in ids if i == "103"]

        def find_by_doi(self, doi, corpus=None):
            return []

    class _Services:
        store = _Store()

    from claimscope.agent.graph.review import SourcesDecision

    update = _apply_sources(SourcesDecision(add=["103"]), state, _Services())
    assert update["screen"]["evidence"] == ["103"] and update["status"] == "running"


def test_off_subject_corpus_says_nothing_is_about_the_subject(tmp_path):
    _, result = _run(tmp_path, "Coffee consumption lowers the risk of type 2 diabetes")
    assert result.status == "no_evidence"
    gap = result.report["evidence_gap"]
    assert gap["on_subject"] == []
    text = " ".join(gap["summary"])
    assert "None of them is about coffee consumption." in text
    assert '.".' not in text  # a query's own full stop is not doubled inside the quotes


def test_evidence_min_probability_setting_moves_the_learned_bar(monkeypatch):
    """verdict.evidence_min_probability replaces the shipped least probability: an abstract under the
    shipped bar is not evidence, and is once a person lowers the bar below its probability."""
    import claimscope.agent.graph.screen as screen_mod
    from claimscope.agent.graph.screen import document_decision
    from claimscope.agent.settings import load_settings
    from claimscope.tools.models import Document

    on = ["Vitamin D supplementation reduced acute respiratory infections.", "Adverse events were rare."]
    _, conf, _, _ = decide(hand_model(), VITD, on, [SUP, NEU], title="Vitamin D trial")
    strict = hand_model().model_copy(update={"min_probability": min(1.0, conf + 0.01)})
    monkeypatch.setattr(screen_mod, "document_model_of", lambda scorer: strict)
    doc = Document(id="d1", title="Vitamin D trial", sentences=on)

    class Services:
        def __init__(self, bar):
            self.settings = load_settings(verdict={"evidence_min_probability": bar})
            self.stance = object()

    assert document_decision(VITD, doc, [SUP, NEU], Services(None)).label == "NEI"
    assert document_decision(VITD, doc, [SUP, NEU], Services(round(conf - 0.01, 4))).label == "SUPPORT"


def test_a_claim_acronym_is_covered_where_the_text_spells_it_out():
    from claimscope.tools.read.coverage import addresses, component_terms, coverage

    terms = component_terms("CR is associated with higher methylation age.")
    assert terms.acronyms == ["cr"]
    spelled = coverage(terms, ["Caloric restriction delays age-related methylation drift", "Mice were studied."])
    assert addresses(spelled)
    # only initials of consecutive words count, and the other end must still be there
    assert not addresses(coverage(terms, ["Restriction of calories and methylation age"]))
    assert not addresses(coverage(terms, ["Caloric restriction extends lifespan in mice"]))
    adhd = component_terms("ADHD medications increase cardiovascular risk in young adults.")
    assert coverage(adhd, ["Attention deficit hyperactivity disorder medications and cardiovascular events"
                           " in young adults"]).both == 1.0


def test_names_with_digits_or_lower_case_are_not_acronyms():
    from claimscope.tools.read.coverage import acronyms

    assert acronyms("IL6 and HeLa cells respond to NSAIDs in the UK.") == ["nsaid", "uk"]


def test_generic_or_stop_words_do_not_spell_out_an_acronym():
    from claimscope.tools.read.coverage import component_terms, coverage

    terms = component_terms("CR is associated with higher methylation age.")
    # "cancer risk" and "can reduce" have the initials but are no name for CR
    assert coverage(terms, ["Methylation age and cancer risk", "Diet can reduce methylation age"]).subject == 0.0
