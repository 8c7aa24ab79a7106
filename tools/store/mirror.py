"""The in-process numpy/scipy mirror of the vectors that local-mode stores search (Qdrant's local
mode searches by a brute-force Python loop): exact, with the same scores and fusion as Qdrant, and
rebuilt from the store of record when a process first searches.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse as sp

from claimscope.tools.store.layout import SearchFilter


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
