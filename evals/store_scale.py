"""The store at scale: the embedded engine (Qdrant Edge) on SciFact and on synthetic corpora of 50k
and 500k abstracts, and sessions shared by two processes through PostgreSQL.

    nice python -m evals.store_scale                     # everything (the 500k corpus takes ~2 h and ~23 GB of memory on 2 cores)
    nice python -m evals.store_scale --sizes 50000       # a smaller growth run
    nice python -m evals.store_scale --skip-scifact --skip-postgres
    nice python -m evals.store_scale --sizes "" --skip-postgres --keep-ingest   # SciFact queries again

Writes evals/results/store_scale.json. Uses ../shared/data/scifact and the SciFact store in
evals/work/store_scifact (the one `python -m evals.retrieval_scifact` makes; built here by the
`ingest_s` measurement when missing; a store made by the former local-mode engine is moved to Qdrant
Edge when first opened).

- `embedded`: the SciFact store (5,183 abstracts, 51,136 points) opened in a fresh process: open
  time, corpus listing with counts, first query, latency p50 / p95 of the default retrieval
  (`doc_rrf`, k = 100, query encoding included) over the 300 dev claims, their nDCG@10 and
  Recall@100, the process's peak memory; `ingest_s`: a fresh ingest of the corpus through the
  product with the real embedding model.
- `local_mode`: the engine claimscope used before (Qdrant local mode + an in-process numpy mirror),
  as measured by the former `evals/store_engines.py` at commit 84e332f on the same store; that
  engine is no longer in the code, so these figures are a record, not re-measured.
- `growth`: synthetic corpora made by recombining SciFact: each abstract a SciFact title and a
  random draw of SciFact sentences (as many as a random SciFact abstract has). Quality is not
  measured there, only cost. Ingest goes through `EvidenceStore.add_documents` (deduplication,
  segmentation, keyword vectors, payloads, upserts, the HNSW build) with an embedder that returns
  real SciFact sentence vectors plus a little noise instead of running the model, so `ingest_s`
  is the store's own cost; the model's cost is measured separately (`embed_sentences_per_s`, on
  2,000 real sentences) and `ingest_s_per_100k_with_embedding` adds the two. Latency is measured
  with the real query encoder on 200 SciFact dev claims at the product's default k = 50.
  `fit` gives the least-squares growth of p95 latency and peak memory per 100k abstracts.
- `postgres_sessions`: `evals/postgres_sessions.py` (two processes, one PostgreSQL checkpointer).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

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

SCIFACT_STORE = WORK / "store_scifact"
SCALE_DIR = WORK / "store_scale"
COLLECTION = "scifact"
OUT = RESULTS / "store_scale.json"
LOCAL_MODE_RECORD = {
    "measured_by": "python -m evals.store_engines at commit 84e332f (same SciFact points; that engine and "
                   "its runner were removed when Qdrant Edge replaced it)",
    "open_s": 5.16, "list_corpora_s": 1.18, "first_query_s": 0.91, "query_ms_p50": 45.5, "query_ms_p95": 127.5,
    "rss_mb": 1893.5, "ndcg@10": 0.7211, "recall@100": 0.9677, "disk_mb": 239,
    "ingest_s": 212, "ingest_note": "evals/results/retrieval_scifact.md (45,952 segments, MiniLM on CPU)",
}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _disk_mb(path: Path) -> float:
    # Allocated blocks, not apparent sizes: Edge preallocates sparse files.
    return round(sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def _embedder() -> Any:
    from claimscope.agent.settings import get_settings
    from claimscope.tools.find.embeddings import load_embedder

    settings = get_settings()
    e = settings.embeddings
    return load_embedder(MODEL, e.batch_size, e.threads, backend=e.backend,
                         cache_dir=settings.resolve(settings.llm.model_dir) / "embeddings")


def _latencies(search: Any, queries: Sequence[str]) -> dict[str, float]:
    lat = []
    for q in queries:
        t = time.perf_counter()
        search(q)
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return {"query_ms_p50": round(lat[len(lat) // 2], 1), "query_ms_p95": round(lat[int(len(lat) * 0.95)], 1),
            "queries": len(lat)}


def _dev_claims() -> tuple[dict[str, str], dict[str, set[str]]]:
    return load_queries(), load_qrels(DATA / "beir" / "qrels" / "test.tsv")


# -- the SciFact store, in a fresh process ------------------------------------------------------


def _open_timed(path: Path) -> tuple[Any, float, list[Any], float]:
    """The store at `path` opened with the real query encoder already loaded: the store, the
    seconds the open took, its corpora and the seconds listing them took."""
    from claimscope.tools.find.store import EvidenceStore

    embedder = _embedder()
    embedder.encode(["load the encoder before the clock starts"])
    t = time.perf_counter()
    store = EvidenceStore(embedder, path=path, collection=COLLECTION, fusion="doc_rrf")
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    corpora = store.corpora()
    return store, open_s, corpora, time.perf_counter() - t


def measure_embedded() -> dict[str, Any]:
    store, open_s, corpora, list_s = _open_timed(SCIFACT_STORE)
    t = time.perf_counter()
    store.search("warm up", k=10)
    first_s = time.perf_counter() - t
    queries, dev = _dev_claims()
    nd, rc = [], []
    for qid, rel in dev.items():
        ranked = [h.document.id for h in store.search(queries[qid], k=100)]
        nd.append(ndcg_at(ranked, rel))
        rc.append(recall_at(ranked, rel))
    out = _latencies(lambda q: store.search(q, k=100), [queries[q] for q in dev])
    store.close()
    return {"open_s": round(open_s, 3), "list_corpora_s": round(list_s, 3), "first_query_s": round(first_s, 3),
            "corpora": [c.model_dump() for c in corpora], **out, "ndcg@10": round(statistics.fmean(nd), 4),
            "recall@100": round(statistics.fmean(rc), 4), "rss_mb": _peak_mb(), "disk_mb": _disk_mb(SCIFACT_STORE / "edge")}


def _scifact_store_exists() -> bool:
    return (SCIFACT_STORE / "edge").exists() or (SCIFACT_STORE / "collection").exists()


def measure_scifact_ingest() -> dict[str, Any]:
    """A fresh ingest of the SciFact corpus through the product, real embedding model included. Where
    there is no SciFact store yet, this ingest becomes it (kept for `embedded` and the synthetic
    corpora); otherwise it goes to a scratch directory removed afterwards."""
    from claimscope.tools.find.ingest import read_path
    from claimscope.tools.find.store import EvidenceStore

    keep = not _scifact_store_exists()
    target = SCIFACT_STORE if keep else SCALE_DIR / "scifact_ingest"
    shutil.rmtree(target, ignore_errors=True)
    embedder = _embedder()
    embedder.encode(["load the encoder before the clock starts"])
    docs = read_path(DATA / "corpus.jsonl").documents
    t = time.perf_counter()
    with EvidenceStore(embedder, path=target, collection=COLLECTION, fusion="doc_rrf") as store:
        stats = store.add_documents(docs, "scifact")
    ingest_s = time.perf_counter() - t
    disk = _disk_mb(target)
    if not keep:
        shutil.rmtree(target, ignore_errors=True)
    return {"ingest_s": round(ingest_s, 1), "segments": stats.segments, "documents": stats.added,
            "disk_mb": disk, "rss_mb": _peak_mb()}


# -- synthetic corpora ---------------------------------------------------------------------------


def _scifact_material() -> tuple[list[str], list[str], list[int], np.ndarray]:
    """SciFact titles, sentences, sentences per abstract, and the store's sentence vectors (cached)."""
    cache = SCALE_DIR / "material"
    if not (cache / "vectors.npy").exists():
        from claimscope.tools.find.ingest import read_path
        from claimscope.tools.find.store import DENSE, EvidenceStore

        cache.mkdir(parents=True, exist_ok=True)
        docs = read_path(DATA / "corpus.jsonl").documents
        rows: list[list[float]] = []
        with EvidenceStore(_embedder(), path=SCIFACT_STORE, collection=COLLECTION) as store:
            offset = None
            while True:
                points, offset = store.client.scroll(store.collection, scroll_filter=store._qdrant_filter(None, "seg"),
                                                     limit=4096, offset=offset, with_payload=False, with_vectors=True)
                rows.extend((p.vector or {})[DENSE] for p in points)
                if offset is None:
                    break
        np.save(cache / "vectors.npy", np.asarray(rows, dtype=np.float32))
        (cache / "text.json").write_text(json.dumps({
            "titles": [d.title for d in docs], "sentences": [s for d in docs for s in d.sentences],
            "lengths": [len(d.sentences) for d in docs if d.sentences]}))
    text = json.loads((cache / "text.json").read_text())
    return text["titles"], text["sentences"], text["lengths"], np.load(cache / "vectors.npy")


class RecombiningEmbedder:
    """Real SciFact sentence vectors, chosen by a hash of the text, plus a little noise: the vector
    distribution of the real corpus without running the model (ingest cost of the store alone)."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        idx = [int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little") for t in texts]
        base = self.vectors[[i % len(self.vectors) for i in idx]]
        rng = np.random.default_rng(idx[0])
        out = base + 0.05 * rng.standard_normal(base.shape).astype(np.float32) / np.sqrt(self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _synthetic(n: int, seed: int = 13) -> Any:
    from claimscope.tools.models import Document

    titles, sentences, lengths, _ = _scifact_material()
    rng = random.Random(seed)
    for i in range(n):
        k = rng.choice(lengths)
        yield Document(id=f"syn{i}", title=rng.choice(titles), year=rng.randint(1990, 2024),
                       sentences=[rng.choice(sentences) for _ in range(k)])


def build_synthetic(n: int) -> dict[str, Any]:
    """Ingest n synthetic abstracts (resumes an interrupted ingest: documents stored are skipped)."""
    from claimscope.tools.find.store import EvidenceStore

    target = SCALE_DIR / f"store_{n}"
    done = target / "complete.json"
    if done.exists():
        return json.loads(done.read_text())
    _, _, _, vectors = _scifact_material()
    t = time.perf_counter()
    handled = 0

    def progress(k: int) -> None:
        nonlocal handled
        handled += k
        if handled % 50_000 < k:
            print(f"  {n}: {handled} abstracts in {time.perf_counter() - t:.0f} s (load {_load()})", flush=True)
    with EvidenceStore(RecombiningEmbedder(vectors), path=target, collection=COLLECTION, fusion="doc_rrf",
                       batch_size=1024) as store:
        stats = store.add_documents(_synthetic(n), "synthetic", progress=progress)
        info = store.corpora()[0]
    out = {"abstracts": info.documents, "segments": info.segments, "ingest_s": round(time.perf_counter() - t, 1),
           "ingest_added_this_run": stats.added, "ingest_rss_mb": _peak_mb(), "disk_mb": _disk_mb(target),
           "load_average_after_ingest": _load()}
    done.write_text(json.dumps(out, indent=2))
    return out


def measure_synthetic(n: int) -> dict[str, Any]:
    target = SCALE_DIR / f"store_{n}"
    store, open_s, _, list_s = _open_timed(target)
    queries, dev = _dev_claims()
    claims = [queries[q] for q in list(dev)[:200]]
    store.search("warm up", k=50)
    out = _latencies(lambda q: store.search(q, k=50), claims)
    store.close()
    return {"open_s": round(open_s, 3), "list_corpora_s": round(list_s, 3), **out, "rss_mb": _peak_mb()}


def embedding_rate() -> float:
    """Sentences per second of the real embedding model on 2,000 SciFact title + sentence texts."""
    _, sentences, _, _ = _scifact_material()
    embedder = _embedder()
    embedder.encode(["load the encoder before the clock starts"])
    texts = sentences[:2000]
    t = time.perf_counter()
    embedder.encode(texts)
    return round(len(texts) / (time.perf_counter() - t), 1)


def _fit(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope per 100k abstracts."""
    if len(points) < 2:
        return None
    x = np.asarray([p[0] for p in points], float) / 100_000
    y = np.asarray([p[1] for p in points], float)
    return round(float(np.polyfit(x, y, 1)[0]), 2)


# -- driver ---------------------------------------------------------------------------------------


def _child(task: str, arg: str = "") -> dict[str, Any]:
    """One measurement in a fresh process (open time and peak memory start from nothing)."""
    out = SCALE_DIR / f"child_{task}_{arg or 'x'}.json"
    subprocess.run([sys.executable, "-m", "evals.store_scale", "--task", task, "--arg", arg, "--out", str(out)],
                   check=True)
    return json.loads(out.read_text())


def _save(result: dict[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50000,500000", help="Synthetic corpus sizes (abstracts), comma-separated.")
    ap.add_argument("--skip-scifact", action="store_true")
    ap.add_argument("--skip-postgres", action="store_true")
    ap.add_argument("--keep-stores", action="store_true", help="Keep the synthetic stores (tens of GB at 500k).")
    ap.add_argument("--keep-ingest", action="store_true",
                    help="Re-measure SciFact queries but keep the previous run's SciFact ingest figures.")
    ap.add_argument("--task", help=argparse.SUPPRESS)
    ap.add_argument("--arg", default="", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.task:
        fn = {"embedded": measure_embedded, "scifact-ingest": measure_scifact_ingest,
              "build": lambda: build_synthetic(int(args.arg)), "measure": lambda: measure_synthetic(int(args.arg)),
              "embed-rate": lambda: {"embed_sentences_per_s": embedding_rate()}}[args.task]
        args.out.write_text(json.dumps(fn(), indent=2))
        return
    SCALE_DIR.mkdir(parents=True, exist_ok=True)
    if args.skip_scifact and not _scifact_store_exists():
        sys.exit(f"no SciFact store at {SCIFACT_STORE}: run once without --skip-scifact to build it.")
    result: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {}
    result.update({"command": "python -m evals.store_scale", "cpu_count": os.cpu_count(),
                   "qdrant_edge_version": _edge_version(), "load_average_at_start": _load(),
                   "local_mode": LOCAL_MODE_RECORD})
    if not args.skip_scifact:
        before = result.get("embedded") or {}
        if args.keep_ingest and "ingest_s" in before:
            ingest = {"ingest_s": before["ingest_s"], "segments": before["ingest_segments"],
                      "rss_mb": before["ingest_rss_mb"], "load_average": before.get("ingest_load_average")}
        else:
            ingest = _child("scifact-ingest")
            ingest["load_average"] = _load()
        embedded = _child("embedded")
        embedded.update({"ingest_s": ingest["ingest_s"], "ingest_segments": ingest["segments"],
                         "ingest_rss_mb": ingest["rss_mb"], "ingest_load_average": ingest["load_average"],
                         "load_average": _load()})
        result["embedded"] = embedded
        _save(result)
    growth = dict(result.get("growth") or {})
    if args.sizes:
        rate = _child("embed-rate")["embed_sentences_per_s"]
        growth["embed_sentences_per_s"] = rate
        for n in [int(s) for s in args.sizes.split(",") if s]:
            print(f"synthetic corpus of {n} abstracts (load {_load()})", flush=True)
            built = _child("build", str(n))
            measured = _child("measure", str(n))
            per_100k = 100_000 / n
            row = {**built, **measured, "load_average": _load(),
                   "ingest_s_per_100k_store_only": round(built["ingest_s"] * per_100k, 1),
                   "ingest_s_per_100k_with_embedding": round(
                       built["ingest_s"] * per_100k + built["segments"] * per_100k / rate, 1)}
            growth[str(n)] = row
            result["growth"] = growth
            _save(result)
            if not args.keep_stores:
                shutil.rmtree(SCALE_DIR / f"store_{n}", ignore_errors=True)
        sizes = [(5183, result.get("embedded", {})), *[(int(k), v) for k, v in growth.items() if k.isdigit()]]
        growth["fit"] = {
            "query_ms_p95_per_100k": _fit([(n, r["query_ms_p95"]) for n, r in sizes if "query_ms_p95" in r]),
            "rss_mb_per_100k": _fit([(n, r["rss_mb"]) for n, r in sizes if "rss_mb" in r]),
            "note": "SciFact (k = 100) and the synthetic corpora (k = 50) together; least squares",
        }
        result["growth"] = growth
    if not args.skip_postgres:
        try:
            from evals.postgres_sessions import measure as measure_postgres
        except ImportError as exc:
            result["postgres_sessions"] = {"skipped": f"evals.postgres_sessions unavailable ({exc})"}
        else:
            result["postgres_sessions"] = measure_postgres()
    result["load_average_at_end"] = _load()
    _save(result)
    print(json.dumps(result, indent=2))


def _edge_version() -> str:
    from importlib.metadata import version

    return version("qdrant-edge-py")


if __name__ == "__main__":
    main()
