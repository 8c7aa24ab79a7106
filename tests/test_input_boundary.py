"""What a person or a client types is checked before anything runs or is stored: unknown corpora,
control characters, claims the models cannot read, a session id reused for another claim, and the
first pause of a guided run. Driven through the CLI entry point, the Python API and the MCP server
with the real graph and checkpointer (trivial step bodies, tests/fixtures/sessions/stub_steps.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from claimscope.agent.investigation import Investigator, investigate, prepare_claim
from claimscope.agent.mcp_server import build_server
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from claimscope.tools.errors import InputError
from claimscope.tools.text.language import detect_language
from claimscope.tools.text.text_guard import strip_control
from tests.conftest import run_main
from tests.fixtures.sessions import stub_steps

NASTY = "Green tea\x00 prevents\x07 colds \x1b[31min adults\x1b[0m \x1b]0;pwned\x07\u202eevil"
GERMAN = "Vitamin-D-Supplementierung verringert das Risiko von Atemwegsinfektionen"
CHINESE = "维生素D补充剂可以预防呼吸道感染"
# Something to search (a run with neither a corpus nor a scholarly source is refused); the trivial
# step bodies never query it.
SCHOLARLY = ("--sources", "semantic_scholar")


pytestmark = pytest.mark.usefixtures("stubbed_steps")




def _mcp(manager: RunManager, tool: str, args: dict):
    async def main():
        async with Client(build_server(manager)) as c:
            return await c.call_tool(tool, args)

    return asyncio.run(main())


@pytest.fixture
def manager():
    m = RunManager(Investigator(Services(get_settings())), max_workers=1)
    yield m
    m.shutdown(cancel=True, wait=True)


def _session_ids(monkeypatch, capsys) -> set[str]:
    code, out = run_main(monkeypatch, capsys, "sessions", "list", "--json")
    assert code == 0, out
    return {s["session_id"] for s in json.loads(out)}


# ------------------------------------------------------------------------------ unknown corpus


def test_unknown_corpus_is_refused_up_front_everywhere(monkeypatch, capsys, manager):
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "--corpus", "nosuchcorpus")
    assert code == 2 and "unknown corpus 'nosuchcorpus'" in out and "corpora: none yet" in out, out
    assert not stub_steps.CALLS  # nothing ran
    with pytest.raises(InputError, match="unknown corpus 'nosuchcorpus'"):
        investigate("Green tea prevents colds", corpora=["nosuchcorpus"])
    r = _mcp(manager, "start_investigation", {"claim": "Green tea prevents colds",
                                               "options": {"corpora": ["nosuchcorpus"]}})
    assert r.is_error and "unknown corpus 'nosuchcorpus'" in r.content[0].text
    assert _session_ids(monkeypatch, capsys) == set()


def test_unknown_corpus_message_names_the_known_ones(monkeypatch, capsys):
    from claimscope.agent.resources import get_store
    from claimscope.tools.models import Document

    get_store(get_settings()).add_documents([Document(id="d1", title="t", sentences=["Tea is a drink."])], "teas")
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "-c", "tea")
    assert code == 2 and "unknown corpus 'tea' (corpora: teas)" in out, out


# ------------------------------------------------------------------------- control characters


def test_strip_control_removes_escapes_whole():
    assert strip_control(NASTY) == "Green tea prevents colds in adults evil"
    assert strip_control("a\tb\nc", keep_newlines=True) == "a b\nc"


def test_control_characters_never_reach_the_store_the_terminal_or_a_report(monkeypatch, capsys, manager):
    r = _mcp(manager, "start_investigation", {"claim": NASTY, "wait_seconds": 30,
                                               "options": {"sources": ["semantic_scholar"]}})
    assert not r.is_error, r.content[0].text
    sid = r.structured_content["session_id"]
    assert r.structured_content["claim"] == "Green tea prevents colds in adults evil"
    manager.shutdown(cancel=False, wait=True)
    code, out = run_main(monkeypatch, capsys, "sessions", "list")
    assert code == 0 and "Green tea prevents colds in adults evil" in out
    for fmt in ("md", "html", "json", "state"):
        code, out = run_main(monkeypatch, capsys, "sessions", "export", sid, "--format", fmt)
        assert code == 0, out
        assert not any(ch in out for ch in "\x00\x07\x1b\u202e"), fmt
    code, out = run_main(monkeypatch, capsys, "investigate", "Coffee\x1b[2J causes\x00 cancer", "-f", "md",
                         *SCHOLARLY)
    assert code == 0 and "Coffee causes cancer" in out and "\x1b[2J" not in out and "\x00" not in out


def test_a_claim_of_only_control_characters_is_empty(monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "investigate", "\x00\x07\x1b[0m", *SCHOLARLY)
    assert code == 2 and "the claim is empty" in out


# ------------------------------------------------------------------------------------ language


@pytest.mark.parametrize(("claim", "language"), [
    (GERMAN, "German"), (CHINESE, "Chinese"), ("La vitamine D réduit le risque des infections respiratoires", "French"),
    ("La vitamina D reduce el riesgo de infecciones respiratorias", "Spanish"),
    ("Витамин D предотвращает простуду", "Russian"),
])
def test_a_claim_in_another_language_is_refused_naming_the_supported_one(claim, language, monkeypatch, capsys):
    assert detect_language(claim).language.startswith(language)
    code, out = run_main(monkeypatch, capsys, "investigate", claim, *SCHOLARLY)
    assert code == 2, out
    assert f"looks like {language}" in out and "English" in out and "too short" not in out, out
    assert not stub_steps.CALLS


@pytest.mark.parametrize("claim", [
    "Vitamin D supplementation prevents respiratory infections", "Coffee causes cancer",
    "Thoracic aortic aneurysms affect 70-100 individuals per 100,000 people per year.",
    "β-blockers reduce mortality after myocardial infarction", "Lung cancer risk is higher among young smokers",
    "Vaccination must be made compulsory", "TNF-alpha and IL-6 levels rise after exercise",
])
def test_english_claims_pass(claim):
    assert detect_language(claim).english
    assert prepare_claim(claim)


# ---------------------------------------------------------------- refused claims, reused sessions


@pytest.mark.parametrize("claim", ["word " * 2000, CHINESE, GERMAN])
def test_a_refused_claim_leaves_no_session(claim, monkeypatch, capsys, manager):
    code, out = run_main(monkeypatch, capsys, "investigate", claim, "--session", "s1", *SCHOLARLY)
    assert code == 2, out
    r = _mcp(manager, "start_investigation", {"claim": claim, "options": {"sources": ["semantic_scholar"]}})
    assert r.is_error
    assert _session_ids(monkeypatch, capsys) == set()


def test_session_id_with_a_different_claim_says_so(monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "--session", "s1",
                         *SCHOLARLY)
    assert code == 0, out
    code, out = run_main(monkeypatch, capsys, "investigate", "Coffee causes cancer", "--session", "s1")
    assert code == 2, out
    assert "session s1 investigates 'Green tea prevents colds', not 'Coffee causes cancer'" in out
    code, out = run_main(monkeypatch, capsys, "investigate", "Green  tea prevents colds", "--session", "s1")
    assert code == 0 and "resuming session s1" in out


def test_guided_investigate_shows_the_first_review_and_how_to_answer(monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "--guided",
                         "--session", "g1", *SCHOLARLY)
    assert code == 0, out
    assert "no report was produced" not in out
    assert "waiting for the claim review" in out and "anti_claim" in out
    assert "claimscope sessions resume g1 --decision accept" in out


# ------------------------------------------------------------------------------- translation


def _translating_services(tmp_path, english: str):
    from tests.investigation_fixtures import investigation_script, make_services

    return make_services(tmp_path, script={**investigation_script(), "translate_claim": [{"english": english}]})


def _translated_run(tmp_path):
    from claimscope.agent.graph.state import InvestigationOptions
    from tests.investigation_fixtures import CLAIM

    services = _translating_services(tmp_path, CLAIM)
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1)
    events = []
    result = Investigator(services, persistent=False).run(GERMAN, opts, translate=True, on_event=events.append)
    return services, result, events


def test_with_translate_the_model_translates_and_the_progress_says_so(tmp_path):
    from tests.investigation_fixtures import CLAIM

    services, result, events = _translated_run(tmp_path)
    assert result.report["claim"] == CLAIM
    assert any(e.kind == "warning" and "written in German" in e.message and "Atemwegsinfektionen" in e.message
               for e in events)
    assert services.llm.scripted.calls.count("translate_claim") == 1


def test_a_translated_claims_report_names_the_original(tmp_path):
    from claimscope.agent.report import render

    _, result, _ = _translated_run(tmp_path)
    md = render(result.report, "md")
    assert "written in German" in md and "Atemwegsinfektionen" in md and "check the translation" in md


def test_a_translation_that_is_not_english_is_refused(tmp_path, monkeypatch):
    from claimscope.agent.investigation import TRANSLATE_ENV

    services = _translating_services(tmp_path, "Vitamin D verringert das Risiko von Infektionen")
    monkeypatch.setenv(TRANSLATE_ENV, "1")
    with pytest.raises(InputError, match="translation .* is not English"):
        Investigator(services, persistent=False).run(GERMAN)


def test_without_translate_the_refusal_says_how_to_ask_for_it(monkeypatch, capsys):
    code, out = run_main(monkeypatch, capsys, "investigate", GERMAN, *SCHOLARLY)
    assert code == 2 and "--translate" in out
