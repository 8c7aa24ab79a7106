"""Coarse aspects of a claim (ClaimSpect step 1): the top-k aspects a scientific literature review
would examine to decide the claim, each with a short description and keywords.

Open discovery, so the temperature is the discovery one. Output sizes are bounded so that the
embedded 1.5B model stops quickly: names <= 60 chars, descriptions <= 200, <= 8 keywords, <= 8 aspects
(the caller asks for k and keeps the first k).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from claimscope.prompts.base import DISCOVERY_TEMPERATURE, Prompt

Keyword = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class AspectsInput(BaseModel):
    claim: str = Field(description="The claim under investigation.")
    k: int = Field(3, ge=1, le=8, description="How many aspects to ask for.")
    n_keywords: int = Field(5, ge=1, le=8, description="Keywords per aspect.")


class AspectItem(BaseModel):
    name: str = Field(min_length=1, max_length=60, description="Short lowercase label, 2-6 words.")
    description: str = Field(min_length=1, max_length=200, description="One sentence: what it covers, why it matters.")
    keywords: list[Keyword] = Field(min_length=1, max_length=8, description="Lowercase terms used for this aspect.")


class AspectsOutput(BaseModel):
    aspects: list[AspectItem] = Field(min_length=1, max_length=8)


PROMPT: Prompt[AspectsInput, AspectsOutput] = Prompt(
    name="aspects",
    system=(
        "You are an analyst of scientific and policy claims. You list the distinct aspects that "
        "research papers would examine to decide whether a claim holds. Aspects must not overlap. "
        "Answer only with JSON."
    ),
    template=(
        "Claim: {claim}\n\n"
        "List {k} distinct aspects that research would consider to decide this claim. For each give "
        "a short lowercase name (2-6 words), a one-sentence description of what it covers and why it "
        "matters for the claim, and {n_keywords} lowercase keywords typically used for it."
    ),
    input_model=AspectsInput,
    output_model=AspectsOutput,
    temperature=DISCOVERY_TEMPERATURE,
    max_tokens=400,
    examples=[
        (
            AspectsInput(claim="Vitamin D supplements prevent respiratory infections.", k=2, n_keywords=3),
            AspectsOutput(
                aspects=[
                    AspectItem(
                        name="clinical trial efficacy",
                        description="Whether randomised trials show fewer infections with supplementation.",
                        keywords=["randomised controlled trial", "infection incidence", "placebo"],
                    ),
                    AspectItem(
                        name="dose and baseline status",
                        description="How the effect depends on dose and on baseline vitamin D deficiency.",
                        keywords=["daily dosing", "25-hydroxyvitamin d", "deficiency"],
                    ),
                ]
            ),
        )
    ],
)


def bench_inputs(claim: str) -> AspectsInput:
    """Benchmark inputs: the default tree width (3 aspects, 5 keywords) for the claim."""
    return AspectsInput(claim=claim, k=3, n_keywords=5)
