"""Revision of an explanation sentence that failed the attribution check: rewrite it so that it
says only what the evidence sentences it cited say (a second, narrower pass over the same
evidence, in the spirit of "verify then edit" post-hoc attribution repair).

The model sees the failing sentence and its cited sentences numbered [S1]..[Sn]; the output schema
built by `prompt_for(n)` admits only citations 1..n, so a revision cannot cite anything new.
tools/explain/ re-runs the attribution check on the revision and keeps it only if it passes.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field, computed_field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt
from claimscope.prompts.explanation import MAX_CITATIONS, SENTENCE_CHARS, index_list, numbered


class ReviseInput(BaseModel):
    claim: str
    sentence: str = Field(description="The explanation sentence its citations did not support.")
    evidence: list[str] = Field(min_length=1, max_length=MAX_CITATIONS, description="Its cited sentences.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def evidence_block(self) -> str:
        return numbered(self.evidence)


class ReviseOutput(BaseModel):
    text: str = Field(min_length=1, max_length=SENTENCE_CHARS, description="The revised sentence.")
    citations: list[int] = Field(min_length=1, max_length=MAX_CITATIONS)


@lru_cache(maxsize=MAX_CITATIONS)
def output_model_for(n: int) -> type[ReviseOutput]:
    """ReviseOutput whose citations only admit 1..n."""
    return create_model(
        f"ReviseOutput{n}",
        __base__=ReviseOutput,
        citations=(index_list(n), Field(min_length=1, max_length=MAX_CITATIONS)),
    )


SYSTEM = (
    "You fix sentences of an explanation that their evidence does not support. The draft sentence "
    "you get is wrong as written: do not repeat it. Write a new sentence that states what the "
    "numbered evidence sentences say about the draft's subject, in close to their own words: keep "
    "their subjects, outcomes, numbers and negations, and add nothing they do not say. Write one "
    "plain sentence; do not write 'the abstract states that' or 'which supports the claim'. Answer in JSON."
)

TEMPLATE = """Claim: {claim}

Evidence sentences:
{evidence_block}

Draft sentence (NOT supported by the evidence as written): {sentence}

Write the corrected sentence: what the evidence sentences actually say about this subject. Give the
numbers of the evidence sentences it rests on in "citations"."""


_EXAMPLE_IN = ReviseInput(
    claim="Vitamin E supplements prevent prostate cancer.",
    sentence="Vitamin E supplements lowered prostate cancer risk and improved survival.",
    evidence=["Compared with placebo, vitamin E had no effect on the incidence of prostate cancer (HR 0.97)."],
)
_EXAMPLE_OUT = ReviseOutput(
    text="Compared with placebo, vitamin E had no effect on the incidence of prostate cancer (HR 0.97).",
    citations=[1],
)

PROMPT: Prompt[ReviseInput, ReviseOutput] = Prompt(
    name="revise",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=ReviseInput,
    output_model=output_model_for(MAX_CITATIONS),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=160,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[ReviseInput, ReviseOutput]:
    """PROMPT with citations restricted to the n cited sentences shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def make_input(claim: str, sentence: str, evidence: list[str]) -> ReviseInput:
    return ReviseInput(claim=claim, sentence=sentence, evidence=evidence)


def bench_inputs(claim: str) -> ReviseInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    return make_input(claim, f"Trials showed clearly that {claim[0].lower() + claim[1:]}",
                      ["In the randomised trial, the intervention had no significant effect on the primary outcome."])
