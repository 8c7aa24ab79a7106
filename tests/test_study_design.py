"""Study design and sample size from metadata, title and abstract; the design summary; and the
design component of the reputation prior."""

from __future__ import annotations

import pytest

from claimscope.tools.appraise.sample_size import sample_size_rules
from claimscope.tools.appraise.study_design import (
    Design,
    design_from_text,
    design_summary,
    tag_design,
    tagged,
)
from claimscope.tools.appraise.trust import ReputationConfig, reputation
from claimscope.tools.models import Document


@pytest.mark.parametrize(("text", "design"), [
    ("We conducted a systematic review and meta-analysis of randomised controlled trials.", Design.META_ANALYSIS),
    ("Patients were randomly assigned to placebo or vitamin D.", Design.RCT),
    ("In this double-blind, placebo-controlled trial, 200 adults took part.", Design.RCT),
    ("A non-randomized comparison of two hospitals in a prospective cohort.", Design.COHORT),
    ("We retrospectively reviewed the medical records of 120 patients.", Design.COHORT),
    ("Cases and matched controls were compared for prior exposure.", Design.CASE_CONTROL),
    ("A cross-sectional survey of 1,200 nurses.", Design.CROSS_SECTIONAL),
    ("We report a case of a 45-year-old man with myocarditis.", Design.CASE_REPORT),
    ("Knockout mice lacking the receptor were fed a high-fat diet.", Design.ANIMAL),
    ("HeLa cell lines were incubated with the compound.", Design.IN_VITRO),
    ("A Markov model estimated the cost-effectiveness of screening.", Design.MODELLING),
    ("In this review we summarise recent advances in autophagy.", Design.NARRATIVE_REVIEW),
])
def test_design_patterns(text, design):
    assert design_from_text(text) is design


@pytest.mark.parametrize(("text", "design"), [
    # Cohort cues beyond the word "cohort": prospective follow-up, hazard ratios, registries.
    ("We prospectively followed 300 adults for five years; hazard ratios were estimated.", Design.COHORT),
    ("A population-based study using national register data on 40,000 births.", Design.COHORT),
    ("Eighty-three consecutive elderly patients underwent appendectomy.", Design.COHORT),
    ("The China Health and Retirement Longitudinal Study is a nationally representative survey.", Design.COHORT),
    # Case-control cues: referents, matched or healthy comparison groups.
    ("A population-based case-referent study of stroke patients.", Design.CASE_CONTROL),
    ("Forty-four patients with PID and 44 healthy women were included.", Design.CASE_CONTROL),
    ("Age- and gender-matched 20 healthy subjects comprised the control group.", Design.CASE_CONTROL),
    ("A nested case-control study within a prospective cohort of nurses.", Design.CASE_CONTROL),
    ("A transversal study of patients with HELLP syndrome.", Design.CROSS_SECTIONAL),
    # In vitro fertilisation treats people; ewes and counted animals are animal studies.
    ("We prospectively studied 200 women undergoing in vitro fertilization.", Design.COHORT),
    ("Catheters were implanted in 10 near-term gravid ewes.", Design.ANIMAL),
    ("Thirty two animals underwent laparotomy.", Design.ANIMAL),
    ("Experimental studies in animals suggested a benefit. We randomly assigned 600 patients to aspirin.",
     Design.RCT),
    ("The Cochrane Library, MEDLINE and EMBASE were searched from inception.", Design.META_ANALYSIS),
    ("In this prospective non randomized observational cohort study we evaluated age.", Design.COHORT),
    ("Patients were allocated in a double blind, randomized manner to two groups.", Design.RCT),
])
def test_revised_design_cues(text, design):
    assert design_from_text(text) is design


def test_undecided_is_none_not_a_guess():
    assert design_from_text("Vitamin D is a secosteroid hormone.") is None
    assert tag_design(Document(id="x", sentences=["Vitamin D is a secosteroid hormone."])).design is None


def test_design_section_wins_over_other_mentions():
    text = ("OBJECTIVE To assess prospectively the risk of heart disease. DESIGN Nested case-control study "
            "using prospectively collected samples. SETTING A cohort of physicians.")
    assert design_from_text(text) is Design.CASE_CONTROL


def test_animal_study_that_cultures_cells_reads_as_animal():
    text = ("Mice were injected with the virus. Tumours in mice shrank and mouse survival improved. "
            "Cultured cells were used to confirm the pathway.")
    assert design_from_text(text) is Design.ANIMAL


def test_metadata_then_title_then_abstract():
    abstract = ["Patients were randomly assigned to two arms (n = 40)."]
    meta = tag_design(Document(id="a", title="x", sentences=abstract, publication_types=["MetaAnalysis"]))
    assert meta.design is Design.META_ANALYSIS and meta.basis == "metadata" and meta.sample_size == 40
    title = tag_design(Document(id="b", title="Vitamin D in older adults: a cohort study", sentences=abstract))
    assert title.design is Design.COHORT and title.basis == "title"
    assert tag_design(Document(id="c", title="Vitamin D", sentences=abstract)).design is Design.RCT
    review = tag_design(Document(id="d", sentences=["We discuss the literature."], publication_types=["Review"]))
    assert review.design is Design.NARRATIVE_REVIEW and review.basis == "metadata"
    assert tagged(Document(id="e", sentences=abstract, study_design="cohort")).study_design == "cohort"


@pytest.mark.parametrize(("text", "n"), [
    ("A total of 1,234 patients were enrolled; 600 received the drug.", 1234),
    ("We randomised 120 participants to two groups of 60 participants.", 120),
    ("Of 5,000 patients screened, 310 patients were enrolled.", 310),
    ("Participants (n = 56) completed the survey.", 56),
    ("Mortality fell by 12% in 2019 among hospitals.", None),
    ("Four hundred cells were counted.", None),
    # Number words, spaces between thousands, enrolment written as an active verb.
    ("Two hundred and seven patients were included in this study.", 207),
    ("Sixty-two patients (aged 17-68 years) underwent lumbar discography.", 62),
    ("Mortality was studied in 900 000 adults in 57 prospective studies.", 900000),
    ("We analyzed retrospectively 78 patients with lower calyceal stones.", 78),
    ("We analyzed the medical records of 2061 patients who underwent surgery.", 2061),
    # The first total, not the largest count nor a later subset.
    ("Fifty-five patients were included. Among them, 27 patients underwent EDWS and the other 28 patients MED.", 55),
    ("A total of 1,369 patients underwent surgery; a subset of 203 patients had a prior biopsy.", 1369),
    # Groups stated side by side, added, when no total is stated.
    ("We enrolled 100 hypertensive patients and 30 normotensive subjects.", 130),
    ("CA125 was measured in 72 patients with endometriomas and 55 patients with ovarian cancer.", 127),
    ("Ratings were collected from 12 normally sighted, 10 visually impaired, and 10 blind subjects.", 32),
    ("Patients were randomised to tibial (n = 14) or peroneal (n = 12) stimulation.", 26),
    # Years and group numbers are not counts of people.
    ("Between 1981 and 1995, 21 cases presented to two hospitals.", 21),
    ("Group 3 (spontaneous abortion) women (n = 81) were recruited at ultrasound.", 81),
    # Groups stated one by one in sentences of their own, added; a total stated first still wins,
    # and subsets with an outcome ("5 patients with complications") are not groups.
    ("Group 1 consisted of 357 women with losses. In group 2, there were 349 subjects from infertility "
     "practices. Group 3 women (n = 81) were recruited at ultrasound.", 787),
    ("Patients were randomised. Overall 120 were in the intervention group. The control group comprised 118 "
     "patients.", 238),
    ("We randomised 240 patients. 120 were in the intervention group. The control group comprised 118 patients.",
     240),
    ("In the treatment group, there were 5 patients with complications. In the control group, there were 3 "
     "patients with complications.", 5),
    # Groups counted together, a comparison group in the same sentence, the whole before its parts,
    # and a single case.
    ("In all, 35 and 26 patients were assessed for RALP and RRP, respectively.", 61),
    ("Between 20 and 30 patients were expected; 44 patients were enrolled.", 44),
    ("862 older adults with cancer compared to 8,617 older adults without cancer, from the registry.", 9479),
    ("Of the 2170 infants who received surfactant, 1182 and 988 received it early and late.", 2170),
    ("We present the case of a 45-year-old female with unresectable gallbladder carcinoma.", 1),
    # A comparison group stated with "those of", as controls in the same sentence, or as the control
    # group in the next sentence when the count is the study group; not when it is the total.
    ("Outcomes of 43 primary LRT patients were compared with those of 49 primary SLT patients.", 92),
    ("Cases were 507 subjects with a first episode of acute MI, and controls were 478 patients admitted "
     "for other acute diseases.", 985),
    ("We enrolled 25 severe DOC patients, following post-anoxic or traumatic brain injury and 20 healthy "
     "individuals (HC) as control group.", 45),
    ("In this retrospective study, 483 patients with BPPV were included in the study group. The control group "
     "consisted of 461 healthy subjects.", 944),
    ("We randomised 240 patients. The control group comprised 118 patients.", 240),
    ("A total of 100 participants were enrolled, 50 patients and 50 healthy controls.", 100),
    # Breakdowns in brackets, tolerances, years and number words are not the sample.
    ("From December 1990 through December 1998 thirty patients were studied (22 men and 8 women).", 30),
    ("Two hundred knees of 100 patients (50 men and 50 women) were examined.", 100),
    ("Seven eligible RCTs (19,818 patients) reported cardiovascular events.", 19818),
    ("In a case-control study of sex and age-related (+/-5 y) subjects (n=114), cIMT was identical.", 114),
    ("Specimens were taken from 219 consecutive stone-formers.", 219),
    ("The database was searched. There were 249 outpatients (178 men and 71 women). Patients in group A "
     "(n=61) received local anaesthesia.", 249),
    ("Women with stage IB1-IIB who underwent radical surgery were enrolled (3527 patients).", 3527),
])
def test_sample_size_rules(text, n):
    assert sample_size_rules(text) == n


def test_design_summary_counts_by_direction_in_hierarchy_order():
    items = [("rct", "supports"), ("meta_analysis", "supports"), ("rct", "supports"), ("rct", "supports"),
             ("cohort", "opposes"), ("cohort", "opposes"), (None, "supports"), ("animal", "no evidence")]
    assert design_summary(items) == ("1 meta-analysis / systematic review, 3 RCTs and 1 study of unknown design "
                                     "support; 2 cohort studies oppose")
    assert design_summary([]) == "" and design_summary([("rct", "no evidence")]) == ""


def test_design_enters_the_prior_and_ranks_by_the_hierarchy():
    cfg = ReputationConfig()
    base = {"sentences": ["s"], "year": 2020}
    meta = reputation(Document(id="m", study_design="meta_analysis", **base), now_year=2024, config=cfg)
    vitro = reputation(Document(id="v", study_design="in_vitro", **base), now_year=2024, config=cfg)
    none = reputation(Document(id="n", **base), now_year=2024, config=cfg)
    assert meta.components["design"] == 1.0 and vitro.components["design"] == 0.2
    assert "design" not in none.components
    assert meta.score > none.score > vitro.score
    assert meta.design == "meta_analysis"
    # A zero weight takes design out of the prior.
    off = ReputationConfig(weights={**cfg.weights, "design": 0.0})
    assert reputation(Document(id="m", study_design="meta_analysis", **base), now_year=2024, config=off).score \
        == pytest.approx(none.score)


LAB = ["Primary human keratinocytes were grown in serum-free medium and exposed to ultraviolet B light.",
       "Expression of the repair enzyme rose twofold within six hours and fell after silencing of its promoter."]
UNDECIDED = ["Serum levels of 25-hydroxyvitamin D were measured in 412 residents of three villages.",
             "Higher levels went with fewer infections."]


def test_model_reads_undecided_abstracts_and_is_validated():
    from claimscope.agent.llm.fake import scripted_llm
    from claimscope.tools.llm import LLMError
    from tests.fakes import CannedLLM

    doc = Document(id="u", sentences=UNDECIDED)
    # The packaged classifier reads what the patterns leave undecided; the model is asked only about
    # what both leave undecided (here: no pattern, and a classifier unsure of every class).
    from claimscope.tools.appraise.study_design import DesignClassifier

    assert tag_design(doc, classifier=False).design is None and tag_design(doc).sample_size == 412
    lab = Document(id="lab", sentences=LAB)
    by_classifier = tag_design(lab)
    assert by_classifier.design is Design.IN_VITRO and by_classifier.basis == "classifier"
    assert tagged(lab, CannedLLM({"study_design": [LLMError("never asked")]})).study_design == "in_vitro"
    unsure = DesignClassifier(classes=["animal", "in_vitro", "other"], terms=[], idf=[], coef=[],
                              intercept=[0.0, 0.0, 0.0])
    asked = CannedLLM({"study_design": [{"design": "cross_sectional", "participants": 412,
                                         "quote": "were measured in 412 residents of three villages"}]})
    assert tag_design(doc, classifier=unsure).design is None
    assert tagged(doc, asked, classifier=unsure).study_design == "cross_sectional" and len(asked.calls) == 1
    good = CannedLLM({"study_design": [{"design": "cross_sectional", "participants": 412,
                                        "quote": "were measured in 412 residents of three villages"}]})
    out = tagged(doc, good, classifier=False)
    assert out.study_design == "cross_sectional" and out.sample_size == 412 and len(good.calls) == 1
    # A quote the abstract does not contain, a number it does not state, 'unclear', a failure:
    invented = CannedLLM({"study_design": [{"design": "rct", "quote": "participants were randomised", "participants": 400}]})
    assert tagged(doc, invented, classifier=False).study_design is None
    wrong_n = CannedLLM({"study_design": [{"design": "cross_sectional", "participants": 999,
                                           "quote": "levels of 25 hydroxyvitamin D were measured"}]})
    from claimscope.tools.appraise.study_design import tag_design_llm
    read = tag_design_llm(doc, wrong_n)
    assert read is not None and read.design is Design.CROSS_SECTIONAL and read.sample_size is None
    assert tagged(doc, CannedLLM({"study_design": [{"design": "unclear"}]}), classifier=False).study_design is None
    assert tagged(doc, CannedLLM({"study_design": [LLMError("down")]}), classifier=False).study_design is None
    # A pattern-decided abstract never reaches the model; through the real gateway the answer validates.
    decided = Document(id="d", sentences=["Patients were randomly assigned to two arms."])
    assert tagged(decided, good, classifier=False).study_design == "rct" and len(good.calls) == 1
    gateway = scripted_llm({"study_design": [{"design": "cohort", "quote": "Serum levels of 25-hydroxyvitamin D",
                                              "participants": None}]})
    assert tagged(doc, gateway, classifier=False).study_design == "cohort"
    assert tagged(doc, scripted_llm({"study_design": ["not json"]}), classifier=False).study_design is None


def test_classifier_is_tfidf_logistic_regression_and_unsure_answers_fall_back():
    import math

    from claimscope.tools.appraise.study_design import DesignClassifier

    model = DesignClassifier(classes=["animal", "in_vitro"], terms=["mice", "cell lines", "cells"],
                             idf=[2.0, 1.0, 1.0], coef=[[3.0, -3.0], [-2.0, 2.0], [0.0, 1.0]], intercept=[0.0, 0.0])
    # "mice" twice: tf 1 + ln 2, times idf 2, l2-normalised alone -> 1.0; scores 3 and -3.
    p = model.probabilities("Mice, mice.")
    assert p[0] == pytest.approx(1 / (1 + math.exp(-6)))
    assert model.predict("HeLa cell lines and cells.")[0] is Design.IN_VITRO
    lab = ["HeLa cell lines and cells were grown for three days in medium with and without the compound, "
           "and the cells were counted under the microscope."]
    assert tag_design(Document(id="x", sentences=lab), classifier=model).basis == "classifier"
    # A line is not an abstract: too short for the classifier, so the patterns decide.
    short = tag_design(Document(id="s", sentences=["HeLa cell lines and cells."]), classifier=model)
    assert short.basis == "abstract" and short.design is Design.IN_VITRO
    rct = Document(id="z", sentences=["Patients were randomly assigned to two arms and their cells counted."])
    assert tag_design(rct, classifier=model).design is Design.RCT
    # Unsure (a third of the mass each, below CLASSIFIER_MIN_PROB): the patterns, else undecided.
    flat = DesignClassifier(classes=["animal", "in_vitro", "other"], terms=["mice"], idf=[1.0],
                            coef=[[0.0, 0.0, 0.0]], intercept=[0.0, 0.0, 0.0])
    assert flat.probabilities("mice") == pytest.approx([1 / 3] * 3)
    lab = tag_design(Document(id="l", sentences=["HeLa cell lines were incubated with the compound."]), classifier=flat)
    assert lab.design is Design.IN_VITRO and lab.basis == "abstract"
    assert tag_design(Document(id="n", sentences=["Vitamin D is a hormone."]), classifier=flat).design is None


def test_classifier_reads_pattern_and_style_cues_beside_words():
    from claimscope.tools.appraise.study_design import (
        FEATURE_NAMES,
        DesignClassifier,
        design_features,
    )

    review = ["We review recent advances in autophagy.", "We discuss the open questions."]
    feats = design_features(review)
    assert len(feats) == len(FEATURE_NAMES)
    cue = FEATURE_NAMES.index("style:review_cues")
    assert feats[cue] > 0 and design_features(["Cells were counted in 12 wells (p < 0.01)."])[cue] == 0
    rows = [[0.0, 0.0] for _ in FEATURE_NAMES]
    rows[cue] = [0.0, 10.0]
    model = DesignClassifier(classes=["in_vitro", "narrative_review"], terms=["cells"], idf=[1.0],
                             coef=[[1.0, 0.0]], intercept=[0.0, 0.0], features=list(FEATURE_NAMES), feature_coef=rows)
    assert model.predict("cells", feats)[0] is Design.NARRATIVE_REVIEW
    assert model.predict("cells", [0.0] * len(FEATURE_NAMES))[0] is Design.IN_VITRO
    with pytest.raises(ValueError, match="design_features"):  # never a silent guess at the cues
        model.predict("cells")
    # tag_design passes the cues of the abstract's sentences and of the title it reads.
    longer = review + ["Autophagy removes damaged organelles and misfolded proteins from many kinds of cells."]
    read = tag_design(Document(id="r", title="Autophagy", sentences=longer), classifier=model)
    assert read.design is Design.NARRATIVE_REVIEW and read.basis == "classifier"
    # A model fitted on other cues than this version computes is refused, with what to do.
    with pytest.raises(ValueError, match="train_study_design"):
        DesignClassifier(classes=["a", "b"], terms=[], idf=[], coef=[], intercept=[0.0, 0.0],
                         features=["style:old"], feature_coef=[[0.0, 0.0]])


def test_cohort_cues_in_an_abstract_go_to_the_classifier_while_explicit_designs_decide():
    from claimscope.tools.appraise.study_design import DesignClassifier

    lab = DesignClassifier(classes=["cohort", "in_vitro"], terms=["tumour"], idf=[1.0], coef=[[-5.0, 5.0]],
                           intercept=[0.0, 0.0])
    samples = ["Tumour samples were collected retrospectively from the hospital archive of a surgical department.",
               "Tumour RNA was sequenced and the methylation of the promoter was measured in each sample."]
    assert design_from_text(" ".join(samples)) is Design.COHORT  # "retrospectively" is a cohort cue
    tag = tag_design(Document(id="t", sentences=samples), classifier=lab)
    assert tag.design is Design.IN_VITRO and tag.basis == "classifier"
    trial = samples + ["Patients were randomly assigned to surgery or watchful waiting."]
    assert tag_design(Document(id="r", sentences=trial), classifier=lab).design is Design.RCT
    # A title naming a design of people decides; one naming mice goes to the classifier with the rest.
    cohort = tag_design(Document(id="c", title="Tumour methylation: a prospective cohort study", sentences=samples),
                        classifier=lab)
    assert cohort.design is Design.COHORT and cohort.basis == "title"
    mice = tag_design(Document(id="m", title="Tumour growth in mice", sentences=samples), classifier=lab)
    assert mice.design is Design.IN_VITRO and mice.basis == "classifier"
