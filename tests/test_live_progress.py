"""Long work stays visible: plain periodic lines when stderr is not a terminal (a log, CI, a
container), and a step's warnings (an unreachable source) shown while the run goes on."""

from __future__ import annotations

import sys

import pytest

from claimscope.agent.cli.progress import PlainProgress
from claimscope.agent.investigation import Investigator
from tests.investigation_fixtures import CLAIM, CORPUS, make_services


def _opts():
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1)


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    from claimscope.agent.cli import main

    monkeypatch.setattr(sys, "argv", ["claimscope", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return int(exc.value.code or 0), captured.out, captured.err


def test_plain_progress_writes_every_tenth_and_every_interval():
    now = [0.0]
    lines: list[str] = []
    p = PlainProgress("ingesting", 100, lines.append, every_s=5, clock=lambda: now[0])
    for _ in range(25):
        p.advance(1)
    assert lines == ["ingesting: 10/100 (10%), 0 s", "ingesting: 20/100 (20%), 0 s"]
    now[0] = 6.0
    p.advance(1)
    assert lines[-1] == "ingesting: 26/100 (26%), 6 s"
    for _ in range(74):
        p.advance(1)
    assert lines[-1] == "ingesting: 100/100 (100%), 6 s" and len(lines) == 11


def test_ingest_off_a_terminal_prints_plain_progress_lines(monkeypatch, capsys):
    import claimscope.agent.resources as res
    from tests.fakes import HashEmbedder

    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    try:
        code, out, err = run_main(monkeypatch, capsys, "ingest", str(CORPUS), "--corpus", "fx")
    finally:
        res.close_stores()
    assert code == 0, err
    assert "ingesting: " in err and "(100%)" in err, err
    assert "\x1b[" not in err  # no live-display escapes in a log


def test_investigate_off_a_terminal_says_which_step_is_still_running(monkeypatch, capsys):
    import claimscope.agent.resources as res
    from tests.fakes import HashEmbedder
    from tests.fixtures.sessions import stub_steps

    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    stub_steps.install(monkeypatch, delay=0.8)
    monkeypatch.setenv("CLAIMSCOPE_PROGRESS_SECONDS", "0.1")
    code, out, err = run_main(monkeypatch, capsys, "investigate", "Green tea prevents colds", "-f", "json",
                              "--sources", "semantic_scholar")  # something to search; the stub steps never do
    assert code == 0, err
    assert "… still in analyse (" in err and "… still in report (" in err, err


def test_an_unreachable_source_is_announced_in_the_live_progress(tmp_path):
    import httpx

    from claimscope.tools.find.scholarly import ScholarlySearch

    def offline(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("network is unreachable", request=request)

    services = make_services(tmp_path)
    services._scholarly = ScholarlySearch(cache_dir=None, s2_transport=httpx.MockTransport(offline),
                                          sleep=lambda s: None, s2_min_interval_s=0, max_retries=0)
    events = []
    opts = _opts().model_copy(update={"sources": ["local", "semantic_scholar"]})
    result = Investigator(services, persistent=False).run(CLAIM, opts, on_event=events.append)
    assert result.report is not None
    kinds = [(e.kind, e.step) for e in events]
    warned = [i for i, e in enumerate(events) if e.kind == "warning" and "could not be reached" in e.message]
    assert warned, [e.message for e in events if e.kind == "warning"]
    # Announced while the run goes on: before the next step starts, not only in the report.
    assert warned[0] < kinds.index(("step_started", "grow_hierarchy"))
    assert len([e for e in events if e.kind == "warning" and e.message == events[warned[0]].message]) == 1
