"""`claimscope mcp --http`: a non-loopback interface needs an access token, and every request is
checked against it."""

from __future__ import annotations

import asyncio

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from claimscope.agent.access import TOKEN_ENV, access_token, is_loopback
from claimscope.agent.investigation import Investigator
from claimscope.agent.mcp_server import serve
from claimscope.agent.runs import RunManager
from claimscope.agent.services import Services
from claimscope.agent.settings import get_settings
from claimscope.tools.errors import InputError
from tests.conftest import run_main
from tests.fixtures.sessions import stub_steps
from tests.mcp_http import http_server

TOKEN = "t0k3n-for-tests-only-0123456789"


@pytest.fixture
def manager(monkeypatch):
    stub_steps.install(monkeypatch)
    m = RunManager(Investigator(Services(get_settings())), max_workers=1)
    yield m
    m.shutdown(cancel=True, wait=True)




def test_loopback_is_told_apart():
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.5", "::", "example.org"))


def test_a_non_loopback_interface_refuses_to_start_without_a_token(monkeypatch, capsys):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    code, out = run_main(monkeypatch, capsys, "mcp", "--http", "--host", "0.0.0.0", "--port", "1")
    assert code == 2 and TOKEN_ENV in out and "--generate-token" in out and "Traceback" not in out, out
    with pytest.raises(InputError, match="access token"):
        serve(http=True, host="0.0.0.0", port=1)
    monkeypatch.setenv(TOKEN_ENV, "short")
    with pytest.raises(InputError, match="too short"):
        access_token("0.0.0.0")


def test_token_from_the_environment_or_generated(monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    assert access_token("0.0.0.0") == (TOKEN, False)
    monkeypatch.delenv(TOKEN_ENV)
    token, generated = access_token("0.0.0.0", generate=True)
    assert generated and len(token) >= 32 and token != access_token("0.0.0.0", generate=True)[0]
    assert access_token("127.0.0.1") == (None, False)


def test_generate_token_prints_it_and_serves_with_it(monkeypatch, capsys):
    import claimscope.agent.mcp_server as srv

    seen = {}
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.setattr(srv, "serve", lambda **kw: seen.update(kw))
    stub_steps.install(monkeypatch)
    code, out = run_main(monkeypatch, capsys, "mcp", "--http", "--host", "0.0.0.0", "--generate-token")
    assert code == 0, out
    assert seen["token"] and seen["token"] in out and seen["host"] == "0.0.0.0"


def test_every_request_is_checked_against_the_token(manager):
    with http_server(manager, token=TOKEN) as url:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"accept": "application/json, text/event-stream"}
        for auth in (None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x"):
            h = dict(headers, **({"authorization": auth} if auth else {}))
            for method in ("POST", "GET", "DELETE"):
                r = httpx.request(method, url, headers=h, json=ping if method == "POST" else None, timeout=10)
                assert r.status_code == 401, (auth, method, r.status_code)
                assert r.headers["www-authenticate"].startswith("Bearer")

        async def main():
            client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
            async with Client(streamable_http_client(url, http_client=client)) as c:
                r = await c.call_tool("start_investigation", {"claim": "Green tea prevents colds", "wait_seconds": 30,
                                                                   "options": {"sources": ["semantic_scholar"]}})
                return r

        r = asyncio.run(main())
        assert not r.is_error and r.structured_content["has_report"], r.content[0].text

        async def without():
            async with Client(url) as c:
                await c.list_tools()

        with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK's error type for a 401 varies by version
            asyncio.run(without())
