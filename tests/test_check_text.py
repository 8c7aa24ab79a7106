"""Checking a whole text: each check-worthy claim investigated in turn with one set of services,
progress per claim, every finished claim saved (interrupt, resume, cancel), a person's edits, and
the report on the text in Markdown, JSON and HTML."""

from __future__ import annotations

import json
import re
import threading

import pytest

from claimscope.agent.check import CheckStore, TextChecker, apply_edits, check_text, prepare_check
from claimscope.agent.investigation import Investigator, default_options
from claimscope.agent.report.text_model import TextReport, check_verdict, load_text_report
from claimscope.agent.report.text_render import render_text_report
from claimscope.tools.errors import InputError
from claimscope.tools.read.claim_extraction import extract_claims
from tests.investigation_fixtures import make_services

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful. "
        "Monthly high-dose vitamin D does not reduce infections in adults.")
OPTS = {"corpora": ["fixture"], "sources": ["local"], "depth": 1, "top_documents": 4}


def _checker(services):
    return TextChecker(Investigator(services))


def _record(services, **kw):
    return prepare_check(TEXT, services, default_options(services.settings, **OPTS), **kw)


def test_each_check_worthy_claim_is_investigated_in_turn_with_progress_per_claim(tmp_path):
    services = make_services(tmp_path)
    lines: list[str] = []
    report = check_text(TEXT, services=services, on_event=lambda e: lines.append(e.line()), **OPTS)
    assert [c.id for c in report.claims] == ["c1", "c3"]
    assert [s.quote for s in report.not_check_worthy] == ["We believe it is wonderful."]
    assert report.status == "complete"
    for c in report.claims:
        assert c.status == "complete" and c.report is not None and c.report.claim == c.text
        assert c.verdict == check_verdict(c.report.verdict.weighted.label)
        assert TEXT[c.start:c.end] == c.quote
    # One investigator and one model for every claim: the anti-claim prompt ran once per claim.
    assert services.llm.scripted.calls.count("anti_claim") == 2
    assert "claim 1 of 2: gather" in lines and "claim 2 of 2: gather" in lines
    assert lines.index("claim 1 of 2: report") < lines.index("claim 2 of 2: analyse")


def test_the_strongest_evidence_points_the_verdicts_way(tmp_path):
    report = check_text(TEXT, services=make_services(tmp_path), **OPTS)
    for c in report.claims:
        want = {"supported": {"supports"}, "refuted": {"opposes"}, "mixed": {"supports", "opposes"}}.get(c.verdict)
        if want:
            assert c.evidence is not None and c.evidence.direction in want and c.evidence.finding is not None
        else:
            assert c.evidence is None


def test_an_interrupted_check_keeps_its_finished_claims_and_resume_runs_the_rest(tmp_path):
    services = make_services(tmp_path)
    checker = _checker(services)
    record = _record(services)

    def stop_at_second(ev):
        if ev.index == 2 and ev.kind == "step_started" and ev.step == "assess":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checker.run(record, on_event=stop_at_second)
    saved = CheckStore(services.settings).load(record.id)
    assert saved.status == "interrupted"
    assert list(saved.outcomes) == ["c1"] and saved.outcomes["c1"].report is not None
    before = services.llm.scripted.calls.count("anti_claim")

    seen: list[str] = []
    report = _checker(services).resume(record.id, on_event=lambda e: seen.append(e.line()))
    assert report.status == "complete" and all(c.report is not None for c in report.claims)
    # Only the second claim ran, from its last finished step: no second analysis or gathering.
    assert all(line.startswith("claim 2 of 2") for line in seen)
    assert "claim 2 of 2: report" in seen
    assert "claim 2 of 2: analyse" not in seen and "claim 2 of 2: gather" not in seen
    assert services.llm.scripted.calls.count("anti_claim") == before


def test_cancel_stops_cleanly_and_the_check_resumes(tmp_path):
    services = make_services(tmp_path)
    checker = _checker(services)
    record = _record(services)
    cancel = threading.Event()

    def cancel_in_second(ev):
        if ev.index == 2 and ev.step == "gather":
            cancel.set()

    report = checker.run(record, on_event=cancel_in_second, cancel=cancel)
    assert report.status == "cancelled"
    assert [c.status for c in report.claims] == ["complete", "pending"]
    assert "not checked" in render_text_report(report, "md")
    done = _checker(services).resume(record.id)
    assert done.status == "complete" and [c.status for c in done.claims] == ["complete", "complete"]


def test_the_list_of_saved_checks_is_newest_first_and_reads_only_as_many_as_asked(tmp_path, monkeypatch):
    import os

    from claimscope.agent.check import CheckRecord

    services = make_services(tmp_path)
    store = CheckStore(services.settings)
    for i, cid in enumerate(("old", "mid", "new")):
        store.save(CheckRecord(id=cid, text=TEXT, claims=[]))
        os.utime(store.path(cid), (1_000_000 + i, 1_000_000 + i))
    store.path("broken").write_text("{", encoding="utf-8")  # the newest file, unreadable: skipped
    assert [r.id for r in store.list()] == ["new", "mid", "old"]
    read = []
    real = CheckRecord.model_validate_json
    monkeypatch.setattr(CheckRecord, "model_validate_json", lambda data: read.append(1) or real(data))
    assert [r.id for r in store.list(limit=2)] == ["new", "mid"]
    assert len(read) == 3  # the broken file and the two newest, not the oldest


def test_a_persons_edits_drop_reword_and_add_claims(tmp_path):
    claims = extract_claims(TEXT).claims
    edited = apply_edits(claims, [{"id": "c1", "check_worthy": False},
                                  {"id": "c2", "check_worthy": True, "text": "Vitamin D is good for adults."},
                                  {"id": "c3", "text": "High-dose vitamin D does not reduce infections."}])
    assert [c.check_worthy for c in edited] == [False, True, True]
    assert edited[1].resolved_by == "person" and edited[2].text == "High-dose vitamin D does not reduce infections."
    assert edited[0].reason == "dropped by a person"
    # The spans stay the text's.
    assert [(c.start, c.end) for c in edited] == [(c.start, c.end) for c in claims]
    with pytest.raises(InputError, match="unknown claim id 'c9'"):
        apply_edits(claims, [{"id": "c9", "check_worthy": False}])
    with pytest.raises(InputError, match="claim c1: the claim 'hi' is too short"):
        apply_edits(claims, [{"id": "c1", "text": "hi"}])
    with pytest.raises(InputError, match="invalid claim edit"):
        apply_edits(claims, [{"id": "c1", "keep": "yes"}])


def test_only_the_kept_claims_are_investigated(tmp_path):
    services = make_services(tmp_path)
    report = check_text(TEXT, services=services, claims=[{"id": "c1", "check_worthy": False}], **OPTS)
    assert [c.id for c in report.claims] == ["c3"]
    assert services.llm.scripted.calls.count("anti_claim") == 1
    assert any(s.id == "c1" and s.reason == "dropped by a person" for s in report.not_check_worthy)


def test_a_claim_the_investigation_refuses_is_named_and_the_others_go_on(tmp_path):
    services = make_services(tmp_path)
    report = check_text(TEXT, services=services,
                        claims=[{"id": "c1", "text": "La vitamine D prévient les infections respiratoires chez les adultes."}],
                        **OPTS)
    first, second = report.claims
    assert first.status == "failed" and first.verdict == "not checked" and first.error
    assert second.status == "complete" and second.report is not None


def test_bad_corpus_and_empty_text_are_refused_before_any_model_runs(tmp_path):
    services = make_services(tmp_path)
    with pytest.raises(InputError, match="unknown corpus 'nope'"):
        check_text(TEXT, services=services, corpora=["nope"])
    # Every entry point (the web form, the CLI, the eval) prepares its check through prepare_check.
    with pytest.raises(InputError, match="unknown corpus 'nope'"):
        prepare_check(TEXT, services, default_options(services.settings, **{**OPTS, "corpora": ["nope"]}))
    with pytest.raises(InputError, match="the text is empty"):
        check_text("  ", services=services, **OPTS)
    assert services.llm.scripted.calls == []


def _report(tmp_path) -> TextReport:
    text = TEXT + " Is <script>alert(1)</script> a claim?"
    return check_text(text, services=make_services(tmp_path), **OPTS)


def test_the_markdown_report_marks_the_spans_and_lists_what_was_not_checked(tmp_path):
    report = _report(tmp_path)
    md = render_text_report(report, "md")
    c1, c3 = report.claims
    assert f"**{c1.quote}** [[c1" in md and "](#claim-c1)" in md and '<a id="claim-c3"></a>' in md
    assert "| claim | verdict | confidence | strongest evidence |" in md
    assert "We believe it is wonderful. — *opinion:*" in md
    assert "<script>" not in md
    # Each claim's full report follows under the claim's own heading, without repeating the claim.
    assert f"### c1: {c1.text}" in md and "#### Verdict" in md and "### Claim:" not in md
    # One space between two marked spans, a legend of the marks, a part said as one.
    assert "  **" not in md and "*Marks:* " in md
    assert re.search(r"2 claims \([^)]*\), 2 parts not check-worthy", md)


def test_the_strongest_evidence_reads_as_title_then_quote_then_key():
    from claimscope.agent.report.model import Citation
    from claimscope.agent.report.text_model import CheckedClaim, SkippedSentence, StrongestEvidence

    finding = Citation(doc_id="17077004", sentence=7, text="The hazard ratio was 0.79.")
    claim = CheckedClaim(id="c1", text="A slows B.", start=0, end=10, quote="A slows B.", verdict="supported",
                         evidence=StrongestEvidence(doc_id="17077004", title="Swiss HIV cohort study.", year=2006,
                                                    finding=finding))
    why = SkippedSentence(id="c2", start=11, end=15, quote="Why?", category="question", reason="asks")
    report = TextReport(check_id="x", text="A slows B. Why?", claims=[claim], not_check_worthy=[why])
    md = render_text_report(report, "md")
    assert "1 claim (1 supported), 1 part not check-worthy." in md
    assert "Swiss HIV cohort study (2006): “The hazard ratio was 0.79.” (17077004\\#7)" in md
    page = render_text_report(report, "html")
    # The marked text is one block: only the text's own line breaks show (white-space: pre-wrap).
    text = page.split('<div class="text">')[1].split("</div>")[0]
    assert "\n" not in text and text.endswith(" Why?")


def test_the_html_report_marks_each_span_by_its_verdict_and_embeds_the_full_report(tmp_path):
    report = _report(tmp_path)
    page = render_text_report(report, "html")
    for c in report.claims:
        assert f'<mark class="v-{c.verdict.replace(" ", "-")}"' in page
        assert f'<a href="#claim-{c.id}">{c.quote}</a>' in page and f'<section class="claim" id="claim-{c.id}">' in page
    assert page.count('<iframe sandbox=""') == 2 and "<script>" not in page


def test_the_json_report_reads_back(tmp_path):
    report = _report(tmp_path)
    data = json.loads(render_text_report(report, "json"))
    assert data["kind"] == "text_check" and data["claims"][0]["report"]["schema_version"] == "1"
    assert load_text_report(data) == report
    with pytest.raises(InputError, match="schema version"):
        load_text_report({**data, "schema_version": "9"})
    with pytest.raises(InputError, match="the report format"):
        render_text_report(report, "pdf")


def test_the_limits_are_settings_a_review_warns_and_its_choice_is_held_to_them(tmp_path):
    from claimscope.agent.check import edit_record

    services = make_services(tmp_path, check={"max_claims": 1, "max_text_chars": 200})
    opts = default_options(services.settings, **OPTS)
    with pytest.raises(InputError, match=r"2 check-worthy claims, more than the 1 one check runs \(check.max_claims\)"):
        prepare_check(TEXT, services, opts)
    with pytest.raises(InputError, match="too long .*limit 200"):
        prepare_check(TEXT + " " + TEXT, services, opts)
    # Reviewed first: a warning, and the person's choice must keep to the limit.
    record = prepare_check(TEXT, services, opts, review=True)
    assert any("more than 1 claims" in w for w in record.warnings)
    with pytest.raises(InputError, match="leave some out"):
        edit_record(record, [], services.settings)
    kept = edit_record(record, [{"id": "c1", "check_worthy": False}], services.settings)
    assert [c.id for c in kept.to_check()] == ["c3"]
    with pytest.raises(InputError, match="no claim is left"):
        edit_record(record, [{"id": "c1", "check_worthy": False}, {"id": "c3", "check_worthy": False}],
                    services.settings)
