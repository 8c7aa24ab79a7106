"""The one-time move of a store made by Qdrant's local mode (the embedded engine before Qdrant Edge)
into an Edge shard: every point with its vectors and payload, copied without re-embedding.

It runs when such a store is first opened, says so, and resumes where it stopped if interrupted:
the Edge collection's manifest records the last point copied (local mode scrolls in point-id order)
and upserts are idempotent. Documents that lack the whole-abstract keyword vector (stores made
before it existed) get it computed on the way. When the copy is complete the old collection
directory is moved to `<path>/local-mode-backup/<collection>`, which the user may delete.
"""

from __future__ import annotations

import logging
import shutil
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from claimscope.tools.errors import InputError
from claimscope.tools.find.sparse import SparseVec
from claimscope.tools.find.store.edge import EdgeClient
from claimscope.tools.find.store.layout import DENSE, SPARSE, SPARSE_DOC

log = logging.getLogger(__name__)

MIGRATION_MARK = "claimscope_local_mode_migration"
BACKUP_DIR = "local-mode-backup"
_BATCH = 1024


def local_mode_collection(root: Path, collection: str) -> Path | None:
    """The directory of `collection` in a local-mode store at `root`, if there is one."""
    d = root / "collection" / collection
    return d if (d / "storage.sqlite").exists() else None


def needs_migration(root: Path, collection: str, edge: EdgeClient) -> bool:
    if local_mode_collection(root, collection) is None:
        return False
    if not edge.collection_exists(collection):
        return True
    return edge.manifest(collection).metadata.get(MIGRATION_MARK, {}).get("state") == "copying"


def migrate_local_mode(root: Path, collection: str, edge: EdgeClient, *,
                       doc_keywords: Callable[[str, Sequence[str]], SparseVec],
                       with_doc_keywords: bool) -> int:
    """Copy `collection` from the local-mode store at `root` into `edge`; returns points copied."""
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # local mode's "not recommended above 20k points"
            old = QdrantClient(path=str(root))
    except RuntimeError as exc:
        raise InputError(f"the store at {root} is in use by another process ({exc}); close it and retry.") from exc
    try:
        info = old.get_collection(collection)
        vecs = info.config.params.vectors
        dim = vecs[DENSE].size if isinstance(vecs, dict) and DENSE in vecs else None
        if dim is None:
            raise InputError(f"the collection {collection!r} in {root} has no dense vectors; it was not made "
                             "by claimscope. Use another store.collection.")
        total = old.count(collection, exact=True).count
        resume = None
        if edge.collection_exists(collection):
            resume = edge.manifest(collection).metadata.get(MIGRATION_MARK, {}).get("offset")
        else:
            names = {SPARSE, *(info.config.params.sparse_vectors or {})} | ({SPARSE_DOC} if with_doc_keywords else set())
            sparse = {n: qm.SparseVectorParams(modifier=qm.Modifier.IDF) for n in names}
            edge.create_collection(collection, {DENSE: qm.VectorParams(size=dim, distance=qm.Distance.COSINE)},
                                   sparse)
            edge.update_collection(collection, {MIGRATION_MARK: {"state": "copying", "offset": None}})
        log.warning("one-time move of collection %r (%d points) from Qdrant local mode to Qdrant Edge%s; "
                    "no re-embedding, interrupt-safe", collection, total, " (resuming)" if resume else "")
        configured = set(edge.manifest(collection).sparse)
        copied = 0
        offset: Any = resume
        while True:
            points, nxt = old.scroll(collection, limit=_BATCH, offset=offset, with_payload=True, with_vectors=True)
            batch = [_moved(p, configured, doc_keywords) for p in points]
            if batch:
                edge.upsert(collection, batch)
                copied += len(batch)
            # Recorded after the batch is written: a crash repeats at most one (idempotent) batch.
            edge.update_collection(collection, {MIGRATION_MARK: {"state": "copying", "offset": nxt}})
            if nxt is None:
                break
            offset = nxt
        edge.optimize(collection)
        edge.update_collection(collection, {MIGRATION_MARK: {"state": "done", "points": total}})
    finally:
        old.close()
    src = local_mode_collection(root, collection)
    if src is not None:
        dst = root / BACKUP_DIR / collection
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.move(str(src), str(dst))
        log.warning("collection %r moved to Qdrant Edge in %.0f s; the old copy is in %s (delete it when you "
                    "no longer need it)", collection, time.perf_counter() - t0, dst)
    return copied


def _moved(p: Any, sparse_names: set[str], doc_keywords: Callable[[str, Sequence[str]], SparseVec]) -> qm.PointStruct:
    payload = p.payload or {}
    vec = dict(p.vector) if isinstance(p.vector, dict) else {}
    vector: dict[str, Any] = {}
    if isinstance(vec.get(DENSE), list):
        vector[DENSE] = vec[DENSE]
    for name in sorted(sparse_names):
        sv = vec.get(name)
        if isinstance(sv, qm.SparseVector) and len(sv.indices):
            vector[name] = sv
    if payload.get("type") == "doc" and SPARSE_DOC in sparse_names and SPARSE_DOC not in vector:
        d = payload.get("document") or {}
        kw = doc_keywords(d.get("title") or "", d.get("sentences") or [])
        if kw.indices:
            vector[SPARSE_DOC] = qm.SparseVector(indices=kw.indices, values=kw.values)
    return qm.PointStruct(id=str(p.id), vector=vector, payload=payload)
