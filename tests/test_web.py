"""The web app over HTTP (Starlette's test client): forms, refusals, guided reviews, progress
events, the report, follow-ups, corpora, and the safety rules (escaping, CSRF, token, limits).

Session-flow tests run the real graph with trivial step bodies (tests/fixtures/sessions/stub_steps.py);
the report, escaping and follow-up tests run a whole investigation on the fixture corpus with the
scripted model (tests/investigation_fixtures.py)."""

from __future__ import annotations

import html
import json
import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from claimscope.agent.access import TOKEN_ENV
from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.web import WebConfig, create_app
from claimscope.agent.web.decisions import decision_from_form
from tests.fixtures.sessions import stub_steps
from tests.investigation_fixtures import CLAIM, CORPUS, make_services

XSS_TITLE = '<script>alert("title")</script> Vitamin D trial'
XSS_SENTENCE = 'Vitamin D supplementation reduced the risk of acute respiratory infection <img src=x onerror=alert(1)>.'
TOKEN = "web-t0k3n-for-tests-0123456789"
LOCAL = "http://127.0.0.1:8000"


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page carries no CSRF field"
    return found.group(1)


def xss_corpus(tmp_path: Path) -> Path:
    """The fixture corpus with markup in a title and in a cited sentence."""
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    rows[0]["title"] = XSS_TITLE
    rows[0]["abstract"][0] = XSS_SENTENCE
    path = tmp_path / "xss.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def real_services(tmp_path: Path, corpus: Path | None = None) -> Any:
    services = make_services(tmp_path)
    if corpus is not None:
        from claimscope.tools.find.ingest import read_path

        services.store.delete_corpus("fixture")
        services.store.add_documents(read_path(corpus).documents, corpus="fixture")
    return services


@pytest.fixture
def stub(monkeypatch, tmp_path):
    stub_steps.install(monkeypatch)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=3)
    with TestClient(create_app(manager), base_url=LOCAL) as client:
        yield client, manager
    manager.shutdown(cancel=True, wait=True)


def start(client: TestClient, claim: str, **fields: Any) -> tuple[int, str, str]:
    form = client.get("/new").text
    data = {"csrf": _csrf(form), "claim": claim, "sources": "local", "corpora": "fixture", "depth": "1", **fields}
    r = client.post("/new", data=data, follow_redirects=False)
    return r.status_code, r.headers.get("location", ""), r.text


def test_new_form_lists_corpora_and_sources_and_starts_a_run(stub):
    client, manager = stub
    page = client.get("/new").text
    assert 'value="fixture"' in page and 'value="semantic_scholar"' in page
    code, location, _ = start(client, "Green tea prevents colds", corpora="fixture")
    assert code == 303 and location.startswith("/sessions/")
    sid = location.rsplit("/", 1)[1]
    info = manager.wait(sid, 30)
    assert info.status == "complete" and info.claim == "Green tea prevents colds"
    page = client.get(location).text
    assert "Green tea prevents colds" in page and 'id="report"' in page


@pytest.mark.parametrize("fields, message", [
    ({"claim": "Le thé vert prévient les rhumes chez les adultes"}, "looks like"),
    ({"claim": "ab"}, "claim"),
    ({"corpora": "nope"}, "unknown corpus 'nope' (corpora: fixture)"),
    ({"depth": "9"}, "depth"),
    ({"sources": "gopher"}, "sources"),
])
def test_bad_input_is_refused_in_the_form_with_the_engines_message(stub, fields, message):
    client, manager = stub
    claim = fields.pop("claim", "Green tea prevents colds")
    code, _, page = start(client, claim, **fields)
    assert code == 400 and message in html.unescape(page), page[:2000]
    assert 'class="error"' in page and "Traceback" not in page
    assert html.escape(claim) in page  # the claim stays in the form
    assert manager.list() == []  # nothing was recorded


def test_the_refusal_is_the_one_the_cli_prints(stub):
    # `claimscope investigate` refuses through the same checks (check_corpora, prepare_claim)
    from claimscope.agent.investigation import check_corpora, prepare_claim
    from claimscope.tools.errors import InputError

    client, manager = stub
    for fields, check in (({"corpora": "nope"}, lambda: check_corpora(manager.investigator.services, ["nope"])),
                          ({"claim": "x"}, lambda: prepare_claim("x"))):
        with pytest.raises(InputError) as refused:
            check()
        _, _, page = start(client, **{"claim": "Green tea prevents colds", **fields})
        assert str(refused.value) in html.unescape(page)


def test_posts_without_the_csrf_token_or_from_another_origin_are_refused(stub):
    client, manager = stub
    r = client.post("/new", data={"claim": "Green tea prevents colds"})
    assert r.status_code == 403 and "security token" in r.text
    csrf = _csrf(client.get("/new").text)
    r = client.post("/new", data={"csrf": csrf, "claim": "Green tea prevents colds"},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.text
    r = client.post("/new", data={"csrf": "forged", "claim": "Green tea prevents colds"})
    assert r.status_code == 403
    assert manager.list() == []


def test_guided_session_is_reviewed_through_the_forms_and_every_decision_is_recorded(stub):
    client, manager = stub
    _, location, _ = start(client, "Coffee causes cancer", guided="1")
    sid = location.rsplit("/", 1)[1]
    assert manager.wait(sid, 30).pending["point"] == "claim"
    page = client.get(location).text
    csrf = _csrf(page)
    assert "Your review: claim" in page and 'value="not: Coffee causes cancer"' in page
    client.post(f"{location}/answer", data={"csrf": csrf, "point": "claim", "action": "edit",
                                            "anti_claim": "Coffee does not cause cancer", "sub_claims": "Coffee causes cancer"})
    assert manager.wait(sid, 30).pending["point"] == "sources"
    # a bad edit is refused with the engine's message, and the session still waits
    bad = client.post(f"{location}/answer", data={"csrf": csrf, "point": "sources", "action": "edit",
                                                  "decision_json": '{"exclude": ["zz"]}'})
    assert bad.status_code == 400 and "not among the gathered documents" in html.unescape(bad.text)
    assert manager.status(sid).pending["point"] == "sources"
    stale = client.post(f"{location}/answer", data={"csrf": csrf, "point": "claim", "action": "accept"})
    assert stale.status_code == 409 and "sources review" in stale.text
    client.post(f"{location}/answer", data={"csrf": csrf, "point": "sources", "action": "edit", "exclude": "d2"})
    assert manager.wait(sid, 30).pending["point"] == "hierarchy"
    page = client.get(location).text
    assert 'name="name-1"' in page and 'name="merge-2"' in page
    client.post(f"{location}/answer", data={"csrf": csrf, "point": "hierarchy", "action": "edit",
                                            "name-1": "dosage", "name-2": "duration"})
    assert manager.wait(sid, 30).pending["point"] == "verdict"
    client.post(f"{location}/answer", data={"csrf": csrf, "point": "verdict", "action": "edit",
                                            "verdict": "dispute", "note": "too few trials"})
    info = manager.wait(sid, 30)
    assert info.status == "complete", info
    decisions = manager.result(sid).report["decisions"]
    assert [d["step"] for d in decisions] == ["claim", "sources", "hierarchy", "verdict"]
    choices = " | ".join(d["choice"] for d in decisions)
    assert "anti-claim replaced" in choices and "excluded d2" in choices and "renamed 1 to 'dosage'" in choices
    assert "verdict disputed by the reviewer: too few trials" in choices
    report = client.get(location).text
    assert "too few trials" in report and "Your review" not in report


def test_review_forms_build_the_same_decisions_as_the_cli():
    claim = {"point": "claim", "summary": {"anti_claim": "not x", "sub_claims": ["x"]}}
    assert decision_from_form("claim", {"action": "edit", "anti_claim": "not x", "sub_claims": "x"}, claim) == "accept"
    assert decision_from_form("claim", {"action": "edit", "extra_queries": "a\n\nb", "claim_kind": "debate"},
                              claim) == {"extra_queries": ["a", "b"], "claim_kind": "debate"}
    tree = {"summary": {"nodes": [{"id": "1", "name": "dose"}, {"id": "2", "name": "time"}]}}
    form = {"action": "edit", "name-1": "dose", "merge-1": "2", "delete-2": "1", "add_name": "age", "add_parent": "1"}
    assert decision_from_form("hierarchy", form, tree) == {"edits": [
        {"op": "merge", "node_id": "1", "into": "2"}, {"op": "delete", "node_id": "2"},
        {"op": "add", "parent_id": "1", "name": "age", "description": ""}]}
    assert decision_from_form("verdict", {"action": "edit", "verdict": "accept"}, {}) == "accept"
    assert decision_from_form("sources", {"action": "accept", "exclude": ["d1"]}, {}) == "accept"
    with pytest.raises(Exception, match="the decision is 'accept' or a JSON object, e.g. {\"exclude\""):
        decision_from_form("sources", {"action": "edit", "decision_json": "{nope"}, {})


def _sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_progress_streams_as_server_sent_events_and_resumes_from_the_last_event(stub):
    client, manager = stub
    stub_steps.Knobs.delay = 0.2
    _, location, _ = start(client, "Green tea prevents colds")
    sid = location.rsplit("/", 1)[1]
    assert 'data-live="yes"' in client.get(location).text  # the page subscribes while it runs
    with client.stream("GET", f"{location}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = _sse("".join(stream.iter_text()))
    kinds = [k for k, _ in events]
    assert kinds[-1] == "end" and events[-1][1]["status"] == "complete" and events[-1][1]["has_report"]
    seqs = [d["seq"] for k, d in events if k == "progress"]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) == manager.status(sid).events
    steps = [d["step"] for k, d in events if k == "progress" and d["kind"] == "step_finished"]
    assert steps[:2] == ["analyse", "gather"] and steps[-1] == "report"
    # reconnecting (EventSource sends Last-Event-ID) gets only what came after
    with client.stream("GET", f"{location}/events", headers={"last-event-id": str(seqs[-3])}) as stream:
        again = _sse("".join(stream.iter_text()))
    assert [d["seq"] for k, d in again if k == "progress"] == seqs[-2:]
    # reopening the page shows where it stands, without a live subscription
    page = client.get(location).text
    assert 'data-live="no"' in page and 'data-step="report" class="done"' in page


def test_several_sessions_at_once_do_not_mix(stub):
    client, manager = stub
    stub_steps.Knobs.delay = 0.1
    claims = [f"Green tea prevents colds in group {i}" for i in range(5)]
    sids = [start(client, c)[1].rsplit("/", 1)[1] for c in claims]
    assert len(set(sids)) == 5
    for sid, claim in zip(sids, claims, strict=True):
        assert manager.wait(sid, 60).status == "complete"
        assert manager.result(sid).report["claim"] == claim
        page = client.get(f"/sessions/{sid}").text
        assert claim in page and not any(other in page for other in claims if other != claim)
    listing = client.get("/").text
    assert all(c in listing for c in claims) and listing.count('class="status st-complete"') == 5


def test_sessions_list_export_resume_and_delete(stub):
    client, manager = stub
    _, location, _ = start(client, "Green tea prevents colds")
    sid = location.rsplit("/", 1)[1]
    manager.wait(sid, 30)
    exports = {f: client.get(f"{location}/report.{f}") for f in ("md", "json", "html")}
    assert all(r.status_code == 200 for r in exports.values())
    assert json.loads(exports["json"].text)["claim"] == "Green tea prevents colds"
    assert exports["md"].headers["content-disposition"] == f'attachment; filename="claimscope-{sid}.md"'
    assert client.get(f"{location}/report.pdf").status_code == 404
    csrf = _csrf(client.get("/").text)
    nothing = client.post(f"{location}/resume", data={"csrf": csrf})
    assert nothing.status_code == 409 and "nothing to resume" in nothing.text
    r = client.post(f"{location}/delete", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and manager.list() == []
    assert client.get(location).status_code == 404
    assert client.get("/sessions/bad%20id").status_code == 404


def test_an_interrupted_session_is_resumed_from_the_page(stub):
    client, manager = stub
    stub_steps.Knobs.fail_once = {"assess"}
    _, location, _ = start(client, "Green tea prevents colds")
    sid = location.rsplit("/", 1)[1]
    assert manager.wait(sid, 30).status == "failed"
    page = client.get(location).text
    # the run's exception is not shown: what happened and what to do, next to the Resume button
    assert "The run stopped: an internal error" in html.unescape(page) and "press Resume" in page
    assert "RuntimeError" not in page and f'action="/sessions/{sid}/resume"' in page
    client.post(f"{location}/resume", data={"csrf": _csrf(page)})
    assert manager.wait(sid, 30).status == "complete"


@pytest.fixture
def real(monkeypatch, tmp_path):
    manager = RunManager(Investigator(real_services(tmp_path, xss_corpus(tmp_path))), max_workers=1)
    with TestClient(create_app(manager), base_url=LOCAL) as client:
        yield client, manager
    manager.shutdown(cancel=True, wait=True)


def test_report_page_escapes_corpus_text_and_previews_citations(real):
    client, manager = real
    _, location, _ = start(client, CLAIM, corpora="fixture")
    sid = location.rsplit("/", 1)[1]
    assert manager.wait(sid, 120).status == "complete"
    page = client.get(location).text
    for payload in (XSS_TITLE, XSS_SENTENCE):
        assert payload not in page
    assert "<script>alert" not in page and "<img src=x" not in page
    assert html.escape(XSS_TITLE) in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    # citations carry the cited sentence and jump to it
    cites = re.findall(r'<a class="cite" href="#(src\d+-s\d+)" title="([^"]*)">', page)
    assert cites and all(f'id="{anchor}"' in page for anchor, _ in cites)
    assert any("reduced the risk" in html.unescape(text) for _, text in cites)
    assert "Content-Security-Policy".lower() in {k.lower() for k in client.get(location).headers}
    assert "script-src 'self'" in client.get(location).headers["content-security-policy"]


def test_follow_up_questions_are_answered_with_citations(real, monkeypatch):
    client, manager = real
    _, location, _ = start(client, CLAIM, corpora="fixture")
    sid = location.rsplit("/", 1)[1]
    manager.wait(sid, 120)
    csrf = _csrf(client.get(location).text)
    r = client.post(f"{location}/ask", data={"csrf": csrf, "question": "show the sources that oppose"})
    assert r.status_code == 200 and "102" in r.text
    answers = re.findall(r'<a class="cite" tabindex="0" title="([^"]*)" data-key="([^"]+)">', r.text)
    assert answers and all(key.split("#")[0] in {"101", "102", "103", "104", "105", "106", "107", "108"}
                           for _, key in answers)
    assert all(text and text != key for text, key in answers)  # each citation shows its sentence
    empty = client.post(f"{location}/ask", data={"csrf": csrf, "question": "  "})
    assert empty.status_code == 400 and "ask a question" in empty.text
    from claimscope.agent.chat import ChatEngine

    # the model routes a new claim to the chat's investigate tool: the page points to New instead
    monkeypatch.setattr(ChatEngine, "route", lambda self, text: ("investigate", {"claim": text}))
    new_claim = client.post(f"{location}/ask", data={"csrf": csrf, "question": "coffee causes cancer"})
    assert "start a new investigation" in new_claim.text
    assert len(manager.list()) == 1  # no second investigation was started from the chat


def _ingested(client: TestClient, response: Any) -> str:
    """Follow an upload's job until it finishes; the corpora page then shows its result."""
    import time

    assert response.status_code == 303, response.text
    location = response.headers["location"]
    job = location.rsplit("=", 1)[1]
    page = client.get(location).text
    assert 'id="ingest-job"' in page
    deadline = time.monotonic() + 30
    while not client.get(f"/corpora/jobs/{job}").json()["finished"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    status = client.get(f"/corpora/jobs/{job}").json()
    assert status["done"] == status["total"]
    return client.get(location).text


def test_corpus_upload_reports_malformed_rows_and_progress(stub, tmp_path):
    client, manager = stub
    page = client.get("/corpora").text
    assert "fixture" in page
    csrf = _csrf(page)
    good = CORPUS.read_text().splitlines()[:2]
    body = good[0] + "\n{not json\n" + good[1] + "\n"
    r = client.post("/corpora", data={"csrf": csrf, "corpus": "uploaded"},
                    files={"file": ("mine.jsonl", body.encode(), "application/jsonl")}, follow_redirects=False)
    done = _ingested(client, r)
    assert "added 2 documents" in done and "1 malformed" in done and "mine.jsonl:2" in done
    assert {"uploaded": 2} == {c.name: c.documents for c in manager.investigator.services.store.corpora()
                               if c.name == "uploaded"}
    again = client.post("/corpora", data={"csrf": csrf, "corpus": "uploaded"},
                        files={"file": ("mine.jsonl", body.encode(), "application/jsonl")}, follow_redirects=False)
    assert "added 0 documents" in _ingested(client, again) and "skipped 2 duplicates" in client.get(
        again.headers["location"]).text
    text = client.post("/corpora", data={"csrf": csrf, "corpus": "notes"},
                       files={"file": ("my note.md", b"# Zinc and colds\n\nZinc lozenges shortened colds.\n",
                                       "text/markdown")}, follow_redirects=False)
    assert "added 1 documents" in _ingested(client, text)
    wrong = client.post("/corpora", data={"csrf": csrf, "corpus": "x"}, files={"file": ("a.exe", b"MZ", "x/y")})
    assert wrong.status_code == 400 and "cannot ingest a.exe" in wrong.text
    bad_name = client.post("/corpora", data={"csrf": csrf, "corpus": "../x"}, files={"file": ("a.csv", b"id", "text/csv")})
    assert bad_name.status_code == 400 and "corpus name" in bad_name.text
    unreadable = client.post("/corpora", data={"csrf": csrf, "corpus": "x"},
                             files={"file": ("b.jsonl", b"{nope\n", "application/jsonl")})
    assert unreadable.status_code == 400 and "no readable documents in b.jsonl" in unreadable.text
    assert client.get("/corpora/jobs/nope").status_code == 404


def test_uploads_over_the_limit_are_refused(monkeypatch, tmp_path):
    stub_steps.install(monkeypatch)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    with TestClient(create_app(manager, WebConfig(max_upload_bytes=2_000)), base_url=LOCAL) as client:
        csrf = _csrf(client.get("/corpora").text)
        big = client.post("/corpora", data={"csrf": csrf, "corpus": "big"},
                          files={"file": ("big.jsonl", b"x" * 1_500_000, "application/jsonl")})
        assert big.status_code == 413 and "too large" in big.text
        over = client.post("/corpora", data={"csrf": csrf, "corpus": "big"},
                           files={"file": ("big.jsonl", b"x" * 5_000, "application/jsonl")})
        assert over.status_code == 400 and "upload limit" in over.text
    manager.shutdown()


def test_without_a_token_only_loopback_host_names_are_answered(stub):
    client, _ = stub
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/", headers={"host": "[::1]:8000"}).status_code == 200
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
        r = client.get("/", headers={"host": host})
        assert r.status_code == 403 and "answers only to 127.0.0.1" in r.text


def test_a_token_guards_every_page_and_is_kept_in_a_cookie(stub, tmp_path):
    _, manager = stub
    with TestClient(create_app(manager, WebConfig(token=TOKEN))) as client:
        assert client.get("/").status_code == 401
        assert client.get("/static/app.js").status_code == 401
        assert client.get("/?token=wrong").status_code == 401
        signed = client.get(f"/new?token={TOKEN}", follow_redirects=False)
        assert signed.status_code == 303 and signed.headers["location"] == "/new"
        assert "HttpOnly" in signed.headers["set-cookie"] and "SameSite=Strict" in signed.headers["set-cookie"]
        assert client.get("/new").status_code == 200  # the cookie now carries it
        assert TOKEN not in client.get("/new").text
    with TestClient(create_app(manager, WebConfig(token=TOKEN))) as other:
        assert other.get("/", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_serve_refuses_a_public_interface_without_a_token(monkeypatch, capsys):
    from claimscope.agent.cli import main

    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.setattr(sys, "argv", ["claimscope", "serve", "--host", "0.0.0.0", "--port", "1"])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr().err
    assert exc.value.code == 2 and "serving the web app on 0.0.0.0" in out and TOKEN_ENV in out
    assert "Traceback" not in out


def test_serve_prints_the_url_and_a_generated_token(monkeypatch, capsys):
    import claimscope.agent.web as web
    from claimscope.agent.cli import main

    served: dict[str, Any] = {}
    monkeypatch.setattr(web, "serve", lambda manager, **kw: served.update(kw))
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.setattr(sys, "argv", ["claimscope", "serve"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code in (0, None)
    assert "http://127.0.0.1:8000/" in capsys.readouterr().err
    assert served == {"host": "127.0.0.1", "port": 8000, "token": None, "mcp": False}
    monkeypatch.setattr(sys, "argv", ["claimscope", "serve", "--host", "0.0.0.0", "--port", "9000",
                                      "--generate-token"])
    with pytest.raises(SystemExit):
        main()
    err = capsys.readouterr().err
    token = served["token"]
    assert served["host"] == "0.0.0.0" and token and len(token) >= 32
    assert f"sign-in URL: http://{socket.gethostname()}:9000/?token={token}" in err  # 0.0.0.0 opens nowhere else


def test_templates_and_static_files_are_package_data():
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parent.parent
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "claimscope.agent.web"]
    web = root / "agent" / "web"
    files = [p.relative_to(web).as_posix() for p in web.rglob("*")
             if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files


def test_no_api_key_reaches_a_page(stub, monkeypatch):
    client, manager = stub
    secrets = {"OPENAI_API_KEY": "sk-test-secret-0001", "SERPAPI_API_KEY": "serp-secret-0002",
               "SEMANTIC_SCHOLAR_API_KEY": "s2-secret-0003"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    _, location, _ = start(client, "Green tea prevents colds")
    manager.wait(location.rsplit("/", 1)[1], 30)
    paths = ["/", "/new", "/corpora", location, f"{location}/status", f"{location}/events",
             *(f"{location}/report.{f}" for f in ("md", "json", "html"))]
    for path in paths:
        r = client.get(path)
        assert r.status_code == 200, path
        assert not any(v in r.text for v in secrets.values()), path


def test_an_mcp_client_and_the_pages_share_one_server(stub):
    import asyncio

    import httpx
    from mcp import Client

    from claimscope.agent.web.app import background_server

    _, manager = stub
    with background_server(manager, mcp=True) as base, httpx.Client(base_url=base) as web:
        _, location, _ = start(web, "Green tea prevents colds")
        web_sid = location.rsplit("/", 1)[1]

        async def main() -> tuple[Any, Any]:
            async with Client(f"{base}/mcp") as c:
                started = await c.call_tool("start_investigation", {"claim": "Coffee causes cancer",
                                                                    "options": {"corpora": ["fixture"]},
                                                                    "wait_seconds": 30})
                seen = await c.call_tool("get_status", {"session_id": web_sid, "wait_seconds": 30})
                return started.structured_content, seen.structured_content

        started, seen = asyncio.run(main())
        assert started["status"] == "complete" and seen["status"] == "complete"
        assert seen["claim"] == "Green tea prevents colds"
        page = web.get(f"/sessions/{started['session_id']}").text
        assert "Coffee causes cancer" in page and "Green tea" not in page
        listing = web.get("/").text
        assert "Coffee causes cancer" in listing and "Green tea prevents colds" in listing


def test_the_sources_review_shows_titles_escaped(real):
    client, manager = real
    _, location, _ = start(client, CLAIM, corpora="fixture", guided="1")
    sid = location.rsplit("/", 1)[1]
    assert manager.wait(sid, 60).pending["point"] == "claim"
    client.post(f"{location}/answer", data={"csrf": _csrf(client.get(location).text), "point": "claim",
                                            "action": "accept"})
    assert manager.wait(sid, 60).pending["point"] == "sources"
    page = client.get(location).text
    assert XSS_TITLE in html.unescape(page) and XSS_TITLE not in page and "&lt;script&gt;alert" in page
    assert 'name="exclude" value="101"' in page
