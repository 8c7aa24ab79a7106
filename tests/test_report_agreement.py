"""The parts of one report do not contradict each other: a document the documents table labels No
Evidence takes no side in the aspects; the root aspect (the claim itself) does not read
"insufficient evidence" beside a verdict drawn from one document; aspects on the same sentences read
alike at every level; an aspect on too little evidence says so in its words and its bar; every
document the report cites is a row of its documents table."""

from __future__ import annotations

from claimscope.agent.report import (
    DocumentView,
    Hierarchy,
    HierarchyNode,
    NodeConsensus,
    Report,
    SegmentView,
)
from claimscope.tools.models import Stance
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


def test_an_aspect_on_the_same_sentence_as_the_claim_reads_as_the_claim_does(tmp_path):
    from claimscope.agent.graph.steps import _aggregate

    # one document, its one cited sentence classified under the one aspect: the root (the claim) and
    # the aspect rest on exactly the same sentence, read the same way
    state = finished_state({"101": LocalLabel.MOSTLY_FALSE}, stances={"101#0": "refute"},
                           assignments={"101#0": "1"})
    services = make_services(tmp_path)
    assert services.settings.verdict.min_node_evidence > 1
    state.update(_aggregate(state, services))
    root = Consensus.model_validate(state["node_consensus"]["root"])
    child = Consensus.model_validate(state["node_consensus"]["1"])
    assert (root.support, root.oppose) == (child.support, child.oppose) == (0, 1)
    assert root.label is child.label is GlobalLabel.LEANING_REFUTED
    assert root.thin and child.thin


def test_a_child_on_its_parents_sentences_reads_as_its_parent(tmp_path):
    from claimscope.agent.graph.steps import _aggregate
    from claimscope.tools.read.hierarchy import AspectDraft, AspectTree

    # two sentences of one document under "dosing regimen" > "daily dosing": one study, so neither
    # level reads "generally", whatever the count of sentences
    state = finished_state({"101": LocalLabel.MOSTLY_TRUE, "102": LocalLabel.NO_EVIDENCE},
                           stances={"101#1": "support", "101#2": "support"},
                           assignments={"101#1": "1.1", "101#2": "1.1"})
    tree = AspectTree.model_validate(state["tree"])
    tree.add_children("1", [AspectDraft(name="daily dosing")])
    state["tree"] = tree.model_dump(mode="json")
    state.update(_aggregate(state, make_services(tmp_path)))
    parent = Consensus.model_validate(state["node_consensus"]["1"])
    child = Consensus.model_validate(state["node_consensus"]["1.1"])
    assert (parent.support, parent.oppose) == (child.support, child.oppose) == (2, 0)
    assert parent.label is child.label is GlobalLabel.LEANING_SUPPORTED


def _table_rows(markdown: str) -> set[str]:
    """The numbers of the rows of a Markdown report's documents table."""
    section = markdown.split("## Documents", 1)[1].split("\n\n", 2)[1]
    return {line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")} - {"#"}


def test_every_document_a_report_cites_is_in_its_documents_table(tmp_path):
    import re

    from claimscope.agent.assemble import build_report
    from claimscope.agent.graph.steps import _aggregate
    from claimscope.agent.report import render_html, render_markdown

    # the aspect quotes a sentence of 104, a gathered document that was not among those weighed
    state = finished_state({"101": LocalLabel.MOSTLY_TRUE}, stances={"101#0": "support", "104#1": "refute"},
                           assignments={"101#0": "1", "104#1": "1"})
    state["documents"]["104"] = {"corpus": "fixture", "found_by": ["claim"], "score": 0.4}
    for rec in state["stances"].values():
        rec.update(support=0.9 if rec["label"] == "support" else 0.05, refute=0.9 if rec["label"] == "refute" else 0.05)
    services = make_services(tmp_path)
    state.update(_aggregate(state, services))
    report = build_report(state, services)
    md = render_markdown(report)
    cited = set(re.findall(r"(?<!\\)\[(\d+):\d+\]", md))
    assert "2" in cited
    assert cited <= _table_rows(md)
    row = next(line for line in md.splitlines() if line.startswith("| 2 |"))
    assert "Vitamin D status and respiratory infection risk" in row and "not weighed" in row
    assert "#2 is quoted in this report but is not among the one document weighed for its verdict." in md
    html = render_html(report)
    table = html.split("<h2>Documents</h2>", 1)[1].split("</table>", 1)[0]
    assert set(re.findall(r">\[(\d+):\d+\]</a>", html)) <= set(re.findall(r'<tr><td><a href="#src\d+">(\d+)</a>', table))


def _report_with(consensus: NodeConsensus) -> Report:
    seg = SegmentView(doc_id="d1", sentence=0, text="Lower birth weight was not associated with risk.",
                      stance=Stance.REFUTE)
    return Report(claim="A claim", hierarchy=Hierarchy(nodes=[
        HierarchyNode(id="root", name="A claim", children=["1"], consensus=consensus, top_segments=[seg]),
        HierarchyNode(id="1", name="level of birth weight", consensus=consensus, top_segments=[seg])]),
        documents=[DocumentView(id="d1", title="A study", local_label=LocalLabel.MOSTLY_FALSE)])


def test_an_aspect_on_one_sentence_says_so_and_is_not_drawn_as_a_consensus():
    from claimscope.agent.report import render_html, render_markdown
    from claimscope.tools.weigh.verdict import aspect_consensus

    one = NodeConsensus.from_consensus(aspect_consensus([(Stance.REFUTE, 1.0, "d1")], min_evidence=2))
    assert one.thin and one.label is GlobalLabel.LEANING_REFUTED
    md = render_markdown(_report_with(one))
    assert "**level of birth weight** leaning refuted, on 1 opposing sentence only (+0 / =0 / -1)" in md
    assert "`--------------------`" not in md
    html = render_html(_report_with(one))
    assert html.count('<span class="bar thin"') == 2 and '<span class="bar" ' not in html
    assert "leaning refuted, on 1 opposing sentence only" in html


def test_a_stored_report_with_an_ungraded_sentence_reads_too_little_to_grade():
    from claimscope.agent.report import render_html, render_markdown

    # as reports made with a floor of two sentences per aspect stored it: one opposing sentence, no label
    legacy = NodeConsensus(oppose=1, score=-1.0, raw_ratios={"oppose": 1.0}, weighted_ratios={"oppose": 1.0},
                           label=GlobalLabel.INSUFFICIENT)
    md = render_markdown(_report_with(legacy))
    assert "**level of birth weight** 1 opposing sentence — too little to grade (+0 / =0 / -1)" in md
    assert "`--------------------`" not in md
    assert '<span class="bar" ' not in render_html(_report_with(legacy))
    neutral = NodeConsensus(neutral=2, raw_ratios={"neutral": 1.0}, weighted_ratios={"neutral": 1.0})
    assert "insufficient evidence: no sentence takes a side (+0 / =2 / -0)" in render_markdown(_report_with(neutral))
