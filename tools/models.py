"""Typed evidence models shared by every tool: documents, segments, hits and stance labels.

These are the boundary types between tools and the agent; keep them free of behaviour that needs
heavy imports so that any module can depend on them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum
from typing import Literal, NamedTuple, Protocol

import numpy as np
from pydantic import BaseModel, Field, computed_field

from claimscope.tools.errors import InputError


class Stance(StrEnum):
    """Stance of a piece of evidence toward a claim."""

    SUPPORT = "support"
    NEUTRAL = "neutral"
    REFUTE = "refute"


class SourceKind(StrEnum):
    """Where a document came from."""

    LOCAL = "local"
    SEMANTIC_SCHOLAR = "semantic_scholar"
    SERPAPI = "serpapi"
    OPENALEX = "openalex"


# SourceKind's values as a type: what settings, run options, API and CLI accept as a source name
# (a Literal keeps plain strings in the JSON state and an inline enum in the tool schemas).
SourceName = Literal["local", "semantic_scholar", "serpapi", "openalex"]


NoticeKind = Literal["retraction", "correction", "expression_of_concern", "reinstatement", "retraction_notice"]


class Notice(BaseModel):
    """An editorial notice about a document: a retraction, correction or expression of concern
    (from OpenAlex, Crossref or an imported Retraction Watch file). 'retraction_notice' marks a
    document that is itself the notice retracting another."""

    kind: NoticeKind
    source: str = Field(description="Who said so: 'openalex', 'crossref', 'retraction_watch'.")
    doi: str | None = Field(None, description="DOI of the notice, where known.")
    date: str | None = Field(None, description="ISO date of the notice, where known.")
    detail: str = Field("", description="Reasons or label, as the source gives them.")

    def describe(self) -> str:
        """'retraction (Retraction Watch, 2023-09-27; 10.1155/2023/9753475): Paper Mill'."""
        where = ", ".join(x for x in (_SOURCE_LABELS.get(self.source, self.source), self.date) if x)
        notice = f"; {self.doi}" if self.doi else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.kind.replace('_', ' ')} ({where}{notice}){detail}"


_SOURCE_LABELS = {"openalex": "OpenAlex", "crossref": "Crossref", "retraction_watch": "Retraction Watch"}


class Document(BaseModel):
    """One source document: an abstract (as sentences) with its bibliographic metadata."""

    id: str = Field(description="Stable id within a corpus (source id, DOI or content hash).")
    title: str = ""
    sentences: list[str] = Field(default_factory=list, description="The abstract / body, split into sentences.")
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    doi: str | None = None
    url: str | None = None
    citation_count: int | None = None
    influential_citation_count: int | None = None
    source: SourceKind = SourceKind.LOCAL
    retracted: bool | None = Field(default=None, description="True/False where known, None if unknown.")
    publication_types: list[str] = Field(default_factory=list)
    venue_type: str | None = Field(None, description="Kind of venue where known: journal, repository, conference, ...")
    open_access_url: str | None = None
    notices: list[Notice] = Field(default_factory=list, description="Retractions, corrections, concerns.")
    study_design: str | None = Field(None, description="A tools.appraise.study_design.Design value, when tagged.")
    sample_size: int | None = Field(None, ge=0, description="Participants (or subjects) stated, when tagged.")

    @property
    def corrected(self) -> bool:
        return any(n.kind == "correction" for n in self.notices)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def content_hash(self) -> str:
        """Hash of the normalised title and text, used to deduplicate documents without a DOI."""
        norm = " ".join((self.title + " " + " ".join(self.sentences)).lower().split())
        return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


class SentenceKey(NamedTuple):
    """The cite-able id of one sentence, or a span of sentences, of one document.

    Written 'doc_id#3' for sentence 3 (0-based) and 'doc_id#3-5' for sentences 3 and 4 (the end is
    one past the last). Document ids may themselves contain '#': the last one splits. Every key the
    product writes or reads (citations, segment keys, stance tables) goes through this type.
    """

    doc_id: str
    start: int
    end: int

    @classmethod
    def sentence(cls, doc_id: str, index: int) -> SentenceKey:
        return cls(doc_id, index, index + 1)

    @classmethod
    def read(cls, key: str) -> SentenceKey | None:
        """The key `key` spells, None when it is not one."""
        doc_id, sep, span = key.rpartition("#")
        if not sep or not doc_id:
            return None
        first, dash, last = span.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            return None
        start = int(first)
        end = int(last) if dash else start + 1
        return cls(doc_id, start, end) if end > start else None

    @classmethod
    def parse(cls, key: str) -> SentenceKey:
        """As read(), but InputError naming the expected form when `key` is not a key."""
        parsed = cls.read(key)
        if parsed is None:
            raise InputError(f"{key!r} is not a sentence key; expected 'docid#index' (e.g. '4983#2') "
                             "or a span 'docid#start-end'.")
        return parsed

    def __str__(self) -> str:
        if self.end - self.start == 1:
            return f"{self.doc_id}#{self.start}"
        return f"{self.doc_id}#{self.start}-{self.end}"


class Segment(BaseModel):
    """A retrievable unit of a document: one sentence (or a span of sentences)."""

    doc_id: str
    start: int = Field(description="Index of the first sentence of the span in the document.")
    end: int = Field(description="Index one past the last sentence of the span.")
    text: str = Field(description="The span's own text, as shown to users and cited.")
    embed_text: str = Field(description="The text that is embedded and indexed (e.g. title prepended).")
    kind: str = Field(default="sentence", description="Granularity: 'sentence' or 'paragraph'.")

    @property
    def key(self) -> str:
        """Cite-able id of the span: 'doc_id#start' for a sentence, 'doc_id#start-end' otherwise."""
        return str(SentenceKey(self.doc_id, self.start, self.end))


class SegmentHit(BaseModel):
    """A segment returned by retrieval, with its fused score."""

    segment: Segment
    score: float
    corpus: str = ""


class DocumentHit(BaseModel):
    """A document ranked by aggregating its segments' scores, with the sentences that matched."""

    document: Document
    score: float
    segments: list[SegmentHit] = Field(default_factory=list)
    corpus: str = ""


class StanceResult(BaseModel):
    """Calibrated stance probabilities of a (claim, evidence) pair."""

    label: Stance
    support: float
    neutral: float
    refute: float

    @property
    def signed(self) -> float:
        """support minus refute, in [-1, 1]."""
        return self.support - self.refute


class StanceScorer(Protocol):
    """Anything that scores (claim, evidence) pairs; implemented in tools/read/stance.py."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        """One calibrated result per (claim, evidence) pair, in order. Empty input -> []."""
        ...


class Embedder(Protocol):
    """Anything that embeds texts; implemented in tools/find/embeddings.py."""

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array (len(texts), dim), rows L2-normalised so that dot product = cosine."""
        ...
