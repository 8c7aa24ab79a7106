"""The evidence table's cells as a reader checks them: an outcome is a whole noun phrase, an
association's exposure is not its outcome, the population is whom this study examined (not other
work's subjects, an aside or a possessor) and every group it lists, and the claim's ends decide
which phrase fills which column."""

from __future__ import annotations

import pytest

from claimscope.agent.report.common import population_cell
from claimscope.agent.report.model import DocumentView
from claimscope.tools.appraise.ico import ICO, document_ico, extract_population, is_fragment
from claimscope.tools.text.segmenter import section_headings


@pytest.mark.parametrize("phrase", ["birthweight and premenopausal", "acute myocardial", "mouse embryonic",
                                    "UCP1-independent thermogenic", "number of people developing mild"])
def test_an_outcome_never_ends_on_a_modifier(phrase):
    assert is_fragment(phrase)


@pytest.mark.parametrize("phrase", ["premenopausal breast cancer", "acute myocardial infarction", "hospital",
                                    "antibiotic", "rate of progression to AIDS or death", "total"])
def test_a_whole_noun_phrase_is_kept(phrase):
    assert not is_fragment(phrase)


def test_an_arm_named_by_its_adjective_keeps_it():
    # "the needlescopic group": the arm's noun is dropped, so its adjective is the arm
    read = document_ico("The needlescopic group had a significantly shorter operative time than the laparoscopic group.", [])
    assert (read.intervention, read.comparator) == ("needlescopic", "laparoscopic")


@pytest.mark.parametrize(("claim", "sentences", "outcome"), [
    ("Women with higher birthweight are at greater risk of premenopausal breast cancer.",
     ["We pooled data on birthweight and premenopausal breast cancer from 12 cohorts.",
      "Birthweight was positively associated with premenopausal breast cancer (RR 1.15)."],
     "premenopausal breast cancer"),
    ("High-sensitivity troponin improves the diagnosis of acute myocardial infarction.",
     ["We enrolled 718 consecutive patients with chest pain.",
      "The troponin I assay improved the early diagnosis of acute myocardial infarction in all patients."],
     "diagnosis of acute myocardial infarction"),
])
def test_an_outcome_is_not_cut_inside_a_compound_term(claim, sentences, outcome):
    assert document_ico(sentences[1], sentences, claim=claim).outcome == outcome


PLACENTA = [
    "Pregnancy characteristics may influence the mother's later breast cancer risk.",
    "We linked the birth records of 314,019 women to the cancer registry.",
    "Placental weight was positively associated with maternal breast cancer risk (HR 1.82, 95% CI 1.07-3.08).",
]


def test_an_association_names_its_exposure_first_and_its_outcome_second():
    read = document_ico(PLACENTA[2], PLACENTA)
    assert (read.intervention, read.outcome) == ("Placental weight", "maternal breast cancer risk")
    # "the association between X and Y" names an exposure and an outcome, not two arms
    read = document_ico("We examined the association between birth weight and breast cancer risk in 32 studies.", [])
    assert read == ICO(intervention="birth weight", outcome="breast cancer risk")
    # the exposure may come second: a treatment is no outcome
    read = document_ico("Nausea was not associated with amoxicillin treatment in any subgroup.", [])
    assert (read.intervention, read.outcome) == ("amoxicillin treatment", "Nausea")


PARTNER = "Having a main partner increases survival rates in HIV patients."


@pytest.mark.parametrize(("finding", "intervention", "outcome"), [
    ("A stable partnership is associated with a slower rate of progression to AIDS or death in HIV infected "
     "patients receiving HAART.", "stable partnership", "rate of progression to AIDS or death"),
    ("The rate of progression to AIDS or death was slower in patients with a stable partnership.",
     "stable partnership", "rate of progression to AIDS or death"),
    ("Patients receiving HAART who reported a stable partnership had a lower risk of death (hazard ratio 0.59).",
     "stable partnership", "risk of death"),
])
def test_the_claims_exposure_and_outcome_choose_the_columns(finding, intervention, outcome):
    # HAART is the setting, the partnership the exposure, whatever the sentence's shape
    abstract = ["We followed 3736 HIV infected patients receiving HAART in the Swiss HIV cohort study.", finding]
    for claim in (PARTNER, None):
        read = document_ico(finding, abstract, claim=claim)
        assert (read.intervention, read.outcome) == (intervention, outcome)


def test_the_population_is_not_read_from_other_work():
    # a report of earlier findings names other studies' subjects
    assert extract_population(None, [
        "Recent studies in COPD patients have shown more exacerbations in winter.",
        "We measured sputum cytokines in 40 smokers without airflow limitation."]) == "smokers without airflow limitation"
    # a structured abstract's background section speaks of the field, not of this study's sample
    assert extract_population(None, [
        "BACKGROUND Studies in patients with asthma suggest that airway bacteria drive exacerbations.",
        "Little is known about smokers.",
        "METHODS Sputum was sampled from 30 smokers with COPD and 20 healthy controls."]) \
        == "smokers with COPD and healthy controls"
    # ... but it is read when nothing else says who took part
    assert extract_population(None, [
        "BACKGROUND Patients with familial amyloid polyneuropathy have progressive autonomic neuropathy.",
        "METHODS AND RESULTS Twenty-one patients were studied."]) == "Patients with familial amyloid polyneuropathy"


def test_an_aside_names_no_population():
    # the organism of "a gene dispensable for normal development in mice" is not the one studied
    assert extract_population(None, [
        "To better understand break-induced replication, we performed a targeted siRNA screen.",
        "RAD52, a gene dispensable for normal development in mice, was among the top hits.",
        "Furthermore, in cancer-prone, heterozygous APC mutant mice, deletion of Rad52 suppressed tumour growth."]) is None


@pytest.mark.parametrize(("sentence", "population"), [
    ("Bronchial biopsies were obtained from healthy nonsmokers (n = 11), normal smokers (n = 12) and smokers "
     "with COPD (n = 14).", "healthy nonsmokers, normal smokers and smokers with COPD"),
    ("We studied 12 COPD smokers, 15 normal smokers, 10 former smokers and 14 never-smoking controls.",
     "COPD smokers, normal smokers, former smokers and never-smoking controls"),
    ("A placebo-controlled study of 161 children and adolescents with systolic heart failure from 26 US centers.",
     "children and adolescents with systolic heart failure"),
])
def test_a_population_keeps_every_group_the_sentence_lists(sentence, population):
    assert extract_population(None, [sentence]) == population


@pytest.mark.parametrize(("sentence", "population"), [
    ("We enrolled 80 patients with diabetes and hypertension.", "patients with diabetes and hypertension"),
    ("We enrolled 100 women with breast cancer.", "women with breast cancer"),
])
def test_one_group_stays_one_group(sentence, population):
    assert extract_population(None, [sentence]) == population


def test_a_possessor_is_not_the_population():
    # a pooled analysis of adult women: "children's birth records" are records, not the people studied
    abstract = ["Individual participant data from 32 studies, comprising 22,058 breast cancer cases, were obtained.",
                "Estimates were similar in studies of children's birth records and of mothers' recall."]
    population = extract_population("Birth Size and Breast Cancer Risk", abstract)
    assert population is None
    assert population_cell(DocumentView.model_construct(id="d", population=population, sample_size=22058)) == "n = 22058"


def test_a_heading_holds_until_the_next_one():
    sentences = ["BACKGROUND Birth size may matter.", "It is debated.", "METHODS AND FINDINGS We pooled 32 studies.",
                 "Birth weight was recorded."]
    assert section_headings(sentences) == ["BACKGROUND", "BACKGROUND", "METHODS AND FINDINGS", "METHODS AND FINDINGS"]
    assert section_headings(["No heading here.", "RESULTS Rates fell."]) == ["", "RESULTS"]
