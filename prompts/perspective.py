"""Perspective summary: what the segments that take one stance on one aspect of a claim say
(ClaimSpect: per aspect node, a short summary per stance grounded in the segments).

Segments are shown numbered; the answer cites them by number (restricted by `prompt_for(n)` to
those shown) and tools/explain/ maps the numbers back to segment keys.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, computed_field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt
from claimscope.prompts.explanation import index_list, numbered

MAX_SEGMENTS = 10
SUMMARY_CHARS = 300
MAX_CITED = 4


class PerspectiveInput(BaseModel):
    claim: str
    aspect: str = Field(description="Aspect name (and description) the segments were classified under.")
    stance: Literal["support", "neutral", "refute"]
    segments: list[str] = Field(max_length=MAX_SEGMENTS)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def segments_block(self) -> str:
        return numbered(self.segments)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stance_phrase(self) -> str:
        return {
            "support": "support the claim",
            "neutral": "neither support nor contradict the claim",
            "refute": "contradict the claim",
        }[self.stance]


class PerspectiveOutput(BaseModel):
    citations: list[int] = Field(min_length=1, max_length=MAX_CITED, description="Numbers of the segments used.")
    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS, description="One or two sentences.")


@lru_cache(maxsize=MAX_SEGMENTS)
def output_model_for(n: int) -> type[PerspectiveOutput]:
    """PerspectiveOutput whose citations only admit 1..n."""
    return create_model(
        f"PerspectiveOutput{n}",
        __base__=PerspectiveOutput,
        citations=(index_list(n), Field(min_length=1, max_length=MAX_CITED)),
    )


SYSTEM = (
    "You summarise what a group of evidence sentences says about one aspect of a claim, using only "
    "those sentences. Answer in JSON."
)

TEMPLATE = """Claim: {claim}
Aspect: {aspect}

These sentences {stance_phrase} with respect to this aspect:
{segments_block}

In one or two sentences, summarise what they say about the aspect. Give the numbers of the
sentences the summary rests on (at most 4)."""

_EXAMPLE_IN = PerspectiveInput(
    claim="Remote work increases productivity.",
    aspect="Output per hour: measured output of employees working from home",
    stance="support",
    segments=[
        "Call-centre employees working from home handled 13% more calls per shift.",
        "Home-based programmers completed more tasks per hour than office-based peers.",
    ],
)
_EXAMPLE_OUT = PerspectiveOutput(
    citations=[1, 2],
    summary="Employees working from home produced more per hour: more calls per shift and more tasks completed.",
)

PROMPT: Prompt[PerspectiveInput, PerspectiveOutput] = Prompt(
    name="perspective",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=PerspectiveInput,
    output_model=output_model_for(MAX_SEGMENTS),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=160,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[PerspectiveInput, PerspectiveOutput]:
    """PROMPT with citations restricted to the n segments shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def bench_inputs(claim: str) -> PerspectiveInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    subject = claim.rstrip(".")
    return PerspectiveInput(
        claim=claim,
        aspect="Clinical outcomes: effects measured in patients",
        stance="support",
        segments=[
            f"A cohort of 1,204 patients gave results consistent with the claim that {subject[0].lower() + subject[1:]}.",
            "The effect persisted after adjustment for age and sex.",
        ],
    )
