"""What every part of the client shares: its configuration and connections, and the retries with
backoff that honour Retry-After (ScholarlySearch sets the attributes in __init__).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import serpapi
from semanticscholar.AsyncSemanticScholar import AsyncSemanticScholar
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.failures import (
    _classify,
    _error_text,
    _Failure,
    _NotFound,
    _Retryable,
)

T = TypeVar("T")

# A Retry-After longer than this is not waited for; the source is reported rate limited instead.
MAX_RETRY_AFTER_S = 60.0
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 30.0
# The cache entry that remembers an answered 404, so an unknown work is not asked for again.
NOT_FOUND_MARK = "_claimscope_not_found"


class _ClientCore:
    """The client's configuration, connections and per-query bookkeeping, and its retries."""

    per_query: int
    timeout_s: float
    max_retries: int
    cache: ResponseCache
    _sleep: Callable[[float], None]
    _s2_min_interval: float
    _s2_last: float
    _timeout: httpx.Timeout
    _http: httpx.Client
    _s2: AsyncSemanticScholar
    _serp_key: str | None
    _serp: serpapi.Client
    _fresh: int
    _cached: int
    _s2_down: _Failure | None
    _lock: threading.Lock

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

    def _json_exchange(self, source: str, method: str, url: str, *, key_env: str, offline_hint: str = "",
                       params: Any = None, headers: dict[str, str] | None = None, payload: Any = None) -> Any:
        """One HTTP exchange with a scholarly API: its JSON body, or the typed failure the retries
        and the source reports understand (_NotFound for a 404, _Retryable for what may pass)."""
        try:
            r = self._http.request(method, url, params=params, headers=headers, json=payload)
        except httpx.ConnectTimeout as exc:
            raise _Failure("unreachable", f"{source} could not be reached (no connection within "
                           f"{self._timeout.connect:.0f} s); check the network") from exc
        except httpx.TimeoutException as exc:
            raise _Retryable("unreachable", f"{source} did not answer within {self.timeout_s:.0f} s") from exc
        except httpx.TransportError as exc:
            raise _Failure("unreachable", f"{source} could not be reached ({exc}); check the network"
                           f"{offline_hint}") from exc
        try:
            body = r.json()
        except ValueError:
            body = None  # e.g. OpenAlex answers an unknown DOI with an HTML page
        if r.status_code == 404:
            raise _NotFound(_error_text(body) or "not found")
        if r.status_code != 200:
            raise _classify(source, r.status_code, body, r.headers.get("retry-after"), key_env)
        if body is None:
            raise _Failure("error", f"{source} sent a malformed payload (not JSON)")
        return body
