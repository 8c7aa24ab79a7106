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
import time
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
import time
from pathlib import Path
from claimscope.tools.find.ingest import read_path
from claimscope.tools.find.store import EvidenceStore
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


# ------------------------------------------------------------------ no developer text on a page

DEVELOPER_TEXT = re.compile(r"Traceback|\blitellm\b|\b\w+(Error|Exception|Timeout)\b")
COMMAND_LINE = re.compile(r"--corpus|(?<![\w-])--[a-z][a-z-]+|`[^`]+`|\bclaimscope (?:chat|corpus|ingest|investigate|"
                          r"llm|mcp|retractions|search|serve|sessions)\b|\bsessions resume\b")


def visible(page: str) -> str:
    """What a person can read on a page: its text and its tooltips, without scripts or styles."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    tips = " ".join(re.findall(r'title="([^"]*)"', page))
    return html.unescape(re.sub(r"<[^>]+>", " ", page) + " " + tips)


def assert_plain(page: str, where: str) -> None:
    text = visible(page)
    for pattern in (DEVELOPER_TEXT, COMMAND_LINE):
        found = pattern.search(text)
        assert found is None, f"{where}: {found.group(0)!r} in ...{text[max(0, found.start() - 200):found.end() + 100]}"


def _wait_for(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_no_page_shows_developer_text_in_any_session_state(monkeypatch, tmp_path):
    from claimscope.agent.graph import steps
    from claimscope.agent.llm.fake import timeout as llm_timeout
    from tests.investigation_fixtures import CLAIM

    pages: dict[str, str] = {}
    # complete and no evidence: whole investigations with the scripted model
    manager = RunManager(Investigator(make_services(tmp_path / "real")), max_workers=1)
    try:
        with TestClient(create_app(manager), base_url=LOCAL) as client:
            _, done, _ = start(client, CLAIM)
            _, empty, _ = start(client, "Volcanic ash raises the price of Icelandic wool sweaters")
            assert manager.wait(done.rsplit("/", 1)[1], 120).status == "complete"
            assert manager.wait(empty.rsplit("/", 1)[1], 120).status == "no_evidence"
            pages["complete"], pages["no evidence"] = client.get(done).text, client.get(empty).text
            pages["list of finished sessions"] = client.get("/").text
    finally:
        manager.shutdown(cancel=True, wait=True)
    # running, paused, cancelled, failed: the real graph with trivial steps, one failing as a
    # model library fails
    stub_steps.install(monkeypatch, delay=2.0)

    analyse = steps.NODES["analyse"]

    def times_out(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
        if state["claim"] == "Garlic prevents colds":
            raise llm_timeout()
        return analyse(state, runtime)

    monkeypatch.setitem(steps.NODES, "analyse", times_out)
    manager = RunManager(Investigator(make_services(tmp_path / "stub")), max_workers=4)
    try:
        with TestClient(create_app(manager), base_url=LOCAL) as client:
            _, running, _ = start(client, "Green tea prevents colds")
            _, paused, _ = start(client, "Coffee causes cancer", guided="1")
            _, cancelled, _ = start(client, "Zinc shortens colds")
            sid = lambda url: url.rsplit("/", 1)[1]  # noqa: E731
            _wait_for(lambda: manager.events(sid(cancelled)))
            client.post(f"{cancelled}/cancel", data={"csrf": _csrf(client.get("/new").text)})
            assert manager.wait(sid(paused), 60).status == "paused"
            assert manager.wait(sid(cancelled), 60).status == "cancelled"
            pages["running"] = client.get(running).text
            assert manager.status(sid(running)).active
            pages["paused"], pages["cancelled"] = client.get(paused).text, client.get(cancelled).text
            _, failed, _ = start(client, "Garlic prevents colds")
            assert manager.wait(sid(failed), 60).status == "failed"
            assert "Timeout" in (manager.status(sid(failed)).error or "")  # what the run recorded
            pages["failed"] = client.get(failed).text
            pages["list"] = client.get("/").text
            pages["missing session"] = client.get("/sessions/nope").text
            pages["missing page"] = client.get("/nowhere").text
            form = client.get("/new").text
            pages["new"], pages["corpora"] = form, client.get("/corpora").text
            for name, fields in {"bad depth": {"depth": "9"}, "bad source": {"sources": "gopher"},
                                 "nothing to search": {"corpora": ""},
                                 "unknown corpus": {"corpora": "nope"}, "empty claim": {"claim": "   "},
                                 "French claim": {"claim": "Le thé vert prévient les rhumes chez les adultes"}}.items():
                data = {"csrf": _csrf(form), "claim": "Green tea prevents colds", "sources": "local",
                        "corpora": "fixture", "depth": "1", **fields}
                r = client.post("/new", data=data)
                assert r.status_code == 400, name
                pages[f"form: {name}"] = r.text
            manager.cancel(sid(running))
    finally:
        manager.shutdown(cancel=True, wait=True)
    assert "The run stopped: the language model did not answer in time" in html.unescape(pages["failed"])
    assert "depth must be between 1 and 3, not 9." in pages["form: bad depth"]
    assert "Page not found" in pages["missing page"] and 'href="/"' in pages["missing session"]
    for where, page in pages.items():
        assert 'class="error"' in page or not where.startswith("form"), where
        assert_plain(page, where)


# ------------------------------------------------------------------------------ progress and cancel

def _step_classes(page: str) -> dict[str, str]:
    return dict(re.findall(r'<li data-step="([a-z_]+)" class="([a-z]+)"', page))


def test_a_no_evidence_session_shows_its_skipped_steps_and_why(tmp_path):
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    try:
        with TestClient(create_app(manager), base_url=LOCAL) as client:
            _, location, _ = start(client, "Volcanic ash raises the price of Icelandic wool sweaters")
            assert manager.wait(location.rsplit("/", 1)[1], 120).status == "no_evidence"
            page = client.get(location).text
    finally:
        manager.shutdown(cancel=True, wait=True)
    classes = _step_classes(page)
    assert classes["analyse"] == classes["gather"] == classes["report"] == "done"
    assert {classes[s] for s in ("grow_hierarchy", "assess", "weigh", "aggregate", "explain")} == {"skipped"}
    assert "not built yet" not in page and "not built: no evidence was found" in page
    assert page.count("skipped: no evidence was found") == 5
    # the status in words, beside the session's name and in the report ("no_evidence" read as code)
    assert 'class="status st-no_evidence">no evidence<' in page and "no_evidence" not in visible(page)


def test_cancel_returns_at_once_and_the_page_says_cancelling_then_cancelled(stub):
    client, manager = stub
    stub_steps.Knobs.delay = 12.0  # a slow step: progress every 3 s, where the run can stop
    _, location, _ = start(client, "Green tea prevents colds")
    sid = location.rsplit("/", 1)[1]
    _wait_for(lambda: any(e.kind == "counts" for e in manager.events(sid)))
    page = client.get(location).text
    assert re.search(r'<li data-step="analyse" class="running" data-elapsed="\d+">', page)  # the timer's start
    began = time.monotonic()
    r = client.post(f"{location}/cancel", data={"csrf": _csrf(page)}, follow_redirects=False)
    assert r.status_code == 303 and time.monotonic() - began < 1.5
    page = client.get(location).text
    assert manager.status(sid).active and 'class="status st-cancelling">cancelling…<' in page
    assert "Cancelling…</button>" in page and "cancelling…" in client.get("/").text
    assert manager.wait(sid, 30).status == "cancelled"
    page = client.get(location).text
    assert 'class="status st-cancelled">cancelled<' in page
    classes = _step_classes(page)
    assert "running" not in classes.values() and classes["analyse"] == "stopped"
    assert "stopped: cancelled" in page


# ------------------------------------------------------------------------------ a disputed verdict

def test_a_disputed_verdict_is_flagged_beside_it_and_in_the_list(stub):
    client, manager = stub
    _, location, _ = start(client, "Coffee causes cancer", guided="1")
    sid = location.rsplit("/", 1)[1]
    csrf = _csrf(client.get("/new").text)
    for point in ("claim", "sources", "hierarchy"):
        assert manager.wait(sid, 30).pending["point"] == point
        client.post(f"{location}/answer", data={"csrf": csrf, "point": point, "action": "accept"})
    assert manager.wait(sid, 30).pending["point"] == "verdict"
    client.post(f"{location}/answer", data={"csrf": csrf, "point": "verdict", "action": "edit",
                                            "verdict": "dispute", "note": "two trials only"})
    _, other, _ = start(client, "Green tea prevents colds")
    manager.wait(sid, 30), manager.wait(other.rsplit("/", 1)[1], 30)
    page = client.get(location).text
    assert re.search(r'<strong id="verdict">[^<]+</strong> <span class="flag disputed"[^>]*>⚑ '
                     r'disputed by the reviewer</span>', page), page[:3000]
    assert "disputed" not in visible(client.get(other).text).replace("why is an aspect disputed", "")
    rows = client.get("/").text.split('<tr data-session="')[1:]
    flagged = {row.split('"', 1)[0]: "⚑ disputed by the reviewer" in row for row in rows}
    assert flagged == {sid: True, other.rsplit("/", 1)[1]: False}


def test_judges_disagreeing_on_documents_flag_the_verdict():
    from claimscope.agent.web.routes import _verdict

    report = {"verdict": {"weighted": {"label": "controversial"}},
              "documents": [{"id": "1", "disagreement": "one judge read it as supporting"}, {"id": "2"},
                            {"id": "3", "sign_conflict": True}]}
    assert _verdict(report) == {"verdict": "controversial", "verdict_flags": ["judges disagree on 2 documents"]}
    assert _verdict({"verdict": {"weighted": {"label": "controversial"}}})["verdict_flags"] == []


# ------------------------------------------------------------------------------ review forms

def test_emptied_claim_fields_mean_none_and_each_review_shows_its_own_json_example(stub):
    from claimscope.agent.web.decisions import EXAMPLES, decision_from_form

    claim = {"point": "claim", "summary": {"anti_claim": "not x", "sub_claims": ["x1", "x2"]}}
    assert decision_from_form("claim", {"action": "edit", "anti_claim": "", "sub_claims": ""}, claim) == {
        "anti_claim": "", "sub_claims": []}
    client, manager = stub
    _, location, _ = start(client, "Coffee causes cancer", guided="1")
    sid = location.rsplit("/", 1)[1]
    assert manager.wait(sid, 30).pending["point"] == "claim"
    page = client.get(location).text
    assert EXAMPLES["claim"] in html.unescape(page) and EXAMPLES["sources"] not in html.unescape(page)
    bad = client.post(f"{location}/answer", data={"csrf": _csrf(page), "point": "claim", "action": "edit",
                                                  "decision_json": "{nope"})
    message = html.unescape(re.search(r'<p class="error" role="alert">(.*?)</p>', bad.text, re.S).group(1))
    assert bad.status_code == 400 and EXAMPLES["claim"] in message and "exclude" not in message
    client.post(f"{location}/answer", data={"csrf": _csrf(page), "point": "claim", "action": "edit",
                                            "anti_claim": "", "sub_claims": ""})
    assert manager.wait(sid, 30).pending["point"] == "sources"
    analysis = manager.investigator.state(sid)["analysis"]
    assert analysis["anti_claim"] == "" and analysis["sub_claims"] == ["Coffee causes cancer"]
    applied = manager.investigator.state(sid)["decisions"][0]["applied"]
    assert "anti-claim removed" in applied and "sub-claims replaced" in applied
