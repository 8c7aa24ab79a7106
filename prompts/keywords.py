"""Keyword enrichment (ClaimSpect step 2): keywords for one aspect, taken from the top segments
retrieved for it, so that later queries use the literature's own vocabulary.

Structured extraction (temperature 0.3). At most 8 keywords of at most 40 characters each.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

Keyword = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class KeywordsInput(BaseModel):
    claim: str
    aspect: str = Field(description="Aspect name.")
    description: str = Field(description="Aspect description.")
    current: str = Field(description="Current keywords, comma separated.")
    excerpts: str = Field(description="Numbered excerpts, one per line.")
    n: int = Field(8, ge=1, le=8, description="Maximum keywords to return.")


class KeywordsOutput(BaseModel):
    keywords: list[Keyword] = Field(min_length=1, max_length=8)


PROMPT: Prompt[KeywordsInput, KeywordsOutput] = Prompt(
    name="keywords",
    system=(
        "You extract precise keywords from research excerpts for one aspect of a claim. "
        "Prefer specific terms that occur in the excerpts. Answer only with JSON."
    ),
    template=(
        "Claim: {claim}\n"
        "Aspect: {aspect} - {description}\n"
        "Current keywords: {current}\n\n"
        "Excerpts:\n{excerpts}\n\n"
        "Give up to {n} distinct lowercase keywords for the aspect '{aspect}' that appear in or are "
        "strongly suggested by the excerpts. Keep the best current keywords; drop generic words."
    ),
    input_model=KeywordsInput,
    output_model=KeywordsOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=160,
)


def bench_inputs(claim: str) -> KeywordsInput:
    """Benchmark inputs: a generic evidence aspect with excerpts paraphrasing the claim."""
    body = claim.rstrip(".")
    excerpts = "\n".join(
        [
            f"1. A randomised trial tested whether {body[:1].lower() + body[1:]}.",
            f"2. In a cohort of 1,200 adults, findings were consistent with the statement: {body}.",
            "3. Effect sizes varied across subgroups and study designs.",
        ]
    )
    return KeywordsInput(
        claim=claim,
        aspect="strength of the evidence",
        description="How consistently studies of different designs support the claim.",
        current="randomised trial, cohort study",
        excerpts=excerpts,
        n=8,
    )
