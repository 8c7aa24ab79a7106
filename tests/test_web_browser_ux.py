"""The web app's busy and waiting states in headless Chromium: the running step's timer, cancel
(cancelling…, then cancelled), the Ask button while a follow-up is answered, the corpus ticked on
the New page, and the review and progress texts that must wrap without being cut or losing their
indent. Run with `pytest -m browser` (they skip where Playwright or Chromium is missing)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.web.app import background_server
from tests.fixtures.sessions import stub_steps
from tests.investigation_fixtures import CLAIM, make_services
from tests.test_web_browser import Watched, browser, start_session  # noqa: F401  (the module's browser fixture)

pytestmark = pytest.mark.browser
LONG_NAME = "clinical trial efficacy in adults with low baseline vitamin D levels"


def test_the_running_step_shows_its_time_and_cancel_shows_cancelling_then_cancelled(browser, monkeypatch,  # noqa: F811
                                                                                      tmp_path):
    stub_steps.install(monkeypatch, delay=12.0)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    w = Watched(browser)
    page = w.page
    try:
        with background_server(manager) as base:
            page.goto(f"{base}/new")
            assert page.is_checked('input[name="corpora"][value="fixture"]')  # the only corpus
            start_session(page, base, "Green tea prevents colds")
            timer = page.locator('#steps li.running .elapsed')
            timer.wait_for()
            first = timer.inner_text()
            page.wait_for_function("t => document.querySelector('#steps li.running .elapsed').textContent !== t",
                                   arg=first, timeout=5_000)
            assert ":" in timer.inner_text()  # minutes:seconds, counted in the page
            began = time.monotonic()
            page.click("#cancel-form button")
            assert time.monotonic() - began < 3
            assert page.locator("#status").inner_text() == "cancelling…"
            assert page.locator("#cancel-form button").is_disabled()
            page.wait_for_function("() => document.getElementById('status').textContent === 'cancelled'",
                                   timeout=30_000)
            assert page.locator("#steps li.running").count() == 0
    finally:
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == []


def test_ask_is_busy_while_a_follow_up_is_answered(browser, monkeypatch, tmp_path):  # noqa: F811
    from claimscope.agent.chat import ChatEngine

    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    w = Watched(browser)
    page = w.page
    release = threading.Event()
    answer = ChatEngine.call

    called: list[str] = []

    def slow_call(self: Any, tool: str, args: Any) -> Any:
        called.append(tool)
        release.wait(30)  # the answer comes when the test has looked at the page
        return answer(self, tool, args)

    monkeypatch.setattr(ChatEngine, "call", slow_call)
    try:
        with background_server(manager) as base:
            start_session(page, base, CLAIM)
            page.wait_for_selector("#ask-form", timeout=120_000)
            page.fill('#ask-form input[name="question"]', "show the sources that oppose")
            page.click("#ask-form button")
            page.wait_for_function("() => document.querySelector('#ask-form button').disabled", polling=100)
            assert page.locator("#ask-form button").inner_text() == "Asking…"
            assert called == ["show_sources"]  # the server is answering meanwhile
            assert page.locator("#ask-busy").is_visible()
            assert page.get_attribute("#ask-form", "aria-busy") == "true"
            release.set()
            page.wait_for_selector("#chat li.assistant")
            assert page.locator("#ask-form button").is_enabled()  # the new page's form
            assert "102" in page.locator("#chat li.assistant").last.inner_text()
    finally:
        release.set()
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == []


def test_long_aspect_names_and_keyword_lines_are_shown_whole(browser, monkeypatch, tmp_path):  # noqa: F811
    from claimscope.agent.graph import steps
    from claimscope.agent.graph.events import emit
    from claimscope.tools.read.hierarchy import AspectDraft, AspectTree

    stub_steps.install(monkeypatch)
    tree = AspectTree.new("Coffee causes cancer")
    tree.add_children("root", [AspectDraft(name="dose", description="how much")])
    tree.nodes["1"].keywords = [f"keyword number {i}" for i in range(30)]
    text = tree.render_text()
    assert "    keywords: " in text
    grow = steps.NODES["grow_hierarchy"]

    def grow_and_show(state: Any, runtime: Any) -> Any:
        emit("tree", "grow_hierarchy", text)  # the aspect tree as the real step shows it
        return grow(state, runtime)

    monkeypatch.setitem(steps.NODES, "grow_hierarchy", grow_and_show)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    w = Watched(browser)
    page = w.page
    page.set_viewport_size({"width": 900, "height": 900})
    try:
        with background_server(manager) as base:
            start_session(page, base, "Coffee causes cancer", guided=True)
            sid = page.url.rsplit("/", 1)[1]
            for point in ("claim", "sources"):
                page.wait_for_selector(f'#review-form input[name="point"][value="{point}"]', state="attached")
                page.click('#review-form button[value="accept"]')
            page.wait_for_selector('#review-form input[name="point"][value="hierarchy"]', state="attached")
            name = page.locator('textarea[name="name-1"]')
            name.fill(LONG_NAME)
            # the whole name is in view: nothing scrolled out of the box
            assert page.evaluate("e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight + 2",
                                 name.element_handle())
            # a long keyword line wraps under its own indent, not at the left edge
            page.locator("#progress > summary").click() if not page.locator("#tree").is_visible() else None
            line = page.locator("#tree .tline").last
            assert line.inner_text().startswith("keywords: keyword number 0")
            box = line.bounding_box()
            rects = page.evaluate("e => { const r = document.createRange(); r.selectNodeContents(e); "
                                  "return Array.from(r.getClientRects()).map(x => x.left); }", line.element_handle())
            assert box and len(rects) > 1 and min(rects) > box["x"] + 20  # every wrapped row keeps the indent
            page.click('#review-form button[value="edit"]')
            page.wait_for_selector('#review-form input[name="point"][value="verdict"]', state="attached")
            decisions = manager.investigator.state(sid)["decisions"]
            assert f"renamed 1 to {LONG_NAME!r}" in " ".join(decisions[-1]["applied"])
    finally:
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == []
