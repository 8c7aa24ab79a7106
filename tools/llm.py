"""The structural interface tools use to call an LLM. The implementation (litellm gateway) lives in
agent/; tools receive an instance and never import it (layering: evals -> agent -> tools)."""

from __future__ import annotations

from typing import Protocol, TypeVar

from pydantic import BaseModel, Field

from claimscope.prompts.base import Prompt
from claimscope.tools.errors import ClaimscopeError

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)


class LLMError(ClaimscopeError):
    """Raised when the LLM could not produce a valid answer after all retries.

    Callers turn it into their documented fallback (rule-based anti-claim, extractive explanation...).
    """


class StructuredLLM(Protocol):
    """Anything that can run a typed prompt and return its validated output model."""

    def run(self, prompt: Prompt[InT, OutT], inputs: InT) -> OutT:
        """Render `prompt` with `inputs`, call the model, validate against `prompt.output_model`.

        Raises LLMError when no valid output could be obtained.
        """
        ...


class ToolSpec(BaseModel):
    """A tool the model may choose: its name, what it does, and the JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ActionChoice(BaseModel):
    """The model's choice of the next tool and its arguments (validated against the tool's schema)."""

    tool: str
    arguments: dict = Field(default_factory=dict)
    reason: str = ""
