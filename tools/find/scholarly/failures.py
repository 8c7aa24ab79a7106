"""How a source fails: the failure a request raises (retryable or not, with the server's
Retry-After), the 404 of a lookup, and the failure each HTTP answer stands for.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime
from typing import Any

from claimscope.tools.find.scholarly.outcome import Status


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
