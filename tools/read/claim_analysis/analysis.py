"""The analysis entry point: a validated claim with its type, kind, sub-claims, anti-claim and the
queries to run, with the fallbacks taken recorded as warnings.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from claimscope.tools.llm import StructuredLLM
from claimscope.tools.read.claim_analysis.decomposition import _decompose, _dedupe
from claimscope.tools.read.claim_analysis.kinds import (
    ClaimKind,
    ClaimType,
    detect_claim_kind,
    detect_claim_type,
)
from claimscope.tools.read.claim_analysis.opposite import _anti_claim
from claimscope.tools.read.claim_analysis.validation import validate_claim


class ClaimAnalysis(BaseModel):
    """The analysed claim: its type, sub-claims, anti-claim and the queries to run."""

    claim: str = Field(description="The claim, whitespace-normalised.")
    claim_type: ClaimType
    claim_kind: ClaimKind = Field(
        ClaimKind.EMPIRICAL, description="empirical (evidence reports a finding on the claim's relation) or "
        "debate (evidence argues for or against it); detected unless the caller chose.")
    sub_claims: list[str] = Field(description="Existence sub-claims; [claim] for a simple claim.")
    anti_claim: str = Field(description="The claim's opposite, queried alongside the claim.")
    anti_claim_source: Literal["llm", "rule"]
    queries: list[str] = Field(description="Search queries: the claim and the anti-claim.")
    warnings: list[str] = Field(default_factory=list, description="Fallbacks taken, for the run's warnings.")


def analyse_claim(claim: str, llm: StructuredLLM | None, *, kind: ClaimKind | None = None) -> ClaimAnalysis:
    """Validate the claim, detect its type and kind (unless `kind` is given), decompose it, write its
    anti-claim, list the queries.

    Raises InputError for an empty, too short or too long claim; LLM failures become rule-based
    fallbacks recorded in `warnings`.
    """
    text = validate_claim(claim)
    claim_type = detect_claim_type(text)
    warnings: list[str] = []
    subs, warn = _decompose(text, claim_type, llm)
    if warn:
        warnings.append(warn)
    anti, source, warn = _anti_claim(text, llm)
    if warn:
        warnings.append(warn)
    return ClaimAnalysis(
        claim=text,
        claim_type=claim_type,
        claim_kind=kind or detect_claim_kind(text),
        sub_claims=subs,
        anti_claim=anti,
        anti_claim_source=source,
        queries=_dedupe([text, anti]),
        warnings=warnings,
    )
