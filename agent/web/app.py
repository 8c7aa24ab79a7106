"""The web app's assembly: the Starlette application over a RunManager, and `serve` to run it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from claimscope.agent.access import TOKEN_ENV, is_loopback
from claimscope.agent.datadir import open_store
from claimscope.agent.runs import RunManager
from claimscope.agent.web.checks import check_routes
from claimscope.agent.web.context import HERE, MB, WebConfig, WebContext
from claimscope.agent.web.routes import error_handlers, routes
from claimscope.agent.web.security import Guard
from claimscope.tools.errors import InputError

__all__ = ["WebConfig", "background_server", "create_app", "serve"]


def create_app(manager: RunManager, config: WebConfig | None = None, *, mcp: bool = False,
               host: str = "127.0.0.1") -> Any:
    """The ASGI app: pages over `manager`, behind the access / CSRF / size guard. With `mcp`, the
    MCP server's streamable HTTP endpoint is served at /mcp too, on the same run manager (behind
    the same access token, sent as a bearer header)."""
    cfg = config or WebConfig()
    ctx = WebContext(manager, cfg)
    app = Starlette(routes=[*routes(ctx), *check_routes(ctx),
                            Mount("/static", StaticFiles(directory=HERE / "static"), name="static")],
                    exception_handlers=error_handlers(ctx))
    app.state.ctx = ctx
    # Multipart framing and the other form fields ride on top of the file itself.
    web = Guard(app, token=cfg.token, max_body=cfg.max_upload_bytes + MB)
    if not mcp:
        return web
    from claimscope.agent.mcp_server import build_server, http_app

    return _WithMCP(web, http_app(build_server(manager), host=host, token=cfg.token))


class _WithMCP:
    """/mcp to the MCP server's app (which alone needs the lifespan: it runs its session manager),
    everything else to the web app."""

    def __init__(self, web: Any, mcp: Any) -> None:
        self.web = web
        self.mcp = mcp

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" or str(scope.get("path", "")).startswith("/mcp"):
            await self.mcp(scope, receive, send)
        else:
            await self.web(scope, receive, send)


@contextmanager
def background_server(manager: RunManager, config: WebConfig | None = None, *, port: int = 0,
                      mcp: bool = False) -> Iterator[str]:
    """The web app served by uvicorn in a thread on a loopback port (any free one by default), for
    tests and benchmarks; yields its base URL and stops it on exit."""
    if port == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(create_app(manager, config, mcp=mcp), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True, name="claimscope-web")
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def serve(manager: RunManager, *, host: str = "127.0.0.1", port: int = 8000, token: str | None = None,
          mcp: bool = False) -> None:
    """Run the web app (with `mcp`, and the MCP server at /mcp) with uvicorn until interrupted; off
    loopback a token is required."""
    if token is None and not is_loopback(host):
        raise InputError(f"serving the web app on {host} needs an access token ({TOKEN_ENV} or --generate-token).")
    # Open the evidence store now: a store another process holds is refused here, in one line,
    # rather than on every page; and holding it from the start keeps a second server from starting.
    try:
        open_store(manager.investigator.services).corpora()
        uvicorn.run(create_app(manager, WebConfig(token=token), mcp=mcp, host=host), host=host, port=port,
                    log_level="warning")
    finally:
        manager.shutdown(cancel=True, wait=False)
