"""The LLM gateway (litellm): `get_llm(settings)` gives the process-wide gateway for the configured
model, the embedded Qwen2.5-Coder by default.

The scripted fake model for tests lives in `claimscope.agent.llm.fake` (`scripted_llm(script)`, the
same gateway code path); nothing in the product imports it.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import threading
from typing import Any

from claimscope import prompts
from claimscope.agent.llm.embedded import EmbeddedModelError, get_server, get_spec
from claimscope.agent.llm.gateway import ACTION_PROMPT_NAME, LLMGateway
from claimscope.agent.llm.usage import PromptUsage, Usage
from claimscope.agent.settings import Settings
from claimscope.prompts.base import Prompt
from claimscope.tools.llm import ActionChoice, LLMError, ToolSpec
from claimscope.tools.read.claim_analysis import decomposition

__all__ = [
    "ACTION_PROMPT_NAME",
    "ActionChoice",
    "EmbeddedModelError",
    "LLMError",
    "LLMGateway",
    "PromptUsage",
    "ToolSpec",
    "Usage",
    "build_gateway",
    "discover_prompts",
    "embedded_server",
    "get_llm",
]

log = logging.getLogger(__name__)

# Key the embedded model's requests are sent with; llama.cpp's server ignores it but the OpenAI
# client refuses to send a request without one.
_LOCAL_KEY = "sk-no-key-required"

_CACHE: dict[str, LLMGateway] = {}
_CACHE_LOCK = threading.Lock()


def embedded_server(settings: Settings) -> Any:
    """The process-wide embedded server for these settings (the GGUF is assembled if needed)."""
    llm = settings.llm
    return get_server(get_spec(llm.embedded_model), settings.resolve(llm.model_dir), llm.context_size, llm.threads)


def build_gateway(settings: Settings) -> LLMGateway:
    """A new gateway for the configured model (prefer `get_llm`, which shares one per process)."""
    llm = settings.llm
    common: dict[str, Any] = {
        "max_attempts": llm.max_attempts,
        "timeout_s": llm.timeout_s,
        "retry_backoff_s": llm.retry_backoff_s,
        "tool_calling": llm.tool_calling,
        "seed": llm.seed,
        "guard_text": llm.guard_text,
    }
    if llm.model == "embedded":
        spec = get_spec(llm.embedded_model)
        return LLMGateway(
            f"openai/{spec.alias}",
            api_base_factory=lambda: embedded_server(settings).start(),
            api_key=_LOCAL_KEY,
            **common,
        )
    return LLMGateway(llm.model, api_base=llm.api_base, **common)


def get_llm(settings: Settings) -> LLMGateway:
    """The process-wide gateway for this model configuration (built once, shared by threads)."""
    key = f"{settings.data_dir}|{settings.llm.model_dump_json()}"
    with _CACHE_LOCK:
        gateway = _CACHE.get(key)
        if gateway is None:
            gateway = _CACHE[key] = build_gateway(settings)
        return gateway


# Prompts whose benchmark inputs rest on a rule in tools/ (prompts sit below tools and cannot run it):
# the tools module that calls the prompt builds them.
BENCH_INPUTS_FROM_TOOLS = {"decompose": decomposition.bench_inputs}


def discover_prompts() -> dict[str, tuple[Prompt[Any, Any], Any]]:
    """Every prompts/ module defining PROMPT and bench_inputs(claim) (or with its bench inputs in
    BENCH_INPUTS_FROM_TOOLS): name -> (PROMPT, bench_inputs)."""
    found: dict[str, tuple[Prompt[Any, Any], Any]] = {}
    for info in sorted(pkgutil.iter_modules(prompts.__path__), key=lambda m: m.name):
        if info.name == "base":
            continue
        try:
            mod = importlib.import_module(f"claimscope.prompts.{info.name}")
        except Exception as exc:  # one broken prompt module must not hide the others
            log.warning("skipping prompts.%s: %s: %s", info.name, type(exc).__name__, exc)
            continue
        prompt = getattr(mod, "PROMPT", None)
        bench = getattr(mod, "bench_inputs", None) or BENCH_INPUTS_FROM_TOOLS.get(info.name)
        if isinstance(prompt, Prompt) and callable(bench):
            found[prompt.name] = (prompt, bench)
    return found
