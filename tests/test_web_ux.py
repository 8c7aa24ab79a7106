"""What a person meets in the web app beyond the happy path: the corpus chosen for them, a run that
could search nothing refused up front (in every entry point), errors as one plain sentence with the
way back, a store held by another server, the progress of finished, cancelled and slow runs, the
disputed verdict, and the review forms' edits.

Pages are driven through Starlette's test client over the real graph, with trivial step bodies
(tests/fixtures/sessions/stub_steps.py) or a whole investigation with the scripted model
(tests/investigation_fixtures.py)."""

from __future__ import annotations

import asyncio
import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from starlette.testclient import TestClient

from claimscope.agent.investigation import Investigator, investigate
from claimscope.agent.mcp_server import build_server
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from claimscope.agent.web import create_app
from claimscope.tools.errors import InputError
from tests.conftest import run_main
from tests.fakes import HashEmbedder
from tests.fixtures.sessions import stub_steps
from tests.investigation_fixtures import CORPUS, make_services
from tests.test_web import LOCAL, _csrf, start

NOTHING_TO_SEARCH = "nothing to search: choose a local corpus or a scholarly source"


def _checked(page: str, name: str) -> list[str]:
    """The values of the ticked checkboxes called `name`."""
    return re.findall(rf'<input type="checkbox" name="{name}" value="([^"]+)" checked>', page)


@pytest.fixture
def stub(monkeypatch, tmp_path):
    stub_steps.install(monkeypatch)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=2)
    with TestClient(create_app(manager), base_url=LOCAL) as client:
        yield client, manager
    manager.shutdown(cancel=True, wait=True)


# ------------------------------------------------------------------------ the corpus to search

def test_the_only_corpus_is_ticked_and_then_the_last_one_used(stub):
    client, manager = stub
    assert _checked(client.get("/new").text, "corpora") == ["fixture"]
    manager.investigator.services.store.add_documents(
        manager.investigator.services.store.get_documents(["101"], corpus="fixture"), corpus="other")
    assert _checked(client.get("/new").text, "corpora") == []  # two corpora, none used yet
    _, location, _ = start(client, "Green tea prevents colds", corpora="other")
    manager.wait(location.rsplit("/", 1)[1], 30)
    assert _checked(client.get("/new").text, "corpora") == ["other"]


def test_a_run_with_nothing_to_search_is_refused_in_the_form(stub):
    client, manager = stub
    form = client.get("/new").text
    r = client.post("/new", data={"csrf": _csrf(form), "claim": "Green tea prevents colds", "sources": "local",
                                  "depth": "1"})
    page = html.unescape(r.text)
    assert r.status_code == 400 and NOTHING_TO_SEARCH in page, page[:3000]
    assert "--corpus" not in page and "claimscope ingest" not in page
    assert manager.list() == [] and stub_steps.CALLS == []  # refused before any step ran
    assert _checked(r.text, "corpora") == []  # the form shows what was sent
    # a scholarly source alone is enough to start
    ok = client.post("/new", data={"csrf": _csrf(form), "claim": "Green tea prevents colds",
                                   "sources": "semantic_scholar", "depth": "1"}, follow_redirects=False)
    assert ok.status_code == 303


def test_a_run_with_nothing_to_search_is_refused_by_the_cli_the_api_and_mcp(monkeypatch, capsys):
    import claimscope.agent.resources as res

    stub_steps.install(monkeypatch)
    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    try:
        code, out = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds")
        assert code == 2 and NOTHING_TO_SEARCH in out, out
        with pytest.raises(InputError, match=NOTHING_TO_SEARCH):
            investigate("Green tea prevents colds", sources=["local"])
        manager = RunManager(Investigator(Services(get_settings())), max_workers=1)

        async def main() -> Any:
            async with Client(build_server(manager)) as c:
                return await c.call_tool("start_investigation", {"claim": "Green tea prevents colds"})

        try:
            r = asyncio.run(main())
            assert r.is_error and NOTHING_TO_SEARCH in r.content[0].text
            assert manager.list() == []
        finally:
            manager.shutdown(cancel=True, wait=True)
        assert stub_steps.CALLS == []
    finally:
        res.close_stores()


# ------------------------------------------------------------------ a store held by another server

HOLD_STORE = """
import sys
from pathlib import Path
from claimscope.tools.ingest import read_path
from claimscope.tools.store import EvidenceStore
from tests.fakes import HashEmbedder
store = EvidenceStore(HashEmbedder(dim=128), path=Path(sys.argv[1]))
store.add_documents(read_path(Path(sys.argv[2])).documents[:2], corpus="fixture")
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_store_held_by_another_server_is_said_in_one_line_not_a_server_error(tmp_path, monkeypatch):
    import uvicorn

    import claimscope.agent.resources as res
    from claimscope.agent.web import serve
    from tests.investigation_fixtures import make_settings

    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(dim=128))
    settings = make_settings(tmp_path)
    path = settings.data_dir / settings.store.path
    holder = subprocess.Popen([sys.executable, "-c", HOLD_STORE, str(path), str(CORPUS)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        services = Services(settings)  # its store opens on first use, as `claimscope serve`'s does
        manager = RunManager(Investigator(services), max_workers=1)
        with TestClient(create_app(manager), base_url=LOCAL, raise_server_exceptions=False) as client:
            for url in ("/new", "/corpora"):
                r = client.get(url)
                text = html.unescape(r.text)
                assert r.status_code == 503 and "is in use by another process" in text, (url, text[:500])
                assert r.headers["content-type"].startswith("text/html") and 'href="/"' in r.text
        # and a second server refuses to start, with that line (the command prints it, exit code 2)
        started: list[Any] = []
        monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append(a))
        with pytest.raises(InputError, match="is in use by another process"):
            serve(manager)
        assert started == []
    finally:
        holder.communicate("", timeout=30)
        res.close_stores()
