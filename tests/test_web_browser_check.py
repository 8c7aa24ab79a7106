"""The Check a text page driven in headless Chromium: paste a text, review its claims (untick one,
reword one), watch progress per claim arrive, cancel and resume, and read the marked text whose
spans open each claim's full report; markup in the text never runs. Run with `pytest -m browser`.
"""

from __future__ import annotations

import pytest

from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from claimscope.agent.web.app import background_server
from tests.investigation_fixtures import make_services
from tests.test_web_browser import Watched, browser, where_to_look  # noqa: F401 (the module's browser fixture)
from tests.test_web_check import hold_second_claim

pytestmark = pytest.mark.browser

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful. "
        "Monthly high-dose vitamin D does not reduce infections in adults. "
        "Vitamin D lowers the risk of falls <img src=x onerror=alert(1)> in older adults.")


def _paste(page, base: str, text: str) -> None:
    page.goto(f"{base}/check")
    page.fill("#text", text)
    where_to_look(page)
    page.click("#check-form button[type=submit]")
    page.wait_for_selector("#claims-form")


def test_review_progress_and_the_marked_text_in_the_browser(browser, tmp_path, monkeypatch):  # noqa: F811
    release = hold_second_claim(monkeypatch)
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    w = Watched(browser)
    page = w.page
    try:
        with background_server(manager) as base:
            _paste(page, base, TEXT)
            # The review: the opinion unticked with its reason; markup shown as text.
            assert not page.is_checked('input[name="check-c2"]') and page.is_checked('input[name="check-c1"]')
            assert "opinion" in page.locator('tr[data-claim="c2"]').inner_text()
            assert "<img src=x" in page.locator(".review-text").inner_text()
            page.uncheck('input[name="check-c4"]')
            page.fill('textarea[name="text-c1"]', "Vitamin D supplements prevent respiratory infections.")
            page.click("#claims-form button[type=submit]")
            # Progress arrives without a reload: the first claim finishes, the second is held.
            page.wait_for_selector('#check-claims li[data-claim="c1"].done')
            assert page.locator("#check-count").inner_text() == "1 of 2"
            assert page.locator("#check-line").inner_text().startswith("claim ")
            page.click("#cancel-form button")
            page.wait_for_selector("#check-status.st-cancelling", timeout=10_000)
            release.set()
            page.wait_for_selector("#check-status.st-cancelled")
            assert page.locator('#report mark[data-claim="c1"]').count() == 1
            page.click("text=Resume")
            page.wait_for_selector("#check-status.st-complete")
            # The marked text: both claims coloured by verdict, each opening its claim's full report.
            marks = page.locator("#report mark")
            assert marks.count() == 2
            assert all((marks.nth(i).get_attribute("class") or "").startswith("v-") for i in range(2))
            assert "Summary" in page.locator("#report").inner_text()
            assert "We believe it is wonderful." in page.locator("#report ul.not-checked").inner_text()
            page.locator('#report mark[data-claim="c1"] a').click()
            page.wait_for_selector("#session #report")
            assert "Vitamin D supplements prevent respiratory infections." in page.locator("h1.claim").inner_text()
    finally:
        release.set()
        w.close()
        manager.shutdown(cancel=True, wait=True)
    assert w.errors == [] and w.dialogs == []
