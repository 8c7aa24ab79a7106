"""Anti-claim: the opposite of a claim (Tan et al., "Faithful reasoning over scientific claims":
retrieving for the claim AND its opposite finds +51.7% new documents).

The anti-claim is a search query and a stance probe, not a verdict: it must keep the claim's
subject, population and outcome and flip only the asserted direction, so that the same literature
is hit from the other side. tools/read/claim_analysis/opposite.py falls back to a rule-based negation
when the model fails or returns the claim unchanged.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

# Claims are limited to 1,000 characters (tools/read/claim_analysis/validation.py); the opposite is one sentence.
ANTI_CLAIM_CHARS = 400


class AntiClaimInput(BaseModel):
    claim: str = Field(description="The claim under investigation.")


class AntiClaimOutput(BaseModel):
    anti_claim: str = Field(
        min_length=3,
        max_length=ANTI_CLAIM_CHARS,
        description="One sentence asserting the opposite of the claim, same subject and outcome.",
    )


PROMPT: Prompt[AntiClaimInput, AntiClaimOutput] = Prompt(
    name="anti_claim",
    system=(
        "You rewrite scientific and political claims into their opposite. Keep the subject, the "
        "population, the outcome and the wording; flip only what the claim asserts (its direction "
        "or its truth). Write one plain declarative sentence, no hedging, no explanation. "
        "Answer only with JSON."
    ),
    template=(
        "Claim: {claim}\n\n"
        "Write the opposite of this claim as one sentence (the anti-claim). If the claim says "
        "something increases, the anti-claim says it does not increase (or decreases); if the "
        "claim is negative, the anti-claim is the positive statement."
    ),
    input_model=AntiClaimInput,
    output_model=AntiClaimOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=120,
    examples=[
        (
            AntiClaimInput(claim="Vitamin D supplementation reduces the risk of respiratory infections."),
            AntiClaimOutput(
                anti_claim="Vitamin D supplementation does not reduce the risk of respiratory infections."
            ),
        ),
        (
            AntiClaimInput(claim="Minimum wage increases do not cause job losses among teenagers."),
            AntiClaimOutput(anti_claim="Minimum wage increases cause job losses among teenagers."),
        ),
    ],
)


def bench_inputs(claim: str) -> AntiClaimInput:
    """Benchmark inputs: the claim itself is the only input."""
    return AntiClaimInput(claim=claim)
