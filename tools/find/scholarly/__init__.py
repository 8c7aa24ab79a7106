"""Scholarly search: Semantic Scholar (the `semanticscholar` package), Google Scholar through
SerpAPI (the `serpapi` package) and OpenAlex (plain httpx), as claimscope Documents, plus Crossref
metadata and editorial notices by DOI, with a failing source reported, never
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

One module per concern: outcome (source reports and the search outcome), failures (failures and
Retry-After), cache (the response cache), documents (papers and organic results as Documents,
title matching), retries (the client's shared state and its backoff), s2 (the Semantic Scholar
transport), serp (the SerpAPI request), openalex (OpenAlex search, title and DOI lookups, abstracts
from inverted indexes), crossref (metadata and notices by DOI), client (the ScholarlySearch object that joins them).
Import from the package: its names are re-exported here.
"""

from claimscope.tools.find.scholarly.cache import ResponseCache
from claimscope.tools.find.scholarly.client import CONNECT_TIMEOUT_S, ScholarlySearch
from claimscope.tools.find.scholarly.crossref import (
    CROSSREF_NAME,
    CrossrefRecord,
    message_to_record,
)
from claimscope.tools.find.scholarly.documents import (
    TITLE_MATCH_RATIO,
    organic_to_document,
    paper_to_document,
    titles_match,
)
from claimscope.tools.find.scholarly.failures import parse_retry_after
from claimscope.tools.find.scholarly.openalex import (
    OPENALEX_NAME,
    rebuild_abstract,
    work_to_document,
)
from claimscope.tools.find.scholarly.outcome import SearchOutcome, SourceReport, Status
from claimscope.tools.find.scholarly.retries import BACKOFF_BASE_S, BACKOFF_MAX_S, MAX_RETRY_AFTER_S
from claimscope.tools.find.scholarly.s2 import S2_FIELDS, S2_NAME
from claimscope.tools.find.scholarly.serp import SERPAPI_ENDPOINT, SERPAPI_MAX_NUM, SERPAPI_NAME

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_MAX_S",
    "CONNECT_TIMEOUT_S",
    "CROSSREF_NAME",
    "MAX_RETRY_AFTER_S",
    "OPENALEX_NAME",
    "S2_FIELDS",
    "S2_NAME",
    "SERPAPI_ENDPOINT",
    "SERPAPI_MAX_NUM",
    "SERPAPI_NAME",
    "TITLE_MATCH_RATIO",
    "CrossrefRecord",
    "ResponseCache",
    "ScholarlySearch",
    "SearchOutcome",
    "SourceReport",
    "Status",
    "organic_to_document",
    "paper_to_document",
    "parse_retry_after",
    "message_to_record",
    "rebuild_abstract",
    "titles_match",
    "work_to_document",
]
