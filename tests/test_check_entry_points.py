"""check_text through every interface: the Python API, the MCP tool (official SDK client) and the
LangChain tool, with the options model `investigate` uses."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from claimscope.agent import api
from claimscope.agent.investigation import Investigator
from claimscope.agent.mcp_server import build_server
from claimscope.agent.runs import RunManager
from claimscope.tools.errors import InputError
from tests.investigation_fixtures import make_services

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful. "
        "Monthly high-dose vitamin D does not reduce infections in adults.")
OPTIONS = {"corpora": ["fixture"], "sources": ["local"], "depth": 1, "top_documents": 4}


def test_python_check_text_takes_the_investigate_options(tmp_path):
    services = make_services(tmp_path)
    report = api.check_text(TEXT, services=services, claims=[{"id": "c1", "check_worthy": False}], **OPTIONS)
    assert isinstance(report, api.TextReport) and [c.id for c in report.claims] == ["c3"]
    assert report.claims[0].report is not None
    with pytest.raises(InputError, match="colour"):
        api.check_text(TEXT, services=services, colour="red")
    with pytest.raises(InputError, match="year_min"):
        api.check_text(TEXT, services=services, year_min=2020, year_max=2000, **OPTIONS)


def test_tool_schema_shares_the_options_model():
    fns = {t["function"]["name"]: t["function"] for t in api.tool_schemas()}
    check = fns["check_text"]["parameters"]
    assert check["required"] == ["text"]
    mine, theirs = check["properties"]["options"], fns["investigate_claim"]["parameters"]["properties"]["options"]
    assert mine["anyOf"] == theirs["anyOf"] and "depth" in mine["anyOf"][0]["properties"]


def test_langchain_check_text_returns_markdown_and_the_report(tmp_path):
    tools = {t.name: t for t in api.langchain_tools(make_services(tmp_path))}
    msg = tools["check_text"].invoke({"type": "tool_call", "id": "call-1", "name": "check_text",
                                      "args": {"text": TEXT, "options": OPTIONS}})
    assert "# Checked text" in msg.content and msg.artifact["kind"] == "text_check"
    assert [c["id"] for c in msg.artifact["claims"]] == ["c1", "c3"]
    bad = tools["check_text"].invoke({"type": "tool_call", "id": "call-2", "name": "check_text",
                                      "args": {"text": "   ", "options": OPTIONS}})
    assert "the text is empty" in bad.content


def test_mcp_check_text_with_progress_per_claim(tmp_path):
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    progress: list[str] = []

    async def on_progress(p, total, message):
        progress.append(message or "")

    async def main():
        async with Client(build_server(manager)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            ok = await c.call_tool("check_text", {"text": TEXT, "options": OPTIONS, "format": "json"},
                                   progress_callback=on_progress)
            bad = await c.call_tool("check_text", {"text": TEXT, "options": {"corpora": ["nope"]}})
            empty = await c.call_tool("check_text", {"text": ""})
            return tools, ok, bad, empty

    try:
        tools, ok, bad, empty = asyncio.run(main())
    finally:
        manager.shutdown(cancel=True, wait=True)
    assert tools["check_text"].input_schema["required"] == ["text"]
    assert not ok.is_error
    report = json.loads(ok.content[0].text)
    assert [c["verdict"] != "not checked" for c in report["claims"]] == [True, True]
    assert "claim 1 of 2: gather" in progress and "claim 2 of 2: report" in progress
    assert bad.is_error and "unknown corpus 'nope'" in bad.content[0].text
    assert empty.is_error and "text" in empty.content[0].text
