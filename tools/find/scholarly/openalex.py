"""OpenAlex (api.openalex.org): work search by query and by title, works by DOI, as Documents.

Requests share the client's cache, retries (429 / Retry-After / 5xx) and failure reports. The
polite pool is joined with a `mailto` parameter, and an OpenAlex API key (required for list calls
beyond a small daily allowance) is sent as `api_key`; the cache key leaves the key out.
Abstracts come as an inverted index (word -> positions); positions missing from it (OpenAlex drops
some words) are gaps, not errors.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from claimscope.tools.errors import SourceUnavailableError
from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.documents import _clean, titles_match, usable_documents
from claimscope.tools.find.scholarly.failures import _Failure, _NotFound
from claimscope.tools.find.scholarly.retries import NOT_FOUND_MARK, _ClientCore
from claimscope.tools.models import Document, Notice, SourceKind
from claimscope.tools.text.segmenter import split_sentences

OPENALEX_BASE = "https://api.openalex.org"
OPENALEX_NAME = "OpenAlex"
# Largest page OpenAlex serves.
OPENALEX_MAX_PER_PAGE = 100
# Only the fields a Document holds are requested: smaller answers, same cost.
OPENALEX_SELECT = ",".join([
    "id", "doi", "display_name", "publication_year", "type", "type_crossref", "cited_by_count",
    "is_retracted", "open_access", "primary_location", "best_oa_location", "authorships",
    "abstract_inverted_index",
])


def rebuild_abstract(index: Any) -> str:
    """The abstract text from OpenAlex's `abstract_inverted_index` (word -> list of positions).

    Words are placed at their positions; positions nobody claims are skipped (OpenAlex leaves out
    some words, e.g. stop words of some publishers). None or {} -> "". Raises ValueError for an
    index that is not a mapping of strings to lists of non-negative integers.
    """
    if index is None:
        return ""
    if not isinstance(index, dict):
        raise ValueError(f"abstract_inverted_index is not an object ({type(index).__name__})")
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(word, str) or not isinstance(positions, list):
            raise ValueError("abstract_inverted_index maps a word to something other than a list of positions")
        for pos in positions:
            if not isinstance(pos, int) or isinstance(pos, bool) or pos < 0:
                raise ValueError(f"abstract_inverted_index has an invalid position {pos!r} for {word!r}")
            placed.setdefault(pos, word)
    return " ".join(placed[p] for p in sorted(placed))


def _strip_doi(doi: Any) -> str | None:
    if not isinstance(doi, str) or not doi.strip():
        return None
    d = doi.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if d.lower().startswith(prefix):
            d = d[len(prefix):]
    return d or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def work_to_document(work: dict[str, Any]) -> Document:
    """An OpenAlex work object as a Document.

    Raises ValueError / ValidationError for a work without an id or with ill-typed fields.
    """
    wid = work.get("id")
    if not isinstance(wid, str) or not wid.strip():
        raise ValueError("work without an id")
    short = wid.rstrip("/").rsplit("/", 1)[-1]
    primary = _dict(work.get("primary_location"))
    source = _dict(primary.get("source"))
    oa = _dict(work.get("open_access"))
    best = _dict(work.get("best_oa_location"))
    authors = [
        name for a in (work.get("authorships") or []) if isinstance(a, dict)
        if isinstance(name := _dict(a.get("author")).get("display_name"), str) and name
    ]
    types = [t for t in (work.get("type"), work.get("type_crossref")) if isinstance(t, str) and t]
    retracted = work.get("is_retracted")
    doi = _strip_doi(work.get("doi"))
    return Document(
        id=f"openalex:{short}",
        title=_clean(work.get("display_name") or work.get("title")),
        sentences=split_sentences(rebuild_abstract(work.get("abstract_inverted_index"))),
        year=work.get("publication_year"),
        venue=_clean(source.get("display_name")) or None,
        venue_type=source.get("type") if isinstance(source.get("type"), str) else None,
        authors=authors,
        doi=doi,
        url=primary.get("landing_page_url") or wid,
        citation_count=work.get("cited_by_count"),
        source=SourceKind.OPENALEX,
        retracted=retracted if isinstance(retracted, bool) else None,
        publication_types=list(dict.fromkeys(types)),
        open_access_url=oa.get("oa_url") or best.get("pdf_url") or best.get("landing_page_url") or None,
        notices=[Notice(kind="retraction", source="openalex")] if retracted is True else [],
    )


def _check_list(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        raise _Failure("error", f"{OPENALEX_NAME} sent a malformed payload (no 'results' list)")
    return [w for w in body["results"] if isinstance(w, dict)]


class _OpenAlexMixin(_ClientCore):
    """OpenAlex requests (cached, retried, checked): search, title search and work by DOI."""

    _openalex_mailto: str | None
    _openalex_key: str | None

    def _openalex_request(self, path: str, params: dict[str, str]) -> Any:
        url = OPENALEX_BASE + path
        query = dict(params)
        if self._openalex_mailto:
            query["mailto"] = self._openalex_mailto
        key = ResponseCache.key("openalex", "GET", url, [(k, v) for k, v in query.items() if k != "mailto"])
        cached = self.cache.get(key)
        if cached is not None:
            self._cached += 1
            if isinstance(cached, dict) and cached.get(NOT_FOUND_MARK):
                raise _NotFound("not found")
            return cached
        if self._openalex_key:
            query["api_key"] = self._openalex_key

        def attempt() -> Any:
            return self._json_exchange(OPENALEX_NAME, "GET", url, key_env="OPENALEX_API_KEY",
                                       offline_hint=" or use --sources local", params=query)

        try:
            body = self._with_retries(attempt)
        except _NotFound:
            self._fresh += 1
            self.cache.put(key, {NOT_FOUND_MARK: True}, request=f"GET {url}")
            raise
        self._fresh += 1
        self.cache.put(key, body, request=f"GET {url}")
        return body

    def _search_openalex(self, query: str) -> tuple[list[Document], int]:
        """Documents for `query` (works with an abstract) and the number skipped (malformed)."""
        body = self._openalex_request("/works", {
            "search": query, "filter": "has_abstract:true",
            "per_page": str(min(self.per_query, OPENALEX_MAX_PER_PAGE)), "select": OPENALEX_SELECT,
        })
        return usable_documents(_check_list(body)[: self.per_query], work_to_document)

    def openalex_work(self, doi: str) -> Document | None:
        """The OpenAlex work with this DOI (its abstract may be empty), None when OpenAlex has none.
        Raises SourceUnavailableError when OpenAlex cannot be asked or answers nonsense."""
        doi = _strip_doi(doi) or ""
        with self._lock:
            try:
                body = self._openalex_request(f"/works/https://doi.org/{quote(doi, safe='')}", {})
            except _NotFound:
                return None
            except _Failure as exc:
                raise SourceUnavailableError(f"{exc.status}: {exc.message}") from exc
        if not isinstance(body, dict):
            raise SourceUnavailableError(f"error: {OPENALEX_NAME} sent a malformed work (not a JSON object)")
        try:
            return work_to_document(body)
        except (ValueError, ValidationError, TypeError) as exc:
            raise SourceUnavailableError(f"error: {OPENALEX_NAME} sent a malformed work ({exc})") from exc

    def openalex_title(self, title: str) -> Document | None:
        """The OpenAlex work whose title matches `title` (titles_match), None when there is none.
        Raises SourceUnavailableError when OpenAlex cannot be asked."""
        # A comma would split the filter value: title.search takes words, so drop punctuation.
        words = " ".join(title.replace(",", " ").replace(":", " ").split())
        with self._lock:
            try:
                works = _check_list(self._openalex_request("/works", {"filter": f"title.search:{words}"}))
            except _NotFound:
                return None
            except _Failure as exc:
                raise SourceUnavailableError(f"{exc.status}: {exc.message}") from exc
        for work in works:
            try:
                doc = work_to_document(work)
            except (ValueError, ValidationError, TypeError):
                continue
            if titles_match(title, doc.title):
                return doc
        return None
