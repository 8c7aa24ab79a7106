"""Keyword vectors: a tokeniser and BM25 term-frequency weights as Qdrant sparse vectors.

Qdrant's IDF modifier supplies the inverse document frequency at query time over the whole
collection (idf = ln((N - n + 0.5) / (n + 0.5) + 1), the BM25 form), so a stored vector holds only
the saturated, length-normalised term frequency  tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))
and a query vector holds 1.0 per distinct query term. Their dot product under the IDF modifier is
exactly BM25. `avg_len` is fixed rather than measured so that a vector never changes after it is
written (the default is the mean length of title + sentence segments on SciFact).

Terms are lower-cased alphanumeric runs, English stop words dropped, Snowball-stemmed, and hashed to
a stable 31-bit index (crc32), so no vocabulary has to be stored or shared.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from functools import lru_cache

import snowballstemmer
from pydantic import BaseModel

STOP_WORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves""".split()
)
# Negations carry meaning for claims ("does not reduce"); keep them as terms.
STOP_WORDS = STOP_WORDS - {"no", "not", "nor"}

_TOKEN = re.compile(r"[a-z0-9]+")
_stemmer = snowballstemmer.stemmer("english")


class SparseVec(BaseModel):
    """Sorted term indices and their weights (the shape of a Qdrant SparseVector)."""

    indices: list[int]
    values: list[float]


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


@lru_cache(maxsize=200_000)
def term_id(term: str) -> int:
    """Stable 31-bit index of a term."""
    return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF


def tokenize(text: str) -> list[str]:
    """Stemmed content terms of `text`, in order (duplicates kept)."""
    return [_stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


class BM25Encoder:
    """Turns texts into BM25 document vectors and queries into term-presence vectors."""

    def __init__(self, k1: float = 1.2, b: float = 0.75, avg_len: float = 24.0) -> None:
        self.k1 = k1
        self.b = b
        self.avg_len = avg_len

    def encode_document(self, text: str) -> SparseVec:
        """Saturated, length-normalised term frequencies (the IDF comes from Qdrant)."""
        terms = tokenize(text)
        if not terms:
            return SparseVec(indices=[], values=[])
        norm = self.k1 * (1.0 - self.b + self.b * len(terms) / self.avg_len)
        weights: dict[int, float] = {}
        for term, tf in Counter(terms).items():
            weights[term_id(term)] = weights.get(term_id(term), 0.0) + tf * (self.k1 + 1.0) / (tf + norm)
        idx = sorted(weights)
        return SparseVec(indices=idx, values=[weights[i] for i in idx])

    def encode_query(self, text: str) -> SparseVec:
        """1.0 per distinct query term: each matching term then contributes idf * tf-weight."""
        idx = sorted({term_id(t) for t in tokenize(text)})
        return SparseVec(indices=idx, values=[1.0] * len(idx))
