"""claimscope in the browser: a local web app on the same engine as the CLI and the MCP server.

`create_app(manager)` builds the Starlette app over a `RunManager` (agent/runs.py): the pages start
investigations, stream their progress (server-sent events), take guided review decisions, show the
report and answer follow-up questions through the chat's tools (agent/chat/). `serve()` runs it
with uvicorn (`claimscope serve`).

One module per concern: app (assembly, serving), context (settings and what every route shares),
security (access token, CSRF, body limit, response headers), routes (the pages), checks (the text
check pages), decisions (review forms -> review decisions).
"""

from __future__ import annotations

from claimscope.agent.web.app import WebConfig, create_app, serve

__all__ = ["WebConfig", "create_app", "serve"]
