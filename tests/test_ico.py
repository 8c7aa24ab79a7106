"""Intervention, comparator and outcome of a finding sentence (tools.appraise.ico): each sentence shape the
patterns read, what they leave unnamed, the abstract's arms, and the token F1 the benchmark scores
with."""

from __future__ import annotations

import pytest

from claimscope.tools.appraise.ico import (
    ICO,
    document_ico,
    extract_ico,
    extract_population,
    ico_from_abstract,
    is_fragment,
    is_outcome,
    not_about_this_study,
    stated_outcome,
    token_f1,
    tokens,
)
from claimscope.tools.appraise.study_design import Design, design_sentence, tag_design
from claimscope.tools.models import Document


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Compared with losartan, telmisartan reduced fasting plasma glucose by 8% (p < 0.05).",
     ("telmisartan", "losartan", "fasting plasma glucose")),
    ("There was no significant difference in the closure rate between the inverted-flap and the free-flap "
     "groups (p = 0.85).", ("inverted-flap", "free-flap", "closure rate")),
    ("HDL cholesterol at 24 months was significantly higher in the exercise group than in the control group.",
     ("exercise", "control", "HDL cholesterol at 24 months")),
    ("Pain scores in the ketamine group were significantly lower than those in the morphine group (P < 0.01).",
     ("ketamine", "morphine", "Pain scores")),
    ("Telmisartan significantly reduced HbA1c compared with placebo.", ("Telmisartan", "placebo", "HbA1c")),
    ("Significantly higher peak inspiratory pressure was recorded with I-Gel than PLMA during flexion.",
     ("I-Gel", "PLMA", "peak inspiratory pressure")),
    ("There were three cases of mild hypoxemia in the propofol group and one in the combination group.",
     ("propofol", "combination", "mild hypoxemia")),
    ("Patients treated with aspirin had fewer strokes.", ("aspirin", None, "strokes")),
])
def test_comparison_shapes(sentence, expected):
    got = extract_ico(sentence)
    assert (got.intervention, got.comparator, got.outcome) == expected


@pytest.mark.parametrize(("sentence", "outcome"), [
    ("Overall, there was no effect of prebiotic and probiotic on diarrhea (6% reduction).", "diarrhea"),
    ("Inhalation of high dose iloprost seemed not to influence VO2 peak (p = 0.92).", "VO2 peak"),
    ("Group A showed a significant increase in the initial claudication distance.", "initial claudication distance"),
    ("No severe adverse effects were reported.", "severe adverse effects"),
    ("The one-year survival rates were 93.3% and 46.6%, respectively.", "one-year survival rates"),
    ("With regard to desaturation and lip bleeding, there were no differences among the groups.",
     "desaturation and lip bleeding"),
    # an outcome ends before a verb of its own and not on a dangling word
    ("A high birth weight in 2 successive births was associated with an increased risk of breast cancer before "
     "but not after adjusting for placental weight.", "risk of breast cancer"),
    ("Average access time and number of attempts were both similar in the two groups.",
     "Average access time and number of attempts"),
])
def test_outcome_without_named_arms(sentence, outcome):
    assert extract_ico(sentence).outcome == outcome


def test_more_in_one_group_than_the_other_and_no_difference_between_named_groups():
    got = extract_ico("There were significantly more perfect queries in the French group vs. the English group.")
    assert (got.intervention, got.comparator, got.outcome) == ("French", "English", "perfect queries")
    got = extract_ico("Systolic blood pressure did not show significant difference between SJDBT group and placebo "
                      "group (Table 5).")
    assert (got.intervention, got.comparator, got.outcome) == ("SJDBT", "placebo", "Systolic blood pressure")


def test_the_control_arm_is_the_comparator_whichever_comes_first():
    got = extract_ico("Placebo was less effective than aspirin for headache relief.")
    assert (got.intervention, got.comparator, got.outcome) == ("aspirin", "Placebo", "headache relief")


def test_unnamed_arms_stay_none():
    got = extract_ico("There were no significant differences in the hematocrit level between groups (P = 0.60).")
    assert got == ICO(outcome="hematocrit level")
    assert extract_ico("Vitamin D is a secosteroid hormone.").intervention is None


def test_a_table_row_gives_its_label_as_outcome():
    got = extract_ico("Major haemorrhage 33/2212 (1.5%) 57/2235 (2.5%) 0.63 (0.37-1.05) 0.08")
    assert got == ICO(outcome="Major haemorrhage")
    # A sentence with a verb before its numbers is not a table row.
    assert extract_ico("Hematuria occurred in one patient and in 2 patients.").outcome == "Hematuria"


def test_html_entities_are_decoded():
    got = extract_ico("Pain was lower in the A&amp;B group than in the placebo group.")
    assert got.intervention == "A&B" and got.comparator == "placebo"


def test_abstract_arms_fill_what_the_finding_leaves_open():
    abstract = ["Fractures are common.", "Adults were randomly assigned to vitamin D or placebo for 3 years."]
    assert ico_from_abstract(abstract) == ICO(intervention="vitamin D", comparator="placebo")
    assert document_ico("Fracture rates did not differ.", abstract) == ICO(
        intervention="vitamin D", comparator="placebo", outcome="Fracture rates")
    # The finding's own arms win over the abstract's.
    assert document_ico("Compared with calcium, vitamin K reduced bone loss.", abstract).comparator == "calcium"
    assert document_ico(None, ["No arms here."]) == ICO()


def test_token_f1_normalises_case_punctuation_and_function_words():
    assert tokens("The Placebo group (n = 20)") == ["placebo", "n", "20"]
    assert token_f1("placebo", "Placebo group") == 1.0
    assert token_f1("HbA1c level", "HbA1c") == pytest.approx(2 / 3)
    assert token_f1(None, "placebo") == 0.0 and token_f1("aspirin", "placebo") == 0.0


@pytest.mark.parametrize(("title", "abstract", "population"), [
    # A count before the phrase, its post-modifier up to the sentence's own verb.
    (None, "Fifty-five patients with portal hypertension were included in this retrospective study.",
     "patients with portal hypertension"),
    (None, "We enrolled 412 children aged 6-12 in Kenya.", "children aged 6-12 in Kenya"),
    (None, "The records of 382 women treated with RT for Hodgkin's disease were reviewed.",
     "women treated with RT for Hodgkin's disease"),
    # "(n = N)" after the phrase, a structured abstract's PARTICIPANTS sentence.
    (None, "Prospective randomized study. Adult patients undergoing general anesthesia (n = 240).",
     "Adult patients undergoing general anesthesia"),
    # A relative clause keeps its verb; the setting and the time span are not the population.
    (None, "We analysed 2061 patients who underwent laparoscopic cholecystectomy in the surgical department of "
           "a teaching hospital between 2008 and 2010.", "patients who underwent laparoscopic cholecystectomy"),
    (None, "Participants were adults with type 2 diabetes.", "adults with type 2 diabetes"),
    # Species and cells for animal and in vitro work.
    (None, "Eighteen New Zealand rabbits were divided into three groups.", "New Zealand rabbits"),
    (None, "Male C57BL/6 mice were fed a high-fat diet for 12 weeks.", "Male C57BL/6 mice"),
    (None, "HepG2 cells were exposed to palmitate for 24 h.", "HepG2 cells"),
    # A case report's single person.
    (None, "A 45-year-old man with chest pain presented to the emergency department.",
     "A 45-year-old man with chest pain"),
    # The title where the abstract states no count or enrolment.
    ("Coffee and mortality among 31,209 Norwegian women", "We followed the cohort for 20 years.", "Norwegian women"),
    ("Vitamin D and bone density in postmenopausal women: a randomised trial", "Bone density rose.",
     "postmenopausal women"),
])
def test_population(title, abstract, population):
    assert extract_population(title, [abstract]) == population


@pytest.mark.parametrize("abstract", [
    # No population: documents and prices, a generic head alone, a capitalised name.
    "Published government tax documents are used to analyse the retail price of cigarettes.",
    "Of 6866 patients, 690 received eradication therapy.",
    "Rates fell in the NICU of the Floating Hospital for Children at Tufts Medical Center.",
])
def test_population_is_none_rather_than_junk(abstract):
    assert extract_population(None, [abstract]) is None


def test_population_is_a_short_phrase_never_a_sentence():
    got = extract_population(None, ["A total of 11 patients with radiculopathic pain and magnetic resonance imaging "
                                    "findings positive for disk herniation elected to undergo single-level surgery."])
    assert got is not None and len(got.split()) <= 12 and not got.endswith(("for", "and", "with"))


@pytest.mark.parametrize(("abstract", "population"), [
    # A heading, a verb or a quantifier before the head is not a qualifier; a comparison, "of whom"
    # and an auxiliary left at the end are not part of the phrase.
    ("PARTICIPANTS Individuals aged 65 and older with dementia.", "Individuals aged 65 and older with dementia"),
    ("Using 24 C6ST-1 knockout mice, we show that sulfation matters.", "C6ST-1 knockout mice"),
    ("Most participants knew little.", None),
    ("We studied 1,200 patients of whom 744 were women.", None),
    ("Forty mice treated with retinal compared with vehicle were followed.", "mice treated with retinal"),
])
def test_population_phrase_edges(abstract, population):
    assert extract_population(None, [abstract]) == population


def test_a_number_with_thousands_separators_stays_whole():
    ico = extract_ico("Heavier birth weights were associated with increased breast cancer risk, relative to a birth "
                      "weight of 2,500 to 2,599 g.")
    assert ico.comparator == "birth weight of 2500 to 2599 g" and ico.outcome == "breast cancer risk"


STABLE = "Patients in stable partnerships have a slower progression from HIV to death."
STABLE_ABSTRACT = [
    "OBJECTIVES To explore the association between a stable partnership and clinical outcome in HIV infected "
    "patients receiving highly active antiretroviral therapy (HAART).",
    "RESULTS During follow up 2985 (80%) participants reported a stable partnership on at least one occasion.",
    "CONCLUSIONS A stable partnership is associated with a slower rate of progression to AIDS or death in HIV "
    "infected patients receiving HAART.",
]
BIRTH = "Women with a lower birth weight are more likely to develop breast cancer later in life."
BIRTH_ABSTRACT = [
    "BACKGROUND Birth size might be a correlate of subsequent breast cancer risk.",
    "Individual participant data from 32 studies, comprising 22,058 breast cancer cases, were obtained.",
    "Birth weight was positively associated with breast cancer risk in studies based on birth records (RR 1.06) "
    "and parental recall when the participants were children (1.02; 95% CI 0.99-1.05).",
    "The cumulative incidence of breast cancer per 100 women by age 80 y was estimated to be 10.0.",
]


def test_the_claims_relation_orients_the_evidence_table():
    # an association names its exposure first, its outcome second; the setting (HAART) is neither
    finding = STABLE_ABSTRACT[2]
    unoriented = document_ico(finding, STABLE_ABSTRACT)
    assert (unoriented.intervention, unoriented.outcome) == ("stable partnership", "rate of progression to AIDS or death")
    oriented = document_ico(finding, STABLE_ABSTRACT, claim=STABLE)
    assert (oriented.intervention, oriented.outcome) == ("stable partnership", "rate of progression to AIDS or death")
    finding = BIRTH_ABSTRACT[2]
    unoriented = document_ico(finding, BIRTH_ABSTRACT)
    assert (unoriented.intervention, unoriented.outcome) == ("Birth weight", "breast cancer risk")
    oriented = document_ico(finding, BIRTH_ABSTRACT, claim=BIRTH)
    assert (oriented.intervention, oriented.outcome) == ("Birth weight", "breast cancer risk")
    # "between <outcome> and <exposure>": the other arm is the exposure
    row = document_ico("No association was noted between risk of breast cancer and gestational age at birth.", [],
                       claim=BIRTH)
    assert (row.intervention, row.comparator, row.outcome) == ("gestational age", None, "risk of breast cancer")
    # a finding naming neither end keeps what it compares; a trial's arms stay as they were
    trial = "Compared with losartan, telmisartan reduced fasting plasma glucose by 8% (p < 0.05)."
    assert document_ico(trial, [], claim="Telmisartan lowers fasting plasma glucose") == extract_ico(trial)
    assert document_ico(trial, [], claim="Quantum gravity") == extract_ico(trial)


def test_population_comes_from_who_was_included_not_an_incidental_mention():
    # "when the participants were children" is a circumstance of recall, "per 100 women" a rate
    assert extract_population("Birth Size and Breast Cancer Risk", BIRTH_ABSTRACT) is None
    assert extract_population(None, ["Participants were children aged 5 to 12 years."]) == "children aged 5 to 12 years"
    assert extract_population(None, ["We enrolled 100 women with breast cancer."]) == "women with breast cancer"


# Faults readers found in the evidence table: a cell left empty though the abstract states it, a
# cell taken from what other work found, and the exposure or the people studied read as the outcome.
def test_an_outcome_that_improved_more_with_one_arm_than_the_other_is_the_subject():
    got = document_ico("RESULTS: Muscle strength improved more with exercise training than with usual care (p < 0.01).", [])
    assert (got.intervention, got.comparator, got.outcome) == ("exercise training", "usual care", "Muscle strength")


def test_an_outcome_after_a_hyphenated_in_is_read():
    got = document_ico("In-hospital mortality was lower among patients treated with beta-blockers than among non-users "
                       "(4% vs 7%).", [])
    assert (got.intervention, got.comparator, got.outcome) == ("beta-blockers", "non-users", "In-hospital mortality")


def test_an_outcome_ends_before_a_clause_and_never_opens_on_a_conjunction():
    got = document_ico("Placental weight was associated with maternal breast cancer risk as placental weight increased "
                       "(HR 1.8).", ["We followed 300,000 women who gave birth in Sweden."])
    assert (got.intervention, got.outcome) == ("Placental weight", "maternal breast cancer risk")
    assert is_fragment("as placental weight") and not is_fragment("in vitro fertilisation rate")


def test_the_outcome_is_not_the_population_the_respondents_or_the_exposure():
    assert not is_outcome("acute myocardial infarction", population="patients with acute myocardial infarction")
    assert not is_outcome("care providers")
    assert not is_outcome("placental weight", exposure="Placental weight")
    assert is_outcome("average cost per patient") and is_outcome("visceral fat area")
    got = document_ico("Care providers reported higher compliance after the training.",
                       ["We surveyed 500 care providers about hand hygiene."])
    assert got.intervention is None


def test_the_outcome_read_twice_is_no_arm():
    got = document_ico("MS-EGF group showed a significantly increase in dermal depth after 8 weeks compared to the EGF "
                       "alone group.", [])
    assert (got.intervention, got.outcome) == (None, "dermal depth")


def test_an_empty_comparator_takes_the_non_users_the_abstract_states_and_drops_a_result():
    got = document_ico("Statin users had a lower fracture risk (HR 0.7).", ["We compared 5,000 statin users with 10,000 "
                                                                             "non-users."])
    assert (got.intervention, got.comparator, got.outcome) == ("Statin users", "non-users", "fracture risk")
    assert document_ico("Mortality at 1 year was 10% with the intervention versus usual care 14%.", []).comparator \
        == "usual care"


def test_background_on_other_work_is_not_about_this_study():
    sentences = ["BACKGROUND: Recent studies show that COPD patients have impaired muscle function.",
                 "Previous research suggests benefit, but randomised trials comparing these treatments are lacking.",
                 "METHODS: We enrolled 2,513 women in a cohort study."]
    assert not_about_this_study(sentences) == {0, 1}
    assert design_sentence(Design.RCT, sentences) is None
    assert tag_design(Document(id="d", sentences=sentences), use_title=False, classifier=False).design is Design.COHORT


# What an abstract states was measured, the one reader behind the evidence table's outcome column and
# the chat's outcome answers (synthetic abstracts in the shapes follow-up readers rejected).
@pytest.mark.parametrize(("sentences", "expected"), [
    # an outcome section wins over the aim, which names the exposure first ("such as ...")
    (["OBJECTIVE To study markers of hormone exposure, such as placental weight and parity, and maternal risk of "
      "breast cancer.", "MAIN OUTCOME MEASURE Incidence of invasive breast cancer."],
     ("Incidence of invasive breast cancer", 1)),
    # an association in the section: its last end is the outcome, the asides and how it was rated go
    (["MAIN OUTCOME MEASURES Associations between age (in years) and provider type (public or private) and users' "
      "experience of night-time clinic care (waiting, trust), rated on a scale of 0-100."],
     ("users' experience of night-time clinic care", 0)),
    (["MAIN OUTCOMES AND MEASURES Primary outcome was abstinence rates at week 12, defined as no smoking."],
     ("abstinence rates at week 12", 0)),
    (["Mood was the primary end point.", "Sleep was a secondary end point."], ("Mood", 0)),
    (["METHODS Cox regression was used to compare one-year risks of major bleeding between switching and continuing "
      "the first agent."], ("one-year risks of major bleeding", 0)),
    (["Plasma levels of interleukins (IL-6 (a cytokine), IL-8) and troponin I were measured before surgery."],
     ("Plasma levels of interleukins and troponin I", 0)),
    (["We compared drug A with drug B in 200 adults.", "We measured blood pressure at 12 weeks."],
     ("blood pressure at 12 weeks", 1)),
    (["OBJECTIVE To evaluate the effects of exercise in pregnancy on gestational weight gain and to quantify harms."],
     ("gestational weight gain", 0)),
    (["RESULTS Compared with women with small placentas, the risk of breast cancer was increased among women with "
      "heavy ones."], ("risk of breast cancer", 0)),
    # a narrative review, a recommendation, background on other work: no outcome
    (["Most people with cancer wish to die at home.",
      "Community nurses can lead the way in providing a palliative care approach for frail patients."], None),
    (["BACKGROUND Previous studies have measured blood pressure in smokers.", "We review the evidence."], None),
    (["METHODS Patients were assessed at baseline.", "Data were analysed with SPSS."], None),
])
def test_the_outcome_an_abstract_states(sentences, expected):
    found = stated_outcome(sentences)
    assert (None if found is None else (found.outcome, found.sentence)) == expected


def test_a_phrase_opening_on_such_as_or_a_hanging_gerund_is_a_fragment():
    assert is_fragment("such as placental weight") and is_fragment("providing a palliative care")
    assert not is_fragment("smoking cessation") and not is_fragment("bleeding events")


def test_the_tables_outcome_is_the_stated_one_where_the_title_named_the_population():
    """The table's outcome column read "acute myocardial infarction" (the population, from the title)
    for a study that compared bleeding risks; the abstract's statement of what it measured wins."""
    abstract = ["METHODS We studied 9,000 patients with acute myocardial infarction.",
                "Cox regression was used to compare one-year risks of major bleeding between switching and "
                "continuing the first agent."]
    title = "Effects of switching antiplatelet agents on acute myocardial infarction"
    assert document_ico(None, [], title=title).outcome == "acute myocardial infarction"
    got = document_ico(None, abstract, title=title)
    assert got.outcome == "one-year risks of major bleeding"
    # an outcome the finding sentence itself names stays: it is what the finding compares
    finding = "Mortality was lower with switching than with continuing."
    assert document_ico(finding, abstract, title=title).outcome == "Mortality"
