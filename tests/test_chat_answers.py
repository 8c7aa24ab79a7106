"""The chat's templated answers on the fixture investigation: which sources point which way (in the
words a reader uses), what a named study found, why an aspect is disputed, the depth bound of "go
deeper", and routing that answers these without the model."""

from __future__ import annotations

import re
from typing import Any

import pytest

from claimscope.agent.chat import ChatEngine, direction_in, keyword_route
from claimscope.agent.chat import engine as chat_engine
from claimscope.agent.graph.readers import sentence_lookup
from claimscope.agent.investigation import Investigator
from claimscope.agent.llm import ActionChoice
from tests.investigation_fixtures import (
    CLAIM,
    first_offered_step,
    investigation_script,
    make_services,
)

OPTS = {"corpora": ["fixture"], "sources": ["local"], "depth": 1}
OPPOSING, SUPPORTING = {"102", "105"}, {"101", "104", "108"}


class Router:
    """The chat router's scripted model: answers every chat question with `choice` (the embedded
    model's misroute of a study question to the neutral sources) and counts the questions it saw."""

    def __init__(self, choice: ActionChoice) -> None:
        self.choice = choice
        self.asked = 0

    def __call__(self, messages: list[dict[str, Any]]) -> ActionChoice:
        text = "\n".join(str(m.get("content") or "") for m in messages)
        if "- show_sources:" not in text:
            return first_offered_step(messages)
        self.asked += 1
        return self.choice


def _engine(tmp_path, router: Router, claim: str = CLAIM, **overrides: Any) -> ChatEngine:
    script = {**investigation_script(), "choose_action": router}
    inv = Investigator(make_services(tmp_path, script=script, **overrides), persistent=True)
    engine = ChatEngine(inv, None, OPTS)
    engine.handle(claim)
    return engine


@pytest.fixture(scope="module")
def misrouting(tmp_path_factory) -> tuple[ChatEngine, Router]:
    router = Router(ActionChoice(tool="show_sources", arguments={"stance": "neutral"}))
    return _engine(tmp_path_factory.mktemp("chat"), router), router


def _resolve(engine: ChatEngine, keys: list[str]) -> bool:
    get = sentence_lookup(engine._state(), engine.inv.services)
    return bool(keys) and all(get(k) for k in keys)


def _listed(text: str) -> set[str]:
    return set(re.findall(r"^- (\d+) ", text, re.M))


@pytest.mark.parametrize(("text", "direction"), [
    ("which sources oppose the claim?", "oppose"), ("which papers argue against it?", "oppose"),
    ("which studies refute it", "oppose"), ("what contradicts the claim", "oppose"),
    ("which sources disagree?", "oppose"), ("which sources do not support it?", "oppose"),
    ("Mostly False", "oppose"), ("False", "oppose"), ("refute", "oppose"), ("opposes", "oppose"),
    ("which papers back the claim?", "support"), ("which sources agree with it", "support"),
    ("studies in favour of the claim", "support"), ("Mostly True", "support"), ("supports", "support"),
    ("which sources are neutral", "neutral"), ("No Evidence", "neutral"),
    ("which sources support it and which oppose it?", "all"), ("what is the background", None),
])
def test_direction_words_of_questions_and_labels(text: str, direction: str | None) -> None:
    assert direction_in(text) == direction


@pytest.mark.parametrize("stance", ["oppose", "against", "refute", "contradict", "disagree", "Mostly False", "False"])
def test_opposing_sources_in_any_wording(misrouting, stance: str) -> None:
    engine, _ = misrouting
    reply = engine.show_sources(stance)
    assert reply.text.startswith("2 of the 5 sources in the report oppose the claim:")
    assert _listed(reply.text) == OPPOSING
    assert _resolve(engine, reply.citations) and "[]" not in reply.text


@pytest.mark.parametrize("stance", ["support", "back", "agree", "Mostly True"])
def test_supporting_sources_in_any_wording(misrouting, stance: str) -> None:
    engine, _ = misrouting
    reply = engine.show_sources(stance)
    assert reply.text.startswith("3 of the 5 sources in the report support the claim:")
    assert _listed(reply.text) == SUPPORTING and _resolve(engine, reply.citations)


def test_no_source_in_a_direction_is_said_in_plain_words(misrouting) -> None:
    engine, _ = misrouting
    reply = engine.show_sources("neutral")
    assert reply.text == ("Every one of the 5 sources in the report takes a side on the claim "
                          "(3 support it, 2 oppose it).")
    assert not reply.citations


def test_opposing_sentences_are_shown_when_no_label_opposes(misrouting, monkeypatch) -> None:
    engine, _ = misrouting
    report = engine._report()
    flat = {**report, "documents": [{**d, "local_label": "No Evidence", "direction": "no evidence"}
                                    for d in report["documents"]]}
    monkeypatch.setattr(engine, "_report", lambda: flat)
    reply = engine.show_sources("oppose")
    head, _, rest = reply.text.partition("\n")
    assert head == "None of the 5 sources in the report opposes the claim (5 give no evidence on it)."
    assert rest.startswith("Sentences read as opposing the claim in other sources:")
    assert "102#0" in reply.citations and _resolve(engine, reply.citations)


def test_documents_the_report_never_labelled_are_not_counted_as_giving_no_evidence(misrouting, monkeypatch) -> None:
    """An abstaining run labels only the documents its screen read; readers found "20 give no
    evidence on it" where the report labelled 15 and left 5 unlabelled."""
    engine, _ = misrouting
    report = engine._report()
    docs = report["documents"]
    flat = {**report, "documents": [{**d, "local_label": "No Evidence" if i < 3 else None, "direction": None}
                                    for i, d in enumerate(docs)]}
    monkeypatch.setattr(engine, "_report", lambda: flat)
    head = engine.show_sources("support").text.splitlines()[0]
    assert head == (f"None of the {len(docs)} sources in the report supports the claim "
                    f"(3 give no evidence on it, {len(docs) - 3} are not labelled).")


def test_templated_questions_need_no_model_and_the_question_names_the_direction(misrouting) -> None:
    engine, router = misrouting
    before = router.asked
    for question, tool in [("which sources oppose the claim?", "show_sources"),
                           ("what does the study say about bolus doses in infants?", "study_findings"),
                           ("why is infection type disputed?", "explain_aspect"),
                           ("go deeper on aspect 3", "go_deeper"), ("ignore source 102 and recompute", "exclude_source"),
                           ("what is the overall verdict?", "verdict")]:
        assert engine.route(question)[0] == tool, question
    assert router.asked == before
    # a free question goes to the model; its direction argument yields to the question's own word
    assert engine.route("is anything against it?") == ("show_sources", {"stance": "oppose"})
    assert router.asked == before + 1


@pytest.mark.parametrize(("question", "tool"), [
    ("what does the study say about common CHEK2 variants?", "study_findings"),
    ("what did the trial in children find about influenza?", "study_findings"),
    ("what does the evidence say about dosing?", "ask_evidence"),
    ("what do the studies say about dosing?", "ask_evidence"),
    ("why is the verdict controversial?", "verdict"),
    ("why is aspect 2 disputed?", "explain_aspect"),
    ("which sources are for the claim?", "show_sources"),
    ("what does the anti-claim search add?", "anti_claim_contribution"),
    ("is the effect seen without supplementation?", "ask_evidence"),
])
def test_keyword_routes(question: str, tool: str) -> None:
    assert keyword_route(question)[0] == tool


def test_a_question_about_a_study_answers_from_that_study(misrouting) -> None:
    engine, _ = misrouting
    reply = engine.handle("what does the study say about bolus doses in infants?")
    assert reply.tool == "study_findings"
    assert reply.text.startswith("105 Bolus vitamin D dosing and respiratory infections in infants is labelled "
                                 "Mostly False: it opposes the claim.")
    assert {"105#0", "105#1"} <= set(reply.citations) and _resolve(engine, reply.citations)
    assert "[]" not in reply.text


@pytest.mark.parametrize(("question", "doc"), [
    ("what did the study on cathelicidin find?", "108"),      # a word of its sentences, not its title
    ("what did the schoolchildren study find?", "103"),       # read, but not among the weighed documents
    ("what does 102 say?", "102"),
])
def test_the_study_a_question_names_is_found(misrouting, question: str, doc: str) -> None:
    engine, _ = misrouting
    reply = engine.call(*engine.route(question))
    assert reply.tool == "study_findings" and reply.text.startswith(doc + " ")
    assert all(c.startswith(doc + "#") for c in reply.citations) and _resolve(engine, reply.citations)


def test_a_study_no_source_matches_is_said(misrouting) -> None:
    engine, _ = misrouting
    reply = engine.study_findings("what does the study say about quantum chromodynamics?")
    assert reply.text.startswith("No source of this investigation matches") and not reply.citations


def test_why_an_aspect_is_disputed_counts_and_cites(misrouting) -> None:
    engine, _ = misrouting
    node = next(n for n in engine._nodes() if n["name"] == "infection type")
    c = node["consensus"]
    reply = engine.call(*engine.route("why is infection type disputed?"))
    first = reply.text.splitlines()[0]
    assert first.startswith(f"Aspect {node['id']} 'infection type' is {c['label']}: of its "
                            f"{c['support'] + c['neutral'] + c['oppose']} assessed sentences, ")
    assert f"{c['support']} support the claim" in first and f"{c['oppose']} oppose it" in first
    lines = reply.text.splitlines()[1:]
    keys = [k for line in lines for k in re.findall(r"\[([^\]]+)\]", line)]
    assert len(keys) == len(set(keys)) and _resolve(engine, reply.citations)


def test_go_deeper_stops_at_the_depth_bound(tmp_path, monkeypatch) -> None:
    engine = _engine(tmp_path, Router(ActionChoice(tool="verdict")))
    monkeypatch.setattr(chat_engine, "DEPTH_MAX", 1)
    reply = engine.call("go_deeper", {"aspect": "infection type"})
    assert reply.text == "'infection type' is at the deepest level the hierarchy allows (1 level)."


def test_a_run_without_evidence_answers_follow_ups(tmp_path) -> None:
    engine = _engine(tmp_path, Router(ActionChoice(tool="verdict")), claim="Coffee consumption causes pancreatic cancer")
    n = len(engine._report()["documents"])
    reply = engine.call(*engine.route("which sources support it?"))
    assert reply.text.splitlines() == [
        f"None of the {n} sources in the report supports the claim ({n} give no evidence on it).",
        "The investigation found too little evidence on the claim (insufficient evidence)."]
    why = engine.call(*engine.route("why is aspect 1 disputed?"))
    assert why.text.startswith("This investigation found no evidence on the claim")


def test_answers_read_as_sentences_readers_found_slips_in(misrouting, monkeypatch) -> None:
    """Slips readers found in the templates: a title's own full stop running into the sentence
    ("... trial. is labelled"), a lower-case refusal, "None of the 1 source", and a doubled full stop
    after the quoted opposite claim."""
    from claimscope.agent.chat.wording import sentence_start
    from claimscope.agent.report.common import document_name

    assert document_name("A randomized trial.") == "A randomized trial"
    assert sentence_start("this investigation found no evidence") == "This investigation found no evidence"
    engine, _ = misrouting
    report = engine._report()
    one = {**report, "documents": [{**report["documents"][0], "local_label": "No Evidence",
                                    "direction": "no evidence", "title": "A trial of vitamin D."}]}
    monkeypatch.setattr(engine, "_report", lambda: one)
    head = engine.show_sources("oppose").text.partition("\n")[0]
    assert head == "The report's one source does not oppose the claim (1 gives no evidence on it)."
    anti = engine.anti_claim_contribution().text
    assert anti.startswith('The search for the opposite claim ("') and ".'." not in anti and '.")' not in anti
    gap = {**one, "hierarchy": {"root": "root", "nodes": []}, "evidence_gap": {"queries": []}}
    monkeypatch.setattr(engine, "_report", lambda: gap)
    refusal = engine.handle("why is aspect 1 disputed?").text
    assert refusal[:1].isupper(), refusal


def test_the_verdicts_warnings_read_as_sentences() -> None:
    """A reader found "! none of the 15 best-matching documents ... no verdict beyond 'insufficient
    evidence'" pasted into the verdict answer: lower case, no full stop."""
    from claimscope.agent.chat.wording import summary_text

    report = {"verdict": {"weighted": {"label": "insufficient evidence"}},
              "warnings": ["none of the 15 best-matching documents addresses the claim's relation; no verdict "
                           "beyond 'insufficient evidence'", "Already a sentence."]}
    assert summary_text(report).splitlines()[1:] == [
        "Warning: None of the 15 best-matching documents addresses the claim's relation; no verdict beyond "
        "'insufficient evidence'.", "Warning: Already a sentence."]


def test_go_deeper_names_each_grown_sub_aspect_once(misrouting, monkeypatch) -> None:
    """Two sub-aspects with one name were listed twice ("requirement; requirement")."""
    from claimscope.agent.investigation import RunResult

    engine, _ = misrouting
    node = engine._nodes()[0]
    kids = [{"id": f"{node['id']}.{i}", "name": name} for i, name in enumerate(["timing", "timing", "dose"], 1)]
    report = {**engine._report(), "hierarchy": {"root": "root", "nodes": [*engine._nodes(), *kids]}}
    monkeypatch.setattr(engine.inv, "rerun_from", lambda *a, **k: RunResult(thread_id="t", status="complete",
                                                                            report=report))
    reply = engine.go_deeper(node["id"])
    assert reply.text.splitlines()[0] == (f"Grew '{node['name']}': timing ({node['id']}.1, {node['id']}.2); "
                                          f"dose ({node['id']}.3)")


def test_the_no_evidence_warning_says_one_document_as_one(tmp_path) -> None:
    """'none of the 1 best-matching documents addresses ...' was a slip readers found."""
    from claimscope.agent.graph.screen import insufficient_evidence

    services = make_services(tmp_path)
    one = {"checked": 1, "on_subject": ["101"], "labels": {"101": "No Evidence"}, "confidence": {"101": 0.9}}
    warning = insufficient_evidence({"claim": CLAIM}, services, one)["warnings"][0]  # type: ignore[arg-type]
    assert warning.startswith("the one best-matching document does not address the claim's relation (it shares "
                              "its subject only);")
    many = {**one, "checked": 15}
    warning = insufficient_evidence({"claim": CLAIM}, services, many)["warnings"][0]  # type: ignore[arg-type]
    assert warning.startswith("none of the 15 best-matching documents addresses the claim's relation (1 shares")


def test_the_no_evidence_warning_says_when_no_document_is_left(tmp_path) -> None:
    """'None of the 0 best-matching documents addresses the claim's relation (0 share its subject
    only)' after the last document was ignored, and '(0 share its subject only)' beside one."""
    from claimscope.agent.graph.screen import insufficient_evidence

    services = make_services(tmp_path)

    def screen_warning(screen: dict) -> str:
        return insufficient_evidence({"claim": CLAIM}, services, screen)["warnings"][0]  # type: ignore[arg-type]

    none: dict = {"checked": 0, "on_subject": [], "labels": {}}
    assert screen_warning(none) == ("no document is left to address the claim's relation; no verdict beyond "
                                    "'insufficient evidence'")
    assert screen_warning({**none, "claim_kind": "debate"}).startswith("no document is left to argue for or against")
    assert screen_warning({**none, "checked": 1}).startswith(
        "the one best-matching document does not address the claim's relation (nor its subject);")
    assert screen_warning({**none, "checked": 15}).startswith(
        "none of the 15 best-matching documents addresses the claim's relation (nor does any share its subject);")


def test_quoted_perspectives_keep_their_sentences_apart() -> None:
    """'... before they arrive at school Good nutrition can be provided ...': two arguments without a
    closing stop were joined into one run-on sentence."""
    from claimscope.agent.graph.steps import _quoted_perspective
    from claimscope.tools.models import Stance

    p = _quoted_perspective(Stance.SUPPORT, [("a#0", "School breakfast improves attendance of pupils"),
                                             ("b#0", "Free breakfasts reduced hunger in class.")])
    assert p is not None
    assert p.summary == "School breakfast improves attendance of pupils. Free breakfasts reduced hunger in class."


NO_FACETS = ("no facet of the claim (population, measurement, level, comparison, outcome type, adjustment, time, "
             "mechanism) is stated by its on-claim findings")


def test_a_report_whose_one_aspect_is_the_claim_explains_it(misrouting, monkeypatch) -> None:
    """A report whose Aspects section shows only the claim (its findings state no facet of it)
    answered "why is the main aspect disputed?" and "go deeper on aspect 1" with "This investigation's
    report has no aspects", against its own Aspects section."""
    engine, _ = misrouting
    segments = [{"doc_id": "101", "sentence": 0, "stance": "support", "text": "Vitamin D reduced infections."},
                {"doc_id": "101", "sentence": 2, "stance": "support", "text": "The benefit was strongest."}]
    root = {"id": "root", "name": CLAIM + ".", "top_segments": segments,
            "consensus": {"label": "leaning supported", "support": 2, "neutral": 0, "oppose": 0}}
    flat = {**engine._report(), "hierarchy": {"root": "root", "nodes": [root]},
            "warnings": [f"{NO_FACETS}: the report has no aspects"]}
    monkeypatch.setattr(engine, "_report", lambda: flat)
    monkeypatch.setattr(engine.inv, "rerun_from", lambda *a, **k: pytest.fail("nothing to grow: no re-run"))
    why = engine.call(*engine.route("Why is the main aspect disputed?"))
    assert why.text.splitlines() == [
        f"The report's one aspect is the claim as a whole ('{CLAIM}'), not split into sub-aspects; it is leaning "
        "supported: of its 2 assessed sentences, 2 support the claim. No sentence opposes it, so it is not disputed.",
        "- (supports the claim) Vitamin D reduced infections. [101#0]",
        "- (supports the claim) The benefit was strongest. [101#2]"]
    assert why.citations == ["101#0", "101#2"]
    deeper = engine.call(*engine.route("Go deeper on aspect 1"))
    assert deeper.tool == "go_deeper" and deeper.text == (
        f"The claim as a whole is this report's one aspect and cannot be split further: {NO_FACETS} (ask why it "
        "is supported or disputed, or which sources support or oppose it).")
    # a finished report with no hierarchy at all still says it has no aspects
    monkeypatch.setattr(engine, "_report", lambda: {**flat, "hierarchy": {"root": "root", "nodes": []}})
    assert engine.call(*engine.route("why is aspect 1 disputed?")).text.startswith(
        "This investigation's report has no aspects:")


@pytest.mark.parametrize(("gathered", "only", "shown", "said"), [
    (51, 1, 0, "found 1 of the 51 documents gathered that the claim's own searches did not; it is not among the "
               "report's documents, so it added nothing to the verdict."),
    (51, 3, 0, "found 3 of the 51 documents gathered that the claim's own searches did not; none of them is among "
               "the report's documents, so it added nothing to the verdict."),
    (51, 1, 1, "found 1 of the 51 documents gathered that the claim's own searches did not; it is among the "
               "report's documents:"),
    (51, 3, 1, "found 3 of the 51 documents gathered that the claim's own searches did not; 1 of them is among the "
               "report's documents:"),
    (51, 3, 2, "found 3 of the 51 documents gathered that the claim's own searches did not; 2 of them are among "
               "the report's documents:"),
    (51, 2, 2, "found 2 of the 51 documents gathered that the claim's own searches did not; all of them are among "
               "the report's documents:"),
    (1, 1, 0, "found the one document gathered, which the claim's own searches did not; it is not among the "
              "report's documents, so it added nothing to the verdict."),
    (3, 3, 0, "found all 3 documents gathered, which the claim's own searches did not; none of them is among the "
              "report's documents, so it added nothing to the verdict."),
    (51, 0, 0, "found no document that the claim's own searches had not found (of the 51 documents gathered), so "
               "it added nothing to the verdict."),
    (1, 0, 0, "found no document that the claim's own searches had not found (it was not the one document "
              "gathered), so it added nothing to the verdict."),
    (0, 0, 0, "found no document that the claim's own searches had not found (the investigation gathered none), "
              "so it added nothing to the verdict."),
])
def test_the_opposite_searchs_answer_agrees_with_its_counts(misrouting, monkeypatch, gathered: int, only: int,
                                                             shown: int, said: str) -> None:
    """'found 1 of the 51 documents gathered ...; none of them is among the report's documents' read
    as a slip: one document is 'it', and every count of the answer and of the report's line agrees."""
    from claimscope.agent.report import AntiClaimFound, Report
    from claimscope.agent.report.common import anti_claim_found

    engine, _ = misrouting
    report = engine._report()
    in_report = [d["id"] for d in report["documents"][:shown]]
    found = {"gathered": gathered, "only": only, "in_report": in_report}
    monkeypatch.setattr(engine, "_report", lambda: {**report, "anti_claim_found": found})
    head = engine.anti_claim_contribution().text.splitlines()[0]
    assert head.partition('") ')[2] == said
    line = anti_claim_found(Report(claim=CLAIM, anti_claim_found=AntiClaimFound(**found)),
                            {d: i for i, d in enumerate(in_report, 1)})
    assert line == REPORT_LINES[(gathered, only, shown)]


# The report's own line ("Found only by the opposite claim's search: ...") for the same counts.
REPORT_LINES = {
    (51, 1, 0): "1 of the 51 documents gathered; it is not among the documents below",
    (51, 3, 0): "3 of the 51 documents gathered; none of them is among the documents below",
    (51, 1, 1): "1 of the 51 documents gathered; #1 of the documents below",
    (51, 3, 1): "3 of the 51 documents gathered; #1 of the documents below",
    (51, 3, 2): "3 of the 51 documents gathered; #1 and #2 of the documents below",
    (51, 2, 2): "2 of the 51 documents gathered; #1 and #2 of the documents below",
    (1, 1, 0): "the one document gathered; it is not among the documents below",
    (3, 3, 0): "all 3 documents gathered; none of them is among the documents below",
    (51, 0, 0): "none of the 51 documents gathered",
    (1, 0, 0): "not the one document gathered",
    (0, 0, 0): "none (no document was gathered)",
}


def test_one_source_or_all_of_them_is_said_as_such(misrouting, monkeypatch) -> None:
    """'1 of the 1 source in the report supports the claim' and '3 of the 3 sources' read as slips,
    and so did 'of its 1 assessed sentence, 1 supports the claim'."""
    engine, _ = misrouting
    report = engine._report()
    supporting = [d for d in report["documents"] if d.get("direction") == "supports"]
    assert len(supporting) > 1
    monkeypatch.setattr(engine, "_report", lambda: {**report, "documents": supporting[:1]})
    assert engine.show_sources("support").text.partition("\n")[0] == "The report's one source supports the claim:"
    monkeypatch.setattr(engine, "_report", lambda: {**report, "documents": supporting})
    assert engine.show_sources("support").text.partition("\n")[0] == (
        f"All {len(supporting)} sources in the report support the claim:")
    node = {"id": "1", "name": "dosing regimen", "consensus": {"label": "insufficient evidence", "support": 0,
                                                              "neutral": 0, "oppose": 1}}
    monkeypatch.setattr(engine, "_report", lambda: {**report, "hierarchy": {"root": "root", "nodes": [node]}})
    assert engine.explain_aspect("1").text.partition("\n")[0] == (
        "Aspect 1 'dosing regimen' has insufficient evidence: its one assessed sentence opposes the claim. No "
        "sentence supports it, so it is not disputed.")
