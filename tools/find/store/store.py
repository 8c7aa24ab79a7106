"""The evidence store object: opening and closing, reads by id, DOI and sentence key, and corpora."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.find.sparse import BM25Encoder
from claimscope.tools.find.store.edge import PAYLOAD_MEMORY, QUANTIZATION
from claimscope.tools.find.store.engine import ClusterParams, close_engine, open_engine
from claimscope.tools.find.store.ingest import _IngestMixin
from claimscope.tools.find.store.layout import (
    AGGREGATIONS,
    DOC_AVG_LEN,
    FUSIONS,
    GRANULARITIES,
    CorpusInfo,
    _Hit,
    _norm_doi,
    seg_point_id,
    segment_document,
)
from claimscope.tools.find.store.search import _SearchMixin
from claimscope.tools.models import (
    Document,
    Embedder,
    Segment,
    SentenceKey,
)


class EvidenceStore(_IngestMixin, _SearchMixin):
    """Documents and their segments in Qdrant, searched by hybrid dense + keyword retrieval."""

    def __init__(self, embedder: Embedder, *, path: Path | None = None, url: str | None = None,
                 collection: str = "claimscope", fusion: str = "rrf", rrf_k: int = 60,
                 prefetch: int = 200, doc_aggregation: str = "max", batch_size: int = 256,
                 granularities: Sequence[str] = ("sentence",), title_in_embedding: bool = True,
                 bm25: BM25Encoder | None = None, keyword_documents: bool = True,
                 cluster: ClusterParams | None = None, api_key: str | None = None,
                 payload_memory: str = "cached", quantization: str = "int8") -> None:
        if fusion not in FUSIONS:
            raise InputError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}.")
        if doc_aggregation not in AGGREGATIONS:
            raise InputError(f"unknown doc_aggregation {doc_aggregation!r}; use one of {', '.join(AGGREGATIONS)}.")
        if payload_memory not in PAYLOAD_MEMORY:
            raise InputError(f"unknown payload_memory {payload_memory!r}; use one of {', '.join(PAYLOAD_MEMORY)}.")
        if quantization not in QUANTIZATION:
            raise InputError(f"unknown quantization {quantization!r}; use one of {', '.join(QUANTIZATION)}.")
        bad = [g for g in granularities if g not in GRANULARITIES]
        if bad or not granularities:
            raise InputError(f"granularities must be a non-empty subset of {GRANULARITIES}, got {list(granularities)}.")
        self.embedder = embedder
        self.collection = collection
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.prefetch = prefetch
        self.doc_aggregation = doc_aggregation
        self.batch_size = batch_size
        self.granularities = tuple(granularities)
        self.title_in_embedding = title_in_embedding
        self.bm25 = bm25 or BM25Encoder()
        self.bm25_doc = BM25Encoder(k1=self.bm25.k1, b=self.bm25.b, avg_len=DOC_AVG_LEN)
        self.keyword_documents = keyword_documents
        self.cluster = cluster or ClusterParams()
        self.payload_memory = payload_memory
        self.quantization = quantization
        # Degraded-operation notices for the user (the investigation copies them into its report).
        self.warnings: list[str] = []
        self._key, self.client = open_engine(path, url, api_key)
        self._closed = False
        try:
            upgrade = self._ensure_collection()
            if upgrade:
                self._upgrade_keyword_documents()
        except BaseException:
            # Release our share of the engine, or the local directory stays locked for this process.
            self.close()
            raise

    def close(self) -> None:
        """Release this store's share of the engine (closed with the last store on the path)."""
        if not self._closed:
            self._closed = True
            close_engine(self.client)

    def __enter__(self) -> EvidenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_documents(self, doc_ids: Sequence[str], corpus: str | None = None) -> list[Document]:
        """Documents by id, in the order asked; ids not found are left out. Without `corpus`, the
        first corpus (by name) holding an id wins."""
        found: dict[str, Document] = {}
        for name in self._corpus_names(corpus):
            missing = [d for d in doc_ids if d not in found]
            if not missing:
                break
            for (_, did), doc in self._fetch_docs([(name, d) for d in missing]).items():
                found.setdefault(did, doc)
        return [found[d] for d in doc_ids if d in found]

    def find_by_doi(self, doi: str, corpus: str | None = None) -> list[Document]:
        """Documents whose DOI matches (case-insensitive, 'https://doi.org/' prefix ignored)."""
        norm = _norm_doi(doi)
        if not norm:
            return []
        must: list[qm.Condition] = [qm.FieldCondition(key="type", match=qm.MatchValue(value="doc")),
                                    qm.FieldCondition(key="doi", match=qm.MatchValue(value=norm))]
        if corpus is not None:
            must.append(qm.FieldCondition(key="corpus", match=qm.MatchValue(value=corpus)))
        points, _ = self.client.scroll(self.collection, scroll_filter=qm.Filter(must=must), limit=10,
                                       with_payload=["doc_id", "corpus"], with_vectors=False)
        keys = [((p.payload or {}).get("corpus", ""), (p.payload or {}).get("doc_id", "")) for p in points]
        return list(self._fetch_docs(keys).values())

    def get_segment(self, key: str, corpus: str | None = None) -> Segment | None:
        """A segment by its cite key ('docid#3' or 'docid#0-4'), or None."""
        found = self.get_segments([key], corpus)
        return found[0] if found else None

    def get_segments(self, keys: Sequence[str], corpus: str | None = None) -> list[Segment]:
        """Segments by cite key, in the order asked, one lookup per corpus; keys not found are
        left out. Without `corpus`, the first corpus (by name) holding a key wins."""
        spans = {key: SentenceKey.parse(key) for key in dict.fromkeys(keys)}
        found: dict[str, Segment] = {}
        for name in self._corpus_names(corpus):
            missing = [k for k in spans if k not in found]
            if not missing:
                break
            ids = {seg_point_id(name, *spans[k]): k for k in missing}
            for pt in self.client.retrieve(self.collection, ids=list(ids), with_payload=True):
                found.setdefault(ids[str(pt.id)], self._to_segment_hit(_Hit(str(pt.id), 0.0, pt.payload or {})).segment)
        return [found[k] for k in spans if k in found]

    def segments_of(self, doc_id: str, corpus: str | None = None) -> list[Segment]:
        """Every segment of a document, sentences in order (then any coarser spans)."""
        for name in self._corpus_names(corpus):
            docs = self._fetch_docs([(name, doc_id)])
            if not docs:
                continue
            doc = docs[(name, doc_id)]
            spans = [(s.start, s.end) for s in segment_document(doc, self.granularities, self.title_in_embedding)]
            spans = spans or [(i, i + 1) for i in range(len(doc.sentences))]
            pts = self.client.retrieve(self.collection, ids=[seg_point_id(name, doc_id, a, b) for a, b in spans],
                                       with_payload=True)
            segs = [self._to_segment_hit(_Hit(str(p.id), 0.0, p.payload or {})).segment for p in pts]
            segs.sort(key=lambda s: (s.kind != "sentence", s.start, s.end))
            return segs
        return []

    def corpora(self) -> list[CorpusInfo]:
        """Every corpus with its document and segment counts, by name."""
        return [CorpusInfo(name=c.name, documents=self._count(c.name, "doc"), segments=self._count(c.name, "seg"))
                for c in self._corpus_points()]

    def delete_corpus(self, name: str) -> int:
        """Delete a corpus and everything in it; returns how many documents were removed (0 if
        there was no such corpus)."""
        if name not in {c.name for c in self._corpus_points()}:
            return 0
        n_docs = self._count(name, "doc")
        flt = qm.Filter(must=[qm.FieldCondition(key="corpus", match=qm.MatchValue(value=name))])
        self.client.delete(self.collection, points_selector=qm.FilterSelector(filter=flt), wait=True)
        return n_docs
