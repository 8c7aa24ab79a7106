"""Crossref (api.crossref.org) metadata by DOI: venue, type, citation count, and the editorial
notices linked to a work (`updated-by`: retractions, corrections, expressions of concern of this
work; `update-to`: this work is itself such a notice).

Requests share the client's cache, retries (429 / Retry-After / 5xx) and failure reports; a
`mailto` puts them in Crossref's polite pool.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from claimscope.tools.errors import SourceUnavailableError
from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.documents import _clean
from claimscope.tools.find.scholarly.failures import _Failure, _NotFound
from claimscope.tools.find.scholarly.retries import NOT_FOUND_MARK, _ClientCore
from claimscope.tools.models import Notice, NoticeKind

CROSSREF_BASE = "https://api.crossref.org"
CROSSREF_NAME = "Crossref"

# Crossref update types (lower case, '-' and ' ' as '_') -> notice kind; others are ignored.
_UPDATE_KINDS: dict[str, NoticeKind] = {
    "retraction": "retraction",
    "withdrawal": "retraction",
    "removal": "retraction",
    "partial_retraction": "correction",
    "correction": "correction",
    "erratum": "correction",
    "corrigendum": "correction",
    "addendum": "correction",
    "expression_of_concern": "expression_of_concern",
    "reinstatement": "reinstatement",
}


class CrossrefRecord(BaseModel):
    """What Crossref says about one DOI."""

    doi: str
    title: str = ""
    venue: str | None = None
    type: str | None = Field(None, description="Crossref work type, e.g. 'journal-article', 'posted-content'.")
    citation_count: int | None = None
    notices: list[Notice] = Field(default_factory=list)

    @property
    def retracted(self) -> bool:
        """Retracted, and not reinstated since."""
        kinds = [n.kind for n in self.notices]
        return "retraction" in kinds and "reinstatement" not in kinds


def _date(update: dict[str, Any]) -> str | None:
    parts = (update.get("updated") or {}).get("date-parts") if isinstance(update.get("updated"), dict) else None
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        try:
            return "-".join(f"{int(p):02d}" for p in parts[0][:3])
        except (TypeError, ValueError):
            return None
    return None


def _notices(updates: Any, *, own: bool) -> list[Notice]:
    """Notices from `updated-by` (own=True: notices about this work) or `update-to` (this work is
    the notice; a retraction there makes it a 'retraction_notice')."""
    out: list[Notice] = []
    for u in updates if isinstance(updates, list) else []:
        if not isinstance(u, dict) or not isinstance(u.get("type"), str):
            continue
        kind = _UPDATE_KINDS.get(u["type"].lower().replace("-", "_").replace(" ", "_"))
        if kind is None:
            continue
        if not own:
            if kind != "retraction":
                continue
            kind = "retraction_notice"
        source = u.get("source")
        label: str = u["label"] if isinstance(u.get("label"), str) else ""
        out.append(Notice(
            kind=kind, source="retraction_watch" if source == "retraction-watch" else "crossref",
            doi=u.get("DOI") if isinstance(u.get("DOI"), str) else None, date=_date(u),
            detail="" if label.lower().replace(" ", "_") == kind else label,
        ))
    return out


def message_to_record(message: Any) -> CrossrefRecord:
    """A Crossref `/works/{doi}` message as a CrossrefRecord. Raises ValueError when it is not one."""
    if not isinstance(message, dict) or not isinstance(message.get("DOI"), str):
        raise ValueError("not a Crossref work (no DOI)")

    def first(key: str) -> str:
        v = message.get(key)
        return _clean(v[0]) if isinstance(v, list) and v and isinstance(v[0], str) else ""

    count = message.get("is-referenced-by-count")
    return CrossrefRecord(
        doi=message["DOI"],
        title=first("title"),
        venue=first("container-title") or None,
        type=message.get("type") if isinstance(message.get("type"), str) else None,
        citation_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        notices=_notices(message.get("updated-by"), own=True) + _notices(message.get("update-to"), own=False),
    )


class _CrossrefMixin(_ClientCore):
    """Crossref requests: cached, retried and checked."""

    _crossref_mailto: str | None

    def crossref_work(self, doi: str) -> CrossrefRecord | None:
        """Crossref's record of `doi`, None when Crossref does not know it.
        Raises SourceUnavailableError when Crossref cannot be asked or answers nonsense."""
        doi = doi.strip().removeprefix("https://doi.org/")
        url = f"{CROSSREF_BASE}/works/{quote(doi, safe='/')}"
        key = ResponseCache.key("crossref", "GET", url, [])
        with self._lock:
            cached = self.cache.get(key)
            if cached is not None:
                body = cached
            else:
                try:
                    body = self._with_retries(lambda: self._crossref_attempt(url))
                except _NotFound:
                    self.cache.put(key, {NOT_FOUND_MARK: True}, request=f"GET {url}")
                    return None
                except _Failure as exc:
                    raise SourceUnavailableError(f"{exc.status}: {exc.message}") from exc
        if isinstance(body, dict) and body.get(NOT_FOUND_MARK):
            return None
        try:
            record = message_to_record(body.get("message") if isinstance(body, dict) else None)
        except ValueError as exc:
            raise SourceUnavailableError(f"error: {CROSSREF_NAME} sent a malformed payload ({exc})") from exc
        if cached is None:
            self.cache.put(key, body, request=f"GET {url}")
        return record

    def _crossref_attempt(self, url: str) -> Any:
        params = {"mailto": self._crossref_mailto} if self._crossref_mailto else {}
        return self._json_exchange(CROSSREF_NAME, "GET", url, key_env="CLAIMSCOPE_MAILTO", params=params)
