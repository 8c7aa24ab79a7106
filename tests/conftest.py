"""Shared fixtures: every test runs with its own data_dir, offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach a model hub or the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from claimscope.agent.settings import Settings, get_settings, packaged_config_path

    # The packaged defaults, whatever config.yaml or CLAIMSCOPE_<SECTION>__<KEY> the shell has.
    monkeypatch.setenv("CLAIMSCOPE_CONFIG", str(packaged_config_path()))
    for name in list(os.environ):
        field = name.upper().removeprefix("CLAIMSCOPE_").split("__")[0].lower()
        if name.upper().startswith("CLAIMSCOPE_") and field in Settings.model_fields:
            monkeypatch.delenv(name)
    data_dir = tmp_path / "claimscope-data"
    monkeypatch.setenv("CLAIMSCOPE_DATA_DIR", str(data_dir))

    get_settings.cache_clear()
    return data_dir


@pytest.fixture
def settings():
    from claimscope.agent.settings import get_settings

    return get_settings()


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """`claimscope ARGS` through the real entry point (which turns user errors into exit code 2):
    its exit code and everything it printed."""
    import sys

    from claimscope.agent.cli import main

    monkeypatch.setattr(sys, "argv", ["claimscope", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return int(exc.value.code or 0), captured.out + captured.err


@pytest.fixture
def stubbed_steps(monkeypatch):
    """The real graph and checkpointer on trivial step bodies (tests/fixtures/sessions/stub_steps.py)
    with a hashed embedder: sessions run, start to end, without a model."""
    import claimscope.agent.resources as res
    from tests.fakes import HashEmbedder
    from tests.fixtures.sessions import stub_steps

    stub_steps.install(monkeypatch)
    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    yield stub_steps
    res.close_stores()
