"""Creating the collection (moving a store made by Qdrant's local mode to Qdrant Edge first), and
upgrading collections made before the whole-abstract keyword vectors existed ("bm25_doc";
resumable through a marker in the collection metadata).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.find.sparse import SparseVec
from claimscope.tools.find.store.core import _StoreCore
from claimscope.tools.find.store.edge import EdgeClient
from claimscope.tools.find.store.layout import (
    _UPGRADE_MARK,
    DENSE,
    SPARSE,
    SPARSE_DOC,
)
from claimscope.tools.find.store.migrate import migrate_local_mode, needs_migration

log = logging.getLogger(__name__)


class _SchemaMixin(_StoreCore):
    """Collection creation and schema upgrade."""

    def _ensure_collection(self) -> bool:
        """Open or create the collection (moving a local-mode store to Qdrant Edge first); True if
        an existing one needs the document keyword vectors added or finished."""
        c = self.client
        if isinstance(c, EdgeClient) and needs_migration(c.root, self.collection, c):
            migrate_local_mode(c.root, self.collection, c, doc_keywords=self._doc_keywords,
                               with_doc_keywords=self.keyword_documents)
        if c.collection_exists(self.collection):
            size, sparse, metadata = self._collection_shape()
            if size != self.embedder.dim:
                raise InputError(
                    f"collection {self.collection!r} holds {size}-dimensional vectors but the embedding "
                    f"model gives {self.embedder.dim}; use the model it was built with, another "
                    "store.collection, or delete the store directory."
                )
            if isinstance(c, EdgeClient):
                c.open(self.collection)
            if not self.keyword_documents:
                return False
            return SPARSE_DOC not in sparse or metadata.get(_UPGRADE_MARK) == "filling"
        sparse_cfg = {SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
        if self.keyword_documents:
            sparse_cfg[SPARSE_DOC] = qm.SparseVectorParams(modifier=qm.Modifier.IDF)
        dense_cfg = {DENSE: qm.VectorParams(size=self.embedder.dim, distance=qm.Distance.COSINE)}
        if isinstance(c, EdgeClient):
            c.create_collection(self.collection, dense_cfg, sparse_cfg, payload_memory=self.payload_memory,
                                quantization=self.quantization)
            return False
        c.create_collection(self.collection, vectors_config=dense_cfg, sparse_vectors_config=sparse_cfg,
                            **self.cluster.model_dump(exclude_none=True))
        for key, schema in (("type", qm.PayloadSchemaType.KEYWORD), ("corpus", qm.PayloadSchemaType.KEYWORD),
                            ("doc_id", qm.PayloadSchemaType.KEYWORD), ("source", qm.PayloadSchemaType.KEYWORD),
                            ("doi", qm.PayloadSchemaType.KEYWORD), ("year", qm.PayloadSchemaType.INTEGER)):
            c.create_payload_index(self.collection, key, field_schema=schema)
        return False

    def _collection_shape(self) -> tuple[int | None, set[str], dict[str, Any]]:
        """The collection's dense vector size, sparse vector names and metadata."""
        c = self.client
        if isinstance(c, EdgeClient):
            m = c.manifest(self.collection)
            return m.dense_size, set(m.sparse), m.metadata
        info = c.get_collection(self.collection)
        vecs = info.config.params.vectors
        size = vecs[DENSE].size if isinstance(vecs, dict) and DENSE in vecs else None
        return size, set(info.config.params.sparse_vectors or {}), dict(info.config.metadata or {})

    def _doc_keywords(self, title: str, sentences: Sequence[str]) -> SparseVec:
        """The "bm25_doc" vector of a document (at ingest and when upgrading old collections)."""
        return self.bm25_doc.encode_document(" ".join([title, *sentences]))

    def _upgrade_keyword_documents(self) -> None:
        """Add and fill "bm25_doc" in a collection made before it existed (see module docstring)."""
        c = self.client
        config = qm.SparseVectorNameConfig(sparse=qm.SparseVectorConfig(modifier=qm.Modifier.IDF))
        try:
            if SPARSE_DOC not in self._collection_shape()[1]:
                # Marked first: a crash after the vector exists but before it is filled must resume.
                c.update_collection(self.collection, metadata={_UPGRADE_MARK: "filling"})
                c.create_vector_name(self.collection, SPARSE_DOC, config)
        except Exception as exc:  # any refusal (old server, read-only API key) degrades, never fails
            self.keyword_documents = False
            self.warnings.append(
                f"the collection {self.collection!r} predates whole-abstract keyword vectors and could not be "
                f"upgraded ({type(exc).__name__}: {str(exc)[:200]}); documents are ranked by their best "
                "keyword sentence instead, which finds fewer relevant abstracts. Use Qdrant >= 1.18, or "
                "ingest into a new store.collection.")
            log.warning(self.warnings[-1])
            return
        t0 = time.perf_counter()
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value="doc"))])
        log.warning("one-time upgrade of collection %r: adding whole-abstract keyword vectors to its %d documents",
                    self.collection, c.count(self.collection, count_filter=flt, exact=True).count)
        offset = None
        filled = 0
        while True:
            points, offset = c.scroll(self.collection, scroll_filter=flt, limit=512, offset=offset,
                                      with_payload=["document"], with_vectors=False)
            updates = []
            for p in points:
                d = (p.payload or {}).get("document") or {}
                kw = self._doc_keywords(d.get("title") or "", d.get("sentences") or [])
                if kw.indices:
                    updates.append(qm.PointVectors(id=p.id, vector={
                        SPARSE_DOC: qm.SparseVector(indices=kw.indices, values=kw.values)}))
            if updates:
                c.update_vectors(self.collection, points=updates, wait=True)
                filled += len(updates)
            if offset is None:
                break
        c.update_collection(self.collection, metadata={_UPGRADE_MARK: "done"})
        log.warning("collection %r upgraded in %.0f s (%d documents)", self.collection, time.perf_counter() - t0,
                    filled)
