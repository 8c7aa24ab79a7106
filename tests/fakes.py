"""Small deterministic stand-ins for tool tests that must not load models or call an LLM.

For tests of the LLM gateway itself (request/validation/retry path) use the scripted fake model
registered in agent/llm instead; these fakes only satisfy the protocols in tools/.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from claimscope.prompts.base import Prompt
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Stance, StanceResult


class CannedLLM:
    """Returns scripted outputs per prompt name: a list (consumed in order, last one repeats),
    or a callable(inputs) -> output model / dict. Records every call in `calls`."""

    def __init__(self, script: dict[str, list[Any] | Callable[[BaseModel], Any]]) -> None:
        self.script = script
        self.calls: list[tuple[str, BaseModel]] = []

    def run(self, prompt: Prompt, inputs: BaseModel) -> BaseModel:
        self.calls.append((prompt.name, inputs))
        entry = self.script.get(prompt.name)
        if entry is None:
            raise LLMError(f"no scripted answer for prompt {prompt.name!r}")
        if callable(entry):
            out = entry(inputs)
        else:
            out = entry.pop(0) if len(entry) > 1 else entry[0]
        if isinstance(out, Exception):
            raise out
        if isinstance(out, dict):
            out = prompt.output_model.model_validate(out)
        return out


class KeywordStance:
    """Stance by keywords: 'not'/'no'/'fails' in the evidence -> refute, shared content words ->
    support, otherwise neutral. Deterministic and good enough for logic tests."""

    NEG = {"not", "no", "fails", "failed", "never", "without", "reduces", "decrease"}

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        out = []
        for claim, ev in pairs:
            cw = {w for w in claim.lower().split() if len(w) > 3}
            ew = set(ev.lower().replace(".", " ").split())
            overlap = len(cw & ew) / max(1, len(cw))
            if overlap < 0.3:
                out.append(StanceResult(label=Stance.NEUTRAL, support=0.1, neutral=0.8, refute=0.1))
            elif ew & self.NEG:
                out.append(StanceResult(label=Stance.REFUTE, support=0.1, neutral=0.1, refute=0.8))
            else:
                out.append(StanceResult(label=Stance.SUPPORT, support=0.8, neutral=0.1, refute=0.1))
        return out


class HashEmbedder:
    """Bag-of-words hashing embedder: texts sharing words get similar vectors. No model load."""

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                h = int(hashlib.md5(w.strip(".,;:!?()").encode()).hexdigest(), 16)
                out[i, h % self._dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
