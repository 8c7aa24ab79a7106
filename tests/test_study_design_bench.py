"""The study-design benchmark's label rules (evals/study_design.py): what the labels come from."""

from __future__ import annotations

from evals.study_design import mesh_label, score_designs, title_label


def test_title_labels_need_a_stated_design_and_skip_two():
    assert title_label("Vitamin D and falls: a randomised controlled trial") == "rct"
    assert title_label("Statins for prevention: a systematic review and meta-analysis of randomized trials") \
        == "meta_analysis"
    assert title_label("Coffee and mortality: a prospective cohort study") == "cohort"
    assert title_label("Insulin signalling in mice") == "animal"
    assert title_label("A cohort study and a cross-sectional survey of nurses") is None
    assert title_label("Vitamin D and infections") is None


def test_mesh_labels_put_trial_descriptors_first():
    assert mesh_label(["Animals", "Rats"]) == "animal"
    assert mesh_label(["Animals", "Humans", "Cohort Studies"]) == "cohort"
    assert mesh_label(["Humans", "Prospective Studies", "Double-Blind Method"]) == "rct"
    assert mesh_label(["Humans", "Case-Control Studies", "Cohort Studies"]) is None
    assert mesh_label(["Humans", "Retrospective Studies"]) is None


def test_scoring_counts_undecided_as_wrong():
    items = [
        {"id": "1", "gold": "rct", "sentences": ["Patients were randomly assigned to drug or placebo."], "title": ""},
        {"id": "2", "gold": "cohort", "sentences": ["Vitamin D is a hormone."], "title": ""},
    ]
    result = score_designs(items)
    assert result["accuracy"] == 0.5 and result["coverage"] == 0.5 and result["accuracy_when_decided"] == 1.0
    assert result["confusion"] == {"cohort": {"undecided": 1}, "rct": {"rct": 1}}
