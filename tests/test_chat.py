"""Chat transcripts with the scripted model: follow-ups answered from stored evidence, with citations."""

from __future__ import annotations

import json

from claimscope.agent.chat import ChatEngine, keyword_route
from claimscope.agent.investigation import Investigator
from tests.investigation_fixtures import CLAIM, make_services

OPTS = {"corpora": ["fixture"], "sources": ["local"], "depth": 1}


def _engine(tmp_path, session=None, services=None):
    inv = Investigator(services or make_services(tmp_path), persistent=True)
    return ChatEngine(inv, session, OPTS)


def _keys_resolve(engine, keys):
    state = engine._state()
    from claimscope.agent.graph.readers import sentence_lookup

    get = sentence_lookup(state, engine.inv.services)
    return keys and all(get(k) for k in keys)


def test_claim_then_follow_ups_cite_stored_sentences(tmp_path):
    engine = _engine(tmp_path)
    first = engine.handle(CLAIM)
    assert first.tool == "report" and first.text.startswith("Verdict:")

    why = engine.call(*keyword_route("why is aspect 3 disputed?"))
    assert why.tool == "explain_aspect" and _keys_resolve(engine, why.citations)
    # an aspect no sentence of the corpus addresses says so instead of citing off-claim text
    empty = engine.call(*keyword_route("why is aspect 1 disputed?"))
    assert "No evidence sentences were classified" in empty.text and not empty.citations

    opp = engine.call(*keyword_route("show the sources that oppose"))
    assert opp.tool == "show_sources" and "102" in opp.text and _keys_resolve(engine, opp.citations)

    anti = engine.call(*keyword_route("what does the anti-claim search add?"))
    assert anti.tool == "anti_claim_contribution" and "search for the opposite claim" in anti.text

    free = engine.call(*keyword_route("cathelicidin epithelium"))
    assert free.tool == "ask_evidence" and _keys_resolve(engine, free.citations)


def test_exclude_source_recomputes(tmp_path):
    engine = _engine(tmp_path)
    engine.handle(CLAIM)
    reply = engine.call("exclude_source", {"doc_id": "102"})
    assert reply.tool == "exclude_source"
    report = engine._report()
    assert "102" not in {d["id"] for d in report["documents"]}
    # nor cited anywhere in the recomputed report: the aspects, their quotes, the explanation
    assert '"doc_id": "102"' not in json.dumps(report) and "102#" not in json.dumps(report)
    assert "not among" in engine.call("exclude_source", {"doc_id": "nope"}).text


def test_ignoring_the_last_source_with_evidence_ends_without_evidence(tmp_path):
    """Ignoring the one source that addressed the claim kept its label, its quotes and the verdict
    they made: assess could not run again, so the old reading stayed in the recomputed report."""
    engine = _engine(tmp_path)
    engine.handle(CLAIM)
    evidence = list(engine._state()["screen"]["evidence"])
    assert len(evidence) > 1
    for doc in evidence:
        reply = engine.call("exclude_source", {"doc_id": doc})
    report = engine._report()
    assert report["status"] == "no_evidence" and report["verdict"]["weighted"]["label"] == "insufficient evidence"
    text = json.dumps(report)
    assert not any(f'"{d}"' in text or f"{d}#" in text for d in evidence)
    assert reply.text.splitlines()[2] == "Verdict: insufficient evidence"


def test_go_deeper_grows_only_that_aspect(tmp_path):
    # one relevant segment is enough to split an aspect of the small fixture corpus
    engine = _engine(tmp_path, services=make_services(tmp_path, hierarchy={"min_node_segments": 1}))
    engine.handle(CLAIM)
    reply = engine.call("go_deeper", {"aspect": "infection type"})
    assert reply.tool == "go_deeper" and reply.text.startswith("Grew 'infection type'")
    ids = {n["id"] for n in engine._report()["hierarchy"]["nodes"]}
    assert any(i.startswith("3.") for i in ids) and not any(i.startswith(("1.", "2.")) for i in ids)


def test_go_deeper_says_when_an_aspect_has_too_little_to_split(tmp_path):
    engine = _engine(tmp_path, services=make_services(tmp_path, hierarchy={"min_node_segments": 20}))
    engine.handle(CLAIM)
    reply = engine.call("go_deeper", {"aspect": "dosing regimen"})
    assert reply.text.startswith("'dosing regimen' was not split")
    assert not any(n["id"].startswith("1.") for n in engine._report()["hierarchy"]["nodes"])


def test_session_persists_and_continues(tmp_path):
    services = make_services(tmp_path)
    engine = _engine(tmp_path, session="s1", services=services)
    engine.handle(CLAIM)
    again = ChatEngine(Investigator(services, persistent=True), "s1", OPTS)
    assert again.session.current == engine.session.current
    assert [m.role for m in again.session.messages] == ["user", "assistant"]
    reply = again.handle("what is the overall verdict?")
    assert reply.text.startswith("Verdict:")


def test_router_uses_model_choice_and_falls_back(tmp_path):
    engine = _engine(tmp_path)
    engine.handle(CLAIM)
    # A templated kind is routed by keywords; for any other question the scripted planner answer
    # names a graph step, which the chat does not offer: the gateway rejects it after its retries
    # and the question goes to the closest evidence.
    assert engine.route("show the sources that oppose") == ("show_sources", {"stance": "oppose"})
    assert engine.route("cathelicidin epithelium") == ("ask_evidence", {"question": "cathelicidin epithelium"})
    assert keyword_route("ignore source 105 and recompute") == ("exclude_source", {"doc_id": "105"})
    assert keyword_route("go deeper on aspect dosing")[0] == "go_deeper"


def test_guided_chat_reviews(tmp_path):
    inv = Investigator(make_services(tmp_path), persistent=True)
    engine = ChatEngine(inv, None, {**OPTS, "guided": True})
    r = engine.handle(CLAIM)
    assert r.tool == "review" and "claim" in r.text
    assert "JSON" in engine.handle("hmm").text
    for _ in range(4):
        r = engine.handle("accept")
    assert r.tool == "report"


def test_a_recompute_replaces_the_warnings_of_the_steps_it_runs_again(tmp_path, monkeypatch):
    """After "ignore source X and recompute" the answer and the recomputed report's warnings carried
    the first run's warning beside the recomputed one ("None of the 15 best-matching documents ..."
    then "None of the 14 ..."): the warnings accumulate, and the steps run again wrote theirs again.
    The same for "go deeper"."""
    from claimscope.agent.graph import steps

    def explain_counting(state, services):
        update = steps._explain(state, services)
        return {**update, "warnings": [*update.get("warnings", []), f"{len(state['documents'])} documents explained"]}

    monkeypatch.setitem(steps.NODES, "explain", steps._timed("explain", explain_counting))
    engine = _engine(tmp_path)
    engine.handle(CLAIM)
    n = len(engine._state()["documents"])

    def counted():
        return [w for w in engine._report()["warnings"] if w.endswith("documents explained")]

    assert counted() == [f"{n} documents explained"]
    reply = engine.call("exclude_source", {"doc_id": "102"})
    assert counted() == [f"{n - 1} documents explained"]
    assert reply.text.count("documents explained") == 1 and f"{n - 1} documents explained" in reply.text
    engine.call("go_deeper", {"aspect": "infection type"})
    assert counted() == [f"{n - 1} documents explained"]


def test_ignoring_a_source_of_a_run_without_evidence_replaces_its_screen_warning(tmp_path):
    """The screen's "none of the 8 best-matching documents ..." stayed beside the recomputed "none of
    the 7 ..."; after the last document is ignored, the warning says that none is left."""
    engine = _engine(tmp_path)
    engine.handle("Coffee consumption causes pancreatic cancer")
    screened = list(engine._state()["screen"]["labels"])
    assert len(screened) > 1

    def screen_warnings(text):
        return [w for w in text if "best-matching" in w or "no document is left" in w]

    reply = engine.call("exclude_source", {"doc_id": screened[0]})
    assert screen_warnings(engine._report()["warnings"]) == [
        f"none of the {len(screened) - 1} best-matching documents addresses the claim's relation (nor does any "
        "share its subject); no verdict beyond 'insufficient evidence'"]
    assert len(screen_warnings(reply.text.lower().splitlines())) == 1
    for doc in screened[1:]:
        reply = engine.call("exclude_source", {"doc_id": doc})
    assert screen_warnings(engine._report()["warnings"]) == [
        "no document is left to address the claim's relation; no verdict beyond 'insufficient evidence'"]
    assert screen_warnings(reply.text.lower().splitlines()) == [
        "warning: no document is left to address the claim's relation; no verdict beyond 'insufficient evidence'."]


def test_a_claim_no_facet_splits_is_the_reports_one_aspect(tmp_path, monkeypatch):
    """The report's Aspects section shows the claim itself when its findings state no facet of it,
    while its warning said "the report has no aspects" and the chat answered so to "why is the main
    aspect disputed?" and "go deeper on aspect 1"."""
    from claimscope.agent.graph import steps
    from claimscope.agent.report import render

    monkeypatch.setattr(steps, "find_facets", lambda *a, **k: [])
    engine = _engine(tmp_path, services=make_services(tmp_path, hierarchy={"aspects": "facets"}))
    engine.handle(CLAIM)
    report = engine._report()
    assert [n["id"] for n in report["hierarchy"]["nodes"]] == ["root"]
    markdown = render(report, "md")
    aspects = markdown.split("## Aspects")[1].split("##")[0]
    assert f"**{CLAIM}**" in aspects and "has no aspects" not in markdown
    assert f"{steps.NO_FACETS}: the report's one aspect is the claim as a whole" in report["warnings"]
    why = engine.call(*keyword_route("Why is the main aspect disputed?"))
    assert why.text.startswith(f"The report's one aspect is the claim as a whole ('{CLAIM}')")
    deeper = engine.call(*keyword_route("Go deeper on aspect 1"))
    assert deeper.text.startswith("The claim as a whole is this report's one aspect and cannot be split further: "
                                  "no facet of the claim")


def test_an_untitled_document_is_named_by_its_opening_words(tmp_path):
    """'p3405 untitled: Mostly True.' pasted a placeholder as if it were the title; the answers and
    the report name an untitled document alike, by its opening words in quotes."""
    from claimscope.agent.chat.wording import source_text
    from claimscope.agent.report import render
    from claimscope.tools.models import Document
    from tests.investigation_fixtures import CORPUS

    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    for row in rows:
        if row["doc_id"] == 101:
            row["title"] = ""
    corpus = tmp_path / "untitled.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    engine = _engine(tmp_path, services=make_services(tmp_path, corpus=corpus))
    engine.handle(CLAIM)
    name = '101 "Vitamin D supplementation reduced the risk of acute…"'
    supporting = engine.call(*keyword_route("which sources support the claim?")).text
    assert f"- {name}: " in supporting and "untitled" not in supporting
    view = next(d for d in engine._report()["documents"] if d["id"] == "101")
    assert source_text(view) == name
    markdown = render(engine._report(), "md")
    assert '"Vitamin D supplementation reduced the risk of acute…"' in markdown
    assert "untitled" not in markdown
    # a document with no title and no text to quote, and one from a report written before openings
    from claimscope.agent.chat.wording import document_text

    assert document_text(Document(id="p3405", title="")) == "p3405 (untitled)"
    assert source_text({"id": "p3405", "title": ""}) == "p3405 (untitled)"
