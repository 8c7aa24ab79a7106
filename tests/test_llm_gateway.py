"""The gateway's request / validation / retry / tool-choice / usage logic, through the scripted
litellm provider (no model, no network)."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel, Field

from claimscope.agent.llm import (
    ACTION_PROMPT_NAME,
    ActionChoice,
    LLMError,
    LLMGateway,
    ToolSpec,
    build_gateway,
    discover_prompts,
    get_llm,
)
from claimscope.agent.llm.fake import (
    ToolCall,
    Truncated,
    auth_error,
    rate_limited,
    scripted_llm,
    server_error,
    timeout,
)
from claimscope.agent.llm.gateway import action_schema
from claimscope.agent.settings import load_settings
from claimscope.prompts.base import Prompt


class ClaimIn(BaseModel):
    claim: str


class AntiOut(BaseModel):
    anti_claim: str = Field(min_length=1, max_length=40)


PROMPT = Prompt(
    name="anti_test",
    system="Negate claims.",
    template="Claim: {claim}",
    input_model=ClaimIn,
    output_model=AntiOut,
    max_tokens=64,
    examples=[(ClaimIn(claim="A causes B."), AntiOut(anti_claim="A does not cause B."))],
)

SEARCH = ToolSpec(
    name="search",
    description="Search the literature.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
FINISH = ToolSpec(name="finish", description="Stop.", parameters={"type": "object", "properties": {}})


def test_valid_answer_is_validated_model_and_request_is_schema_constrained():
    llm = scripted_llm({"anti_test": [{"anti_claim": "X is false."}]})
    out = llm.run(PROMPT, ClaimIn(claim="X is true."))
    assert out == AntiOut(anti_claim="X is false.")
    req = llm.scripted.requests[0]
    fmt = req["params"]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"]["properties"]["anti_claim"]["maxLength"] == 40
    assert req["params"]["temperature"] == PROMPT.temperature
    assert req["params"]["max_tokens"] == 64
    roles = [m["role"] for m in req["messages"]]
    # system, one few-shot pair, then the real question
    assert roles == ["system", "user", "assistant", "user"]
    assert req["messages"][-1]["content"] == "Claim: X is true."


def test_invalid_then_valid_retries_with_feedback():
    llm = scripted_llm({"anti_test": ["{not json", {"anti_claim": "y" * 80}, {"anti_claim": "ok"}]})
    assert llm.run(PROMPT, ClaimIn(claim="c")).anti_claim == "ok"
    assert llm.scripted.calls == ["anti_test"] * 3
    second = llm.scripted.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "{not json"}
    assert "invalid" in second[-1]["content"]
    third = llm.scripted.requests[2]["messages"]
    assert "at most 40 characters" in third[-1]["content"]
    usage = llm.usage.by_prompt["anti_test"]
    assert (usage.calls, usage.attempts, usage.failures) == (1, 3, 0)


def test_always_invalid_raises_llm_error_after_max_attempts():
    llm = scripted_llm({"anti_test": ["nope"]}, max_attempts=3)
    with pytest.raises(LLMError, match="no valid answer to prompt 'anti_test' in 3 attempt"):
        llm.run(PROMPT, ClaimIn(claim="c"))
    assert len(llm.scripted.requests) == 3
    assert llm.usage.failures == 1


def test_truncated_answer_counts_as_invalid():
    llm = scripted_llm({"anti_test": [Truncated('{"anti_claim": "cut'), {"anti_claim": "fine"}]})
    assert llm.run(PROMPT, ClaimIn(claim="c")).anti_claim == "fine"
    assert "max_tokens" in llm.scripted.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("error", [timeout, rate_limited, server_error])
def test_transient_error_is_retried(error):
    llm = scripted_llm({"anti_test": [error(), {"anti_claim": "ok"}]})
    assert llm.run(PROMPT, ClaimIn(claim="c")).anti_claim == "ok"
    # a transient failure is retried with the original conversation, no feedback turn
    assert llm.scripted.requests[1]["messages"] == llm.scripted.requests[0]["messages"]


def test_timeout_every_time_raises_llm_error():
    llm = scripted_llm({"anti_test": [timeout()]}, max_attempts=2)
    with pytest.raises(LLMError, match="after 2 attempt"):
        llm.run(PROMPT, ClaimIn(claim="c"))


def test_permanent_error_is_not_retried_and_says_what_to_do():
    llm = scripted_llm({"anti_test": [auth_error(), {"anti_claim": "never reached"}]})
    with pytest.raises(LLMError, match="API key"):
        llm.run(PROMPT, ClaimIn(claim="c"))
    assert len(llm.scripted.requests) == 1


def test_backoff_waits_only_for_transient_errors(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr("tenacity.nap.time.sleep", waits.append)
    llm = scripted_llm({"anti_test": ["bad", timeout(), timeout(), {"anti_claim": "ok"}]}, max_attempts=4, retry_backoff_s=0.5)
    llm.run(PROMPT, ClaimIn(claim="c"))
    # invalid output -> no wait; then exponential backoff for the two timeouts
    assert [w for w in waits if w > 0] == [1.0, 2.0]


def test_usage_accumulates_per_prompt_and_resets():
    llm = scripted_llm({"anti_test": [{"anti_claim": "a b c"}], "other": [{"anti_claim": "d"}]})
    other = PROMPT.model_copy(update={"name": "other"})
    llm.run(PROMPT, ClaimIn(claim="one two"))
    llm.run(PROMPT, ClaimIn(claim="one two"))
    llm.run(other, ClaimIn(claim="x"))
    usage = llm.usage
    assert usage.calls == 3 and usage.attempts == 3
    assert usage.by_prompt["anti_test"].calls == 2
    assert usage.by_prompt["other"].calls == 1
    assert usage.prompt_tokens == sum(u.prompt_tokens for u in usage.by_prompt.values()) > 0
    assert usage.completion_tokens > 0
    assert usage.cost_usd is None  # the fake model has no price
    old = llm.reset_usage()
    assert old.calls == 3
    assert llm.usage.calls == 0 and llm.usage.by_prompt == {}


def test_cost_is_summed_when_litellm_knows_the_price(monkeypatch):
    monkeypatch.setattr("claimscope.agent.llm.gateway.litellm.completion_cost", lambda **_: 0.25)
    llm = scripted_llm({"anti_test": [{"anti_claim": "a"}]})
    llm.run(PROMPT, ClaimIn(claim="c"))
    llm.run(PROMPT, ClaimIn(claim="c"))
    assert llm.usage.cost_usd == pytest.approx(0.5)


def test_concurrent_runs_are_all_counted():
    llm = scripted_llm({"anti_test": lambda messages: {"anti_claim": messages[-1]["content"].removeprefix("Claim: ")}})
    results: list[str] = []

    def work(i: int) -> None:
        results.append(llm.run(PROMPT, ClaimIn(claim=f"claim {i:03d}")).anti_claim)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f"claim {i:03d}" for i in range(8))
    assert llm.usage.calls == 8


def test_choose_action_json_path():
    llm = scripted_llm(
        {ACTION_PROMPT_NAME: [{"tool": "search", "arguments": {"query": "vitamin d"}, "reason": "start"}]},
        tool_calling="json",
    )
    choice = llm.choose_action("plan", "nothing yet", [SEARCH, FINISH])
    assert choice == ActionChoice(tool="search", arguments={"query": "vitamin d"}, reason="start")
    params = llm.scripted.requests[0]["params"]
    assert "tools" not in params
    branches = params["response_format"]["json_schema"]["schema"]["anyOf"]
    assert [b["properties"]["tool"]["const"] for b in branches] == ["search", "finish"]


def test_choose_action_json_path_rejects_unknown_tool_and_bad_arguments_then_recovers():
    llm = scripted_llm(
        {
            ACTION_PROMPT_NAME: [
                {"tool": "delete_everything", "arguments": {}, "reason": ""},
                {"tool": "search", "arguments": {"query": 3}, "reason": ""},
                {"tool": "finish", "arguments": {}, "reason": "done"},
            ]
        }
    )
    assert llm.choose_action("plan", "ctx", [SEARCH, FINISH]).tool == "finish"
    feedback = [r["messages"][-1]["content"] for r in llm.scripted.requests[1:]]
    assert "unknown tool 'delete_everything'" in feedback[0]
    assert "arguments of 'search' are invalid" in feedback[1]


def test_choose_action_native_path():
    llm = scripted_llm(
        {ACTION_PROMPT_NAME: [ToolCall("search", {"query": "x"}, reason="look first")]}, tool_calling="native"
    )
    choice = llm.choose_action("plan", "ctx", [SEARCH, FINISH])
    assert choice == ActionChoice(tool="search", arguments={"query": "x"}, reason="look first")
    params = llm.scripted.requests[0]["params"]
    assert [t["function"]["name"] for t in params["tools"]] == ["search", "finish"]
    assert "response_format" not in params


def test_choose_action_native_path_validates_and_fails_with_llm_error():
    llm = scripted_llm({ACTION_PROMPT_NAME: [ToolCall("search", {})]}, tool_calling="native", max_attempts=2)
    with pytest.raises(LLMError, match="'query' is a required property"):
        llm.choose_action("plan", "ctx", [SEARCH])
    llm = scripted_llm({ACTION_PROMPT_NAME: ['{"tool": "search"}']}, tool_calling="native", max_attempts=1)
    with pytest.raises(LLMError, match="no tool call"):
        llm.choose_action("plan", "ctx", [SEARCH])


def test_choose_action_needs_tools():
    with pytest.raises(LLMError, match="at least one tool"):
        scripted_llm({}).choose_action("s", "c", [])


def test_tool_mode_auto_follows_litellm():
    assert LLMGateway("gpt-4o-mini").tool_mode() == "native"
    assert LLMGateway("openai/some-local-model").tool_mode() == "json"
    assert LLMGateway("openai/some-local-model", tool_calling="native").tool_mode() == "native"


def test_single_tool_schema_is_not_wrapped():
    assert action_schema([FINISH])["properties"]["tool"] == {"const": "finish"}


def test_get_llm_is_cached_per_model_config_and_lazy(settings):
    a = get_llm(settings)
    assert a is get_llm(settings)
    assert a.model.startswith("openai/qwen2.5-coder-1.5b")
    # nothing is assembled or started until the first call
    assert not (settings.data_dir / "models").exists()
    other = load_settings(llm={"model": "openai/gpt-4o-mini", "max_attempts": 5})
    b = get_llm(other)
    assert b is not a and b.model == "openai/gpt-4o-mini" and b.max_attempts == 5


def test_hosted_model_uses_configured_api_base():
    gw = build_gateway(load_settings(llm={"model": "openai/my-vllm-model", "api_base": "http://localhost:8000/v1"}))
    assert gw.api_base() == "http://localhost:8000/v1"


def test_discover_prompts_finds_project_prompts():
    found = discover_prompts()
    # decompose's bench inputs come from the tool that holds the claim-type rule
    assert {"anti_claim", "decompose", "local_label"} <= set(found)
    for name, (prompt, bench) in found.items():
        assert prompt.name == name
        assert isinstance(bench("Vitamin D prevents fractures."), prompt.input_model)


def test_discover_prompts_skips_a_broken_module(monkeypatch, caplog):
    import importlib

    real = importlib.import_module

    def flaky(name: str, *args, **kwargs):
        if name == "claimscope.prompts.aspects":
            raise SyntaxError("half-edited file")
        return real(name, *args, **kwargs)

    monkeypatch.setattr("claimscope.agent.llm.importlib.import_module", flaky)
    found = discover_prompts()
    assert "aspects" not in found
    assert "skipping prompts.aspects" in caplog.text


def test_seed_is_sent_when_the_provider_accepts_one_and_moves_on_per_attempt(monkeypatch):
    llm = scripted_llm({"anti_test": ["{not json", {"anti_claim": "ok"}, {"anti_claim": "again"}]})
    llm.seed = 7
    monkeypatch.setattr("claimscope.agent.llm.gateway.litellm.get_supported_openai_params", lambda **_: ["seed", "temperature"])
    assert llm.run(PROMPT, ClaimIn(claim="c")).anti_claim == "ok"
    assert [r["params"].get("seed") for r in llm.scripted.requests] == [7, 8]
    llm.run(PROMPT, ClaimIn(claim="c"))
    assert llm.scripted.requests[-1]["params"].get("seed") == 7  # each call starts from the seed


def test_seed_is_not_sent_to_a_provider_that_rejects_it(monkeypatch):
    llm = scripted_llm({"anti_test": [{"anti_claim": "ok"}]})
    llm.seed = 7
    monkeypatch.setattr("claimscope.agent.llm.gateway.litellm.get_supported_openai_params", lambda **_: ["temperature"])
    llm.run(PROMPT, ClaimIn(claim="c"))
    assert "seed" not in llm.scripted.requests[0]["params"]


def test_seed_setting_reaches_the_gateway(tmp_path):
    assert build_gateway(load_settings(data_dir=tmp_path)).seed == 0
    assert build_gateway(load_settings(data_dir=tmp_path, llm={"seed": None})).seed is None
