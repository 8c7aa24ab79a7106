"""The store's shared state and the lookups its parts share: documents by key, corpus names,
Qdrant filters and the conversion of stored points to segments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qdrant_client import models as qm

from claimscope.tools.find.sparse import BM25Encoder
from claimscope.tools.find.store.edge import EdgeClient
from claimscope.tools.find.store.engine import Client, ClusterParams
from claimscope.tools.find.store.layout import (
    CorpusInfo,
    SearchFilter,
    _Hit,
    doc_point_id,
)
from claimscope.tools.models import (
    Document,
    Embedder,
    Segment,
    SegmentHit,
)


class _StoreCore:
    """What every part of the store shares: its configuration, its client, and the lookups the
    ingest, search and read paths all use. EvidenceStore sets these attributes in __init__."""

    embedder: Embedder
    collection: str
    fusion: str
    rrf_k: int
    prefetch: int
    doc_aggregation: str
    batch_size: int
    granularities: tuple[str, ...]
    title_in_embedding: bool
    bm25: BM25Encoder
    bm25_doc: BM25Encoder
    keyword_documents: bool
    cluster: ClusterParams
    payload_memory: str
    quantization: str
    warnings: list[str]
    client: Client
    _key: str
    _closed: bool

    @property
    def location(self) -> str:
        """The local directory or server URL this store uses."""
        return self._key.split(":", 1)[1]

    @property
    def embedded(self) -> bool:
        """True for the in-process engine (Qdrant Edge), False for a Qdrant server."""
        return isinstance(self.client, EdgeClient)

    def _qdrant_filter(self, flt: SearchFilter | None, kind: str = "seg") -> qm.Filter:
        must: list[Any] = [qm.FieldCondition(key="type", match=qm.MatchValue(value=kind))]
        if flt is not None:
            if flt.corpora is not None:
                must.append(qm.FieldCondition(key="corpus", match=qm.MatchAny(any=list(flt.corpora))))
            if flt.sources is not None:
                must.append(qm.FieldCondition(key="source", match=qm.MatchAny(any=[str(s) for s in flt.sources])))
            if flt.doc_ids is not None:
                must.append(qm.FieldCondition(key="doc_id", match=qm.MatchAny(any=list(flt.doc_ids))))
            if flt.year_min is not None or flt.year_max is not None:
                must.append(qm.FieldCondition(key="year", range=qm.Range(gte=flt.year_min, lte=flt.year_max)))
        return qm.Filter(must=must)

    @staticmethod
    def _to_segment_hit(h: _Hit) -> SegmentHit:
        p = h.payload
        seg = Segment(doc_id=p["doc_id"], start=p["start"], end=p["end"], text=p["text"],
                      embed_text=p["embed_text"], kind=p.get("kind", "sentence"))
        return SegmentHit(segment=seg, score=h.score, corpus=p.get("corpus", ""))

    def _fetch_docs(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Document]:
        if not keys:
            return {}
        pts = self.client.retrieve(self.collection, ids=[doc_point_id(c, d) for c, d in keys], with_payload=True)
        out: dict[tuple[str, str], Document] = {}
        for p in pts:
            pl = p.payload or {}
            out[(pl["corpus"], pl["doc_id"])] = Document.model_validate(pl["document"])
        return out

    def _corpus_names(self, corpus: str | None) -> list[str]:
        if corpus is not None:
            return [corpus]
        return [c.name for c in self._corpus_points()]

    def _corpus_points(self) -> list[CorpusInfo]:
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value="corpus"))])
        points, _ = self.client.scroll(self.collection, scroll_filter=flt, limit=10_000, with_payload=True)
        names = sorted({(p.payload or {}).get("corpus", "") for p in points} - {""})
        return [CorpusInfo(name=n, documents=0, segments=0) for n in names]

    def _count(self, corpus: str, type_: str) -> int:
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value=type_)),
                              qm.FieldCondition(key="corpus", match=qm.MatchValue(value=corpus))])
        return self.client.count(self.collection, count_filter=flt, exact=True).count
