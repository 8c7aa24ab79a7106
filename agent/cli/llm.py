"""`claimscope llm info` and `claimscope llm check`: which model is configured, and does
it start and answer one structured prompt."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.console import Console

from claimscope.agent.cli.root import app
from claimscope.tools.errors import InputError

llm_app = typer.Typer(help="Inspect and check the configured LLM.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")

console = Console(soft_wrap=True)

DEFAULT_CHECK_CLAIM = "Vitamin D supplementation reduces the risk of fractures in older adults."
# The check prefers the shortest structured call the pipeline makes.
_PREFERRED_CHECK_PROMPTS = ("anti_claim", "perspective", "takeaway")


@llm_app.command("info")
def info() -> None:
    """Show the configured model, how it is reached, and the embedded model's cache state."""
    from claimscope.agent.llm import build_gateway
    from claimscope.agent.llm.embedded import default_threads, get_spec, marker_path
    from claimscope.agent.settings import get_settings

    settings = get_settings()
    cfg = settings.llm
    gateway = build_gateway(settings)
    rows: dict[str, object] = {
        "model": cfg.model,
        "litellm model": gateway.model,
        "tool calling": f"{cfg.tool_calling} -> {gateway.tool_mode()}",
        "max attempts": cfg.max_attempts,
        "timeout (s)": cfg.timeout_s,
    }
    if cfg.model == "embedded":
        spec = get_spec(cfg.embedded_model)
        path = settings.resolve(cfg.model_dir) / spec.filename
        marker = marker_path(path)
        state = "not assembled yet (assembled on first use)"
        if path.is_file() and marker.is_file():
            sha = json.loads(marker.read_text(encoding="utf-8")).get("sha256", "")
            state = f"assembled, sha256 {sha[:12]}..., {path.stat().st_size / 1e9:.2f} GB"
        rows.update({
            "embedded model": spec.key,
            "gguf": str(path),
            "state": state,
            "context size": cfg.context_size,
            "threads": cfg.threads or f"{default_threads()} (all cores)",
        })
    else:
        rows["api base"] = cfg.api_base or "(provider default)"
    for key, value in rows.items():
        console.print(f"[bold]{key:>15}[/]  {value}")


@llm_app.command("check")
def check(
    prompt: Annotated[str | None, typer.Option("--prompt", "-p", help="Prompt name from prompts/ (default: the shortest).")] = None,
    claim: Annotated[str, typer.Option("--claim", help="Claim the prompt's inputs are built from.")] = DEFAULT_CHECK_CLAIM,
) -> None:
    """Start the configured model and run one structured prompt; print the validated answer and usage."""
    from claimscope.agent.llm import discover_prompts, get_llm
    from claimscope.agent.settings import get_settings

    found = discover_prompts()
    if not found:
        raise InputError("no prompt in prompts/ defines PROMPT and bench_inputs(claim); nothing to check.")
    if prompt is None:
        prompt = next((p for p in _PREFERRED_CHECK_PROMPTS if p in found), sorted(found)[0])
    if prompt not in found:
        raise InputError(f"unknown prompt {prompt!r}; choose one of: {', '.join(sorted(found))}.")
    the_prompt, bench_inputs = found[prompt]
    if not claim.strip():
        raise InputError("--claim must not be empty.")
    gateway = get_llm(get_settings())
    t0 = time.perf_counter()
    with console.status(f"starting {gateway.model}..."):
        gateway.api_base()
    started = time.perf_counter() - t0
    t1 = time.perf_counter()
    with console.status(f"running prompt {prompt!r}..."):
        answer = gateway.run(the_prompt, bench_inputs(claim))
    elapsed = time.perf_counter() - t1
    usage = gateway.usage
    console.print(f"[green]ok[/] {gateway.model}: started in {started:.1f} s, prompt {prompt!r} answered in {elapsed:.1f} s "
                  f"({usage.attempts} attempt(s), {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"
                  + (f", ${usage.cost_usd:.5f}" if usage.cost_usd is not None else "") + ")")
    console.print_json(answer.model_dump_json())
