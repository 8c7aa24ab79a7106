"""The Semantic Scholar transport: the package's requester replaced by ours (timeouts, retries,
cache, throttle and payload checks), paper search and title match.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import quote_plus

import httpx
from semanticscholar.ApiRequester import ApiRequester

from claimscope.tools.errors import SourceUnavailableError
from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.documents import (
    MALFORMED,
    paper_to_document,
    titles_match,
    usable_documents,
)
from claimscope.tools.find.scholarly.failures import (
    _Failure,
    _NotFound,
)
from claimscope.tools.find.scholarly.retries import NOT_FOUND_MARK, _ClientCore
from claimscope.tools.models import Document, SourceKind

T = TypeVar("T")

# Fields requested from Semantic Scholar for search and title match (everything a Document holds).
S2_FIELDS = [
    "paperId", "title", "abstract", "year", "venue", "journal", "citationCount",
    "influentialCitationCount", "externalIds", "url", "authors", "publicationTypes",
]
# Marks a cached 404 (title match not found); S2 bodies never carry this key.
S2_NAME = "Semantic Scholar"


class _S2Requester(ApiRequester):
    """The semanticscholar package's requester, with our transport, retries, cache and checks."""

    def __init__(self, owner: _S2Mixin) -> None:
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


class _S2Mixin(_ClientCore):
    """Semantic Scholar requests: cached, throttled, retried and checked; search and title match."""

    def _s2_request(self, url: str, parameters: str, headers: dict, payload: dict | None) -> dict | list[dict]:
        params: list[tuple[str, str | int | float | bool | None]] = list(
            httpx.QueryParams(parameters.lstrip("&")).multi_items()
        )
        method = "POST" if payload else "GET"
        key = ResponseCache.key("semantic_scholar", method, url, params, payload)
        cached = self.cache.get(key)
        if cached is not None:
            self._cached += 1
            if isinstance(cached, dict) and cached.get(NOT_FOUND_MARK):
                raise _NotFound(str(cached.get("error", "")))
            return cached

        def attempt() -> Any:
            self._throttle()
            return self._json_exchange(S2_NAME, method, url, key_env="SEMANTIC_SCHOLAR_API_KEY",
                                       offline_hint=" or use --sources local", params=params, headers=headers,
                                       payload=payload)

        try:
            body = self._with_retries(attempt)
        except _NotFound as exc:
            # A title S2 does not know stays unknown for a while: remember the 404 too.
            self._fresh += 1
            self.cache.put(key, {NOT_FOUND_MARK: True, "error": str(exc)}, request=f"{method} {url}")
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
        return usable_documents(list(results.items)[: self.per_query], paper_to_document)

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
        except MALFORMED:
            return None
