"""The analysis a reader keeps: the text guard on model-written fields (and its fallbacks), aspects
grown only from segments that address the claim, per-aspect labels that need evidence, and
perspective summaries and explanations traced to what they cite."""

from __future__ import annotations

import pytest

from claimscope.agent.llm.fake import scripted_llm
from claimscope.prompts import perspective as perspective_prompt
from claimscope.prompts.anti_claim import PROMPT as ANTI_PROMPT
from claimscope.prompts.anti_claim import AntiClaimInput
from claimscope.tools.explain import (
    LocalAssessment,
    Perspective,
    check_perspective,
    findings_explanation,
    perspective_summary,
    sentence_lookup,
)
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Document, Stance
from claimscope.tools.read.hierarchy import ROOT_ID, AspectDraft, AspectTree, propose_aspects
from claimscope.tools.text.text_guard import (
    copied_from,
    name_problems,
    output_problems,
    text_problems,
    tidy_name,
)
from claimscope.tools.weigh.verdict import GlobalLabel, LocalLabel, aspect_consensus
from tests.fakes import CannedLLM, KeywordStance
from tests.investigation_fixtures import CLAIM, investigation_script, make_services

LOOP = ("The recommended doses are insufficient to prevent respiratory infections. "
        "The recommended doses are insufficient to prevent respiratory infections.")

# ---------------------------------------------------------------------------------------------
# the guard


def test_guard_names_repetition_script_echo_and_length():
    assert text_problems("Daily vitamin D lowered infections (OR 0.88). Bolus doses did not.") == []
    assert any("repeats the sentence" in p for p in text_problems(LOOP))
    assert any("repeats the phrase" in p
               for p in text_problems("the risk of infection was lower and the risk of infection was lower still"))
    assert any("repeats the phrase" in p for p in text_problems("lower lower lower lower"))
    mixed = text_problems("Doses are insufficient to prevent respiratory感染.", reference=CLAIM)
    assert any("cjk" in p for p in mixed)
    # the claim's own script is at home, and Greek letters are in any scientific text
    assert text_problems("维生素D补充剂", reference="维生素D补充剂可以预防呼吸道感染") == []
    assert text_problems("TNF-α and IL-1β levels fell.", reference=CLAIM) == []
    assert text_problems("a" * 20, max_chars=10) == ["longer than 10 characters"]
    assert any("echoes" in p for p in text_problems(
        "You restate one sentence from a scientific abstract as one plain English sentence.",
        instructions="You restate one sentence from a scientific abstract as one plain English sentence for a reader."))


def test_output_problems_names_the_field():
    from claimscope.prompts.perspective import prompt_for

    out = prompt_for(2).output_model.model_validate({"citations": [1], "summary": LOOP})
    problems = output_problems(out, reference=CLAIM)
    assert set(problems) == {"summary"} and problems["summary"][0].startswith("repeats the sentence")


def test_aspect_names_are_phrases_and_descriptions_are_not_copies():
    assert tidy_name("vitamin-d-level") == "vitamin d level"
    assert tidy_name("dual_use_biotechnology") == "dual use biotechnology"
    assert tidy_name("25-hydroxyvitamin D") == "25-hydroxyvitamin D"
    assert name_problems("baseline vitamin d status") == []
    assert name_problems("The 25OHD level was significantly higher (p=0.018)")
    assert name_problems("one two three four five six seven eight nine")
    source = ("The 25OHD level was significantly higher in those with prior fragility fractures (p=0.018) "
              "and osteoporosis (p=0.008).")
    assert copied_from("The 25OHD level was significantly higher in those with prior fractures.", [source])
    assert copied_from("vitamin d level", [source]) is None  # a short phrase drawn from an excerpt is fine
    assert copied_from("How baseline deficiency changes the effect of daily doses.", [source]) is None


def test_subaspect_drafts_are_tidied_and_copied_descriptions_rewritten():
    excerpt = ("The bone markers evaluated had a significant inverse correlation with the radius BMD "
               "in postmenopausal women.")
    llm = CannedLLM({"subaspects": [{"aspects": [
        {"name": "vitamin-d-level", "description": excerpt, "keywords": ["bmd"]},
        {"name": "bone markers fell (p=0.01)", "description": "x",
         "keywords": ["bone"]},
        {"name": "dosing interval", "description": "Whether daily or monthly doses differ.", "keywords": ["daily"]},
    ]}]})
    tree = AspectTree.new(CLAIM)
    parent = tree.add_children(ROOT_ID, [AspectDraft(name="dose", description="Dose and schedule.")])[0]
    drafts = propose_aspects(CLAIM, llm, k=3, parent=parent, ancestors=tree.ancestors(parent.id), segments=[excerpt])
    assert [d.name for d in drafts] == ["vitamin d level", "dosing interval"]
    assert drafts[0].description != excerpt and "vitamin d level" in drafts[0].description
    assert drafts[1].description == "Whether daily or monthly doses differ."


# ---------------------------------------------------------------------------------------------
# regeneration through the real gateway, then the caller's fallback


def test_gateway_regenerates_a_degenerate_answer_once():
    llm = scripted_llm({"anti_claim": [{"anti_claim": LOOP}, {"anti_claim": "Vitamin D does not prevent them."}]})
    out = llm.run(ANTI_PROMPT, AntiClaimInput(claim=CLAIM))
    assert out.anti_claim == "Vitamin D does not prevent them."
    usage = llm.usage.by_prompt["anti_claim"]
    assert (usage.regenerated, usage.degenerate_fields, usage.fell_back) == (1, 1, 0)
    assert usage.calls == 2 and usage.text_fields >= 1


def test_gateway_raises_when_the_second_answer_degenerates_too():
    llm = scripted_llm({"anti_claim": [{"anti_claim": LOOP}]})
    with pytest.raises(LLMError, match="degenerate text"):
        llm.run(ANTI_PROMPT, AntiClaimInput(claim=CLAIM))
    assert llm.usage.by_prompt["anti_claim"].fell_back == 1


def test_guard_can_be_turned_off(tmp_path):
    from claimscope.agent.llm import build_gateway
    from claimscope.agent.settings import load_settings

    settings = load_settings(data_dir=tmp_path, llm={"guard_text": False})
    assert build_gateway(settings).guard_text is False


def test_a_degenerate_perspective_falls_back_to_the_quote_with_a_warning():
    llm = scripted_llm({"perspective": [{"citations": [1], "summary": "Doses prevent respiratory感染."}]})
    segs = [("d1#0", "Daily vitamin D reduced acute respiratory infections.")]
    p = perspective_summary(CLAIM, "dosing", Stance.SUPPORT, segs, llm)
    assert p.mode == "extractive" and p.summary == segs[0][1] and "degenerate" in (p.warning or "")


# ---------------------------------------------------------------------------------------------
# attribution of perspectives and findings

DOC = Document(id="d1", title="Vitamin D and infections", sentences=[
    "Daily vitamin D supplementation reduced acute respiratory infections in children.",
    "Monthly bolus doses had no effect on respiratory infections.",
])
GET = sentence_lookup([DOC])


def test_an_unsupported_perspective_sentence_is_removed_and_an_empty_one_quoted():
    stance = KeywordStance()
    segs = [("d1#0", DOC.sentences[0])]
    p = Perspective(stance=Stance.SUPPORT, summary="Daily vitamin D supplementation reduced acute respiratory "
                    "infections in children. Coffee improves sleep quality overall.", citations=["d1#0"])
    kept = check_perspective(p, segs, GET, stance)
    assert kept.summary.startswith("Daily vitamin D") and "Coffee" not in kept.summary
    assert (kept.sentences_checked, kept.sentences_supported) == (2, 1) and kept.warning
    wrong = Perspective(stance=Stance.SUPPORT, summary="Coffee improves sleep quality overall.", citations=["d1#0"])
    quoted = check_perspective(wrong, segs, GET, stance)
    assert quoted.mode == "extractive" and quoted.summary == DOC.sentences[0] and quoted.sentences_supported == 0


def _assessment() -> LocalAssessment:
    return LocalAssessment(doc_id="d1", label=LocalLabel.MOSTLY_TRUE, score=0.66, cited_sentences=[0],
                           explanation="Daily doses helped.")


def test_findings_restate_each_chosen_sentence_or_quote_it():
    faithful = CannedLLM({"finding": lambda inp: {"finding": f"The study found that {inp.sentence[0].lower()}"
                                                  f"{inp.sentence[1:]}"}})
    ex = findings_explanation(CLAIM, [_assessment()], faithful, get_sentence=GET, scorer=KeywordStance(),
                              titles=lambda d: DOC.title)
    assert ex.mode == "llm" and [s.citations for s in ex.sentences] == [["d1#0"]]
    assert ex.sentences[0].text.startswith("The study found that daily vitamin D")
    assert faithful.calls[0][1].title == DOC.title
    unfaithful = CannedLLM({"finding": [{"finding": "The study found that coffee improves sleep quality."}]})
    quoted = findings_explanation(CLAIM, [_assessment()], unfaithful, get_sentence=GET, scorer=KeywordStance())
    assert quoted.mode == "extractive" and quoted.sentences[0].text == DOC.sentences[0]
    failing = CannedLLM({})
    assert findings_explanation(CLAIM, [_assessment()], failing, get_sentence=GET,
                                scorer=KeywordStance()).sentences[0].text == DOC.sentences[0]


# ---------------------------------------------------------------------------------------------
# per-aspect labels need evidence


def test_one_segment_does_not_make_an_aspect_generally_supported():
    # graded as the verdict grades one document, and marked as resting on too little to settle
    one = aspect_consensus([(Stance.SUPPORT, 1.0), (Stance.NEUTRAL, 1.0)], min_evidence=2)
    assert one.label is GlobalLabel.LEANING_SUPPORTED and one.thin and one.score == 1.0
    two = aspect_consensus([(Stance.SUPPORT, 1.0), (Stance.SUPPORT, 0.5)], min_evidence=2)
    assert two.label is GlobalLabel.GENERALLY_SUPPORTED and not two.thin
    # two sentences of one abstract are one study
    same = [(Stance.SUPPORT, 1.0, "d1"), (Stance.SUPPORT, 0.5, "d1")]
    assert aspect_consensus(same, min_evidence=2, min_documents_generally=2).label is GlobalLabel.LEANING_SUPPORTED
    apart = [(Stance.SUPPORT, 1.0, "d1"), (Stance.SUPPORT, 0.5, "d2")]
    assert aspect_consensus(apart, min_evidence=2, min_documents_generally=2).label is GlobalLabel.GENERALLY_SUPPORTED
    neutral = aspect_consensus([(Stance.NEUTRAL, 1.0, "d1")], min_evidence=2)
    assert neutral.label is GlobalLabel.INSUFFICIENT and neutral.thin
    with pytest.raises(Exception, match="min_node_evidence"):
        aspect_consensus([], min_evidence=0)


def test_report_shows_counts_not_a_score_for_an_aspect_without_enough_evidence():
    from claimscope.agent.report import NodeConsensus
    from claimscope.agent.report.common import _node_counts

    c = NodeConsensus.from_consensus(aspect_consensus([(Stance.SUPPORT, 1.0)], min_evidence=2))
    assert _node_counts(c) == "+1 / =0 / -0"


# ---------------------------------------------------------------------------------------------
# the tree through the graph


def test_an_off_claim_subaspect_is_rejected_and_kept_segments_address_the_claim(tmp_path):
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from claimscope.tools.read.relevance import RelationTest, addresses_claim

    script = investigation_script()
    script["aspects"] = [{"aspects": [
        {"name": "dosing regimen", "description": "Daily, weekly or bolus vitamin d supplementation doses",
         "keywords": ["daily", "bolus"]},
    ]}]
    script["subaspects"] = [{"aspects": [
        {"name": "daily dosing", "description": "Daily vitamin d supplementation and respiratory infections",
         "keywords": ["daily"]},
        {"name": "radius bone density", "description": "Radius bone mineral density and fracture markers",
         "keywords": ["bone"]},
    ]}]
    services = make_services(tmp_path, script=script)
    inv = Investigator(services, persistent=False)
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=2, top_k_aspects=3, top_documents=6)
    result = inv.run(CLAIM, opts)
    assert result.status == "complete", result.warnings
    nodes = {n["name"]: n for n in result.report["hierarchy"]["nodes"]}
    assert "radius bone density" not in nodes
    assert any("rejected" in w and "radius bone density" in w for w in result.report["warnings"])
    state = inv.state(result.thread_id)
    test = RelationTest(CLAIM)
    tree = AspectTree.model_validate(state["tree"])
    keys = [k for n in tree.walk() for k in n.segment_keys]
    assert keys
    for seg in services.store.get_segments(keys):
        assert addresses_claim(test, seg), seg.text
    # the explanation was written finding by finding, every sentence traced to what it cites
    expl = result.report["explanation"]
    assert expl["sentences"] and all(s["status"] == "supported" for s in expl["sentences"])
    assert (state.get("usage") or {}).get("finding", {}).get("calls", 0) >= 1


def test_perspectives_are_attribution_checked_in_the_graph(tmp_path):
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator

    script = investigation_script()
    script["perspective"] = [{"citations": [1], "summary": "Coffee improves sleep quality overall."}]
    services = make_services(tmp_path, script=script, hierarchy={"perspective_summaries": "written"})
    inv = Investigator(services, persistent=False)
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=3, top_documents=6)
    result = inv.run(CLAIM, opts)
    state = inv.state(result.thread_id)
    persp = list((state.get("perspectives") or {}).values())
    assert persp and all(p["mode"] == "extractive" and "Coffee" not in p["summary"] for p in persp)


def test_perspectives_quote_their_findings_by_default(tmp_path):
    """The default perspective is the aspect's firmest findings in their own words, each citing itself:
    the model is not asked, so it cannot add a cause, drop a hedge or generalise."""
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from claimscope.tools.read.claim_worthiness import is_finding
    from claimscope.tools.text.segmenter import without_section_label

    script = investigation_script()
    script["perspective"] = [{"citations": [1], "summary": "Coffee improves sleep quality overall."}]
    services = make_services(tmp_path, script=script, hierarchy={"aspects": "proposed"})
    inv = Investigator(services, persistent=False)
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=3, top_documents=6)
    state = inv.state(inv.run(CLAIM, opts).thread_id)
    persp = list((state.get("perspectives") or {}).values())
    assert persp
    for p in persp:
        cited = [s.text for s in services.store.get_segments(p["citations"])]
        assert 1 <= len(cited) <= 2 and all(is_finding(t) for t in cited)
        assert p["summary"] == " ".join(" ".join(without_section_label(t).split()) for t in cited)
    assert "perspective" not in (state.get("usage") or {})


@pytest.mark.parametrize("bad", [LOOP, "Vitamin D 预防 infections."])
def test_perspective_prompt_answers_that_degenerate_are_never_shown(bad):
    llm = scripted_llm({"perspective": [{"citations": [1], "summary": bad}]})
    segs = [("d1#0", DOC.sentences[0])]
    p = perspective_summary(CLAIM, "dosing", Stance.SUPPORT, segs, llm,
                            max_segments=perspective_prompt.MAX_SEGMENTS)
    assert p.summary == DOC.sentences[0]



def test_an_aspect_shows_only_the_segments_its_counts_are_made_of():
    from claimscope.agent.assemble import _hierarchy

    tree = AspectTree.new(CLAIM)
    tree.add_children("root", [AspectDraft(name="dosing"), AspectDraft(name="season")])
    # ranked under "dosing" while the tree was built, then classified to "season" (d1) or nowhere (d2)
    tree.nodes["1"].segment_keys, tree.nodes["1"].segment_scores = ["d1#0", "d2#0"], [0.9, 0.8]
    state = {"tree": tree.model_dump(mode="json"), "assignments": {"d1#0": "2"},
             "stances": {"d1#0": {"label": "refute", "support": 0.1, "neutral": 0.1, "refute": 0.8},
                         "d2#0": {"label": "support", "support": 0.8, "neutral": 0.1, "refute": 0.1}}}
    nodes = {n.name: n for n in _hierarchy(state, lambda key: f"text of {key}", {"d1": "cohort", "d2": "rct"}).nodes}
    assert nodes["dosing"].top_segments == [] and nodes["dosing"].designs == ""
    assert [(s.doc_id, s.stance.value) for s in nodes["season"].top_segments] == [("d1", "refute")]
    assert nodes["season"].designs == "1 cohort study opposes"
    assert [s.doc_id for s in nodes[CLAIM].top_segments] == ["d1"]
