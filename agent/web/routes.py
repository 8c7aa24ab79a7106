"""The web app's pages. Every step is the engine's: runs, reviews and resumes go through the
RunManager, the report through agent/report's renderers, follow-ups through the chat's tools,
corpora through the evidence store and the ingest readers. Blocking engine calls run in worker
threads; a refusal (InputError) is shown in the page with the engine's own message.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

from markupsafe import Markup
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from claimscope.agent.chat import ChatEngine, ChatMessage, ChatReply
from claimscope.agent.datadir import open_store
from claimscope.agent.graph.readers import sentence_lookup
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.graph.steps import STEP_NAMES
from claimscope.agent.investigation import UnreadableLanguageError
from claimscope.agent.report import render
from claimscope.agent.runs import RunEvent, SessionInfo
from claimscope.agent.web.context import IngestJob, WebContext, blocking
from claimscope.agent.web.decisions import EXAMPLES, decision_from_form
from claimscope.agent.web.messages import log, plain, report_for_web
from claimscope.agent.web.options import FORM_OFFERS, form_defaults, form_options, form_values
from claimscope.agent.web.security import checked_form
from claimscope.tools.errors import InputError
from claimscope.tools.find.ingest import read_path

EXPORTS = {"md": "text/markdown; charset=utf-8", "json": "application/json", "html": "text/html; charset=utf-8"}
# The progress list shows the steps of the table, in its order.
STEPS = STEP_NAMES
CORPUS_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
UPLOAD_SUFFIXES = (".jsonl", ".csv", ".pdf", ".txt", ".md")
MAX_QUESTION = 500
SSE_POLL_S = 0.05


def routes(ctx: WebContext) -> list[Route]:
    """The app's routes, bound to `ctx`."""
    manager = ctx.manager

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(ctx.render(name, **values), status_code=status)

    async def info_or_404(sid: str) -> SessionInfo:
        try:
            return await blocking(lambda: manager.status(sid))
        except InputError as exc:
            raise HTTPException(404, str(exc)) from exc

    # ------------------------------------------------------------------------------ sessions list
    async def index(request: Request) -> Response:
        def rows() -> list[dict[str, Any]]:
            out = []
            for info in reversed(manager.list()):
                report = manager.result(info.session_id).report if info.has_report else None
                out.append({"info": info, **_verdict(report or {})})
            return out

        return page("sessions.html", sessions=await blocking(rows), cancelling=ctx.cancelling)

    # ------------------------------------------------------------------------------ new investigation
    async def new_form(request: Request) -> Response:
        return page("new.html", **await blocking(lambda: form_choices(manager)))

    async def new_submit(request: Request) -> Response:
        form = await checked_form(request, ctx.csrf)
        claim = str(form.get("claim") or "")

        def start() -> str:
            given = form_options(form, "sessions")
            return manager.start(claim, given.to_options(manager.investigator.services.settings))

        try:
            sid = await blocking(start)
        except InputError as exc:
            if isinstance(exc, UnreadableLanguageError):
                message = (f"the claim looks like {exc.language}, but investigations read English claims only: "
                           "write the claim in English.")
            else:
                message = plain(str(exc))

            choices = await blocking(lambda: form_choices(manager))
            sent = form_values(form, "sessions")
            # the form as it was left: an unticked box stays unticked
            choices["defaults"] = {**choices["defaults"], **sent, "corpora": sent.get("corpora", []), "claim": claim}
            return page("new.html", status=400, error=message, **choices)
        return RedirectResponse(f"/sessions/{sid}", status_code=303)

    # ------------------------------------------------------------------------------ one session
    async def session_page(request: Request, error: str | None = None, status: int = 200) -> Response:
        sid = request.path_params["sid"]
        info = await info_or_404(sid)

        def gather() -> dict[str, Any]:
            events = manager.events(info.session_id)
            cancelling = info.active and info.session_id in ctx.cancelling
            values: dict[str, Any] = {"info": info, "events": events[-200:], "error": error,
                                      "progress": _progress(events, info, cancelling), "steps": STEPS,
                                      "cancelling": cancelling, "now": time.time()}
            if info.pending:
                values["json_example"] = EXAMPLES.get(str(info.pending.get("point")), "{}")
            if info.pending and info.pending.get("point") == "sources":
                values["titles"] = _titles(manager, (info.pending.get("summary") or {}).get("documents") or [])
            if info.has_report:
                report = manager.result(info.session_id).report or {}
                values["report_style"], values["report_body"] = _report_parts(render(report, "html"))
                values.update(_verdict(report))
                values["chat"] = _chat_messages(ctx, info.session_id)
            return values

        return page("session.html", status=status, **await blocking(gather))

    async def session_status(request: Request) -> Response:
        info = await info_or_404(request.path_params["sid"])
        return JSONResponse(info.model_dump(mode="json"))

    async def session_events(request: Request) -> Response:
        info = await info_or_404(request.path_params["sid"])
        sid = info.session_id
        since = _int(request.headers.get("last-event-id")) or _int(request.query_params.get("since"))
        keepalive = ctx.config.sse_keepalive_s

        async def stream() -> AsyncIterator[str]:
            # Polls the manager's in-memory event log instead of blocking a worker thread per open
            # tab: a stream costs nothing between events, however many tabs watch.
            last, quiet = since, 0.0
            yield "retry: 2000\n\n"
            while True:
                active = manager.is_active(sid)  # read before the events: none can slip between
                new: list[RunEvent] = manager.events(sid, last)
                for ev in new:
                    last = ev.seq
                    shown = ev.model_copy(update={"message": plain(ev.message)})
                    yield f"id: {ev.seq}\nevent: progress\ndata: {shown.model_dump_json()}\n\n"
                if new:
                    quiet = 0.0
                    continue
                if not active:
                    now = await blocking(lambda: manager.status(sid))
                    body = json.dumps({"status": now.status, "has_report": now.has_report,
                                       "paused": now.pending is not None})
                    yield f"event: end\ndata: {body}\n\n"
                    return
                await asyncio.sleep(SSE_POLL_S)
                quiet += SSE_POLL_S
                if quiet >= keepalive:
                    quiet = 0.0
                    yield ": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})

    async def session_answer(request: Request) -> Response:
        sid = request.path_params["sid"]
        info = await info_or_404(sid)
        form = await checked_form(request, ctx.csrf)
        pending = info.pending
        if pending is None:
            return await session_page(request, f"session {info.session_id!r} is not waiting for a review decision "
                                               f"(status {info.status}).", 409)
        point = str(form.get("point") or "")
        if point != pending.get("point"):
            return await session_page(request, f"this form answered the {point} review, but the session now waits "
                                               f"for the {pending.get('point')} review; check it and answer again.",
                                      409)
        try:
            decision = decision_from_form(point, form, pending)
            ctx.cancelling.discard(info.session_id)
            await blocking(lambda: manager.answer(info.session_id, decision))
        except InputError as exc:
            return await session_page(request, str(exc), 400)
        return RedirectResponse(f"/sessions/{info.session_id}", status_code=303)

    async def session_action(request: Request) -> Response:
        sid, action = request.path_params["sid"], request.path_params["action"]
        info = await info_or_404(sid)
        await checked_form(request, ctx.csrf)
        try:
            if action != "cancel":
                ctx.cancelling.discard(info.session_id)
            if action == "resume":
                if not await blocking(lambda: manager.resume(info.session_id)):
                    raise InputError(f"session {info.session_id!r} has nothing to resume (status {info.status}).")
            elif action == "cancel":
                # The run stops at its next progress event; the page says "cancelling…" until then
                # and follows it to "cancelled" (a request never waits for a step to end).
                if await blocking(lambda: manager.cancel(info.session_id)):
                    ctx.cancelling.add(info.session_id)
            elif action == "delete":
                await blocking(lambda: _delete_session(manager, info.session_id))
                return RedirectResponse("/", status_code=303)
            else:
                raise HTTPException(404, f"no action {action!r}")
        except InputError as exc:
            return await session_page(request, str(exc), 409)
        return RedirectResponse(f"/sessions/{info.session_id}", status_code=303)

    async def session_export(request: Request) -> Response:
        sid, fmt = request.path_params["sid"], request.path_params["fmt"]
        if fmt not in EXPORTS:
            raise HTTPException(404, f"export formats are {', '.join(EXPORTS)}, not {fmt!r}.")
        info = await info_or_404(sid)
        report = (await blocking(lambda: manager.result(info.session_id))).report
        if not report:
            raise HTTPException(409, f"session {info.session_id} has no report yet (status {info.status}).")
        text = await blocking(lambda: render(report, fmt))
        return Response(text, media_type=EXPORTS[fmt], headers={
            "content-disposition": f'attachment; filename="claimscope-{info.session_id}.{fmt}"'})

    async def session_ask(request: Request) -> Response:
        sid = request.path_params["sid"]
        info = await info_or_404(sid)
        form = await checked_form(request, ctx.csrf)
        question = " ".join(str(form.get("question") or "").split())
        try:
            if not question:
                raise InputError("ask a question about this investigation, e.g. 'which sources oppose the claim?'.")
            if len(question) > MAX_QUESTION:
                raise InputError(f"the question is {len(question)} characters long; keep it under {MAX_QUESTION}.")
            if info.active or not info.has_report:
                raise InputError(f"follow-up questions need a finished investigation (status {info.status}).")
            await blocking(lambda: _ask(ctx, info.session_id, question))
        except InputError as exc:
            return await session_page(request, str(exc), 400)
        return RedirectResponse(f"/sessions/{info.session_id}#chat", status_code=303)

    # ------------------------------------------------------------------------------ corpora
    async def corpora_page(request: Request, error: str | None = None, status: int = 200) -> Response:
        job = ctx.jobs.get(request.query_params.get("job", ""))
        infos = await blocking(lambda: open_store(manager.investigator.services).corpora())
        return page("corpora.html", status=status, corpora=infos, job=job, error=error,
                    limit_mb=ctx.config.max_upload_bytes / 1_000_000, suffixes=UPLOAD_SUFFIXES)

    async def corpora_upload(request: Request) -> Response:
        form = await checked_form(request, ctx.csrf, max_files=1, max_fields=10)
        try:
            job = await _start_ingest(ctx, form)
        except InputError as exc:
            return await corpora_page(request, error=str(exc), status=400)
        finally:
            await form.close()
        return RedirectResponse(f"/corpora?job={job.id}", status_code=303)

    async def ingest_job(request: Request) -> Response:
        job = ctx.jobs.get(request.path_params["job"])
        if job is None:
            raise HTTPException(404, "no such upload (they are kept while the server runs).")
        return JSONResponse(job.model_dump(mode="json"))

    return [
        Route("/", index),
        Route("/new", new_form, methods=["GET"]),
        Route("/new", new_submit, methods=["POST"]),
        Route("/sessions/{sid}", session_page, methods=["GET"]),
        Route("/sessions/{sid}/status", session_status),
        Route("/sessions/{sid}/events", session_events),
        Route("/sessions/{sid}/answer", session_answer, methods=["POST"]),
        Route("/sessions/{sid}/ask", session_ask, methods=["POST"]),
        Route("/sessions/{sid}/report.{fmt}", session_export),
        Route("/sessions/{sid}/{action}", session_action, methods=["POST"]),
        Route("/corpora", corpora_page, methods=["GET"]),
        Route("/corpora", corpora_upload, methods=["POST"]),
        Route("/corpora/jobs/{job}", ingest_job),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
    ]


def error_handlers(ctx: WebContext) -> dict[Any, Callable[[Request, Exception], Any]]:
    """Errors as pages of the app, in one sentence with the way back: a refused or missing page
    (HTTPException), an engine refusal no route caught (e.g. the evidence store held by another
    process), and a crash (its text goes to the log, not to the page)."""
    def page(request: Request, status: int, message: str) -> HTMLResponse:
        return HTMLResponse(ctx.render("error.html", status=status, message=message), status_code=status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code < 400:
            return Response(status_code=exc.status_code, headers=exc.headers)
        default = "this page does not exist." if exc.status_code == 404 else "this request was refused."
        return page(request, exc.status_code, plain(str(exc.detail)) if exc.detail else default)

    async def refused(request: Request, exc: Exception) -> Response:
        return page(request, 503, plain(str(exc)))

    async def crashed(request: Request, exc: Exception) -> Response:
        log.exception("error on %s", request.url.path, exc_info=exc)
        return page(request, 500, "something went wrong on the server (the details are in its log); "
                                  "go back and try again.")

    return {HTTPException: http_error, InputError: refused, Exception: crashed}


# ---------------------------------------------------------------------------------- helpers

def form_choices(manager: Any) -> dict[str, Any]:
    """The run options a form offers (corpora, and the model's sources, depths and claim kinds) and
    their defaults: the settings', and the corpora of the newest session that chose any. Shared by
    the New investigation and Check a text pages."""
    settings = manager.investigator.services.settings
    corpora = open_store(manager.investigator.services).corpora()
    names = [c.name for c in corpora]
    chosen = _last_corpora(manager, names) or (names if len(names) == 1 else [])
    return {"corpora": corpora, **FORM_OFFERS, "defaults": {**form_defaults(settings), "corpora": chosen, "claim": ""}}


def _int(value: str | None) -> int:
    try:
        return max(0, int(value or 0))
    except ValueError:
        return 0


# Why a finished session's steps that never ran were left out, by its status.
SKIPPED_BECAUSE = {"no_evidence": "skipped: no evidence was found", "complete": "skipped",
                   "budget_exhausted": "skipped: the step budget ran out"}
# A step a run stopped in, by the session's status.
STOPPED = {"cancelled": "stopped: cancelled", "failed": "stopped: failed", "interrupted": "stopped"}


def _progress(events: list[RunEvent], info: SessionInfo, cancelling: bool = False) -> dict[str, Any]:
    """Where a run stands, from its events and the session's status: each step's state (waiting,
    running, done, skipped or stopped), its latest message and when the running one started, the
    latest aspect tree (as lines with their indent), the warnings."""
    steps: dict[str, dict[str, Any]] = {}
    tree = ""
    warnings: list[str] = []
    for ev in events:
        if ev.kind == "step_started":
            steps[ev.step] = {"state": "running", "message": ev.message, "started": ev.time}
        elif ev.kind == "step_finished":
            steps[ev.step] = {"state": "done", "message": ev.message}
        elif ev.kind == "counts" and ev.step:
            steps.setdefault(ev.step, {"state": "running", "message": "", "started": ev.time})["message"] = ev.message
        elif ev.kind == "tree" and "\n" in ev.message:
            tree = ev.message
        elif ev.kind == "warning":
            warnings.append(ev.message)
    tree_note = "not built yet"
    if not info.active:
        for st in steps.values():
            if st["state"] == "running":
                # A step still "running" in a finished session stopped there (cancelled, failed,
                # or the process ended) or is a review the session waits for.
                st["state"] = "paused" if info.status == "paused" else "stopped"
                st["message"] = "waiting for your review" if info.status == "paused" else \
                    STOPPED.get(info.status, "stopped")
        reason = SKIPPED_BECAUSE.get(info.status)
        if reason is not None:
            for name in STEPS:
                steps.setdefault(name, {"state": "skipped", "message": reason})
            tree_note = "not built: no evidence was found" if info.status == "no_evidence" else "not built"
        elif info.status in STOPPED:
            tree_note = "not built: the run stopped first"
    elif cancelling:
        for st in steps.values():
            if st["state"] == "running":
                st["message"] = "cancelling…"
    lines = [(len(line) - len(line.lstrip(" ")), line.lstrip(" ")) for line in tree.splitlines()]
    return {"steps": steps, "tree": tree, "tree_lines": lines, "tree_note": tree_note, "warnings": warnings}


def _last_corpora(manager: Any, names: list[str]) -> list[str]:
    """The corpora of the newest session that chose any, those that still exist."""
    for row in list(reversed(manager.index.all()))[:20]:
        chosen = (manager.investigator.state(row["id"]).get("options") or {}).get("corpora") or []
        if chosen:
            return [c for c in chosen if c in names]
    return []


def _verdict(report: dict[str, Any]) -> dict[str, Any]:
    """A report's weighted verdict label and what disputes it: the reviewer (a guided session's
    verdict review), and the documents two judges read differently or whose label contradicts the
    stance it cites."""
    label = str(((report.get("verdict") or {}).get("weighted") or {}).get("label") or "")
    flags = []
    if any(d.get("step") == "verdict" and "disputed" in str(d.get("choice") or "")
           for d in report.get("decisions") or []):
        flags.append("disputed by the reviewer")
    split = [d for d in report.get("documents") or [] if d.get("disagreement") or d.get("sign_conflict")]
    if split:
        flags.append(f"judges disagree on {len(split)} document{'s' if len(split) > 1 else ''}")
    return {"verdict": label, "verdict_flags": flags}


def _titles(manager: Any, documents: list[dict[str, Any]]) -> dict[str, str]:
    """Titles of the gathered documents a sources review lists (the review shows ids)."""
    by_corpus: dict[str, list[str]] = {}
    for d in documents:
        by_corpus.setdefault(str(d.get("corpus") or ""), []).append(str(d.get("id")))
    titles: dict[str, str] = {}
    store = manager.investigator.services.store
    for corpus, ids in by_corpus.items():
        try:
            found = store.get_documents(ids, corpus=corpus or None)
        except InputError:  # a corpus deleted since: the ids alone are shown
            continue
        titles.update({doc.id: doc.title for doc in found if doc.title})
    return titles


def _report_parts(page_html: str) -> tuple[Markup, Markup]:
    """The HTML report's stylesheet and body, to show inside the app's page. The renderer escapes
    every text it puts in (agent/report/html.py), so its output is trusted markup here."""
    style = page_html.partition("<style>")[2].partition("</style>")[0]
    body = page_html.partition("<body>")[2].rpartition("</body>")[0]
    return Markup(style), Markup(report_for_web(body))


def _chat_id(session_id: str) -> str:
    return f"web-{session_id}"[:64]


def _chat_messages(ctx: WebContext, session_id: str) -> list[dict[str, Any]]:
    engine = ChatEngine(ctx.manager.investigator, _chat_id(session_id))
    if not engine.session.messages:
        return []
    state = cast(InvestigationState, ctx.manager.investigator.state(session_id))
    lookup = sentence_lookup(state, ctx.manager.investigator.services)
    return [{"role": m.role, "text": m.text, "citations": [(c, lookup(c) or "") for c in m.citations]}
            for m in engine.session.messages]


def _ask(ctx: WebContext, session_id: str, question: str) -> None:
    """Answer a follow-up with the chat's tools, on a chat kept per session (so reopening the page
    shows the conversation). A new claim is not investigated from here: that is the New page's job."""
    with ctx.chat_lock(session_id):
        engine = ChatEngine(ctx.manager.investigator, _chat_id(session_id))
        if engine.session.current != session_id:
            engine.session.investigations.append(session_id)
        engine.session.messages.append(ChatMessage(role="user", text=question))
        tool, args = engine.route(question)
        if tool == "investigate":
            reply = ChatReply(text="To investigate another claim, start a new investigation (New).", tool=tool)
        else:
            reply = engine.call(tool, args)
        engine.session.messages.append(ChatMessage(role="assistant", text=reply.text, citations=reply.citations))
        engine.save()


def _delete_session(manager: Any, session_id: str) -> None:
    """As `claimscope sessions delete`: the session, and the scholarly documents stored for it."""
    corpus = manager.investigator.state(session_id).get("investigation_corpus")
    manager.delete(session_id)
    store = manager.investigator.services.store
    if corpus and corpus in {c.name for c in store.corpora()}:
        store.delete_corpus(corpus)


async def _start_ingest(ctx: WebContext, form: FormData) -> IngestJob:
    """Read an uploaded file with the ingest readers (a JSONL / CSV, or one text / PDF document) and
    add it to a corpus in the background; the job's counts drive the page's progress bar, and the
    malformed rows are reported, not fatal (as `claimscope ingest`)."""
    name = str(form.get("corpus") or "").strip()
    upload = form.get("file")
    if not CORPUS_NAME.fullmatch(name):
        raise InputError("a corpus name is 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit.")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise InputError(f"choose a file to upload ({', '.join(UPLOAD_SUFFIXES)}).")
    filename = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(upload.filename).name)[-100:]
    suffix = Path(filename).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise InputError(f"cannot ingest {upload.filename}: upload a {', '.join(UPLOAD_SUFFIXES)} file "
                         "(folders: `claimscope ingest PATH --corpus NAME`).")
    limit = ctx.config.max_upload_bytes
    if upload.size is not None and upload.size > limit:
        raise InputError(f"{upload.filename} is {upload.size / 1e6:.1f} MB; the upload limit is {limit / 1e6:.0f} MB "
                         "(ingest larger files with `claimscope ingest PATH --corpus NAME`).")
    data = await upload.read()

    def read() -> Any:
        with tempfile.TemporaryDirectory(prefix="claimscope-upload-") as tmp:
            path = Path(tmp) / filename
            path.write_bytes(data)
            return read_path(path)

    result = await blocking(read)
    problems = [{"location": p.location, "reason": p.reason} for p in result.problems]
    if not result.documents:
        raise InputError(f"no readable documents in {upload.filename} ({len(problems)} malformed: "
                         + "; ".join(f"{p['location']}: {p['reason']}" for p in problems[:5]) + ").")
    job = IngestJob(id=uuid.uuid4().hex[:12], corpus=name, file=filename, total=len(result.documents),
                    problems=problems)
    ctx.jobs[job.id] = job

    def work() -> None:
        def advance(n: int) -> None:
            job.done = min(job.total, job.done + n)

        try:
            with ctx.ingest_lock:
                stats = open_store(ctx.manager.investigator.services).add_documents(
                    result.documents, name, progress=advance)
            job.added, job.segments, job.duplicates = stats.added, stats.segments, stats.skipped_duplicates
        except (InputError, OSError) as exc:
            job.error = f"ingest stopped ({exc}); documents stored before this stay, upload again to go on."
        job.done, job.finished = job.total, True

    threading.Thread(target=work, name=f"claimscope-ingest-{job.id}", daemon=True).start()
    return job
