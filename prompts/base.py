"""Typed prompt objects (in the style of ragas): input model, output model, template, few-shots."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)

STRUCTURED_TEMPERATURE = 0.3
DISCOVERY_TEMPERATURE = 0.7


class Prompt(BaseModel, Generic[InT, OutT]):
    """A prompt: a system text, a user template formatted with the input model's fields, and the
    pydantic model its answer must validate against."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: str
    system: str
    template: str = Field(description="str.format template over the input model's fields.")
    input_model: type[InT]
    output_model: type[OutT]
    temperature: float = STRUCTURED_TEMPERATURE
    max_tokens: int = 512
    examples: list[tuple[InT, OutT]] = Field(default_factory=list, description="Few-shot (input, output) pairs.")

    def render(self, inputs: InT) -> str:
        """The user message for `inputs`."""
        if not isinstance(inputs, self.input_model):
            raise TypeError(f"prompt {self.name!r} takes {self.input_model.__name__}, got {type(inputs).__name__}")
        return self.template.format(**inputs.model_dump())
