"""The parts of one report agree: a verdict on two cited findings is not shown beside a root aspect
that counts nothing (the documents' sentences were not classified under any aspect)."""

from __future__ import annotations

from claimscope.tools.models import Stance
from claimscope.tools.weigh.consistency import inconsistencies, verdict_evidence
from claimscope.tools.weigh.verdict import (
    Consensus,
    GlobalLabel,
    LocalLabel,
    aspect_consensus,
)
from tests.investigation_fixtures import finished_state, make_services


def test_the_root_counts_the_evidence_the_verdict_counts(tmp_path):
    from claimscope.agent.assemble import build_report, contradictions
    from claimscope.agent.graph.steps import _aggregate

    # the assess step's own search classified none of the evidence documents' sentences
    state = finished_state({"101": LocalLabel.MOSTLY_TRUE, "103": LocalLabel.SOMEWHAT_TRUE},
                           aspects=("dosing regimen", "baseline deficiency", "infection type"))
    assert GlobalLabel(state["verdict"]["weighted_label"]) is GlobalLabel.LEANING_SUPPORTED
    services = make_services(tmp_path)
    state.update(_aggregate(state, services))
    root = Consensus.model_validate(state["node_consensus"]["root"])
    assert (root.support, root.oppose) == (2, 0) and root.label is not GlobalLabel.INSUFFICIENT
    assert contradictions(state) == []
    report = build_report(state, services)
    root_view = next(n for n in report.hierarchy.nodes if n.id == "root")
    assert {(s.doc_id, s.sentence, s.stance) for s in root_view.top_segments} == {
        ("101", 0, Stance.SUPPORT), ("103", 0, Stance.SUPPORT)}
    assert not any("disagree" in w for w in report.warnings)


def test_verdict_evidence_takes_each_labels_sign_and_skips_no_evidence():
    labels = {"a": (LocalLabel.MOSTLY_TRUE, [0, 2]), "b": (LocalLabel.NO_EVIDENCE, [1]), "c": (LocalLabel.FALSE, [3])}
    assert verdict_evidence(labels) == {"a#0": Stance.SUPPORT, "a#2": Stance.SUPPORT, "c#3": Stance.REFUTE}


def test_inconsistencies_name_each_contradiction():
    supported = GlobalLabel.LEANING_SUPPORTED
    two = [LocalLabel.MOSTLY_TRUE, LocalLabel.TRUE]
    empty = aspect_consensus([])
    assert inconsistencies(supported, two, aspect_consensus([(Stance.SUPPORT, 1.0)]), 1) == []
    # the reported case: a supported verdict on two findings, a root with no segments
    assert any("root aspect counts no" in p for p in inconsistencies(supported, two, empty, 1))
    assert any("no document is labelled" in p for p in inconsistencies(supported, [LocalLabel.NO_EVIDENCE], None))
    assert any("other way" in p for p in inconsistencies(supported, [LocalLabel.FALSE], None))
    assert any("root aspect reads" in p for p in inconsistencies(
        supported, two, aspect_consensus([(Stance.REFUTE, 1.0), (Stance.REFUTE, 1.0)]), 1))
    assert any("explanation cites mostly opposing" in p for p in inconsistencies(supported, two, None, -1))
    assert inconsistencies(GlobalLabel.INSUFFICIENT, [LocalLabel.NO_EVIDENCE], empty, None) == []
