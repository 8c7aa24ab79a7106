"""Scholarly search: Semantic Scholar (the `semanticscholar` package) and Google Scholar through
SerpAPI (the `serpapi` package), as claimscope Documents, with a failing source reported, never
raised.

Semantic Scholar requests go through the package's own query building, paging and `Paper` model,
but its transport (`ApiRequester`) is replaced by `_S2Requester`: the stock one retries 429 only,
without reading Retry-After, returns {} on 502/503, has no connect timeout separate from the read
timeout and cannot be cached or replayed. Ours adds:

- backoff (tenacity) on 429 and 5xx that honours Retry-After (seconds or HTTP date; S2 itself sends
  none, so exponential backoff is the common case), and on read timeouts;
- a short connect timeout and no retry when the host cannot be reached at all (the normal case on
  a machine without internet: the run goes on at once with a clear report);
- an on-disk JSON cache of successful responses keyed by request (API keys excluded), with a TTL;
- shape checks, so a malformed payload becomes a report, not an exception.

Google Scholar organic results carry no abstract: each title is resolved through Semantic Scholar's
/paper/search/match (accepted only if the titles agree); unresolved results keep their snippet.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import difflib
import email.utils
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote_plus

import httpx
import requests
import serpapi
from pydantic import BaseModel, Field, ValidationError
from semanticscholar.ApiRequester import ApiRequester
from semanticscholar.AsyncSemanticScholar import AsyncSemanticScholar
from semanticscholar.Paper import Paper
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.models import Document, SourceKind
from claimscope.tools.segmenter import split_sentences

T = TypeVar("T")

Status = Literal["ok", "unreachable", "unauthorised", "rate_limited", "error", "cached"]

# Fields requested from Semantic Scholar for search and title match (everything a Document holds).
S2_FIELDS = [
    "paperId", "title", "abstract", "year", "venue", "journal", "citationCount",
    "influentialCitationCount", "externalIds", "url", "authors", "publicationTypes",
]
SERPAPI_ENDPOINT = "https://serpapi.com/search"
# SerpAPI's google_scholar engine returns at most 20 results per page.
SERPAPI_MAX_NUM = 20
# Seconds to wait for a TCP/TLS connection: an unreachable host must not hold the run for long.
CONNECT_TIMEOUT_S = 5.0
# A Retry-After longer than this is not waited for; the source is reported rate limited instead.
MAX_RETRY_AFTER_S = 60.0
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 30.0
# Title similarity (difflib ratio on normalised titles) above which a match is the same paper.
TITLE_MATCH_RATIO = 0.9
# Marks a cached 404 (title match not found); S2 bodies never carry this key.
_NOT_FOUND = "_claimscope_not_found"
S2_NAME = "Semantic Scholar"
SERPAPI_NAME = "Google Scholar (SerpAPI)"


class SourceReport(BaseModel):
    """What one source did for one query."""

    source: SourceKind
    query: str
    status: Status
    count: int = Field(0, description="Documents this source contributed for the query.")
    message: str = ""


class SearchOutcome(BaseModel):
    """Documents found for a query, deduplicated across sources, and one report per source."""

    documents: list[Document] = Field(default_factory=list)
    reports: list[SourceReport] = Field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """One line per source that failed (zero results is not a failure)."""
        return [
            f"{r.source.value}: {r.status} for query {r.query!r}: {r.message}"
            for r in self.reports
            if r.status not in ("ok", "cached")
        ]


# ------------------------------------------------------------------------------------ failures


class _Failure(Exception):
    """A source failed for this query; `status` is the SourceReport status."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status: Status = status
        self.message = message


class _Retryable(_Failure):
    """A failure worth retrying (429, 5xx, read timeout), with the server's Retry-After if any."""

    def __init__(self, status: Status, message: str, retry_after: float | None = None) -> None:
        super().__init__(status, message)
        self.retry_after = retry_after


class _NotFound(Exception):
    """404 from a lookup (title match): an answer, not a failure."""


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None if absent/invalid."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _error_text(body: Any) -> str:
    if isinstance(body, dict):
        for key in ("error", "message"):
            if isinstance(body.get(key), str):
                return body[key]
    return ""


def _classify(name: str, status: int, body: Any, retry_after: str | None, key_env: str) -> _Failure:
    """The failure for a non-200 HTTP answer."""
    detail = _error_text(body)
    detail = f": {detail}" if detail else ""
    if status in (401, 403):
        return _Failure(
            "unauthorised",
            f"{name} refused the request (HTTP {status}{detail}); check {key_env}"
            + (" or unset it to use the shared unauthenticated pool" if key_env.startswith("SEMANTIC") else ""),
        )
    if status == 429:
        hint = " or set SEMANTIC_SCHOLAR_API_KEY for a dedicated rate limit" if key_env.startswith("SEMANTIC") else ""
        return _Retryable(
            "rate_limited",
            f"{name} is rate limiting requests (HTTP 429{detail}); try again later{hint}",
            parse_retry_after(retry_after),
        )
    if status >= 500:
        return _Retryable("error", f"{name} had a server error (HTTP {status}{detail})", parse_retry_after(retry_after))
    return _Failure("error", f"{name} rejected the request (HTTP {status}{detail})")


# ---------------------------------------------------------------------------------------- cache


class ResponseCache:
    """Successful API responses as JSON files under `root`, reused for `days` days.

    Keys hash the source, method, URL, sorted query parameters and body; API keys are never part
    of a key or a file. Files are written atomically so concurrent runs can share a cache.
    """

    def __init__(self, root: Path | None, days: int) -> None:
        self.root = Path(root).expanduser() if root is not None else None
        self.days = days

    @property
    def enabled(self) -> bool:
        return self.root is not None and self.days > 0

    @staticmethod
    def key(source: str, method: str, url: str, params: Sequence[tuple[str, Any]], payload: Any = None) -> str:
        clean = sorted((k, v) for k, v in params if k.lower() not in ("api_key", "x-api-key"))
        blob = json.dumps([source, method.upper(), url, clean, payload], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The cached body, or None when absent, expired or unreadable."""
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            saved = float(entry["saved_at"])
            body = entry["body"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if time.time() - saved > self.days * 86400:
            return None
        return body

    def put(self, key: str, body: Any, request: str = "") -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"saved_at": time.time(), "request": request, "body": body}), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            # A cache that cannot be written only costs a repeated request later.
            pass


# -------------------------------------------------------------------------------- S2 transport


class _S2Requester(ApiRequester):
    """The semanticscholar package's requester, with our transport, retries, cache and checks."""

    def __init__(self, owner: ScholarlySearch) -> None:
        super().__init__(owner.timeout_s, retry=False)
        self._owner = owner

    async def get_data_async(
        self, url: str, parameters: str, headers: dict, payload: dict | None = None
    ) -> dict | list[dict]:
        return self._owner._s2_request(url, parameters, headers, payload)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run the package's coroutine from sync code, also when an event loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _check_s2_payload(url: str, body: Any) -> None:
    """Raise _Failure('error') unless `body` has the shape of a search / match answer."""
    if not isinstance(body, dict):
        raise _Failure("error", f"{S2_NAME} sent a malformed payload (expected a JSON object, got {type(body).__name__})")
    if "data" in body:
        data = body["data"]
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise _Failure("error", f"{S2_NAME} sent a malformed payload ('data' is not a list of papers)")
        return
    if url.endswith("/match"):
        raise _Failure("error", f"{S2_NAME} sent a malformed title-match payload (no 'data')")
    # A search with no hits is {"total": 0, "offset": 0}: no 'data' key at all.
    if body.get("total") != 0:
        raise _Failure("error", f"{S2_NAME} sent a malformed payload (no 'data' and total={body.get('total')!r})")


# ----------------------------------------------------------------------------------- conversion


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def _norm_title(title: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())


def titles_match(a: str, b: str) -> bool:
    """True if two titles name the same paper (case, punctuation and a truncation '…' ignored)."""
    na, nb = _norm_title(a.replace("…", " ")), _norm_title(b.replace("…", " "))
    if not na or not nb:
        return False
    if difflib.SequenceMatcher(None, na, nb).ratio() >= TITLE_MATCH_RATIO:
        return True
    # Google Scholar truncates long titles: a long enough prefix of the other counts.
    short, long_ = sorted((na, nb), key=len)
    return (a.rstrip().endswith("…") or b.rstrip().endswith("…")) and len(short) >= 30 and long_.startswith(short)


def paper_to_document(paper: Paper, source: SourceKind = SourceKind.SEMANTIC_SCHOLAR) -> Document:
    """A semanticscholar Paper as a claimscope Document (abstract split into sentences).

    Raises ValueError / ValidationError for an item without a paperId or with ill-typed fields.
    """
    pid = paper.paperId
    if not isinstance(pid, str) or not pid:
        raise ValueError("paper without paperId")
    ext = paper.externalIds if isinstance(paper.externalIds, dict) else {}
    authors = [a.name for a in (paper.authors or []) if getattr(a, "name", None)]
    venue = _clean(paper.venue) or (_clean(paper.journal.name) if paper.journal is not None and paper.journal.name else "")
    return Document(
        id=f"s2:{pid}",
        title=_clean(paper.title),
        sentences=split_sentences(paper.abstract or ""),
        year=paper.year,
        venue=venue or None,
        authors=authors,
        doi=ext.get("DOI"),
        url=paper.url,
        citation_count=paper.citationCount,
        influential_citation_count=paper.influentialCitationCount,
        source=source,
        publication_types=list(paper.publicationTypes or []),
    )


def organic_to_document(item: dict[str, Any]) -> Document:
    """A SerpAPI Google Scholar organic result as a Document whose text is the snippet."""
    title = _clean(item.get("title"))
    if not title:
        raise ValueError("organic result without a title")
    rid = item.get("result_id") or hashlib.sha256(title.encode()).hexdigest()[:16]
    info = item.get("publication_info") or {}
    summary = _clean(info.get("summary"))
    # "S Nebel, S Schneider, GD Rey - Journal of Educational Technology & …, 2016 - JSTOR"
    parts = [p.strip() for p in summary.split(" - ")]
    authors = [a.get("name", "") for a in info.get("authors") or [] if isinstance(a, dict) and a.get("name")]
    if not authors and len(parts) >= 2:
        authors = [a.strip() for a in parts[0].split(",") if a.strip() and a.strip() != "…"]
    year_m = re.search(r"\b(1[89]\d\d|20\d\d)\b", parts[1] if len(parts) >= 2 else summary)
    venue = re.sub(r",?\s*(1[89]\d\d|20\d\d)\s*$", "", parts[1]).strip(" ,…") if len(parts) >= 3 else ""
    cited = ((item.get("inline_links") or {}).get("cited_by") or {}).get("total")
    snippet = _clean(item.get("snippet")).strip("… ").strip()
    return Document(
        id=f"gs:{rid}",
        title=title,
        sentences=split_sentences(snippet) if snippet else [],
        year=int(year_m.group(1)) if year_m else None,
        venue=venue or None,
        authors=authors,
        url=item.get("link"),
        citation_count=cited if isinstance(cited, int) else None,
        source=SourceKind.SERPAPI,
        publication_types=[item["type"]] if isinstance(item.get("type"), str) else [],
    )


# --------------------------------------------------------------------------------------- client


class ScholarlySearch:
    """Searches Semantic Scholar and Google Scholar (SerpAPI) for a query.

    `search` never raises for a failing source: each source's fate is a SourceReport (ok, cached,
    unreachable, unauthorised, rate_limited, error) and the documents of the others are returned.
    `s2_transport` / `serpapi_session` replace the network in tests (recorded responses).
    """

    def __init__(
        self,
        *,
        cache_dir: Path | None,
        per_query: int = 20,
        timeout_s: float = 20,
        max_retries: int = 4,
        cache_days: int = 30,
        s2_api_key: str | None = None,
        serpapi_key: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        s2_min_interval_s: float = 1.0,
        s2_transport: httpx.BaseTransport | None = None,
        serpapi_session: requests.Session | None = None,
    ) -> None:
        if not 1 <= per_query <= 100:
            raise InputError(f"per_query must be between 1 and 100 (Semantic Scholar's page limit), got {per_query}.")
        if timeout_s <= 0:
            raise InputError(f"timeout_s must be positive, got {timeout_s}.")
        if max_retries < 0:
            raise InputError(f"max_retries must be >= 0, got {max_retries}.")
        self.per_query = per_query
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.cache = ResponseCache(cache_dir, cache_days)
        self._sleep = sleep
        self._s2_min_interval = s2_min_interval_s
        self._s2_last = 0.0
        self._timeout = httpx.Timeout(self.timeout_s, connect=min(CONNECT_TIMEOUT_S, self.timeout_s))
        self._http = httpx.Client(transport=s2_transport, timeout=self._timeout, follow_redirects=True)
        self._s2 = AsyncSemanticScholar(timeout=int(max(1, self.timeout_s)), api_key=s2_api_key or None, retry=False)
        self._s2._requester = _S2Requester(self)
        self._serp_key = serpapi_key or None
        self._serp = serpapi.Client(api_key=self._serp_key, timeout=(min(CONNECT_TIMEOUT_S, self.timeout_s), self.timeout_s))
        if serpapi_session is not None:
            self._serp.session = serpapi_session
        # Per-query bookkeeping: were all answers served from the cache?
        self._fresh = 0
        self._cached = 0
        # Once S2 fails during title resolution, later titles of the same query are not tried.
        self._s2_down: _Failure | None = None
        # The per-query bookkeeping above is instance state: one search at a time.
        self._lock = threading.Lock()

    def close(self) -> None:
        """Release the HTTP connections (the object is unusable afterwards)."""
        self._http.close()
        self._serp.session.close()

    # ------------------------------------------------------------------------------- retries

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return exc.retry_after
        return min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (state.attempt_number - 1))

    def _with_retries(self, attempt: Callable[[], T]) -> T:
        """Run `attempt`, retrying _Retryable failures with backoff (Retry-After first)."""
        retrying = Retrying(
            retry=retry_if_exception(
                lambda e: isinstance(e, _Retryable) and (e.retry_after is None or e.retry_after <= MAX_RETRY_AFTER_S)
            ),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except _Retryable as exc:
            if exc.retry_after is not None and exc.retry_after > MAX_RETRY_AFTER_S:
                raise _Failure(exc.status, f"{exc.message} (asked to wait {exc.retry_after:.0f} s)") from exc
            tries = self.max_retries + 1
            raise _Failure(exc.status, f"{exc.message}; gave up after {tries} attempt{'s' if tries > 1 else ''}") from exc

    # ------------------------------------------------------------------------------------ S2

    def _s2_request(self, url: str, parameters: str, headers: dict, payload: dict | None) -> dict | list[dict]:
        params: list[tuple[str, str | int | float | bool | None]] = list(
            httpx.QueryParams(parameters.lstrip("&")).multi_items()
        )
        method = "POST" if payload else "GET"
        key = ResponseCache.key("semantic_scholar", method, url, params, payload)
        cached = self.cache.get(key)
        if cached is not None:
            self._cached += 1
            if isinstance(cached, dict) and cached.get(_NOT_FOUND):
                raise _NotFound(str(cached.get("error", "")))
            return cached

        def attempt() -> Any:
            self._throttle()
            try:
                r = self._http.request(method, url, params=params, headers=headers, json=payload)
            except httpx.ConnectTimeout as exc:
                raise _Failure("unreachable", f"{S2_NAME} could not be reached (no connection within {self._timeout.connect:.0f} s); check the network") from exc
            except httpx.TimeoutException as exc:
                raise _Retryable("unreachable", f"{S2_NAME} did not answer within {self.timeout_s:.0f} s") from exc
            except httpx.TransportError as exc:
                raise _Failure("unreachable", f"{S2_NAME} could not be reached ({exc}); check the network or use --sources local") from exc
            try:
                body = r.json()
            except ValueError:
                body = None
            if r.status_code == 404:
                raise _NotFound(_error_text(body))
            if r.status_code != 200:
                raise _classify(S2_NAME, r.status_code, body, r.headers.get("retry-after"), "SEMANTIC_SCHOLAR_API_KEY")
            if body is None:
                raise _Failure("error", f"{S2_NAME} sent a malformed payload (not JSON)")
            return body

        try:
            body = self._with_retries(attempt)
        except _NotFound as exc:
            # A title S2 does not know stays unknown for a while: remember the 404 too.
            self._fresh += 1
            self.cache.put(key, {_NOT_FOUND: True, "error": str(exc)}, request=f"{method} {url}")
            raise
        _check_s2_payload(url, body)
        self._fresh += 1
        self.cache.put(key, body, request=f"{method} {url}")
        return body

    def _throttle(self) -> None:
        """Keep to S2's documented 1 request / second."""
        if self._s2_min_interval <= 0:
            return
        gap = time.monotonic() - self._s2_last
        if gap < self._s2_min_interval:
            self._sleep(self._s2_min_interval - gap)
        self._s2_last = time.monotonic()

    def _search_s2(self, query: str) -> tuple[list[Document], int]:
        """Documents for `query` and the number of results skipped (malformed or without abstract)."""
        results = _run(self._s2.search_paper(quote_plus(query), fields=S2_FIELDS, limit=self.per_query))
        docs: list[Document] = []
        skipped = 0
        for paper in list(results.items)[: self.per_query]:
            try:
                doc = paper_to_document(paper)
            except (ValueError, ValidationError, TypeError, AttributeError):
                skipped += 1
                continue
            if not doc.sentences:
                skipped += 1
                continue
            docs.append(doc)
        return docs, skipped

    def match_title(self, title: str) -> Document | None:
        """The Semantic Scholar paper whose title matches `title` (as a Document), or None when S2
        knows no paper with that title. Raises SourceUnavailableError when S2 cannot be asked."""
        with self._lock:
            try:
                return self._match_title(title)
            except _Failure as exc:
                raise SourceUnavailableError(f"{exc.status}: {exc.message}") from exc

    def _match_title(self, title: str) -> Document | None:
        try:
            paper = _run(self._s2.search_paper(quote_plus(title), fields=S2_FIELDS, match_title=True))
        except _NotFound:
            return None
        except IndexError:  # {"data": []}
            return None
        if not titles_match(title, paper.title or ""):
            return None
        try:
            return paper_to_document(paper, source=SourceKind.SERPAPI)
        except (ValueError, ValidationError, TypeError, AttributeError):
            return None

    # ------------------------------------------------------------------------------- SerpAPI

    def _serpapi_request(self, query: str) -> dict[str, Any]:
        params = {"engine": "google_scholar", "q": query, "hl": "en", "num": str(min(self.per_query, SERPAPI_MAX_NUM))}
        key = ResponseCache.key("serpapi", "GET", SERPAPI_ENDPOINT, list(params.items()))
        cached = self.cache.get(key)
        if cached is not None:
            self._cached += 1
            return cached

        def attempt() -> Any:
            try:
                return self._serp.search(dict(params))
            except serpapi.HTTPConnectionError as exc:
                raise _Failure("unreachable", f"{SERPAPI_NAME} could not be reached; check the network or use --sources local") from exc
            except serpapi.TimeoutError as exc:
                raise _Retryable("unreachable", f"{SERPAPI_NAME} did not answer within {self.timeout_s:.0f} s") from exc
            except serpapi.HTTPError as exc:
                resp = exc.response
                try:
                    body = resp.json() if resp is not None else None
                except ValueError:
                    body = None
                retry_after = resp.headers.get("Retry-After") if resp is not None else None
                raise _classify(SERPAPI_NAME, exc.status_code, body, retry_after, "SERPAPI_API_KEY") from exc
            except requests.RequestException as exc:
                raise _Failure("unreachable", f"{SERPAPI_NAME} request failed ({exc})") from exc

        result = self._with_retries(attempt)
        body = result.as_dict() if isinstance(result, serpapi.SerpResults) else result
        if not isinstance(body, dict):
            raise _Failure("error", f"{SERPAPI_NAME} sent a malformed payload (not a JSON object)")
        error = body.get("error")
        organic = body.get("organic_results")
        if isinstance(error, str) and organic is None:
            # No results is HTTP 200 with an "error" text and an empty organic state.
            state = (body.get("search_information") or {}).get("organic_results_state", "")
            if "empty" not in str(state).lower() and "hasn't returned any results" not in error:
                raise _Failure("error", f"{SERPAPI_NAME}: {error}")
            body = {**body, "organic_results": []}
        elif not isinstance(organic, list):
            raise _Failure("error", f"{SERPAPI_NAME} sent a malformed payload (no 'organic_results' list)")
        self._fresh += 1
        self.cache.put(key, body, request=f"GET {SERPAPI_ENDPOINT} q={query}")
        return body

    def _search_serpapi(self, query: str, known: dict[str, Document]) -> tuple[list[Document], str]:
        """Google Scholar results for `query`; `known` (normalised title -> document already found
        through Semantic Scholar for this query) saves a title-match request per overlap."""
        body = self._serpapi_request(query)
        docs: list[Document] = []
        resolved = unresolved = skipped = 0
        for item in body["organic_results"][: self.per_query]:
            if not isinstance(item, dict):
                skipped += 1
                continue
            try:
                snippet_doc = organic_to_document(item)
            except (ValueError, ValidationError, TypeError, AttributeError):
                skipped += 1
                continue
            doc = known.get(_norm_title(snippet_doc.title))
            if doc is None and self._s2_down is None:
                try:
                    doc = self._match_title(snippet_doc.title)
                except _Failure as exc:
                    self._s2_down = exc
            if doc is not None and doc.sentences:
                if doc.citation_count is None:
                    doc = doc.model_copy(update={"citation_count": snippet_doc.citation_count})
                resolved += 1
                docs.append(doc)
            elif snippet_doc.sentences:
                unresolved += 1
                docs.append(snippet_doc)
            else:
                skipped += 1
        notes = [f"{resolved} abstract(s) resolved through {S2_NAME}"]
        if unresolved:
            notes.append(f"{unresolved} result(s) kept with their snippet only")
        if skipped:
            notes.append(f"{skipped} result(s) skipped (no text or malformed)")
        if self._s2_down is not None:
            notes.append(f"title resolution stopped: {self._s2_down.message}")
        return docs, "; ".join(notes)

    # -------------------------------------------------------------------------------- search

    def search(self, query: str, sources: Sequence[SourceKind]) -> SearchOutcome:
        """Search each scholarly source for `query`; documents deduplicated (first source wins).

        SourceKind.LOCAL is ignored here (local corpora are searched through the evidence store).
        Raises InputError only for an empty query; a failing source becomes its SourceReport.
        """
        query = " ".join((query or "").split())
        if not query:
            raise InputError("the search query is empty: search for a claim or keywords.")
        with self._lock:
            return self._search(query, sources)

    def _search(self, query: str, sources: Sequence[SourceKind]) -> SearchOutcome:
        documents: dict[str, Document] = {}
        dois: set[str] = set()
        reports: list[SourceReport] = []
        # Semantic Scholar first, so that Google Scholar titles it already returned need no lookup.
        ordered = sorted(dict.fromkeys(SourceKind(s) for s in sources), key=lambda s: s != SourceKind.SEMANTIC_SCHOLAR)
        for source in ordered:
            if source == SourceKind.LOCAL:
                continue
            self._fresh = self._cached = 0
            self._s2_down = None
            message = ""
            if source == SourceKind.SERPAPI and not self._serp_key:
                reports.append(SourceReport(source=source, query=query, status="unauthorised",
                                            message="no key: set SERPAPI_API_KEY to search Google Scholar"))
                continue
            try:
                if source == SourceKind.SEMANTIC_SCHOLAR:
                    found, skipped = self._search_s2(query)
                    message = f"{skipped} result(s) without abstract or malformed were skipped" if skipped else ""
                else:
                    known = {_norm_title(d.title): d for d in documents.values() if d.title}
                    found, message = self._search_serpapi(query, known)
            except _Failure as exc:
                reports.append(SourceReport(source=source, query=query, status=exc.status, message=exc.message))
                continue
            except _NotFound:
                found, message = [], "no results"
            count = 0
            for doc in found:
                if doc.id in documents or (doc.doi and doc.doi.lower() in dois):
                    continue
                documents[doc.id] = doc
                if doc.doi:
                    dois.add(doc.doi.lower())
                count += 1
            status: Status = "cached" if self._cached and not self._fresh else "ok"
            if not found and not message:
                message = "no results"
            reports.append(SourceReport(source=source, query=query, status=status, count=count, message=message))
        return SearchOutcome(documents=list(documents.values()), reports=reports)
