"""Every scenario of the fault benchmark (evals/faults.py) as a test: a clear message or a sane
report, no traceback, nothing stored lost."""

from __future__ import annotations

import pytest

from evals import faults

KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("name", [n for n, _, _ in faults.SCENARIOS])
def test_scenario_survives(name, request):
    if name in KNOWN:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN[name]))
    fn = next(f for n, _, f in faults.SCENARIOS if n == name)
    out = fn()
    assert not out.traceback_shown, out.message
    assert not out.data_lost, out.message
    assert out.survived, out.message


def test_the_fake_key_never_appears():
    faults._collected.clear()
    for name in ("llm_timeout_on_every_prompt", "scholarly_429", "disk_full_writing_the_report"):
        next(f for n, _, f in faults.SCENARIOS if n == name)()
    assert faults._collected
    assert not [o for o in faults._collected if faults.FAKE_KEY in o]
