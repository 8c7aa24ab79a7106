"""Web app benchmark: the real app (uvicorn on loopback) driven by headless Chromium and HTTP clients.

    python -m evals.web [--loads 50] [--starts 5] [--concurrent 5]

Offline and deterministic, on the tests' fixture (tests/investigation_fixtures.py): the fixture
corpus in a Qdrant-local store, the hashing embedder, the keyword stance fake and the scripted model
behind the real LLM gateway; the corpus carries XSS payloads in titles and cited sentences.

- `pages_checked`, `console_errors`: every page visited in Chromium (new, progress, each guided
  review, report, follow-up, sessions, corpora); console errors and uncaught page errors counted.
- `xss_payloads_tried` / `xss_payloads_rendered_as_text`: payloads placed in document titles, cited
  sentences, the reviewer's note and a follow-up question; one counts as text when the page shows it
  literally, no dialog opened, and no element it would create exists in the page.
- `guided_flow_completed`: a guided session answered through the four review forms reaches its report,
  with every decision recorded.
- `concurrent_sessions`: investigations started at once over HTTP and followed by one server-sent
  event stream each; complete when the status is complete, the stream's events are exactly the
  session's own (numbered 1..n) and the report is of the session's claim.
- `page_load_ms_p95`: wall time of GET of a finished 12-aspect investigation's session page (report
  embedded) over loopback HTTP, full body read, `--loads` times; `page_load_browser_ms` is Chromium's
  navigation to DOMContentLoaded for the same page.
- `first_event_ms`: from POSTing the new-investigation form to the first progress event on the
  session's event stream (`--starts` runs; the largest is reported, all are listed).
The machine's load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "evals" / "results" / "web.json"
WORK = REPO / "evals" / "work" / "web"

PAYLOADS = [
    "<script>alert('t1')</script>",
    "<img src=x onerror=alert('t2')>",
    "\"><svg onload=alert('t3')>",
    "<iframe src=\"javascript:alert('t4')\"></iframe>",
    "' onmouseover='alert(5)' x='",
    "<a href=\"javascript:alert('t6')\">link</a>",
]
INJECTED = "script:not([src]), img[src='x'], svg[onload], iframe, [onmouseover], a[href^='javascript:']"


def _corpus(work: Path) -> Path:
    """The fixture corpus with a payload in titles and in first (cited) sentences."""
    from tests.investigation_fixtures import CORPUS

    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    for i, row in enumerate(rows):
        payload = PAYLOADS[i % 4]
        row["title"] = f"{row['title']} {payload}"
        row["abstract"][0] = f"{row['abstract'][0].rstrip('.')} {payload}."
    path = work / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _manager(work: Path, workers: int, *, payloads: bool = True) -> Any:
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.runs import RunManager
    from claimscope.tools.find.ingest import read_path
    from tests.investigation_fixtures import investigation_script, make_services

    script = investigation_script()
    names = ["dosing regimen", "baseline deficiency", "infection type", "age group"]
    script["aspects"] = [{"aspects": [{"name": n, "description": f"evidence about {n} in vitamin d trials",
                                       "keywords": n.split()[:3]} for n in names]}]
    services = make_services(work, script=script, hierarchy={"min_node_segments": 1, "top_k": 4})
    if payloads:
        services.store.delete_corpus("fixture")
        services.store.add_documents(read_path(_corpus(work)).documents, corpus="fixture")
    return RunManager(Investigator(services), max_workers=workers)


def _screenshots(browser: Any, out: Path) -> None:
    """The progress page (paused at the hierarchy review) and the report with a citation previewed,
    of a guided session on the clean fixture corpus."""
    from claimscope.agent.web.app import background_server
    from tests.investigation_fixtures import CLAIM

    manager = _manager(WORK / "shots", workers=1, payloads=False)
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    with background_server(manager) as base:
        page.goto(f"{base}/new")
        page.fill("#claim", CLAIM)
        page.check('input[name="corpora"][value="fixture"]')
        page.select_option('select[name="depth"]', "2")
        page.check('input[name="guided"]')
        page.click("#new-form button[type=submit]")
        for point in ("claim", "sources", "hierarchy", "verdict"):
            page.wait_for_selector(f'#review-form input[name="point"][value="{point}"]', state="attached")
            if point == "hierarchy":
                page.screenshot(path=str(out / "web-progress.png"))
            page.click('#review-form button[value="accept"]')
        page.wait_for_selector("#report")
        cite = page.locator("#report a.cite").first
        cite.scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, -200)")
        cite.focus()
        page.screenshot(path=str(out / "web-report.png"))
    page.close()
    manager.shutdown(cancel=True, wait=True)


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def _start(client: Any, claim: str, **fields: Any) -> str:
    data = {"csrf": _csrf(client.get("/new").text), "claim": claim, "corpora": "fixture", "sources": "local",
            "depth": "2", **fields}
    r = client.post("/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    return str(r.headers["location"]).rsplit("/", 1)[1]


def _stream(base: str, sid: str, out: dict[str, Any], t0: float | None = None) -> None:
    import httpx

    events: list[dict[str, Any]] = []
    first = None
    with httpx.stream("GET", f"{base}/sessions/{sid}/events", timeout=120) as r:
        kind = ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "progress":
                if first is None:
                    first = time.perf_counter()
                events.append(json.loads(line[6:]))
            elif line.startswith("data: ") and kind == "end":
                out["end"] = json.loads(line[6:])
    out["events"] = events
    if t0 is not None and first is not None:
        out["first_event_ms"] = (first - t0) * 1000


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--concurrent", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, default=None,
                        help="Write web-progress.png and web-report.png of the guided session here (e.g. docs/).")
    args = parser.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    os.environ["CLAIMSCOPE_DATA_DIR"] = str(WORK / "data")

    import httpx
    from playwright.sync_api import sync_playwright

    from claimscope.agent.web.app import background_server
    from tests.investigation_fixtures import CLAIM
    from tests.test_web_browser import chromium_path

    load_before = os.getloadavg()
    results: dict[str, Any] = {"setup": (
        "offline fixture corpus (8 abstracts, XSS payloads in titles and cited sentences) in Qdrant local "
        "mode, HashEmbedder, KeywordStance, scripted model through the real LiteLLM gateway; the app served "
        "by uvicorn in-process on 127.0.0.1; Chromium " + (chromium_path() or "missing") + " via Playwright")}
    manager = _manager(WORK, workers=max(2, args.concurrent))
    errors: list[str] = []
    dialogs: list[str] = []
    pages = 0
    with background_server(manager) as base, httpx.Client(base_url=base, timeout=60) as client, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        if args.screenshots:
            _screenshots(browser, args.screenshots)
        context = browser.new_context(viewport={"width": 1100, "height": 820})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

        def visit(url: str) -> None:
            nonlocal pages
            page.goto(url)
            pages += 1

        # guided flow through the forms, payloads in the note and a follow-up question
        visit(f"{base}/new")
        page.fill("#claim", CLAIM)
        page.check('input[name="corpora"][value="fixture"]')
        for box in page.query_selector_all('input[name="sources"]'):
            box.set_checked(box.get_attribute("value") == "local")
        page.select_option('select[name="depth"]', "2")
        page.check('input[name="guided"]')
        page.click("#new-form button[type=submit]")
        page.wait_for_url(f"{base}/sessions/*")
        pages += 1
        guided_sid = page.url.rsplit("/", 1)[1]
        answered = []
        for point in ("claim", "sources", "hierarchy", "verdict"):
            page.wait_for_selector(f'#review-form input[name="point"][value="{point}"]', state="attached")
            if point == "verdict":
                page.check('input[name="verdict"][value="dispute"]')
                page.fill("#note", "note " + PAYLOADS[4] + " " + PAYLOADS[5])
                page.click('#review-form button[value="edit"]')
            else:
                page.click('#review-form button[value="accept"]')
            answered.append(point)
            pages += 1
        page.wait_for_selector("#report")
        report = manager.result(guided_sid).report or {}
        results["guided_flow_completed"] = (manager.status(guided_sid).status == "complete" and
                                            [d["step"] for d in report.get("decisions", [])] == answered)
        page.fill('#ask-form input[name="question"]', "what about " + PAYLOADS[1])
        page.click("#ask-form button")
        page.wait_for_selector("#chat li.assistant")
        pages += 1
        text = page.locator("body").inner_text()
        injected = page.locator(INJECTED).count()
        shown = [p for p in PAYLOADS if p in text]
        results["xss_payloads_tried"] = len(PAYLOADS)
        results["xss_payloads_rendered_as_text"] = len(shown) if not dialogs and injected == 0 else 0
        results["xss_detail"] = {"shown_as_text": len(shown), "dialogs": len(dialogs), "injected_elements": injected}
        results["report_nodes"] = len([n for n in report.get("hierarchy", {}).get("nodes", []) if n["id"] != "root"])

        # a finished non-guided 12-aspect investigation: the report page's load time
        sid = _start(client, CLAIM)
        manager.wait(sid, 300)
        nodes = len([n for n in (manager.result(sid).report or {})["hierarchy"]["nodes"] if n["id"] != "root"])
        results["page_load_nodes"] = nodes
        client.get(f"/sessions/{sid}")  # warm
        loads = []
        for _ in range(args.loads):
            t = time.perf_counter()
            r = client.get(f"/sessions/{sid}")
            assert r.status_code == 200 and 'id="report"' in r.text
            loads.append((time.perf_counter() - t) * 1000)
        results["page_load_ms_p95"] = round(_p95(loads), 1)
        results["page_load_ms_median"] = round(sorted(loads)[len(loads) // 2], 1)
        results["page_load_bytes"] = len(r.content)
        browser_ms = []
        for _ in range(5):
            visit(f"{base}/sessions/{sid}")
            browser_ms.append(page.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0];"
                " return n.domContentLoadedEventEnd - n.startTime; }"))
        results["page_load_browser_ms_median"] = round(sorted(browser_ms)[2], 1)
        for path in ("/", "/corpora", "/new"):
            visit(base + path)

        # first progress event after starting from the form
        firsts = []
        for i in range(args.starts):
            t0 = time.perf_counter()
            s = _start(client, f"{CLAIM} (start {i})")
            out: dict[str, Any] = {}
            _stream(base, s, out, t0)
            firsts.append(round(out["first_event_ms"], 1))
        results["first_event_ms"] = max(firsts)
        results["first_event_ms_runs"] = firsts

        # concurrent sessions, each followed by its own event stream
        claims = [f"{CLAIM} in cohort {i}" for i in range(args.concurrent)]
        sids = [_start(client, c) for c in claims]
        outs: list[dict[str, Any]] = [{} for _ in sids]
        threads = [threading.Thread(target=_stream, args=(base, s, o)) for s, o in zip(sids, outs, strict=True)]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join(300)
        wall = time.perf_counter() - t
        ok = 0
        for s, claim, out in zip(sids, claims, outs, strict=True):
            own = [e.model_dump(mode="json") for e in manager.events(s)]
            seqs = [e["seq"] for e in out.get("events", [])]
            rep = manager.result(s).report or {}
            if (out.get("end", {}).get("status") == "complete" and seqs == list(range(1, len(own) + 1))
                    and out["events"] == own and rep.get("claim") == claim):
                ok += 1
        results["concurrent_sessions"] = len(sids)
        results["concurrent_sessions_complete_without_cross_talk"] = ok
        results["concurrent_wall_s"] = round(wall, 2)
        visit(base + "/")
        results["pages_checked"] = pages
        results["console_errors"] = len(errors)
        results["console_error_texts"] = errors[:10]
        browser.close()
    manager.shutdown(cancel=True, wait=True)
    results["load_average_before"] = [round(x, 2) for x in load_before]
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    results["cpus"] = os.cpu_count()
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
