"""The pictures of the web app in the docs, taken from the current product: the app served on
loopback over the tests' offline fixture (8 abstracts, the scripted model through the real LLM
gateway), driven by headless Chromium.

    python -m evals.web_screens [--out docs]

Writes docs/web-progress.png (a guided session paused at the aspect-tree review), docs/web-report.png
(the report, a citation showing its sentence) and one picture per session state under
docs/screens/: running.png (the running step's timer), paused.png (a review form), cancelled.png,
failed.png (a model that timed out), no-evidence.png, complete.png, and the follow-up flow:
follow-up-busy.png (Ask disabled while the answer is worked out) and follow-up.png (the answer, its
citations). Running, cancelled and failed use the real graph with trivial steps
(tests/fixtures/sessions/stub_steps), so the pictures show the app's pages, not a model's speed.
Re-run it after a change to the pages; the docs' pictures are whatever it last wrote.
"""

from __future__ import annotations

import argparse
import os
import shutil
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "evals" / "work" / "web_screens"
VIEW = {"width": 1100, "height": 900}
SLOW_CLAIM, CANCEL_CLAIM, FAIL_CLAIM = "Green tea prevents colds", "Zinc shortens colds", "Garlic prevents colds"
NO_EVIDENCE_CLAIM = "Volcanic ash raises the price of Icelandic wool sweaters"


def _start(page: Any, base: str, claim: str, *, guided: bool = False) -> str:
    """A session started from the New form, on a two-level aspect tree (the pictures show one)."""
    from tests.test_web_browser import start_session

    return start_session(page, base, claim, guided=guided, depth="2")


def _finished_states(browser: Any, docs: Path, screens: Path) -> None:
    """Complete, no evidence, paused at a review, the report with a citation, and a follow-up."""
    from claimscope.agent.chat import ChatEngine
    from claimscope.agent.web.app import background_server
    from evals.web import _manager
    from tests.investigation_fixtures import CLAIM

    manager = _manager(WORK / "real", workers=2, payloads=False)
    page = browser.new_page(viewport=VIEW)
    page.set_default_timeout(120_000)
    try:
        with background_server(manager) as base:
            # paused at the aspect-tree review (the progress picture), then on to the report
            _start(page, base, CLAIM, guided=True)
            for point in ("claim", "sources", "hierarchy", "verdict"):
                page.wait_for_selector(f'#review-form input[name="point"][value="{point}"]', state="attached")
                if point == "hierarchy":
                    page.screenshot(path=str(docs / "web-progress.png"))
                    page.screenshot(path=str(screens / "paused.png"))
                page.click('#review-form button[value="accept"]')
            page.wait_for_selector("#report")
            cite = page.locator("#report a.cite").first
            cite.scroll_into_view_if_needed()
            page.evaluate("() => window.scrollBy(0, -200)")
            cite.focus()
            page.screenshot(path=str(docs / "web-report.png"))

            sid = _start(page, base, CLAIM)
            manager.wait(sid, 300)
            page.goto(f"{base}/sessions/{sid}")
            page.wait_for_selector("#report")
            page.screenshot(path=str(screens / "complete.png"))

            # a follow-up: busy while it is answered, then the answer with its citations
            release = threading.Event()
            answer = ChatEngine.call

            def held(self: Any, tool: str, args: Any, *rest: Any) -> Any:
                release.wait(60)
                return answer(self, tool, args, *rest)

            ChatEngine.call = held  # type: ignore[method-assign]
            try:
                page.fill('#ask-form input[name="question"]', "Which sources oppose the claim?")
                page.click("#ask-form button")
                page.wait_for_function("() => document.querySelector('#ask-form button').disabled", polling=100)
                page.locator("#ask-form").scroll_into_view_if_needed()
                page.screenshot(path=str(screens / "follow-up-busy.png"))
            finally:
                release.set()
                ChatEngine.call = answer  # type: ignore[method-assign]
            page.wait_for_selector("#chat li.assistant")
            page.locator("#chat li.assistant").last.scroll_into_view_if_needed()
            page.screenshot(path=str(screens / "follow-up.png"))

            sid = _start(page, base, NO_EVIDENCE_CLAIM)
            manager.wait(sid, 300)
            page.goto(f"{base}/sessions/{sid}")
            page.screenshot(path=str(screens / "no-evidence.png"))
    finally:
        page.close()
        manager.shutdown(cancel=True, wait=True)


def _live_states(browser: Any, screens: Path) -> None:
    """Running (the step timer ticking), cancelled and failed, on the real graph with trivial steps."""
    import pytest

    from claimscope.agent.graph import steps
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.llm.fake import timeout as llm_timeout
    from claimscope.agent.runs import RunManager
    from claimscope.agent.web.app import background_server
    from tests.fixtures.sessions import stub_steps
    from tests.investigation_fixtures import make_services

    with pytest.MonkeyPatch.context() as mp:
        stub_steps.install(mp, delay=8.0)
        analyse = steps.NODES["analyse"]

        def times_out(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
            if state["claim"] == FAIL_CLAIM:
                raise llm_timeout()
            return analyse(state, runtime)

        mp.setitem(steps.NODES, "analyse", times_out)
        manager = RunManager(Investigator(make_services(WORK / "stub")), max_workers=3)
        page = browser.new_page(viewport=VIEW)
        page.set_default_timeout(60_000)
        try:
            with background_server(manager) as base:
                sid = _start(page, base, FAIL_CLAIM)
                manager.wait(sid, 60)
                page.goto(f"{base}/sessions/{sid}")
                page.screenshot(path=str(screens / "failed.png"))

                _start(page, base, SLOW_CLAIM)
                page.locator("#steps li.running .elapsed").wait_for()
                page.wait_for_function("() => /[1-9]/.test(document.querySelector('#steps li.running .elapsed')"
                                       ".textContent)", timeout=20_000)
                page.screenshot(path=str(screens / "running.png"))

                sid = _start(page, base, CANCEL_CLAIM)
                page.locator("#steps li.running").wait_for()
                page.click("#cancel-form button")
                page.wait_for_function("() => document.getElementById('status').textContent === 'cancelled'",
                                       timeout=60_000)
                page.screenshot(path=str(screens / "cancelled.png"))
        finally:
            page.close()
            manager.shutdown(cancel=True, wait=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs",
                    help="Where web-progress.png and web-report.png go; the states go to OUT/screens/.")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    os.environ["CLAIMSCOPE_DATA_DIR"] = str(WORK / "data")
    screens = args.out / "screens"
    screens.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    from tests.test_web_browser import chromium_path

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            _finished_states(browser, args.out, screens)
            _live_states(browser, screens)
        finally:
            browser.close()
    print("\n".join(str(p.relative_to(REPO) if p.is_relative_to(REPO) else p)
                    for p in [args.out / "web-progress.png", args.out / "web-report.png", *sorted(screens.glob("*.png"))]))


if __name__ == "__main__":
    main()
