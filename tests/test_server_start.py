"""Starting the servers from the command line: `claimscope mcp` refuses network options without
--http, and a server listening on every interface prints a URL another machine can open."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from claimscope.agent.access import TOKEN_ENV
from tests.conftest import run_main
from tests.fixtures.sessions import stub_steps

HOST_NAME = "lab-7.example.org"


@pytest.fixture
def served(monkeypatch) -> dict[str, Any]:
    """What the MCP server and the web app would have been started with (neither is started)."""
    import claimscope.agent.mcp_server as mcp_server
    import claimscope.agent.web as web

    seen: dict[str, Any] = {}
    monkeypatch.setattr(mcp_server, "serve", lambda **kw: seen.update(kw, server="mcp"))
    monkeypatch.setattr(web, "serve", lambda manager, **kw: seen.update(kw, server="web"))
    monkeypatch.setattr(socket, "gethostname", lambda: HOST_NAME)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    stub_steps.install(monkeypatch)
    return seen


@pytest.mark.parametrize(("args", "message"), [
    (["--host", "0.0.0.0"], "error: --host needs --http: without it the MCP server talks over stdio"),
    (["--port", "9000"], "error: --port needs --http"),
    (["--host", "0.0.0.0", "--port", "9000", "--generate-token"],
     "error: --host, --port and --generate-token need --http"),
])
def test_mcp_refuses_network_options_without_http(monkeypatch, capsys, served, args, message):
    code, out = run_main(monkeypatch, capsys, "mcp", *args)
    assert code == 2 and out.startswith(message) and len(out.strip().splitlines()) == 1, out
    assert served == {}  # nothing started over stdio


def test_mcp_over_stdio_still_starts_without_network_options(monkeypatch, capsys, served):
    code, out = run_main(monkeypatch, capsys, "mcp")
    assert code == 0, out
    assert (served["server"], served["http"], served["host"], served["port"]) == ("mcp", False, "127.0.0.1", 8765)


def test_mcp_on_every_interface_prints_a_url_naming_this_machine(monkeypatch, capsys, served):
    code, out = run_main(monkeypatch, capsys, "mcp", "--http", "--host", "0.0.0.0", "--port", "9100",
                         "--generate-token")
    assert code == 0, out
    assert served["host"] == "0.0.0.0" and served["port"] == 9100  # it still listens on every interface
    assert f"claimscope MCP server on http://{HOST_NAME}:9100/mcp (listening on every interface, 0.0.0.0: " \
           f"from another machine, replace {HOST_NAME} with this machine's address" in out, out
    assert "http://0.0.0.0" not in out


def test_serve_on_every_interface_prints_a_sign_in_url_naming_this_machine(monkeypatch, capsys, served):
    code, out = run_main(monkeypatch, capsys, "serve", "--host", "0.0.0.0", "--port", "9000", "--generate-token")
    assert code == 0, out
    token = served["token"]
    assert served["host"] == "0.0.0.0" and token
    assert f"sign-in URL: http://{HOST_NAME}:9000/?token={token}" in out
    assert "http://0.0.0.0" not in out
    # A named interface is printed as given.
    code, out = run_main(monkeypatch, capsys, "serve", "--host", "192.0.2.7", "--port", "9000", "--generate-token")
    assert f"sign-in URL: http://192.0.2.7:9000/?token={served['token']}" in out and HOST_NAME not in out
