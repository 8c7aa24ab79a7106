"""The evidence store: documents split into segments, indexed in Qdrant for hybrid retrieval.

Layout of the Qdrant collection (one collection holds every corpus; `corpus` is a payload field):

- a *segment point* per retrievable span (by default one per sentence), with a dense vector
  ("dense", cosine, embedding of the title prepended to the sentence) and a keyword vector ("bm25",
  a sparse vector with Qdrant's IDF modifier, see tools/sparse.py); payload: type="seg", corpus,
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

Backends. `url=` talks to a Qdrant server (start one with
`docker run -p 6333:6333 qdrant/qdrant`) and runs every query in Qdrant. `path=` uses Qdrant's
embedded local mode, whose search is a brute-force Python loop (~1 s per hybrid query at 50k
points) and which allows only ONE client per directory per process: this module therefore keeps
one client per path (shared by every store object on that path, closed with the last one), and
mirrors the vectors in an in-process numpy/scipy index for search (exact, same scores and fusion
as Qdrant; checked against Qdrant's own query path in tests/test_store.py). Qdrant stays the
store of record; the mirror is rebuilt from it when a process first searches.
"""

from __future__ import annotations

import atexit
import logging
import math
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from scipy import sparse as sp

from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.models import (
    Document,
    DocumentHit,
    Embedder,
    Segment,
    SegmentHit,
    SentenceKey,
    SourceKind,
)
from claimscope.tools.sparse import BM25Encoder, SparseVec

log = logging.getLogger(__name__)

DENSE = "dense"
SPARSE = "bm25"
SPARSE_DOC = "bm25_doc"
# Mean title + abstract length in tokens (SciFact: 152), the BM25 length norm of whole documents.
DOC_AVG_LEN = 150.0
# Collection metadata key set while "bm25_doc" is being filled in an older collection.
_UPGRADE_MARK = "claimscope_bm25_doc_upgrade"
FUSIONS = ("rrf", "doc_rrf", "dense", "sparse")
AGGREGATIONS = ("max", "sum_top2")
GRANULARITIES = ("sentence", "paragraph")
_NS = uuid.UUID("6f1d3c2a-0b7e-4c55-9a43-5d1c1f0e2b77")

# Qdrant local mode warns above 20k points because its own search is brute force; we search the
# numpy mirror instead, so the warning would only confuse users.
warnings.filterwarnings("ignore", message="Local mode is not recommended")


class SearchFilter(BaseModel):
    """Payload filters applied to every retrieval; None means no constraint."""

    corpora: list[str] | None = None
    year_min: int | None = None
    year_max: int | None = None
    sources: list[SourceKind] | None = None
    doc_ids: list[str] | None = None


class IngestStats(BaseModel):
    """What one `add_documents` call did."""

    added: int
    skipped_duplicates: int
    segments: int
    seconds: float


class CorpusInfo(BaseModel):
    name: str
    documents: int
    segments: int


def _point_id(*parts: object) -> str:
    return str(uuid.uuid5(_NS, "\x00".join(str(p) for p in parts)))


def doc_point_id(corpus: str, doc_id: str) -> str:
    return _point_id("doc", corpus, doc_id)


def seg_point_id(corpus: str, doc_id: str, start: int, end: int) -> str:
    return _point_id("seg", corpus, doc_id, start, end)


def corpus_point_id(corpus: str) -> str:
    return _point_id("corpus", corpus)


def _norm_doi(doi: str | None) -> str | None:
    if not doi:
        return None
    d = doi.strip().lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "http://dx.doi.org/", "doi:"):
        if d.startswith(prefix):
            d = d[len(prefix):]
    return d or None


def segment_document(doc: Document, granularities: Sequence[str] = ("sentence",),
                     title_in_embedding: bool = True) -> list[Segment]:
    """The retrievable spans of a document, each with the text that is embedded.

    The title is prepended to every span (the best strategy in Rauch's semantic-search study).
    A document without sentences gets one title segment (start = end = 0).
    """
    title = doc.title.strip()
    prefix = f"{title.rstrip('. ')}. " if title and title_in_embedding else ""
    segs: list[Segment] = []
    if "sentence" in granularities:
        for i, s in enumerate(doc.sentences):
            segs.append(Segment(doc_id=doc.id, start=i, end=i + 1, text=s, embed_text=prefix + s))
    n = len(doc.sentences)
    if "paragraph" in granularities and (n > 1 or "sentence" not in granularities) and n > 0:
        text = " ".join(doc.sentences)
        segs.append(Segment(doc_id=doc.id, start=0, end=n, text=text, embed_text=prefix + text,
                            kind="paragraph"))
    if not segs and title:
        segs.append(Segment(doc_id=doc.id, start=0, end=0, text=title, embed_text=title, kind="title"))
    return segs


def rrf_score(rank0: int, k: int) -> float:
    """Qdrant's reciprocal-rank-fusion contribution of a hit at 0-based position rank0."""
    return 1.0 / (rank0 + k)


# ---------------------------------------------------------------------------------------------
# Clients: one per local path per process (Qdrant local mode locks its directory).

_CLIENTS: dict[str, list[Any]] = {}  # key -> [client, refcount]
_CLIENTS_LOCK = threading.Lock()


def _acquire_client(path: Path | None, url: str | None) -> tuple[str, QdrantClient]:
    if url:
        key = "url:" + url
    elif path is not None:
        key = "path:" + str(Path(path).expanduser().resolve())
    else:
        raise InputError("EvidenceStore needs a local path or a Qdrant server url.")
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(key)
        if entry is None:
            try:
                if url:
                    client = QdrantClient(url=url, timeout=60)
                    client.get_collections()
                else:
                    assert path is not None
                    Path(path).expanduser().mkdir(parents=True, exist_ok=True)
                    client = QdrantClient(path=str(Path(path).expanduser()))
            except RuntimeError as exc:
                raise InputError(
                    f"the Qdrant store at {path} is in use by another process ({exc}). Close the "
                    "other claimscope process, or run a Qdrant server and set store.url."
                ) from exc
            except Exception as exc:  # connection errors come in many types
                if url:
                    raise SourceUnavailableError(
                        f"cannot reach the Qdrant server at {url} ({exc}). Start it (e.g. "
                        "`docker run -p 6333:6333 qdrant/qdrant`) or unset store.url."
                    ) from exc
                raise
            entry = [client, 0]
            _CLIENTS[key] = entry
        entry[1] += 1
        return key, entry[0]


def _release_client(key: str) -> None:
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del _CLIENTS[key]
            for mkey in [m for m in _MIRRORS if m[0] == key]:
                del _MIRRORS[mkey]
            for ckey in [c for c in _CORPUS_NAMES if c[0] == key]:
                del _CORPUS_NAMES[ckey]
            entry[0].close()


@atexit.register
def _close_all_clients() -> None:
    """Close the shared clients before interpreter shutdown; closing them from QdrantClient.__del__
    at that point fails noisily ("sys.meta_path is None") and may leave local-mode locks behind."""
    with _CLIENTS_LOCK:
        entries = list(_CLIENTS.values())
        _CLIENTS.clear()
        _MIRRORS.clear()
        _CORPUS_NAMES.clear()
    for client, _ in entries:
        try:
            client.close()
        except Exception:  # best effort at exit
            pass


# ---------------------------------------------------------------------------------------------
# The in-process mirror used for search in local mode.


@dataclass
class _Mirror:
    """Exact dense + sparse index over the segment points of one collection."""

    dim: int
    ids: list[str] = field(default_factory=list)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    dense_chunks: list[np.ndarray] = field(default_factory=list)
    coo_rows: list[np.ndarray] = field(default_factory=list)
    coo_terms: list[np.ndarray] = field(default_factory=list)
    coo_vals: list[np.ndarray] = field(default_factory=list)
    corpus: list[str] = field(default_factory=list)
    doc_id: list[str] = field(default_factory=list)
    year: list[float] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    _built: dict[str, Any] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)

    def append(self, ids: list[str], payloads: list[dict[str, Any]], dense: np.ndarray,
               sparse_vecs: list[tuple[list[int], list[float]]]) -> None:
        with self.lock:
            base = len(self.ids)
            self.ids.extend(ids)
            self.payloads.extend(payloads)
            self.dense_chunks.append(np.asarray(dense, dtype=np.float32).reshape(len(ids), self.dim))
            rows = [np.full(len(ix), base + i, dtype=np.int64) for i, (ix, _) in enumerate(sparse_vecs)]
            if rows:
                self.coo_rows.append(np.concatenate(rows))
                self.coo_terms.append(np.concatenate([np.asarray(ix, dtype=np.int64) for ix, _ in sparse_vecs]))
                self.coo_vals.append(np.concatenate([np.asarray(v, dtype=np.float32) for _, v in sparse_vecs]))
            for p in payloads:
                self.corpus.append(p["corpus"])
                self.doc_id.append(p["doc_id"])
                self.year.append(float(p["year"]) if p.get("year") is not None else math.nan)
                self.source.append(p.get("source", ""))
                self.alive.append(True)
            self._built = None

    def kill(self, predicate: Callable[[int], bool]) -> None:
        with self.lock:
            for i in range(len(self.ids)):
                if self.alive[i] and predicate(i):
                    self.alive[i] = False
            self._built = None

    def built(self) -> dict[str, Any]:
        with self.lock:
            if self._built is not None:
                return self._built
            n = len(self.ids)
            dense = (np.concatenate(self.dense_chunks) if self.dense_chunks
                     else np.zeros((0, self.dim), dtype=np.float32))
            alive = np.asarray(self.alive, dtype=bool)
            if self.coo_rows:
                rows = np.concatenate(self.coo_rows)
                terms = np.concatenate(self.coo_terms)
                vals = np.concatenate(self.coo_vals)
            else:
                rows = np.zeros(0, np.int64)
                terms = np.zeros(0, np.int64)
                vals = np.zeros(0, np.float32)
            keep = alive[rows] if len(rows) else np.zeros(0, bool)
            rows, terms, vals = rows[keep], terms[keep], vals[keep]
            uniq, cols = np.unique(terms, return_inverse=True)
            mat = sp.csc_matrix((vals, (rows, cols)), shape=(n, len(uniq)))
            df = np.diff(mat.indptr)
            n_alive = int(alive.sum())
            # Qdrant's IDF modifier: ln((N - n + 0.5) / (n + 0.5) + 1) over the whole collection.
            idf = np.log((n_alive - df + 0.5) / (df + 0.5) + 1.0)
            corpora = np.asarray(self.corpus, dtype=object)
            self._built = {
                "dense": dense, "alive": alive, "sparse": mat, "terms": uniq, "idf": idf,
                "corpus": corpora, "doc_id": np.asarray(self.doc_id, dtype=object),
                "year": np.asarray(self.year, dtype=np.float64),
                "source": np.asarray(self.source, dtype=object),
                # Ties are broken by point id, not insertion order: a store reopened from disk
                # lists its points in another order than the process that built it.
                "id_rank": np.argsort(np.argsort(np.asarray(self.ids, dtype=object))),
            }
            return self._built

    def mask(self, flt: SearchFilter | None) -> np.ndarray:
        b = self.built()
        if flt is None:
            return b["alive"].copy()
        # An investigation searches the same corpora dozens of times; isin over 50k object ids
        # costs ~10 ms, so masks without a doc_id list are memoised until the index changes.
        memo_key = None if flt.doc_ids is not None else flt.model_dump_json()
        memo = b.setdefault("masks", {})
        if memo_key is not None and memo_key in memo:
            return memo[memo_key].copy()
        m = self._compute_mask(b, flt)
        if memo_key is not None:
            memo[memo_key] = m.copy()
        return m

    @staticmethod
    def _compute_mask(b: dict[str, Any], flt: SearchFilter) -> np.ndarray:
        m = b["alive"].copy()
        if flt.corpora is not None:
            m &= np.isin(b["corpus"], list(flt.corpora))
        if flt.sources is not None:
            m &= np.isin(b["source"], [str(s) for s in flt.sources])
        if flt.doc_ids is not None:
            m &= np.isin(b["doc_id"], list(flt.doc_ids))
        with np.errstate(invalid="ignore"):
            if flt.year_min is not None:
                m &= b["year"] >= flt.year_min
            if flt.year_max is not None:
                m &= b["year"] <= flt.year_max
        return m

    def dense_top(self, q: np.ndarray, limit: int, m: np.ndarray) -> list[tuple[int, float]]:
        b = self.built()
        if not m.any():
            return []
        scores = b["dense"] @ q.astype(np.float32)
        return _top(scores, m, limit, b["id_rank"])

    def sparse_top(self, indices: list[int], limit: int, m: np.ndarray) -> list[tuple[int, float]]:
        b = self.built()
        if not indices or not m.any():
            return []
        terms = b["terms"]
        if len(terms) == 0:
            return []
        q = np.asarray(indices, dtype=np.int64)
        pos = np.minimum(np.searchsorted(terms, q), len(terms) - 1)
        cols = pos[terms[pos] == q]
        if len(cols) == 0:
            return []
        sub = b["sparse"][:, cols]
        scores = np.asarray(sub @ b["idf"][cols]).ravel()
        touched = np.zeros(len(scores), dtype=bool)
        touched[sub.indices] = True  # Qdrant returns only points sharing at least one term
        return _top(scores, m & touched, limit, b["id_rank"])


def _top(scores: np.ndarray, m: np.ndarray, limit: int, id_rank: np.ndarray) -> list[tuple[int, float]]:
    idx = np.flatnonzero(m)
    if len(idx) == 0:
        return []
    s = scores[idx]
    if len(idx) > limit:
        # Keep every candidate tied with the limit-th score, so the cut does not depend on order.
        cut = -np.partition(-s, limit - 1)[limit - 1]
        keep = s >= cut
        idx, s = idx[keep], s[keep]
    order = np.lexsort((id_rank[idx], -s))[:limit]
    return [(int(idx[i]), float(s[i])) for i in order]


_MIRRORS: dict[tuple[str, ...], _Mirror] = {}
_CORPUS_NAMES: dict[tuple[str, str], list[str]] = {}


# ---------------------------------------------------------------------------------------------


@dataclass
class _Hit:
    point_id: str
    score: float
    payload: dict[str, Any]


class EvidenceStore:
    """Documents and their segments in Qdrant, searched by hybrid dense + keyword retrieval."""

    def __init__(self, embedder: Embedder, *, path: Path | None = None, url: str | None = None,
                 collection: str = "claimscope", fusion: str = "rrf", rrf_k: int = 60,
                 prefetch: int = 200, doc_aggregation: str = "max", batch_size: int = 256,
                 granularities: Sequence[str] = ("sentence",), title_in_embedding: bool = True,
                 local_index: bool | None = None, bm25: BM25Encoder | None = None,
                 keyword_documents: bool = True) -> None:
        if fusion not in FUSIONS:
            raise InputError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}.")
        if doc_aggregation not in AGGREGATIONS:
            raise InputError(f"unknown doc_aggregation {doc_aggregation!r}; use one of {', '.join(AGGREGATIONS)}.")
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
        # Degraded-operation notices for the user (the investigation copies them into its report).
        self.warnings: list[str] = []
        self._key, self.client = _acquire_client(path, url)
        self._closed = False
        self.local_index = (url is None) if local_index is None else local_index
        try:
            upgrade = self._ensure_collection()
            if url is None:
                self._relax_local_durability()
            if upgrade:
                self._upgrade_keyword_documents()
        except BaseException:
            # Release our share of the client, or the local directory stays locked for this process.
            self.close()
            raise

    # -- setup -------------------------------------------------------------------------------

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

    @property
    def location(self) -> str:
        """The local directory or server URL this store uses."""
        return self._key.split(":", 1)[1]

    @property
    def _is_local(self) -> bool:
        return self._key.startswith("path:")

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

    def close(self) -> None:
        """Release this store's share of the client (closed with the last store on the path)."""
        if not self._closed:
            self._closed = True
            _release_client(self._key)

    def __enter__(self) -> EvidenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ------------------------------------------------------------------------------

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
        mirror = _MIRRORS.get((self._key, self.collection))
        doc_mirror = _MIRRORS.get((self._key, self.collection, "doc"))

        def flush() -> None:
            nonlocal pending, pending_segs, pending_handled, n_segments
            if pending:
                n_segments += self._write(pending, corpus, mirror, doc_mirror)
            if progress is not None and pending_handled:
                progress(pending_handled)
            pending, pending_segs, pending_handled = [], 0, 0

        self.client.upsert(self.collection, points=[qm.PointStruct(
            id=corpus_point_id(corpus), vector={}, payload={"type": "corpus", "corpus": corpus})], wait=True)
        _CORPUS_NAMES.pop((self._key, self.collection), None)
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
        return IngestStats(added=added, skipped_duplicates=skipped, segments=n_segments,
                           seconds=round(time.perf_counter() - t0, 3))

    def _write(self, batch: list[tuple[Document, list[Segment]]], corpus: str, mirror: _Mirror | None,
               doc_mirror: _Mirror | None = None) -> int:
        segs = [s for _, ss in batch for s in ss]
        dense = self.embedder.encode([s.embed_text for s in segs]) if segs else np.zeros((0, self.embedder.dim))
        sparse_vecs = [self.bm25.encode_document(s.embed_text) for s in segs]
        meta = {d.id: d for d, _ in batch}
        points: list[qm.PointStruct] = []
        seg_ids: list[str] = []
        seg_payloads: list[dict[str, Any]] = []
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
            seg_ids.append(pid)
            seg_payloads.append(payload)
        doc_ids: list[str] = []
        doc_payloads: list[dict[str, Any]] = []
        doc_sparse: list[tuple[list[int], list[float]]] = []
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
                    doc_ids.append(doc_point_id(corpus, d.id))
                    doc_payloads.append(payload)
                    doc_sparse.append((kw.indices, kw.values))
            points.append(qm.PointStruct(id=doc_point_id(corpus, d.id), vector=vec, payload=payload))
        self.client.upsert(self.collection, points=points, wait=True)
        if mirror is not None:
            mirror.append(seg_ids, seg_payloads, dense,
                          [(v.indices, v.values) for v in sparse_vecs])
        if doc_mirror is not None and doc_ids:
            doc_mirror.append(doc_ids, doc_payloads, np.zeros((len(doc_ids), 0), np.float32), doc_sparse)
        return len(segs)

    # -- search ------------------------------------------------------------------------------

    def _mirror(self) -> _Mirror:
        mkey = (self._key, self.collection)
        with _CLIENTS_LOCK:
            mirror = _MIRRORS.get(mkey)
            if mirror is None:
                mirror = self._mirror_from_local_arrays() if self._is_local else None
                if mirror is None:
                    mirror = self._mirror_by_scroll()
                _MIRRORS[mkey] = mirror
            return mirror

    def _doc_mirror(self) -> _Mirror:
        """The mirror of the documents' keyword vectors (no dense part)."""
        mkey = (self._key, self.collection, "doc")
        with _CLIENTS_LOCK:
            mirror = _MIRRORS.get(mkey)
            if mirror is None:
                mirror = self._mirror_from_local_arrays(kind="doc") if self._is_local else None
                if mirror is None:
                    mirror = self._mirror_by_scroll(kind="doc")
                _MIRRORS[mkey] = mirror
            return mirror

    def _mirror_from_local_arrays(self, kind: str = "seg") -> _Mirror | None:
        """Build the mirror from the arrays local mode already holds in memory (a scroll copies
        every point and takes ~100x longer). None if the client's layout is not the expected one."""
        try:
            lc = self.client._client.collections[self.collection]  # type: ignore[attr-defined]
            n = len(lc.ids_inv)
            dense_all = lc.vectors[DENSE][:n]
            sparse_all = lc.sparse_vectors[SPARSE if kind == "seg" else SPARSE_DOC]
            deleted = lc.deleted[:n]
            payloads = lc.payload
        except (AttributeError, KeyError, TypeError) as exc:
            log.debug("local arrays unavailable, scrolling instead: %s", exc)
            return None
        rows = [i for i in range(n) if not deleted[i] and (payloads[i] or {}).get("type") == kind]
        if kind == "doc":
            # Local mode keeps an empty sparse vector for a point that has none.
            rows = [i for i in rows if i < len(sparse_all) and len(sparse_all[i].indices)]
        mirror = _Mirror(dim=self.embedder.dim if kind == "seg" else 0)
        if rows:
            dense = (np.asarray(dense_all[rows], dtype=np.float32) if kind == "seg"
                     else np.zeros((len(rows), 0), np.float32))
            mirror.append([str(lc.ids_inv[i]) for i in rows], [payloads[i] for i in rows], dense,
                          [(list(sparse_all[i].indices), list(sparse_all[i].values)) for i in rows])
        return mirror

    def _mirror_by_scroll(self, kind: str = "seg") -> _Mirror:
        mirror = _Mirror(dim=self.embedder.dim if kind == "seg" else 0)
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value=kind))])
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, scroll_filter=flt, limit=4096,
                                                offset=offset, with_payload=True, with_vectors=True)
            if points:
                ids, pls, dense, sparse_vecs = [], [], [], []
                for p in points:
                    vec = p.vector if isinstance(p.vector, dict) else {}
                    sv = vec.get(SPARSE if kind == "seg" else SPARSE_DOC)
                    if kind == "doc" and sv is None:
                        continue
                    ids.append(str(p.id))
                    pls.append(p.payload or {})
                    dense.append(vec.get(DENSE) if kind == "seg" else [])
                    sparse_vecs.append((list(sv.indices), list(sv.values)) if sv is not None else ([], []))
                if ids:
                    mirror.append(ids, pls, np.asarray(dense, dtype=np.float32).reshape(len(ids), mirror.dim),
                                  sparse_vecs)
            if offset is None:
                return mirror

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

    def _ranked_lists(self, query: str, flt: SearchFilter | None, limit: int) -> tuple[list[_Hit], list[_Hit]]:
        """The dense and the keyword ranking of segments (each up to `limit`)."""
        use_dense = self.fusion != "sparse"
        use_sparse = self.fusion != "dense"
        qd = self.embedder.encode([query])[0] if use_dense else None
        qs = self.bm25.encode_query(query) if use_sparse else None
        if self.local_index:
            mirror = self._mirror()
            m = mirror.mask(flt)
            dense = mirror.dense_top(qd, limit, m) if qd is not None else []
            sparse = mirror.sparse_top(qs.indices, limit, m) if qs is not None else []
            return ([_Hit(mirror.ids[i], s, mirror.payloads[i]) for i, s in dense],
                    [_Hit(mirror.ids[i], s, mirror.payloads[i]) for i, s in sparse])
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
            out.append([_Hit(str(p.id), float(p.score), p.payload or {}) for p in res.points])
        return out[0], out[1]

    def _keyword_documents(self, query: str, flt: SearchFilter | None, limit: int) -> list[tuple[tuple[str, str], float]]:
        """Documents ranked by the keyword vector of their whole title + abstract."""
        qs = self.bm25_doc.encode_query(query)
        if not qs.indices:
            return []
        if self.local_index:
            mirror = self._doc_mirror()
            top = mirror.sparse_top(qs.indices, limit, mirror.mask(flt))
            return [((mirror.corpus[i], mirror.doc_id[i]), s) for i, s in top]
        res = self.client.query_points(self.collection, query=qm.SparseVector(indices=qs.indices, values=qs.values),
                                       using=SPARSE_DOC, query_filter=self._qdrant_filter(flt, "doc"), limit=limit,
                                       with_payload=["corpus", "doc_id"])
        return [(((p.payload or {}).get("corpus", ""), (p.payload or {}).get("doc_id", "")), float(p.score))
                for p in res.points]

    def _fused_segments(self, query: str, flt: SearchFilter | None, limit: int,
                        candidates: int | None = None) -> list[_Hit]:
        """Segments ranked by the configured fusion (doc_rrf fuses segments like rrf here);
        `candidates` per ranking before fusion (default: the prefetch setting)."""
        candidates = max(candidates or self.prefetch, limit if self.fusion in ("dense", "sparse") else 0)
        if self.fusion in ("rrf", "doc_rrf") and not self.local_index:
            return self._qdrant_rrf(query, flt, limit, candidates)
        dense, sparse = self._ranked_lists(query, flt, candidates)
        if self.fusion == "dense":
            return dense[:limit]
        if self.fusion == "sparse":
            return sparse[:limit]
        scores: dict[str, float] = {}
        hits: dict[str, _Hit] = {}
        for ranking in (dense, sparse):
            for r, h in enumerate(ranking):
                scores[h.point_id] = scores.get(h.point_id, 0.0) + rrf_score(r, self.rrf_k)
                hits.setdefault(h.point_id, h)
        order = sorted(scores.items(), key=lambda kv: -kv[1])[:limit]
        return [_Hit(pid, s, hits[pid].payload) for pid, s in order]

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
        return [_Hit(str(p.id), float(p.score), p.payload or {}) for p in res.points]

    @staticmethod
    def _to_segment_hit(h: _Hit) -> SegmentHit:
        p = h.payload
        seg = Segment(doc_id=p["doc_id"], start=p["start"], end=p["end"], text=p["text"],
                      embed_text=p["embed_text"], kind=p.get("kind", "sentence"))
        return SegmentHit(segment=seg, score=h.score, corpus=p.get("corpus", ""))

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
        ranked.sort(key=lambda kv: -kv[1])
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
            scores: dict[tuple[str, str], float] = {}
            for doc_ranking in doc_lists:
                for r, (key, _) in enumerate(doc_ranking):
                    scores[key] = scores.get(key, 0.0) + rrf_score(r, self.rrf_k)
            doc_order = sorted(scores.items(), key=lambda kv: -kv[1])[:k]
            # Sentences shown with a document: segment-level RRF over both lists.
            seg_scores: dict[str, float] = {}
            seg_hits: dict[str, _Hit] = {}
            for ranking in (dense, sparse):
                for r, h in enumerate(ranking):
                    seg_scores[h.point_id] = seg_scores.get(h.point_id, 0.0) + rrf_score(r, self.rrf_k)
                    seg_hits.setdefault(h.point_id, h)
            seg_list = [_Hit(pid, s, seg_hits[pid].payload)
                        for pid, s in sorted(seg_scores.items(), key=lambda kv: -kv[1])]
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

    # -- lookup ------------------------------------------------------------------------------

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
        # Local mode has one process per directory, so this process's own adds and deletes are
        # the only changes: the names are cached (a filtered scroll costs ~50 ms per call at 50k
        # points, and lookups ask for them once per segment). A server is asked every time.
        ckey = (self._key, self.collection)
        names = _CORPUS_NAMES.get(ckey) if self._is_local else None
        if names is None:
            names = [c.name for c in self._corpus_points()]
            if self._is_local:
                _CORPUS_NAMES[ckey] = names
        return list(names)

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
        must = [qm.FieldCondition(key="type", match=qm.MatchValue(value="doc")),
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

    # -- corpora -----------------------------------------------------------------------------

    def _corpus_points(self) -> list[CorpusInfo]:
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value="corpus"))])
        points, _ = self.client.scroll(self.collection, scroll_filter=flt, limit=10_000, with_payload=True)
        names = sorted({(p.payload or {}).get("corpus", "") for p in points} - {""})
        return [CorpusInfo(name=n, documents=0, segments=0) for n in names]

    def _count(self, corpus: str, type_: str) -> int:
        flt = qm.Filter(must=[qm.FieldCondition(key="type", match=qm.MatchValue(value=type_)),
                              qm.FieldCondition(key="corpus", match=qm.MatchValue(value=corpus))])
        return self.client.count(self.collection, count_filter=flt, exact=True).count

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
        _CORPUS_NAMES.pop((self._key, self.collection), None)
        for mkey in ((self._key, self.collection), (self._key, self.collection, "doc")):
            mirror = _MIRRORS.get(mkey)
            if mirror is not None:
                mirror.kill(lambda i, m=mirror: m.corpus[i] == name)
        return n_docs
