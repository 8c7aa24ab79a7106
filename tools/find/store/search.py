"""Fused search: the dense and keyword rankings (from Qdrant: Edge in-process, or a server),
reciprocal rank fusion of segments or of document rankings, and documents ranked by aggregating
their segments.
"""

from __future__ import annotations

import logging
from typing import Any

from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.find.store.core import _StoreCore
from claimscope.tools.find.store.layout import (
    DENSE,
    SPARSE,
    SPARSE_DOC,
    SearchFilter,
    _Hit,
    rrf_fuse,
)
from claimscope.tools.models import (
    DocumentHit,
    SegmentHit,
)

log = logging.getLogger(__name__)


def _hits(points: list[Any]) -> list[_Hit]:
    """Qdrant's points as hits, best first. Qdrant orders equal scores by its segment layout, which
    differs between two stores of the same content (one built fresh, one upgraded in place): ties
    are ordered by point id, so the same content always ranks the same."""
    return sorted((_Hit(str(p.id), float(p.score), p.payload or {}) for p in points),
                  key=lambda h: (-h.score, h.point_id))


class _SearchMixin(_StoreCore):
    """Hybrid retrieval of segments and documents."""

    def _ranked_lists(self, query: str, flt: SearchFilter | None, limit: int) -> tuple[list[_Hit], list[_Hit]]:
        """The dense and the keyword ranking of segments (each up to `limit`)."""
        use_dense = self.fusion != "sparse"
        use_sparse = self.fusion != "dense"
        qd = self.embedder.encode([query])[0] if use_dense else None
        qs = self.bm25.encode_query(query) if use_sparse else None
        qf = self._qdrant_filter(flt)
        out: list[list[_Hit]] = []
        for using, q in ((DENSE, qd.tolist() if qd is not None else None),
                         (SPARSE, qm.SparseVector(indices=qs.indices, values=qs.values)
                          if qs is not None and qs.indices else None)):
            if q is None:
                out.append([])
                continue
            res = self.client.query_points(self.collection, query=q, using=using, query_filter=qf,
                                           limit=limit, with_payload=True)
            out.append(_hits(res.points))
        return out[0], out[1]

    def _keyword_documents(self, query: str, flt: SearchFilter | None, limit: int) -> list[tuple[tuple[str, str], float]]:
        """Documents ranked by the keyword vector of their whole title + abstract."""
        qs = self.bm25_doc.encode_query(query)
        if not qs.indices:
            return []
        res = self.client.query_points(self.collection, query=qm.SparseVector(indices=qs.indices, values=qs.values),
                                       using=SPARSE_DOC, query_filter=self._qdrant_filter(flt, "doc"), limit=limit,
                                       with_payload=["corpus", "doc_id"])
        return [((h.payload.get("corpus", ""), h.payload.get("doc_id", "")), h.score) for h in _hits(res.points)]

    def _fused_segments(self, query: str, flt: SearchFilter | None, limit: int,
                        candidates: int | None = None) -> list[_Hit]:
        """Segments ranked by the configured fusion (doc_rrf fuses segments like rrf here);
        `candidates` per ranking before fusion (default: the prefetch setting)."""
        candidates = max(candidates or self.prefetch, limit if self.fusion in ("dense", "sparse") else 0)
        if self.fusion in ("rrf", "doc_rrf"):
            return self._qdrant_rrf(query, flt, limit, candidates)
        dense, sparse = self._ranked_lists(query, flt, candidates)
        if self.fusion == "dense":
            return dense[:limit]
        if self.fusion == "sparse":
            return sparse[:limit]
        return self._fuse_hits(dense, sparse)[:limit]

    def _fuse_hits(self, *rankings: list[_Hit]) -> list[_Hit]:
        """Segment hits of several rankings fused by RRF, best first, with their fused score."""
        hits: dict[str, _Hit] = {}
        for ranking in rankings:
            for h in ranking:
                hits.setdefault(h.point_id, h)
        fused = rrf_fuse([[h.point_id for h in ranking] for ranking in rankings], self.rrf_k)
        return [_Hit(pid, s, hits[pid].payload) for pid, s in fused]

    def _qdrant_rrf(self, query: str, flt: SearchFilter | None, limit: int, candidates: int) -> list[_Hit]:
        qd = self.embedder.encode([query])[0].tolist()
        qs = self.bm25.encode_query(query)
        qf = self._qdrant_filter(flt)
        prefetch = [qm.Prefetch(query=qd, using=DENSE, filter=qf, limit=candidates)]
        if qs.indices:
            prefetch.append(qm.Prefetch(query=qm.SparseVector(indices=qs.indices, values=qs.values),
                                        using=SPARSE, filter=qf, limit=candidates))
        res = self.client.query_points(self.collection, prefetch=prefetch,
                                       query=qm.RrfQuery(rrf=qm.Rrf(k=self.rrf_k)), limit=limit,
                                       with_payload=True)
        return _hits(res.points)

    def search_segments(self, query: str, k: int = 50, flt: SearchFilter | None = None) -> list[SegmentHit]:
        """The k best segments for `query` (doc_rrf fuses segments like rrf here)."""
        if not query.strip():
            raise InputError("the search query is empty.")
        return [self._to_segment_hit(h) for h in self._fused_segments(query, flt, k)]

    def _aggregate(self, scores: list[float]) -> float:
        scores = sorted(scores, reverse=True)
        if self.doc_aggregation == "sum_top2":
            return sum(scores[:2])
        return scores[0]

    def _doc_ranking(self, hits: list[_Hit]) -> list[tuple[tuple[str, str], float]]:
        per_doc: dict[tuple[str, str], list[float]] = {}
        for h in hits:
            per_doc.setdefault((h.payload.get("corpus", ""), h.payload["doc_id"]), []).append(h.score)
        ranked = [(key, self._aggregate(s)) for key, s in per_doc.items()]
        ranked.sort(key=lambda kv: (-kv[1], kv[0]))  # equal scores in a fixed order, whatever the store layout
        return ranked

    def search(self, query: str, k: int = 10, flt: SearchFilter | None = None,
               sentences_per_doc: int = 3) -> list[DocumentHit]:
        """Documents ranked by aggregating their segments' scores, each with its best segments."""
        if not query.strip():
            raise InputError("the search query is empty.")
        # Documents have several segments each, so enough segments are fetched to rank k documents.
        n = max(self.prefetch, 10 * k)
        if self.fusion == "doc_rrf":
            dense, sparse = self._ranked_lists(query, flt, n)
            doc_lists = [self._doc_ranking(dense),
                         self._keyword_documents(query, flt, n) if self.keyword_documents else self._doc_ranking(sparse)]
            doc_order = rrf_fuse([[key for key, _ in ranking] for ranking in doc_lists], self.rrf_k)[:k]
            # Sentences shown with a document: segment-level RRF over both lists.
            seg_list = self._fuse_hits(dense, sparse)
        else:
            seg_list = self._fused_segments(query, flt, 2 * n, n)
            doc_order = self._doc_ranking(seg_list)[:k]
        by_doc: dict[tuple[str, str], list[_Hit]] = {}
        for h in seg_list:
            by_doc.setdefault((h.payload.get("corpus", ""), h.payload["doc_id"]), []).append(h)
        docs = self._fetch_docs([key for key, _ in doc_order])
        out: list[DocumentHit] = []
        for (key, score) in doc_order:
            doc = docs.get(key)
            if doc is None:  # a document point lost in a crash mid-ingest; never seen in practice
                continue
            segs = [self._to_segment_hit(h) for h in by_doc.get(key, [])[:sentences_per_doc]]
            out.append(DocumentHit(document=doc, score=score, segments=segs, corpus=key[0]))
        return out
