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


def test_halves_are_fixed_by_the_id():
    from evals.study_design import half

    ids = [f"pubmedqa:{i}" for i in range(200)]
    halves = [half(i) for i in ids]
    assert set(halves) == {"tune", "held_out"} and 60 < halves.count("tune") < 140
    assert [half(i) for i in ids] == halves


def test_hand_read_sizes_skip_ambiguous_and_keep_none(tmp_path):
    import json

    from evals.study_design import pubmedqa_size_items, score_sizes

    data = {p: {"CONTEXTS": [text], "QUESTION": "q?"} for p, text in {
        "1": "A total of 120 patients were enrolled.", "2": "Cells were counted.",
        "3": "Records of 50 patients and 60 controls were reviewed.", "4": "Forty women took part."}.items()}
    (tmp_path / "pqal.json").write_text(json.dumps(data))
    (tmp_path / "labels.tsv").write_text("# comment\npmid\tn\tkind\n1\t120\tstated\n2\t-\tnone\n3\t110\tsum\n"
                                         "4\t?\tambiguous\n")
    items = pubmedqa_size_items(tmp_path / "pqal.json", tmp_path / "labels.tsv")
    assert [(it["id"], it["gold"], it["kind"]) for it in items] == [
        ("pubmedqa:1", 120, "stated"), ("pubmedqa:2", None, "none"), ("pubmedqa:3", 110, "sum")]
    scored = score_sizes(items, rows=False)
    assert scored["n"] == 2 and scored["no_number_stated"] == {"n": 1, "spurious": 0}
    assert scored["by_kind"]["stated"]["exact_match"] == 1.0


def test_ico_items_keep_the_split_and_verified_rows(tmp_path):
    from evals.study_design import ico_items, score_ico

    (tmp_path / "ev2_test_article_ids.txt").write_text("11\n")
    (tmp_path / "prompts_merged.csv").write_text(
        "PromptID,PMCID,Outcome,Intervention,Comparator\n1,11,HbA1c,telmisartan,placebo\n2,22,pain,aspirin,placebo\n")
    (tmp_path / "v2_annotations.csv").write_text(
        "UserID,PromptID,PMCID,Valid Label,Valid Reasoning,Label,Annotations,Label Code,In Abstract,"
        "Evidence Start,Evidence End\n"
        '0,1,11,True,True,significantly decreased,"Telmisartan significantly reduced HbA1c compared with placebo.",'
        "-1,UNK,0,10\n"
        '1,1,11,True,True,significantly decreased,"Telmisartan significantly reduced HbA1c compared with placebo.",'
        "-1,UNK,0,10\n"
        '2,1,11,False,True,significantly decreased,"Rejected span.",-1,UNK,0,10\n'
        '0,2,22,True,True,no significant difference,"Other split.",0,UNK,0,10\n')
    items = ico_items("test", tmp_path)
    assert len(items) == 1 and items[0]["outcome"] == "HbA1c"
    scored = score_ico(items)
    assert scored["n"] == 1
    assert all(scored[f]["accuracy"] == 1.0 for f in ("intervention", "comparator", "outcome"))


def test_the_document_reading_takes_the_comparator_from_the_articles_other_spans():
    from evals.study_design import score_ico_document

    gold = {"intervention": "metformin", "comparator": "placebo", "outcome": "HbA1c", "pmcid": "11"}
    items = [{"id": "a", "span": "Metformin lowered HbA1c by 0.8%.", **gold},
             {"id": "b", "span": "Patients were randomised to metformin or placebo.", **gold}]
    assert score_ico_document(items)["comparator"] == 1.0


def test_population_labels_take_the_best_phrasing_and_count_spurious(tmp_path):
    import json

    from evals.study_design import pubmedqa_population_items, score_populations

    data = {p: {"CONTEXTS": [text], "QUESTION": "q?"} for p, text in {
        "1": "A total of 120 adults with asthma were enrolled.", "2": "Tax documents were analysed.",
        "3": "Forty-two women with breast cancer took part.", "4": "The register was searched."}.items()}
    (tmp_path / "pqal.json").write_text(json.dumps(data))
    (tmp_path / "labels.tsv").write_text("# comment\npmid\tpopulation\tkind\n1\tpatients with asthma | adults with "
                                         "asthma\tstated\n2\t-\tnone\n3\tmen with prostate cancer\tstated\n"
                                         "4\tregistered twins\tstated\n")
    items = pubmedqa_population_items(tmp_path / "pqal.json", tmp_path / "labels.tsv")
    assert [it["gold"] for it in items] == [["patients with asthma", "adults with asthma"], [],
                                            ["men with prostate cancer"], ["registered twins"]]
    scored = score_populations(items)
    assert scored["n"] == 3 and scored["exact_match"] == round(1 / 3, 4) and scored["match_rate"] == round(1 / 3, 4)
    assert scored["none_found"] == 1 and scored["no_population_stated"] == {"n": 1, "spurious": 0}
