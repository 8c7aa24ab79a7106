"""A scripted model registered as the litellm custom provider ``claimscope-fake``.

Tests of the gateway and of the graph use it through `scripted_llm(script)`, which returns an
ordinary `LLMGateway`: the request building, schema, validation, retries and usage accounting are
the real ones; only the answers are scripted.

A script maps a prompt name (``choose_action`` for action choices) to a list of answers consumed in
order (the last one repeats) or to a callable ``(messages) -> answer``. An answer is one of:

- a pydantic model or dict: returned as JSON content (an `ActionChoice` becomes a native tool call
  when the request carries tools);
- a str: returned verbatim as content (use it for invalid JSON);
- `ToolCall(name, arguments)`: a native tool call;
- `Truncated(text)`: content cut at max_tokens (finish_reason "length");
- an exception instance, e.g. `timeout()`, `rate_limited()`, `server_error()`: raised by the provider.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from claimscope.agent.llm.gateway import PROMPT_METADATA_KEY, LLMGateway, ToolCallingMode, litellm

FAKE_PROVIDER = "claimscope-fake"


@dataclass(frozen=True)
class ToolCall:
    """A scripted native tool call."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class Truncated:
    """Scripted content that stopped at max_tokens."""

    text: str


Answer = Any
Script = dict[str, list[Answer] | Callable[[list[dict[str, Any]]], Answer]]


def timeout() -> Exception:
    """A provider timeout, as litellm raises it."""
    return litellm.Timeout(message="scripted timeout", model=FAKE_PROVIDER, llm_provider=FAKE_PROVIDER)


def rate_limited() -> Exception:
    """A 429, as litellm raises it."""
    return litellm.RateLimitError(message="scripted 429", model=FAKE_PROVIDER, llm_provider=FAKE_PROVIDER)


def server_error() -> Exception:
    """A 500, as litellm raises it."""
    return litellm.InternalServerError(message="scripted 500", model=FAKE_PROVIDER, llm_provider=FAKE_PROVIDER)


def auth_error() -> Exception:
    """A 401 (not retried), as litellm raises it."""
    return litellm.AuthenticationError(message="scripted 401", model=FAKE_PROVIDER, llm_provider=FAKE_PROVIDER)


class ScriptedModel:
    """The answers of one fake model, plus a record of every request it received."""

    def __init__(self, script: Script) -> None:
        self.script = {k: (list(v) if isinstance(v, list) else v) for k, v in script.items()}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> list[str]:
        """Prompt names of the requests received, in order (retries included)."""
        return [r["prompt"] for r in self.requests]

    def next_answer(self, prompt: str, messages: list[dict[str, Any]], optional_params: dict[str, Any]) -> Answer:
        with self._lock:
            self.requests.append({"prompt": prompt, "messages": messages, "params": optional_params})
            entry = self.script.get(prompt)
            if entry is None:
                raise AssertionError(f"the scripted model has no answer for prompt {prompt!r}")
            if callable(entry):
                return entry(messages)
            if not entry:
                raise AssertionError(f"the script for prompt {prompt!r} is empty")
            return entry.pop(0) if len(entry) > 1 else entry[0]


def _words(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content") or "").split()) for m in messages)


class _FakeProvider(litellm.CustomLLM):
    """Routes `claimscope-fake/<id>` requests to the ScriptedModel registered under <id>."""

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, ScriptedModel] = {}

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        litellm_params: dict[str, Any] = kwargs.get("litellm_params") or {}
        model_id = model.split("/", 1)[-1]
        scripted = self.models.get(model_id)
        if scripted is None:
            raise litellm.NotFoundError(message=f"no scripted model {model_id!r}", model=model, llm_provider=FAKE_PROVIDER)
        prompt = (litellm_params.get("metadata") or {}).get(PROMPT_METADATA_KEY, "")
        answer = scripted.next_answer(prompt, messages, optional_params)
        if isinstance(answer, BaseException):
            raise answer
        finish = "stop"
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(answer, ToolCall) or (
            optional_params.get("tools") and hasattr(answer, "tool") and hasattr(answer, "arguments")
        ):
            message["content"] = answer.reason or None
            message["tool_calls"] = [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": getattr(answer, "name", None) or answer.tool, "arguments": json.dumps(answer.arguments)},
                }
            ]
            finish = "tool_calls"
        elif isinstance(answer, Truncated):
            message["content"] = answer.text
            finish = "length"
        elif isinstance(answer, str):
            message["content"] = answer
        elif hasattr(answer, "model_dump_json"):
            message["content"] = answer.model_dump_json()
        else:
            message["content"] = json.dumps(answer)
        prompt_tokens = _words(messages)
        completion_tokens = len(str(message["content"] or "").split()) + (5 if "tool_calls" in message else 0)
        return litellm.ModelResponse(
            model=model,
            choices=[{"index": 0, "finish_reason": finish, "message": message}],
            usage={"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
        )


_PROVIDER: _FakeProvider | None = None
_PROVIDER_LOCK = threading.Lock()
_IDS = itertools.count()


def _provider() -> _FakeProvider:
    global _PROVIDER
    with _PROVIDER_LOCK:
        if _PROVIDER is None:
            _PROVIDER = _FakeProvider()
        # Re-register each time: a test may have reset litellm.custom_provider_map.
        if not any(item.get("provider") == FAKE_PROVIDER for item in litellm.custom_provider_map):
            litellm.custom_provider_map = [
                *litellm.custom_provider_map,
                {"provider": FAKE_PROVIDER, "custom_handler": _PROVIDER},
            ]
        return _PROVIDER


class ScriptedGateway(LLMGateway):
    """An LLMGateway whose model is a ScriptedModel (exposed as `scripted` for assertions)."""

    def __init__(self, scripted: ScriptedModel, model: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.scripted = scripted


def scripted_llm(
    script: Script,
    *,
    max_attempts: int = 3,
    tool_calling: ToolCallingMode = "json",
    retry_backoff_s: float = 0.0,
) -> ScriptedGateway:
    """A gateway to a fresh scripted model; its `ScriptedModel` is at `gateway.scripted`."""
    provider = _provider()
    model_id = f"m{next(_IDS)}"
    scripted = ScriptedModel(script)
    provider.models[model_id] = scripted
    return ScriptedGateway(
        scripted,
        f"{FAKE_PROVIDER}/{model_id}",
        max_attempts=max_attempts,
        timeout_s=5.0,
        retry_backoff_s=retry_backoff_s,
        tool_calling=tool_calling,
    )
