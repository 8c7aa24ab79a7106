"""Web app benchmark: the real app (uvicorn on loopback) driven by headless Chromium and HTTP clients.

    python -m evals.web [--loads 50] [--starts 5] [--concurrent 5]

Offline and deterministic, on the tests' fixture (tests/investigation_fixtures.py): the fixture
corpus in a Qdrant-local store, the hashing embedder, the keyword stance fake and the scripted model
behind the real LLM gateway; the corpus carries XSS payloads in titles and cited sentences.

- `pages_checked`, `console_errors`: every page visited in Chromium (new, progress, each guided
  review, report, follow-up, sessions, corpora); console errors and uncaught page errors counted.
- `xss_payloads_tried` / `xss_payloads_rendered_as_text`: payloads placed in document titles, cited
  sentences, the reviewer's note and two follow-up questions; one counts as text when the page shows it
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
- `followup`: follow-up questions asked in Chromium on the guided session's report page (each kind
  the chat answers from templates, and free questions): `busy_shown` counts the asks whose form was
  disabled, labelled "Asking…" and marked aria-busy with the busy line visible, read in the page's
  own submit handler before the answer came; `answer_ms_median` / `_max` from the click to the
  answer on the page (a full reload); `answers_citing` counts the answers with a citation.
- `cancel`: a run on the real graph with trivial, slow steps (tests/fixtures/sessions/stub_steps,
  a progress event every 2 s), cancelled from its page in Chromium: `click_to_cancelling_ms` until
  the page says "cancelling…", `click_to_cancelled_s` until it says "cancelled", and the steps still
  shown running then.
- `store_in_use`: a second app on a store another process holds (the tests' holder script): the
  status and whether /new and /corpora say "is in use by another process" as a page of the app,
  and whether a second `serve` refuses to start.
- `nothing_to_search`: the New form sent in Chromium with no corpus ticked and only the local
  source: the page's status, whether it says "nothing to search", and the sessions started (0 is right).
- `disputed_flag`: the guided session's disputed verdict, flagged beside the verdict on its page and
  in the sessions list, in Chromium.
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


# Read in the page's own submit handler (registered after app.js's, so it runs after it) and kept
# across the reload the answer brings.
BUSY_PROBE = """() => { const f = document.getElementById('ask-form');
  f.addEventListener('submit', () => { const b = f.querySelector('button');
    const busy = b.disabled && b.textContent === 'Asking…' && f.getAttribute('aria-busy') === 'true'
      && !document.getElementById('ask-busy').hidden;
    sessionStorage.setItem('busy', busy ? '1' : '0'); }); }"""
FOLLOW_UPS = ("Which sources oppose the claim?", "What does the study on bolus doses in infants say?",
              "Why is infection type disputed?", "What does the anti-claim search add?",
              "What is the overall verdict?", "Were any randomized trials among the evidence?",
              "Is the effect seen in older adults?")


def _follow_ups(page: Any, base: str, sid: str) -> dict[str, Any]:
    times, busy, citing = [], 0, 0
    for question in FOLLOW_UPS:
        page.goto(f"{base}/sessions/{sid}")
        page.evaluate("() => sessionStorage.removeItem('busy')")
        page.evaluate(BUSY_PROBE)
        before = page.locator("#chat li.assistant").count()
        page.fill('#ask-form input[name="question"]', question)
        t = time.perf_counter()
        page.click("#ask-form button")
        page.wait_for_function(f"() => document.querySelectorAll('#chat li.assistant').length > {before}")
        times.append((time.perf_counter() - t) * 1000)
        busy += page.evaluate("() => sessionStorage.getItem('busy')") == "1"
        citing += bool(re.search(r"\[[^\]]+#\d+", page.locator("#chat li.assistant").last.inner_text()))
    return {"questions": len(FOLLOW_UPS), "busy_shown": busy, "answers_citing": citing,
            "answer_ms_median": round(sorted(times)[len(times) // 2], 1), "answer_ms_max": round(max(times), 1)}


def _cancel(browser: Any) -> dict[str, Any]:
    import pytest

    from claimscope.agent.investigation import Investigator
    from claimscope.agent.runs import RunManager
    from claimscope.agent.web.app import background_server
    from tests.fixtures.sessions import stub_steps
    from tests.investigation_fixtures import make_services

    with pytest.MonkeyPatch.context() as mp:
        stub_steps.install(mp, delay=8.0)
        manager = RunManager(Investigator(make_services(WORK / "cancel")), max_workers=1)
        page = browser.new_page()
        page.set_default_timeout(60_000)
        try:
            with background_server(manager) as base:
                page.goto(f"{base}/new")
                page.fill("#claim", "Zinc shortens colds")
                page.check('input[name="corpora"][value="fixture"]')
                page.click("#new-form button[type=submit]")
                page.locator("#steps li.running").wait_for()
                t = time.perf_counter()
                page.click("#cancel-form button")
                page.wait_for_function("() => document.getElementById('status').textContent === 'cancelling…'")
                cancelling = (time.perf_counter() - t) * 1000
                page.wait_for_function("() => document.getElementById('status').textContent === 'cancelled'")
                cancelled = time.perf_counter() - t
                running = page.locator("#steps li.running").count()
        finally:
            page.close()
            manager.shutdown(cancel=True, wait=True)
    return {"click_to_cancelling_ms": round(cancelling, 1), "click_to_cancelled_s": round(cancelled, 2),
            "steps_shown_running_after": running}


def _store_in_use() -> dict[str, Any]:
    import subprocess
    import sys

    import pytest
    import uvicorn
    from starlette.testclient import TestClient

    import claimscope.agent.resources as res
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.runs import RunManager
    from claimscope.agent.services import Services
    from claimscope.agent.web import create_app, serve
    from claimscope.tools.errors import InputError
    from tests.fakes import HashEmbedder
    from tests.investigation_fixtures import CORPUS, make_settings
    from tests.test_web_ux import HOLD_STORE

    out: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(res, "get_embedder", lambda settings: HashEmbedder(dim=128))
        settings = make_settings(WORK / "held")
        path = settings.data_dir / settings.store.path
        holder = subprocess.Popen([sys.executable, "-c", HOLD_STORE, str(path), str(CORPUS)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, cwd=REPO)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
            manager = RunManager(Investigator(Services(settings)), max_workers=1)
            with TestClient(create_app(manager), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
                for url in ("/new", "/corpora"):
                    r = c.get(url)
                    out[url] = {"status": r.status_code, "says_in_use": "is in use by another process" in r.text,
                                "app_page": r.headers["content-type"].startswith("text/html") and 'href="/"' in r.text}
            started: list[Any] = []
            mp.setattr(uvicorn, "run", lambda *a, **k: started.append(a))
            try:
                serve(manager)
                out["second_serve_refused"] = False
            except InputError:
                out["second_serve_refused"] = not started
        finally:
            holder.communicate("", timeout=30)
            res.close_stores()
    return out


def _nothing_to_search(page: Any, base: str, manager: Any) -> dict[str, Any]:
    before = len(manager.list())
    page.goto(f"{base}/new")
    page.fill("#claim", "Green tea prevents colds")
    for box in page.query_selector_all('input[name="corpora"]'):
        box.set_checked(False)
    for box in page.query_selector_all('input[name="sources"]'):
        box.set_checked(box.get_attribute("value") == "local")
    t = time.perf_counter()
    with page.expect_navigation() as nav:
        page.click("#new-form button[type=submit]")
    ms = (time.perf_counter() - t) * 1000
    response = nav.value
    return {"status": response.status if response else None, "ms": round(ms, 1),
            "says_nothing_to_search": "nothing to search" in page.locator("body").inner_text(),
            "sessions_started": len(manager.list()) - before}


def _disputed(page: Any, base: str, sid: str) -> dict[str, bool]:
    page.goto(f"{base}/sessions/{sid}")
    beside = page.locator("#verdict + .flag.disputed").count() == 1
    page.goto(f"{base}/")
    row = page.locator(f'tr[data-session="{sid}"] .flag.disputed')
    return {"beside_verdict": beside, "in_sessions_list": row.count() == 1 and row.is_visible()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--concurrent", type=int, default=5)
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
    from tests.test_web_browser import chromium_path, start_session

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
        guided_sid = start_session(page, base, CLAIM, guided=True, depth="2")
        pages += 2  # the form and the session's page
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
        # two questions carrying payloads (the answers quote only the sentences on a question's topic,
        # so the questions themselves bring the payloads a cited sentence may not)
        for n, payload in enumerate((PAYLOADS[1], PAYLOADS[2]), 1):
            page.fill('#ask-form input[name="question"]', "what about " + payload)
            page.click("#ask-form button")
            page.wait_for_function(f"() => document.querySelectorAll('#chat li.assistant').length >= {n}")
            pages += 1
        text = page.locator("body").inner_text()
        injected = page.locator(INJECTED).count()
        shown = [p for p in PAYLOADS if p in text]
        results["xss_payloads_not_on_page"] = [p for p in PAYLOADS if p not in text]
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

        # the flows a person meets: a follow-up answered with the form busy, nothing to search,
        # the disputed verdict flagged
        results["followup"] = _follow_ups(page, base, guided_sid)
        # on a page of its own: the refusal's 400 is not a console error of the app
        refused = context.new_page()
        results["nothing_to_search"] = _nothing_to_search(refused, base, manager)
        refused.close()
        results["disputed_flag"] = _disputed(page, base, guided_sid)
        pages += len(FOLLOW_UPS) + 3

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
        results["cancel"] = _cancel(browser)
        results["pages_checked"] = pages
        results["console_errors"] = len(errors)
        results["console_error_texts"] = errors[:10]
        browser.close()
    manager.shutdown(cancel=True, wait=True)
    results["store_in_use"] = _store_in_use()
    results["load_average_before"] = [round(x, 2) for x in load_before]
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    results["cpus"] = os.cpu_count()
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
