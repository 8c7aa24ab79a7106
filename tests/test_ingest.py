"""Readers: SciFact and generic JSONL, CSV, folders of .txt/.md/.pdf, and their error reports."""

from __future__ import annotations

import pytest

from claimscope.tools.errors import InputError
from claimscope.tools.find.ingest import read_path
from tests.conftest import FIXTURES

FIX = FIXTURES / "store"


def test_scifact_jsonl_keeps_the_given_sentences():
    r = read_path(FIX / "scifact_corpus.jsonl")
    assert r.problems == []
    assert [d.id for d in r.documents] == ["101", "102", "103", "104", "105"]
    assert r.documents[0].sentences[1] == "Vitamin D did not reduce the incidence of hip fractures (HR 0.98, p = 0.81)."


def test_generic_jsonl_metadata_and_malformed_rows():
    r = read_path(FIX / "generic.jsonl")
    assert [d.id for d in r.documents] == ["g1", "g2", "g5"]
    g1 = r.documents[0]
    assert g1.sentences == ["Statin users reported muscle pain more often than non-users.",
                            "In blinded trials, however, the excess was small (e.g. 1% vs. 0.8%)."]
    assert (g1.year, g1.venue, g1.citation_count, g1.influential_citation_count) == (2019, "Lancet", 42, 5)
    assert (g1.retracted, g1.publication_types, g1.url) == (False, ["JournalArticle"], "https://example.org/g1")
    assert [(p.location, p.reason.split(" (")[0]) for p in r.problems] == [
        ("generic.jsonl:3", "invalid JSON"),
        ("generic.jsonl:4", "missing or empty text"),
        ("generic.jsonl:5", "year must be an integer, got 'last spring'"),
    ]


def test_csv_rows_are_numbered_by_line():
    r = read_path(FIX / "generic.csv")
    assert [d.id for d in r.documents] == ["c1", "c4"]
    assert r.documents[0].authors == ["Lee K.", "Park J."]
    assert r.documents[0].sentences[1] == "Effects were modest (approx. 10 min per hour of use)."
    assert [p.location for p in r.problems] == ["generic.csv:3", "generic.csv:4"]


def test_csv_without_text_column(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("id,title\n1,x\n")
    with pytest.raises(InputError, match="text"):
        read_path(f)


def test_folder_reads_txt_md_pdf_and_reports_unreadable_pdf():
    r = read_path(FIX / "folder")
    by_id = {d.id: d for d in r.documents}
    assert sorted(by_id) == ["handwashing.pdf", "memo.txt", "notes.md"]
    assert by_id["notes.md"].title == "Ultra-processed food and weight gain"
    assert by_id["notes.md"].sentences[-1] == "The study was small (n = 20) and short."
    assert by_id["memo.txt"].title == "Air pollution and dementia"
    assert by_id["memo.txt"].sentences[1] == "The hazard ratio per 10 ug/m3 was 1.16 (95% CI 1.07-1.26)."
    assert by_id["handwashing.pdf"].title == "Handwashing in schools"
    assert by_id["handwashing.pdf"].sentences == [
        "Regular handwashing reduced respiratory infections in schools.", "Absence fell by a fifth."]
    assert [p.location for p in r.problems] == ["broken.pdf"]
    assert "unreadable PDF" in r.problems[0].reason


def test_empty_folder_and_missing_path(tmp_path):
    with pytest.raises(InputError, match="no .txt, .md or .pdf"):
        read_path(FIX / "empty_folder")
    with pytest.raises(InputError, match="does not exist"):
        read_path(tmp_path / "nope.jsonl")
    other = tmp_path / "data.xml"
    other.write_text("<x/>")
    with pytest.raises(InputError, match="supported"):
        read_path(other)


def test_missing_id_becomes_content_hash(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"title": "T", "text": "A finding. Another one."}\n')
    d = read_path(f).documents[0]
    assert d.id == d.content_hash and d.sentences == ["A finding.", "Another one."]


def test_control_characters_and_escapes_never_reach_the_documents(tmp_path):
    import json

    from claimscope.tools.find.ingest import read_path

    rows = [{"doc_id": 1, "title": "Zinc\x00 \x1b[31mand colds\x1b[0m", "abstract": ["Zinc\x07 shortened colds."]},
            {"id": "g1", "title": "Tea\u202e", "text": "Green tea\x1b]0;owned\x07 reduced colds. It was cheap."}]
    (tmp_path / "a.jsonl").write_text(json.dumps(rows[0]) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(rows[1]) + "\n")
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "n.txt").write_text("Coffee\x1b[2J and sleep\n\nCoffee\x00 delayed sleep onset.\n")
    docs = [d for name in ("a.jsonl", "b.jsonl", "f") for d in read_path(tmp_path / name).documents]
    texts = [t for d in docs for t in (d.title, *d.sentences)]
    assert "Zinc and colds" in texts and "Zinc shortened colds." in texts
    assert "Green tea reduced colds." in texts and "Coffee delayed sleep onset." in texts
    assert not any(ch in t for t in texts for ch in "\x00\x07\x1b\u202e"), texts


@pytest.mark.parametrize(("head", "kind"), [
    (b"\n<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Access denied</body></html>", "HTML"),
    (b"\xef\xbb\xbf<html lang='en'><body>paywall</body></html>", "HTML"),
    (b"PK\x03\x04 word/document.xml", "a ZIP archive or an Office document"),
    (b"\x89PNG\r\n\x1a\n", "an image"),
])
def test_a_file_named_pdf_that_is_not_one_is_named_by_its_content(tmp_path, head, kind):
    (tmp_path / "paper.pdf").write_bytes(head + b" " * 50)
    [problem] = read_path(tmp_path).problems
    assert problem.location == "paper.pdf"
    assert problem.reason.startswith(f"paper.pdf is not a PDF (it looks like {kind}); ")
    if kind == "HTML":
        assert problem.reason.endswith("save the PDF itself, or save the page as text (.txt) and ingest that")


def test_an_unreadable_pdf_is_described_without_exception_class_names():
    [problem] = read_path(FIX / "folder").problems
    assert problem.reason.startswith("unreadable PDF (") and "Error" not in problem.reason
    assert "PdfReadError" not in problem.reason and "save its text as .txt" in problem.reason


def test_ids_given_different_texts_are_found_with_where_each_was_read(tmp_path):
    from claimscope.tools.find.ingest import conflicting_ids
    from claimscope.tools.models import Document

    f = tmp_path / "abstracts.jsonl"
    rows = [("a", "First text."), ("b", "Text of b."), ("a", "A corrected text."), ("b", "Text of b."),
            ("c", "Old c."), ("a", "Yet another text.")]
    f.write_text("".join(f'{{"id": "{i}", "text": "{t}"}}\n' for i, t in rows), encoding="utf-8")
    result = read_path(f)
    assert result.locations == [f"abstracts.jsonl:{n}" for n in range(1, 7)]
    # b repeats the same text: a plain duplicate, not a conflict.
    [a] = conflicting_ids(result)
    assert (a.id, a.kept, a.dropped) == ("a", "abstracts.jsonl:1", ["abstracts.jsonl:3", "abstracts.jsonl:6"])
    # What the corpus already holds under an id is the text that stays.
    stored = [Document(id="c", sentences=["New c."]), Document(id="b", sentences=["Text of b."])]
    by_id = {c.id: c for c in conflicting_ids(result, stored)}
    assert sorted(by_id) == ["a", "c"]
    assert (by_id["c"].kept, by_id["c"].dropped) == ("the corpus", ["abstracts.jsonl:5"])


def test_large_documents_are_named_with_their_segment_count(tmp_path, monkeypatch):
    import claimscope.tools.find.ingest as ingest_mod
    from claimscope.tools.find.store import segment_document

    monkeypatch.setattr(ingest_mod, "LARGE_DOCUMENT_SEGMENTS", 20)
    f = tmp_path / "docs.jsonl"
    big = " ".join(f"Sentence number {n} reports a finding." for n in range(30))
    f.write_text(f'{{"id": "small", "text": "One finding."}}\n{{"id": "huge", "text": "{big}"}}\n', encoding="utf-8")
    result = read_path(f)
    found = ingest_mod.large_documents(result, lambda d: len(segment_document(d, ("sentence", "paragraph"))))
    assert found == [("huge", "docs.jsonl:2", 31)]
