"""OpenAlex and Crossref against recorded responses (tests/fixtures/scholarly), the Retraction
Watch index and its import command, notices merged into documents, and a retracted work forced to
trust 0. No network; sleeps are recorded, not slept."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from claimscope.tools.appraise.retractions import (
    RetractionIndex,
    is_retracted,
    normalise_doi,
    with_notices,
)
from claimscope.tools.appraise.trust import ReputationConfig, propagate_trust, reputation
from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.find.scholarly import message_to_record, rebuild_abstract, work_to_document
from claimscope.tools.models import Document, Notice, SourceKind
from tests.test_scholarly import FIX, Recorder, make, ok

OA = SourceKind.OPENALEX
PNAS_DOI = "10.1073/pnas.1414271111"


def work() -> dict[str, Any]:
    return json.loads((FIX / "openalex_work_by_doi_pnas_2014.json").read_text(encoding="utf-8"))


def search_body(*works: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, json={"meta": {"count": len(works)}, "results": list(works)})


# ------------------------------------------------------------------------------------ OpenAlex


def test_inverted_index_is_rebuilt_in_order_with_gaps_skipped():
    assert rebuild_abstract({"world": [1], "Hello": [0], "again": [4], "hello": [3]}) == "Hello world hello again"
    assert rebuild_abstract(None) == "" and rebuild_abstract({}) == ""
    with pytest.raises(ValueError, match="position"):
        rebuild_abstract({"word": [-1]})
    with pytest.raises(ValueError, match="other than a list of positions"):
        rebuild_abstract({"word": "3"})
    with pytest.raises(ValueError, match="is not an object"):
        rebuild_abstract(["not", "a", "map"])


def test_recorded_work_becomes_a_document():
    doc = work_to_document(work())
    assert doc.id == "openalex:W2109415576" and doc.source is OA
    assert doc.doi == PNAS_DOI
    assert doc.title.startswith("Developing functional musculoskeletal tissues")
    assert doc.year == 2014 and doc.citation_count == 138
    assert doc.venue == "Proceedings of the National Academy of Sciences" and doc.venue_type == "journal"
    assert doc.retracted is False and doc.notices == []
    assert doc.publication_types == ["article", "journal-article"]
    assert doc.open_access_url == "https://doi.org/10.1073/pnas.1414271111"
    assert doc.authors and doc.sentences[0].startswith("Significance The inadequate mechanical properties")
    # Every word of the recorded index is in the text, in position order.
    index = work()["abstract_inverted_index"]
    assert len(doc.text.split()) == len({p for ps in index.values() for p in ps})


def test_retracted_work_carries_the_flag_and_a_notice():
    w = {**work(), "is_retracted": True}
    doc = work_to_document(w)
    assert doc.retracted is True and [n.kind for n in doc.notices] == ["retraction"]


def test_openalex_search_maps_results_and_skips_malformed_or_abstractless(tmp_path):
    good = work()
    no_abstract = {**work(), "id": "https://openalex.org/W2", "abstract_inverted_index": None}
    bad_index = {**work(), "id": "https://openalex.org/W3", "abstract_inverted_index": {"x": ["a"]}}
    rec = Recorder(search_body(good, no_abstract, bad_index, {"no": "id"}))
    search, _ = make(tmp_path, rec, mailto="team@example.org", openalex_api_key="k")
    out = search.search("musculoskeletal tissues hypoxia", [OA])
    assert [d.id for d in out.documents] == ["openalex:W2109415576"]
    assert out.reports[0].status == "ok" and "3 result(s)" in out.reports[0].message
    params = rec.requests[0].url.params
    assert params["search"] == "musculoskeletal tissues hypoxia" and params["mailto"] == "team@example.org"
    assert params["api_key"] == "k" and params["filter"] == "has_abstract:true"
    # The answer is cached without the key: the same search again sends nothing.
    again = search.search("musculoskeletal tissues hypoxia", [OA])
    assert len(rec.requests) == 1 and again.reports[0].status == "cached"


def test_openalex_key_never_reaches_the_cache(tmp_path):
    rec = Recorder(search_body(work()))
    search, _ = make(tmp_path, rec, openalex_api_key="SECRET-KEY")
    search.search("hypoxia", [OA])
    files = list((tmp_path / "cache").rglob("*.json"))
    assert files and all("SECRET-KEY" not in f.read_text() for f in files)


def test_openalex_429_with_retry_after_is_honoured(tmp_path):
    rec = Recorder(httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "rate limited"}),
                   search_body(work()))
    search, sleeps = make(tmp_path, rec)
    out = search.search("hypoxia", [OA])
    assert sleeps == [7.0] and out.reports[0].status == "ok" and len(out.documents) == 1


def test_openalex_persistent_5xx_becomes_a_warning_not_an_error(tmp_path):
    rec = Recorder(httpx.Response(503, text="upstream down"))
    search, sleeps = make(tmp_path, rec, max_retries=2)
    out = search.search("hypoxia", [OA])
    assert out.documents == [] and out.reports[0].status == "error"
    assert sleeps == [1.0, 2.0] and "OpenAlex had a server error (HTTP 503)" in out.warnings[0]


def test_openalex_unreachable_is_one_clear_warning(tmp_path):
    rec = Recorder(httpx.ConnectError("Name or service not known"))
    search, sleeps = make(tmp_path, rec)
    out = search.search("hypoxia", [OA, SourceKind.SEMANTIC_SCHOLAR])
    assert {r.source: r.status for r in out.reports} == {OA: "unreachable", SourceKind.SEMANTIC_SCHOLAR: "unreachable"}
    assert any("OpenAlex could not be reached" in w for w in out.warnings) and sleeps == []


@pytest.mark.parametrize("payload", [[1, 2], {"meta": {}}, {"results": "none"}])
def test_openalex_malformed_payload_is_reported(tmp_path, payload):
    search, _ = make(tmp_path, Recorder(httpx.Response(200, json=payload)))
    out = search.search("hypoxia", [OA])
    assert out.reports[0].status == "error" and "malformed payload" in out.reports[0].message


def test_openalex_non_json_200_is_reported(tmp_path):
    search, _ = make(tmp_path, Recorder(httpx.Response(200, text="<html>maintenance</html>")))
    out = search.search("hypoxia", [OA])
    assert out.reports[0].status == "error" and "not JSON" in out.reports[0].message


def test_work_by_doi_and_404_with_html_body(tmp_path):
    rec = Recorder(ok("openalex_work_by_doi_pnas_2014.json"),
                   httpx.Response(404, content=(FIX / "openalex_error_404_work_not_found_html.txt").read_bytes(),
                                  headers={"content-type": "text/html"}))
    search, _ = make(tmp_path, rec)
    doc = search.openalex_work("https://doi.org/" + PNAS_DOI)
    assert doc is not None and doc.doi == PNAS_DOI
    assert rec.requests[0].url.raw_path.decode().startswith("/works/https://doi.org/10.1073%2Fpnas.1414271111")
    assert search.openalex_work("10.1046/j.1365-2699.2003.00795") is None


def test_work_by_doi_replays_the_recorded_cassette(tmp_path):
    import vcr

    my_vcr = vcr.VCR(record_mode="none", match_on=["method", "host", "path"])
    search, _ = make(tmp_path, None)
    with my_vcr.use_cassette(str(FIX / "openalex_pqa_work_by_doi_pnas_2014.yaml")):
        doc = search.openalex_work(PNAS_DOI)
    assert doc is not None and doc.citation_count == 138 and doc.sentences


def test_title_search_accepts_only_a_matching_title(tmp_path):
    rec = Recorder(ok("openalex_works_filter_title_search_2hits.json"))
    search, _ = make(tmp_path, rec)
    doc = search.openalex_title("Augmenting large language models with chemistry tools")
    assert doc is not None and doc.title.lower().startswith("augmenting large language models with chemistry tools")
    assert rec.requests[0].url.params["filter"] == "title.search:Augmenting large language models with chemistry tools"
    assert search.openalex_title("A completely different paper about bananas and their ripening") is None


def test_work_lookup_failure_raises_source_unavailable(tmp_path):
    search, _ = make(tmp_path, Recorder(httpx.Response(403, json={"error": "key"})))
    with pytest.raises(SourceUnavailableError, match="OPENALEX_API_KEY"):
        search.openalex_work(PNAS_DOI)


# ------------------------------------------------------------------------------------ Crossref


def test_crossref_record_with_a_real_correction(tmp_path):
    rec = Recorder(ok("crossref_work_by_doi_pnas_updated_by_correction.json"))
    search, _ = make(tmp_path, rec, mailto="team@example.org")
    record = search.crossref_work(PNAS_DOI)
    assert record is not None
    assert record.venue == "Proceedings of the National Academy of Sciences" and record.type == "journal-article"
    assert record.citation_count == 129 and not record.retracted
    assert [(n.kind, n.doi, n.date, n.source) for n in record.notices] == [
        ("correction", "10.1073/pnas.1507001112", "2015-05-04", "crossref")]
    assert rec.requests[0].url.path == "/works/10.1073/pnas.1414271111"
    assert rec.requests[0].url.params["mailto"] == "team@example.org"
    # Cached: asked once.
    assert search.crossref_work(PNAS_DOI) is not None and len(rec.requests) == 1


def test_crossref_retraction_from_retraction_watch_and_notice_records():
    message = {"DOI": "10.1016/s0140-6736(97)11096-0", "type": "journal-article", "updated-by": [
        {"DOI": "10.1016/s0140-6736(04)15715-2", "type": "correction", "label": "Correction",
         "source": "retraction-watch", "updated": {"date-parts": [[2004, 3, 6]]}},
        {"DOI": "10.1016/s0140-6736(10)60175-4", "type": "retraction", "label": "Retraction",
         "source": "retraction-watch", "updated": {"date-parts": [[2010, 2, 6]]}},
    ]}
    record = message_to_record(message)
    assert record.retracted and [n.kind for n in record.notices] == ["correction", "retraction"]
    assert record.notices[1].source == "retraction_watch" and record.notices[1].date == "2010-02-06"
    notice = message_to_record({"DOI": "10.1016/s0140-6736(10)60175-4",
                                "update-to": [{"DOI": "10.1016/s0140-6736(97)11096-0", "type": "retraction"}]})
    assert not notice.retracted and [n.kind for n in notice.notices] == ["retraction_notice"]


def test_crossref_404_is_none_and_errors_are_clear(tmp_path):
    rec = Recorder(httpx.Response(404, content=(FIX / "crossref_error_404_work_not_found.txt").read_bytes()),
                   httpx.Response(429, headers={"Retry-After": "3"}, json={"message": "slow down"}),
                   httpx.Response(200, json={"status": "ok", "message": {"no": "doi"}}))
    search, sleeps = make(tmp_path, rec, max_retries=0)
    assert search.crossref_work("10.9999/unknown") is None
    with pytest.raises(SourceUnavailableError, match="rate_limited"):
        search.crossref_work("10.9999/limited")
    with pytest.raises(SourceUnavailableError, match="malformed"):
        search.crossref_work("10.9999/malformed")


# ------------------------------------------------------------------------------- Retractions


def test_retraction_watch_import_and_lookup(tmp_path):
    index = RetractionIndex(tmp_path / "retractions.json")
    summary = index.import_csv(FIX / "retraction_watch_first20rows.csv")
    assert summary.rows == 20 and summary.works > 0 and summary.retracted > 0
    notices = index.lookup("https://doi.org/10.1155/2022/8341966")
    assert [n.kind for n in notices] == ["retraction"]
    assert notices[0].doi == "10.1155/2023/9753475" and notices[0].date == "2023-09-27"
    assert notices[0].source == "retraction_watch" and "Paper Mill" in notices[0].detail
    # A fresh index reads the file written by the import.
    assert RetractionIndex(tmp_path / "retractions.json").lookup("10.1155/2022/8341966") == notices
    assert index.lookup("10.1073/pnas.1414271111") == [] and index.lookup(None) == []


def test_a_held_index_sees_a_later_import(tmp_path):
    """One index serves every investigation of a long-lived server; an import by another process
    (`claimscope retractions import`) reaches it without a restart."""
    held = RetractionIndex(tmp_path / "retractions.json")
    assert held.lookup("10.1155/2022/8341966") == [] and len(held) == 0
    RetractionIndex(tmp_path / "retractions.json").import_csv(FIX / "retraction_watch_first20rows.csv")
    assert [n.kind for n in held.lookup("10.1155/2022/8341966")] == ["retraction"]


def test_retraction_import_refuses_a_file_that_is_not_the_csv(tmp_path):
    bad = tmp_path / "other.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    index = RetractionIndex(tmp_path / "r.json")
    with pytest.raises(InputError, match="not a Retraction Watch CSV.*OriginalPaperDOI"):
        index.import_csv(bad)
    with pytest.raises(InputError, match="no such file"):
        index.import_csv(tmp_path / "missing.csv")
    (tmp_path / "r.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(InputError, match="import the CSV again"):
        RetractionIndex(tmp_path / "r.json").lookup("10.1/x")


def test_notices_merge_and_reinstatement_lifts_a_retraction():
    retraction = Notice(kind="retraction", source="retraction_watch", doi="10.1/r", date="2020-01-01")
    doc = Document(id="d", doi="10.1/x", sentences=["s"])
    flagged = with_notices(doc, [retraction])
    assert flagged.retracted is True
    assert with_notices(flagged, [retraction]).notices == [retraction]  # the same notice once
    later = Notice(kind="reinstatement", source="crossref", date="2021-01-01")
    assert not is_retracted([retraction, later]) and with_notices(flagged, [later]).retracted is False
    corrected = with_notices(doc, [Notice(kind="correction", source="crossref", doi="10.1/c")])
    assert corrected.corrected and corrected.retracted is False
    assert normalise_doi(" HTTPS://DOI.ORG/10.1/AbC ") == "10.1/abc" and normalise_doi("n/a") is None


def test_a_retracted_work_gets_trust_zero():
    cfg = ReputationConfig()
    strong = dict(citation_count=5000, influential_citation_count=400, venue="The Lancet", year=2020,
                  study_design="meta_analysis", sentences=["s"])
    fine = Document(id="ok", **strong)
    retracted = with_notices(Document(id="bad", doi="10.1/x", **strong),
                             [Notice(kind="retraction", source="retraction_watch", doi="10.1/r")])
    rep_ok = reputation(fine, now_year=2026, config=cfg)
    rep_bad = reputation(retracted, now_year=2026, config=cfg)
    assert rep_ok.score > 0.8
    assert rep_bad.score == 0.0 and rep_bad.retracted and rep_bad.components["retracted"] == 1.0
    assert rep_bad.notices and rep_bad.notices[0].kind == "retraction"
    result = propagate_trust(["ok", "bad"], [], {"ok": rep_ok.score, "bad": rep_bad.score}, alpha=0.85,
                             max_iterations=50, tolerance=1e-9, retracted=["bad"])
    assert result.scores["bad"] == 0.0 and result.scores["ok"] > 0.8


def test_retractions_import_command(tmp_path, monkeypatch, capsys):
    import sys

    from claimscope.agent.cli import main
    from claimscope.agent.cli import retractions as _retractions  # noqa: F401  (registers the command)
    from claimscope.agent.settings import get_settings

    def run(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["claimscope", *args])
        with pytest.raises(SystemExit) as exc:
            main()
        out = capsys.readouterr()
        return int(exc.value.code or 0), out.out + out.err

    monkeypatch.setenv("CLAIMSCOPE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        code, out = run("retractions", "info")
        assert code == 0 and "no retraction index" in out
        code, out = run("retractions", "import", str(FIX / "retraction_watch_first20rows.csv"))
        assert code == 0, out
        assert "imported 20 rows" in out and "retracted" in out
        assert RetractionIndex(tmp_path / "data" / "retractions.json").lookup("10.1155/2022/8341966")
        code, out = run("retractions", "info")
        assert code == 0 and "works with notices" in out
        code, out = run("retractions", "import", str(tmp_path / "nope.csv"))
        assert code == 2 and "no such file" in out and "Traceback" not in out
    finally:
        get_settings.cache_clear()


def test_investigation_flags_a_retracted_source_and_tags_designs(tmp_path):
    """A whole offline investigation: the Retraction Watch index names one corpus document's DOI,
    so the report flags it with trust 0 in every format, and the other documents carry designs."""
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.llm.fake import scripted_llm
    from claimscope.agent.report import load_report, render_html, render_markdown
    from claimscope.agent.services import Services
    from claimscope.tools.find.ingest import read_path
    from claimscope.tools.find.store import EvidenceStore
    from tests.fakes import HashEmbedder, KeywordStance
    from tests.investigation_fixtures import CLAIM, CORPUS, investigation_script, make_settings

    # The generic record shape (id / text), which carries a DOI; SciFact rows do not.
    rows = [{"id": str(r["doc_id"]), "title": r["title"], "text": r["abstract"]}
            for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip() and (r := json.loads(line))]
    retracted_doi = "10.5555/vitd.101"
    rows[0]["doi"] = retracted_doi
    assert rows[0]["id"] == "101"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    csv_text = (FIX / "retraction_watch_first20rows.csv").read_text(encoding="utf-8").splitlines()
    header = csv_text[0].split(",")
    cells = [""] * len(header)
    cells[header.index("Record ID")] = "1"
    cells[header.index("OriginalPaperDOI")] = retracted_doi
    cells[header.index("RetractionDOI")] = "10.5555/vitd.retraction"
    cells[header.index("RetractionDate")] = "1/2/2024 0:00"
    cells[header.index("RetractionNature")] = "Retraction"
    cells[header.index("Reason")] = "+Falsification/Fabrication of Data;"
    rw = tmp_path / "rw.csv"
    rw.write_text(csv_text[0] + "\n" + ",".join(cells) + "\n", encoding="utf-8")

    settings = make_settings(tmp_path, hierarchy={"min_node_segments": 1})
    RetractionIndex(settings.resolve(settings.search.retractions)).import_csv(rw)
    embedder = HashEmbedder(dim=128)
    store = EvidenceStore(embedder, path=tmp_path / "qdrant")
    store.add_documents(read_path(corpus).documents, corpus="fixture")
    services = Services(settings, _store=store, _embedder=embedder, _llm=scripted_llm(investigation_script()),
                        _stance=KeywordStance())
    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=2, top_documents=6)
    result = Investigator(services, persistent=False).run(CLAIM, opts)
    assert result.status == "complete", result.warnings
    report = load_report(result.report)
    docs = {d.id: d for d in report.documents}
    bad = docs["101"]
    assert bad.retracted and bad.reputation == 0.0 and bad.trust == 0.0
    assert bad.notices and "Falsification" in bad.notices[0] and "2024-01-02" in bad.notices[0]
    assert any("101" in w and "retracted" in w for w in report.warnings)
    assert "RETRACTED" in render_markdown(report) and "RETRACTED" in render_html(report)
    # Designs come from the titles here (meta-analysis, randomized trial), and reach the summary.
    assert bad.design == "meta_analysis" and docs["102"].design == "rct"
    assert "RCT" in report.designs
    others = [d for d in report.documents if d.id != "101" and d.reputation is not None]
    assert others and all(d.reputation > 0 and not d.retracted for d in others)


def _services_with_transport(tmp_path, handler, **overrides):
    from claimscope.agent.services import Services
    from claimscope.tools.find.scholarly import ScholarlySearch
    from tests.investigation_fixtures import make_settings

    services = Services(make_settings(tmp_path, **overrides))
    services._scholarly = ScholarlySearch(cache_dir=None, s2_transport=httpx.MockTransport(handler),
                                          sleep=lambda s: None, s2_min_interval_s=0, max_retries=0)
    return services


def test_enrichment_asks_crossref_only_with_a_scholarly_source_and_once_when_down(tmp_path):
    from claimscope.agent.sources import enrich_documents

    retraction = {"status": "ok", "message": {"DOI": "10.1/a", "container-title": ["Journal A"], "type": "journal-article",
                                              "updated-by": [{"DOI": "10.1/r", "type": "retraction", "source": "publisher",
                                                              "updated": {"date-parts": [[2021, 6, 1]]}}]}}
    asked: list[str] = []

    def crossref(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(200, json=retraction)

    docs = {"a": Document(id="a", doi="10.1/a", sentences=["Patients were randomly assigned to two arms."]),
            "b": Document(id="b", sentences=["No DOI here."])}
    services = _services_with_transport(tmp_path, crossref)
    local, warnings = enrich_documents(docs, services, ["local"])
    assert asked == [] and warnings == [] and local["a"].retracted is None and local["a"].study_design == "rct"
    online, warnings = enrich_documents(docs, services, ["local", "openalex"])
    assert asked == ["/works/10.1/a"] and warnings == []
    assert online["a"].retracted is True and online["a"].venue == "Journal A"
    assert "journal-article" in online["a"].publication_types and online["b"].retracted is None

    def down(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        raise httpx.ConnectError("no network", request=request)

    asked.clear()
    many = {f"d{i}": Document(id=f"d{i}", doi=f"10.1/{i}", sentences=["s"]) for i in range(3)}
    out, warnings = enrich_documents(many, _services_with_transport(tmp_path, down), ["semantic_scholar"])
    assert len(asked) == 1 and len(warnings) == 1 and "Crossref could not be reached" in warnings[0]
    assert all(d.retracted is None for d in out.values())
    off, _ = enrich_documents(many, _services_with_transport(tmp_path, down, search={"crossref": False}),
                              ["semantic_scholar"])
    assert len(asked) == 1 and set(off) == set(many)
