"""Stance of one piece of evidence toward a claim, for the "llm" stance backend (tools/read/stance.py).

The label comes first in the output so a small local model commits to it before anything else;
the confidence becomes the label's probability (the rest is split between the other two).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

MAX_CHARS = 1600


class StanceInput(BaseModel):
    claim: str = Field(max_length=MAX_CHARS)
    evidence: str = Field(max_length=MAX_CHARS, description="A sentence or passage from a source.")


class StanceOutput(BaseModel):
    label: Literal["support", "refute", "neutral"] = Field(
        description="support: the evidence says the claim is true; refute: it says the claim is false; "
        "neutral: it does not settle the claim."
    )
    confidence: float = Field(ge=0, le=1, description="How sure, 0 to 1.")


SYSTEM = (
    "You judge whether a piece of scientific evidence supports a claim, refutes it, or neither. "
    "Judge only from the evidence text, not from what you know. Answer in JSON."
)

TEMPLATE = """Claim: {claim}

Evidence: {evidence}

Does the evidence support the claim, refute it, or is it neutral (on topic but does not settle
it, or off topic)? A result in the opposite direction, a null result where the claim asserts an
effect, or a different magnitude than claimed is "refute"."""

PROMPT: Prompt[StanceInput, StanceOutput] = Prompt(
    name="stance",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=StanceInput,
    output_model=StanceOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=40,
    examples=[
        (
            StanceInput(
                claim="Statins reduce the risk of dementia.",
                evidence="Statin use was not associated with a lower incidence of dementia (HR 0.95, 95% CI 0.73-1.24).",
            ),
            StanceOutput(label="refute", confidence=0.8),
        ),
        (
            StanceInput(
                claim="Vitamin D supplementation lowers blood pressure.",
                evidence="Vitamin D deficiency is common in older adults living in northern latitudes.",
            ),
            StanceOutput(label="neutral", confidence=0.9),
        ),
    ],
)


def bench_inputs(claim: str) -> StanceInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    subject = claim.strip().rstrip(".")
    subject = subject[0].lower() + subject[1:] if subject else subject
    return StanceInput(
        claim=claim[:MAX_CHARS],
        evidence=f"In a cohort of 1,204 patients followed for five years, we found evidence that {subject}."[:MAX_CHARS],
    )
