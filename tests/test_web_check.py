"""The web app's Check a text pages over HTTP (Starlette's test client): paste or upload a text, the
claims review (ticks, wordings, JSON edits) applied by the engine's edits, progress per claim,
cancel and resume, the marked text with its summary and exports, and the safety rules (CSRF,
escaping, size and text limits, the access token). Runs whole investigations on the fixture corpus
with the scripted model (tests/investigation_fixtures.py)."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from typing import Any

import pytest
from starlette.testclient import TestClient

from claimscope.agent.check import TextChecker
from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.web import WebConfig, create_app
from tests.investigation_fixtures import make_services
from tests.test_web import LOCAL, TOKEN, _csrf

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful. "
        "Monthly high-dose vitamin D does not reduce infections in adults.")
OPTIONS = {"corpora": "fixture", "sources": "local", "depth": "1"}


@pytest.fixture
def app(tmp_path):
    manager = RunManager(Investigator(make_services(tmp_path, check={"max_claims": 2, "max_text_chars": 2_000})),
                         max_workers=1)
    client = TestClient(create_app(manager), base_url=LOCAL)
    yield client
    manager.shutdown(cancel=True, wait=True)


def hold_second_claim(monkeypatch: Any) -> threading.Event:
    """The second claim of a check waits until the returned event is set (at most 30 s), so a
    test sees a check in the middle of its run."""
    release = threading.Event()
    real = TextChecker._investigate

    def held_second(self, record, claim, options, index, *args, **kwargs):
        if index == 2:
            release.wait(30)
        return real(self, record, claim, options, index, *args, **kwargs)

    monkeypatch.setattr(TextChecker, "_investigate", held_second)
    return release


def _submit(client: TestClient, text: str = TEXT, files: Any = None, **extra: str) -> Any:
    csrf = _csrf(client.get("/check").text)
    return client.post("/check", data={"csrf": csrf, "text": text, **OPTIONS, **extra}, files=files,
                       follow_redirects=False)


def _check_id(resp: Any) -> str:
    assert resp.status_code == 303, resp.text
    return resp.headers["location"].rsplit("/", 1)[1]


def _wait(client: TestClient, cid: str, until: tuple[str, ...] = ("complete", "cancelled", "interrupted"),
          timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(f"/checks/{cid}/status").json()
        if status["status"] in until:
            return status
        time.sleep(0.05)
    raise AssertionError(f"check {cid} still {status}")


def _review(client: TestClient, cid: str, **fields: str) -> Any:
    csrf = _csrf(client.get("/check").text)
    return client.post(f"/checks/{cid}/claims", data={"csrf": csrf, **fields}, follow_redirects=False)


def test_paste_review_run_and_the_marked_text(app):
    cid = _check_id(_submit(app))
    page = app.get(f"/checks/{cid}").text
    # The review: each part of the text with its check-worthiness and reason, ticked as the rules judged.
    assert 'id="claims-form"' in page and "Your review: the claims" in page
    assert re.search(r'name="check-c1" value="1" checked', page) and re.search(r'name="check-c3" value="1" checked', page)
    assert not re.search(r'name="check-c2" value="1" checked', page)
    assert "an opinion, a judgement or a recommendation" in page
    # Keep c1 reworded and c3; leave the opinion out.
    resp = _review(app, cid, **{"check-c1": "1", "text-c1": "Vitamin D supplements prevent respiratory infections.",
                                "text-c2": "We believe it is wonderful.", "check-c3": "1",
                                "text-c3": "Monthly high-dose vitamin D does not reduce infections in adults."})
    assert resp.status_code == 303
    status = _wait(app, cid)
    assert status["status"] == "complete" and status["done"] == status["total"] == 2
    assert [c["id"] for c in status["claims"]] == ["c1", "c3"] and all(c["verdict"] for c in status["claims"])
    page = app.get(f"/checks/{cid}").text
    # Each checked span is coloured by its verdict and linked to its claim's session page (full report).
    marks = re.findall(r'<mark class="v-([a-z-]+)" data-claim="(c\d)"[^>]*><a href="([^"]+)">([^<]+)</a>', page)
    assert [(m[1], m[2]) for m in marks] == [("c1", f"/sessions/{cid}-c1"), ("c3", f"/sessions/{cid}-c3")]
    assert marks[0][3] == "Vitamin D supplementation prevents respiratory infections."
    assert "<h2>Summary</h2>" in page and "Vitamin D supplements prevent respiratory infections." in page
    assert "<h2>Not checked</h2>" in page and "We believe it is wonderful." in page and "— opinion:" in page
    assert app.get(f"/sessions/{cid}-c1").status_code == 200
    for fmt, kind in (("md", "text/markdown"), ("json", "application/json"), ("html", "text/html")):
        resp = app.get(f"/checks/{cid}/report.{fmt}")
        assert resp.status_code == 200 and resp.headers["content-type"].startswith(kind)
    assert json.loads(app.get(f"/checks/{cid}/report.json").text)["kind"] == "text_check"
    # The check is listed on the Check a text page.
    assert f'href="/checks/{cid}"' in app.get("/check").text


def test_the_status_poll_does_not_render_the_marked_text(app, monkeypatch):
    cid = _check_id(_submit(app))
    assert _review(app, cid, **{"check-c1": "1", "check-c3": "1"}).status_code == 303
    _wait(app, cid)

    def rendered(*args: Any) -> Any:
        raise AssertionError("the status poll rendered the marked text")

    # Polled every second while a check runs: its progress only, not the page's HTML report.
    monkeypatch.setattr("claimscope.agent.web.checks.marked_text_html", rendered)
    status = app.get(f"/checks/{cid}/status").json()
    assert status["done"] == 2 and all(c["verdict"] for c in status["claims"])


def test_an_upload_is_read_and_bad_files_are_one_line_refusals_that_keep_the_text(app):
    cid = _check_id(_submit(app, "", files={"file": ("release.md", TEXT.encode(), "text/markdown")}))
    assert "release.md" in app.get(f"/checks/{cid}").text
    bad = _submit(app, "", files={"file": ("run.exe", b"MZ\x00\x00", "application/octet-stream")})
    assert bad.status_code == 400 and "cannot check run.exe: upload a .txt, .md, .pdf file" in bad.text
    binary = _submit(app, "", files={"file": ("notes.txt", b"\x00\x01binary", "text/plain")})
    assert binary.status_code == 400 and "notes.txt is a binary file" in binary.text
    assert "upload" not in re.sub(r"notes\.txt", "", binary.text.split('class="error"')[1].split("</p>")[0])
    both = _submit(app, TEXT, files={"file": ("release.md", TEXT.encode(), "text/markdown")})
    assert both.status_code == 400 and "not both" in both.text
    # The pasted text is never lost: a refused form shows it again.
    assert html.escape(TEXT, quote=False) in both.text
    empty = _submit(app, "   ")
    assert empty.status_code == 400 and "paste the text to check" in empty.text


def test_the_text_and_claim_limits_are_the_settings(app):
    long = (TEXT + " ") * 15
    resp = _submit(app, long)
    assert resp.status_code == 400 and "the text is too long" in resp.text and "limit 2,000" in resp.text
    assert html.escape(long.strip()[:200], quote=False) in resp.text  # kept in the textarea
    # Three check-worthy claims against max_claims 2: a warning in the review, and ticking them all is refused.
    three = TEXT + " Vitamin D lowers the risk of falls in older adults."
    cid = _check_id(_submit(app, three))
    page = app.get(f"/checks/{cid}").text
    assert "more than 2 claims read as check-worthy" in page
    resp = _review(app, cid, **{f"check-c{i}": "1" for i in (1, 2, 3, 4)})
    assert resp.status_code == 400 and "4 check-worthy claims, more than the 2 one check runs" in resp.text
    # The person's ticks are kept on the refused page.
    assert re.search(r'name="check-c2" value="1" checked', resp.text)


def test_a_bad_edit_is_refused_with_the_claim_named_and_the_wordings_kept(app):
    cid = _check_id(_submit(app))
    resp = _review(app, cid, **{"check-c1": "1", "text-c1": "hi", "check-c3": "1"})
    assert resp.status_code == 400 and "claim c1" in resp.text and "too short" in resp.text
    assert re.search(r'aria-label="wording of c1">hi</textarea>', resp.text)
    resp = _review(app, cid, edits_json="[{\"id\": \"c9\", \"check_worthy\": false}]")
    assert resp.status_code == 400 and "unknown claim id 'c9'" in html.unescape(resp.text)
    resp = _review(app, cid, edits_json="not json")
    assert resp.status_code == 400 and "the edits are a JSON list" in resp.text
    # JSON edits as the command line's claims file takes them: only c3 is checked.
    resp = _review(app, cid, edits_json=json.dumps({"claims": [{"id": "c1", "check_worthy": False}]}))
    assert resp.status_code == 303
    assert [c["id"] for c in _wait(app, cid)["claims"]] == ["c3"]
    # Chosen once: a second review is refused.
    assert _review(app, cid, **{"check-c1": "1"}).status_code == 409


def test_progress_per_claim_cancel_and_resume(app, monkeypatch):
    release = hold_second_claim(monkeypatch)
    cid = _check_id(_submit(app))
    assert _review(app, cid, **{"check-c1": "1", "check-c3": "1"}).status_code == 303
    deadline = time.monotonic() + 60
    while (status := app.get(f"/checks/{cid}/status").json())["done"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert status["status"] == "running" and status["line"].startswith("claim 1 of 2")
    page = app.get(f"/checks/{cid}").text
    assert 'id="check-progress"' in page and 'data-live="yes"' in page and "Cancel the check" in page
    assert app.post(f"/checks/{cid}/cancel", data={"csrf": _csrf(page)}, follow_redirects=False).status_code == 303
    assert app.get(f"/checks/{cid}/status").json()["status"] == "cancelling"
    release.set()
    status = _wait(app, cid, ("cancelled",))
    assert status["done"] == 1
    page = app.get(f"/checks/{cid}").text
    assert "Resume" in page and f'href="/sessions/{cid}-c1"' in page  # the finished claim is shown
    assert app.post(f"/checks/{cid}/resume", data={"csrf": _csrf(page)}, follow_redirects=False).status_code == 303
    assert _wait(app, cid)["status"] == "complete"


def test_markup_in_the_text_is_escaped_everywhere(app):
    evil = '<script>alert(1)</script> Vitamin D supplementation prevents <img src=x onerror=alert(2)> infections.'
    cid = _check_id(_submit(app, evil))
    page = app.get(f"/checks/{cid}").text
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "&lt;script&gt;" in page
    assert _review(app, cid, **{"check-c1": "1"}).status_code == 303
    _wait(app, cid)
    page = app.get(f"/checks/{cid}").text
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "&lt;img src=x" in page


def test_posts_need_the_csrf_token_and_the_same_origin(app):
    assert app.post("/check", data={"text": TEXT, **OPTIONS}).status_code == 403
    csrf = _csrf(app.get("/check").text)
    resp = app.post("/check", data={"csrf": csrf, "text": TEXT, **OPTIONS}, headers={"origin": "http://evil.example"})
    assert resp.status_code == 403
    cid = _check_id(_submit(app))
    assert app.post(f"/checks/{cid}/claims", data={"check-c1": "1"}).status_code == 403
    assert app.post(f"/checks/{cid}/cancel", data={}).status_code == 403
    assert app.get("/checks/not%20an%20id").status_code == 404
    assert app.get("/checks/nosuchcheck").status_code == 404


def test_the_pages_need_the_token_when_one_is_set(tmp_path):
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    try:
        client = TestClient(create_app(manager, WebConfig(token=TOKEN)), base_url=LOCAL)
        assert client.get("/check").status_code == 401
        assert client.get("/check", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    finally:
        manager.shutdown(cancel=True, wait=True)
