"""The documentation's MCP client examples, read from docs/sessions-mcp-api.md as a reader copies
them, run against the real server with the pinned MCP SDK."""

from __future__ import annotations

import contextlib
import io
import logging
import re

import pytest

from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from tests.conftest import REPO
from tests.fakes import HashEmbedder
from tests.fixtures.sessions import stub_steps
from tests.mcp_http import http_server

DOC = REPO / "docs" / "sessions-mcp-api.md"


def _doc_example(marker: str) -> str:
    """The docs' one Python example containing `marker`, as the reader copies it."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"{DOC.name} should hold one Python example with {marker!r}, found {len(found)}"
    return found[0]


MCP_CLIENT = _doc_example("progress_callback=")
MCP_CLIENT_WITH_TOKEN = _doc_example("CLAIMSCOPE_MCP_TOKEN")


@pytest.fixture
def manager(monkeypatch):
    import claimscope.agent.resources as res
    from claimscope.tools.models import Document

    stub_steps.install(monkeypatch, delay=0.4)
    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    services = Services(get_settings())
    services.store.add_documents([Document(id="d1", title="Vitamin D", sentences=["Vitamin D and colds."])],
                                 "scifact")
    m = RunManager(Investigator(services), max_workers=1)
    yield m
    m.shutdown(cancel=True, wait=True)
    res.close_stores()


def _run_example(code: str, url: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace("http://127.0.0.1:8765/mcp", url), "<example>", "exec"), {})
    return out.getvalue()


def _callback_errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "progress callback raised" in r.getMessage()]


def test_the_mcp_client_example_runs_with_progress_and_prints_the_report(manager, caplog):
    caplog.set_level(logging.ERROR)
    with http_server(manager) as url:
        printed = _run_example(MCP_CLIENT, url)
    progress = [line for line in printed.splitlines() if re.match(r"^\d+(\.\d+)? \w+: ", line)]
    assert progress, printed  # progress notifications arrived through the callback
    assert "Vitamin D supplementation prevents colds" in printed and "#" in printed  # the md report
    assert _callback_errors(caplog) == []


def test_a_synchronous_progress_callback_fails_on_every_event(manager, caplog):
    """Why the example's callback is async: the SDK awaits it and logs an error for each event."""
    caplog.set_level(logging.ERROR)
    sync = MCP_CLIENT.replace("async def show(", "def show(")
    assert sync != MCP_CLIENT
    with http_server(manager) as url:
        _run_example(sync, url)
    assert len(_callback_errors(caplog)) >= 5


def test_the_mcp_client_example_with_a_token(manager, monkeypatch):
    monkeypatch.setenv("CLAIMSCOPE_MCP_TOKEN", "a-long-enough-test-token-123")
    with http_server(manager, token="a-long-enough-test-token-123") as url:
        printed = _run_example(MCP_CLIENT_WITH_TOKEN, url)
    assert "start_investigation" in printed
