"""Local label of one document on the 7-grade scale (Tan et al., FRoSC step 3: "Choose one of
label space ... write the reason by only considering the information that is provided").

The model sees the claim, the document's takeaway and its numbered sentences, and answers with
the numbers of the sentences it relies on (restricted by `prompt_for(n)` to those shown), a short
reason, then the label. The label values are tools.weigh.verdict.LocalLabel's, so they parse exactly
(tests/test_explain.py holds them equal; prompts sit below tools and do not import it).
By default the stance model's reading is NOT shown: tools/explain/labels.py compares the label with it
afterwards and flags a sign conflict, which is most informative when the two are independent.
`hints` can carry it per sentence for a small model that needs the help (local_label(...,
stance_hints=True)); the sign check still runs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, computed_field, create_model

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt
from claimscope.prompts.explanation import index_list, numbered

MAX_SENTENCES = 16
EXPLANATION_CHARS = 300
MAX_CITED = 3
# Sentence text plus an optional note.
TEXT_LIMIT = 380

LabelName = Literal["True", "Mostly True", "Somewhat True", "No Evidence", "Somewhat False", "Mostly False", "False"]


class LocalLabelInput(BaseModel):
    claim: str
    title: str = ""
    takeaway: str = Field(description="What the abstract says about the claim (takeaway step).")
    sentences: list[str] = Field(max_length=MAX_SENTENCES, description="Abstract sentences, in order.")
    hints: list[str] = Field(
        default_factory=list,
        max_length=MAX_SENTENCES,
        description="Optional per-sentence note (e.g. the stance model's reading), '' for none.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abstract(self) -> str:
        notes = self.hints + [""] * (len(self.sentences) - len(self.hints))
        texts = [f"{s} ({n})" if n else s for s, n in zip(self.sentences, notes, strict=False)]
        return numbered(texts, limit=TEXT_LIMIT)


class LocalLabelOutput(BaseModel):
    evidence: list[int] = Field(max_length=MAX_CITED, description="Numbers of the sentences relied on.")
    explanation: str = Field(max_length=EXPLANATION_CHARS, description="Why, from this abstract only.")
    label: LabelName


@lru_cache(maxsize=MAX_SENTENCES)
def output_model_for(n: int) -> type[LocalLabelOutput]:
    """LocalLabelOutput whose evidence numbers only admit 1..n."""
    return create_model(
        f"LocalLabelOutput{n}",
        __base__=LocalLabelOutput,
        evidence=(index_list(n), Field(max_length=MAX_CITED)),
    )


SYSTEM = (
    "You grade how far one scientific abstract supports or contradicts a claim, using only what "
    "the abstract says. Labels: True (directly and fully supports), Mostly True, Somewhat True "
    "(partial or indirect support), No Evidence (says nothing either way), Somewhat False, "
    "Mostly False, False (directly contradicts). Answer in JSON."
)

TEMPLATE = """Claim: {claim}

Title: {title}
Takeaway: {takeaway}
Abstract (numbered sentences):
{abstract}

Give the numbers of the sentences that decide the question (at most 3), a one- or two-sentence
reason that only uses this abstract, and the label."""

_EXAMPLE_IN = LocalLabelInput(
    claim="Statins reduce the risk of dementia.",
    title="Statin use and incident dementia in a population cohort",
    takeaway="In 3,069 adults aged 75+, statin use was not associated with a different incidence of dementia.",
    sentences=[
        "We followed 3,069 adults aged 75 or older for a median of 6 years.",
        "Statin use was not associated with a lower incidence of dementia (HR 0.95, 95% CI 0.73-1.24).",
    ],
)
_EXAMPLE_OUT = LocalLabelOutput(
    evidence=[2],
    explanation="In older adults followed for 6 years, statin users did not have less dementia, against the claim.",
    label="Mostly False",
)

PROMPT: Prompt[LocalLabelInput, LocalLabelOutput] = Prompt(
    name="local_label",
    system=SYSTEM,
    template=TEMPLATE,
    input_model=LocalLabelInput,
    output_model=output_model_for(MAX_SENTENCES),
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=200,
    examples=[(_EXAMPLE_IN, _EXAMPLE_OUT)],
)


def prompt_for(n: int) -> Prompt[LocalLabelInput, LocalLabelOutput]:
    """PROMPT with evidence numbers restricted to the n sentences shown."""
    return PROMPT.model_copy(update={"output_model": output_model_for(n)})


def bench_inputs(claim: str) -> LocalLabelInput:
    """Plausible inputs from a claim alone, for the LLM benchmark."""
    subject = claim.rstrip(".")
    finding = f"the data were consistent with the hypothesis that {subject[0].lower() + subject[1:]}"
    return LocalLabelInput(
        claim=claim,
        title=f"A cohort analysis related to: {subject}",
        takeaway=f"In 1,204 patients, {finding}.",
        sentences=[
            "Methods: we analysed 1,204 patients from three centres over five years.",
            f"Results: {finding}.",
            "Conclusions: larger randomised trials are needed.",
        ],
    )
