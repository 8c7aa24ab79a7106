"""The public Python API and the tool definitions generated from it (OpenAI, LangChain, MCP)."""

from __future__ import annotations

import asyncio
import json

import pytest

from claimscope.agent import api
from claimscope.agent.api import (
    InvestigateArgs,
    SearchArgs,
    SessionOptions,
    ToolOptions,
    tool_schemas,
)
from claimscope.agent.options import offered_at
from claimscope.tools.errors import InputError
from tests.investigation_fixtures import CLAIM, make_services

# The options a calling model is offered: the options model's declaration (agent/options.py).
OPTION_FIELDS = set(offered_at("tools"))


def _by_name(schemas):
    return {s["function"]["name"]: s["function"] for s in schemas}


def test_openai_schemas_come_from_the_argument_models():
    fns = _by_name(tool_schemas())
    assert set(fns) == {"investigate_claim", "search_evidence", "check_text"}
    inv = fns["investigate_claim"]
    assert inv["description"] == api.INVESTIGATE_DESCRIPTION
    params = inv["parameters"]
    assert params["required"] == ["claim"]
    from claimscope.tools.read.claim_analysis import MAX_CLAIM_CHARS, MIN_CLAIM_CHARS

    # The bounds claim intake applies, shown to the calling model.
    assert params["properties"]["claim"]["minLength"] == MIN_CLAIM_CHARS
    assert params["properties"]["claim"]["maxLength"] == MAX_CLAIM_CHARS
    # References are inlined so that every function-calling client can read the schema.
    assert "$ref" not in json.dumps(inv) and "$defs" not in params
    options = next(s for s in params["properties"]["options"]["anyOf"] if s.get("type") == "object")
    assert set(options["properties"]) == OPTION_FIELDS == set(ToolOptions.model_fields)
    assert {"corpora", "sources", "depth", "top_documents", "year_min", "year_max", "claim_kind"} <= OPTION_FIELDS
    assert options["properties"]["depth"]["anyOf"][0] == {"maximum": 3, "minimum": 1, "type": "integer"}
    assert options["properties"]["sources"]["anyOf"][0]["items"]["enum"] == ["local", "semantic_scholar", "serpapi", "openalex"]
    search = fns["search_evidence"]["parameters"]
    assert search["required"] == ["query", "corpus"] and search["properties"]["k"]["maximum"] == 50
    assert set(search["properties"]) == set(SearchArgs.model_fields)


def test_langchain_and_mcp_tools_share_the_definitions():
    from mcp import Client

    from claimscope.agent.investigation import Investigator
    from claimscope.agent.mcp_server import build_server
    from claimscope.agent.runs import RunManager

    lc = {t.name: t for t in api.langchain_tools()}
    assert set(lc) == {"investigate_claim", "search_evidence", "check_text"}
    assert lc["investigate_claim"].args_schema is InvestigateArgs
    assert lc["search_evidence"].args_schema is SearchArgs
    lc_options = lc["investigate_claim"].tool_call_schema.model_json_schema()["$defs"]["ToolOptions"]
    assert lc_options == ToolOptions.model_json_schema()

    manager = RunManager(Investigator(persistent=False))

    async def list_tools():
        async with Client(build_server(manager)) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    mcp_tools = asyncio.run(list_tools())
    manager.shutdown()
    mcp_options = mcp_tools["start_investigation"].input_schema["$defs"]["SessionOptions"]["properties"]
    assert set(mcp_options) == OPTION_FIELDS | {"guided"} == set(SessionOptions.model_fields)
    for name in OPTION_FIELDS:
        assert mcp_options[name] == ToolOptions.model_json_schema()["properties"][name]
    mcp_search = mcp_tools["search_evidence"].input_schema["properties"]
    for name in ("query", "corpus", "k"):
        assert {k: v for k, v in mcp_search[name].items() if k != "title"} == \
            {k: v for k, v in SearchArgs.model_json_schema()["properties"][name].items() if k != "title"}


@pytest.mark.parametrize(("args", "expected"), [
    # refused run options read as at every entry point (agent/options.refusal)
    ({"claim": "Tea is good", "options": {"depth": 9}}, "depth must be between 1 and 3, not 9."),
    ({"claim": "Tea is good", "options": {"colour": "red"}}, "colour is not a run option (the options are corpora, "),
    ({}, "invalid investigate_claim arguments (claim: Field required)"),
])
def test_langchain_tool_reports_bad_arguments_to_the_model(args, expected):
    tool = {t.name: t for t in api.langchain_tools()}["investigate_claim"]
    out = tool.invoke(args)
    assert isinstance(out, str) and out.startswith(expected) and "\n" not in out


def test_validate_args_names_each_bad_field():
    with pytest.raises(InputError) as exc:
        api.validate_args(ToolOptions, {"depth": 0, "planner": "random"})
    assert str(exc.value) == ("depth must be between 1 and 3, not 0; planner must be one of fixed, llm, "
                              "not 'random'.")
    with pytest.raises(InputError, match="year_min 2020 is after year_max 2000: no document could match"):
        api.validate_args(ToolOptions, {"year_min": 2020, "year_max": 2000})
    assert ToolOptions(depth=1).to_options(make_settings_default()).depth == 1


def make_settings_default():
    from claimscope.agent.settings import get_settings

    return get_settings()


def test_investigate_and_search_through_the_python_api_and_langchain(tmp_path):
    services = make_services(tmp_path)
    report = api.investigate(CLAIM, services=services, corpora=["fixture"], depth=1, top_documents=4)
    assert isinstance(report, api.Report)
    assert report.claim == CLAIM and report.documents and report.explanation.sentences

    hits = api.search_evidence("vitamin D respiratory infection", "fixture", 2, services=services)
    assert 1 <= len(hits) <= 2 and hits[0].corpus == "fixture" and hits[0].sentences
    with pytest.raises(InputError, match="unknown corpus 'nope'.*fixture"):
        api.search_evidence("vitamin D", "nope", services=services)

    tools = {t.name: t for t in api.langchain_tools(services)}
    msg = tools["investigate_claim"].invoke({
        "type": "tool_call", "id": "call-1", "name": "investigate_claim",
        "args": {"claim": CLAIM, "options": {"corpora": ["fixture"], "depth": 1, "top_documents": 4,
                                             "perspectives": False}},
    })
    assert CLAIM in msg.content and msg.artifact["claim"] == CLAIM and msg.artifact["schema_version"] == "1"
    found = json.loads(tools["search_evidence"].invoke({"query": "vitamin D", "corpus": "fixture", "k": 2}))
    assert found and found[0]["doc_id"]
    bad = tools["search_evidence"].invoke({"query": "vitamin D", "corpus": "nope"})
    assert "unknown corpus 'nope'" in bad


def test_ainvestigate(tmp_path):
    services = make_services(tmp_path)
    report = asyncio.run(api.ainvestigate(CLAIM, services=services, corpora=["fixture"], depth=1,
                                          top_documents=3, perspectives=False))
    # The fixture corpus holds evidence on the claim: the async path runs the whole investigation.
    assert report.claim == CLAIM
    assert report.status == "complete", report.warnings
    assert report.documents and report.explanation.sentences
