"""Self-contained claim: a sentence taken out of a text rewritten so that it reads alone (its
pronoun or "the drug" replaced by what the text before it names), for checking a whole text
claim by claim (tools/read/claim_extraction.py).

The model only rewords; it never chooses where a claim is in the text (the rules do), and its
wording is kept only when it adds no words that are neither in the sentence nor in the context and
keeps the sentence's own words. Otherwise the rule-based resolution (the subject of the sentence
before) or the sentence itself stands.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

RESOLVED_CLAIM_CHARS = 400


class ResolveClaimInput(BaseModel):
    context: str = Field(description="The sentences of the text just before the sentence.")
    sentence: str = Field(description="The sentence whose references are to be resolved.")


class ResolveClaimOutput(BaseModel):
    claim: str = Field(
        min_length=10,
        max_length=RESOLVED_CLAIM_CHARS,
        description="The sentence rewritten to read alone: pronouns and 'the drug'-style references replaced.",
    )


PROMPT: Prompt[ResolveClaimInput, ResolveClaimOutput] = Prompt(
    name="resolve_claim",
    system=(
        "You make a sentence taken from a text readable on its own. Replace each pronoun (it, they, "
        "this, these) and each vague reference (the drug, the treatment, the study) by the words the "
        "context uses for it. Change nothing else: keep every other word of the sentence, add no "
        "information, no explanation. Answer only with JSON."
    ),
    template=(
        "Context: {context}\n\n"
        "Sentence: {sentence}\n\n"
        "Rewrite the sentence so that it reads alone, with its references replaced by what the context names."
    ),
    input_model=ResolveClaimInput,
    output_model=ResolveClaimOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=160,
    examples=[
        (
            ResolveClaimInput(
                context="Researchers tested daily vitamin D supplements in 3,000 older adults.",
                sentence="They reduced the risk of falls by 20%.",
            ),
            ResolveClaimOutput(claim="Daily vitamin D supplements reduced the risk of falls by 20%."),
        ),
        (
            ResolveClaimInput(
                context="Metformin is the most prescribed drug for type 2 diabetes.",
                sentence="The drug may also lower the risk of some cancers.",
            ),
            ResolveClaimOutput(claim="Metformin may also lower the risk of some cancers."),
        ),
    ],
)


def bench_inputs(claim: str) -> ResolveClaimInput:
    """Benchmark inputs: the claim as the context, and a sentence that refers back to it."""
    return ResolveClaimInput(context=claim, sentence="This was confirmed in a second, larger trial.")
