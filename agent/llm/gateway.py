"""The one place where claimscope talks to an LLM: litellm with JSON-schema constrained output,
pydantic validation, retries on invalid output and transient errors, native or JSON tool choice,
and usage accounting. The embedded model, hosted models and the scripted test model all go
through `LLMGateway._complete`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import jsonschema
import litellm
from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
)

from claimscope.agent.llm.usage import PromptUsage, Usage, UsageMeter
from claimscope.prompts.base import Prompt
from claimscope.tools.llm import ActionChoice, LLMError, ToolSpec
from claimscope.tools.text.text_guard import instruction_text, output_problems

# litellm prints a provider banner on some errors; claimscope reports errors itself.
litellm.suppress_debug_info = True

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)
T = TypeVar("T")

ToolCallingMode = Literal["auto", "native", "json"]

# Name under which action choices are accounted and scripted.
ACTION_PROMPT_NAME = "choose_action"
# Key in litellm's `metadata` naming the prompt; litellm keeps it local (never sent to a provider),
# and the scripted fake model reads it to pick its answer.
PROMPT_METADATA_KEY = "claimscope_prompt"
# Longest wait between attempts, whatever the backoff doubling says.
_MAX_WAIT_S = 30.0
_JSON_ONLY = "Answer with a single JSON object that matches the required schema, and nothing else."
_REASON_MAX = 160

_TRANSIENT: tuple[type[BaseException], ...] = (
    litellm.Timeout,
    litellm.RateLimitError,
    litellm.APIConnectionError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
)


class InvalidOutput(Exception):
    """The model answered, but not with a valid instance of the expected output."""

    def __init__(self, message: str, raw: str | None) -> None:
        super().__init__(message)
        self.raw = raw


class _TransientError(Exception):
    """A retryable provider error (timeout, 429, 5xx), wrapped so tenacity can tell it apart."""


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, _TRANSIENT):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent for constrained decoding (pydantic's, which keeps max_length bounds)."""
    return model.model_json_schema()


def prompt_messages(prompt: Prompt[InT, OutT], inputs: InT) -> list[dict[str, str]]:
    """System text, few-shot pairs as user/assistant turns, then the rendered user message."""
    messages = [{"role": "system", "content": f"{prompt.system}\n{_JSON_ONLY}"}]
    for ex_in, ex_out in prompt.examples:
        messages.append({"role": "user", "content": prompt.render(ex_in)})
        messages.append({"role": "assistant", "content": ex_out.model_dump_json()})
    messages.append({"role": "user", "content": prompt.render(inputs)})
    return messages


def action_schema(tools: list[ToolSpec]) -> dict[str, Any]:
    """JSON schema of an action choice: one branch per tool, so the arguments are constrained too."""
    branches = [
        {
            "type": "object",
            "properties": {
                "tool": {"const": t.name},
                "arguments": t.parameters,
                "reason": {"type": "string", "maxLength": _REASON_MAX},
            },
            "required": ["tool", "arguments", "reason"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def validate_action(choice: ActionChoice, tools: list[ToolSpec]) -> ActionChoice:
    """Check the chosen tool exists and its arguments satisfy its schema; InvalidOutput otherwise."""
    specs = {t.name: t for t in tools}
    spec = specs.get(choice.tool)
    if spec is None:
        raise InvalidOutput(f"unknown tool {choice.tool!r}; choose one of {sorted(specs)}", choice.model_dump_json())
    try:
        jsonschema.validate(choice.arguments, spec.parameters)
    except jsonschema.ValidationError as exc:
        raise InvalidOutput(f"arguments of {choice.tool!r} are invalid: {exc.message}", json.dumps(choice.arguments)) from exc
    except jsonschema.SchemaError as exc:
        raise LLMError(f"tool {choice.tool!r} declares an invalid JSON schema: {exc.message}") from exc
    return choice


class LLMGateway:
    """Runs typed prompts and action choices against one litellm model. Thread-safe.

    `api_base` may be given directly or produced lazily by `api_base_factory` (the embedded server
    starts on the first call, not when the gateway is built).
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_base_factory: Callable[[], str] | None = None,
        api_key: str | None = None,
        max_attempts: int = 3,
        timeout_s: float = 120.0,
        retry_backoff_s: float = 1.0,
        tool_calling: ToolCallingMode = "auto",
        extra_params: dict[str, Any] | None = None,
        seed: int | None = None,
        guard_text: bool = True,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self.model = model
        self._api_base = api_base
        self._api_base_factory = api_base_factory
        self._api_key = api_key
        self.max_attempts = max_attempts
        self.timeout_s = timeout_s
        self.retry_backoff_s = retry_backoff_s
        self.tool_calling = tool_calling
        self._extra = dict(extra_params or {})
        self.seed = seed
        self.guard_text = guard_text
        self._seed_ok: bool | None = None
        self._meter = UsageMeter()
        self._base_lock = threading.Lock()

    # ---- public API ---------------------------------------------------------------------------

    @property
    def usage(self) -> Usage:
        """A snapshot of the calls counted so far: inside a `usage_scope()` (each investigation
        runs in one) those of that scope only, so concurrent or successive investigations sharing
        this gateway never see each other's calls; outside any scope, the totals since construction
        or the last reset_usage()."""
        return self._meter.snapshot()

    def reset_usage(self) -> Usage:
        """Zero the counters and return the totals so far (per-investigation accounting)."""
        return self._meter.reset()

    def api_base(self) -> str | None:
        """The endpoint in use, starting the embedded server if this gateway has one."""
        if self._api_base is None and self._api_base_factory is not None:
            with self._base_lock:
                if self._api_base is None:
                    self._api_base = self._api_base_factory()
        return self._api_base

    def run(self, prompt: Prompt[InT, OutT], inputs: InT) -> OutT:
        """Render `prompt`, request JSON matching its output model, validate, retry; LLMError at the end."""
        messages = prompt_messages(prompt, inputs)
        params = {
            "temperature": prompt.temperature,
            "max_tokens": prompt.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": prompt.name, "schema": output_schema(prompt.output_model)},
            },
        }

        def parse(message: Any) -> OutT:
            content = message.content
            if not content:
                raise InvalidOutput("empty answer", content)
            try:
                return prompt.output_model.model_validate_json(content)
            except ValidationError as exc:
                raise InvalidOutput(_short_validation_error(exc), content) from exc

        answer = self._call(prompt.name, messages, params, parse, feedback=True)
        if not self.guard_text:
            return answer
        return self._guarded(prompt, inputs, messages, params, parse, answer)

    def _guarded(self, prompt: Prompt[InT, OutT], inputs: InT, messages: list[dict[str, Any]],
                 params: dict[str, Any], parse: Callable[[Any], OutT], answer: OutT) -> OutT:
        """The text guard (tools.text.text_guard) on a valid answer: one regeneration, at a lower
        temperature and with what was wrong, when a text field degenerated; LLMError when the second
        answer fails too, so that the caller's extractive fallback is what the reader gets."""
        reference = str(getattr(inputs, "claim", "") or "")
        instructions = instruction_text(prompt.system, prompt.template)
        fields = output_problems(answer, reference=reference, instructions=instructions)
        problems = _named(fields)
        record = PromptUsage(text_fields=len(fields), degenerate_fields=sum(1 for p in fields.values() if p))
        if not problems:
            self._meter.record(prompt.name, record)
            return answer
        record.regenerated = 1
        self._meter.record(prompt.name, record)
        retry = [
            *messages,
            {"role": "assistant", "content": answer.model_dump_json()[:2000]},
            {"role": "user", "content": f"That answer has degenerate text ({'; '.join(problems[:3])}). "
             f"Write it again: each point once, in the claim's language, in your own words. {_JSON_ONLY}"},
        ]
        cooler = {**params, "temperature": min(float(params.get("temperature") or 0.0), 0.1)}
        second = self._call(prompt.name, retry, cooler, parse, feedback=True)
        still = _named(output_problems(second, reference=reference, instructions=instructions))
        if still:
            self._meter.record(prompt.name, PromptUsage(fell_back=1))
            raise LLMError(f"{self.model} wrote degenerate text for prompt {prompt.name!r} twice: {'; '.join(still[:3])}")
        return second

    def choose_action(self, system: str, context: str, tools: list[ToolSpec]) -> ActionChoice:
        """Ask the model which tool to run next and with which arguments.

        Native tool calling when the model supports it (see `tool_mode`), otherwise a JSON-schema
        constrained choice; both are validated against the tools' argument schemas.
        """
        if not tools:
            raise LLMError("choose_action needs at least one tool to choose from.")
        messages = [{"role": "system", "content": system}, {"role": "user", "content": context}]
        if self.tool_mode() == "native":
            params: dict[str, Any] = {
                "temperature": 0.0,
                "tools": [
                    {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                    for t in tools
                ],
                "tool_choice": "required",
            }

            def parse(message: Any) -> ActionChoice:
                calls = getattr(message, "tool_calls", None) or []
                if not calls:
                    raise InvalidOutput("no tool call in the answer", message.content)
                fn = calls[0].function
                try:
                    args = json.loads(fn.arguments or "{}")
                except json.JSONDecodeError as exc:
                    raise InvalidOutput(f"tool arguments are not JSON: {exc}", fn.arguments) from exc
                if not isinstance(args, dict):
                    raise InvalidOutput("tool arguments are not an object", fn.arguments)
                choice = ActionChoice(tool=fn.name or "", arguments=args, reason=(message.content or "")[:_REASON_MAX])
                return validate_action(choice, tools)

            return self._call(ACTION_PROMPT_NAME, messages, params, parse, feedback=False)

        menu = "\n".join(f"- {t.name}: {t.description}" for t in tools)
        messages[0]["content"] = (
            f"{system}\n\nTools:\n{menu}\n\nChoose the next tool and its arguments, with a one-sentence "
            f"reason. {_JSON_ONLY}"
        )
        params = {
            "temperature": 0.0,
            "max_tokens": 256,
            "response_format": {"type": "json_schema", "json_schema": {"name": ACTION_PROMPT_NAME, "schema": action_schema(tools)}},
        }

        def parse_json(message: Any) -> ActionChoice:
            content = message.content
            if not content:
                raise InvalidOutput("empty answer", content)
            try:
                choice = ActionChoice.model_validate_json(content)
            except ValidationError as exc:
                raise InvalidOutput(_short_validation_error(exc), content) from exc
            return validate_action(choice, tools)

        return self._call(ACTION_PROMPT_NAME, messages, params, parse_json, feedback=True)

    def _accepts_seed(self) -> bool:
        """Whether litellm passes a seed to this model's provider (some providers reject one)."""
        if self._seed_ok is None:
            try:
                self._seed_ok = "seed" in (litellm.get_supported_openai_params(model=self.model) or [])
            except Exception:  # litellm raises for models it has never heard of
                self._seed_ok = False
        return self._seed_ok

    def tool_mode(self) -> Literal["native", "json"]:
        """Which choose_action path this model uses."""
        if self.tool_calling != "auto":
            return self.tool_calling
        try:
            return "native" if litellm.supports_function_calling(self.model) else "json"
        except Exception:  # litellm raises for models it has never heard of
            return "json"

    # ---- the shared request / validation / retry path ----------------------------------------

    def _call(
        self,
        name: str,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        parse: Callable[[Any], T],
        *,
        feedback: bool,
    ) -> T:
        record = PromptUsage(calls=1)
        started = time.perf_counter()
        convo = list(messages)
        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception_type((InvalidOutput, _TransientError)),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    record.attempts += 1
                    try:
                        return parse(self._complete(name, convo, params, record))
                    except InvalidOutput as exc:
                        if feedback:
                            # Show the model its own answer and what was wrong with it.
                            convo = [
                                *messages,
                                {"role": "assistant", "content": (exc.raw or "")[:2000]},
                                {"role": "user", "content": f"That answer was invalid ({exc}). {_JSON_ONLY}"},
                            ]
                        raise
        except InvalidOutput as exc:
            record.failures += 1
            raise LLMError(
                f"{self.model} gave no valid answer to prompt {name!r} in {record.attempts} attempt(s): {exc}"
            ) from exc
        except _TransientError as exc:
            record.failures += 1
            raise LLMError(
                f"{self.model} failed on prompt {name!r} after {record.attempts} attempt(s): {exc.__cause__ or exc}"
            ) from exc
        except LLMError:
            record.failures += 1
            raise
        finally:
            record.seconds = time.perf_counter() - started
            self._meter.record(name, record)
        raise AssertionError("unreachable: tenacity either returns or reraises")  # pragma: no cover

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, InvalidOutput):
            return 0.0  # a fresh sample is what helps, not waiting
        return min(_MAX_WAIT_S, self.retry_backoff_s * (2 ** (state.attempt_number - 1)))

    def _complete(self, name: str, messages: list[dict[str, Any]], params: dict[str, Any], record: PromptUsage) -> Any:
        """One litellm request; returns the first choice's message and adds usage to `record`."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout_s,
            "num_retries": 0,  # retries are ours (tenacity), so they are counted and validated
            "metadata": {PROMPT_METADATA_KEY: name},
            **self._extra,
            **params,
        }
        if self.seed is not None and self._accepts_seed():
            # With a fixed seed the same prompt gets the same answer on a rerun; a retry
            # moves to the next seed, since the same sample would fail the same way.
            kwargs["seed"] = self.seed + record.attempts - 1
        base = self.api_base()
        if base is not None:
            kwargs["api_base"] = base
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:
            if _is_transient(exc):
                raise _TransientError(str(exc)) from exc
            raise LLMError(_permanent_error_message(self.model, exc)) from exc
        usage = getattr(response, "usage", None)
        if usage is not None:
            record.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            record.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        cost = _cost(response, self.model)
        if cost is not None:
            record.cost_usd = (record.cost_usd or 0.0) + cost
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise InvalidOutput("the response had no choices", None)
        message = choices[0].message
        if getattr(choices[0], "finish_reason", None) == "length" and not getattr(message, "tool_calls", None):
            raise InvalidOutput(
                f"the answer was cut at max_tokens={params.get('max_tokens')}; be more concise", message.content
            )
        return message


def _named(fields: dict[str, list[str]]) -> list[str]:
    """'field problem' lines from output_problems, for the model and the error message."""
    return [f"{path} {p}" for path, problems in fields.items() for p in problems]


def _cost(response: Any, model: str) -> float | None:
    try:
        cost = litellm.completion_cost(completion_response=response, model=model)
    except Exception:  # unpriced model (embedded, local servers, the fake)
        return None
    return float(cost) if cost else None


def _short_validation_error(exc: ValidationError) -> str:
    errs = exc.errors()[:3]
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in errs)


def _permanent_error_message(model: str, exc: Exception) -> str:
    kind = type(exc).__name__
    if isinstance(exc, litellm.AuthenticationError):
        hint = "set the provider's API key environment variable (e.g. OPENAI_API_KEY)"
    elif isinstance(exc, litellm.ContextWindowExceededError):
        hint = "the prompt is longer than the model's context; raise llm.context_size or use a larger model"
    elif isinstance(exc, litellm.NotFoundError):
        hint = "check llm.model (a litellm model string such as openai/gpt-4o-mini)"
    else:
        hint = "check llm.model, llm.api_base and the provider's status"
    return f"{model} refused the request ({kind}: {str(exc)[:300]}); {hint}."
