"""Conversion of Semantic Scholar papers and Google Scholar organic results to claimscope
Documents, and the title comparison that decides whether two results are the same paper.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import ValidationError
from semanticscholar.Paper import Paper

from claimscope.tools.models import Document, SourceKind
from claimscope.tools.text.segmenter import split_sentences

# Title similarity (difflib ratio on normalised titles) above which a match is the same paper.
TITLE_MATCH_RATIO = 0.9

# What a converter raises for a malformed result: the result is skipped, the search goes on.
MALFORMED = (ValueError, ValidationError, TypeError, AttributeError)

_Item = TypeVar("_Item")


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


def usable_documents(items: Iterable[_Item], convert: Callable[[_Item], Document]) -> tuple[list[Document], int]:
    """The items `convert` turns into Documents with text, and how many were skipped (malformed or
    without an abstract)."""
    docs: list[Document] = []
    skipped = 0
    for item in items:
        try:
            doc = convert(item)
        except MALFORMED:
            skipped += 1
            continue
        if not doc.sentences:
            skipped += 1
            continue
        docs.append(doc)
    return docs, skipped


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
