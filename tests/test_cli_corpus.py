"""`claimscope ingest`, `corpus list|info|delete` and `search` on the fixture corpus."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from tests.conftest import FIXTURES, run_main
from tests.fakes import HashEmbedder

FIX = FIXTURES / "store"


@pytest.fixture(autouse=True)
def _fake_embedder(monkeypatch):
    import claimscope.agent.resources as res

    monkeypatch.setattr(res, "get_embedder", lambda settings: HashEmbedder(64))
    yield
    res.close_stores()


def run(*args: str, input: str | None = None):
    from claimscope.agent.cli import app

    return CliRunner().invoke(app, list(args), input=input)




def test_ingest_summary_and_idempotence():
    r = run("ingest", str(FIX / "generic.jsonl"), "--corpus", "papers")
    assert r.exit_code == 0, r.output
    assert "added 3 documents" in r.output and "skipped 0 duplicates" in r.output and "3 malformed" in r.output
    assert "generic.jsonl:3: invalid JSON" in r.output
    assert "generic.jsonl:5: year must be an integer" in r.output
    r = run("ingest", str(FIX / "generic.jsonl"), "--corpus", "papers")
    assert "added 0 documents" in r.output and "skipped 3 duplicates" in r.output


def test_ingest_folder_reports_unreadable_pdf():
    r = run("ingest", str(FIX / "folder"), "--corpus", "notes")
    assert r.exit_code == 0, r.output
    assert "added 3 documents" in r.output
    assert "broken.pdf: unreadable PDF" in r.output


def test_corpus_list_info_delete():
    assert "no corpora yet" in run("corpus", "list").output
    run("ingest", str(FIX / "scifact_corpus.jsonl"), "--corpus", "sf")
    run("ingest", str(FIX / "generic.csv"), "--corpus", "csv")
    out = run("corpus", "list").output
    assert "sf" in out and "15" in out and "csv" in out
    assert "5 documents, 15 segments" in run("corpus", "info", "sf").output
    r = run("corpus", "delete", "csv", input="n\n")
    assert r.exit_code == 1 and "nothing deleted" in r.output
    r = run("corpus", "delete", "csv", "--yes")
    assert r.exit_code == 0 and "2 documents" in r.output
    assert "csv" not in run("corpus", "list").output


def test_search_prints_documents_sentences_and_scores():
    run("ingest", str(FIX / "scifact_corpus.jsonl"), "--corpus", "sf")
    run("ingest", str(FIX / "generic.jsonl"), "--corpus", "papers")
    r = run("search", "vitamin D hip fractures", "--corpus", "sf", "-k", "2")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("1. Vitamin D supplementation and fracture risk") and "score" in lines[0]
    assert "[101#1]" in lines[1] and "did not reduce the incidence of hip fractures" in lines[1]
    assert any(line.startswith("2. ") for line in lines)
    r = run("search", "diet heart statin fluoride", "--year-min", "2016", "--year-max", "2018", "-k", "10")
    assert "Mediterranean diet" in r.output and "Fluoride" not in r.output and "Statins" not in r.output
    r = run("search", "diet", "--source", "semantic_scholar")
    assert "no matching documents" in r.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ingest", "missing.jsonl", "--corpus", "x"), "does not exist"),
        (("ingest", str(FIX / "empty_folder"), "--corpus", "x"), "no .txt, .md or .pdf"),
        (("corpus", "info", "nope"), "unknown corpus 'nope'"),
        (("corpus", "delete", "nope", "--yes"), "unknown corpus 'nope'"),
        (("search", "anything", "--corpus", "nope"), "unknown corpus 'nope'"),
        (("investigate", "Vaccination must be made compulsory", "--claim-kind", "opinion"),
         "claim_kind must be one of auto, empirical, debate, not 'opinion'."),
    ],
)
def test_user_errors_exit_2_without_traceback(monkeypatch, capsys, args, message):
    code, out = run_main(monkeypatch, capsys, *args)
    assert code == 2
    assert message in out and "Traceback" not in out


def test_file_with_only_malformed_rows(monkeypatch, capsys, tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text("not json\n{\"id\": 1}\n")
    code, out = run_main(monkeypatch, capsys, "ingest", str(f), "--corpus", "x")
    assert code == 2 and "bad.jsonl:1" in out and "no readable documents" in out


def _jsonl(path, rows) -> str:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_ids_given_different_texts_are_named_with_the_one_kept(monkeypatch, capsys, tmp_path):
    first = _jsonl(tmp_path / "abstracts.jsonl", [
        {"id": "p1", "text": "Zinc shortened colds."}, {"id": "p2", "text": "Vitamin C did not prevent colds."},
        {"id": "p1", "text": "Zinc shortened colds by a day."}, {"id": "p2", "text": "Vitamin C did not prevent colds."},
    ])
    code, out = run_main(monkeypatch, capsys, "ingest", first, "--corpus", "papers")
    assert code == 0, out
    assert "skipped 2 duplicates (1 with an id already used for a different text, see the warnings)" in out
    assert "warning: id 'p1' was given different texts: kept abstracts.jsonl:1, skipped abstracts.jsonl:3." in out
    assert "'p2'" not in out  # the same text twice is a plain duplicate
    assert "delete the corpus (claimscope corpus delete papers) and ingest the corrected file" in out
    # A corrected file later: the corpus keeps what it holds, and says so.
    fixed = _jsonl(tmp_path / "fixed.jsonl", [{"id": "p1", "text": "Zinc shortened colds by a day."}])
    code, out = run_main(monkeypatch, capsys, "ingest", fixed, "--corpus", "papers")
    assert code == 0 and "warning: id 'p1' was given different texts: kept the text already in corpus papers, " \
                          "skipped fixed.jsonl:1." in out, out


class _SlowEmbedder(HashEmbedder):
    """Each encode call takes `seconds`, and the n-th call runs `on_call[n]` first."""

    def __init__(self, seconds: float = 0.0, on_call: dict | None = None) -> None:
        super().__init__(64)
        self.calls = 0
        self.seconds = seconds
        self.on_call = on_call or {}

    def encode(self, texts):
        import time

        self.calls += 1
        if self.calls in self.on_call:
            self.on_call[self.calls]()
        time.sleep(self.seconds)
        return super().encode(texts)


def test_a_large_document_is_named_and_progress_lines_come_while_it_is_indexed(monkeypatch, capsys, tmp_path):
    import claimscope.agent.resources as res
    import claimscope.tools.find.ingest as ingest_mod

    monkeypatch.setattr(ingest_mod, "LARGE_DOCUMENT_SEGMENTS", 20)
    monkeypatch.setenv("CLAIMSCOPE_PROGRESS_SECONDS", "0.1")
    monkeypatch.setattr(res, "get_embedder", lambda settings: _SlowEmbedder(0.6))
    big = " ".join(f"Finding number {n} was replicated." for n in range(40))
    path = _jsonl(tmp_path / "one.jsonl", [{"id": "huge", "text": big}])
    code, out = run_main(monkeypatch, capsys, "ingest", path, "--corpus", "big")
    assert code == 0, out
    assert re.search(r"warning: document 'huge' \(one\.jsonl:1\) has 4\d segments \(an abstract has about ten", out), out
    # One document in flight for over a second: time alone brings lines, naming it.
    assert re.search(r"ingesting: 0/1 \(0%\), \d s; indexing 'huge' \(4\d segments\)", out), out


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT in a background job"])
def test_a_stopped_ingest_says_what_is_stored_and_how_to_resume(monkeypatch, capsys, how):
    import os
    import signal

    import claimscope.agent.resources as res

    # A shell that is not interactive starts `cmd &` with SIGINT ignored; the ingest must still stop.
    sig = signal.SIGTERM if how == "SIGTERM" else signal.SIGINT
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if sig == signal.SIGINT else signal.getsignal(signal.SIGINT)
    monkeypatch.setenv("CLAIMSCOPE_STORE__BATCH_SIZE", "2")
    embedder = _SlowEmbedder(0.2, {3: lambda: os.kill(os.getpid(), sig)})
    monkeypatch.setattr(res, "get_embedder", lambda settings: embedder)

    def not_stopped(signum, frame):  # without the ingest's own handler, SIGTERM would end pytest
        raise AssertionError("the ingest did not handle SIGTERM")

    previous_term = signal.signal(signal.SIGTERM, not_stopped)
    try:
        code, out = run_main(monkeypatch, capsys, "ingest", str(FIX / "scifact_corpus.jsonl"), "--corpus", "sf")
        after = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
    # The handlers in place before are put back.
    assert after == (signal.SIG_IGN if sig == signal.SIGINT else previous, not_stopped)
    assert code == 130, out
    found = re.search(r"interrupted: (\d) of 5 documents of \S+scifact_corpus\.jsonl are in corpus sf and stay "
                      r"there; run `claimscope ingest \S+scifact_corpus\.jsonl --corpus sf` to add the rest", out)
    assert found and 0 < int(found.group(1)) < 5, out
    assert "Traceback" not in out
    code, out = run_main(monkeypatch, capsys, "ingest", str(FIX / "scifact_corpus.jsonl"), "--corpus", "sf")
    assert code == 0 and f"added {5 - int(found.group(1))} documents" in out, out
