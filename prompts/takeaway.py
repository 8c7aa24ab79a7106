"""Takeaway of one abstract about a claim (Tan et al., FRoSC step 2: "Is the claim and abstract
related or unrelated? ... extract the main point of the abstract in relation to the claim. Do NOT
provide any stance about the claim.").

The abstract is shown as numbered sentences; the sentences retrieval matched carry a "*". The
answer names the sentences the takeaway rests on by number, restricted by `prompt_for(n)` to the
sentences shown. An unrelated abstract has no takeaway and is pruned by tools/explain/.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field, computed_field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt
from claimscope.prompts.explanation import index_list, numbered

# Abstract sentences shown; longer abstracts keep the matched sentences and the first/last ones.
MAX_SENTENCES = 16
TAKEAWAY_CHARS = 300
MAX_CITED = 3


class TakeawayInput(BaseModel):
    claim: str
    title: str = ""
    sentences: list[str] = Field(max_length=MAX_SENTENCES, description="Abstract sentences, in order.")
    matched: list[int] = Field(default_factory=list, description="1-based numbers of sentences retrieval matched.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abstract(self) -> str:
        return numbered(self.sentences, marks=self.matched)


class TakeawayOutput(BaseModel):
    related: bool = Field(description="Does the abstract say anything about what the claim is about?")
    sentences: list[int] = Field(max_length=MAX_CITED, description="Numbers of the sentences used.")
    takeaway: str = Field(
        max_length=TAKEAWAY_CHARS, description="Main point of the abstract about the claim; empty if unrelated."
    )


@lru_cache(maxsize=MAX_SENTENCES)
def output_model_for(n: int) -> type[TakeawayOutput]:
    """TakeawayOutput whose sentence numbers only admit 1..n."""
    return create_model(
        f"TakeawayOutput{n}",
        __base__=TakeawayOutput,
        sentences=(index_list(n), Field(max_length=MAX_CITED)),
    )


SYSTEM = (
    "You read scientific abstracts and state precisely what an abstract reports about the subject "
    "of a claim. You do not judge whether the claim is true. Answer in JSON."
)

TEMPLATE = """Claim: {claim}

Title: {title}
Abstract (numbered sentences; * = matched the claim's search):
{abstract}

1. Is the abstract related to the claim (does it report anything about the claim's subject)?
2. If related: in one or two sentences, what is the abstract's main point in relation to the
claim? Only extract the salient finding; do NOT say whether it supports the claim. Give the
numbers of the sentences it comes from. If unrelated: related=false, no sentences, empty takeaway."""

_EXAMPLE_IN = TakeawayInput(
    claim="Statins reduce the risk of dementia.",
    title="Statin use and incident dementia in a population cohort",
    sentences=[
        "Statins are widely prescribed to lower cholesterol.",
        "We followed 3,069 adults aged 75 or older for a median of 6 years.",
        "Statin use was not associated with a lower incidence of dementia (HR 0.95, 95% CI 0.73-1.24).",
    ],
    matched=[3],
)
_EXAMPLE_OUT = TakeawayOutput(
    related=True,
    sentences=[3],
    takeaway="In 3,069 adults aged 75+, statin use was not associated with a different incidence of dementia over 6 years.",
)

PROMPT: Prompt[TakeawayInput, TakeawayOutput] = Prompt(
    name="takeaway",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=TakeawayInput,
    output_model=output_model_for(MAX_SENTENCES),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=200,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[TakeawayInput, TakeawayOutput]:
    """PROMPT with sentence numbers restricted to the n sentences shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def bench_inputs(claim: str) -> TakeawayInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    subject = claim.rstrip(".")
    return TakeawayInput(
        claim=claim,
        title=f"A cohort analysis related to: {subject}",
        sentences=_bench_sentences(subject),
        matched=[3],
    )


def _bench_sentences(subject: str) -> list[str]:
    return [
        "Background: the question has been debated for years.",
        "Methods: we analysed 1,204 patients from three centres over five years.",
        f"Results: the data were consistent with the hypothesis that {subject[0].lower() + subject[1:]}.",
        "Conclusions: larger randomised trials are needed.",
    ]
