"""Guided review decisions: adding sources by id or DOI, hierarchy edits, validation messages."""

from __future__ import annotations

import pytest

from claimscope.agent.graph.review import DECISIONS, parse_decision
from claimscope.agent.investigation import Investigator
from claimscope.tools.errors import InputError
from claimscope.tools.models import Document
from tests.investigation_fixtures import CLAIM, make_services


def test_decisions_accept_shortcuts_and_reject_bad_shapes():
    for point in DECISIONS:
        assert parse_decision(point, "accept") == DECISIONS[point]()
    with pytest.raises(InputError, match="hierarchy review"):
        parse_decision("hierarchy", {"edits": [{"op": "explode"}]})
    with pytest.raises(InputError, match="unknown review point"):
        parse_decision("nope", {})


def test_sources_review_adds_by_doi_and_hierarchy_edits_apply(tmp_path):
    services = make_services(tmp_path)
    services.store.add_documents([Document(
        id="doi-doc", title="Cod liver oil and winter colds in fishermen",
        sentences=["Cod liver oil reduced winter colds among fishermen."], doi="10.1234/COD.1"
    )], corpus="fixture")
    inv = Investigator(services, persistent=True)
    r = inv.run(CLAIM, _opts(), thread_id="rv")
    r = inv.answer("rv", "accept")
    assert r.pending["point"] == "sources"
    r = inv.answer("rv", {"add": ["https://doi.org/10.1234/cod.1", "no-such-doc"], "exclude": ["nope"]})
    state = inv.state("rv")
    assert state["documents"]["doi-doc"]["found_by"] == ["person"]
    assert any("no-such-doc" in w for w in state["warnings"]) and any("nope" in w for w in state["warnings"])
    assert r.pending["point"] == "hierarchy"
    r = inv.answer("rv", {"edits": [
        {"op": "add", "parent_id": "root", "name": "cod liver oil", "description": "fish oil sources of vitamin d"},
        {"op": "merge", "node_id": "2", "into": "1"},
        {"op": "delete", "node_id": "root"},
    ]})
    state = inv.state("rv")
    nodes = state["tree"]["nodes"]
    assert "2" not in nodes and any(n["name"] == "cod liver oil" for n in nodes.values())
    assert any("cannot be deleted" in w for w in state["warnings"])
    applied = state["decisions"][-1]["applied"]
    assert any(a.startswith("added") for a in applied) and "merged 2 into 1" in applied


def _opts():
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, guided=True)
