"""`claimscope sessions list|show|resume|export|delete` and `claimscope mcp`.

Sessions are the investigations kept in the LangGraph checkpointer (the SQLite file
`sessions.path`, or the PostgreSQL database `sessions.url`), whoever started them (`claimscope investigate`, the chat, the MCP server).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from claimscope.agent.cli.options import write_output
from claimscope.agent.cli.root import app
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.review import decision_from_text
from claimscope.agent.runs import RunManager
from claimscope.tools.errors import InputError
from claimscope.tools.text.text_guard import strip_control

sessions_app = typer.Typer(help="List, inspect, resume, export and delete investigation sessions.",
                           no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")

console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

EXPORT_FORMATS = ("md", "json", "html", "state")


F = TypeVar("F", bound=Callable[..., Any])


def _sessions_path() -> Path:
    from claimscope.agent.datadir import ensure_data_dir
    from claimscope.agent.settings import get_settings

    settings = get_settings()
    ensure_data_dir(settings)
    return settings.resolve(settings.sessions.path)


def _guarded(fn: F) -> F:
    """Damage found while reading the sessions database ends the command with one line saying
    which file and what to do, not a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from claimscope.agent.sessions.sqlite import database_guard

        with database_guard(_sessions_path()):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _manager() -> RunManager:
    from claimscope.agent.investigation import Investigator

    return RunManager(Investigator(), max_workers=1)


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M")


@sessions_app.command("list")
@_guarded
def list_sessions(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Every session, oldest first: id, status, steps done, verdict, claim."""
    manager = _manager()
    infos = manager.list()
    if as_json:
        typer.echo(json.dumps([i.model_dump(mode="json") for i in infos], indent=2))
        return
    if not infos:
        console.print("no sessions yet; start one with `claimscope investigate \"CLAIM\"`.")
        return
    # Plain aligned lines rather than a table: claims stay on one line, so the output can be grepped.
    width = max(len(i.session_id) for i in infos)
    console.print(f"{'id':<{width}}  {'created':<16}  {'status':<16}  steps  {'verdict':<20}  claim",
                  highlight=False)
    for info in infos:
        console.print(f"{info.session_id:<{width}}  {_when(info.created):<16}  {info.status:<16}  "
                      f"{len(info.finished_steps):>5}  {manager.verdict_label(info):<20}  {strip_control(info.claim)}",
                      markup=False, highlight=False)


@sessions_app.command()
@_guarded
def show(
    session_id: Annotated[str, typer.Argument(help="Session id (see `claimscope sessions list`).")],
    events: Annotated[bool, typer.Option("--events", help="Also print the recorded progress events.")] = False,
) -> None:
    """A session's claim, status, finished steps, pending review, decisions and verdict."""
    manager = _manager()
    info = manager.status(session_id)
    state = manager.investigator.state(info.session_id)
    console.print(f"[bold]{info.session_id}[/]  {info.status}", highlight=False)
    console.print(f"claim: {strip_control(info.claim)}", markup=False, highlight=False)
    console.print(f"created: {_when(info.created)}   updated: {_when(info.updated)}")
    console.print(f"finished steps: {', '.join(info.finished_steps) or 'none'}", highlight=False)
    if info.error:
        console.print(f"[red]error:[/] {info.error}", highlight=False)
    verdict = manager.verdict_label(info)
    if verdict:
        console.print(f"verdict: [bold]{verdict}[/]", highlight=False)
    for d in state.get("decisions", []):
        console.print(f"decision at {d.get('point')}: {json.dumps(d.get('decision'))} -> "
                      f"{'; '.join(d.get('applied', [])) or 'accepted'}", markup=False, highlight=False)
    for w in dict.fromkeys(state.get("warnings", [])):
        console.print(f"[yellow]! {w}[/]", highlight=False)
    if info.pending:
        _print_pending(info.pending)
        console.print(f"answer it with `claimscope sessions resume {info.session_id} --decision accept` "
                      "(or a JSON edit).", markup=False)
    elif info.status in ("interrupted", "cancelled", "failed"):
        console.print(f"continue it with `claimscope sessions resume {info.session_id}`.", markup=False)
    if events:
        for ev in manager.events(info.session_id):
            console.print(f"{ev.seq:>4} {ev.kind:<13} {ev.step:<15} {ev.message}", markup=False, highlight=False)


def _print_pending(pending: dict[str, Any]) -> None:
    console.print(f"[bold magenta]waiting for the {pending.get('point')} review[/]")
    console.print(json.dumps(pending.get("summary"), indent=2, ensure_ascii=False)[:4000],
                  markup=False, highlight=False)
    console.print(f"you may: {pending.get('actions')}", markup=False, highlight=False)


def _print_event(ev: ProgressEvent) -> None:
    if ev.kind == "step_started":
        err.print(f"[bold cyan]▶ {ev.step}[/]")
    elif ev.kind == "step_finished":
        err.print(f"  [green]✓[/] {ev.message}", highlight=False)
    elif ev.kind == "warning":
        err.print(f"  [yellow]! {ev.message}[/]", highlight=False)


@sessions_app.command()
@_guarded
def resume(
    session_id: Annotated[str, typer.Argument(help="Session id (see `claimscope sessions list`).")],
    decision: Annotated[list[str] | None, typer.Option(
        "--decision", "-d",
        help="Answer for the next review of a guided session: 'accept' or JSON; repeat for later reviews.")] = None,
    ask: Annotated[bool, typer.Option("--ask", help="Ask for each review decision on the terminal.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Report format when it finishes: md, json, html.")]
    = "md",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the report here (else print it).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Continue a session from its last finished step, answering guided reviews on the way."""
    from claimscope.agent.report import render, report_format

    report_format(fmt)
    manager = _manager()
    info = manager.status(session_id)
    sid = info.session_id
    handler = None if quiet else _print_event
    queue = [decision_from_text(d) for d in (decision or [])]
    inv = manager.investigator
    with manager.hold(sid):
        if info.pending is None and not info.has_report:
            err.print(f"resuming session {sid} after: {', '.join(info.finished_steps) or 'nothing yet'}",
                      highlight=False)
            result = inv.resume(sid, on_event=handler)
        else:
            result = inv.result(sid)
        while result.pending is not None:
            _print_pending(result.pending)
            if queue:
                answer = queue.pop(0)
            elif ask:
                answer = decision_from_text(typer.prompt("decision ('accept' or JSON)", default="accept"))
            else:
                console.print(f"session {sid} is paused; resume with --decision accept (or a JSON edit) or --ask.",
                              markup=False)
                return
            result = inv.answer(sid, answer, on_event=handler)
    err.print(f"session: {sid} (status: {result.status})", highlight=False)
    if not result.report:
        raise InputError(f"session {sid} ended without a report (status {result.status}).")
    _write(render(result.report, fmt), out)


def _write(text: str, out: Path | None) -> None:
    write_output(text, out, err, what="", advice="the session keeps everything: free space or choose another "
                 "--out and export again.")


@sessions_app.command()
@_guarded
def export(
    session_id: Annotated[str, typer.Argument(help="Session id (see `claimscope sessions list`).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, json or html (the report), or state (the "
                                                           "whole session: state, decisions and events).")] = "md",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write here (else print).")] = None,
) -> None:
    """Export a session's report, or its whole saved state."""
    from claimscope.agent.report import render

    if fmt not in EXPORT_FORMATS:
        raise InputError(f"--format must be one of {', '.join(EXPORT_FORMATS)}, not {fmt!r}.")
    manager = _manager()
    info = manager.status(session_id)
    if fmt == "state":
        payload = {"session": info.model_dump(mode="json"),
                   "state": manager.investigator.state(info.session_id),
                   "events": [e.model_dump(mode="json") for e in manager.events(info.session_id)]}
        _write(json.dumps(payload, indent=2, ensure_ascii=False, default=str), out)
        return
    report = manager.result(info.session_id).report
    if not report:
        raise InputError(f"session {info.session_id} has no report yet (status {info.status}); "
                         f"`claimscope sessions resume {info.session_id}` finishes it, or export --format state.")
    _write(render(report, fmt), out)


@sessions_app.command()
@_guarded
def delete(
    session_id: Annotated[str, typer.Argument(help="Session id (see `claimscope sessions list`).")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    keep_evidence: Annotated[bool, typer.Option(
        "--keep-evidence", help="Keep the documents scholarly search stored for this session.")] = False,
) -> None:
    """Delete a session: its checkpoints, index entry, events and (unless kept) its scholarly documents."""
    manager = _manager()
    info = manager.status(session_id)
    if not yes and not typer.confirm(f"delete session {info.session_id} ({info.claim[:60]!r})?", default=False):
        raise typer.Abort()
    corpus = manager.investigator.state(info.session_id).get("investigation_corpus")
    manager.delete(info.session_id)
    removed = 0
    if corpus and not keep_evidence:
        store = manager.investigator.services.store
        if corpus in {c.name for c in store.corpora()}:
            removed = store.delete_corpus(corpus)
    console.print(f"deleted session {info.session_id}" + (f" and {removed} stored documents of {corpus}"
                                                          if removed else ""), highlight=False)


@sessions_app.command()
def repair() -> None:
    """Repair a damaged sessions database: keep a backup, recover what is readable, start a fresh file."""
    from claimscope.agent.sessions.repair import refuse_postgres, repair_sessions
    from claimscope.agent.settings import get_settings

    refuse_postgres(get_settings())
    for rep in repair_sessions(_sessions_path()):
        if rep.healthy:
            console.print(f"{rep.path}: no damage found, left as it is.", highlight=False)
            continue
        kept = ", ".join(f"{t.recovered} {t.table}" + (" (some unreadable)" if t.unreadable else "")
                         for t in rep.tables)
        console.print(f"{rep.path}: damaged; backup kept at {rep.backup}; recovered {kept or 'nothing'}; "
                      "a fresh file is in place.", highlight=False, markup=False)
    console.print("`claimscope sessions list` shows the sessions recovered.", markup=False)


@app.command()
def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")] = False,
    host: Annotated[str | None, typer.Option(
        help="With --http: interface to listen on (default 127.0.0.1); other than loopback it needs an access "
             "token (CLAIMSCOPE_MCP_TOKEN or --generate-token).", show_default=False)] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="With --http: port (default 8765).",
                                             show_default=False)] = None,
    workers: Annotated[int, typer.Option(min=1, max=16, help="Investigations run at the same time.")] = 2,
    generate_token: Annotated[bool, typer.Option(
        "--generate-token", help="With --http: make a random access token, print it once, and require it.")] = False,
) -> None:
    """Serve claimscope to other assistants over MCP (stdio by default; --http for streamable HTTP at /mcp)."""
    from claimscope.agent.access import TOKEN_ENV, access_token
    from claimscope.agent.cli.web import server_url
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.mcp_server import serve

    if not http:
        # Over stdio these would be ignored, and a server meant for the network would not be one.
        given = [name for name, value in (("--host", host), ("--port", port), ("--generate-token", generate_token))
                 if value not in (None, False)]
        if given:
            named = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            raise InputError(f"{named} {'needs' if len(given) == 1 else 'need'} --http: without it "
                             "the MCP server talks over stdio to the program that started it.")
    host = host if host is not None else "127.0.0.1"
    port = port if port is not None else 8765
    token = None
    if http:
        token, generated = access_token(host, generate=generate_token)
        url, note = server_url(host, port)
        err.print(f"claimscope MCP server on {url}mcp{note}", highlight=False, markup=False)
        if generated:
            err.print(f"access token (send as 'Authorization: Bearer TOKEN'; set {TOKEN_ENV} to keep one): {token}",
                      highlight=False, markup=False)
        elif token:
            err.print(f"requests must carry the access token from {TOKEN_ENV}.", highlight=False)
    serve(http=http, host=host, port=port, manager=RunManager(Investigator(), max_workers=workers), token=token)
