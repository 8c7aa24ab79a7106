"""Free follow-up questions answered from the report's evidence, by rules: the facet a question asks
about (design, population, outcome, consistency, limitations, strength) from the report's evidence
table and labels, any other question from the report's sentences that share its topic, and "nothing
on that" when no sentence does. The model's tool choice is not asked for these, and a choice that
does not fit the question is not followed (the embedded model sent "what outcome was measured?" to
a study it picked, and "were any randomized trials among the evidence?" to a title search)."""

from __future__ import annotations

import re

import pytest

from claimscope.agent.chat import ChatEngine
from claimscope.agent.chat.free import free_facet
from claimscope.agent.llm import ActionChoice
from claimscope.agent.report import render
from claimscope.tools.appraise.study_design import Design, design_sentence
from tests.test_chat_answers import Router, _engine, _resolve

NO_EVIDENCE_CLAIM = "Coffee consumption causes pancreatic cancer"


@pytest.fixture(scope="module")
def evidence(tmp_path_factory) -> tuple[ChatEngine, Router]:
    router = Router(ActionChoice(tool="study_findings", arguments={"study": "vitamin D"}))
    return _engine(tmp_path_factory.mktemp("free"), router), router


@pytest.fixture(scope="module")
def nothing(tmp_path_factory) -> ChatEngine:
    router = Router(ActionChoice(tool="show_sources", arguments={"stance": "neutral"}))
    return _engine(tmp_path_factory.mktemp("free-none"), router, claim=NO_EVIDENCE_CLAIM)


def _ask(engine: ChatEngine, question: str):
    return engine.call(*engine.route(question))


@pytest.mark.parametrize(("question", "facet"), [
    ("What populations were studied?", "population"), ("How strong is the evidence overall?", "strength"),
    ("Were any randomized trials among the evidence?", "design"), ("What kinds of studies were there?", "design"),
    ("What are the main limitations of the evidence?", "limitations"), ("What outcome was measured?", "outcome"),
    ("Is the effect consistent across the studies?", "consistency"), ("Are the results mixed?", "consistency"),
    ("How many participants were there?", "sample_size"), ("What interventions were compared?", "intervention"),
    # a facet word with a topic of its own asks about the topic
    ("What about bolus doses?", None), ("Is the effect seen in infants?", None),
])
def test_the_facet_a_free_question_asks_about(question: str, facet: str | None) -> None:
    assert free_facet(question) == facet


def test_facet_questions_are_answered_from_the_report_without_the_model(evidence) -> None:
    engine, router = evidence
    before = router.asked
    for question in ("What populations were studied?", "Were any randomized trials among the evidence?",
                     "What outcome was measured?", "Is the effect consistent across the studies?",
                     "How strong is the evidence overall?", "What are the main limitations of the evidence?"):
        assert engine.route(question)[0] == "ask_evidence", question
    assert router.asked == before


def test_a_design_question_answers_yes_or_no_from_the_evidence_table(evidence) -> None:
    engine, _ = evidence
    rct = _ask(engine, "Were any randomized trials among the evidence?").text.splitlines()
    assert rct[0] == "Yes: 1 of the 5 sources that give evidence on the claim is an RCT:"
    assert rct[1].startswith("- 102 Monthly high-dose vitamin D") and rct[1].endswith("named in its title")
    animal = _ask(engine, "Were any animal studies included?").text.splitlines()
    assert animal[0].startswith("No: none of the 5 sources that give evidence on the claim is an animal study "
                                "(they are ")


def test_a_population_answer_cites_the_sentence_that_states_it(evidence) -> None:
    engine, _ = evidence
    reply = _ask(engine, "What populations were studied?")
    assert reply.text.startswith("Of the 5 sources that give evidence on the claim, 3 state who was studied:")
    line = next(x for x in reply.text.splitlines() if x.startswith("- 102 "))
    assert "healthy adults" in line and line.endswith("[102#1]")
    assert _resolve(engine, reply.citations) and "[]" not in reply.text


def test_consistency_counts_the_directions_and_quotes_each_finding(evidence) -> None:
    engine, _ = evidence
    reply = _ask(engine, "Is the effect consistent across the studies?")
    lines = reply.text.splitlines()
    assert lines[0] == "No: of the 5 sources that give evidence on the claim, 3 support it and 2 oppose it."
    quoted = [x for x in lines if x.startswith("- ")]
    assert len(quoted) == 5 and all(re.search(r': ".+" \[\d+#\d+\]$', x) for x in quoted)
    assert _resolve(engine, reply.citations)


def test_a_topic_question_quotes_only_sentences_on_its_topic(evidence) -> None:
    engine, router = evidence
    before = router.asked
    # the model would send this to a study of its choice; the question names no study
    reply = _ask(engine, "Is the effect seen in infants?")
    assert router.asked == before + 1 and reply.tool == "ask_evidence"
    # the sentence that names infants first, then one of the infants study whose title does
    assert reply.citations == ["105#0", "105#1"] and "infants" in reply.text.splitlines()[1]
    partly = _ask(engine, "Is the effect seen in infants with tuberculosis?")
    assert partly.citations == ["105#0", "105#1"]
    assert partly.text.splitlines()[-1] == "No sentence of the report's documents mentions 'tuberculosis'."


def test_a_question_the_report_holds_nothing_on_says_so(evidence) -> None:
    engine, _ = evidence
    reply = _ask(engine, "Does it work for tuberculosis?")
    assert reply.text.startswith("The report's sources say nothing on that: no sentence of its 5 documents "
                                 "mentions 'tuberculosis'.")
    assert not reply.citations


def test_free_questions_on_a_report_without_evidence_say_so_first(nothing) -> None:
    engine = nothing
    n = len(engine._report()["documents"])
    none = f"None of the {n} documents in the report gives evidence on the claim"
    outcome = _ask(engine, "What outcome was measured?")
    assert outcome.text.startswith(none) and _resolve(engine, outcome.citations or ["101#0"])
    same = _ask(engine, "Is the effect consistent across the studies?").text
    assert same == f"{none} (the verdict is 'insufficient evidence'), so there is no effect to compare across studies."
    rct = _ask(engine, "Were any randomized trials among the evidence?").text.splitlines()
    assert rct[0] == f"No: none of the {n} documents in the report gives evidence on the claim (the verdict is " \
                     "'insufficient evidence')."
    assert any(x.startswith("- 102 ") for x in rct)
    people = _ask(engine, "What populations were studied?")
    assert people.text.startswith(none) and _resolve(engine, people.citations)


def test_the_sentence_that_names_a_design() -> None:
    sentences = ["Background.", "Patients were randomly assigned to vitamin D or placebo.", "Mice were fed."]
    assert design_sentence(Design.RCT, sentences) == 1
    assert design_sentence(Design.ANIMAL, sentences) == 2
    assert design_sentence(Design.COHORT, sentences) is None


def test_the_opposite_claims_search_is_answered_in_the_reports_own_figures(evidence) -> None:
    """Readers could not check "found 6 of 56 documents" against the report: the report now says
    what the opposite claim's search alone found, and the answer states the same figures."""
    engine, _ = evidence
    report = engine._report()
    found = report["anti_claim_found"]
    line = next(x for x in render(report, "md").splitlines() if x.startswith("*Found only by the opposite"))
    reply = engine.call(*engine.route("What does the anti-claim search add?"))
    if found["only"]:
        assert f"{found['only']} of the {found['gathered']} documents gathered" in line
        assert f"found {found['only']} of the {found['gathered']} documents gathered" in reply.text
    else:
        assert line.endswith(f"none of the {found['gathered']} documents gathered  ")
        assert reply.text.endswith("so it added nothing to the verdict.")


def _evidence(views: list[dict], sentences: dict[str, list[str]]):
    from claimscope.agent.chat.report_evidence import ReportEvidence
    from claimscope.tools.models import Document

    report = {"documents": views, "verdict": {"weighted": {"label": "insufficient evidence"}, "confidence": 0.3}}
    return ReportEvidence(report, lambda ids: {d: Document(id=d, title=d, sentences=sentences.get(d, [])) for d in ids},
                          lambda view: [])


@pytest.mark.parametrize("question", ["What outcome was measured?", "Were any randomized trials among the evidence?",
                                      "Is the effect consistent across the studies?", "What populations were studied?",
                                      "What are the main limitations of the evidence?", "What kinds of studies were there?"])
def test_one_document_is_said_as_one(question: str) -> None:
    """'None of the 1 document in the report gives evidence' read as a slip."""
    from claimscope.agent.chat.free import answer_free

    one = _evidence([{"id": "d1", "title": "A cohort of smokers", "local_label": "No Evidence",
                      "direction": "no evidence", "design": "cohort"}], {"d1": ["Smokers were followed for 5 years."]})
    text = answer_free(question, one).text
    assert "of the 1 " not in text and "1 documents" not in text and "the other" not in text, text
    assert text.startswith(("The report's one document gives no evidence on the claim", "No: the report's one document",
                            "What the report shows")), text


def test_one_source_with_evidence_is_said_as_one() -> None:
    from claimscope.agent.chat.free import answer_free

    one = _evidence([{"id": "d1", "title": "Cells", "local_label": "True", "direction": "supports", "design": "in_vitro"},
                     {"id": "d2", "title": "Other", "local_label": "No Evidence", "direction": "no evidence"}], {})
    assert answer_free("Were any randomized trials among the evidence?", one).text.splitlines() == [
        "No: the one source that gives evidence on the claim is not an RCT (it is an in vitro study).",
        "The other document read is not an RCT either."]


def test_a_report_written_before_it_counted_the_opposite_search_is_answered_in_the_same_figures(
        evidence, monkeypatch) -> None:
    """A stored report without anti_claim_found: the chat counts from the state as the report does."""
    engine, _ = evidence
    state = engine._state()
    now = engine.anti_claim_contribution().text
    older = {**state, "report": {k: v for k, v in state["report"].items() if k != "anti_claim_found"}}
    monkeypatch.setattr(engine, "_state", lambda: older)
    assert engine.anti_claim_contribution().text == now
    # one of the report's documents found by the opposite claim's search alone is counted and named
    first = state["report"]["documents"][0]["id"]
    older["documents"] = {**state["documents"], first: {**state["documents"][first], "found_by": ["anti_claim"]}}
    lines = engine.anti_claim_contribution().text.splitlines()
    assert f"found 1 of the {len(state['documents'])} documents gathered" in lines[0]
    assert lines[0].endswith("; it is among the report's documents:") and lines[1].startswith(f"- {first} ")


@pytest.mark.parametrize("question", ["Were any randomized trials among the evidence?", "What kinds of studies were there?",
                                      "Is the effect consistent across the studies?", "How strong is the evidence overall?"])
def test_a_list_cut_short_says_how_many_more_there_are(question: str) -> None:
    """'all 8 sources support it' above six of them read as if two were missing."""
    from claimscope.agent.chat.free import answer_free

    many = _evidence([{"id": f"d{i}", "title": f"Trial {i}", "local_label": "True", "direction": "supports",
                       "design": "rct"} for i in range(8)], {})
    lines = answer_free(question, many).text.splitlines()
    assert sum(x.startswith("- ") for x in lines) == 6 and "(and 2 more)" in lines, lines


def test_a_question_on_observational_studies_names_one_as_one() -> None:
    """'is not an observational studie': the singular was the plural with its last letter cut."""
    from claimscope.agent.chat.free import answer_free

    one = _evidence([{"id": "d1", "title": "Trial", "local_label": "True", "direction": "supports", "design": "rct"}], {})
    assert answer_free("Were any observational studies included?", one).text == (
        "No: the one source that gives evidence on the claim is not an observational study (it is an RCT).")
    cohort = _evidence([{"id": "d1", "title": "A cohort", "local_label": "True", "direction": "supports",
                         "design": "cohort"}, {"id": "d2", "title": "Trial", "local_label": "True",
                                               "direction": "supports", "design": "rct"}], {})
    assert answer_free("Were any observational studies included?", cohort).text.splitlines()[0] == (
        "Yes: 1 of the 2 sources that give evidence on the claim is an observational study:")


def test_one_source_of_evidence_is_said_in_the_singular() -> None:
    """'They are 1 in vitro study.' answered "How strong is the evidence overall?"; the same slip of
    a count pasted before a plural: 'The other 1 document read', 'its 1 document', '1 participants'."""
    from claimscope.agent.chat.free import answer_free

    views = [{"id": "d1", "title": "Cells", "local_label": "True", "direction": "supports", "design": "in_vitro",
              "sample_size": 1},
             {"id": "d2", "title": "Other", "local_label": "No Evidence", "direction": "no evidence",
              "design": "narrative_review"}]
    one = _evidence(views, {"d1": ["Cells migrated less.", "We describe the case of a 45-year-old woman."],
                            "d2": ["Neutrophils are reviewed."]})
    strength = answer_free("How strong is the evidence overall?", one).text.splitlines()
    assert strength[1] == "It is an in vitro study."
    kinds = answer_free("What kinds of studies were there?", one).text.splitlines()
    assert kinds[-1] == "The other document read (no evidence on the claim) is a narrative review."
    only = _evidence(views[:1], {"d1": ["Cells migrated less."]})
    assert answer_free("What kinds of studies were there?", _evidence(views[1:], {})).text.splitlines()[-1] == (
        "The one document read (no evidence on the claim) is a narrative review.")
    assert "no sentence of its one document mentions 'zebrafish'" in answer_free("What about zebrafish?", only).text
    limits = answer_free("What are the main limitations of the evidence?", one).text
    assert "- d1 Cells (True) had 1 participant. [d1#1]" in limits.splitlines()
    several = _evidence([views[0], {**views[0], "id": "d3", "design": "rct"}], {})
    assert answer_free("How strong is the evidence overall?", several).text.splitlines()[1] == (
        "They are 1 RCT and 1 in vitro study.")


def test_the_limitations_bullets_end_alike() -> None:
    """One bullet of the limitations ended with a full stop, the others ('p3405 untitled (Mostly True)
    is of a design the report does not state') without."""
    from claimscope.agent.chat.free import answer_free

    views = [{"id": "p3405", "title": "", "opening": "A school breakfast gives all students an equal…",
              "local_label": "Mostly True", "direction": "supports"},
             {"id": "p23792", "title": "", "local_label": "Mostly True", "direction": "supports",
              "design": "narrative_review", "retracted": True}]
    lines = answer_free("What are the main limitations of the evidence?", _evidence(views, {})).text.splitlines()
    bullets = [x for x in lines if x.startswith("- ")]
    assert len(bullets) >= 4 and all(x.endswith(".") for x in bullets), bullets
    assert '- p3405 "A school breakfast gives all students an equal…" (Mostly True) is of a design the report ' \
           "does not state." in bullets
    assert "- p23792 (untitled) (Mostly True) is a narrative review." in bullets


def test_a_population_is_cited_to_a_sentence_about_the_study_never_to_background() -> None:
    from claimscope.agent.chat.free import answer_free

    ev = _evidence([{"id": "d1", "title": "Rehabilitation", "local_label": "True", "direction": "supports",
                     "population": "COPD patients"}],
                   {"d1": ["BACKGROUND: Recent studies show that COPD patients lose muscle strength.",
                           "METHODS: We enrolled 120 COPD patients in a rehabilitation programme."]})
    answer = answer_free("What populations were studied?", ev)
    assert answer.citations == ["d1#1"], answer.text


def test_a_randomised_trial_is_cited_to_its_own_design_sentence_not_to_other_work() -> None:
    from claimscope.agent.chat.free import answer_free

    ev = _evidence([{"id": "d1", "title": "Drug X", "local_label": "True", "direction": "supports", "design": "rct"}],
                   {"d1": ["Previous research found that randomised trials comparing these treatments are lacking.",
                           "We randomly assigned 200 adults to drug X or placebo."]})
    assert answer_free("How many randomised trials are there?", ev).citations == ["d1#1"]


def test_an_outcome_answer_names_an_outcome_only_where_the_cell_is_one() -> None:
    from claimscope.agent.chat.free import answer_free

    ev = _evidence([{"id": "d1", "title": "Beta-blockers", "local_label": "True", "direction": "supports",
                     "population": "patients with acute myocardial infarction", "outcome": "acute myocardial infarction"},
                    {"id": "d2", "title": "Hygiene", "local_label": "True", "direction": "supports",
                     "outcome": "care providers"}],
                   {"d1": ["We studied 1,200 patients with acute myocardial infarction."]})
    text = answer_free("What outcome was measured?", ev).text
    assert text == ("None of the 2 sources that give evidence on the claim states an outcome: no sentence of their "
                    "abstracts says what was measured."), text


# Follow-up readers rejected outcomes copied from the evidence table's cell: the exposure ("such as
# placental weight", a fragment besides), the population ("acute myocardial infarction" for a study
# of switching drugs), a narrative review's recommendation ("providing a palliative care"), and
# the respondents' providers where the MAIN OUTCOME MEASURES sentence named their experience.
def _outcome_views() -> list[dict]:
    return [
        {"id": "c1", "title": "Placental size and later maternal breast cancer", "local_label": "No Evidence",
         "direction": "no evidence", "design": "cohort", "population": "women who gave birth",
         "intervention": "breast cancer", "outcome": "such as placental weight"},
        {"id": "c2", "title": "Switching antiplatelet agents in acute myocardial infarction", "local_label": "No Evidence",
         "direction": "no evidence", "design": "cohort", "population": "myocardial infarction patients",
         "outcome": "acute myocardial infarction"},
        {"id": "c3", "title": "Building up community palliative care", "local_label": "No Evidence",
         "direction": "no evidence", "design": "narrative_review", "outcome": "providing a palliative care"},
        {"id": "c4", "title": "Night-time clinic users and their providers", "local_label": "No Evidence",
         "direction": "no evidence", "design": "cross_sectional", "outcome": "providers of night-time clinic care"},
    ]


OUTCOME_ABSTRACTS = {
    "c1": ["BACKGROUND Placental hormones may affect the breast.",
           "OBJECTIVE To study markers of hormone exposure, such as placental weight and parity, and maternal risk "
           "of breast cancer.",
           "DESIGN Cohort study of 40,000 women who gave birth in two regions.",
           "MAIN OUTCOME MEASURE Incidence of invasive breast cancer.",
           "RESULTS Heavier placentas went with more breast cancer."],
    "c2": ["AIMS Little is known about how often antiplatelet agents are switched in acute myocardial infarction.",
           "METHODS AND RESULTS We studied 9,000 myocardial infarction patients in 200 hospitals.",
           "Cox regression was used to compare one-year risks of major bleeding between switching and continuing "
           "the first agent.",
           "Switching was not associated with more bleeding."],
    "c3": ["Most people with cancer wish to die at home.",
           "Community nurses can lead the way in providing a palliative care approach for frail patients.",
           "Such care deserves better funding."],
    "c4": ["OBJECTIVE To describe the experience of users of night-time clinics.",
           "MAIN OUTCOME MEASURES Associations between age (in years) and provider type (public or private) and "
           "users' experience of night-time clinic care (waiting, trust), rated on a scale of 0-100.",
           "RESULTS Private providers of night-time clinic care were rated lower."],
}


def test_an_outcome_is_quoted_from_the_sentence_that_states_what_was_measured() -> None:
    from claimscope.agent.chat.free import answer_free

    answer = answer_free("What outcome was measured?", _evidence(_outcome_views(), OUTCOME_ABSTRACTS))
    lines = answer.text.splitlines()
    assert lines[2:5] == [
        "- c1 Placental size and later maternal breast cancer (No Evidence): Incidence of invasive breast cancer [c1#3]",
        "- c2 Switching antiplatelet agents in acute myocardial infarction (No Evidence): one-year risks of major "
        "bleeding [c2#2]",
        "- c4 Night-time clinic users and their providers (No Evidence): users' experience of night-time clinic care "
        "[c4#1]"], lines
    # the narrative review is said to state none, in one line, and given no outcome
    assert lines[5] == ("c3 Building up community palliative care (No Evidence) states no outcome: no sentence of its "
                        "abstract says what was measured."), lines
    assert lines[1] == "Of the 4 documents it read, 3 state what was measured:"
    assert "such as" not in answer.text and "providing" not in answer.text and answer.citations == [
        "c1#3", "c2#2", "c4#1"]


def test_a_sample_size_is_cited_to_the_sentence_that_counts_it_or_not_said() -> None:
    """'COPD patients (n = 96)' cited a sentence without the 96; '18 participants' cited 'Five hundred
    six adult (>=18 years) smokers were randomized'."""
    from claimscope.agent.chat.free import answer_free

    views = [{"id": "s1", "title": "Serum markers and lung function", "local_label": "True", "direction": "supports",
              "design": "cohort", "population": "COPD patients", "sample_size": 96},
             {"id": "s2", "title": "Two drugs to quit smoking", "local_label": "False", "direction": "opposes",
              "design": "rct", "population": "cigarette smokers", "sample_size": 18}]
    ev = _evidence(views, {
        "s1": ["We related serum markers to the decline of lung function in COPD patients.",
               "METHODS Serum markers were measured in 96 COPD patients."],
        "s2": ["Five hundred six adult (\u226518 years) cigarette smokers were randomly assigned.",
               "Abstinence was higher with the two drugs."]})
    people = answer_free("What populations were studied?", ev)
    line = next(x for x in people.text.splitlines() if x.startswith("- s1 "))
    assert line.endswith("COPD patients (n = 96) [s1#0, s1#1]"), line
    assert "(n = 18)" not in people.text
    size = answer_free("How many participants were there?", ev).text.splitlines()
    assert size[0] == "Of the 2 sources that give evidence on the claim, 1 states how many took part:"
    assert size[1].endswith(": n = 96 [s1#1]") and not any("18" in x for x in size), size
    limits = answer_free("What are the main limitations of the evidence?", ev).text
    assert "had 96 participants. [s1#1]" in limits and "18 participants" not in limits, limits
