"""The collection's layout: vector names, point ids (UUID5s of corpus, document and span),
the segments a document is split into, the filter and result records, and the fusion formula.
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from claimscope.tools.models import (
    Document,
    Segment,
    SourceKind,
)

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


K = TypeVar("K", bound=Hashable)


def rrf_fuse(rankings: Iterable[Sequence[K]], k: int) -> list[tuple[K, float]]:
    """Reciprocal rank fusion: every item of `rankings` with the sum of its rrf_score, best first
    (ties keep the order in which items were first seen)."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for r, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + rrf_score(r, k)
    return sorted(scores.items(), key=lambda kv: -kv[1])


@dataclass
class _Hit:
    point_id: str
    score: float
    payload: dict[str, Any]
