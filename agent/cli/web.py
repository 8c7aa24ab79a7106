"""`claimscope serve`: the local web app (agent/web/)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from claimscope.agent.cli import app

err = Console(stderr=True, soft_wrap=True)


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
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if token:
        err.print(f"claimscope web app on {url} — open {url}?token=TOKEN once to sign in", highlight=False)
        if generated:
            err.print(f"access token (set {TOKEN_ENV} to keep one): {token}", highlight=False, markup=False)
            err.print(f"sign-in URL: {url}?token={token}", highlight=False, markup=False)
        else:
            err.print(f"the token is the one in {TOKEN_ENV}.", highlight=False)
    else:
        err.print(f"claimscope web app on {url} (Ctrl+C stops it)", highlight=False)
    if mcp:
        err.print(f"MCP server (streamable HTTP) on {url}mcp" + (" (send 'Authorization: Bearer TOKEN')" if token else ""),
                  highlight=False)
    serve_web(RunManager(Investigator(), max_workers=workers), host=host, port=port, token=token, mcp=mcp)
