"""Each report carries the LLM usage of its own investigation, not the running total of the
process-wide gateway it shares with earlier or concurrent investigations."""

from __future__ import annotations

import threading

from claimscope.agent.investigation import Investigator, investigate
from claimscope.agent.llm.usage import PromptUsage, UsageMeter, usage_scope
from claimscope.agent.services import Services
from tests.investigation_fixtures import CLAIM, make_services


def _fresh_services(base: Services) -> Services:
    """What `investigate()` builds per call: the LLM not yet touched by these services."""
    return Services(base.settings, _store=base._store, _embedder=base._embedder, _stance=base._stance)


def test_successive_investigations_in_one_process_each_report_their_own_usage(tmp_path, monkeypatch):
    import claimscope.agent.llm as llm_mod

    base = make_services(tmp_path)
    shared = base._llm
    monkeypatch.setattr(llm_mod, "get_llm", lambda settings: shared)
    reports = [investigate(CLAIM, services=_fresh_services(base), corpora=["fixture"], sources=["local"], depth=1)
               for _ in range(3)]
    calls = [r.usage.calls for r in reports]
    tokens = [r.usage.prompt_tokens + r.usage.completion_tokens for r in reports]
    assert calls[0] > 0 and tokens[0] > 0
    assert calls == [calls[0]] * 3 and tokens == [tokens[0]] * 3, (calls, tokens)
    assert shared.usage.calls == sum(calls)  # outside a run the gateway still gives the process's total


def test_concurrent_investigations_do_not_see_each_others_calls(tmp_path):
    base = make_services(tmp_path)
    alone = Investigator(base, persistent=False).run(CLAIM, _opts()).report["usage"]["calls"]
    results: dict[str, int] = {}

    def work(name: str) -> None:
        results[name] = Investigator(base, persistent=False).run(CLAIM, _opts()).report["usage"]["calls"]

    threads = [threading.Thread(target=work, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"a": alone, "b": alone}


def test_a_scope_counts_only_its_own_records():
    meter = UsageMeter()
    meter.record("p", PromptUsage(calls=5))
    with usage_scope():
        meter.record("p", PromptUsage(calls=2, prompt_tokens=10))
        assert meter.snapshot().calls == 2 and meter.snapshot().by_prompt["p"].prompt_tokens == 10
        assert meter.total().calls == 7
    assert meter.snapshot().calls == 7


def _opts():
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1)

