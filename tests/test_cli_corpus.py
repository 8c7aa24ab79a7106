"""`claimscope ingest`, `corpus list|info|delete` and `search` on the fixture corpus."""

from __future__ import annotations

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
         "--claim-kind must be auto, empirical or debate"),
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
