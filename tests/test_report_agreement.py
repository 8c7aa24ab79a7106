"""The parts of one report do not contradict each other: a document the documents table labels No
Evidence takes no side in the aspects, and the root aspect (the claim itself) does not read
"insufficient evidence" beside a verdict drawn from one document."""

from __future__ import annotations

from claimscope.tools.weigh.verdict import Consensus, GlobalLabel, LocalLabel
from tests.investigation_fixtures import finished_state, make_services


def test_a_document_labelled_no_evidence_takes_no_side_in_any_aspect(tmp_path):
    from claimscope.agent.assemble import contradictions
    from claimscope.agent.graph.steps import _aggregate

    # 103's sentence was read as opposing, but its document's label is No Evidence
    state = finished_state({"101": LocalLabel.MOSTLY_TRUE, "102": LocalLabel.MOSTLY_TRUE,
                            "103": LocalLabel.NO_EVIDENCE},
                           stances={"103#2": "refute", "101#0": "support", "102#0": "support"},
                           assignments={"103#2": "1", "101#0": "1", "102#0": "1"})
    state.update(_aggregate(state, make_services(tmp_path)))
    c = Consensus.model_validate(state["node_consensus"]["1"])
    assert (c.support, c.oppose, c.neutral) == (2, 0, 1)
    root = Consensus.model_validate(state["node_consensus"]["root"])
    assert (root.support, root.oppose) == (2, 0)
    assert contradictions(state) == []


def test_the_root_takes_the_sides_the_document_labels_take(tmp_path):
    from claimscope.agent.assemble import contradictions
    from claimscope.agent.graph.steps import _aggregate

    # one document labelled False; a classified sentence of an unlabelled document read as supporting,
    # and the False document's own sentence misread as supporting
    state = finished_state({"101": LocalLabel.FALSE}, stances={"101#0": "support", "109#3": "support"},
                           assignments={"101#0": "1", "109#3": "1"})
    assert GlobalLabel(state["verdict"]["weighted_label"]) is GlobalLabel.LEANING_REFUTED
    state.update(_aggregate(state, make_services(tmp_path)))
    root = Consensus.model_validate(state["node_consensus"]["root"])
    assert (root.support, root.oppose) == (0, 1) and root.label is GlobalLabel.LEANING_REFUTED
    assert contradictions(state) == []


def test_the_root_reads_the_verdicts_way_on_one_document(tmp_path):
    from claimscope.agent.assemble import contradictions
    from claimscope.agent.graph.steps import _aggregate

    state = finished_state({"101": LocalLabel.MOSTLY_TRUE})
    assert GlobalLabel(state["verdict"]["weighted_label"]) is GlobalLabel.LEANING_SUPPORTED
    services = make_services(tmp_path)
    assert services.settings.verdict.min_node_evidence > 1
    state.update(_aggregate(state, services))
    root = Consensus.model_validate(state["node_consensus"]["root"])
    assert root.label is not GlobalLabel.INSUFFICIENT and root.support == 1
    assert contradictions(state) == []
