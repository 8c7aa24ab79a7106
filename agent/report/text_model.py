"""The report on a whole checked text: the text, each checked claim with its span, verdict,
confidence, strongest evidence and full investigation `Report`, and what was judged not worth
checking, with the reason. Versioned like the claim report (its own SCHEMA_VERSION).
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, Field, ValidationError

from claimscope.agent.report.model import Citation, Report
from claimscope.tools.errors import InputError
from claimscope.tools.weigh.verdict import GlobalLabel

TEXT_SCHEMA_VERSION: Final = "1"
CheckVerdict = Literal["supported", "refuted", "mixed", "insufficient evidence", "not checked"]
# The four verdicts a text's reader sees, from the graded label of each claim's investigation.
_VERDICT_OF: dict[GlobalLabel, CheckVerdict] = {
    GlobalLabel.GENERALLY_SUPPORTED: "supported",
    GlobalLabel.LEANING_SUPPORTED: "supported",
    GlobalLabel.CONTROVERSIAL: "mixed",
    GlobalLabel.LEANING_REFUTED: "refuted",
    GlobalLabel.GENERALLY_REFUTED: "refuted",
    GlobalLabel.INSUFFICIENT: "insufficient evidence",
}


def check_verdict(label: GlobalLabel | str) -> CheckVerdict:
    """The text report's verdict for a claim report's graded label."""
    return _VERDICT_OF[GlobalLabel(label)]


class StrongestEvidence(BaseModel):
    """The document a claim's verdict rests on most, with the sentence its label rests on."""

    doc_id: str
    title: str = ""
    year: int | None = None
    link: str | None = Field(None, description="An http(s) link (URL or DOI resolver).")
    direction: str | None = None
    finding: Citation | None = None


class CheckedClaim(BaseModel):
    """A check-worthy claim of the text and what its investigation found."""

    id: str
    text: str = Field(description="The claim as investigated (reads alone).")
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    quote: str = Field(description="The text's words at [start, end).")
    resolved_by: str = "none"
    verdict: CheckVerdict = "not checked"
    label: str = Field("", description="The graded label of the investigation (e.g. 'leaning supported').")
    confidence: float | None = Field(None, ge=0, le=1)
    evidence: StrongestEvidence | None = None
    status: str = Field("pending", description="The investigation's status, or pending / failed / cancelled.")
    error: str = ""
    seconds: float = Field(0.0, ge=0, description="Wall time of its investigation.")
    session_id: str | None = Field(None, description="The investigation's session (`claimscope sessions show`).")
    report: Report | None = None


class SkippedSentence(BaseModel):
    """A part of the text that was not checked, and why."""

    id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    quote: str
    category: str
    reason: str


class TextReport(BaseModel):
    """Everything a check of one text found, in text order."""

    schema_version: Literal["1"] = TEXT_SCHEMA_VERSION
    kind: Literal["text_check"] = "text_check"
    check_id: str
    source: str = Field("", description="Where the text came from (a file name, or '' for text given directly).")
    status: str = Field("complete", description="complete, or running / cancelled / interrupted while claims remain.")
    text: str
    claims: list[CheckedClaim] = Field(default_factory=list)
    not_check_worthy: list[SkippedSentence] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    created_at: str | None = None

    def counts(self) -> dict[str, int]:
        """Claims per verdict, in the verdicts' order."""
        out: dict[str, int] = {}
        for verdict in get_args(CheckVerdict):
            n = sum(c.verdict == verdict for c in self.claims)
            if n:
                out[verdict] = n
        return out


def load_text_report(data: str | dict[str, Any] | TextReport) -> TextReport:
    """A TextReport from JSON text, a dict or a TextReport, with a one-line error when it is not one."""
    if isinstance(data, TextReport):
        return data
    try:
        if isinstance(data, str):
            data = json.loads(data)
        if isinstance(data, dict) and str(data.get("schema_version", TEXT_SCHEMA_VERSION)) != TEXT_SCHEMA_VERSION:
            raise InputError(f"this text report has schema version {data.get('schema_version')!r}; this claimscope "
                             f"reads version {TEXT_SCHEMA_VERSION!r}. Check the text again with this version.")
        return TextReport.model_validate(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"the text report is not valid JSON ({exc}).") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(f"not a claimscope text report: {'.'.join(map(str, first['loc']))}: {first['msg']}.") from exc
