"""Creating the collection, and upgrading collections made before the whole-abstract keyword
vectors existed ("bm25_doc"; resumable through a marker in the collection metadata).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.sparse import SparseVec
from claimscope.tools.store.core import _StoreCore
from claimscope.tools.store.layout import (
    _UPGRADE_MARK,
    DENSE,
    SPARSE,
    SPARSE_DOC,
)
from claimscope.tools.store.mirror import _MIRRORS

log = logging.getLogger(__name__)


class _SchemaMixin(_StoreCore):
    """Collection creation and schema upgrade."""

    def _ensure_collection(self) -> bool:
        """Open or create the collection; True if an existing one needs the document keyword
        vectors added or finished."""
        c = self.client
        if c.collection_exists(self.collection):
            info = c.get_collection(self.collection)
            vecs = info.config.params.vectors
            size = vecs[DENSE].size if isinstance(vecs, dict) and DENSE in vecs else None
            if size != self.embedder.dim:
                raise InputError(
                    f"collection {self.collection!r} holds {size}-dimensional vectors but the embedding "
                    f"model gives {self.embedder.dim}; use the model it was built with, another "
                    "store.collection, or delete the store directory."
                )
            if not self.keyword_documents:
                return False
            has_vector = SPARSE_DOC in (info.config.params.sparse_vectors or {})
            return not has_vector or (info.config.metadata or {}).get(_UPGRADE_MARK) == "filling"
        sparse_cfg = {SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
        if self.keyword_documents:
            sparse_cfg[SPARSE_DOC] = qm.SparseVectorParams(modifier=qm.Modifier.IDF)
        c.create_collection(
            self.collection,
            vectors_config={DENSE: qm.VectorParams(size=self.embedder.dim, distance=qm.Distance.COSINE)},
            sparse_vectors_config=sparse_cfg,
        )
        if not self._is_local:
            for key, schema in (("type", qm.PayloadSchemaType.KEYWORD), ("corpus", qm.PayloadSchemaType.KEYWORD),
                                ("doc_id", qm.PayloadSchemaType.KEYWORD), ("source", qm.PayloadSchemaType.KEYWORD),
                                ("year", qm.PayloadSchemaType.INTEGER)):
                c.create_payload_index(self.collection, key, field_schema=schema)
        return False

    def _doc_keywords(self, title: str, sentences: Sequence[str]) -> SparseVec:
        """The "bm25_doc" vector of a document (at ingest and when upgrading old collections)."""
        return self.bm25_doc.encode_document(" ".join([title, *sentences]))

    def _upgrade_keyword_documents(self) -> None:
        """Add and fill "bm25_doc" in a collection made before it existed (see module docstring)."""
        c = self.client
        config = qm.SparseVectorNameConfig(sparse=qm.SparseVectorConfig(modifier=qm.Modifier.IDF))
        try:
            if SPARSE_DOC not in (c.get_collection(self.collection).config.params.sparse_vectors or {}):
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
        _MIRRORS.pop((self._key, self.collection, "doc"), None)
        log.warning("collection %r upgraded in %.0f s (%d documents)", self.collection, time.perf_counter() - t0,
                    filled)

    def _relax_local_durability(self) -> None:
        """Local mode commits one SQLite transaction per point with a full fsync (~20 ms each on
        a busy disk). WAL + synchronous=NORMAL keeps the file consistent on a crash and makes
        bulk ingest ~50x faster; only the last commits can be lost on a power cut."""
        try:
            con = self.client._client.collections[self.collection].storage.storage  # type: ignore[attr-defined]
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
        except (AttributeError, KeyError) as exc:  # a future client layout: just slower
            log.debug("could not relax local durability: %s", exc)
