"""The embedding cache: repeated texts (queries, segments ranked for several nodes) encoded once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from claimscope.tools.models import Embedder


class CachedEmbedder:
    """Wraps an Embedder so repeated texts (queries, segments ranked for several nodes) are encoded
    once. Pass one instance through a whole run to share the cache across steps."""

    def __init__(self, embedder: Embedder) -> None:
        self._inner = embedder
        self._cache: dict[str, np.ndarray] = {}

    @property
    def dim(self) -> int:
        return self._inner.dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vectors = np.asarray(self._inner.encode(missing), dtype=np.float32)
            for text, vec in zip(missing, vectors, strict=True):
                self._cache[text] = vec
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def cached(embedder: Embedder) -> CachedEmbedder:
    """`embedder` itself if it already caches, else a caching wrapper for the duration of a call."""
    return embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
