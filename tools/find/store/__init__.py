"""The evidence store: documents split into segments, indexed in Qdrant for hybrid retrieval.

Layout of the Qdrant collection (one collection holds every corpus; `corpus` is a payload field):

- a *segment point* per retrievable span (by default one per sentence), with a dense vector
  ("dense", cosine, embedding of the title prepended to the sentence) and a keyword vector ("bm25",
  a sparse vector with Qdrant's IDF modifier, see tools/find/sparse.py); payload: type="seg", corpus,
  doc_id, kind, start, end, text, embed_text, year, source.
- a *document point* per document, whose only vector is a keyword vector of the whole title +
  abstract ("bm25_doc", IDF over documents); payload: type="doc", corpus, doc_id, doi,
  content_hash, year, source and the whole `Document` (so metadata round-trips exactly).
- a *corpus point* per corpus (type="corpus"), so corpora can be listed cheaply.

Point ids are UUID5s of (corpus, doc_id, span), so every point can be fetched by id without a scan
and re-ingesting a document rewrites the same points. Documents are deduplicated within a corpus by
id, DOI and content hash.

Retrieval fuses a dense and a keyword ranking (reciprocal rank fusion, Qdrant's formula
1 / (k + rank - 1) with rank counted from 1) and ranks documents by aggregating their segments.
fusion="rrf" fuses segments (Qdrant Query API prefetch + RRF), fusion="doc_rrf" fuses document
rankings: documents by their best sentence in the dense list, and by the keyword vector of the
whole abstract. Keywords score better over whole abstracts than over single sentences, while
dense vectors do better per sentence (evals/results/retrieval_scifact.md), hence this pairing.

Collections made before "bm25_doc" existed are upgraded when opened: the vector is added to the
schema and filled from the documents stored in the payloads (a marker in the collection metadata
lets an interrupted upgrade resume). Where that is impossible (a Qdrant server older than 1.18),
the store ranks documents by their best sentence in the keyword list instead and says so in
`EvidenceStore.warnings`.

Engines (tools/find/store/engine.py). `path=` runs Qdrant Edge in-process (tools/find/store/edge.py: one
shard per collection; stores made by Qdrant's local mode are moved to it once, resumably, by
tools/find/store/migrate.py). `url=` talks to a Qdrant server or cluster (start one with
`docker run -p 6333:6333 qdrant/qdrant`). Every query runs in Qdrant in both cases, through the
same code: the Edge client offers the part of QdrantClient's interface the store uses.

One module per concern: layout (vector names, point ids, records), engine (which Qdrant serves the
store), edge (the embedded engine), migrate (local mode -> Edge), schema (creation and upgrade),
ingest, search (fusion), store (the EvidenceStore object that joins them). Import from the
package: its names are re-exported here.
"""

from claimscope.tools.find.store.engine import ClusterParams
from claimscope.tools.find.store.layout import (
    AGGREGATIONS,
    DENSE,
    DOC_AVG_LEN,
    FUSIONS,
    GRANULARITIES,
    SPARSE,
    SPARSE_DOC,
    CorpusInfo,
    IngestStats,
    SearchFilter,
    corpus_point_id,
    doc_point_id,
    rrf_score,
    seg_point_id,
    segment_document,
)
from claimscope.tools.find.store.store import EvidenceStore

__all__ = [
    "AGGREGATIONS", "DENSE", "DOC_AVG_LEN", "FUSIONS", "ClusterParams", "GRANULARITIES", "SPARSE", "SPARSE_DOC", "CorpusInfo",
    "EvidenceStore", "IngestStats", "SearchFilter", "corpus_point_id", "doc_point_id", "rrf_score",
    "seg_point_id", "segment_document",
]
