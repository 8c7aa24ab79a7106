"""A claim is accepted once, by one rule (`investigation.accept_claim`): every entry point (the CLI,
the Python API, the run manager behind the web app and MCP, the MCP tool, the LangChain tool) refuses
the same bad claim with the same message, and a started session does not check its claim again.
Driven with the real graph and checkpointer on trivial step bodies (tests/fixtures/sessions)."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client

from claimscope.agent import api, investigation
from claimscope.agent.investigation import Investigator, default_options, investigate, prepare_claim
from claimscope.agent.mcp_server import build_server
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from claimscope.tools.errors import InputError
from tests.conftest import run_main
from tests.fakes import HashEmbedder
from tests.fixtures.sessions import stub_steps

# Too short for intake but long enough for a bare length bound; two words; a language not read.
BAD_CLAIMS = ["xy", "Coffee bad", "维生素D补充剂可以预防呼吸道感染"]
SCHOLARLY = ["semantic_scholar"]


@pytest.fixture(autouse=True)
def _stubbed(monkeypatch):
    import claimscope.agent.resources as res

    stub_steps.install(monkeypatch)
    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    yield
    res.close_stores()


@pytest.fixture
def manager():
    m = RunManager(Investigator(Services(get_settings())), max_workers=1)
    yield m
    m.shutdown(cancel=True, wait=True)


def _refusal(fn) -> str:
    with pytest.raises(InputError) as exc:
        fn()
    return str(exc.value)


@pytest.mark.parametrize("claim", BAD_CLAIMS)
def test_every_entry_point_refuses_a_bad_claim_with_the_intake_message(claim, monkeypatch, capsys, manager):
    message = _refusal(lambda: prepare_claim(claim))

    code, out = run_main(monkeypatch, capsys, "investigate", claim, "--sources", ",".join(SCHOLARLY))
    assert code == 2 and " ".join(message.split()) in " ".join(out.split()), out

    assert _refusal(lambda: investigate(claim, sources=SCHOLARLY)) == message
    opts = default_options(manager.investigator.services.settings, sources=SCHOLARLY)
    assert _refusal(lambda: manager.start(claim, opts)) == message

    async def call_mcp():
        async with Client(build_server(manager)) as c:
            return await c.call_tool("start_investigation", {"claim": claim, "options": {"sources": SCHOLARLY}})

    result = asyncio.run(call_mcp())
    assert result.is_error and message in result.content[0].text

    tool = {t.name: t for t in api.langchain_tools(manager.investigator.services)}["investigate_claim"]
    assert message in tool.invoke({"claim": claim, "options": {"sources": SCHOLARLY}})
    assert not stub_steps.CALLS  # nothing ran


def test_a_started_session_checks_its_claim_once(monkeypatch, manager):
    checked: list[str] = []
    original = investigation.prepare_claim

    def counting(claim: str) -> str:
        checked.append(claim)
        return original(claim)

    monkeypatch.setattr(investigation, "prepare_claim", counting)
    opts = default_options(manager.investigator.services.settings, sources=SCHOLARLY)
    sid = manager.start("Green tea prevents colds in adults", opts)
    info = manager.wait(sid, timeout=60)
    assert info.status == "complete", info
    assert checked == ["Green tea prevents colds in adults"]
