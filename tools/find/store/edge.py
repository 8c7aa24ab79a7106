"""Qdrant Edge, the embedded engine: the Qdrant engine in-process, on-disk segments, payload indexes
and an HNSW index, with no server. `EdgeClient` offers the part of QdrantClient's interface the
store uses, so the store has one code path for both engines: queries, filters and fusion run in
Qdrant (Edge here, a server for `store.url`).

One Edge shard per collection, in `<path>/edge/<collection>/`, with a small manifest beside it
(`<collection>.json`: the dense vector size and the collection metadata, which Edge does not keep).
Edge locks a shard's write-ahead log for the process that opened it, so a process opens each
directory once (`acquire_edge` / `release_edge` share one client per directory) and a second process
gets a clear "in use" error.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from qdrant_client import models as qm

from claimscope.tools.errors import InputError

EDGE_DIR = "edge"
_MANIFEST_VERSION = 1
# Payload fields every filter uses; indexed so a filtered query stays fast on a large store.
KEYWORD_FIELDS = ("type", "corpus", "doc_id", "source", "doi")
INTEGER_FIELDS = ("year",)
# Where a new shard keeps its payloads (sentence text, document records). Edge's default, "cold",
# reads them from disk on first use and drops them from the page cache when the shard closes, so
# every process starts with each query paying random reads (at 100k abstracts a fresh process
# answered in 175 ms at p50, a warm one in 30 ms); "cached" reads them in when the shard opens.
PAYLOAD_MEMORY = {"cached": qe.Memory.Cached, "cold": qe.Memory.Cold}
# Dense vectors quantized to int8 and pinned in memory: the graph search reads these (a quarter of
# the bytes, and no page faults on a memory-mapped file, which cost a fresh process 35-45 ms per
# query at 100k abstracts); the best candidates are rescored with the full vectors.
QUANTIZATION = ("int8", "none")
# Candidates found on the int8 copy are scored again on the full vectors (ignored without one).
_RESCORED = qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=True))


@dataclass
class Manifest:
    """What Edge does not keep about a collection: its dense size and the collection metadata."""

    dense_size: int
    sparse: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)

    def write(self, path: Path) -> None:
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"version": _MANIFEST_VERSION, "dense_size": self.dense_size,
                                   "sparse": self.sparse, "metadata": self.metadata}, indent=1))
        os.replace(tmp, path)

    @classmethod
    def read(cls, path: Path) -> Manifest:
        try:
            raw = json.loads(path.read_text())
            return cls(dense_size=int(raw["dense_size"]), sparse=list(raw["sparse"]),
                       metadata=dict(raw.get("metadata") or {}))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"the store manifest {path} is unreadable ({exc}); restore it from a backup or "
                             "delete the store directory and ingest again.") from exc


@dataclass
class _Result:
    """What QdrantClient.query_points returns, as far as the store reads it."""

    points: list[Any]


@dataclass
class _Count:
    count: int


class EdgeClient:
    """QdrantClient's interface, as far as the store uses it, over Qdrant Edge shards."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._shards: dict[str, qe.EdgeShard] = {}
        self._lock = threading.Lock()

    # -- collections -----------------------------------------------------------------------------

    def shard_dir(self, collection: str) -> Path:
        return self.root / EDGE_DIR / collection

    def manifest_path(self, collection: str) -> Path:
        return self.root / EDGE_DIR / f"{collection}.json"

    def collection_exists(self, collection: str) -> bool:
        return self.manifest_path(collection).exists()

    def manifest(self, collection: str) -> Manifest:
        return Manifest.read(self.manifest_path(collection))

    def create_collection(self, collection: str, vectors_config: dict[str, qm.VectorParams],
                          sparse_vectors_config: dict[str, qm.SparseVectorParams] | None = None,
                          payload_memory: str = "cached", quantization: str = "int8") -> None:
        """A new shard (any half-made one from an interrupted creation is replaced); `payload_memory`
        is a key of PAYLOAD_MEMORY, `quantization` one of QUANTIZATION."""

        sparse_cfg = sparse_vectors_config or {}
        shard_dir = self.shard_dir(collection)
        shutil.rmtree(shard_dir, ignore_errors=True)
        shard_dir.parent.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(
            vectors={name: qe.EdgeVectorParams(size=p.size, distance=qe.Distance.Cosine)
                     for name, p in vectors_config.items()},
            sparse_vectors={name: qe.EdgeSparseVectorParams(
                modifier=qe.Modifier.Idf if p.modifier == qm.Modifier.IDF else None)
                for name, p in sparse_cfg.items()},
            payload_memory=PAYLOAD_MEMORY[payload_memory],
            quantization_config=qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99,
                                                            memory=qe.Memory.Pinned)
            if quantization == "int8" else None,
        )
        shard = qe.EdgeShard.create(str(shard_dir), config)
        for key in KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(key, qe.PayloadSchemaType.Keyword))
        for key in INTEGER_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(key, qe.PayloadSchemaType.Integer))
        shard.flush()
        with self._lock:
            self._shards[collection] = shard
        # The manifest is written last: a collection exists once its shard is complete.
        (size,) = [p.size for p in vectors_config.values()]
        Manifest(dense_size=size, sparse=sorted(sparse_cfg)).write(self.manifest_path(collection))

    def update_collection(self, collection: str, metadata: dict[str, Any]) -> None:
        m = self.manifest(collection)
        m.metadata.update(metadata)
        m.write(self.manifest_path(collection))

    def create_vector_name(self, collection: str, name: str, config: qm.SparseVectorNameConfig) -> None:
        self._shard(collection).update(qe.UpdateOperation.create_sparse_vector(name, modifier=qe.Modifier.Idf))
        m = self.manifest(collection)
        m.sparse = sorted({*m.sparse, name})
        m.write(self.manifest_path(collection))

    def _shard(self, collection: str) -> qe.EdgeShard:
        with self._lock:
            shard = self._shards.get(collection)
            if shard is None:
                if not self.collection_exists(collection):
                    raise InputError(f"no collection {collection!r} in {self.root}.")
                try:
                    shard = qe.EdgeShard.load(str(self.shard_dir(collection)))
                except Exception as exc:  # Edge raises a bare Exception
                    if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                        raise InputError(
                            f"the store at {self.root} is in use by another process. Close the other claimscope "
                            "process, or run a Qdrant server and set store.url so several processes can share "
                            "it.") from exc
                    raise InputError(f"cannot open the store at {self.shard_dir(collection)} ({exc}); restore it "
                                     "from a backup or delete the directory and ingest again.") from exc
                self._shards[collection] = shard
            return shard

    def open(self, collection: str) -> None:
        """Open the collection's shard now (so a store in use elsewhere fails at once, not mid-run)."""
        self._shard(collection)

    # -- reads -----------------------------------------------------------------------------------

    def retrieve(self, collection: str, ids: Sequence[str], with_payload: bool | list[str] = True,
                 with_vectors: bool = False) -> list[Any]:
        if not ids:
            return []
        return self._shard(collection).retrieve(list(ids), with_payload=with_payload, with_vector=with_vectors)

    def scroll(self, collection: str, scroll_filter: qm.Filter | None = None, limit: int = 10,
               offset: Any = None, with_payload: bool | list[str] = True,
               with_vectors: bool = False) -> tuple[list[Any], Any]:
        records, nxt = self._shard(collection).scroll(qe.ScrollRequest(
            offset=offset, limit=limit, filter=edge_filter(scroll_filter), with_payload=with_payload,
            with_vector=with_vectors))
        return records, nxt

    def count(self, collection: str, count_filter: qm.Filter | None = None, exact: bool = True) -> _Count:
        return _Count(self._shard(collection).count(qe.CountRequest(exact=exact, filter=edge_filter(count_filter))))

    def query_points(self, collection: str, query: Any = None, using: str | None = None,
                     query_filter: qm.Filter | None = None, limit: int = 10,
                     with_payload: bool | list[str] = True, prefetch: Sequence[qm.Prefetch] | None = None,
                     search_params: qe.SearchParams | None = None) -> _Result:
        if isinstance(query, qm.RrfQuery):
            request = qe.QueryRequest(
                # qdrant-edge-py's stub declares Fusion.Rrf as a nested class, not as a Fusion.
                limit=limit, query=qe.Fusion.Rrf(k=query.rrf.k if query.rrf.k is not None else 60),  # type: ignore[arg-type]
                prefetches=[qe.Prefetch(limit=p.limit or limit, query=_nearest(p.query, p.using),
                                        filter=edge_filter(p.filter), params=_RESCORED) for p in prefetch or []],
                filter=edge_filter(query_filter), with_payload=with_payload)
        else:
            request = qe.QueryRequest(limit=limit, query=_nearest(query, using), filter=edge_filter(query_filter),
                                      with_payload=with_payload, params=search_params or _RESCORED)
        return _Result(self._shard(collection).query(request))

    # -- writes ----------------------------------------------------------------------------------

    def upsert(self, collection: str, points: Sequence[qm.PointStruct], wait: bool = True) -> None:
        self._shard(collection).update(qe.UpdateOperation.upsert_points([
            qe.Point(id=str(p.id), vector=_vectors(p.vector), payload=p.payload or {}) for p in points]))

    def update_vectors(self, collection: str, points: Sequence[qm.PointVectors], wait: bool = True) -> None:
        self._shard(collection).update(qe.UpdateOperation.update_vectors([
            qe.PointVectors(id=str(p.id), vector=_vectors(p.vector)) for p in points]))

    def delete(self, collection: str, points_selector: qm.FilterSelector, wait: bool = True) -> None:
        flt = edge_filter(points_selector.filter)
        assert flt is not None
        self._shard(collection).update(qe.UpdateOperation.delete_points_by_filter(flt))

    def optimize(self, collection: str) -> None:
        """Build the HNSW index and merge small segments (after a bulk ingest)."""
        shard = self._shard(collection)
        shard.optimize()
        shard.flush()

    def close(self) -> None:
        with self._lock:
            shards, self._shards = list(self._shards.values()), {}
        for shard in shards:
            shard.flush()
            shard.close()


# -- translation of qdrant-client's models ------------------------------------------------------


def edge_filter(flt: qm.Filter | None) -> qe.Filter | None:
    """qdrant-client's filter as an Edge filter (the conditions the store builds: match one value,
    match any, numeric range)."""
    if flt is None:
        return None
    return qe.Filter(must=[_condition(c) for c in _as_list(flt.must)] or None,
                     should=[_condition(c) for c in _as_list(flt.should)] or None,
                     must_not=[_condition(c) for c in _as_list(flt.must_not)] or None)


def _as_list(conds: Any) -> list[Any]:
    if conds is None:
        return []
    return list(conds) if isinstance(conds, list) else [conds]


def _condition(c: Any) -> Any:
    if isinstance(c, qm.Filter):
        return edge_filter(c)
    if not isinstance(c, qm.FieldCondition):
        raise TypeError(f"unsupported filter condition for Qdrant Edge: {type(c).__name__}")
    if isinstance(c.match, qm.MatchValue):
        return qe.FieldCondition(key=c.key, match=qe.MatchValue(value=c.match.value))
    if isinstance(c.match, qm.MatchAny):
        return qe.FieldCondition(key=c.key, match=qe.MatchAny(any=c.match.any))
    if isinstance(c.range, qm.Range):
        r = c.range
        return qe.FieldCondition(key=c.key, range=qe.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt))
    raise TypeError(f"unsupported field condition for Qdrant Edge on {c.key!r}")


def _nearest(query: Any, using: str | None) -> qe.Query:
    if isinstance(query, qm.SparseVector):
        return qe.Query.Nearest(qe.SparseVector(indices=list(query.indices), values=list(query.values)), using=using)
    return qe.Query.Nearest([float(x) for x in query], using=using)


def _vectors(vector: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, v in (vector or {}).items():
        if isinstance(v, qm.SparseVector):
            out[name] = qe.SparseVector(indices=list(v.indices), values=list(v.values))
        else:
            out[name] = [float(x) for x in v]
    return out


# -- one client per directory per process -------------------------------------------------------

_CLIENTS: dict[Path, list[Any]] = {}  # root -> [client, refcount]
_CLIENTS_LOCK = threading.Lock()


def acquire_edge(path: Path) -> EdgeClient:
    """The process's client for the store directory `path` (opened on first use)."""
    root = Path(path).expanduser().resolve()
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(root)
        if entry is None:
            root.mkdir(parents=True, exist_ok=True)
            entry = [EdgeClient(root), 0]
            _CLIENTS[root] = entry
        entry[1] += 1
        return entry[0]


def release_edge(client: EdgeClient) -> None:
    """Give back one share of a client; the last share closes its shards."""
    with _CLIENTS_LOCK:
        entry = _CLIENTS.get(client.root)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del _CLIENTS[client.root]
    client.close()


def open_clients() -> list[Path]:
    """Store directories this process holds open (for tests and diagnostics)."""
    with _CLIENTS_LOCK:
        return list(_CLIENTS)


@atexit.register
def _close_all() -> None:
    """Flush and close open shards before interpreter shutdown, so their locks go with the process."""
    with _CLIENTS_LOCK:
        clients = [entry[0] for entry in _CLIENTS.values()]
        _CLIENTS.clear()
    for client in clients:
        try:
            client.close()
        except Exception:  # best effort at exit
            pass
