"""Process-wide factories for the heavy shared resources, built from Settings.

The embedding model takes seconds to load and the embedded store may be opened once per process,
so every part of the agent (CLI, graph nodes, MCP server) gets these from here.
"""

from __future__ import annotations

import threading

from claimscope.agent.settings import Settings
from claimscope.tools.find.embeddings import Embedder, load_embedder
from claimscope.tools.find.store import EvidenceStore

_STORES: dict[tuple[object, ...], EvidenceStore] = {}
_LOCK = threading.Lock()


def get_embedder(settings: Settings) -> Embedder:
    """The shared sentence embedder for settings.embeddings."""
    e = settings.embeddings
    return load_embedder(e.model, e.batch_size, e.threads, backend=e.backend,
                         cache_dir=settings.resolve(settings.llm.model_dir) / "embeddings")


def _store_key(settings: Settings) -> tuple[object, ...]:
    s = settings.store
    where = ("url", s.url) if s.url else ("path", str(settings.resolve(s.path)))
    return (*where, s.api_key, s.cluster.model_dump_json(), s.collection, s.fusion, s.rrf_k, s.prefetch, s.doc_aggregation, s.batch_size, s.keyword_documents,
            settings.embeddings.model, settings.embeddings.batch_size, settings.embeddings.threads,
            settings.embeddings.backend)


def get_store(settings: Settings) -> EvidenceStore:
    """The shared evidence store for settings.store (local directory under data_dir, or a server)."""
    key = _store_key(settings)
    with _LOCK:
        store = _STORES.get(key)
        if store is None:
            s = settings.store
            store = EvidenceStore(
                get_embedder(settings),
                path=None if s.url else settings.resolve(s.path),
                url=s.url,
                collection=s.collection,
                fusion=s.fusion,
                rrf_k=s.rrf_k,
                prefetch=s.prefetch,
                doc_aggregation=s.doc_aggregation,
                batch_size=s.batch_size,
                keyword_documents=s.keyword_documents,
                cluster=s.cluster,
                api_key=s.api_key,
                payload_memory=s.payload_memory,
                quantization=s.quantization,
            )
            _STORES[key] = store
        return store


def close_stores() -> None:
    """Close every shared store (releases the embedded store's directory lock)."""
    with _LOCK:
        for store in _STORES.values():
            store.close()
        _STORES.clear()
