"""Validation of the claim text: whitespace normalised, empty, too short and too long claims refused
with a one-line InputError that says what to do.
"""

from __future__ import annotations

import re

from claimscope.tools.errors import InputError
from claimscope.tools.read.claim_analysis.grammar import _WORD

MIN_CLAIM_CHARS = 10
MIN_CLAIM_WORDS = 3
MAX_CLAIM_CHARS = 1000


def validate_claim(claim: str) -> str:
    """The claim with whitespace normalised; InputError when it cannot be investigated."""
    if not isinstance(claim, str):
        raise InputError(f"the claim must be text, got {type(claim).__name__}.")
    text = " ".join(claim.split())
    if not text:
        raise InputError('the claim is empty: give a statement to investigate, e.g. "Vitamin D reduces fracture risk".')
    if len(text) > MAX_CLAIM_CHARS:
        raise InputError(
            f"the claim is too long ({len(text)} characters, limit {MAX_CLAIM_CHARS}): state one claim in a "
            "sentence or two; put background material into a corpus with `claimscope ingest`."
        )
    if len(text) < MIN_CLAIM_CHARS or len(_WORD.findall(text)) < MIN_CLAIM_WORDS:
        raise InputError(
            f"the claim {text!r} is too short: state a full claim with a subject and what is asserted about "
            'it, e.g. "Vitamin D reduces fracture risk".'
        )
    if not re.search(r"[A-Za-z]", text):
        raise InputError(f"the claim {text!r} contains no words: state the claim in words.")
    return text
