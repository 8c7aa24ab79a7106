"""An aspect of the report says each thing once and one way: no sub-aspect standing alone under its
parent with (a subset of) the parent's quotes, and no perspective giving a sentence a stance other
than the one the aspect's quote list counts it with. Both were seen in the README demo's report
("level of birth weight" > "high birth weight"; "*refute:* Birth weight was positively associated ..."
above "(neutral) "Birth weight was positively associated ..."")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator
from claimscope.tools.read.hierarchy import AspectTree
from tests import investigation_fixtures as fx

CLAIM = "Women with a lower birth weight are more likely to develop breast cancer later in life."
# Invented abstracts: "high birth weight" is stated by three findings, "low birth weight" by one, so the
# level facet's "low birth weight" sub-aspect is rejected; the document about exercise is labelled No
# Evidence although the stance read its sentence as opposing the claim.
DOCS = [
    ("Birth weight and breast cancer in a cohort of women",
     ["High birth weight was associated with an increased risk of breast cancer in women.",
      "Women with high birth weight had more breast cancer later in life than other women."]),
    ("Birth weight and breast cancer risk: a case-control study",
     ["High birth weight was associated with breast cancer risk among women in the study."]),
    ("Exercise, birth weight and breast cancer",
     ["Low birth weight was not associated with breast cancer risk in women who exercise."]),
    ("Birth weight, gestational age and breast cancer",
     ["High birth weight did not increase breast cancer risk in women born at term."]),
]
SILENT = "302"  # the document about exercise


def _assessment(messages: list[dict[str, Any]]) -> dict[str, Any]:
    if "exercise" in str(messages[-1]["content"]).lower():
        return {"related": True, "takeaway": "The abstract is about exercise.", "evidence": [],
                "explanation": "No sentence bears on the claim.", "label": "No Evidence"}
    return fx._document_assessment(messages)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], AspectTree]:
    tmp = tmp_path_factory.mktemp("birth_weight")
    corpus = tmp / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"doc_id": 300 + i, "title": t, "abstract": a, "structured": False}) + "\n"
                              for i, (t, a) in enumerate(DOCS)))
    script = {**fx.investigation_script(), "document_assessment": _assessment}
    services = fx.make_services(Path(tmp), script=script, corpus=corpus, hierarchy={"aspects": "facets"},
                                verdict={"local_labels": "llm"})
    inv = Investigator(services, persistent=False)
    result = inv.run(CLAIM, InvestigationOptions(corpora=["fixture"], sources=["local"], depth=2, top_k_aspects=3,
                                                 top_documents=6))
    assert result.status == "complete", result.warnings
    labels = {d["id"]: d["local_label"] for d in result.report["documents"]}
    assert labels[SILENT] == "No Evidence" and len(labels) == len(DOCS)
    return result.report, AspectTree.model_validate(inv.state(result.thread_id)["tree"])


def test_a_facet_split_into_one_value_is_not_split(run: tuple[dict[str, Any], AspectTree]) -> None:
    report, tree = run
    level = next(n for n in tree.children(tree.ROOT) if n.facet == "exposure_level")
    assert any("'low birth weight'" in w for w in report["warnings"])  # the other value was rejected
    assert level.children == []  # and "high birth weight" does not stand alone under it
    assert all(len(n.children) != 1 for n in tree.nodes.values() if n.id != tree.ROOT)


def test_a_perspective_labels_each_sentence_as_the_aspects_quotes_do(run: tuple[dict[str, Any], AspectTree]) -> None:
    report, _ = run
    nodes = [n for n in report["hierarchy"]["nodes"] if n["id"] != "root"]
    quoted = {(n["id"], s["doc_id"], s["sentence"]): s["stance"] for n in nodes for s in n["top_segments"]}
    shown = [(n["id"], p["stance"], c) for n in nodes for p in n["perspectives"] for c in p["citations"]]
    assert shown
    assert all(quoted.get((nid, c["doc_id"], c["sentence"]), stance) == stance for nid, stance, c in shown)
    # the No Evidence document's sentence is quoted as neutral and left out of the "refute" perspective,
    # which keeps the other document's opposing finding, and only that one, in its summary
    assert {s for (_, d, _), s in quoted.items() if d == SILENT} == {"neutral"}
    assert not any(c["doc_id"] == SILENT for _, _, c in shown)
    [refute] = [p for n in nodes for p in n["perspectives"] if p["stance"] == "refute"]
    assert [c["doc_id"] for c in refute["citations"]] == ["303"]
    assert refute["summary"] == "High birth weight did not increase breast cancer risk in women born at term."
