"""The ScholarlySearch client: one search over the chosen sources, documents deduplicated across
them, each source's fate a SourceReport.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx
import requests
import serpapi
from semanticscholar.AsyncSemanticScholar import AsyncSemanticScholar

from claimscope.tools.errors import InputError
from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.crossref import _CrossrefMixin
from claimscope.tools.find.scholarly.documents import _norm_title
from claimscope.tools.find.scholarly.failures import _Failure, _NotFound
from claimscope.tools.find.scholarly.openalex import _OpenAlexMixin
from claimscope.tools.find.scholarly.outcome import SearchOutcome, SourceReport, Status
from claimscope.tools.find.scholarly.s2 import _S2Requester
from claimscope.tools.find.scholarly.serp import _SerpMixin
from claimscope.tools.models import Document, SourceKind

# Seconds to wait for a TCP/TLS connection: an unreachable host must not hold the run for long.
CONNECT_TIMEOUT_S = 5.0


class ScholarlySearch(_SerpMixin, _OpenAlexMixin, _CrossrefMixin):
    """Searches Semantic Scholar, Google Scholar (SerpAPI) and OpenAlex for a query, and looks up
    works by DOI or title in OpenAlex and Crossref.

    `search` never raises for a failing source: each source's fate is a SourceReport (ok, cached,
    unreachable, unauthorised, rate_limited, error) and the documents of the others are returned.
    `mailto` (else $CLAIMSCOPE_MAILTO) joins the OpenAlex and Crossref polite pools; the OpenAlex
    key defaults to $OPENALEX_API_KEY. `s2_transport` (the httpx transport of Semantic Scholar,
    OpenAlex and Crossref) and `serpapi_session` replace the network in tests.
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
        mailto: str | None = None,
        openalex_api_key: str | None = None,
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
        contact = (mailto if mailto is not None else os.environ.get("CLAIMSCOPE_MAILTO", "")).strip()
        self._openalex_mailto = self._crossref_mailto = contact or None
        key = openalex_api_key if openalex_api_key is not None else os.environ.get("OPENALEX_API_KEY", "")
        self._openalex_key = key.strip() or None
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
                elif source == SourceKind.OPENALEX:
                    found, skipped = self._search_openalex(query)
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
