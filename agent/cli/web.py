"""`claimscope serve`: the local web app (agent/web/)."""

from __future__ import annotations

import socket
from typing import Annotated

import typer
from rich.console import Console

from claimscope.agent.cli.root import app

err = Console(stderr=True, soft_wrap=True)

# Interfaces that mean "every interface of this machine": a server listens there, but no browser
# can open a URL naming them from another machine.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def server_url(host: str, port: int) -> tuple[str, str]:
    """The base URL to print for a server listening on host:port, and a note to print after it
    ("" when none). On every interface (0.0.0.0, ::) the URL names this machine by its host name,
    and the note says to use its address where that name does not resolve."""
    if host.strip().strip("[]") in WILDCARD_HOSTS:
        name = socket.gethostname() or "localhost"
        shown = f"[{name}]" if ":" in name else name
        return (f"http://{shown}:{port}/",
                f" (listening on every interface, {host}: from another machine, replace {name} with this "
                "machine's address if that name does not resolve there)")
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/", ""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on; other than loopback it needs an access token "
                                           "(CLAIMSCOPE_MCP_TOKEN or --generate-token).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=16, help="Investigations run at the same time.")] = 2,
    generate_token: Annotated[bool, typer.Option(
        "--generate-token", help="Make a random access token, print it once (in the URL), and require it.")] = False,
    mcp: Annotated[bool, typer.Option(
        "--mcp", help="Also serve the MCP server at /mcp (streamable HTTP) on the same sessions.")] = False,
) -> None:
    """Open claimscope in the browser: investigate, watch progress, review and ask follow-ups."""
    from claimscope.agent.access import TOKEN_ENV, access_token
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.runs import RunManager
    from claimscope.agent.web import serve as serve_web

    token, generated = access_token(host, generate=generate_token, service="the web app")
    url, note = server_url(host, port)
    if token:
        err.print(f"claimscope web app on {url}{note} — open {url}?token=TOKEN once to sign in",
                  highlight=False, markup=False)
        if generated:
            err.print(f"access token (set {TOKEN_ENV} to keep one): {token}", highlight=False, markup=False)
            err.print(f"sign-in URL: {url}?token={token}", highlight=False, markup=False)
        else:
            err.print(f"the token is the one in {TOKEN_ENV}.", highlight=False)
    else:
        err.print(f"claimscope web app on {url}{note} (Ctrl+C stops it)", highlight=False, markup=False)
    if mcp:
        err.print(f"MCP server (streamable HTTP) on {url}mcp" + (" (send 'Authorization: Bearer TOKEN')" if token else ""),
                  highlight=False)
    serve_web(RunManager(Investigator(), max_workers=workers), host=host, port=port, token=token, mcp=mcp)
