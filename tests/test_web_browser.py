"""The web app driven in headless Chromium (Playwright for Python with the system's browser):
start an investigation, watch progress arrive, complete a guided session through the forms, open
the report, follow a citation, ask a follow-up, and see no console error and no injected script run.

Run with `pytest -m browser`. They skip, saying why, where Playwright or Chromium is missing
(`pip install playwright` and `apt-get install chromium`; no `playwright install` is needed).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.web.app import background_server
from tests.fixtures.sessions import stub_steps
from tests.investigation_fixtures import CLAIM, CORPUS, make_services
from tests.test_web import XSS_SENTENCE, XSS_TITLE, real_services, xss_corpus

pytestmark = pytest.mark.browser


def chromium_path() -> str | None:
    """The Chromium to drive: CLAIMSCOPE_CHROMIUM, else the system's chromium."""
    for candidate in (os.environ.get("CLAIMSCOPE_CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    exe = chromium_path()
    if exe is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set CLAIMSCOPE_CHROMIUM)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


class Watched:
    """A page whose console errors, uncaught errors and dialogs (an injected alert) are recorded."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", on_dialog)

    def close(self) -> None:
        self.context.close()


def where_to_look(page: Any, corpus: str | None = "fixture", depth: str = "1") -> None:
    """Fill what the New investigation and Check a text forms share (_where_to_look.html and the
    depth): `corpus` ticked (None: none ticked here), the local source alone, the depth."""
    if corpus:
        page.check(f'input[name="corpora"][value="{corpus}"]')
    for box in page.query_selector_all('input[name="sources"]'):
        box.set_checked(box.get_attribute("value") == "local")
    page.select_option('select[name="depth"]', depth)


def start_session(page: Any, base: str, claim: str, *, guided: bool = False, corpus: str | None = "fixture",
                  depth: str = "1") -> str:
    """Start an investigation from the New investigation form; its session's id."""
    page.goto(f"{base}/new")
    page.fill("#claim", claim)
    where_to_look(page, corpus, depth)
    if guided:
        page.check('input[name="guided"]')
    page.click("#new-form button[type=submit]")
    page.wait_for_url(f"{base}/sessions/*")
    return str(page.url).rsplit("/", 1)[1]


def test_progress_arrives_live_and_the_page_turns_into_the_report(browser, monkeypatch, tmp_path):
    stub_steps.install(monkeypatch, delay=0.6)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=2)
    w = Watched(browser)
    try:
        with background_server(manager) as base:
            start_session(w.page, base, "Green tea prevents colds")
            assert w.page.get_attribute("#session", "data-live") == "yes"
            first = w.page.locator("#events li").count()
            w.page.locator("#events li").nth(first + 3).wait_for(state="attached")  # streamed in, not reloaded
            assert w.page.locator("#steps li.done, #steps li.running").count() >= 1
            # closing the tab does not stop the run; reopening the session shows where it stands
            url = w.page.url
            w.page.close()
            sid = url.rsplit("/", 1)[1]
            assert manager.is_active(sid)
            page = w.context.new_page()
            page.on("console", lambda m: w.errors.append(m.text) if m.type == "error" else None)
            page.goto(url)
            page.wait_for_selector("#report", timeout=60_000)  # the stream ends and the page reloads
            assert page.locator("#status").inner_text() == "complete"
            assert page.locator('#steps li[data-step="report"].done').count() == 1
    finally:
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == []


def test_guided_session_report_citation_and_follow_up_in_the_browser(browser, tmp_path):
    manager = RunManager(Investigator(real_services(tmp_path, xss_corpus(tmp_path))), max_workers=1)
    w = Watched(browser)
    page = w.page
    try:
        with background_server(manager) as base:
            start_session(page, base, CLAIM, guided=True)
            page.wait_for_selector("#review-form")
            assert page.locator("#review h2").inner_text() == "Your review: claim"
            page.fill("#extra_queries", "vitamin d colds trial")
            page.click('#review-form button[value="edit"]')
            page.wait_for_selector('#review-form input[name="point"][value="sources"]', state="attached")
            # the title with markup is shown as text, and excluding a document goes through the form
            assert page.locator('input[name="exclude"]').count() >= 2
            page.locator('input[name="exclude"]').last.check()
            page.click('#review-form button[value="edit"]')
            page.wait_for_selector('#review-form input[name="point"][value="hierarchy"]', state="attached")
            page.fill('textarea[name="name-1"]', "dose and regimen")
            page.click('#review-form button[value="edit"]')
            page.wait_for_selector('#review-form input[name="point"][value="verdict"]', state="attached")
            page.check('input[name="verdict"][value="dispute"]')
            page.fill("#note", "only a few trials")
            page.click('#review-form button[value="edit"]')
            page.wait_for_selector("#report")

            decisions = page.locator("#report").inner_text()
            assert "dose and regimen" in decisions and "verdict disputed by the reviewer: only a few trials" in decisions
            assert "queries added" in decisions and "excluded" in decisions
            # corpus text with markup renders as text; nothing injected ran
            body = page.locator("body").inner_text()
            assert XSS_TITLE in body and w.dialogs == []
            assert page.locator("#report script, #report img").count() == 0

            # a citation shows its sentence on focus and on hover, and jumps to it
            cite = page.locator("#report a.cite").first
            sentence = cite.get_attribute("data-sentence")
            assert sentence
            cite.focus()
            assert page.locator("#cite-tip").is_visible() and page.locator("#cite-tip").inner_text() == sentence
            page.mouse.move(0, 0)
            cite.blur()
            assert not page.locator("#cite-tip").is_visible()
            cite.hover()
            assert page.locator("#cite-tip").inner_text() == sentence
            target = cite.get_attribute("href")
            cite.click()
            assert page.evaluate("location.hash") == target
            assert page.evaluate(f"document.querySelector('{target}:target') !== null")
            assert sentence in page.locator(target).inner_text()

            # the aspect tree's nodes fold and unfold
            node = page.locator('#report ul.tree .node-name[role="button"]').first
            node.click()
            assert node.get_attribute("aria-expanded") == "false"
            node.press("Enter")
            assert node.get_attribute("aria-expanded") == "true"

            # a follow-up question is answered with citations that preview their sentences
            page.fill('#ask-form input[name="question"]', "show the sources that oppose")
            page.click("#ask-form button")
            page.wait_for_selector("#chat li.assistant")
            answer = page.locator("#chat li.assistant").last
            assert "102" in answer.inner_text()
            chat_cite = answer.locator("a.cite").first
            chat_cite.focus()
            assert page.locator("#cite-tip").inner_text() == chat_cite.get_attribute("data-sentence")

            # exports download
            with page.expect_download() as dl:
                page.click('a[href$="/report.md"]')
            assert CLAIM in Path(dl.value.path()).read_text()
    finally:
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == [] and w.dialogs == []
    assert XSS_SENTENCE  # the corpus carried the payload (xss_corpus)


def test_pages_have_no_console_errors_and_several_tabs_do_not_mix(browser, monkeypatch, tmp_path):
    stub_steps.install(monkeypatch, delay=0.3)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=3)
    tabs = [Watched(browser) for _ in range(3)]
    try:
        with background_server(manager) as base:
            claims = [f"Green tea prevents colds in cohort {i}" for i in range(3)]
            for tab, claim in zip(tabs, claims, strict=True):
                start_session(tab.page, base, claim, corpus=None)
            for tab, claim in zip(tabs, claims, strict=True):
                tab.page.wait_for_selector("#report")
                assert tab.page.locator("h1.claim").inner_text() == claim
                assert not any(c in tab.page.locator("body").inner_text() for c in claims if c != claim)
            page = tabs[0].page
            for path in ("/new", "/corpora", "/"):
                page.goto(base + path)
            assert page.locator("table.sessions tbody tr").count() == 3
            # a corpus upload: the progress bar follows the ingest, then the malformed row is listed
            upload = tmp_path / "upload.jsonl"
            upload.write_text(CORPUS.read_text().splitlines()[0] + "\n{broken\n")
            page.goto(base + "/corpora")
            page.fill('input[name="corpus"]', "uploaded")
            page.set_input_files('input[name="file"]', str(upload))
            page.click("#upload-form button")
            page.wait_for_selector("#ingest-result")
            assert "added 1 documents" in page.locator("#ingest-result").inner_text()
            assert "upload.jsonl:2" in page.locator("ul.problems").inner_text()
            assert "uploaded" in page.locator("table.corpora").inner_text()
    finally:
        for tab in tabs:
            tab.close()
        manager.shutdown(cancel=True, wait=True)
    assert [e for tab in tabs for e in tab.errors] == []
