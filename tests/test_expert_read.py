"""The expert-read runner: what a reader's packet holds, and how judgments become figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import expert_read

SNAPSHOT = Path(__file__).parent / "snapshots" / "report.json"


@pytest.fixture
def report() -> dict:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_packet_numbers_every_item_a_reader_judges(report: dict) -> None:
    p = expert_read.packet(report, "# report", {})
    nodes = report["hierarchy"]["nodes"]
    root = report["hierarchy"]["root"]
    assert [a["aspect"] for a in p["aspects"]] == [n["name"] for n in nodes if n["id"] != root]
    assert [a["i"] for a in p["aspects"]] == list(range(len(p["aspects"])))
    shown = [s for s in report["explanation"]["sentences"] if s["status"] != "dropped"]
    assert [e["sentence"] for e in p["explanation"]] == [s["text"] for s in shown]
    # every cited sentence travels with the sentence that cites it, so the reader can check it
    assert all(e["cited"] for e in p["explanation"] if any(c["text"] for c in shown[e["i"]]["citations"]))
    n_quotes = sum(len(n["top_segments"]) for n in nodes if n["id"] != root)
    assert len(p["quotes"]) == n_quotes
    # no score the pipeline gave itself is in the items
    assert "support" not in json.dumps(p["explanation"])


def test_score_takes_the_first_reader_and_reports_agreement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expert_read, "LABELS", tmp_path)
    folder = tmp_path / "t"
    (folder / "judgments" / "a").mkdir(parents=True)
    (folder / "judgments" / "b").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(
        {"code_version": "abc", "claims": {"r1": {"set": "scifact_dev"}, "r2": {"set": "frosc"}}}))
    a1 = {"aspects": [{"i": 0, "on_claim": "yes"}, {"i": 1, "on_claim": "no"}],
          "explanation": [{"i": 0, "faithful": "yes", "on_point": "no"}], "consistent": "yes",
          "table": [{"i": 0, "population": "yes", "n": "no", "outcome": "yes"}]}
    b1 = {"aspects": [{"i": 0, "on_claim": "yes"}, {"i": 1, "on_claim": "yes"}], "consistent": "yes"}
    a2 = {"aspects": [{"i": 0, "on_claim": "yes"}], "consistent": "no", "consistency_note": "tree empty"}
    (folder / "judgments" / "a" / "r1.json").write_text(json.dumps(a1))
    (folder / "judgments" / "b" / "r1.json").write_text(json.dumps(b1))
    (folder / "judgments" / "a" / "r2.json").write_text(json.dumps(a2))
    out = tmp_path / "expert_read.json"
    expert_read.score("t", out)
    res = json.loads(out.read_text())
    assert res["n_reports"] == 2 and res["n_double_read"] == 1
    assert res["aspect_on_claim"] == pytest.approx(2 / 3, abs=1e-4)
    assert res["report_consistent"] == 0.5
    assert res["table_n"] == 0.0 and res["table_population"] == 1.0 and res["table_comparator"] is None
    assert res["reader_agreement"]["aspect_on_claim"] == {"items": 2, "agreement": 0.5}
    assert res["inconsistencies"] == [{"report": "r2", "inconsistency": "tree empty"}]
    assert res["met"]["report_consistent"] is False
    assert res["runs"]["t"]["aspect_on_claim"] == res["aspect_on_claim"]
