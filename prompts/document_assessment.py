"""Takeaway and local label of one abstract in a single call (Tan et al., FRoSC steps 2 and 3).

The two-call form (prompts/takeaway.py, then prompts/local_label.py) reads the same abstract
twice; on the embedded model reading the prompt is most of an investigation's time, so this form
asks for both in one answer, in the papers' order: is the abstract related, its main point about
the claim (without a stance), the sentences that decide the question, a reason, and the label
last, so the label is generated after the model has written down what the abstract says.
`verdict.combined_assessment` in config.yaml chooses between the two forms.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt
from claimscope.prompts.explanation import index_list
from claimscope.prompts.local_label import LabelName
from claimscope.prompts.takeaway import TakeawayInput
from claimscope.prompts.takeaway import bench_inputs as takeaway_bench_inputs

MAX_SENTENCES = 16
TAKEAWAY_CHARS = 240
EXPLANATION_CHARS = 240
MAX_CITED = 3


# The same inputs as the takeaway prompt: claim, title, numbered sentences, retrieval matches.
DocumentAssessmentInput = TakeawayInput


class DocumentAssessmentOutput(BaseModel):
    related: bool = Field(description="Does the abstract say anything about what the claim is about?")
    takeaway: str = Field(max_length=TAKEAWAY_CHARS, description="Main point about the claim's subject, no stance.")
    evidence: list[int] = Field(max_length=MAX_CITED, description="Numbers of the sentences that decide it.")
    explanation: str = Field(max_length=EXPLANATION_CHARS, description="Why the label, from this abstract only.")
    label: LabelName


@lru_cache(maxsize=MAX_SENTENCES)
def output_model_for(n: int) -> type[DocumentAssessmentOutput]:
    """DocumentAssessmentOutput whose sentence numbers only admit 1..n."""
    return create_model(
        f"DocumentAssessmentOutput{n}",
        __base__=DocumentAssessmentOutput,
        evidence=(index_list(n), Field(max_length=MAX_CITED)),
    )


SYSTEM = (
    "You read a scientific abstract and report what it says about a claim, using only the abstract. "
    "Labels: True (directly and fully supports), Mostly True, Somewhat True (partial or indirect "
    "support), No Evidence (says nothing either way), Somewhat False, Mostly False, False (directly "
    "contradicts). Answer in JSON."
)

TEMPLATE = """Claim: {claim}

Title: {title}
Abstract (numbered sentences; * = matched the claim's search):
{abstract}

related: does the abstract report anything about the claim's subject?
takeaway: its main finding about that subject in one sentence, without judging the claim.
evidence: the numbers of the sentences that decide the question (at most 3).
explanation: one sentence on why, from this abstract only. label: one of the labels.
If unrelated: related=false, empty takeaway, no evidence, label "No Evidence"."""

_EXAMPLE_IN = DocumentAssessmentInput(
    claim="Statins reduce the risk of dementia.",
    title="Statin use and incident dementia in a population cohort",
    sentences=[
        "Statins are widely prescribed to lower cholesterol.",
        "We followed 3,069 adults aged 75 or older for a median of 6 years.",
        "Statin use was not associated with a lower incidence of dementia (HR 0.95, 95% CI 0.73-1.24).",
    ],
    matched=[3],
)
_EXAMPLE_OUT = DocumentAssessmentOutput(
    related=True,
    takeaway="In 3,069 adults aged 75+, statin use was not associated with a different incidence of dementia.",
    evidence=[3],
    explanation="Statin users did not have less dementia over 6 years, against the claim.",
    label="Mostly False",
)

PROMPT: Prompt[DocumentAssessmentInput, DocumentAssessmentOutput] = Prompt(
    name="document_assessment",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=DocumentAssessmentInput,
    output_model=output_model_for(MAX_SENTENCES),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=240,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[DocumentAssessmentInput, DocumentAssessmentOutput]:
    """PROMPT with sentence numbers restricted to the n sentences shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def bench_inputs(claim: str) -> DocumentAssessmentInput:
    """Plausible inputs from a claim alone, for the LLM benchmark (the takeaway prompt's)."""
    return takeaway_bench_inputs(claim)
