"""The MCP server driven in-process by the official MCP client.

Most tests run the real graph (planner, review points, SQLite checkpointer, RunManager) with
trivial step bodies (tests/fixtures/sessions/stub_steps.py) so they are fast; one runs the whole
investigation on the fixture corpus with the scripted model.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import anyio
import pytest
from mcp import Client

from claimscope.agent.investigation import Investigator
from claimscope.agent.mcp_server import build_server
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from tests.fixtures.sessions import stub_steps

# Something to search (a run with neither a corpus nor a scholarly source is refused); the trivial
# step bodies never query it.
SEARCH: dict[str, Any] = {"options": {"sources": ["semantic_scholar"]}}


@pytest.fixture
def stub_manager(monkeypatch):
    stub_steps.install(monkeypatch)
    manager = RunManager(Investigator(Services(get_settings())), max_workers=2)
    yield manager
    manager.shutdown(cancel=True, wait=True)


def _run(coro_fn) -> Any:
    return asyncio.run(coro_fn())


def _text(result) -> str:
    return result.content[0].text


def _assert_in_order(seqs: list[float]) -> None:
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs


def test_tools_are_listed_with_validated_schemas(stub_manager):
    async def main():
        async with Client(build_server(stub_manager)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
        return tools

    tools = _run(main)
    assert {"start_investigation", "get_status", "answer", "get_report", "search_evidence",
            "cancel_investigation"} <= set(tools)
    start = tools["start_investigation"].input_schema
    assert start["required"] == ["claim"]
    assert start["properties"]["claim"]["minLength"] == 10  # the one claim rule (agent.investigation.accept_claim)
    opts = start["$defs"]["SessionOptions"]
    assert opts["additionalProperties"] is False and "guided" in opts["properties"]
    fmt = tools["get_report"].input_schema["properties"]["format"]
    assert fmt["enum"] == ["md", "json", "html"]


def test_happy_path_progress_in_order_and_report_in_every_format(stub_manager):
    progress: list[tuple[float, str]] = []

    async def on_progress(p, total, message):
        progress.append((p, message or ""))

    async def main():
        async with Client(build_server(stub_manager)) as c:
            r = await c.call_tool("start_investigation", {"claim": "Green tea prevents colds", "wait_seconds": 60, **SEARCH},
                                  progress_callback=on_progress)
            assert not r.is_error, _text(r)
            status = r.structured_content
            sid = status["session_id"]
            reports = {f: await c.call_tool("get_report", {"session_id": sid, "format": f})
                       for f in ("md", "json", "html")}
            later = await c.call_tool("get_status", {"session_id": sid, "since": 5})
            return status, reports, later.structured_content

    status, reports, later = _run(main)
    assert status["status"] == "complete" and status["has_report"] and not status["active"]
    assert status["finished_steps"][0] == "analyse" and status["finished_steps"][-1] == "report"
    # Every event of the run reached the client as a progress notification, in order.
    assert [p for p, _ in progress] == list(range(1, status["events"] + 1))
    assert [e["seq"] for e in status["new_events"]] == list(range(1, status["events"] + 1))
    assert any("analyse" in m for _, m in progress)
    assert [e["seq"] for e in later["new_events"]] == list(range(6, status["events"] + 1))
    assert all(not r.is_error for r in reports.values())
    assert json.loads(_text(reports["json"]))["claim"] == "Green tea prevents colds"
    assert "Green tea prevents colds" in _text(reports["md"])
    assert _text(reports["html"]).lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize(("tool", "args", "expected"), [
    ("start_investigation", {"claim": ""}, "claim"),
    ("start_investigation", {}, "claim"),
    ("start_investigation", {"claim": "Tea is good", "options": {"depth": 7}}, "depth must be between 1 and 3, not 7."),
    ("start_investigation", {"claim": "Tea is good", "options": {"colour": "red"}}, "colour is not a run option"),
    ("start_investigation", {"claim": "Tea is good", "options": {"sources": ["google"]}}, "sources must each be one of"),
    ("start_investigation", {"claim": "Tea is good", "options": {"year_min": 2020, "year_max": 2010}},
     "year_min 2020 is after year_max 2010: no document could match."),
    ("start_investigation", {"claim": "Tea is good", "wait_seconds": -1}, "wait_seconds"),
    ("get_status", {"session_id": ""}, "session_id"),
    ("get_status", {"session_id": "x", "since": -2}, "since"),
    ("get_report", {"session_id": "x", "format": "pdf"}, "format"),
    ("answer", {"session_id": "x", "decision": 5}, "decision"),
    ("search_evidence", {"query": "", "corpus": "c"}, "query"),
    ("search_evidence", {"query": "tea", "corpus": "c", "k": 500}, "k"),
])
def test_bad_arguments_give_a_clear_error(stub_manager, tool, args, expected):
    async def main():
        async with Client(build_server(stub_manager)) as c:
            return await c.call_tool(tool, args)

    r = _run(main)
    assert r.is_error
    assert expected in _text(r)
    assert "Traceback" not in _text(r) and "errors.pydantic.dev" not in _text(r)
    assert "\n" not in _text(r)


@pytest.mark.parametrize(("tool", "extra"), [
    ("get_status", {}), ("get_report", {}), ("answer", {"decision": "accept"}), ("cancel_investigation", {}),
])
def test_unknown_session_is_a_clear_error(stub_manager, tool, extra):
    async def main():
        async with Client(build_server(stub_manager)) as c:
            r1 = await c.call_tool(tool, {"session_id": "no-such-session", **extra})
            r2 = await c.call_tool(tool, {"session_id": "bad id with spaces", **extra})
            return r1, r2

    r1, r2 = _run(main)
    assert r1.is_error and "unknown session 'no-such-session'" in _text(r1)
    assert r2.is_error and "invalid session id" in _text(r2)


def test_report_of_an_unfinished_session_says_what_to_do(stub_manager, monkeypatch):
    stub_steps.Knobs.delay = 0.4

    async def main():
        async with Client(build_server(stub_manager)) as c:
            sid = (await c.call_tool("start_investigation", {"claim": "Tea is good", **SEARCH})).structured_content["session_id"]
            r = await c.call_tool("get_report", {"session_id": sid})
            await c.call_tool("cancel_investigation", {"session_id": sid})
            return r

    r = _run(main)
    assert r.is_error and "has no report yet" in _text(r) and "get_status" in _text(r)


def test_client_disconnect_mid_run_does_not_stop_the_run(stub_manager):
    stub_steps.Knobs.delay = 0.15
    server = build_server(stub_manager)
    seen: list[float] = []
    started: dict[str, str] = {}

    async def first_client():
        async with Client(server) as c:
            r = await c.call_tool("start_investigation", {"claim": "Zinc shortens colds", **SEARCH})
            started["sid"] = r.structured_content["session_id"]
            async with anyio.create_task_group() as tg:
                async def on_progress(p, total, message):
                    seen.append(p)
                    if len(seen) >= 3:
                        tg.cancel_scope.cancel()  # the client goes away in the middle of a wait

                tg.start_soon(lambda: c.call_tool("get_status", {"session_id": started["sid"], "wait_seconds": 60},
                                                  progress_callback=on_progress))
        # leaving the `async with` closes the connection while the run is still going

    async def second_client():
        async with Client(server) as c:
            mid = (await c.call_tool("get_status", {"session_id": started["sid"]})).structured_content
            r = await c.call_tool("get_status", {"session_id": started["sid"], "wait_seconds": 60})
            return mid, r.structured_content

    _run(first_client)
    assert len(seen) >= 3
    mid, final = _run(second_client)
    assert mid["active"] and mid["status"] in ("running", "queued")
    assert final["status"] == "complete" and final["has_report"]
    _assert_in_order([e["seq"] for e in final["new_events"]])
    # No step ran twice: the run simply went on without the client.
    assert sorted(stub_steps.CALLS) == sorted(set(stub_steps.CALLS))


def test_guided_session_is_answered_through_mcp(stub_manager):
    async def main():
        async with Client(build_server(stub_manager)) as c:
            args = {"claim": "Coffee causes cancer", "options": {"guided": True, "sources": ["semantic_scholar"]},
                    "wait_seconds": 30}
            r = (await c.call_tool("start_investigation", args)).structured_content
            sid, points = r["session_id"], []
            bad = None
            while r["status"] == "paused":
                points.append(r["pending"]["point"])
                if r["pending"]["point"] == "sources" and bad is None:
                    bad = await c.call_tool("answer", {"session_id": sid, "decision": {"exclude": "d2"}})
                    decision: Any = {"exclude": ["d2"]}
                else:
                    decision = "accept"
                r = (await c.call_tool("answer", {"session_id": sid, "decision": decision, "wait_seconds": 30})
                     ).structured_content
            again = await c.call_tool("answer", {"session_id": sid, "decision": "accept"})
            got = await c.call_tool("get_report", {"session_id": sid, "format": "json"})
            assert not got.is_error, _text(got)
            report = json.loads(_text(got))
            return r, points, bad, again, report

    final, points, bad, again, report = _run(main)
    assert points == ["claim", "sources", "hierarchy", "verdict"]
    assert bad.is_error and "invalid decision for the sources review" in _text(bad)
    assert final["status"] == "complete"
    assert again.is_error and "not waiting for a review decision" in _text(again)
    assert [d["step"] for d in report["decisions"]] == points
    assert report["decisions"][1]["choice"] == "excluded d2"


def test_cancel_then_resume_loses_no_finished_step(stub_manager):
    stub_steps.Knobs.delay = 0.2

    async def main():
        async with Client(build_server(stub_manager)) as c:
            sid = (await c.call_tool("start_investigation", {"claim": "Tea is good", **SEARCH})).structured_content["session_id"]
            await c.call_tool("get_status", {"session_id": sid, "wait_seconds": 0.5})
            return (await c.call_tool("cancel_investigation", {"session_id": sid})).structured_content

    cancelled = _run(main)
    assert cancelled["cancelled"] and cancelled["status"] == "cancelled"
    kept = cancelled["finished_steps"]
    assert kept and kept[-1] != "report"
    calls_before = list(stub_steps.CALLS)
    assert stub_manager.resume(cancelled["session_id"])
    final = stub_manager.wait(cancelled["session_id"], timeout=60)
    assert final.status == "complete"
    rerun = stub_steps.CALLS[len(calls_before):]
    assert not set(kept) & set(rerun), (kept, rerun)


def test_search_evidence_on_a_real_store(tmp_path):
    from tests.investigation_fixtures import make_services

    manager = RunManager(Investigator(make_services(tmp_path), persistent=False))

    async def main():
        async with Client(build_server(manager)) as c:
            ok = await c.call_tool("search_evidence", {"query": "vitamin D respiratory infection", "corpus": "fixture",
                                                       "k": 3})
            unknown = await c.call_tool("search_evidence", {"query": "vitamin D", "corpus": "nope"})
            return ok, unknown

    ok, unknown = _run(main)
    manager.shutdown()
    assert not ok.is_error, _text(ok)
    hits = ok.structured_content["result"]
    assert 1 <= len(hits) <= 3 and all(h["corpus"] == "fixture" for h in hits)
    assert any("vitamin d" in s.lower() for h in hits for s in h["sentences"])
    assert unknown.is_error and "unknown corpus 'nope'" in _text(unknown) and "fixture" in _text(unknown)


def test_whole_investigation_through_mcp_with_the_scripted_model(tmp_path):
    from tests.investigation_fixtures import CLAIM, make_services

    manager = RunManager(Investigator(make_services(tmp_path), persistent=True))
    progress: list[float] = []

    async def on_progress(p, total, message):
        progress.append(p)

    async def main():
        async with Client(build_server(manager)) as c:
            args = {"claim": CLAIM, "options": {"corpora": ["fixture"], "depth": 1, "top_documents": 4},
                    "wait_seconds": 120}
            r = (await c.call_tool("start_investigation", args, progress_callback=on_progress)).structured_content
            report = json.loads(_text(await c.call_tool("get_report", {"session_id": r["session_id"],
                                                                        "format": "json"})))
            return r, report

    status, report = _run(main)
    manager.shutdown()
    assert status["status"] == "complete", status
    assert progress == list(range(1, status["events"] + 1))
    assert report["claim"] == CLAIM and report["documents"] and report["verdict"]["weighted"]["label"]


def test_stdio_server_starts_and_lists_tools(tmp_path):
    from mcp import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-c", "from claimscope.agent.cli import main; main()", "mcp"],
        env={"CLAIMSCOPE_DATA_DIR": str(tmp_path / "d"), "HF_HUB_OFFLINE": "1",
             "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": "/usr/bin:/bin"},
    )

    async def main():
        async with Client(params) as c:
            tools = (await c.list_tools()).tools
            unknown = await c.call_tool("get_status", {"session_id": "nope"})
            return tools, unknown

    tools, unknown = _run(main)
    assert "start_investigation" in {t.name for t in tools}
    assert unknown.is_error and "unknown session" in _text(unknown)


def test_a_crashing_step_fails_the_session_clearly_and_it_resumes(stub_manager):
    stub_steps.Knobs.fail_once = {"assess"}

    async def main():
        async with Client(build_server(stub_manager)) as c:
            r = (await c.call_tool("start_investigation", {"claim": "Tea is good", "wait_seconds": 30, **SEARCH})
                 ).structured_content
            report = await c.call_tool("get_report", {"session_id": r["session_id"]})
            return r, report

    failed, report = _run(main)
    assert failed["status"] == "failed" and "scripted crash in assess" in failed["error"]
    assert failed["finished_steps"] == ["analyse", "gather", "grow_hierarchy"]
    assert report.is_error and "no report yet" in _text(report)
    assert stub_manager.resume(failed["session_id"])
    final = stub_manager.wait(failed["session_id"], timeout=60)
    assert final.status == "complete" and final.error is None
    assert stub_steps.CALLS.count("gather") == 1 and stub_steps.CALLS.count("assess") == 2
