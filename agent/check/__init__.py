"""Checking a whole text claim by claim: extraction (tools.read.claim_extraction), one investigation per
check-worthy claim with shared services (runner), the saved record and the report on the text
(record; rendered by agent/report/text_render.py). Import from the package."""

from claimscope.agent.check.record import (
    CheckRecord,
    CheckStore,
    ClaimOutcome,
    strongest_evidence,
    text_report,
)
from claimscope.agent.check.runner import (
    CheckHandler,
    CheckProgress,
    EditedClaim,
    TextChecker,
    apply_edits,
    check_text,
    edit_record,
    prepare_check,
)

__all__ = [
    "CheckHandler", "CheckProgress", "CheckRecord", "CheckStore", "ClaimOutcome", "EditedClaim", "TextChecker",
    "apply_edits", "check_text", "edit_record", "prepare_check", "strongest_evidence", "text_report",
]
