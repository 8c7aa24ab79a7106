"""One finding of the explanation, phrased from one chosen evidence sentence.

The explanation is written finding by finding: the evidence is selected first (the strongest
sentences behind the documents' labels), then the model restates each sentence in plain words,
one call per sentence. A 1.5B model that is asked to summarise and cite at once writes claims no
source states; restating one given sentence keeps every sentence of the explanation traceable to
the sentence it cites, and a restatement that the attribution check rejects is replaced by the
quote itself (tools/explain/).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from claimscope.prompts.base import STRUCTURED_TEMPERATURE, Prompt

FINDING_CHARS = 300


class FindingInput(BaseModel):
    claim: str = Field(description="The claim under investigation (context only).")
    title: str = Field("", description="Title of the study the sentence comes from.")
    sentence: str = Field(description="The evidence sentence to restate.")


class FindingOutput(BaseModel):
    finding: str = Field(min_length=1, max_length=FINDING_CHARS,
                         description="One sentence: what the study found, in plain words, from the sentence only.")


PROMPT: Prompt[FindingInput, FindingOutput] = Prompt(
    name="finding",
    system=(
        "You restate one sentence from a scientific abstract as one plain English sentence for a "
        "general reader. You keep its facts, numbers and hedges, add nothing, and do not judge any "
        "claim. Answer in JSON."
    ),
    template=(
        "Claim being checked: {claim}\n"
        "Study: {title}\n"
        "Sentence: {sentence}\n\n"
        "Restate what this sentence reports as one plain sentence that starts with \"The study\"."
    ),
    input_model=FindingInput,
    output_model=FindingOutput,
    temperature=STRUCTURED_TEMPERATURE,
    max_tokens=160,
    examples=[
        (
            FindingInput(
                claim="Vitamin D supplements prevent respiratory infections.",
                title="Vitamin D supplementation to prevent acute respiratory tract infections",
                sentence="Vitamin D supplementation reduced the risk of acute respiratory tract infection among "
                         "all participants (adjusted odds ratio 0.88, 95% CI 0.81 to 0.96).",
            ),
            FindingOutput(finding="The study found that vitamin D supplements lowered the risk of acute respiratory "
                                  "infections (odds ratio 0.88)."),
        )
    ],
)


def bench_inputs(claim: str) -> FindingInput:
    """Benchmark inputs: one trial-style sentence on the claim."""
    body = claim.rstrip(".")
    return FindingInput(
        claim=claim,
        title="A randomised controlled trial",
        sentence=f"In this randomised trial of 1,200 adults, {body[:1].lower() + body[1:]} was not confirmed "
                 "(hazard ratio 0.97, 95% CI 0.85 to 1.10).",
    )
