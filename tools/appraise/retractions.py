"""A local index of retracted and corrected works, imported from the Retraction Watch CSV (as
Crossref distributes it), and the merging of notices from every source into a document.

The index is a JSON file: original-paper DOI (lower case) -> the notices about it. Importing a new
file replaces the index, so the newest download is the truth; rows without an original DOI cannot
be matched and are counted, not kept.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from claimscope.tools.errors import InputError
from claimscope.tools.models import Document, Notice, NoticeKind

# The columns the import needs (the CSV has more: Title, Journal, Author, URLS, ...).
REQUIRED_COLUMNS = ("Record ID", "RetractionDate", "RetractionDOI", "OriginalPaperDOI", "RetractionNature", "Reason")

_NATURE: dict[str, NoticeKind] = {
    "retraction": "retraction",
    "correction": "correction",
    "expression of concern": "expression_of_concern",
    "reinstatement": "reinstatement",
}


class ImportSummary(BaseModel):
    rows: int = 0
    works: int = Field(0, description="Distinct original DOIs with at least one notice.")
    retracted: int = 0
    skipped: int = Field(0, description="Rows without an original DOI or with an unknown nature.")


def normalise_doi(doi: str | None) -> str | None:
    """'https://doi.org/10.1/AbC ' -> '10.1/abc'; None for an empty or placeholder DOI."""
    if not doi:
        return None
    d = doi.strip().lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        d = d.removeprefix(prefix)
    return d if d.startswith("10.") else None


def _iso_date(value: str) -> str | None:
    """'9/27/2023 0:00' (the CSV's US format) -> '2023-09-27'."""
    head = value.strip().split(" ")[0]
    for fmt in ("%m/%d/%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(head, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _reasons(value: str) -> str:
    """'+Paper Mill;+Unreliable Results;' -> 'Paper Mill; Unreliable Results'."""
    return "; ".join(p.strip().lstrip("+") for p in value.split(";") if p.strip().lstrip("+"))


class RetractionIndex:
    """Notices by original DOI, kept in a JSON file at `path` (absent file: an empty index)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).expanduser()
        self._entries: dict[str, list[Notice]] | None = None
        self._stamp: tuple[int, int] | None = None

    def _load(self) -> dict[str, list[Notice]]:
        # Read once and kept while the file is unchanged: a long-lived server (MCP, web app) holds one
        # index for every investigation and still sees a later `claimscope retractions import`.
        try:
            st = self.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if self._entries is None or stamp != self._stamp:
            self._stamp = stamp
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                self._entries = {k: [Notice.model_validate(n) for n in v] for k, v in raw["works"].items()}
            except FileNotFoundError:
                self._entries = {}
            except (OSError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
                self._entries = None
                raise InputError(f"the retraction index {self.path} is unreadable ({exc}); import the CSV "
                                 "again with `claimscope retractions import FILE`.") from exc
        return self._entries

    def __len__(self) -> int:
        return len(self._load())

    def lookup(self, doi: str | None) -> list[Notice]:
        key = normalise_doi(doi)
        return list(self._load().get(key, [])) if key else []

    def import_csv(self, csv_path: Path) -> ImportSummary:
        """Replace the index with the notices of a Retraction Watch CSV. InputError for a file that
        cannot be read or lacks the Retraction Watch columns."""
        csv_path = Path(csv_path).expanduser()
        works: dict[str, list[Notice]] = {}
        summary = ImportSummary()
        try:
            with csv_path.open(encoding="utf-8-sig", newline="") as fh:
                reader = csv.DictReader(fh)
                missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
                if missing:
                    raise InputError(f"{csv_path} is not a Retraction Watch CSV: it lacks the column(s) "
                                     f"{', '.join(missing)}. Download it from Crossref (retractionwatch.csv).")
                for row in reader:
                    summary.rows += 1
                    doi = normalise_doi(row.get("OriginalPaperDOI"))
                    kind = _NATURE.get((row.get("RetractionNature") or "").strip().lower())
                    if doi is None or kind is None:
                        summary.skipped += 1
                        continue
                    notice_doi = normalise_doi(row.get("RetractionDOI"))
                    works.setdefault(doi, []).append(Notice(
                        kind=kind, source="retraction_watch", doi=notice_doi,
                        date=_iso_date(row.get("RetractionDate") or ""), detail=_reasons(row.get("Reason") or ""),
                    ))
        except FileNotFoundError as exc:
            raise InputError(f"no such file: {csv_path}; give the path of the Retraction Watch CSV.") from exc
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"cannot read {csv_path} as CSV ({exc}).") from exc
        summary.works = len(works)
        summary.retracted = sum(1 for notices in works.values() if is_retracted(notices))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        payload = {"imported_from": str(csv_path), "imported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                   "works": {k: [n.model_dump(mode="json") for n in v] for k, v in works.items()}}
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, self.path)
        self._entries = works
        return summary


def is_retracted(notices: Iterable[Notice]) -> bool:
    """A retraction stands unless a later reinstatement (or any, when undated) lifts it."""
    items = list(notices)
    retractions = [n for n in items if n.kind == "retraction"]
    if not retractions:
        return False
    reinstated = [n for n in items if n.kind == "reinstatement"]
    if not reinstated:
        return True
    last_retraction = max(n.date or "" for n in retractions)
    return not any((n.date or "9999") >= last_retraction for n in reinstated)


def with_notices(doc: Document, notices: Iterable[Notice]) -> Document:
    """`doc` with `notices` merged in (same kind and notice DOI counted once) and its retracted
    flag recomputed: True when any source says retracted (OpenAlex's flag included)."""
    merged = list(doc.notices)
    seen = {(n.kind, (n.doi or "").lower()) for n in merged}
    for n in notices:
        key = (n.kind, (n.doi or "").lower())
        if key in seen and n.doi:
            continue
        if n.kind == "retraction" and not n.doi and any(m.kind == "retraction" for m in merged):
            continue
        seen.add(key)
        merged.append(n)
    retracted = is_retracted(merged) or (doc.retracted is True and not any(n.kind == "reinstatement" for n in merged))
    if not merged and doc.retracted is not None:
        return doc
    return doc.model_copy(update={"notices": merged, "retracted": retracted if merged else doc.retracted})
