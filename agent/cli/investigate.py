"""`claimscope investigate`: run an investigation with live progress and write the report."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

import claimscope.agent.cli.options as opt
from claimscope.agent.cli.progress import Heartbeat
from claimscope.agent.cli.root import app
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator, RunResult
from claimscope.agent.sessions.index import shared_session_lease
from claimscope.agent.sessions.sqlite import SessionsDatabaseError
from claimscope.tools.errors import InputError

console = Console(stderr=True, soft_wrap=True)  # a log file keeps each event on one line


def _print_event(ev: ProgressEvent) -> None:
    if ev.kind == "step_started":
        console.print(f"[bold cyan]▶ {ev.step}[/]")
    elif ev.kind == "step_finished":
        console.print(f"  [green]✓[/] {ev.message}")
    elif ev.kind == "tree" and "\n" in ev.message:
        console.print(ev.message, markup=False, highlight=False)
    elif ev.kind == "warning":
        console.print(f"  [yellow]! {ev.message}[/]")
    elif ev.kind == "plan":
        d = ev.data.get("decision", {})
        if d.get("refused") or d.get("mode") == "fallback":
            console.print(f"  [yellow]planner: {ev.message} ({d})[/]")
    elif ev.message:
        console.print(f"  {ev.message}", markup=False, highlight=False)


def _investigator(session: str | None) -> Investigator:
    """The investigator, saving sessions; with a damaged sessions database a run without --session
    goes on unsaved (one warning) rather than not at all."""
    try:
        return Investigator()
    except SessionsDatabaseError as exc:
        if session:
            raise
        console.print(f"[yellow]warning:[/] {exc} This run is not saved as a session.", highlight=False)
        return Investigator(persistent=False)


@app.command()
@opt.run_option_flags("cli")
def investigate(
    claim: Annotated[str, typer.Argument(help="The claim to investigate, in quotes.")],
    given: opt.GivenOptions = opt.FROM_FLAGS,
    ingest: Annotated[Path | None, typer.Option(help="Ingest this file/folder into the first --corpus first (idempotent).")] = None,
    fmt: opt.Format = "md",
    out: opt.Out = None,
    session: Annotated[str | None, typer.Option(help="Session id: resume it if it exists, else start it under this id.")] = None,
    quiet: opt.Quiet = False,
    translate: Annotated[bool, typer.Option(
        "--translate", help="A claim in another language is translated to English by the configured model "
                            "(and the report says so) instead of refused.")] = False,
) -> None:
    """Investigate CLAIM against local corpora and scholarly sources and print a graded report."""
    from claimscope.agent.datadir import open_store
    from claimscope.agent.investigation import check_corpora
    from claimscope.agent.report import report_format

    report_format(fmt)
    inv = _investigator(session)
    open_store(inv.services)
    opts = given.to_options(inv.services.settings)
    corpora = list(opts.corpora)
    if ingest is not None:
        if not corpora:
            raise InputError("--ingest needs --corpus NAME to ingest into.")
        from claimscope.agent.cli.corpus import ingest_path

        ingest_path(ingest, corpora[0], store=inv.services.store, quiet=quiet)
    # A session resumed by id keeps the options it was started with.
    check_corpora(inv.services, corpora, None if session and inv.state(session) else opts.sources)
    # The run's id is chosen here, so its lease is held from the first step: another terminal then
    # shows it as running and refuses to resume it.
    run_id = session or uuid.uuid4().hex[:12]
    with shared_session_lease(inv.services.settings, run_id), \
            Heartbeat(console) if not quiet else nullcontext() as beat:
        result = _run(inv, claim, opts, session, None if beat is None else _handler(beat), translate, run_id)
    _finish(result, fmt, out)


def _handler(beat: Heartbeat) -> Callable[[ProgressEvent], None]:
    def handle(ev: ProgressEvent) -> None:
        beat.saw(ev.step, started=ev.kind == "step_started")
        _print_event(ev)

    return handle


def _run(inv: Investigator, claim: str, opts: InvestigationOptions, session: str | None,
         handler: Callable[[ProgressEvent], None] | None, translate: bool = False,
         run_id: str | None = None) -> RunResult:
    from claimscope.agent.investigation import accept_claim, translation_wanted

    previous = inv.state(session) if session else {}
    if session and previous:
        given = accept_claim(claim, inv.services, translate=translation_wanted(translate)).text
        if previous.get("claim") and previous["claim"] != given:
            raise InputError(
                f"session {session} investigates {previous['claim']!r}, not {given!r}: resume it with "
                f"`claimscope sessions resume {session}`, or choose another --session id for the new claim."
            )
        console.print(f"resuming session {session}")
        result = inv.resume(session, on_event=handler)
    else:
        try:
            result = inv.run(claim, opts, thread_id=session or run_id, on_event=handler, translate=translate)
        except SessionsDatabaseError as exc:
            # Damage found while writing a checkpoint: a run without --session starts again, unsaved,
            # rather than not at all (it has no session anyone could resume).
            if session:
                raise
            console.print(f"[yellow]warning:[/] {exc} This run is not saved as a session.", highlight=False)
            result = Investigator(inv.services, persistent=False).run(claim, opts, on_event=handler,
                                                                       translate=translate)
    return result


def _finish(result: RunResult, fmt: str, out: Path | None) -> None:
    from claimscope.agent.report import render

    console.print(f"session: {result.thread_id} (status: {result.status})")
    if result.pending is not None:
        from claimscope.agent.cli.sessions import _print_pending

        _print_pending(result.pending)
        console.print(
            f"session {result.thread_id} is paused for your review. Answer with `claimscope sessions resume "
            f"{result.thread_id} --decision accept` (or a JSON edit as listed above), or `--ask` to be "
            "asked at each review.", markup=False, highlight=False, soft_wrap=True)
        return
    if result.report is None:
        raise InputError(f"no report was produced (status {result.status}); resume with --session {result.thread_id}.")
    opt.write_output(render(result.report, fmt), out, console, what="the report",
                     advice=f"session {result.thread_id} keeps it: `claimscope sessions export {result.thread_id} "
                     f"--format {fmt} -o FILE` once there is room (or with another FILE).")
