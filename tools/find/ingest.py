"""Readers that turn user files into `Document`s for the evidence store.

Supported inputs (dispatched by `read_path`):
- SciFact corpus JSONL: {"doc_id": int, "title": str, "abstract": [sentence, ...], ...}
- generic JSONL / CSV with id, title, text (aliases: _id / doc_id, abstract) and optional metadata
  columns year, venue, authors (list, or a string separated by ";"), doi, url, citation_count,
  influential_citation_count, retracted, publication_types. A missing id becomes the content hash.
- a folder of .txt / .md / .pdf files (searched recursively); the id is the path relative to the
  folder, the title the first Markdown heading, the PDF's title metadata or the file name.

A malformed row or unreadable file is reported as a `RowProblem` ("file.jsonl:17", reason) and
skipped; the rest is read. Input that cannot be used at all raises `InputError`. A file named .pdf
is checked by its first bytes, so a saved web page is named as one rather than as a broken PDF.

Each document's location is kept (`ReadResult.locations`), so an id given twice with different
text (`conflicting_ids`) and a document too large to be an abstract (`large_documents`) can be
reported where they are.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from pypdf import PdfReader
from pypdf.errors import PdfReadError

from claimscope.tools.errors import InputError
from claimscope.tools.models import Document
from claimscope.tools.text.segmenter import paragraphs, split_paragraph, split_sentences
from claimscope.tools.text.text_guard import strip_control

log = logging.getLogger(__name__)

FOLDER_SUFFIXES = (".txt", ".md", ".pdf")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv")
_META_FIELDS = ("venue", "doi", "url")
_INT_FIELDS = ("year", "citation_count", "influential_citation_count")
# Segments (about one per sentence) above which a document is named before indexing: an abstract
# has about ten, a whole paper a few hundred; thousands are a book, a web page's full text or a
# wrong field, slow to index and crowding the corpus's other documents out of searches.
LARGE_DOCUMENT_SEGMENTS = 2000


class RowProblem(BaseModel):
    """A row or file that was skipped, and why."""

    location: str
    reason: str


class ReadResult(BaseModel):
    documents: list[Document]
    problems: list[RowProblem]
    locations: list[str] = Field(default_factory=list, description="Where each document was read "
                                 "(\"file.jsonl:17\", a file's path in a folder), in the order of `documents`.")

    def location(self, index: int) -> str:
        """Where documents[index] was read."""
        return self.locations[index] if index < len(self.locations) else f"document {index + 1}"


class ConflictingId(BaseModel):
    """An id given to documents with different text: only `kept` is stored, the others are skipped."""

    id: str
    kept: str = Field(description="Where the stored text comes from: a location, or 'the corpus'.")
    dropped: list[str] = Field(description="Locations of the texts that are not stored.")


def conflicting_ids(result: ReadResult, stored: Sequence[Document] = ()) -> list[ConflictingId]:
    """Ids that `result` gives to different texts, or gives a text other than the one `stored`
    under that id in the corpus. The store keeps the first text an id gets, so the stored one
    wins, then the first read; an id repeated with the same text is a plain duplicate."""
    in_corpus = {d.id: d.content_hash for d in stored}
    first: dict[str, tuple[str, str]] = {}  # id -> (hash, location) of the text that is kept
    dropped: dict[str, list[str]] = {}
    for i, doc in enumerate(result.documents):
        where = result.location(i)
        if doc.id in in_corpus:
            kept = (in_corpus[doc.id], "the corpus")
        else:
            kept = first.setdefault(doc.id, (doc.content_hash, where))
        if doc.content_hash != kept[0]:
            dropped.setdefault(doc.id, []).append(where)
    return [ConflictingId(id=i, kept="the corpus" if i in in_corpus else first[i][1], dropped=where)
            for i, where in dropped.items()]


def large_documents(result: ReadResult, segments: Callable[[Document], int]) -> list[tuple[str, str, int]]:
    """(id, location, segments) of each document with more than LARGE_DOCUMENT_SEGMENTS segments,
    `segments` counting them as the store will split it."""
    out = []
    for i, doc in enumerate(result.documents):
        if len(doc.sentences) + 1 > LARGE_DOCUMENT_SEGMENTS:  # segments <= sentences + 1: skip the count
            n = segments(doc)
            if n > LARGE_DOCUMENT_SEGMENTS:
                out.append((doc.id, result.location(i), n))
    return out


def _clean(s: Any) -> str:
    # Control characters and terminal escapes never reach the store, so no report or terminal
    # shows them raw.
    return " ".join(strip_control(str(s)).split()) if s is not None else ""


def _as_int(value: Any, name: str) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an integer, got {value!r}") from exc
    if f != int(f):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(f)


def _as_bool(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("true", "yes", "1", "y"):
        return True
    if s in ("false", "no", "0", "n"):
        return False
    raise ValueError(f"retracted must be true/false, got {value!r}")


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [_clean(v if not isinstance(v, dict) else v.get("name", "")) for v in value if v]
    return [p.strip() for p in str(value).split(";") if p.strip()]


def scifact_document(row: dict[str, Any]) -> Document:
    """A document from one SciFact corpus record (sentences are kept as SciFact split them)."""
    if "doc_id" not in row:
        raise ValueError("missing doc_id")
    abstract = row.get("abstract")
    if not isinstance(abstract, list):
        raise ValueError("abstract must be a list of sentences")
    sentences = [_clean(s) for s in abstract if _clean(s)]
    title = _clean(row.get("title"))
    if not sentences and not title:
        raise ValueError("empty title and abstract")
    return Document(id=str(row["doc_id"]), title=title, sentences=sentences)


def generic_document(row: dict[str, Any]) -> Document:
    """A document from a generic id/title/text record with optional metadata."""
    text = row.get("text", row.get("abstract"))
    if isinstance(text, list):
        sentences = [_clean(s) for s in text if _clean(s)]
    else:
        sentences = split_sentences(strip_control(str(text), keep_newlines=True)) if text is not None else []
    title = _clean(row.get("title"))
    if not sentences:
        raise ValueError("missing or empty text")
    fields: dict[str, Any] = {"title": title, "sentences": sentences}
    for name in _INT_FIELDS:
        fields[name] = _as_int(row.get(name), name)
    for name in _META_FIELDS:
        v = _clean(row.get(name))
        fields[name] = v or None
    fields["authors"] = _as_list(row.get("authors"))
    fields["publication_types"] = _as_list(row.get("publication_types"))
    fields["retracted"] = _as_bool(row.get("retracted"))
    raw_id = row.get("id", row.get("_id", row.get("doc_id")))
    doc = Document(id="tmp", **fields)
    doc.id = _clean(raw_id) if raw_id not in (None, "") else doc.content_hash
    return doc


def _is_scifact(row: dict[str, Any]) -> bool:
    return "doc_id" in row and isinstance(row.get("abstract"), list)


def read_jsonl(path: Path) -> ReadResult:
    docs: list[Document] = []
    problems: list[RowProblem] = []
    locations: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(RowProblem(location=where, reason=f"invalid JSON ({exc.msg})"))
                continue
            if not isinstance(row, dict):
                problems.append(RowProblem(location=where, reason="not a JSON object"))
                continue
            try:
                docs.append(scifact_document(row) if _is_scifact(row) else generic_document(row))
                locations.append(where)
            except (ValueError, ValidationError) as exc:
                problems.append(RowProblem(location=where, reason=str(exc).splitlines()[0]))
    return ReadResult(documents=docs, problems=problems, locations=locations)


def read_csv(path: Path) -> ReadResult:
    docs: list[Document] = []
    problems: list[RowProblem] = []
    locations: list[str] = []
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not ({"text", "abstract"} & {f.strip() for f in reader.fieldnames}):
            raise InputError(f"{path} needs a header row with a 'text' (or 'abstract') column, "
                             "plus optional id, title, year, doi, ... columns.")
        for row in reader:
            where = f"{path.name}:{reader.line_num}"
            clean = {(k or "").strip(): v for k, v in row.items()}
            if None in row:
                problems.append(RowProblem(location=where, reason="more fields than header columns"))
                continue
            try:
                docs.append(generic_document(clean))
                locations.append(where)
            except (ValueError, ValidationError) as exc:
                problems.append(RowProblem(location=where, reason=str(exc).splitlines()[0]))
    return ReadResult(documents=docs, problems=problems, locations=locations)


# What a file named .pdf that is not one usually is, by its first bytes (lower-cased, leading
# whitespace and a UTF-8 byte order mark removed).
_NOT_PDF: tuple[tuple[tuple[bytes, ...], str, str], ...] = (
    ((b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<script", b"<!--"),
     "HTML", "save the PDF itself, or save the page as text (.txt) and ingest that"),
    ((b"<?xml", b"<svg"), "XML", "save the PDF itself, or the text as .txt"),
    ((b"pk\x03\x04",), "a ZIP archive or an Office document",
     "export it as PDF or save its text as .txt"),
    ((b"\x89png", b"\xff\xd8\xff", b"gif8"), "an image", "a picture needs OCR first; save its text as .txt"),
    ((b"{", b"["), "JSON", "give it a .jsonl or .json name if it holds documents"),
)


def _not_a_pdf(path: Path) -> str | None:
    """Why the file named .pdf is not a PDF, or None if it starts like one (a PDF header may
    follow up to 1 KiB of other bytes)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        return f"cannot read {path.name} ({exc.strerror or exc})"
    if b"%PDF-" in head:
        return None
    if not head.strip():
        return f"{path.name} is empty, not a PDF; save the PDF again"
    start = head.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    for prefixes, kind, what_to_do in _NOT_PDF:
        if start.startswith(prefixes):
            return f"{path.name} is not a PDF (it looks like {kind}); {what_to_do}"
    return f"{path.name} is not a PDF (it does not start with a PDF header); save the PDF itself"


def _pdf_text(path: Path) -> tuple[str, str]:
    """(title, text) of a PDF; raises ValueError when it cannot be read."""
    not_pdf = _not_a_pdf(path)
    if not_pdf:
        raise ValueError(not_pdf)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise ValueError("encrypted PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = ""
        meta = reader.metadata
        if meta is not None and meta.title:
            title = _clean(meta.title)
    except (PdfReadError, OSError, KeyError, TypeError, AttributeError) as exc:
        # pypdf's own words, without its class names, which say nothing to a reader.
        detail = " ".join(str(exc).split()) or "damaged or cut short"
        raise ValueError(f"unreadable PDF ({detail}); open it in a PDF viewer to check it, or save its text "
                         "as .txt") from exc
    return title, "\n\n".join(pages)


def read_text_file(path: Path) -> str:
    """The whole text of one file to check: a .pdf through its PDF reader, anything else as UTF-8
    text; control characters removed. InputError (one line) when it is missing, binary or unreadable."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise InputError(f"{path} is not a file; give a .txt, .md or .pdf file, or '-' to read standard input.")
    if path.suffix.lower() == ".pdf":
        try:
            return strip_control(_pdf_text(path)[1], keep_newlines=True)
        except ValueError as exc:
            raise InputError(f"{path.name}: {exc}.") from exc
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path} ({exc.strerror or exc}).") from exc
    if b"\x00" in raw[:8192]:
        raise InputError(f"{path.name} is a binary file, not text: give a .txt, .md or .pdf file.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name} is not UTF-8 text (byte {exc.start}): save it as UTF-8 text, or give the "
                         "PDF itself.") from exc
    return strip_control(text, keep_newlines=True)


def read_file_document(path: Path, root: Path) -> Document:
    """One .txt / .md / .pdf file as a document; ValueError if it has no usable text."""
    rel = path.relative_to(root).as_posix()
    is_pdf = path.suffix.lower() == ".pdf"
    if is_pdf:
        title, text = _pdf_text(path)
    else:
        text = path.read_text(encoding="utf-8", errors="replace")
        title = ""
    text = strip_control(text, keep_newlines=True)
    paras = paragraphs(text)
    first_line = text.lstrip().split("\n", 1)[0]
    if path.suffix.lower() == ".md" and first_line.startswith("#") and paras:
        title, paras = paras[0], paras[1:]
    elif not title and len(paras) > 1 and len(paras[0]) <= 200 and not paras[0].endswith((".", "?", "!")):
        # A short first paragraph without a final stop reads as a title line.
        title, paras = paras[0], paras[1:]
    sentences = [s for para in paras for s in split_paragraph(para)]
    if not sentences:
        raise ValueError("no text found" + (" (a scanned PDF needs OCR first)" if is_pdf else ""))
    return Document(id=rel, title=title or path.stem, sentences=sentences)


def read_folder(root: Path) -> ReadResult:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES)
    if not files:
        raise InputError(f"the folder {root} has no .txt, .md or .pdf files to ingest.")
    docs: list[Document] = []
    problems: list[RowProblem] = []
    locations: list[str] = []
    for f in files:
        where = f.relative_to(root).as_posix()
        try:
            docs.append(read_file_document(f, root))
            locations.append(where)
        except (ValueError, UnicodeError) as exc:
            problems.append(RowProblem(location=where, reason=str(exc)))
    return ReadResult(documents=docs, problems=problems, locations=locations)


def read_path(path: Path) -> ReadResult:
    """Read a SciFact JSONL, a generic JSONL/CSV, a single .txt/.md/.pdf, or a folder of them."""
    path = Path(path).expanduser()
    if not path.exists():
        raise InputError(f"{path} does not exist; give a .jsonl/.csv file or a folder of .txt/.md/.pdf files.")
    if path.is_dir():
        return read_folder(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return read_jsonl(path)
    if suffix == ".csv":
        return read_csv(path)
    if suffix in FOLDER_SUFFIXES:
        try:
            return ReadResult(documents=[read_file_document(path, path.parent)], problems=[], locations=[path.name])
        except (ValueError, UnicodeError) as exc:
            return ReadResult(documents=[], problems=[RowProblem(location=path.name, reason=str(exc))])
    raise InputError(f"cannot ingest {path.name}: supported are {', '.join(TABLE_SUFFIXES + FOLDER_SUFFIXES)} "
                     "files and folders.")
