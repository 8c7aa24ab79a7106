"""Study design of an abstract the patterns in tools/appraise/study_design.py could not decide.

The answer must quote the words of the abstract that show the design; tools/appraise/study_design.py keeps
the design only when that quote is in the abstract, and the number of participants only when the
abstract states it, so a design the text does not support is dropped rather than guessed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

ABSTRACT_CHARS = 3000
QUOTE_CHARS = 160

DesignChoice = Literal[
    "meta_analysis", "rct", "cohort", "case_control", "cross_sectional", "case_report", "animal",
    "in_vitro", "modelling", "narrative_review", "other", "unclear",
]


class StudyDesignInput(BaseModel):
    title: str = Field("", max_length=400)
    abstract: str = Field(max_length=ABSTRACT_CHARS)


class StudyDesignOutput(BaseModel):
    design: DesignChoice = Field(description="The study design; 'unclear' when the abstract does not show it.")
    quote: str = Field("", max_length=QUOTE_CHARS, description="Words copied from the abstract that show the design.")
    participants: int | None = Field(None, ge=1, le=100_000_000,
                                     description="Number of participants the abstract states, else null.")


PROMPT: Prompt[StudyDesignInput, StudyDesignOutput] = Prompt(
    name="study_design",
    system=(
        "You classify the design of a study from its abstract. Designs: meta_analysis (also "
        "systematic reviews), rct (randomised controlled trial), cohort, case_control, "
        "cross_sectional, case_report (or case series), animal, in_vitro (cells, tissues), "
        "modelling (simulation, cost-effectiveness), narrative_review, other, unclear. Copy the "
        "words of the abstract that show the design into quote. Give participants only when the "
        "abstract states their number. Answer only with JSON."
    ),
    template="Title: {title}\n\nAbstract: {abstract}\n\nWhat is the study design?",
    input_model=StudyDesignInput,
    output_model=StudyDesignOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=120,
    examples=[
        (
            StudyDesignInput(title="", abstract="We followed 2,114 adults for ten years and recorded incident "
                             "fractures by baseline vitamin D level."),
            StudyDesignOutput(design="cohort", quote="We followed 2,114 adults for ten years", participants=2114),
        ),
        (
            StudyDesignInput(title="", abstract="Hepatocytes isolated from donors were exposed to ethanol for 48 h."),
            StudyDesignOutput(design="in_vitro", quote="Hepatocytes isolated from donors were exposed", participants=None),
        ),
    ],
)


def bench_inputs(claim: str) -> StudyDesignInput:
    """Benchmark inputs: the claim stands in for an abstract (the answer is then mostly 'unclear')."""
    return StudyDesignInput(abstract=claim)
