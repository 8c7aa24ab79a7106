"""A real streamable-HTTP MCP server (uvicorn on a free loopback port, in a thread) for tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from claimscope.agent.mcp_server import build_server, http_app
from claimscope.agent.runs import RunManager


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(manager: RunManager, *, token: str | None = None) -> Iterator[str]:
    """Serve `manager` over streamable HTTP; yields the /mcp URL."""
    port = free_port()
    config = uvicorn.Config(http_app(build_server(manager), host="127.0.0.1", token=token),
                            host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test MCP server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
