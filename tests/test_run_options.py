"""The run options are declared once (agent/options.py) and every entry point derives from that
declaration: the command line (investigate, check, chat), the Python API (investigate, check_text),
the LangChain and MCP tools, the web forms (new investigation, check a text) and the chat engine.
Each refuses the same bad value with the same one line and no traceback, and a claim goes through
one intake with one message.

Driven with the real graph and checkpointer on trivial step bodies (tests/fixtures/sessions): a
refused run must not start a single step, and a started session checks its claim once."""

from __future__ import annotations

import asyncio
import html
import io
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from starlette.testclient import TestClient

from claimscope.agent import api
from claimscope.agent.chat import ChatEngine
from claimscope.agent.investigation import Investigator, UnreadableLanguageError, prepare_claim
from claimscope.agent.mcp_server import build_server
from claimscope.agent.options import (
    GIVEN_MODELS,
    InvestigationOptions,
    SessionOptions,
    ToolOptions,
    default_options,
    offered_at,
)
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from claimscope.agent.web import create_app
from claimscope.tools.errors import InputError
from tests.conftest import run_main
from tests.fixtures.sessions import stub_steps

CLAIM = "Green tea prevents colds in adults"
TEXT = "Green tea prevents colds in adults. Vitamin D supplementation prevents respiratory infections."
# Scholarly sources need no corpus, so nothing but the bad value can be refused.
BASE = {"sources": ["semantic_scholar"]}
BAD_OPTIONS = {
    "depth 9": ({"depth": 9}, "depth must be between 1 and 3, not 9."),
    "years reversed": ({"year_min": 2020, "year_max": 2010},
                       "year_min 2020 is after year_max 2010: no document could match."),
    "top_documents 0": ({"top_documents": 0}, "top_documents must be between 1 and 50, not 0."),
}
# Too short for intake but long enough for a bare length bound; two words; a language not read.
BAD_CLAIMS = ["xyz", "Coffee bad", "维生素D补充剂可以预防呼吸道感染"]


pytestmark = pytest.mark.usefixtures("stubbed_steps")


@pytest.fixture
def manager():
    m = RunManager(Investigator(Services(get_settings())), max_workers=1)
    yield m
    m.shutdown(cancel=True, wait=True)


def _flags(options: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for name, value in options.items():
        out += [f"--{name.replace('_', '-')}", ",".join(value) if isinstance(value, list) else str(value)]
    return out


def _refused(fn: Callable[[], Any]) -> str:
    with pytest.raises(InputError) as exc:
        fn()
    return str(exc.value)


def _cli(monkeypatch, capsys, *args: str, stdin: str = "") -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code, out = run_main(monkeypatch, capsys, *args)
    assert code in (0, 2), out
    return out


def _mcp(manager: RunManager, tool: str, args: dict[str, Any]) -> str:
    async def call():
        async with Client(build_server(manager)) as c:
            return await c.call_tool(tool, args)

    result = asyncio.run(call())
    assert result.is_error
    return result.content[0].text


def _web(manager: RunManager, path: str, fields: dict[str, Any]) -> str:
    with TestClient(create_app(manager), base_url="http://127.0.0.1:8000") as client:
        page = client.get(path).text
        token = re.search(r'name="csrf" value="([^"]+)"', page)
        assert token, path
        data: dict[str, Any] = {"csrf": token.group(1)}
        for name, value in fields.items():
            data[name] = value if isinstance(value, list) else str(value)
        r = client.post(path, data=data, follow_redirects=False)
    assert r.status_code == 400, r.status_code
    shown = re.search(r'<p class="error" role="alert">(.*?)</p>', r.text, re.S)
    assert shown, r.text[:2000]
    return html.unescape(shown.group(1))


# Each entry point: (what the user sees for these options and this claim, whether it takes a claim).
Entry = Callable[..., str]


def cli_investigate(env, options, claim=CLAIM):
    return _cli(env["monkeypatch"], env["capsys"], "investigate", claim, *_flags({**BASE, **options}))


def cli_investigate_old_spelling(env, options, claim=CLAIM):
    flags = [f.replace("--top-documents", "--top-docs") for f in _flags({**BASE, **options})]
    return _cli(env["monkeypatch"], env["capsys"], "investigate", claim, *flags)


def cli_check(env, options, claim=None):
    text = env["tmp_path"] / "text.md"
    text.write_text(TEXT, encoding="utf-8")
    return _cli(env["monkeypatch"], env["capsys"], "check", str(text), *_flags({**BASE, **options}))


def cli_chat(env, options, claim=CLAIM):
    return _cli(env["monkeypatch"], env["capsys"], "chat", *_flags({**BASE, **options}), stdin=f"{claim}\nquit\n")


def python_investigate(env, options, claim=CLAIM):
    return _refused(lambda: api.investigate(claim, services=env["manager"].investigator.services,
                                            **{**BASE, **options}))


def python_check_text(env, options, claim=None):
    return _refused(lambda: api.check_text(TEXT, services=env["manager"].investigator.services,
                                           **{**BASE, **options}))


def run_manager(env, options, claim=CLAIM):
    settings = env["manager"].investigator.services.settings
    return _refused(lambda: env["manager"].start(claim, default_options(settings, **BASE, **options)))


def langchain_investigate(env, options, claim=CLAIM):
    tools = {t.name: t for t in api.langchain_tools(env["manager"].investigator.services)}
    return tools["investigate_claim"].invoke({"claim": claim, "options": {**BASE, **options}})


def langchain_check_text(env, options, claim=None):
    tools = {t.name: t for t in api.langchain_tools(env["manager"].investigator.services)}
    return tools["check_text"].invoke({"text": TEXT, "options": {**BASE, **options}})


def mcp_start_investigation(env, options, claim=CLAIM):
    return _mcp(env["manager"], "start_investigation", {"claim": claim, "options": {**BASE, **options}})


def mcp_check_text(env, options, claim=None):
    return _mcp(env["manager"], "check_text", {"text": TEXT, "options": {**BASE, **options}})


def web_new_investigation(env, options, claim=CLAIM):
    return _web(env["manager"], "/new", {"claim": claim, **{**BASE, **options}})


def web_check_text(env, options, claim=None):
    return _web(env["manager"], "/check", {"text": TEXT, **{**BASE, **options}})


def chat_engine(env, options, claim=CLAIM):
    inv = env["manager"].investigator
    return _refused(lambda: ChatEngine(inv, None, {**BASE, **options}).handle(claim))


ENTRIES: dict[str, tuple[Entry, bool]] = {
    f.__name__: (f, takes_claim) for f, takes_claim in (
        (cli_investigate, True), (cli_investigate_old_spelling, False), (cli_check, False), (cli_chat, True),
        (python_investigate, True), (python_check_text, False), (run_manager, True),
        (langchain_investigate, True), (langchain_check_text, False),
        (mcp_start_investigation, True), (mcp_check_text, False),
        (web_new_investigation, True), (web_check_text, False), (chat_engine, True),
    )
}
CASES = [(entry, bad) for entry in ENTRIES for bad in BAD_OPTIONS]
CLAIM_CASES = [(entry, claim) for entry, (_, takes_claim) in ENTRIES.items() if takes_claim for claim in BAD_CLAIMS]


@pytest.fixture
def env(monkeypatch, capsys, tmp_path, manager):
    return {"monkeypatch": monkeypatch, "capsys": capsys, "tmp_path": tmp_path, "manager": manager}


def _one_line(shown: str, message: str) -> None:
    assert "Traceback" not in shown and "pydantic" not in shown, shown
    lines = [line for line in shown.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    assert lines[0].removeprefix("error: ") == message, shown


@pytest.mark.parametrize(("entry", "bad"), CASES)
def test_every_entry_point_refuses_a_bad_option_with_the_models_line(env, entry, bad):
    options, message = BAD_OPTIONS[bad]
    # The line is the options model's own.
    assert _refused(lambda: default_options(get_settings(), **options)) == message
    fn, _ = ENTRIES[entry]
    _one_line(fn(env, options), message)
    assert not stub_steps.CALLS  # nothing ran


@pytest.mark.parametrize(("entry", "claim"), CLAIM_CASES)
def test_every_entry_point_refuses_a_bad_claim_with_the_intake_line(env, entry, claim):
    with pytest.raises(InputError) as refused:
        prepare_claim(claim)
    message = str(refused.value)
    if entry.startswith("web_") and isinstance(refused.value, UnreadableLanguageError):
        # the web's pages have no --translate to offer: the same refusal, without the command line's advice
        message = (f"the claim looks like {refused.value.language}, but investigations read English claims "
                   "only: write the claim in English.")
    fn, _ = ENTRIES[entry]
    shown = fn(env, {}, claim)
    if entry == "cli_chat":  # the chat goes on after a refused claim: its reply, after the prompt, is the refusal
        shown = "\n".join(line.split("you> ")[-1] for line in shown.splitlines() if message in line)
    _one_line(shown, message)
    assert not stub_steps.CALLS


def test_a_started_session_checks_its_claim_once(monkeypatch, manager):
    from claimscope.agent import investigation

    checked: list[str] = []
    original = investigation.prepare_claim

    def counting(claim: str) -> str:
        checked.append(claim)
        return original(claim)

    monkeypatch.setattr(investigation, "prepare_claim", counting)
    opts = default_options(manager.investigator.services.settings, **BASE)
    sid = manager.start(CLAIM, opts)
    info = manager.wait(sid, timeout=60)
    assert info.status == "complete", info
    assert checked == [CLAIM]


def test_defaults_come_from_the_settings_and_bounds_from_one_declaration(tmp_path):
    from claimscope.agent.settings import load_settings

    settings = load_settings(hierarchy={"depth": 3, "top_k": 4}, verdict={"top_documents": 7},
                             search={"top_k": 80, "sources": ["openalex"]}, stance={"claim_kind": "debate"})
    opts = default_options(settings)
    assert (opts.depth, opts.top_k_aspects, opts.top_documents, opts.docs_per_query, opts.sources,
            opts.claim_kind) == (3, 4, 7, 80, ["openalex"], "debate")
    # Built without settings, an option takes the packaged setting's default.
    packaged = default_options(load_settings())
    assert InvestigationOptions() == packaged
    # Every given model is the declaration's offered fields, with the same bounds in its schema.
    for level, model in GIVEN_MODELS.items():
        assert list(model.model_fields) == list(offered_at(level))
    depth = ToolOptions.model_json_schema()["properties"]["depth"]["anyOf"][0]
    assert depth == {"type": "integer", "minimum": 1, "maximum": 3}
    assert set(SessionOptions.model_fields) - set(ToolOptions.model_fields) == {"guided"}


def test_the_command_line_flags_are_the_offered_options():
    from typer.main import get_command

    from claimscope.agent.cli import app

    commands = {c.name: c for c in get_command(app).commands.values()}  # type: ignore[attr-defined]
    for command, level in (("investigate", "cli"), ("check", "tools"), ("chat", "sessions")):
        names = {p.name for p in commands[command].params}
        assert set(offered_at(level)) <= names, (command, set(offered_at(level)) - names)
    flags = {d for p in commands["investigate"].params for d in (*p.opts, *p.secondary_opts)}
    # The one name is the flag; the spellings users know stay.
    assert {"--top-documents", "--top-docs", "--top-k-aspects", "--aspects", "--corpus", "-c", "--year-min",
            "--perspectives", "--no-perspectives", "--guided", "--claim-kind", "--stop-after"} <= flags


def test_a_comma_separated_flag_is_read_into_the_model():
    from claimscope.agent.cli.options import read_flags

    assert read_flags("tools", {"sources": "local, serpapi,local"}).given() == {"sources": ["local", "serpapi"]}
    with pytest.raises(InputError) as exc:
        read_flags("tools", {"sources": "local,arxiv"})
    assert str(exc.value) == ("sources must each be one of local, semantic_scholar, serpapi, openalex, "
                              "not 'arxiv'.")
