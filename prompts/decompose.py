"""Decomposition of a comparative / conjunctive / disjunctive claim into existence sub-claims
(RAG + NLI + sub-claims: "there exists information about X's birth date").

A sub-claim does not assert the claim; it names one piece of information a passage must contain
for the claim to be decidable (each side of a comparison, each conjunct, each alternative).
Passages are later kept when the stance model says they entail at least one sub-claim.
tools/read/claim_analysis/decomposition.py falls back to a rule-based split when the model fails.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

MAX_SUB_CLAIMS = 4
SUB_CLAIM_CHARS = 240
PREFIX = "There exists information about"

SubClaim = Annotated[str, StringConstraints(strip_whitespace=True, min_length=10, max_length=SUB_CLAIM_CHARS)]


class DecomposeInput(BaseModel):
    claim: str = Field(description="The claim under investigation.")
    claim_type: Literal["simple", "comparative", "conjunctive", "disjunctive"] = Field(
        description="How the claim is built (rule-based detection in tools/read/claim_analysis/kinds.py)."
    )


class DecomposeOutput(BaseModel):
    sub_claims: list[SubClaim] = Field(
        min_length=1,
        max_length=MAX_SUB_CLAIMS,
        description=f"Existence sub-claims, each starting '{PREFIX} ...'.",
    )


PROMPT: Prompt[DecomposeInput, DecomposeOutput] = Prompt(
    name="decompose",
    system=(
        "You split claims into the separate pieces of information needed to check them. Each piece "
        f"is an existence sub-claim that starts with '{PREFIX}' and names one entity and one "
        "property. Sub-claims never repeat the claim's conclusion. Answer only with JSON."
    ),
    template=(
        "Claim ({claim_type}): {claim}\n\n"
        "List the existence sub-claims (2 to 4; exactly 1 for a simple claim): for a comparison, "
        "one per compared item; for 'and', one per conjunct; for 'or', one per alternative. "
        f"Each starts with '{PREFIX}'."
    ),
    input_model=DecomposeInput,
    output_model=DecomposeOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=240,
    examples=[
        (
            DecomposeInput(claim="Aspirin is more effective than ibuprofen for tension headache.", claim_type="comparative"),
            DecomposeOutput(
                sub_claims=[
                    f"{PREFIX} the effectiveness of aspirin for tension headache.",
                    f"{PREFIX} the effectiveness of ibuprofen for tension headache.",
                ]
            ),
        ),
        (
            DecomposeInput(
                claim="Smoking increases the risk of lung cancer and of heart disease.", claim_type="conjunctive"
            ),
            DecomposeOutput(
                sub_claims=[
                    f"{PREFIX} smoking's effect on the risk of lung cancer.",
                    f"{PREFIX} smoking's effect on the risk of heart disease.",
                ]
            ),
        ),
    ],
)
