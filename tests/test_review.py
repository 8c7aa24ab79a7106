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
    # A mistyped field is refused, naming it, rather than recorded as "accepted".
    for point in DECISIONS:
        with pytest.raises(InputError, match="bogus"):
            parse_decision(point, {"bogus": 1})
    with pytest.raises(InputError, match="nodes.0|edits.0.colour"):
        parse_decision("hierarchy", {"edits": [{"op": "delete", "node_id": "1", "colour": "red"}]})


def test_a_verdict_note_is_kept_in_the_state_and_every_report_format(tmp_path):
    from claimscope.agent.report import render

    inv = Investigator(make_services(tmp_path), persistent=True)
    r = inv.run(CLAIM, _opts(), thread_id="vn")
    while r.pending and r.pending["point"] != "verdict":
        r = inv.answer("vn", "accept")
    assert r.pending and r.pending["point"] == "verdict"
    note = "The trials mostly enrolled deficient adults\x1b[31m; say so."
    r = inv.answer("vn", {"accept": False, "note": note})
    state = inv.state("vn")
    assert state["decisions"][-1]["decision"]["note"] == note.replace("\x1b[31m", "")
    assert r.report is not None
    for fmt in ("md", "json", "html"):
        text = render(r.report, fmt)
        assert "The trials mostly enrolled deficient adults" in text and "disputed" in text, fmt
        assert "\x1b" not in text and "\\u001b" not in text, fmt


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
    with pytest.raises(InputError, match="'nope', not among the gathered documents"):
        inv.answer("rv", {"exclude": ["nope"]})
    assert inv.pending("rv")["point"] == "sources"  # refused before anything was recorded
    r = inv.answer("rv", {"add": ["https://doi.org/10.1234/cod.1", "no-such-doc"]})
    state = inv.state("rv")
    assert state["documents"]["doi-doc"]["found_by"] == ["person"]
    assert any("no-such-doc" in w for w in state["warnings"])
    assert r.pending["point"] == "hierarchy"
    for bad, says in (({"op": "delete", "node_id": "root"}, "root"), ({"op": "delete", "node_id": "9.9"}, "'9.9'"),
                      ({"op": "merge", "node_id": "2", "into": "7"}, "'7'"), ({"op": "rename", "name": "x"}, "node_id")):
        with pytest.raises(InputError, match=says):
            inv.answer("rv", {"edits": [bad]})
    assert inv.state("rv")["decisions"][-1]["point"] == "sources"
    r = inv.answer("rv", {"edits": [
        {"op": "add", "parent_id": "root", "name": "cod liver oil", "description": "fish oil sources of vitamin d"},
        {"op": "merge", "node_id": "2", "into": "1"},
    ]})
    state = inv.state("rv")
    nodes = state["tree"]["nodes"]
    assert "2" not in nodes and any(n["name"] == "cod liver oil" for n in nodes.values())
    applied = state["decisions"][-1]["applied"]
    assert any(a.startswith("added") for a in applied) and "merged 2 into 1" in applied


def _opts():
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, guided=True)
