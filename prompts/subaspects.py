"""Sub-aspects of one aspect (ClaimSpect step 4), discovered from that aspect's top-ranked segments
so that the finer level reflects what the literature actually discusses.

Open discovery (temperature 0.7). Bounded like prompts/aspects.py: names <= 60 chars, descriptions
<= 200, <= 8 keywords, <= 8 items (the caller keeps the first k).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.prompts.aspects import AspectItem
from claimscope.prompts.base import DISCOVERY_TEMPERATURE, Prompt


class SubaspectsInput(BaseModel):
    claim: str
    path: str = Field(description="Ancestor aspects from the top, each followed by ' > ' (empty at the first level).")
    aspect: str = Field(description="The parent aspect's name.")
    description: str = Field(description="The parent aspect's description.")
    excerpts: str = Field(description="Numbered research excerpts ranked for the parent aspect.")
    k: int = Field(3, ge=1, le=8, description="How many sub-aspects to ask for.")
    n_keywords: int = Field(5, ge=1, le=8, description="Keywords per sub-aspect.")


class SubaspectsOutput(BaseModel):
    aspects: list[AspectItem] = Field(min_length=1, max_length=8)


PROMPT: Prompt[SubaspectsInput, SubaspectsOutput] = Prompt(
    name="subaspects",
    system=(
        "You are an analyst who splits one aspect of a claim into finer, non-overlapping sub-aspects "
        "that the given research excerpts actually discuss. Answer only with JSON."
    ),
    template=(
        "Claim: {claim}\n"
        "Parent aspect: {path}{aspect} - {description}\n\n"
        "Excerpts:\n{excerpts}\n\n"
        "List {k} distinct sub-aspects of '{aspect}' that these excerpts consider when judging the "
        "claim. Each needs a short lowercase name (2-6 words) more specific than the parent, a "
        "one-sentence description, and {n_keywords} lowercase keywords drawn from the excerpts."
    ),
    input_model=SubaspectsInput,
    output_model=SubaspectsOutput,
    temperature=DISCOVERY_TEMPERATURE,
    max_tokens=400,
)


def bench_inputs(claim: str) -> SubaspectsInput:
    """Benchmark inputs: a generic first-level aspect with excerpts paraphrasing the claim."""
    body = claim.rstrip(".")
    excerpts = "\n".join(
        [
            f"1. A randomised trial tested whether {body[:1].lower() + body[1:]}; the effect was larger in older adults.",
            "2. Observational cohorts reported smaller effects after adjusting for confounders.",
            "3. Adverse events were rare and similar between groups.",
        ]
    )
    return SubaspectsInput(
        claim=claim,
        path="",
        aspect="clinical evidence",
        description="What clinical and observational studies report about the claim.",
        excerpts=excerpts,
        k=3,
        n_keywords=5,
    )
