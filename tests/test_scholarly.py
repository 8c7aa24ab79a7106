"""Scholarly search clients against real recorded responses (tests/fixtures/scholarly, copied from
../shared/data/api_samples): Semantic Scholar through httpx.MockTransport and vcrpy cassettes,
SerpAPI through a requests adapter. No network; sleeps are recorded, not slept."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from requests.adapters import BaseAdapter

from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.find.scholarly import (
    S2_FIELDS,
    ResponseCache,
    ScholarlySearch,
    organic_to_document,
    parse_retry_after,
    titles_match,
)
from claimscope.tools.models import SourceKind
from tests.conftest import FIXTURES

FIX = FIXTURES / "scholarly"
S2 = SourceKind.SEMANTIC_SCHOLAR
GS = SourceKind.SERPAPI


def body(name: str) -> bytes:
    return (FIX / name).read_bytes()


def search_1936() -> dict[str, Any]:
    return json.loads(body("paper_search_rich_fields_year1936.json"))


class Recorder:
    """An httpx handler serving scripted responses in order (the last one repeats)."""

    def __init__(self, *script: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]) -> None:
        self.script = list(script)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(item, Exception):
            raise item
        if callable(item) and not isinstance(item, httpx.Response):
            return item(request)
        return item


def ok(name: str) -> httpx.Response:
    return httpx.Response(200, content=body(name), headers={"content-type": "application/json"})


def make(tmp_path: Path, handler: Recorder | None = None, **kw: Any) -> tuple[ScholarlySearch, list[float]]:
    sleeps: list[float] = []
    kw.setdefault("cache_dir", tmp_path / "cache")
    search = ScholarlySearch(
        s2_transport=httpx.MockTransport(handler) if handler is not None else None,
        sleep=sleeps.append,
        s2_min_interval_s=0,
        **kw,
    )
    return search, sleeps


# ------------------------------------------------------------------------------ Semantic Scholar


def test_search_maps_recorded_papers_to_documents(tmp_path):
    rec = Recorder(ok("paper_search_rich_fields_year1936.json"))
    search, sleeps = make(tmp_path, rec, per_query=20)
    out = search.search("turing & the halting problem", [S2])

    raw = search_1936()["data"][:20]
    with_abstract = [p for p in raw if p.get("abstract")]
    assert [d.id for d in out.documents] == [f"s2:{p['paperId']}" for p in with_abstract]
    first, raw0 = out.documents[0], with_abstract[0]
    assert first.title.startswith("On computable numbers")
    assert first.year == 1936 and first.citation_count == raw0["citationCount"]
    assert first.influential_citation_count == raw0["influentialCitationCount"]
    assert first.url == raw0["url"] and first.source == S2
    assert len(first.sentences) == 4 and first.sentences[0].startswith("Cryptographers agree")
    assert first.authors == [a["name"] for a in raw0["authors"]]
    with_doi = [d for d in out.documents if d.doi]
    assert all(d.doi == next(p for p in raw if f"s2:{p['paperId']}" == d.id)["externalIds"]["DOI"] for d in with_doi)
    [report] = out.reports
    assert report.status == "ok" and report.count == len(with_abstract)
    assert f"{20 - len(with_abstract)} result(s) without abstract" in report.message
    assert out.warnings == [] and sleeps == []
    # The package built the request; our transport sent it with the query properly encoded.
    url = rec.requests[0].url
    assert url.path == "/graph/v1/paper/search"
    assert url.params["query"] == "turing & the halting problem"
    assert url.params["limit"] == "20" and url.params["fields"].split(",") == S2_FIELDS


def test_recorded_cassette_replays_through_the_real_transport(tmp_path):
    import vcr  # a dev dependency: a missing vcrpy fails this test rather than skipping it

    cassettes = [FIX / "ds2023_paper_search_year_filter_rich_fields.yaml", FIX / "ds_paper_search_zero_results.yaml"]
    assert all(c.is_file() for c in cassettes), f"missing cassette(s): {[str(c) for c in cassettes if not c.is_file()]}"
    my_vcr = vcr.VCR(record_mode="none", match_on=["method", "host", "path"])
    search, _ = make(tmp_path, None)
    with my_vcr.use_cassette(str(cassettes[0])):
        out = search.search("turing", [S2])
    assert out.reports[0].status == "ok"
    assert out.documents and out.documents[0].title.startswith("On computable numbers")
    with my_vcr.use_cassette(str(cassettes[1])):
        zero = search.search("n0 r3sult s3arch t3rm", [S2])
    assert zero.documents == [] and zero.reports[0].status == "ok" and zero.reports[0].message == "no results"


def test_zero_results_is_ok_not_a_warning(tmp_path):
    search, _ = make(tmp_path, Recorder(ok("paper_search_zero_results.json")))
    out = search.search("n0 r3sult s3arch t3rm", [S2])
    assert out.documents == []
    assert out.reports[0].status == "ok" and out.reports[0].count == 0
    assert out.warnings == []


def test_429_with_retry_after_then_success(tmp_path):
    rec = Recorder(
        httpx.Response(429, content=body("error_429_too_many_requests_2024.json"), headers={"Retry-After": "7"}),
        ok("paper_search_rich_fields_year1936.json"),
    )
    search, sleeps = make(tmp_path, rec)
    out = search.search("turing", [S2])
    assert sleeps == [7.0]
    assert out.reports[0].status == "ok" and out.documents
    assert len(rec.requests) == 2


def test_429_without_retry_after_backs_off_then_reports_rate_limited(tmp_path):
    rec = Recorder(httpx.Response(429, content=body("error_429_too_many_requests_2023.json")))
    search, sleeps = make(tmp_path, rec, max_retries=3)
    out = search.search("turing", [S2])
    assert sleeps == [1.0, 2.0, 4.0]  # exponential: S2 sends no Retry-After
    assert len(rec.requests) == 4
    report = out.reports[0]
    assert report.status == "rate_limited" and out.documents == []
    assert "429" in report.message and "SEMANTIC_SCHOLAR_API_KEY" in report.message
    assert out.warnings and out.warnings[0].startswith("semantic_scholar: rate_limited")


def test_retry_after_longer_than_the_cap_is_not_waited_for(tmp_path):
    rec = Recorder(httpx.Response(429, content=body("error_429_too_many_requests_2024.json"), headers={"Retry-After": "3600"}))
    search, sleeps = make(tmp_path, rec)
    out = search.search("turing", [S2])
    assert sleeps == [] and len(rec.requests) == 1
    assert out.reports[0].status == "rate_limited" and "3600 s" in out.reports[0].message


def test_retry_after_http_date():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after("12", now=now) == 12.0
    assert parse_retry_after("soon", now=now) is None and parse_retry_after(None) is None


def test_5xx_then_success(tmp_path):
    rec = Recorder(
        httpx.Response(503, json={"message": "Service Unavailable"}),
        httpx.Response(500, json={"message": "Internal Server Error"}),
        ok("paper_search_rich_fields_year1936.json"),
    )
    search, sleeps = make(tmp_path, rec)
    out = search.search("turing", [S2])
    assert sleeps == [1.0, 2.0] and out.reports[0].status == "ok" and out.documents


def test_5xx_every_time_is_reported_as_error(tmp_path):
    search, sleeps = make(tmp_path, Recorder(httpx.Response(502, text="Bad Gateway")), max_retries=2)
    out = search.search("turing", [S2])
    assert len(sleeps) == 2
    assert out.reports[0].status == "error" and "HTTP 502" in out.reports[0].message


def test_read_timeout_is_retried_then_unreachable(tmp_path):
    rec = Recorder(httpx.ReadTimeout("timed out"))
    search, sleeps = make(tmp_path, rec, max_retries=2, timeout_s=3)
    out = search.search("turing", [S2])
    assert len(rec.requests) == 3 and len(sleeps) == 2
    assert out.reports[0].status == "unreachable" and "within 3 s" in out.reports[0].message


def test_timeout_then_success(tmp_path):
    rec = Recorder(httpx.ReadTimeout("timed out"), ok("paper_search_rich_fields_year1936.json"))
    search, sleeps = make(tmp_path, rec)
    assert search.search("turing", [S2]).reports[0].status == "ok" and sleeps == [1.0]


def test_no_network_degrades_at_once(tmp_path):
    rec = Recorder(httpx.ConnectError("[Errno -2] Name or service not known"))
    search, sleeps = make(tmp_path, rec)
    out = search.search("turing", [S2])
    assert len(rec.requests) == 1 and sleeps == []  # no retries against a host that is not there
    assert out.reports[0].status == "unreachable" and "check the network" in out.reports[0].message


def test_unreachable_host_through_the_real_transport(tmp_path):
    # Port 9 on localhost refuses connections: the real httpx transport, no network needed.
    search, sleeps = make(tmp_path, None, timeout_s=2)
    search._s2.api_url = "http://127.0.0.1:9"
    out = search.search("turing", [S2])
    assert out.reports[0].status == "unreachable" and sleeps == []


def test_403_invalid_key_is_unauthorised(tmp_path):
    rec = Recorder(httpx.Response(403, content=body("error_403_forbidden_invalid_key.json")))
    search, sleeps = make(tmp_path, rec, s2_api_key="F@k3K3y")
    out = search.search("turing", [S2])
    assert rec.requests[0].headers["x-api-key"] == "F@k3K3y"
    report = out.reports[0]
    assert report.status == "unauthorised" and "Forbidden" in report.message
    assert "SEMANTIC_SCHOLAR_API_KEY" in report.message and sleeps == []


def test_400_is_an_error_with_the_server_text(tmp_path):
    search, _ = make(tmp_path, Recorder(httpx.Response(400, content=body("error_400_unsupported_fields.json"))))
    report = search.search("turing", [S2]).reports[0]
    assert report.status == "error" and "Unrecognized or unsupported fields" in report.message


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, text="<html>maintenance</html>"),
        httpx.Response(200, json={"data": "not a list"}),
        httpx.Response(200, json={"total": 5}),
        httpx.Response(200, json=[1, 2, 3]),
    ],
    ids=["not-json", "data-not-list", "no-data", "not-an-object"],
)
def test_malformed_payload_is_reported_not_raised(tmp_path, response):
    search, _ = make(tmp_path, Recorder(response))
    out = search.search("turing", [S2])
    assert out.documents == []
    assert out.reports[0].status == "error" and "malformed" in out.reports[0].message


def test_malformed_items_are_skipped(tmp_path):
    raw = search_1936()
    raw["data"] = [{"title": "no id", "abstract": "Text here."}, {"paperId": "x1", "year": "not a year", "abstract": "A."}, *raw["data"][:3]]
    search, _ = make(tmp_path, Recorder(httpx.Response(200, json=raw)))
    out = search.search("turing", [S2])
    assert [d.id for d in out.documents] == [f"s2:{p['paperId']}" for p in raw["data"][2:] if p.get("abstract")]
    assert out.reports[0].status == "ok" and "skipped" in out.reports[0].message


def test_cache_serves_repeat_queries_and_expires(tmp_path):
    rec = Recorder(ok("paper_search_rich_fields_year1936.json"))
    search, _ = make(tmp_path, rec, s2_api_key="secret-key", cache_days=2)
    first = search.search("turing", [S2])
    second = search.search("turing", [S2])
    assert len(rec.requests) == 1
    assert first.reports[0].status == "ok" and second.reports[0].status == "cached"
    assert [d.id for d in second.documents] == [d.id for d in first.documents]
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 1 and "secret-key" not in files[0].read_text()
    # Age the entry beyond the TTL: the next search asks the API again.
    entry = json.loads(files[0].read_text())
    entry["saved_at"] -= 3 * 86400
    files[0].write_text(json.dumps(entry))
    assert search.search("turing", [S2]).reports[0].status == "ok" and len(rec.requests) == 2


def test_cache_disabled_and_corrupt_entries(tmp_path):
    cache = ResponseCache(tmp_path / "c", days=0)
    cache.put("k" * 64, {"a": 1})
    assert cache.get("k" * 64) is None and not (tmp_path / "c").exists()
    cache = ResponseCache(tmp_path / "c", days=1)
    key = ResponseCache.key("s", "GET", "http://x", [("q", "1"), ("api_key", "secret")])
    assert key == ResponseCache.key("s", "GET", "http://x", [("q", "1")])
    cache.put(key, {"a": 1})
    assert cache.get(key) == {"a": 1}
    next((tmp_path / "c").rglob("*.json")).write_text("{not json")
    assert cache.get(key) is None


def test_bad_arguments(tmp_path):
    with pytest.raises(InputError, match="per_query"):
        ScholarlySearch(cache_dir=None, per_query=0)
    search, _ = make(tmp_path, Recorder(ok("paper_search_zero_results.json")))
    with pytest.raises(InputError, match="empty"):
        search.search("   ", [S2])
    assert search.search("x y", [SourceKind.LOCAL]).reports == []


# ---------------------------------------------------------------------------------------- SerpAPI


class SerpAdapter(BaseAdapter):
    """A requests adapter serving scripted (status, body, headers) answers or raising exceptions."""

    def __init__(self, *script: tuple[int, Any, dict[str, str]] | Exception) -> None:
        super().__init__()
        self.script = list(script)
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        self.requests.append(request)
        item = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(item, Exception):
            raise item
        status, payload, headers = item
        r = requests.Response()
        r.status_code = status
        r._content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        r.headers.update({"Content-Type": "application/json", **headers})
        r.url, r.request, r.encoding = request.url, request, "utf-8"
        return r

    def close(self) -> None:
        pass


def serp_session(adapter: SerpAdapter) -> requests.Session:
    s = requests.Session()
    s.mount("https://", adapter)
    return s


def bananas() -> dict[str, Any]:
    return json.loads(body("google_scholar_search_q-bananas_num-2.json"))


def minecraft() -> dict[str, Any]:
    return {"search_metadata": {"status": "Success"}, "organic_results": json.loads(body("google_scholar_organic_results_q-minecraft.json"))}


def s2_match_for(titles_with_abstract: dict[str, str]) -> Callable[[httpx.Request], httpx.Response]:
    """/paper/search/match: a recorded S2 paper object re-titled to the asked title when we know an
    abstract for it, else the recorded 404 'Title match not found'."""
    template = search_1936()["data"][0]

    def handler(request: httpx.Request) -> httpx.Response:
        title = request.url.params["query"]
        if title not in titles_with_abstract:
            return httpx.Response(404, content=body("error_404_title_match_not_found.json"))
        paper = {**template, "paperId": "feedbeef" * 5, "title": title, "abstract": titles_with_abstract[title],
                 "externalIds": {"DOI": "10.1000/bananas"}, "matchScore": 120.5}
        return httpx.Response(200, json={"data": [paper]})

    return handler


def test_serpapi_without_key_is_reported_and_others_go_on(tmp_path):
    search, _ = make(tmp_path, Recorder(ok("paper_search_rich_fields_year1936.json")))
    out = search.search("turing", [S2, GS])
    by = {r.source: r for r in out.reports}
    assert by[GS].status == "unauthorised" and "set SERPAPI_API_KEY" in by[GS].message
    assert by[S2].status == "ok" and out.documents
    assert any("SERPAPI_API_KEY" in w for w in out.warnings)


def test_serpapi_organic_results_resolved_by_title(tmp_path):
    adapter = SerpAdapter((200, bananas(), {}))
    rec = Recorder(s2_match_for({"Bananas and plantains": "Bananas are a staple food. They are grown in the tropics."}))
    search, _ = make(tmp_path, rec, serpapi_key="k123", serpapi_session=serp_session(adapter))
    out = search.search("bananas", [GS])

    sent = adapter.requests[0].url
    assert "engine=google_scholar" in sent and "q=bananas" in sent and "api_key=k123" in sent
    resolved, snippet_only = out.documents
    assert resolved.title == "Bananas and plantains" and resolved.source == GS
    assert resolved.sentences == ["Bananas are a staple food.", "They are grown in the tropics."]
    assert resolved.doi == "10.1000/bananas" and resolved.id == "s2:" + "feedbeef" * 5
    # The second result has no S2 match (recorded 404): its snippet is its text.
    raw2 = bananas()["organic_results"][1]
    assert snippet_only.id == f"gs:{raw2['result_id']}" and snippet_only.title == raw2["title"]
    assert snippet_only.sentences and snippet_only.sentences[0].startswith("Botanists and geneticists")
    assert not snippet_only.sentences[-1].endswith("…")
    assert [r.url.params["query"] for r in rec.requests] == [r["title"] for r in bananas()["organic_results"]]
    report = out.reports[0]
    assert report.status == "ok" and report.count == 2
    assert "1 abstract(s) resolved" in report.message and "1 result(s) kept with their snippet only" in report.message


def test_serpapi_title_mismatch_is_not_accepted(tmp_path):
    # The recorded S2 match answers with a different paper: every Minecraft result keeps its snippet.
    adapter = SerpAdapter((200, minecraft(), {}))
    search, _ = make(tmp_path, Recorder(ok("paper_search_match_rich_fields.json")), serpapi_key="k",
                     serpapi_session=serp_session(adapter))
    out = search.search("minecraft", [GS])
    raw = minecraft()["organic_results"]
    assert [d.id for d in out.documents] == [f"gs:{r['result_id']}" for r in raw if r.get("snippet")]
    first = out.documents[0]
    assert first.year == 2016 and first.authors == ["S Nebel", "S Schneider", "GD Rey"]
    assert first.citation_count == raw[0]["inline_links"]["cited_by"]["total"]


def test_title_resolution_stops_when_s2_is_down(tmp_path):
    adapter = SerpAdapter((200, minecraft(), {}))
    rec = Recorder(httpx.ConnectError("no route"))
    search, _ = make(tmp_path, rec, serpapi_key="k", serpapi_session=serp_session(adapter))
    out = search.search("minecraft", [GS])
    assert len(rec.requests) == 1 and len(out.documents) == 10
    assert out.reports[0].status == "ok" and "title resolution stopped" in out.reports[0].message


def test_serpapi_401_429_and_no_network(tmp_path):
    bad_key = SerpAdapter((401, {"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}, {}))
    search, sleeps = make(tmp_path, Recorder(ok("paper_search_zero_results.json")), serpapi_key="bad",
                          serpapi_session=serp_session(bad_key))
    report = search.search("bananas", [GS]).reports[0]
    assert report.status == "unauthorised" and "Invalid API key" in report.message and sleeps == []

    limited = SerpAdapter((429, {"error": "Your account has run out of searches."}, {"Retry-After": "3"}), (200, bananas(), {}))
    search, sleeps = make(tmp_path, Recorder(s2_match_for({})), serpapi_key="k", serpapi_session=serp_session(limited))
    out = search.search("bananas", [GS])
    assert sleeps == [3.0] and out.reports[0].status == "ok" and len(out.documents) == 2

    offline = SerpAdapter(requests.exceptions.ConnectionError("Name or service not known"))
    search, sleeps = make(tmp_path, None, serpapi_key="k", serpapi_session=serp_session(offline), cache_dir=None)
    report = search.search("bananas", [GS]).reports[0]
    assert report.status == "unreachable" and sleeps == [] and len(offline.requests) == 1


def test_serpapi_empty_and_malformed(tmp_path):
    empty = {"search_metadata": {"status": "Success"}, "search_information": {"organic_results_state": "Fully empty"},
             "error": "Google hasn't returned any results for this query."}
    search, _ = make(tmp_path, None, serpapi_key="k", serpapi_session=serp_session(SerpAdapter((200, empty, {}))))
    out = search.search("zzqx", [GS])
    assert out.documents == [] and out.reports[0].status == "ok" and out.warnings == []

    broken = SerpAdapter((200, {"search_metadata": {"status": "Success"}, "organic_results": {"oops": 1}}, {}))
    search, _ = make(tmp_path, None, serpapi_key="k", serpapi_session=serp_session(broken))
    report = search.search("zzqx2", [GS]).reports[0]
    assert report.status == "error" and "malformed" in report.message


def test_serpapi_responses_are_cached(tmp_path):
    adapter = SerpAdapter((200, bananas(), {}))
    rec = Recorder(s2_match_for({}))
    search, _ = make(tmp_path, rec, serpapi_key="k", serpapi_session=serp_session(adapter))
    first = search.search("bananas", [GS])
    again = search.search("bananas", [GS])
    assert first.reports[0].status == "ok" and again.reports[0].status == "cached"
    # The SerpAPI page and the two S2 title lookups (recorded 404s) were each asked once.
    assert len(adapter.requests) == 1 and len(rec.requests) == 2
    assert [d.id for d in again.documents] == [d.id for d in first.documents]


def test_documents_deduplicated_across_sources_by_doi(tmp_path):
    s2_paper = {**search_1936()["data"][0], "paperId": "aaa", "externalIds": {"DOI": "10.1000/BANANAS"}}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/match"):
            return s2_match_for({"Bananas and plantains": "Bananas are a staple food."})(request)
        return httpx.Response(200, json={"total": 1, "offset": 0, "data": [s2_paper]})

    search, _ = make(tmp_path, Recorder(handler), serpapi_key="k", serpapi_session=serp_session(SerpAdapter((200, bananas(), {}))))
    out = search.search("bananas", [S2, GS])
    assert [d.id for d in out.documents][0] == "s2:aaa"
    assert sum(1 for d in out.documents if d.doi and d.doi.lower() == "10.1000/bananas") == 1
    by = {r.source: r for r in out.reports}
    assert by[S2].count == 1 and by[GS].count == 1  # the resolved duplicate is not counted twice


def test_titles_already_found_by_s2_need_no_lookup(tmp_path):
    s2_paper = {**search_1936()["data"][0], "paperId": "bbb", "title": "Bananas and plantains"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/match"):
            return httpx.Response(404, content=body("error_404_title_match_not_found.json"))
        return httpx.Response(200, json={"total": 1, "offset": 0, "data": [s2_paper]})

    rec = Recorder(handler)
    search, _ = make(tmp_path, rec, serpapi_key="k", serpapi_session=serp_session(SerpAdapter((200, bananas(), {}))))
    out = search.search("bananas", [GS, S2])  # order given does not matter: S2 is asked first
    assert [r.source for r in out.reports] == [S2, GS]
    lookups = [r.url.params["query"] for r in rec.requests if r.url.path.endswith("/match")]
    assert lookups == ["The evolution of the bananas."]
    assert [d.id for d in out.documents][:1] == ["s2:bbb"] and out.reports[1].count == 1


def test_public_title_match(tmp_path):
    search, _ = make(tmp_path, Recorder(ok("paper_search_match_rich_fields.json")))
    doc = search.match_title("Augmenting large language models with chemistry tools")
    assert doc is not None and doc.doi == "10.1038/s42256-024-00832-8" and doc.citation_count == 488
    assert search.match_title("Bananas and plantains") is None  # S2's best match is another paper
    search, _ = make(tmp_path, Recorder(httpx.Response(404, content=body("error_404_title_match_not_found.json"))), cache_dir=None)
    assert search.match_title("askldjrq3rjaw938h") is None
    search, _ = make(tmp_path, Recorder(httpx.ConnectError("offline")), cache_dir=None)
    with pytest.raises(SourceUnavailableError, match="unreachable"):
        search.match_title("anything at all")


def test_titles_match_and_organic_parsing():
    assert titles_match("Bananas and plantains", "Bananas and Plantains.")
    assert not titles_match("Bananas and plantains", "Augmenting large language models with chemistry tools")
    assert titles_match("Mining learning and crafting scientific experiments: a literature review on the use …",
                        "Mining learning and crafting scientific experiments: a literature review on the use of minecraft in education")
    doc = organic_to_document(bananas()["organic_results"][0])
    assert doc.year == 2010 and doc.authors == ["JC Robinson", "VG Saúco"] and doc.publication_types == ["Book"]
    with pytest.raises(ValueError, match="without a title"):
        organic_to_document({"snippet": "no title"})
