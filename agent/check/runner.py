"""Checking a whole text: its claims extracted, then each check-worthy claim investigated one after
another by one `Investigator` (retrieval and models loaded once), with progress per claim
("claim 3 of 7: gather"), each finished claim saved as it ends, resume and cancel.

Each claim's investigation is a session of its own (`<check id>-<claim id>`), checkpointed after
every step, so a claim cut short resumes from its last finished step; the check's record holds the
finished claims' reports.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimscope.agent.check.record import CheckRecord, CheckStore, ClaimOutcome, text_report
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator, check_corpora, default_options
from claimscope.agent.report.text_model import TextReport
from claimscope.agent.runs import RunCancelledError
from claimscope.agent.services import Services
from claimscope.agent.settings import Settings
from claimscope.tools.errors import ClaimscopeError, InputError
from claimscope.tools.read.claim_analysis.validation import validate_claim
from claimscope.tools.read.claim_extraction import ExtractedClaim, extract_claims, validate_text
from claimscope.tools.text.text_guard import strip_control


class CheckProgress(BaseModel):
    """A progress event of a check: which claim, and what its investigation is doing."""

    kind: str = Field(description="claim_started, claim_finished, or the investigation's own event kind.")
    index: int = Field(ge=1, description="1-based position of the claim among those checked.")
    total: int = Field(ge=1)
    claim_id: str
    claim: str = ""
    step: str = ""
    message: str = ""

    def line(self) -> str:
        """'claim 3 of 7: gather: 12 documents' — what a person watching reads."""
        head = f"claim {self.index} of {self.total}"
        if self.kind == "claim_started":
            return f"{head}: {self.claim}"
        tail = ": ".join(p for p in (self.step, self.message) if p)
        return f"{head}: {tail}" if tail else head


CheckHandler = Callable[[CheckProgress], None]


class EditedClaim(BaseModel):
    """A person's choice about one extracted claim: keep or drop it, and its wording."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str | None = None
    check_worthy: bool | None = None


def apply_edits(claims: list[ExtractedClaim], edits: list[EditedClaim] | list[dict[str, Any]]) -> list[ExtractedClaim]:
    """`claims` with a person's edits: `check_worthy` false drops a claim, true adds one the rules
    left out, `text` rewords it (checked like any claim). An id the text does not have is refused."""
    try:
        parsed = [e if isinstance(e, EditedClaim) else EditedClaim.model_validate(e) for e in edits]
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(f"invalid claim edit ({'.'.join(map(str, first['loc']))}: {first['msg']}); each edit is "
                         '{"id": "c3", "text": "...", "check_worthy": true|false}.') from exc
    by_id = {c.id: c for c in claims}
    unknown = [e.id for e in parsed if e.id not in by_id]
    if unknown:
        raise InputError(f"unknown claim id {', '.join(map(repr, unknown))}: the text's claims are "
                         f"{', '.join(by_id)}; extract them again with --claims-only.")
    out = dict(by_id)
    for e in parsed:
        claim = out[e.id]
        update: dict[str, Any] = {}
        if e.check_worthy is not None and e.check_worthy != claim.check_worthy:
            update.update(check_worthy=e.check_worthy, category="factual" if e.check_worthy else claim.category,
                          reason="chosen by a person" if e.check_worthy else "dropped by a person")
        if e.text is not None and " ".join(e.text.split()) != claim.text:
            try:
                update.update(text=validate_claim(e.text), resolved_by="person")
            except InputError as exc:
                raise InputError(f"claim {e.id}: {exc}") from exc
        out[e.id] = claim.model_copy(update=update)
    return [out[c.id] for c in claims]


def _check_count(claims: list[ExtractedClaim], settings: Settings,
                 advice: str = "check it in parts, or drop claims with --claims-only and --claims FILE") -> None:
    n = sum(c.check_worthy for c in claims)
    limit = settings.check.max_claims
    if n > limit:
        raise InputError(f"the text has {n} check-worthy claims, more than the {limit} one check runs "
                         f"(check.max_claims): {advice}.")


def prepare_check(
    text: str,
    services: Services,
    options: InvestigationOptions,
    *,
    source: str = "",
    edits: list[EditedClaim] | list[dict[str, Any]] | None = None,
    check_id: str | None = None,
    review: bool = False,
) -> CheckRecord:
    """The text's claims (the model resolving references, when one is configured), with a person's
    edits applied, as a record ready to run; InputError for corpora the store does not hold (before
    any model runs), a text with nothing to check, or too long or with too many claims for the
    settings (check.*). With `review`, the claims go to a person first (`edit_record` applies their
    choices), so more than check.max_claims is a warning there, not a refusal."""
    settings = services.settings
    check_corpora(services, list(options.corpora), options.sources)
    text = validate_text(strip_control(text, keep_newlines=True), max_chars=settings.check.max_text_chars)
    extraction = extract_claims(text, llm=services.llm)
    claims = apply_edits(extraction.claims, edits) if edits else extraction.claims
    warnings = list(extraction.warnings)
    if not review:
        _check_count(claims, settings)
    elif sum(c.check_worthy for c in claims) > settings.check.max_claims:
        warnings.append(f"more than {settings.check.max_claims} claims read as check-worthy, the most one check "
                        "runs: leave some out before the check starts.")
    return CheckRecord(id=check_id or uuid.uuid4().hex[:12], source=source, text=text, claims=claims,
                       warnings=warnings, options=options.model_dump(mode="json"))


def edit_record(record: CheckRecord, edits: list[EditedClaim] | list[dict[str, Any]], settings: Settings) -> CheckRecord:
    """A record whose claims have not run yet, with a person's review applied (`apply_edits`) and
    ready to run; refused when claims already ran, or when too many are left to check."""
    if record.outcomes or record.status != "extracted":
        raise InputError(f"the claims of check {record.id} were already chosen (status {record.status}).")
    claims = apply_edits(record.claims, edits) if edits else record.claims
    if not any(c.check_worthy for c in claims):
        raise InputError("no claim is left to check: tick at least one.")
    _check_count(claims, settings, "leave some out, or check the text in parts")
    return record.model_copy(update={"claims": claims})


class TextChecker:
    """Runs the check-worthy claims of checks one after another with one investigator."""

    def __init__(self, investigator: Investigator | None = None, store: CheckStore | None = None) -> None:
        self.investigator = investigator or Investigator()
        self.store = store or CheckStore(self.investigator.services.settings)

    def run(
        self,
        record: CheckRecord,
        *,
        on_event: CheckHandler | None = None,
        cancel: threading.Event | None = None,
    ) -> TextReport:
        """Investigate the claims of `record` that have no outcome yet, saving the record after each;
        a set `cancel` stops at the next progress event (the claim in flight resumes later from its
        last finished step). Returns the report on the text as far as it got."""
        options = InvestigationOptions.model_validate({**record.options, "guided": False})
        check_corpora(self.investigator.services, list(options.corpora), options.sources)
        todo = record.to_check()
        record.status = "running"
        self.store.save(record)
        remaining = {c.id for c in record.remaining()}
        try:
            for index, claim in enumerate(todo, start=1):
                if claim.id not in remaining:
                    continue
                if cancel is not None and cancel.is_set():
                    raise RunCancelledError(f"check {record.id} cancelled")
                record.outcomes[claim.id] = self._investigate(record, claim, options, index, len(todo), on_event,
                                                              cancel)
                self.store.save(record)
        except RunCancelledError:
            record.status = "cancelled"
            self.store.save(record)
            return text_report(record)
        except BaseException:
            # Ctrl-C or a crash: the finished claims are saved; `resume` picks up the rest.
            record.status = "interrupted"
            self.store.save(record)
            raise
        record.status = "complete"
        self.store.save(record)
        return text_report(record)

    def _investigate(
        self, record: CheckRecord, claim: ExtractedClaim, options: InvestigationOptions, index: int, total: int,
        on_event: CheckHandler | None, cancel: threading.Event | None,
    ) -> ClaimOutcome:
        def say(kind: str, step: str = "", message: str = "") -> None:
            if on_event is not None:
                on_event(CheckProgress(kind=kind, index=index, total=total, claim_id=claim.id, claim=claim.text,
                                       step=step, message=message))

        def handle(ev: ProgressEvent) -> None:
            if cancel is not None and cancel.is_set():
                raise RunCancelledError(f"check {record.id} cancelled")
            say(ev.kind, ev.step, ev.message)

        session = f"{record.id}-{claim.id}"
        inv = self.investigator
        say("claim_started")
        start = time.monotonic()
        try:
            if inv.state(session):
                result = inv.resume(session, on_event=handle)
            else:
                result = inv.run(claim.text, options, thread_id=session, on_event=handle)
        except RunCancelledError:
            raise
        except ClaimscopeError as exc:
            # A claim the investigation refuses (another language, too short after an edit) is named
            # in the report; the other claims go on.
            say("claim_finished", message=f"not checked: {exc}")
            return ClaimOutcome(status="failed", session_id=session, error=str(exc),
                                seconds=round(time.monotonic() - start, 3))
        outcome = ClaimOutcome(status=result.status, session_id=session, report=result.report,
                               seconds=round(time.monotonic() - start, 3),
                               error="" if result.report else f"no report (status {result.status})")
        say("claim_finished", message=result.status)
        return outcome

    def resume(self, check_id: str, *, on_event: CheckHandler | None = None,
               cancel: threading.Event | None = None) -> TextReport:
        """Continue a check that was interrupted or cancelled: its remaining claims only."""
        return self.run(self.store.load(check_id), on_event=on_event, cancel=cancel)


def check_text(
    text: str,
    *,
    services: Services | None = None,
    investigator: Investigator | None = None,
    claims: list[EditedClaim] | list[dict[str, Any]] | None = None,
    source: str = "",
    on_event: CheckHandler | None = None,
    cancel: threading.Event | None = None,
    **options: Any,
) -> TextReport:
    """Check every check-worthy claim of `text` and return the report on the text. `claims`: edits
    of the extracted claims (see `apply_edits`); `options`: as for `investigate` (corpora, sources,
    depth, ...); `investigator`: one already running other investigations (the MCP server's)."""
    checker = TextChecker(investigator or Investigator(services))
    opts = default_options(checker.investigator.services.settings, **options)
    record = prepare_check(text, checker.investigator.services, opts, source=source, edits=claims)
    return checker.run(record, on_event=on_event, cancel=cancel)
