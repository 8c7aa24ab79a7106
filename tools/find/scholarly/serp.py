"""The Google Scholar (SerpAPI) request and its results, each title resolved to an abstract through
Semantic Scholar's title match where possible.
"""

from __future__ import annotations

from typing import Any

import requests
import serpapi
from pydantic import ValidationError

from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.documents import _norm_title, organic_to_document
from claimscope.tools.find.scholarly.failures import _classify, _Failure, _Retryable
from claimscope.tools.find.scholarly.s2 import S2_NAME, _S2Mixin
from claimscope.tools.models import Document

SERPAPI_ENDPOINT = "https://serpapi.com/search"
# SerpAPI's google_scholar engine returns at most 20 results per page.
SERPAPI_MAX_NUM = 20
SERPAPI_NAME = "Google Scholar (SerpAPI)"


class _SerpMixin(_S2Mixin):
    """Google Scholar through SerpAPI, cached and retried, with titles resolved through Semantic Scholar."""

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
