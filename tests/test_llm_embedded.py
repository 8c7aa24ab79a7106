"""The embedded model: assembly from part packages, the sha256 check and its marker, the server
starting exactly once, and (slow) one real structured answer from the packaged Qwen2.5-Coder."""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import types
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from claimscope.agent.llm import EmbeddedModelError, get_llm
from claimscope.agent.llm import embedded as emb
from claimscope.agent.settings import load_settings
from claimscope.prompts.base import Prompt


def _fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], prefix: str = "cs_fake_part") -> list[str]:
    names = []
    for i, data in enumerate(chunks, start=1):
        f = tmp_path / "parts" / f"part{i:02d}.bin"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        mod = types.ModuleType(f"{prefix}{i}")
        mod.get_part_path = lambda f=f: str(f)
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
        names.append(mod.__name__)
    return names


def _spec(names: list[str], sha_prefix: str | None) -> emb.EmbeddedModelSpec:
    return emb.EmbeddedModelSpec(
        key="fake", alias="fake-model", filename="fake.gguf", part_modules=tuple(names),
        pip_hint="pip install fake-parts", sha256_prefix=sha_prefix,
    )


def test_assemble_joins_parts_in_order_verifies_and_reuses(tmp_path, monkeypatch):
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7]
    sha = hashlib.sha256(b"".join(chunks)).hexdigest()
    spec = _spec(_fake_parts(tmp_path, monkeypatch, chunks), sha[:8])
    out = emb.assemble(spec, tmp_path / "models")
    assert out.read_bytes() == b"".join(chunks)
    assert sha in emb.marker_path(out).read_text()
    # A second start trusts the marker: no re-hash (sha256 would fail if called).
    monkeypatch.setattr(emb.hashlib, "sha256", lambda: (_ for _ in ()).throw(AssertionError("re-hashed")))
    assert emb.assemble(spec, tmp_path / "models") == out
    assert not list((tmp_path / "models").glob("*.tmp"))


def test_assemble_redoes_a_truncated_file(tmp_path, monkeypatch):
    chunks = [b"x" * 64, b"y" * 64]
    spec = _spec(_fake_parts(tmp_path, monkeypatch, chunks), hashlib.sha256(b"".join(chunks)).hexdigest()[:8])
    out = emb.assemble(spec, tmp_path / "models")
    out.write_bytes(b"x" * 10)
    assert emb.assemble(spec, tmp_path / "models").read_bytes() == b"".join(chunks)


def test_assemble_rejects_wrong_hash(tmp_path, monkeypatch):
    spec = _spec(_fake_parts(tmp_path, monkeypatch, [b"abc"]), "00000000")
    with pytest.raises(EmbeddedModelError, match="corrupt.*fake-parts"):
        emb.assemble(spec, tmp_path / "models")
    assert not (tmp_path / "models" / "fake.gguf").exists()


def test_missing_parts_say_what_to_install(tmp_path, monkeypatch):
    names = _fake_parts(tmp_path, monkeypatch, [b"abc"])
    spec = _spec([*names, "cs_missing_part2"], None)
    with pytest.raises(EmbeddedModelError, match=r"missing 1 of its 2 parts \(cs-missing-part2\).*pip install fake-parts"):
        emb.assemble(spec, tmp_path / "models")


def test_unknown_embedded_model_is_a_clear_error():
    with pytest.raises(EmbeddedModelError, match="llm.embedded_model"):
        emb.get_spec("llama-70b")


def test_server_starts_exactly_once_across_threads(tmp_path, monkeypatch):
    started: list[object] = []

    class FakeParams:
        def __init__(self) -> None:
            self.model = types.SimpleNamespace(path=None)
            self.cpuparams = types.SimpleNamespace(n_threads=-1)
            self.cpuparams_batch = types.SimpleNamespace(n_threads=-1)

    class FakeServer:
        def __init__(self, params: FakeParams) -> None:
            started.append(params)
            self.listening_address = "http://127.0.0.1:5555"

    monkeypatch.setitem(sys.modules, "xllamacpp", types.SimpleNamespace(CommonParams=FakeParams, Server=FakeServer))
    server = emb.EmbeddedServer(tmp_path / "m.gguf", "alias", context_size=2048, threads=2)
    urls: list[str] = []
    threads = [threading.Thread(target=lambda: urls.append(server.start())) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(started) == 1
    assert set(urls) == {"http://127.0.0.1:5555/v1"}
    params = started[0]
    assert params.n_ctx == 2048 and params.cpuparams.n_threads == 2 and params.hostnames == ["127.0.0.1"]
    server.stop()
    assert not server.running


class YesNoIn(BaseModel):
    question: str


class YesNoOut(BaseModel):
    answer: Literal["yes", "no"]
    why: str = Field(max_length=60)


YES_NO = Prompt(
    name="yes_no_check",
    system="You answer factual questions briefly.",
    template="Question: {question}",
    input_model=YesNoIn,
    output_model=YesNoOut,
    max_tokens=48,
)


@pytest.mark.slow
def test_real_embedded_model_returns_validated_answer(monkeypatch):
    """Starts the packaged Qwen2.5-Coder-1.5B (assembling it into the user's model cache if needed,
    so reruns do not copy 1 GB again) and gets a schema-valid answer."""
    try:
        emb.part_paths(emb.get_spec("qwen2.5-coder-1.5b"))
    except EmbeddedModelError as exc:
        pytest.skip(str(exc))
    model_dir = os.environ.get("CLAIMSCOPE_TEST_MODEL_DIR", str(Path("~/.claimscope/models").expanduser()))
    settings = load_settings(llm={"model": "embedded", "model_dir": model_dir, "context_size": 1024})
    llm = get_llm(settings)
    out = llm.run(YES_NO, YesNoIn(question="Is water wet?"))
    assert isinstance(out, YesNoOut)
    usage = llm.usage
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
