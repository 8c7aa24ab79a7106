"""Global explanation: a short summary of the documents' local explanations in which every
sentence cites the numbered evidence sentences it rests on (Tan et al., FRoSC "write an
explanation for the given claim by considering the provided abstracts").

Citations are indices into the numbered evidence list shown in the prompt. The output schema
built by `prompt_for(n)` only admits the integers 1..n (a JSON-schema enum), so a citation of a
sentence that is not in the evidence cannot be produced by a schema-constrained model and fails
validation for any other; tools/explain/ maps the indices back to "docid#idx" keys.

This module also owns the numbering helpers that the takeaway, local-label and perspective
prompts share (`numbered`, `index_literal`, `index_list`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from types import GenericAlias
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

# Most evidence sentences shown to the model: ~16 x 80 tokens stays well inside a 4k context.
MAX_EVIDENCE = 16
# Longest evidence / local explanation text shown, in characters.
TEXT_CHARS = 320
MAX_SENTENCES = 5
MAX_CITATIONS = 3
SENTENCE_CHARS = 300


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    """`text` on one line, cut at `limit` characters (with an ellipsis when cut)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    # Half a word reads as another word ("mild…" for "milder"): end on the last whole one, unless
    # that would drop more than half the room.
    if flat[limit - 1] != " " and " " in cut[limit // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


def numbered(items: Sequence[str], tag: str = "S", *, limit: int = TEXT_CHARS, marks: Sequence[int] = ()) -> str:
    """One line per item: "[S1] text"; items whose 1-based number is in `marks` get a "*" after
    the tag (used to highlight sentences retrieval matched)."""
    marked = set(marks)
    lines = []
    for i, text in enumerate(items, start=1):
        star = "*" if i in marked else ""
        lines.append(f"[{tag}{i}]{star} {clip(text, limit)}")
    return "\n".join(lines) if lines else "(none)"


def index_literal(n: int) -> Any:
    """The type Literal[1, 2, ..., n]: its JSON schema is an integer enum, so a constrained
    decoder can only emit an index of a listed item."""
    if n < 1:
        raise ValueError(f"an index range needs at least one item, got n={n}")
    return Literal[tuple(range(1, n + 1))]


def index_list(n: int) -> Any:
    """The type list[Literal[1, 2, ..., n]], built at run time (a type checker cannot read
    `list[index_literal(n)]` as a type)."""
    return GenericAlias(list, (index_literal(n),))


class LocalExplanation(BaseModel):
    """One document's local verdict as the global explanation sees it."""

    label: str = Field(description="The document's 7-grade label, e.g. 'Mostly True'.")
    explanation: str = Field(description="The local explanation; empty to show the label and evidence only.")
    evidence: list[int] = Field(default_factory=list, description="1-based numbers of its cited evidence sentences.")


class ExplanationInput(BaseModel):
    claim: str
    documents: list[LocalExplanation] = Field(description="Local verdicts, No Evidence excluded.")
    evidence: list[str] = Field(max_length=MAX_EVIDENCE, description="The citable evidence sentences, in order.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def documents_block(self) -> str:
        lines = []
        for i, d in enumerate(self.documents, start=1):
            cites = ", ".join(f"S{k}" for k in d.evidence) or "no sentence"
            text = f": {clip(d.explanation)}" if d.explanation.strip() else ""
            lines.append(f"(D{i}) {d.label}{text} [evidence: {cites}]")
        return "\n".join(lines) if lines else "(none)"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def evidence_block(self) -> str:
        return numbered(self.evidence)


class ExplanationSentence(BaseModel):
    text: str = Field(min_length=1, max_length=SENTENCE_CHARS, description="One sentence of the explanation.")
    citations: list[int] = Field(
        min_length=1, max_length=MAX_CITATIONS, description="Numbers of the evidence sentences it rests on."
    )


class ExplanationOutput(BaseModel):
    sentences: list[ExplanationSentence] = Field(min_length=1, max_length=MAX_SENTENCES)


@lru_cache(maxsize=MAX_EVIDENCE)
def output_model_for(n: int) -> type[ExplanationOutput]:
    """ExplanationOutput whose citations only admit 1..n (subclasses, so isinstance holds)."""
    sentence = create_model(
        f"ExplanationSentence{n}",
        __base__=ExplanationSentence,
        citations=(index_list(n), Field(min_length=1, max_length=MAX_CITATIONS)),
    )
    return create_model(
        f"ExplanationOutput{n}",
        __base__=ExplanationOutput,
        sentences=(list[sentence], Field(min_length=1, max_length=MAX_SENTENCES)),
    )


SYSTEM = (
    "You write short, faithful explanations of what scientific evidence says about a claim. "
    "Use only the numbered evidence sentences. Every sentence you write must cite the numbers of "
    "the evidence sentences it rests on and must say nothing they do not say. State the findings "
    "themselves: do not write 'the abstract states that' or 'which supports the claim', do not use "
    "the words 'abstract', 'study' or 'article', and do not number your sentences. Answer in JSON."
)

TEMPLATE = f"""Claim: {{claim}}

What each source concluded:
{{documents_block}}

Evidence sentences (cite them by number):
{{evidence_block}}

Write an explanation of at most {MAX_SENTENCES} sentences of what the evidence says about the claim,
covering support and contradiction when both exist. Give each sentence the numbers of the
evidence sentences it rests on in "citations"."""


_EXAMPLE_IN = ExplanationInput(
    claim="Vitamin D supplementation reduces the risk of fractures in older adults.",
    documents=[
        LocalExplanation(label="Mostly False", explanation="Daily vitamin D alone did not lower fracture rates.", evidence=[1]),
        LocalExplanation(label="Somewhat True", explanation="Combined with calcium it lowered hip fractures.", evidence=[2]),
    ],
    evidence=[
        "In 2,686 adults over 65, daily vitamin D alone did not change the incidence of fractures.",
        "Vitamin D combined with calcium reduced hip fractures by 16% in institutionalised women.",
    ],
)
_EXAMPLE_OUT = ExplanationOutput(
    sentences=[
        ExplanationSentence(text="Vitamin D given alone did not lower the incidence of fractures in adults over 65.", citations=[1]),
        ExplanationSentence(text="Given together with calcium, it reduced hip fractures in institutionalised women.", citations=[2]),
    ]
)

PROMPT: Prompt[ExplanationInput, ExplanationOutput] = Prompt(
    name="explanation",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=ExplanationInput,
    output_model=output_model_for(MAX_EVIDENCE),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=480,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[ExplanationInput, ExplanationOutput]:
    """PROMPT with citations restricted to the n evidence sentences actually shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def make_input(claim: str, documents: Sequence[LocalExplanation], evidence: Sequence[str]) -> ExplanationInput:
    """The prompt's input."""
    return ExplanationInput(claim=claim, documents=list(documents), evidence=list(evidence))


def bench_inputs(claim: str) -> ExplanationInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    return make_input(
        claim,
        [
            LocalExplanation(label="Mostly True", explanation=f"A cohort reported findings consistent with: {claim}", evidence=[1]),
            LocalExplanation(label="Somewhat False", explanation="A randomised trial found no significant effect.", evidence=[2]),
        ],
        [
            f"Our cohort analysis found results consistent with the statement that {claim[0].lower() + claim[1:]}",
            "In the randomised trial, the intervention had no significant effect on the primary outcome.",
        ],
    )
