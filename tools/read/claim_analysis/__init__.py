"""Claim analysis: what kind of claim it is, its existence sub-claims, its opposite, and the
sub-claim passage filter (RAG + NLI + sub-claims; Tan et al.'s anti-claim).

- Comparative / conjunctive / disjunctive claims are detected by rules and split into existence
  sub-claims ("There exists information about whether aspirin is effective for headache."), by the
  LLM when one is given, by rules otherwise or when it fails. Simple claims pass through unchanged.
- The anti-claim (the claim's opposite, a second query everywhere the claim is queried) comes from
  the LLM, with a rule-based negation when the LLM fails or returns something unusable.
- `filter_passages` keeps passages that the stance model says support (entail) at least one
  sub-claim, the union over sub-claims, and falls back to every passage when none does.

Everything here works without an LLM (llm=None): the rules are the documented fallback, not a
separate mode.

One module per concern: grammar (the word lexicon, tokens, finding the main verb), kinds (claim
kind and claim type), validation (the claim text), decomposition (existence sub-claims), opposite
(the anti-claim and the rule-based negation), components (subject / relation / object), analysis
(the entry point that joins them), passages (the sub-claim passage filter). Import from the
package: its names are re-exported here.
"""

from claimscope.tools.read.claim_analysis.analysis import ClaimAnalysis, analyse_claim
from claimscope.tools.read.claim_analysis.components import ClaimComponents, claim_components
from claimscope.tools.read.claim_analysis.decomposition import (
    SUB_CLAIM_PREFIX,
    decompose,
    rule_decompose,
)
from claimscope.tools.read.claim_analysis.kinds import (
    ClaimKind,
    ClaimType,
    detect_claim_kind,
    detect_claim_type,
)
from claimscope.tools.read.claim_analysis.opposite import (
    MIN_ANTI_CLAIM_OVERLAP,
    anti_claim,
    negate_claim,
)
from claimscope.tools.read.claim_analysis.passages import FilterResult, filter_passages
from claimscope.tools.read.claim_analysis.validation import (
    MAX_CLAIM_CHARS,
    MIN_CLAIM_CHARS,
    MIN_CLAIM_WORDS,
    validate_claim,
)

__all__ = [
    "MAX_CLAIM_CHARS",
    "MIN_ANTI_CLAIM_OVERLAP",
    "MIN_CLAIM_CHARS",
    "MIN_CLAIM_WORDS",
    "SUB_CLAIM_PREFIX",
    "ClaimAnalysis",
    "ClaimComponents",
    "ClaimKind",
    "ClaimType",
    "FilterResult",
    "analyse_claim",
    "anti_claim",
    "claim_components",
    "decompose",
    "detect_claim_kind",
    "detect_claim_type",
    "filter_passages",
    "negate_claim",
    "rule_decompose",
    "validate_claim",
]
