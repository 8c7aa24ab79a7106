"""Qdrant Edge against today's embedded store (Qdrant local mode + the in-process numpy/scipy
mirror), on the same SciFact store.

    nice python -m evals.store_engines            # needs the store of `python -m evals.retrieval_scifact`
                                                  # and `pip install qdrant-edge-py==0.9.0`

Both engines hold the very same points: the Edge shard is filled from the local-mode collection's
own vectors and payloads (no re-embedding), so any difference is the engine's. Each engine is
measured in a fresh process: the time to open the store, to list its corpora with document and
segment counts (what `claimscope corpus list` does), the first query (local mode builds its mirror
then), query latency p50 / p95 of the default retrieval (`doc_rrf`: documents ranked by fusing the
dense ranking of their best sentence with the keyword ranking of the whole abstract, k = 100,
query encoding included), the process's peak memory, and nDCG@10 / Recall@100 on the 300 SciFact dev
claims. The Edge side implements `doc_rrf` with Edge queries (dense nearest over segment points,
IDF-weighted sparse nearest over document points, filtered by payload) and the same fusion code.
The Edge build (upserting every point, payload indexes, optimisation) is timed too; it excludes
embedding, which both engines share.

Writes evals/results/store_engines.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from evals.retrieval_scifact import (
    DATA,
    MODEL,
    RESULTS,
    WORK,
    load_qrels,
    load_queries,
    ndcg_at,
    recall_at,
)

STORE_DIR = WORK / "store_scifact"
COLLECTION = "scifact"
EDGE_DIR = WORK / "edge_scifact"
K = 100


def _embedder() -> Any:
    from claimscope.agent.settings import get_settings
    from claimscope.tools.embeddings import load_embedder

    settings = get_settings()
    e = settings.embeddings
    return load_embedder(MODEL, e.batch_size, e.threads, backend=e.backend,
                         cache_dir=settings.resolve(settings.llm.model_dir) / "embeddings")


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _quality_and_latency(search: Any, n_latency: int) -> dict[str, Any]:
    queries = load_queries()
    dev = load_qrels(DATA / "beir" / "qrels" / "test.tsv")
    nd, rc, lat = [], [], []
    for i, (qid, rel) in enumerate(dev.items()):
        t = time.perf_counter()
        ranked = search(queries[qid])
        if i < n_latency:
            lat.append((time.perf_counter() - t) * 1000)
        nd.append(ndcg_at(ranked, rel))
        rc.append(recall_at(ranked, rel))
    lat.sort()
    return {"ndcg@10": round(statistics.fmean(nd), 4), "recall@100": round(statistics.fmean(rc), 4),
            "queries": len(dev), "query_ms_p50": round(lat[len(lat) // 2], 1),
            "query_ms_p95": round(lat[int(len(lat) * 0.95)], 1)}


# -- today's store ------------------------------------------------------------------------------


def measure_local(n_latency: int) -> dict[str, Any]:
    from claimscope.tools.store import EvidenceStore

    embedder = _embedder()
    embedder.encode(["load the encoder before the clock starts"])
    t = time.perf_counter()
    store = EvidenceStore(embedder, path=STORE_DIR, collection=COLLECTION, fusion="doc_rrf")
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    corpora = store.corpora()
    corpora_s = time.perf_counter() - t
    t = time.perf_counter()
    store.search("warm up the index", k=10)
    first_s = time.perf_counter() - t
    out = _quality_and_latency(lambda q: [h.document.id for h in store.search(q, k=K)], n_latency)
    store.close()
    return {"open_s": round(open_s, 2), "list_corpora_s": round(corpora_s, 2), "first_query_s": round(first_s, 2),
            "corpora": [c.model_dump() for c in corpora], **out, "peak_rss_mb": _peak_mb()}


# -- Qdrant Edge --------------------------------------------------------------------------------


def _edge_filter(kind: str) -> Any:
    import qdrant_edge as qe

    return qe.Filter(must=[qe.FieldCondition(key="type", match=qe.MatchValue(value=kind))])


def build_edge() -> dict[str, Any]:
    """An Edge shard with the local-mode collection's points, vectors and payloads."""
    import qdrant_edge as qe

    from claimscope.tools.store import DENSE, SPARSE, SPARSE_DOC, EvidenceStore

    store = EvidenceStore(_embedder(), path=STORE_DIR, collection=COLLECTION)
    lc = store.client._client.collections[COLLECTION]  # the local mode's in-memory arrays
    n = len(lc.ids_inv)
    shutil.rmtree(EDGE_DIR, ignore_errors=True)
    EDGE_DIR.mkdir(parents=True)
    config = qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=store.embedder.dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf),
                        SPARSE_DOC: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    t0 = time.perf_counter()
    shard = qe.EdgeShard.create(str(EDGE_DIR), config)
    for key in ("type", "corpus", "doc_id"):
        shard.update(qe.UpdateOperation.create_field_index(key, qe.PayloadSchemaType.Keyword))
    batch: list[Any] = []
    points = 0
    for i in range(n):
        if lc.deleted[i]:
            continue
        payload = lc.payload[i] or {}
        vector: dict[str, Any] = {}
        kind = payload.get("type")
        if kind == "seg":
            vector[DENSE] = [float(x) for x in lc.vectors[DENSE][i]]
            sv = lc.sparse_vectors[SPARSE][i]
            if len(sv.indices):
                vector[SPARSE] = qe.SparseVector(indices=[int(x) for x in sv.indices],
                                                 values=[float(x) for x in sv.values])
        elif kind == "doc":
            sv = lc.sparse_vectors[SPARSE_DOC][i]
            if len(sv.indices):
                vector[SPARSE_DOC] = qe.SparseVector(indices=[int(x) for x in sv.indices],
                                                     values=[float(x) for x in sv.values])
        batch.append(qe.Point(id=str(lc.ids_inv[i]), vector=vector, payload=payload))
        if len(batch) >= 1000:
            shard.update(qe.UpdateOperation.upsert_points(batch))
            points += len(batch)
            batch = []
    if batch:
        shard.update(qe.UpdateOperation.upsert_points(batch))
        points += len(batch)
    upsert_s = time.perf_counter() - t0
    t = time.perf_counter()
    shard.optimize()
    shard.flush()
    optimise_s = time.perf_counter() - t
    shard.close()
    store.close()
    size_mb = sum(p.stat().st_size for p in EDGE_DIR.rglob("*") if p.is_file()) / 2**20
    return {"points": points, "upsert_s": round(upsert_s, 1), "optimise_s": round(optimise_s, 1),
            "disk_mb": round(size_mb, 1), "peak_rss_mb": _peak_mb()}


def measure_edge(n_latency: int, exact: bool = False) -> dict[str, Any]:
    import qdrant_edge as qe

    from claimscope.tools.sparse import BM25Encoder
    from claimscope.tools.store import DENSE, DOC_AVG_LEN, SPARSE_DOC
    from claimscope.tools.store.layout import rrf_fuse

    embedder = _embedder()
    embedder.encode(["load the encoder before the clock starts"])
    bm25 = BM25Encoder()
    bm25_doc = BM25Encoder(k1=bm25.k1, b=bm25.b, avg_len=DOC_AVG_LEN)
    t = time.perf_counter()
    shard = qe.EdgeShard.load(str(EDGE_DIR))
    open_s = time.perf_counter() - t

    t = time.perf_counter()
    names = sorted({(p.payload or {}).get("corpus", "") for p in shard.scroll(
        qe.ScrollRequest(limit=10_000, filter=_edge_filter("corpus"), with_payload=True))[0]} - {""})

    def count(corpus: str, kind: str) -> int:
        flt = qe.Filter(must=[qe.FieldCondition(key="type", match=qe.MatchValue(value=kind)),
                              qe.FieldCondition(key="corpus", match=qe.MatchValue(value=corpus))])
        return shard.count(qe.CountRequest(filter=flt, exact=True))

    corpora = [{"name": c, "documents": count(c, "doc"), "segments": count(c, "seg")} for c in names]
    corpora_s = time.perf_counter() - t
    n = max(200, 10 * K)  # as EvidenceStore.search fetches for k documents
    # exact: brute force like the mirror; otherwise the HNSW index Edge builds when optimising.
    params = qe.SearchParams(exact=True) if exact else None

    def search(query: str) -> list[str]:
        qd = embedder.encode([query])[0]
        dense = shard.query(qe.QueryRequest(limit=n, query=qe.Query.Nearest([float(x) for x in qd], using=DENSE),
                                            filter=_edge_filter("seg"), with_payload=["corpus", "doc_id"],
                                            params=params))
        best: dict[tuple[str, str], float] = {}
        for p in dense:
            key = ((p.payload or {}).get("corpus", ""), (p.payload or {}).get("doc_id", ""))
            best[key] = max(best.get(key, float("-inf")), p.score)
        lists = [sorted(best, key=lambda k: -best[k])]
        qs = bm25_doc.encode_query(query)
        if qs.indices:
            kw = shard.query(qe.QueryRequest(limit=n, query=qe.Query.Nearest(
                qe.SparseVector(indices=list(qs.indices), values=list(qs.values)), using=SPARSE_DOC),
                filter=_edge_filter("doc"), with_payload=["corpus", "doc_id"]))
            lists.append([((p.payload or {}).get("corpus", ""), (p.payload or {}).get("doc_id", "")) for p in kw])
        return [d for (_, d), _ in rrf_fuse(lists, 60)[:K]]

    t = time.perf_counter()
    search("warm up the index")
    first_s = time.perf_counter() - t
    out = _quality_and_latency(search, n_latency)
    shard.close()
    return {"open_s": round(open_s, 3), "list_corpora_s": round(corpora_s, 3), "first_query_s": round(first_s, 3),
            "corpora": corpora, **out, "peak_rss_mb": _peak_mb()}


# -- driver -------------------------------------------------------------------------------------


def _child(engine: str, n_latency: int) -> dict[str, Any]:
    """One engine measured in a fresh process (open time and peak memory start from nothing)."""
    out = WORK / f"store_engines_{engine}.json"
    subprocess.run([sys.executable, "-m", "evals.store_engines", "--engine", engine, "--latency-queries",
                    str(n_latency), "--out", str(out)], check=True)
    return json.loads(out.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=["local", "edge-build", "edge", "edge-exact"],
                    help="Measure one engine (internal).")
    ap.add_argument("--out", type=Path, help="With --engine: where to write its figures.")
    ap.add_argument("--latency-queries", type=int, default=300)
    ap.add_argument("--reuse-edge", action="store_true", help="Keep an Edge shard built by an earlier run.")
    args = ap.parse_args()
    if args.engine:
        fn = {"local": lambda: measure_local(args.latency_queries), "edge-build": build_edge,
              "edge": lambda: measure_edge(args.latency_queries),
              "edge-exact": lambda: measure_edge(args.latency_queries, exact=True)}[args.engine]
        args.out.write_text(json.dumps(fn(), indent=2))
        return
    if not (STORE_DIR / "collection").exists():
        sys.exit(f"no store at {STORE_DIR}: run `python -m evals.retrieval_scifact` first.")
    import qdrant_edge  # noqa: F401 (fails early, with its own message, when the extra is missing)

    load = [round(x, 2) for x in os.getloadavg()]
    previous = json.loads((RESULTS / "store_engines.json").read_text()) if (RESULTS / "store_engines.json").exists() else {}
    build = (previous.get("edge_build") if args.reuse_edge and EDGE_DIR.exists()
             else _child("edge-build", args.latency_queries))
    local = _child("local", args.latency_queries)
    edge = _child("edge", args.latency_queries)
    edge_exact = _child("edge-exact", args.latency_queries)
    result = {
        "dataset": "BEIR SciFact: 5,183 abstracts (45,952 sentence segments), 300 dev claims",
        "retrieval": "doc_rrf (the default), k = 100, query encoding included",
        "local_mode_and_mirror": local, "qdrant_edge": edge, "qdrant_edge_exact_dense": edge_exact,
        "edge_build": build,
        "qdrant_edge_version": version("qdrant-edge-py"),
        "load_average_at_start": load, "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "store_engines.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "edge_build"}, indent=2))
    print("edge build:", build)


if __name__ == "__main__":
    main()
