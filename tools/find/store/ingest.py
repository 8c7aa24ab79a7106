"""Ingest: documents deduplicated within a corpus (by id, DOI and content hash), split into
segments, embedded and written in batches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.find.store.edge import EdgeClient
from claimscope.tools.find.store.layout import (
    DENSE,
    SPARSE,
    SPARSE_DOC,
    IngestStats,
    _norm_doi,
    corpus_point_id,
    doc_point_id,
    seg_point_id,
    segment_document,
)
from claimscope.tools.find.store.schema import _SchemaMixin
from claimscope.tools.models import (
    Document,
    Segment,
)


class _IngestMixin(_SchemaMixin):
    """Writing documents into a corpus."""

    def _existing_keys(self, corpus: str) -> tuple[set[str], set[str], set[str]]:
        ids: set[str] = set()
        dois: set[str] = set()
        hashes: set[str] = set()
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value="doc")),
                              qm.FieldCondition(key="corpus", match=qm.MatchValue(value=corpus))])
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, scroll_filter=flt, limit=2048, offset=offset,
                                                with_payload=["doc_id", "doi", "content_hash"], with_vectors=False)
            for p in points:
                pl = p.payload or {}
                ids.add(pl.get("doc_id", ""))
                if pl.get("doi"):
                    dois.add(pl["doi"])
                if pl.get("content_hash"):
                    hashes.add(pl["content_hash"])
            if offset is None:
                break
        return ids, dois, hashes

    def add_documents(self, docs: Iterable[Document], corpus: str,
                      progress: Callable[[int], None] | None = None) -> IngestStats:
        """Index documents into `corpus`; idempotent (documents already there by id, DOI or
        content hash are skipped). `progress(n)` is called with the number of documents just
        handled, batch by batch."""
        corpus = corpus.strip()
        if not corpus:
            raise InputError("a corpus name is required (e.g. --corpus papers).")
        t0 = time.perf_counter()
        ids, dois, hashes = self._existing_keys(corpus)
        added = skipped = n_segments = 0
        pending: list[tuple[Document, list[Segment]]] = []
        pending_handled = 0
        pending_segs = 0

        def flush() -> None:
            nonlocal pending, pending_segs, pending_handled, n_segments
            if pending:
                n_segments += self._write(pending, corpus)
            if progress is not None and pending_handled:
                progress(pending_handled)
            pending, pending_segs, pending_handled = [], 0, 0

        self.client.upsert(self.collection, points=[qm.PointStruct(
            id=corpus_point_id(corpus), vector={}, payload={"type": "corpus", "corpus": corpus})], wait=True)
        for doc in docs:
            pending_handled += 1
            doi = _norm_doi(doc.doi)
            h = doc.content_hash
            if doc.id in ids or (doi and doi in dois) or h in hashes:
                skipped += 1
            else:
                ids.add(doc.id)
                hashes.add(h)
                if doi:
                    dois.add(doi)
                segs = segment_document(doc, self.granularities, self.title_in_embedding)
                pending.append((doc, segs))
                pending_segs += len(segs)
                added += 1
            if pending_segs >= self.batch_size or pending_handled >= self.batch_size:
                flush()
        flush()
        if isinstance(self.client, EdgeClient):
            # Builds the HNSW index and merges the small segments the batches left behind (also
            # after an ingest that added nothing: the one before it may have stopped short of this).
            self.client.optimize(self.collection)
        return IngestStats(added=added, skipped_duplicates=skipped, segments=n_segments,
                           seconds=round(time.perf_counter() - t0, 3))

    def _write(self, batch: list[tuple[Document, list[Segment]]], corpus: str) -> int:
        points = self._points(batch, corpus)
        self.client.upsert(self.collection, points=points, wait=True)
        return sum(len(ss) for _, ss in batch)

    def _points(self, batch: list[tuple[Document, list[Segment]]], corpus: str) -> list[qm.PointStruct]:
        """The segment and document points of a batch, embedded."""
        segs = [s for _, ss in batch for s in ss]
        dense = self.embedder.encode([s.embed_text for s in segs]) if segs else np.zeros((0, self.embedder.dim))
        sparse_vecs = [self.bm25.encode_document(s.embed_text) for s in segs]
        meta = {d.id: d for d, _ in batch}
        points: list[qm.PointStruct] = []
        for i, s in enumerate(segs):
            d = meta[s.doc_id]
            payload = {"type": "seg", "corpus": corpus, "doc_id": d.id, "kind": s.kind, "start": s.start,
                       "end": s.end, "text": s.text, "embed_text": s.embed_text, "year": d.year,
                       "source": str(d.source)}
            pid = seg_point_id(corpus, d.id, s.start, s.end)
            vec: dict[str, Any] = {DENSE: dense[i].tolist()}
            if sparse_vecs[i].indices:
                vec[SPARSE] = qm.SparseVector(indices=sparse_vecs[i].indices, values=sparse_vecs[i].values)
            points.append(qm.PointStruct(id=pid, vector=vec, payload=payload))
        for d, ss in batch:
            payload = {
                "type": "doc", "corpus": corpus, "doc_id": d.id, "doi": _norm_doi(d.doi),
                "content_hash": d.content_hash, "year": d.year, "source": str(d.source),
                "segments": len(ss), "document": d.model_dump(mode="json", exclude={"content_hash"}),
            }
            vec = {}
            if self.keyword_documents:
                kw = self._doc_keywords(d.title, d.sentences)
                if kw.indices:
                    vec[SPARSE_DOC] = qm.SparseVector(indices=kw.indices, values=kw.values)
            points.append(qm.PointStruct(id=doc_point_id(corpus, d.id), vector=vec, payload=payload))
        return points
