"""The web pages for checking a whole text: paste or upload a text, review the claims found, run
them one after another with progress per claim, cancel or resume, and read the marked text.

Every step is the engine's (agent/check): the claims come from `prepare_check`; the review form
yields the edits `claimscope check --claims` and the MCP tool's `claims=` take, applied by
`apply_edits` (agent/web/decisions.py turns the form into them, as it does for the investigation's
review points); the run is a `TextChecker` sharing the run manager's investigator; the report is
agent/report/text_render.py's, each checked span linked to its claim's session page (the full
report, its exports and follow-up questions).

One check runs at a time (each claim's investigation already uses both cores); a second waits as
"queued". A check whose server stopped while it ran reads as interrupted and can be resumed.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from claimscope.agent.check import (
    CheckProgress,
    CheckRecord,
    CheckStore,
    TextChecker,
    edit_record,
    prepare_check,
)
from claimscope.agent.check.record import text_report
from claimscope.agent.report.text_render import (
    marked_text_html,
    render_text_report,
    summary_line,
    text_pieces,
)
from claimscope.agent.web.context import WebContext, blocking
from claimscope.agent.web.decisions import CLAIM_EDITS_EXAMPLE, claim_edits_from_form
from claimscope.agent.web.messages import log, plain
from claimscope.agent.web.options import form_options, form_values
from claimscope.agent.web.routes import EXPORTS, form_choices
from claimscope.agent.web.security import checked_form
from claimscope.tools.errors import InputError
from claimscope.tools.find.ingest import read_text_file
from claimscope.tools.text.text_guard import strip_control

TEXT_SUFFIXES = (".txt", ".md", ".pdf")
# Events kept per running check for the page (the last ones; a claim's steps are a few dozen).
MAX_EVENTS = 500


class CheckJob:
    """A check running (or queued) in this server: its cancel switch and what it has said."""

    def __init__(self, check_id: str) -> None:
        self.check_id = check_id
        self.cancel = threading.Event()
        self.state = "queued"  # queued -> running -> finished
        self.events: list[CheckProgress] = []
        self.error = ""
        self.lock = threading.Lock()

    def add(self, ev: CheckProgress) -> None:
        with self.lock:
            self.events.append(ev)
            del self.events[:-MAX_EVENTS]

    def latest(self) -> CheckProgress | None:
        with self.lock:
            return self.events[-1] if self.events else None

    def current_steps(self) -> dict[str, str]:
        """Claim id -> the last step or message said of it."""
        with self.lock:
            out: dict[str, str] = {}
            for ev in self.events:
                if ev.kind == "claim_started":
                    out[ev.claim_id] = "starting"
                elif ev.step:
                    out[ev.claim_id] = ev.step
            return out


class WebChecks:
    """The server's checks: saved records (agent/check's store) and the jobs running here."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx
        self.services = ctx.manager.investigator.services
        self.store = CheckStore(self.services.settings)
        self.jobs: dict[str, CheckJob] = {}
        self._guard = threading.Lock()
        self._one_at_a_time = threading.Lock()

    def load(self, check_id: str) -> CheckRecord:
        try:
            return self.store.load(check_id)
        except InputError as exc:
            raise HTTPException(404, plain(str(exc))) from exc

    def active(self, check_id: str) -> CheckJob | None:
        with self._guard:
            job = self.jobs.get(check_id)
            return job if job is not None and job.state != "finished" else None

    def status(self, record: CheckRecord) -> str:
        """The record's status as this server sees it: a check saved as running that no job here
        runs was cut short (the server stopped) and reads as interrupted."""
        job = self.active(record.id)
        if job is not None:
            return "cancelling" if job.cancel.is_set() else job.state
        return "interrupted" if record.status == "running" else record.status

    def start(self, record: CheckRecord) -> None:
        """Run the record's remaining claims in a background thread, after any check running now."""
        with self._guard:
            if record.id in self.jobs and self.jobs[record.id].state != "finished":
                raise InputError(f"check {record.id} is already running.")
            job = self.jobs[record.id] = CheckJob(record.id)
        checker = TextChecker(self.ctx.manager.investigator, self.store)

        def work() -> None:
            try:
                with self._one_at_a_time:
                    if job.cancel.is_set():
                        record.status = "cancelled"
                        self.store.save(record)
                        return
                    job.state = "running"
                    checker.run(record, on_event=job.add, cancel=job.cancel)
            except InputError as exc:
                job.error = plain(str(exc))
            except Exception as exc:  # the thread's end: the page says it stopped, the log says why
                log.exception("check %s stopped", record.id, exc_info=exc)
                job.error = "the check stopped on an internal error (the details are in the server's log); " \
                            "press Resume to go on with the claims left."
            finally:
                job.state = "finished"

        threading.Thread(target=work, name=f"claimscope-check-{record.id}", daemon=True).start()

    def cancel(self, check_id: str) -> bool:
        job = self.active(check_id)
        if job is None:
            return False
        job.cancel.set()
        return True

    def error(self, check_id: str) -> str:
        with self._guard:
            job = self.jobs.get(check_id)
            return job.error if job is not None else ""


def check_routes(ctx: WebContext) -> list[Route]:
    """The check pages' routes, bound to `ctx`."""
    checks = WebChecks(ctx)
    manager = ctx.manager
    settings = manager.investigator.services.settings

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(ctx.render(name, **values), status_code=status)

    def new_values(**given: Any) -> dict[str, Any]:
        choices = form_choices(manager)
        choices["defaults"] = {**choices["defaults"], "text": "", **given}
        saved = []
        for rec in checks.store.list(limit=20):
            saved.append({"id": rec.id, "source": rec.source, "status": checks.status(rec), "done": rec.done(),
                          "total": len(rec.to_check()), "created": rec.created_at,
                          "start": " ".join(rec.text[:90].split())})
        return {**choices, "saved": saved, "suffixes": TEXT_SUFFIXES, "max_chars": settings.check.max_text_chars,
                "limit_mb": ctx.config.max_upload_bytes / 1_000_000}

    async def new_form(request: Request) -> Response:
        return page("check_new.html", **await blocking(new_values))

    async def new_submit(request: Request) -> Response:
        form = await checked_form(request, ctx.csrf, max_files=1, max_fields=40)
        pasted = str(form.get("text") or "")
        try:
            text, source = await _read_text(ctx, form, pasted)

            def prepare() -> CheckRecord:
                options = form_options(form, "tools").to_options(settings)
                record = prepare_check(text, manager.investigator.services, options, source=source, review=True)
                checks.store.save(record)
                return record

            record = await blocking(prepare)
        except InputError as exc:
            sent = form_values(form, "tools")
            # the form as it was left: an unticked box stays unticked
            values = await blocking(lambda: new_values(text=pasted, **{**sent, "corpora": sent.get("corpora", [])}))
            return page("check_new.html", status=400, error=plain(str(exc)), **values)
        finally:
            await form.close()
        return RedirectResponse(f"/checks/{record.id}", status_code=303)

    def progress(record: CheckRecord) -> dict[str, Any]:
        """Where the check stands, claim by claim: what the status poll sends and the page shows."""
        status = checks.status(record)
        job = checks.active(record.id)
        report = text_report(record)
        steps = job.current_steps() if job else {}
        latest = job.latest() if job else None
        # The report lists the check-worthy claims in the record's order.
        claims = [{"claim": c, "outcome": record.outcomes.get(c.id), "view": v, "step": steps.get(c.id, "")}
                  for c, v in zip(record.to_check(), report.claims, strict=True)]
        return {"report": report, "check_status": status, "claims": claims, "line": latest.line() if latest else "",
                "done": record.done(), "total": len(claims)}

    def view(record: CheckRecord, **extra: Any) -> dict[str, Any]:
        """The check page's values: the progress, and the review form or the marked text."""
        values = progress(record)
        report = values.pop("report")
        values.update({
            "summary": summary_line(report) if record.outcomes else "",
            "record": record, "error": extra.pop("error", None) or checks.error(record.id),
            "max_claims": settings.check.max_claims, "edits_example": CLAIM_EDITS_EXAMPLE,
            "options": record.options, **extra,
        })
        if record.status == "extracted" and values["check_status"] == "extracted":
            values["review_text"] = text_pieces(record.text, record.claims)
        elif record.outcomes:
            # The renderer escapes every text it puts in (agent/report/text_render.py): trusted markup.
            style, body = marked_text_html(report, _session_link)
            values["report_style"], values["report_body"] = Markup(style), Markup(body)
        return values

    async def check_page(request: Request) -> Response:
        record = await blocking(lambda: checks.load(request.path_params["cid"]))
        return page("check.html", **await blocking(lambda: view(record)))

    async def check_status(request: Request) -> Response:
        # Polled every second while a check runs: the progress only, not the marked text's HTML.
        record = await blocking(lambda: checks.load(request.path_params["cid"]))
        values = await blocking(lambda: progress(record))
        return JSONResponse({
            "status": values["check_status"], "line": values["line"], "done": values["done"], "total": values["total"],
            "claims": [{"id": c["claim"].id, "step": c["step"],
                        "verdict": c["view"].verdict if c["outcome"] is not None else ""}
                       for c in values["claims"]]})

    async def check_claims(request: Request) -> Response:
        cid = request.path_params["cid"]
        record = await blocking(lambda: checks.load(cid))
        form = await checked_form(request, ctx.csrf, max_fields=2_000)
        if record.status != "extracted" or checks.active(record.id):
            return page("check.html", status=409, **await blocking(lambda: view(
                record, error=f"the claims of check {record.id} were already chosen (status {record.status}).")))
        try:
            edits = claim_edits_from_form(form, record.claims)
            edited = edit_record(record, edits, settings)
            await blocking(lambda: checks.store.save(edited))
            checks.start(edited)
        except InputError as exc:
            # The person's choices stay on the page (ticks and wordings), with what to change.
            message = plain(str(exc))
            values = await blocking(lambda: view(record, error=message))
            values["given"] = {k: v for k, v in form.items() if isinstance(v, str)}
            return page("check.html", status=400, **values)
        return RedirectResponse(f"/checks/{record.id}", status_code=303)

    async def check_action(request: Request) -> Response:
        cid, action = request.path_params["cid"], request.path_params["action"]
        record = await blocking(lambda: checks.load(cid))
        await checked_form(request, ctx.csrf)
        if action == "cancel":
            checks.cancel(record.id)
        elif action == "resume":
            status = checks.status(record)
            if status not in ("interrupted", "cancelled"):
                return page("check.html", status=409, **await blocking(lambda: view(
                    record, error=f"check {record.id} has nothing to resume (status {status}).")))
            checks.start(record)
        else:
            raise HTTPException(404, f"no action {action!r}")
        return RedirectResponse(f"/checks/{record.id}", status_code=303)

    async def check_export(request: Request) -> Response:
        cid, fmt = request.path_params["cid"], request.path_params["fmt"]
        if fmt not in EXPORTS:
            raise HTTPException(404, f"export formats are {', '.join(EXPORTS)}, not {fmt!r}.")
        record = await blocking(lambda: checks.load(cid))
        if not record.outcomes:
            raise HTTPException(409, f"check {record.id} has no checked claim yet (status {checks.status(record)}).")
        text = await blocking(lambda: render_text_report(text_report(record), fmt))
        return Response(text, media_type=EXPORTS[fmt], headers={
            "content-disposition": f'attachment; filename="claimscope-check-{record.id}.{fmt}"'})

    return [
        Route("/check", new_form, methods=["GET"]),
        Route("/check", new_submit, methods=["POST"]),
        Route("/checks/{cid}", check_page, methods=["GET"]),
        Route("/checks/{cid}/status", check_status),
        Route("/checks/{cid}/claims", check_claims, methods=["POST"]),
        Route("/checks/{cid}/report.{fmt}", check_export),
        Route("/checks/{cid}/{action}", check_action, methods=["POST"]),
    ]


# ---------------------------------------------------------------------------------- helpers

def _session_link(claim: Any) -> str | None:
    """A checked claim's session page: its full report, exports and follow-up questions."""
    return f"/sessions/{claim.session_id}" if claim.session_id else None


async def _read_text(ctx: WebContext, form: FormData, pasted: str) -> tuple[str, str]:
    """(text, source name) of the uploaded file, else of the pasted text; a one-line InputError
    when there is neither, both, or the file cannot be read."""
    upload = form.get("file")
    has_file = isinstance(upload, UploadFile) and bool(upload.filename)
    if has_file and pasted.strip():
        raise InputError("give the text one way: paste it or upload a file, not both.")
    if not has_file:
        if not pasted.strip():
            raise InputError(f"paste the text to check, or upload a {', '.join(TEXT_SUFFIXES)} file.")
        return strip_control(pasted, keep_newlines=True), ""
    assert isinstance(upload, UploadFile) and upload.filename
    name = Path(upload.filename).name
    suffix = Path(name).suffix.lower()
    if suffix not in TEXT_SUFFIXES:
        raise InputError(f"cannot check {name}: upload a {', '.join(TEXT_SUFFIXES)} file, or paste the text.")
    data = await upload.read()

    def read() -> str:
        with tempfile.TemporaryDirectory(prefix="claimscope-check-") as tmp:
            path = Path(tmp) / f"upload{suffix}"
            path.write_bytes(data)
            try:
                return read_text_file(path)
            except InputError as exc:
                # The reader names its temporary file; the person knows the file by its own name.
                raise InputError(str(exc).replace(path.name, name).replace(str(path), name)) from exc

    return await blocking(read), name[-100:]
