"""A check of a whole text as saved: the text, its claims, the options, and the outcome of each
claim's investigation, written to `<data_dir>/checks/<id>.json` after every claim (atomically, so
a crash or Ctrl-C loses nothing finished), and turned into the `TextReport`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from claimscope.agent.report.model import Citation, DocumentView, Report
from claimscope.agent.report.text_model import (
    CheckedClaim,
    SkippedSentence,
    StrongestEvidence,
    TextReport,
    check_verdict,
)
from claimscope.agent.settings import Settings
from claimscope.tools.errors import InputError
from claimscope.tools.read.claim_extraction import ExtractedClaim

CHECKS_DIR = "checks"
_CHECK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CheckStatus = Literal["extracted", "running", "complete", "cancelled", "interrupted"]


class ClaimOutcome(BaseModel):
    """What one claim's investigation ended with."""

    status: str = Field(description="The investigation's final status, or failed / cancelled.")
    session_id: str | None = None
    report: dict[str, Any] | None = Field(None, description="The claim's Report as JSON.")
    error: str = ""
    seconds: float = 0.0


class CheckRecord(BaseModel):
    """One check of one text, as saved between claims."""

    id: str
    source: str = ""
    text: str
    claims: list[ExtractedClaim]
    warnings: list[str] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict, description="InvestigationOptions as JSON, for every claim.")
    outcomes: dict[str, ClaimOutcome] = Field(default_factory=dict, description="Claim id -> outcome, once finished.")
    status: CheckStatus = "extracted"
    created_at: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))

    def to_check(self) -> list[ExtractedClaim]:
        """The check-worthy claims, in text order."""
        return [c for c in self.claims if c.check_worthy]

    def remaining(self) -> list[ExtractedClaim]:
        """The check-worthy claims without an outcome that ends them (cancelled ones run again)."""
        return [c for c in self.to_check() if c.id not in self.outcomes or self.outcomes[c.id].status == "cancelled"]

    def done(self) -> int:
        """How many check-worthy claims have an outcome that ends them (what progress counts)."""
        return len(self.to_check()) - len(self.remaining())


class CheckStore:
    """Checks saved as JSON files in one folder of the data directory."""

    def __init__(self, settings: Settings) -> None:
        self.folder = settings.resolve(f"{CHECKS_DIR}/x").parent

    def path(self, check_id: str) -> Path:
        if not _CHECK_ID.match(check_id):
            raise InputError(f"{check_id!r} is not a check id (letters, digits, '-' and '_'); "
                             "`claimscope check --list` shows them.")
        return self.folder / f"{check_id}.json"

    def save(self, record: CheckRecord) -> None:
        path = self.path(record.id)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(record.model_dump_json(), encoding="utf-8")
        os.replace(tmp, path)

    def load(self, check_id: str) -> CheckRecord:
        path = self.path(check_id)
        if not path.exists():
            raise InputError(f"no check with id {check_id!r}; `claimscope check --list` shows them.")
        try:
            return CheckRecord.model_validate_json(path.read_text(encoding="utf-8"))
        except (ValidationError, OSError, UnicodeError) as exc:
            raise InputError(f"the saved check {path} cannot be read ({type(exc).__name__}); check the text again "
                             "under a new id.") from exc

    def list(self, limit: int | None = None) -> list[CheckRecord]:
        """The saved checks, newest first; the first `limit` of them only, when given (each file holds
        its claims' full reports, so a page showing the latest few reads only those)."""
        out: list[CheckRecord] = []
        for path in sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            if limit is not None and len(out) >= limit:
                break
            try:
                out.append(CheckRecord.model_validate_json(path.read_text(encoding="utf-8")))
            except (ValidationError, OSError, UnicodeError, json.JSONDecodeError):
                continue
        return out


def strongest_evidence(report: Report) -> StrongestEvidence | None:
    """The document whose finding points the verdict's way with the most trust (then reputation);
    for a mixed verdict, either way; none for "insufficient evidence"."""
    verdict = check_verdict(report.verdict.weighted.label)
    wanted = {"supported": {"supports"}, "refuted": {"opposes"}, "mixed": {"supports", "opposes"}}.get(verdict)
    if not wanted:
        return None
    candidates = [d for d in report.documents if d.direction in wanted]
    if not candidates:
        return None

    def weight(d: DocumentView) -> tuple[bool, float, float]:
        return (d.finding is not None, d.trust or 0.0, d.reputation or 0.0)

    best = max(candidates, key=weight)
    finding = Citation.model_validate(best.finding.model_dump()) if best.finding is not None else None
    return StrongestEvidence(doc_id=best.id, title=best.title, year=best.year, link=best.link,
                             direction=best.direction, finding=finding)


def text_report(record: CheckRecord) -> TextReport:
    """The report on the text from what the check has so far."""
    claims: list[CheckedClaim] = []
    for c in record.to_check():
        outcome = record.outcomes.get(c.id)
        view = CheckedClaim(id=c.id, text=c.text, start=c.start, end=c.end, quote=c.quote, resolved_by=c.resolved_by)
        if outcome is not None:
            view.status, view.error, view.seconds = outcome.status, outcome.error, outcome.seconds
            view.session_id = outcome.session_id
            if outcome.report:
                rep = Report.model_validate(outcome.report)
                view.report = rep
                view.verdict = check_verdict(rep.verdict.weighted.label)
                view.label = rep.verdict.weighted.label.value
                view.confidence = rep.verdict.confidence
                view.evidence = strongest_evidence(rep)
        claims.append(view)
    skipped = [SkippedSentence(id=c.id, start=c.start, end=c.end, quote=c.quote, category=c.category, reason=c.reason)
               for c in record.claims if not c.check_worthy]
    return TextReport(check_id=record.id, source=record.source, status=record.status, text=record.text,
                      claims=claims, not_check_worthy=skipped, warnings=list(record.warnings),
                      created_at=record.created_at)
