"""Translate a claim written in another language into English, so the English retrieval, stance and
explanation models can read it. Used only when the person asks for it (`--translate`,
CLAIMSCOPE_TRANSLATE_CLAIMS=1): a small model translates scientific wording unreliably, so by default
a claim in another language is refused instead. No benchmark inputs: the benchmarks' claims are English.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt


class TranslateInput(BaseModel):
    claim: str = Field(description="The claim, in its own language.")
    language: str = Field(description="The language it appears to be written in.")


class TranslateOutput(BaseModel):
    english: str = Field(min_length=3, max_length=1000, description="The claim in English, one statement.")


PROMPT: Prompt[TranslateInput, TranslateOutput] = Prompt(
    name="translate_claim",
    system=(
        "You translate scientific and political claims into English. Keep every term, population, "
        "quantity and the direction of the claim; do not add, soften or explain. Answer only with JSON."
    ),
    template="Claim ({language}): {claim}\n\nTranslate this claim into English as one plain statement.",
    input_model=TranslateInput,
    output_model=TranslateOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=200,
    examples=[
        (
            TranslateInput(claim="Vitamin-D-Supplementierung verringert das Risiko von Atemwegsinfektionen",
                           language="German"),
            TranslateOutput(english="Vitamin D supplementation reduces the risk of respiratory infections"),
        ),
    ],
)
