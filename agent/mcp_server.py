"""claimscope as an MCP server (official MCP Python SDK), over stdio or streamable HTTP.

Tools:
  start_investigation(claim, options, wait_seconds)  -> session id (the run goes on in the background)
  get_status(session_id, since, wait_seconds)        -> status, progress events after `since`, pending review
  answer(session_id, decision, wait_seconds)         -> give a guided session's review decision
  get_report(session_id, format)                     -> the report as md, json or html
  search_evidence(query, corpus, k)                  -> documents of a local corpus with their best sentences
  cancel_investigation(session_id)                   -> stop a running session (resumable later)
  check_text(text, options, claims, format)          -> check a whole text claim by claim; the report on the text

Runs belong to the server's RunManager, not to the request that started them: a client that
disconnects (or a wait that is cancelled) does not stop the investigation, and another client can
pick the session up by id. While a call waits (`wait_seconds` > 0) every progress event of the run
is sent as an MCP progress notification (progress = the event's number, message = "step: text").
Arguments are validated against the same models as the Python API (agent/api.py); a bad argument,
an unknown session or a session in the wrong state returns an error result whose text says what to do.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from claimscope.agent.access import TOKEN_ENV, BearerAuth, is_loopback
from claimscope.agent.api import (
    CHECK_DESCRIPTION,
    SEARCH_DESCRIPTION,
    ClaimEditsParam,
    ClaimParam,
    CorpusParam,
    QueryParam,
    SessionOptions,
    TextParam,
    ToolOptions,
    TopKParam,
    describe_validation_error,
    search_evidence,
)
from claimscope.agent.check import CheckProgress, check_text
from claimscope.agent.report import render
from claimscope.agent.report.text_render import render_text_report
from claimscope.agent.runs import RunEvent, RunManager, SessionInfo
from claimscope.tools.errors import ClaimscopeError, InputError

SessionId = Annotated[str, Field(min_length=1, max_length=64, description="Id returned by start_investigation.")]
WaitSeconds = Annotated[float, Field(
    ge=0, le=600, description="Wait up to this long for the run to finish or pause, sending progress "
                              "notifications meanwhile; 0 returns at once.")]
Decision = Annotated[dict[str, Any] | Literal["accept"], Field(
    description="'accept', or an object whose fields depend on the review point (see the pending review's "
                "'actions'): claim {anti_claim, sub_claims, extra_queries, claim_kind}; sources {exclude, add}; hierarchy "
                "{edits: [{op, node_id, into, parent_id, name, description}]}; verdict {accept, note}.")]

INSTRUCTIONS = (
    "claimscope investigates nuanced claims against the literature. Call start_investigation with the "
    "claim (it returns a session id at once; pass wait_seconds to wait with progress), then get_status "
    "until the status is complete / no_evidence / budget_exhausted (or paused: a guided session waits for "
    "answer), then get_report. Investigations take minutes on the embedded model."
)


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """Run blocking claimscope code off the event loop; its user-facing errors become tool errors."""
    try:
        return await anyio.to_thread.run_sync(lambda: fn(*args))
    except ClaimscopeError as exc:
        raise ToolError(str(exc)) from exc


def _progress_text(ev: RunEvent) -> str:
    return f"{ev.step}: {ev.message}" if ev.step and ev.message else (ev.message or f"{ev.kind} {ev.step}".strip())


async def _follow(
    manager: RunManager, session_id: str, since: int, wait_seconds: float,
    notify: Callable[[RunEvent], Awaitable[None]],
) -> int:
    """Forward the session's events after `since` as they come, until it stops being active or the
    wait is over; returns the number of the last event forwarded. A cancelled caller (client gone)
    only stops the forwarding."""
    last = since
    deadline = anyio.current_time() + wait_seconds
    while True:
        remaining = deadline - anyio.current_time()
        new = await manager.await_events(session_id, last, timeout=max(0.0, remaining))
        for ev in new:
            await notify(ev)
            last = ev.seq
        if remaining <= 0 or (not new and not manager.is_active(session_id)):
            return last


def _status_payload(info: SessionInfo, events: list[RunEvent], since: int) -> dict[str, Any]:
    out = info.model_dump(mode="json")
    out["new_events"] = [e.model_dump(mode="json") for e in events]
    # The events were read after the status, so they may reach further: `events` is what to pass as
    # `since` next time, and must never be behind what was returned.
    out["events"] = max(info.events, since, events[-1].seq if events else 0)
    out["next"] = _next_hint(info)
    return out


def _next_hint(info: SessionInfo) -> str:
    if info.active:
        return f"running; call get_status(session_id, since={info.events}, wait_seconds=...) for progress"
    if info.status == "paused":
        return "paused for a review: call answer(session_id, decision) ('accept' or an edit, see pending.actions)"
    if info.has_report:
        return "finished: call get_report(session_id, format)"
    if info.status in ("interrupted", "cancelled", "failed"):
        return "stopped before the end: start_investigation again, or `claimscope sessions resume ID`"
    return "waiting to run"


class ClaimscopeServer(MCPServer):
    """MCPServer whose argument errors read as one line per bad field (the SDK passes pydantic's
    multi-line text with documentation links through), and whose refusals read as at every other
    entry point (the SDK puts "Error executing tool NAME: " before them)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(describe_validation_error(cause, f"arguments for {name}")) from cause
            if type(exc) is ToolError and type(cause) is ToolError:
                raise ToolError(str(cause)) from cause
            raise


def build_server(manager: RunManager | None = None, *, name: str = "claimscope") -> MCPServer:
    """An MCP server whose tools drive `manager` (a default RunManager if None)."""
    runs = manager or RunManager()
    server = ClaimscopeServer(name, instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING")

    def notifier(ctx: Context) -> Callable[[RunEvent], Awaitable[None]]:
        async def notify(ev: RunEvent) -> None:
            await ctx.report_progress(ev.seq, None, _progress_text(ev))

        return notify

    async def status_after_wait(session_id: str, since: int, wait_seconds: float, ctx: Context) -> dict[str, Any]:
        if wait_seconds > 0:
            await _follow(runs, session_id, since, wait_seconds, notifier(ctx))
        info = await _call(runs.status, session_id)
        events = await _call(runs.events, session_id, since)
        return _status_payload(info, events, since)

    @server.tool(description="Start investigating a claim in the background; returns its session id at once "
                             "(with wait_seconds > 0, waits with progress notifications first).")
    async def start_investigation(
        claim: ClaimParam,
        ctx: Context,
        options: Annotated[SessionOptions | None, Field(description="Optional choices; omit for the defaults.")]
        = None,
        wait_seconds: WaitSeconds = 0.0,
    ) -> dict[str, Any]:
        opts = options or SessionOptions()

        def start() -> str:
            return runs.start(claim, opts.to_options(runs.investigator.services.settings))

        session_id = await _call(start)
        return await status_after_wait(session_id, 0, wait_seconds, ctx)

    @server.tool(description="Status of an investigation: finished steps, progress events after `since`, "
                             "the pending review of a paused guided session, and what to call next.")
    async def get_status(
        session_id: SessionId,
        ctx: Context,
        since: Annotated[int, Field(ge=0, description="Return only events numbered above this.")] = 0,
        wait_seconds: WaitSeconds = 0.0,
    ) -> dict[str, Any]:
        await _call(runs.status, session_id)  # unknown ids fail before any waiting
        return await status_after_wait(session_id, since, wait_seconds, ctx)

    @server.tool(description="Answer the review a paused guided session waits for, and continue it.")
    async def answer(
        session_id: SessionId,
        decision: Decision,
        ctx: Context,
        wait_seconds: WaitSeconds = 0.0,
    ) -> dict[str, Any]:
        since = (await _call(runs.status, session_id)).events
        await _call(runs.answer, session_id, decision)
        return await status_after_wait(session_id, since, wait_seconds, ctx)

    @server.tool(description="The report of a finished investigation as Markdown (md), JSON or HTML.")
    async def get_report(
        session_id: SessionId,
        format: Annotated[Literal["md", "json", "html"], Field(description="Report format.")] = "md",
    ) -> str:
        def report() -> str:
            info = runs.status(session_id)
            result = runs.result(info.session_id)
            if not result.report:
                raise InputError(f"session {info.session_id!r} has no report yet (status {info.status}); "
                                 f"{_next_hint(info)}.")
            return render(result.report, format)

        return await _call(report)

    @server.tool(name="search_evidence", description=SEARCH_DESCRIPTION)
    async def search_evidence_tool(
        query: QueryParam,
        corpus: CorpusParam,
        k: TopKParam = 10,
    ) -> list[dict[str, Any]]:
        hits = await _call(lambda: search_evidence(query, corpus, k, services=runs.investigator.services))
        return [h.model_dump(mode="json") for h in hits]

    @server.tool(description="Stop a running investigation at its next progress event; finished steps are "
                             "kept and the session can be resumed later.")
    async def cancel_investigation(session_id: SessionId) -> dict[str, Any]:
        was_active = await _call(runs.cancel, session_id)
        info = await _call(runs.wait, session_id, 30.0)
        return {"cancelled": was_active, **info.model_dump(mode="json")}

    @server.tool(name="check_text", description=CHECK_DESCRIPTION + " Waits until every claim is checked, "
                 "sending a progress notification per step ('claim 3 of 7: gather'); a cancelled call stops the "
                 "check at its next step (`claimscope check --resume ID` continues it).")
    async def check_text_tool(
        text: TextParam,
        ctx: Context,
        options: Annotated[ToolOptions | None, Field(description="Optional choices for every claim; omit for "
                                                                 "the defaults.")] = None,
        claims: ClaimEditsParam = None,
        format: Annotated[Literal["md", "json", "html"], Field(description="Report format.")] = "md",
    ) -> str:
        cancel = threading.Event()
        numbers = itertools.count(1)

        def progress(ev: CheckProgress) -> None:
            if not cancel.is_set():
                anyio.from_thread.run(ctx.report_progress, next(numbers), None, ev.line())

        def run() -> str:
            opts = options or ToolOptions()
            report = check_text(text, investigator=runs.investigator, claims=claims, on_event=progress,
                                cancel=cancel, **opts.given())
            return render_text_report(report, format)

        try:
            # Abandoned on cancel: the worker then stops at its next step, as `cancel` is set below.
            return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except ClaimscopeError as exc:
            raise ToolError(str(exc)) from exc
        finally:
            cancel.set()

    return server


def http_app(server: MCPServer, *, host: str = "127.0.0.1", token: str | None = None) -> Any:
    """The streamable-HTTP ASGI app at /mcp, behind the bearer-token check when `token` is set."""
    app = server.streamable_http_app(host=host)
    return BearerAuth(app, token) if token else app


def serve(
    *, http: bool = False, host: str = "127.0.0.1", port: int = 8765, manager: RunManager | None = None,
    token: str | None = None,
) -> None:
    """Run the server until interrupted: stdio (for a client that launches it) or streamable HTTP.

    Over HTTP on a non-loopback `host` a `token` is required (see `access_token`)."""
    if http and token is None and not is_loopback(host):
        raise InputError(f"serving MCP on {host} needs an access token ({TOKEN_ENV} or --generate-token).")
    runs = manager or RunManager()
    server = build_server(runs)
    try:
        if http:
            uvicorn.run(http_app(server, host=host, token=token), host=host, port=port, log_level="warning")
        else:
            server.run("stdio")
    finally:
        runs.shutdown(cancel=True, wait=False)
