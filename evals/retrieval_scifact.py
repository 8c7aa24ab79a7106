"""Retrieval benchmark on BEIR-SciFact: quality (nDCG@10, Recall@100) and speed of the evidence store.

    nice python -m evals.retrieval_scifact            # from the repository root

Corpus: ../shared/data/scifact/corpus.jsonl (5,183 abstracts), queries beir/queries.jsonl,
judgments beir/qrels/test.tsv (the 300 SciFact dev claims; what we report) and beir/qrels/train.tsv
(the train claims; the only split used to choose the product's default fusion). The held-out
SciFact test claims are never touched.

Variants:
- store variants go through `tools.find.store.EvidenceStore` exactly as the product does (one ingest of
  title + sentence segments; the fusion / aggregation are query-time options);
- reference variants (paragraph and sentence embeddings with / without the title, BM25 over
  title + abstract) are computed directly with numpy from the same embedder and tokeniser, to
  place the store against the usual baselines without re-ingesting the corpus for each.

Writes evals/results/retrieval_scifact.json and evals/results/retrieval_scifact.md. Embeddings of
the reference variants are cached in evals/work/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
from scipy import sparse as sp

from claimscope.agent.settings import get_settings
from claimscope.tools.errors import InputError
from claimscope.tools.find.embeddings import load_embedder
from claimscope.tools.find.ingest import read_path
from claimscope.tools.find.sparse import term_id, tokenize
from claimscope.tools.find.store import DENSE, EvidenceStore
from claimscope.tools.models import Document
from claimscope.tools.read.hierarchy import CachedEmbedder

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "scifact"
WORK = REPO / "evals" / "work"
RESULTS = REPO / "evals" / "results"
MODEL = "packaged:all-MiniLM-L6-v2"


# -- data and metrics ---------------------------------------------------------------------------


def load_qrels(path: Path) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = {}
    for line in path.read_text().splitlines()[1:]:
        if line.strip():
            q, d, score = line.split("\t")
            if int(score) > 0:
                qrels.setdefault(q, set()).add(d)
    return qrels


def load_queries() -> dict[str, str]:
    out = {}
    for line in (DATA / "beir" / "queries.jsonl").read_text().splitlines():
        row = json.loads(line)
        out[str(row["_id"])] = row["text"]
    return out


def ndcg_at(ranked: Sequence[str], rel: set[str], k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in rel)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(rel))))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: Sequence[str], rel: set[str], k: int = 100) -> float:
    return len(set(ranked[:k]) & rel) / len(rel) if rel else 0.0


def evaluate(rank_fn: Callable[[str], list[str]], queries: dict[str, str], qrels: dict[str, set[str]]) -> dict[str, float]:
    nd, rc = [], []
    for qid, rel in qrels.items():
        ranked = rank_fn(queries[qid])
        nd.append(ndcg_at(ranked, rel))
        rc.append(recall_at(ranked, rel))
    return {"ndcg@10": round(float(np.mean(nd)), 4), "recall@100": round(float(np.mean(rc)), 4)}


# -- reference variants (numpy) -----------------------------------------------------------------


def cached_embeddings(name: str, texts: list[str], embedder) -> np.ndarray:
    path = WORK / f"emb_{name}.npy"
    if path.exists():
        arr = np.load(path)
        if arr.shape[0] == len(texts):
            return arr
    t = time.perf_counter()
    arr = embedder.encode(texts)
    print(f"  embedded {name}: {len(texts)} texts in {time.perf_counter() - t:.0f} s", flush=True)
    np.save(path, arr)
    return arr


def _stored_sentence_vectors(store: EvidenceStore) -> tuple[np.ndarray, list[str]]:
    """Every segment vector in the store, with the document each belongs to."""
    rows: list[list[float]] = []
    owners: list[str] = []
    offset = None
    while True:
        points, offset = store.client.scroll(store.collection, scroll_filter=store._qdrant_filter(None, "seg"),
                                             limit=4096, offset=offset, with_payload=["doc_id"], with_vectors=True)
        for p in points:
            rows.append((p.vector or {})[DENSE])
            owners.append((p.payload or {})["doc_id"])
        if offset is None:
            return np.asarray(rows, dtype=np.float32), owners


def dense_ranker(matrix: np.ndarray, owner: np.ndarray, doc_ids: list[str], embed_q: Callable[[str], np.ndarray],
                 k: int = 100) -> Callable[[str], list[str]]:
    """Documents ranked by their best row (rows belong to documents via `owner`)."""

    def rank(q: str) -> list[str]:
        s = matrix @ embed_q(q)
        best = np.full(len(doc_ids), -np.inf)
        np.maximum.at(best, owner, s)
        return [doc_ids[i] for i in np.argsort(-best)[:k]]

    return rank


def bm25_ranker(texts: list[str], owner: np.ndarray, doc_ids: list[str], k1: float = 1.2, b: float = 0.75,
                k: int = 100) -> Callable[[str], list[str]]:
    """Classic BM25 (measured avgdl) with our tokeniser; documents ranked by their best row."""
    rows, cols, vals, lens = [], [], [], []
    vocab: dict[int, int] = {}
    for i, t in enumerate(texts):
        toks = tokenize(t)
        lens.append(len(toks))
        counts: dict[int, int] = {}
        for tok in toks:
            c = vocab.setdefault(term_id(tok), len(vocab))
            counts[c] = counts.get(c, 0) + 1
        for c, tf in counts.items():
            rows.append(i)
            cols.append(c)
            vals.append(tf)
    tf = sp.csc_matrix((np.asarray(vals, np.float32), (rows, cols)), shape=(len(texts), len(vocab)))
    lens_a = np.asarray(lens, np.float32)
    avg = lens_a.mean()
    df = np.diff(tf.indptr)
    idf = np.log((len(texts) - df + 0.5) / (df + 0.5) + 1.0)
    tf = tf.tocoo()
    w = tf.data * (k1 + 1) / (tf.data + k1 * (1 - b + b * lens_a[tf.row] / avg))
    mat = sp.csc_matrix((w, (tf.row, tf.col)), shape=tf.shape)

    def rank(q: str) -> list[str]:
        qc = sorted({vocab[term_id(t)] for t in tokenize(q) if term_id(t) in vocab})
        s = np.asarray(mat[:, qc] @ idf[qc]).ravel() if qc else np.zeros(len(texts))
        best = np.full(len(doc_ids), -np.inf)
        np.maximum.at(best, owner, s)
        return [doc_ids[i] for i in np.argsort(-best)[:k]]

    return rank


def rrf_rankers(rankers: list[Callable[[str], list[str]]], k_rrf: int = 60, k: int = 100) -> Callable[[str], list[str]]:
    def rank(q: str) -> list[str]:
        scores: dict[str, float] = {}
        for r in rankers:
            for i, d in enumerate(r(q)):
                scores[d] = scores.get(d, 0.0) + 1.0 / (k_rrf + i)
        return [d for d, _ in sorted(scores.items(), key=lambda kv: -kv[1])[:k]]

    return rank


# -- main -------------------------------------------------------------------------------------


REFERENCE_NAMES = (
    "BM25 title + abstract (paragraph)",
    "dense paragraphs + title",
    "dense paragraphs, no title",
    "dense sentences, no title",
    "numpy: RRF of documents from dense sentences + BM25 paragraph",
    "numpy: RRF of documents from 4 lists (dense/BM25 x sentence/paragraph)",
)


def reference_variants(docs: list[Document], store_dir: Path, memo: CachedEmbedder, embedder, queries: dict[str, str],
                       dev: dict[str, set[str]], train: dict[str, set[str]], embed_missing: bool,
                       ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Baselines computed with numpy; dense ones need cached embeddings unless embed_missing."""
    doc_ids = [d.id for d in docs]
    qvec = lambda q: memo.encode([q])[0]  # noqa: E731
    doc_owner = np.arange(len(docs))
    sent_owner = np.asarray([i for i, d in enumerate(docs) for _ in d.sentences])
    titled = [f"{d.title.rstrip('. ')}. " if d.title else "" for d in docs]
    texts = {
        "par_title": [titled[i] + " ".join(d.sentences) for i, d in enumerate(docs)],
        "par_notitle": [" ".join(d.sentences) for d in docs],
        "sent_notitle": [s for d in docs for s in d.sentences],
    }
    sent_title = [titled[i] + s for i, d in enumerate(docs) for s in d.sentences]

    def dense(name: str, owner: np.ndarray) -> Callable[[str], list[str]] | None:
        if not embed_missing and not (WORK / f"emb_{name}.npy").exists():
            return None
        return dense_ranker(cached_embeddings(name, texts[name], embedder), owner, doc_ids, qvec)

    bm25_par = bm25_ranker(texts["par_title"], doc_owner, doc_ids)
    bm25_sent = bm25_ranker(sent_title, sent_owner, doc_ids)
    dense_sent = None
    try:
        store = (EvidenceStore(memo, path=store_dir, collection="scifact")
                 if (store_dir / "edge").exists() or (store_dir / "collection").exists() else None)
    except InputError as exc:  # e.g. another process is still ingesting into it
        print(f"  store not usable for the references: {exc}", flush=True)
        store = None
    if store is not None:
        with store as st:
            # The store's own title + sentence vectors, so they are not embedded twice.
            matrix, owners = _stored_sentence_vectors(st)
            if len(matrix) == sum(len(d.sentences) for d in docs):
                index = {doc_id: i for i, doc_id in enumerate(doc_ids)}
                dense_sent = dense_ranker(matrix, np.asarray([index[d] for d in owners]), doc_ids, qvec)
    dense_par = dense("par_title", doc_owner)
    rankers: dict[str, Callable[[str], list[str]] | None] = {
        REFERENCE_NAMES[0]: bm25_par,
        REFERENCE_NAMES[1]: dense_par,
        REFERENCE_NAMES[2]: dense("par_notitle", doc_owner),
        REFERENCE_NAMES[3]: dense("sent_notitle", sent_owner),
        REFERENCE_NAMES[4]: rrf_rankers([dense_sent, bm25_par]) if dense_sent else None,
        REFERENCE_NAMES[5]: rrf_rankers([dense_sent, bm25_sent, dense_par, bm25_par]) if dense_sent and dense_par else None,
        "BM25 sentences + title (numpy, measured avgdl)": bm25_sent,
    }
    variants: dict[str, dict[str, float]] = {}
    train_scores: dict[str, dict[str, float]] = {}
    for name, fn in rankers.items():
        if fn is None:
            print(f"  {name}: skipped (embeddings not cached; --embed-references computes them)", flush=True)
            continue
        variants[name] = evaluate(fn, queries, dev)
        if name.startswith("numpy"):
            train_scores[name] = evaluate(fn, queries, train)
        print(f"  {name}: dev {variants[name]}", flush=True)
    return variants, train_scores


def render_md(result: dict) -> str:
    variants, train_scores, best = result["variants"], result["train_variants"], result["best"]
    lines = [
        "# Retrieval on BEIR-SciFact (300 dev claims, 5,183 abstracts)",
        "",
        "Produced by `nice python -m evals.retrieval_scifact`. nDCG@10 and Recall@100 on the dev claims",
        ("(qrels/test.tsv); the default (**bold**) is the store variant with the best nDCG@10 on the "
         f"train claims ({result['train_queries']} queries of qrels/train.tsv)." if result.get("train_queries")
         else "(qrels/test.tsv); the default (**bold**) is the configured fusion (no train-claim selection in this run)."),
        "\"store:\" rows run through",
        "tools/find/store/ as the product does; the others are numpy baselines with the same model and tokeniser.",
        "",
        "| variant | nDCG@10 | Recall@100 | train nDCG@10 |",
        "|---|---|---|---|",
    ]
    for name, m in variants.items():
        label = f"**{name}**" if name == best else name
        tr = (train_scores.get(name) or {}).get("ndcg@10", "")
        lines.append(f"| {label} | {m['ndcg@10']:.4f} | {m['recall@100']:.4f} | {tr} |")
    if result.get("incomplete"):
        lines += ["", f"**Incomplete run:** {result['incomplete']}."]
    missing = [n for n in REFERENCE_NAMES if n not in variants]
    if missing:
        lines += ["", "Not measured in this run (embeddings not computed): " + "; ".join(missing) + "."]
    ing = result.get("ingest_seconds")
    load_i = result.get("load_average_at_ingest") or ["?"]
    lines += [
        "",
        f"- Ingest of the corpus through the store ({result['segments']} title + sentence segments, MiniLM on CPU, "
        "Qdrant Edge): " + (f"{ing:.0f} s ({result['sentences_per_second']:.0f} sentences/s)." if ing else "not measured."),
        (f"- Query latency of the default, k = 10, query encoding included: p50 {result['query_ms_p50']:.1f} ms, "
         f"p95 {result['query_ms_p95']:.1f} ms over {result.get('latency_queries', '?')} dev claims."
         if result.get("query_ms_p50") is not None else "- Query latency: not measured."),
        f"- Machine: {result['cpu_count']} cores. 1-min load average {load_i[0]} at ingest and "
        f"{result['load_average_at_start'][0]} at the start of the query runs"
        + (": other jobs shared the cores, so these timings are pessimistic." if max(
            float(load_i[0]) if load_i[0] != "?" else 0.0, result["load_average_at_start"][0]) > 2.5
           else " (no other job running)."),
        f"- Encoder: {result.get('embeddings_backend', 'torch')} backend, batch {result.get('embeddings_batch_size', 128)}.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reuse-store", action="store_true", help="Query an existing evals/work store instead of re-ingesting.")
    ap.add_argument("--latency-queries", type=int, default=300, help="Queries timed for p50/p95.")
    ap.add_argument("--train-queries", type=int, default=0, help="Train claims used to pick the default (0 = all).")
    ap.add_argument("--skip-references", action="store_true", help="Only the store variants (no numpy baselines).")
    ap.add_argument("--quick", action="store_true",
                    help="Only the BM25, dense and the two hybrid store variants (no sum_top2 variant).")
    ap.add_argument("--fusions", default="", help="Comma-separated store fusions to evaluate (default: all variants).")
    ap.add_argument("--no-train", action="store_true",
                    help="Skip the train claims; the default stays the configured fusion (rrf), not a train-picked one.")
    ap.add_argument("--ingest-seconds", type=float, default=None,
                    help="With --reuse-store: the ingest time an earlier run of this script measured and logged.")
    ap.add_argument("--ingest-load", type=float, default=None, help="Load average logged with --ingest-seconds.")
    ap.add_argument("--references-only", action="store_true",
                    help="Add the numpy baselines to an existing results file (needs the store from a full run).")
    ap.add_argument("--embed-references", action="store_true",
                    help="Embed the paragraph / untitled-sentence baselines when not cached (~3x the ingest's CPU).")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)

    docs: list[Document] = read_path(DATA / "corpus.jsonl").documents
    queries = load_queries()
    dev = load_qrels(DATA / "beir" / "qrels" / "test.tsv")
    train = load_qrels(DATA / "beir" / "qrels" / "train.tsv")
    if args.train_queries:
        train = dict(list(train.items())[: args.train_queries])
    n_sent = sum(len(d.sentences) for d in docs)
    print(f"{len(docs)} documents, {n_sent} sentences; {len(dev)} dev queries, {len(train)} train queries", flush=True)

    # The product's embedder (backend and batch size from config.yaml), so ingest time is the product's.
    settings = get_settings()
    e = settings.embeddings
    embedder = load_embedder(MODEL, e.batch_size, e.threads, backend=e.backend,
                             cache_dir=settings.resolve(settings.llm.model_dir) / "embeddings")
    # the many query-time variants encode each query once
    memo = CachedEmbedder(embedder)
    store_dir = WORK / "store_scifact"
    results_path = RESULTS / "retrieval_scifact.json"
    previous = json.loads(results_path.read_text()) if results_path.exists() else {}

    if args.references_only:
        variants, train_scores = reference_variants(docs, store_dir, memo, embedder, queries, dev, train, args.embed_references)
        if not previous:
            # No complete store run yet: a results file with the baselines only, marked incomplete.
            previous = {"dataset": "BEIR SciFact: 5,183 abstracts, 300 dev claims (qrels/test.tsv)",
                        "incomplete": "store variants, ingest and latency not measured yet",
                        "variants": {}, "train_variants": {}, "best": None, "best_config": None,
                        "ingest_seconds": None, "load_average_at_ingest": None, "segments": n_sent,
                        "sentences_per_second": None, "query_ms_p50": None, "query_ms_p95": None,
                        "load_average_at_start": [round(x, 1) for x in os.getloadavg()], "cpu_count": os.cpu_count()}
        previous["variants"].update(variants)
        previous["train_variants"].update(train_scores)
        results_path.write_text(json.dumps(previous, indent=2) + "\n")
        md = render_md(previous)
        (RESULTS / "retrieval_scifact.md").write_text(md)
        print(md)
        return

    load = os.getloadavg()
    # 1. The product: ingest title + sentence segments through the store.
    ingest_seconds = previous.get("ingest_seconds") if args.reuse_store else None
    ingest_load = previous.get("load_average_at_ingest") if args.reuse_store else None
    if args.reuse_store and args.ingest_seconds:
        ingest_seconds, ingest_load = args.ingest_seconds, [args.ingest_load] if args.ingest_load else None
    fresh = not args.reuse_store or not store_dir.exists()
    if fresh:
        shutil.rmtree(store_dir, ignore_errors=True)
    # Keeps the local Qdrant client (one per path, closed with its last store) open for the whole
    # run, so the collection is loaded from disk once rather than once per variant.
    keeper = EvidenceStore(memo, path=store_dir, collection="scifact")
    if fresh:
        ingest_load = [round(x, 1) for x in os.getloadavg()]
        with EvidenceStore(embedder, path=store_dir, collection="scifact") as st:
            stats = st.add_documents(docs, "scifact")
        ingest_seconds = stats.seconds
        print(f"  ingest: {stats.added} docs, {stats.segments} segments in {stats.seconds:.0f} s", flush=True)

    variants: dict[str, dict[str, float]] = {}
    train_scores: dict[str, dict[str, float]] = {}
    store_variants = {
        "store: BM25 sentences (title prepended)": dict(fusion="sparse"),
        "store: dense sentences + title": dict(fusion="dense"),
        "store: hybrid RRF over segments": dict(fusion="rrf"),
        "store: hybrid RRF over documents (dense sentences + keywords of whole abstracts)": dict(fusion="doc_rrf"),
        "store: hybrid RRF over documents (dense + keyword sentences)": dict(fusion="doc_rrf", keyword_documents=False),
        "store: hybrid RRF over documents (dense + keyword sentences), sum of top-2 segments": dict(
            fusion="doc_rrf", keyword_documents=False, doc_aggregation="sum_top2"),
    }
    if args.quick:
        store_variants.pop("store: hybrid RRF over documents (dense + keyword sentences), sum of top-2 segments")
    if args.fusions:
        keep = set(args.fusions.split(","))
        store_variants = {n: o for n, o in store_variants.items()
                          if o["fusion"] in keep and "doc_aggregation" not in o}
    config_of: dict[str, dict[str, str]] = {}
    for name, opts in store_variants.items():
        with EvidenceStore(memo, path=store_dir, collection="scifact", **opts) as st:
            fn = lambda q, st=st: [h.document.id for h in st.search(q, k=100)]  # noqa: E731
            variants[name] = evaluate(fn, queries, dev)
            if not args.no_train:
                train_scores[name] = evaluate(fn, queries, train)
        config_of[name] = {"fusion": opts["fusion"], "doc_aggregation": opts.get("doc_aggregation", "max"),
                           "keyword_documents": opts.get("keyword_documents", True)}
        print(f"  {name}: dev {variants[name]}  train {train_scores.get(name)}", flush=True)

    # 2. Default = best store variant on the TRAIN claims (dev is only reported).
    if args.no_train:
        best = "store: hybrid RRF over segments"
    else:
        best = max(store_variants, key=lambda n: (train_scores[n]["ndcg@10"], train_scores[n]["recall@100"]))

    # 3. Latency of the default configuration, real query encoding included, k = 10.
    lat: list[float] = []
    qids = list(dev)[: args.latency_queries]
    with EvidenceStore(embedder, path=store_dir, collection="scifact", **store_variants[best]) as st:
        st.search("warm up the index", k=10)
        for qid in qids:
            t = time.perf_counter()
            st.search(queries[qid], k=10)
            lat.append((time.perf_counter() - t) * 1000)
    lat.sort()

    result = {
        "dataset": "BEIR SciFact: 5,183 abstracts, 300 dev claims (qrels/test.tsv)",
        "variants": variants,
        "train_variants": train_scores,
        "train_queries": 0 if args.no_train else len(train),
        "best": best,
        "best_config": config_of[best],
        "ingest_seconds": ingest_seconds,
        "load_average_at_ingest": ingest_load,
        "segments": n_sent,
        "sentences_per_second": round(n_sent / ingest_seconds, 1) if ingest_seconds else None,
        "query_ms_p50": round(statistics.median(lat), 1),
        "query_ms_p95": round(lat[min(len(lat) - 1, int(math.ceil(0.95 * len(lat))) - 1)], 1),
        "latency_queries": len(lat),
        "load_average_at_start": [round(x, 1) for x in load],
        "cpu_count": os.cpu_count(),
        "embeddings_backend": e.backend,
        "embeddings_batch_size": e.batch_size,
    }
    if args.skip_references:  # keep baselines an earlier run of this script measured
        for name, m in previous.get("variants", {}).items():
            if not name.startswith("store:"):
                result["variants"].setdefault(name, m)
    results_path.write_text(json.dumps(result, indent=2) + "\n")

    # 4. Numpy baselines (optional; can be added later with --references-only).
    if not args.skip_references:
        refs, ref_train = reference_variants(docs, store_dir, memo, embedder, queries, dev, train, args.embed_references)
        result["variants"].update(refs)
        result["train_variants"].update(ref_train)
        results_path.write_text(json.dumps(result, indent=2) + "\n")
    keeper.close()
    md = render_md(result)
    (RESULTS / "retrieval_scifact.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
