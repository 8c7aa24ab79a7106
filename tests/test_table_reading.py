"""The evidence table's intervention / exposure and outcome as the study states them: read from the
title when no finding sentence names them, oriented by the claim without swapping exposure and
outcome (a passive claim names its exposure last), and never a fragment of a sentence."""

from __future__ import annotations

import pytest

from claimscope.tools.appraise.ico import (
    ICO,
    document_ico,
    extract_population,
    is_fragment,
    title_ico,
)

PARTNER = "Having a main partner increases survival rates in HIV patients."
PARTNER_TITLE = ("Stable partnership and progression to AIDS or death in HIV infected patients receiving highly active "
                 "antiretroviral therapy: Swiss HIV cohort study")
PARTNER_ABSTRACT = [
    "OBJECTIVES To explore the association between a stable partnership and clinical outcome in HIV infected "
    "patients receiving highly active antiretroviral therapy (HAART).",
    "RESULTS During follow up 2985 (80%) participants reported a stable partnership on at least one occasion.",
    "CONCLUSIONS A stable partnership is associated with a slower rate of progression to AIDS or death in HIV "
    "infected patients receiving HAART.",
]


@pytest.mark.parametrize(("title", "expected"), [
    (PARTNER_TITLE, ICO(intervention="Stable partnership", outcome="progression to AIDS or death")),
    ("Birth Size and Breast Cancer Risk: Re-analysis of Individual Participant Data from 32 Studies",
     ICO(intervention="birth size", outcome="breast cancer risk")),
    ("Effects of Electro-Acupuncture Therapy on Post-Stroke Depression in Patients with Different Degrees of Motor "
     "Function Impairments: a Pilot Study", ICO(intervention="electro-acupuncture therapy", outcome="post-stroke depression")),
    ("Treatment of antidepressant-associated sexual dysfunction with sildenafil: a randomized controlled trial.",
     ICO(intervention="sildenafil", outcome="antidepressant-associated sexual dysfunction")),
    ("Association between influenza vaccination and cardiovascular outcomes in high-risk patients: a meta-analysis.",
     ICO(intervention="influenza vaccination", outcome="cardiovascular outcomes")),
    ("Immunosuppressant FTY720 inhibits thymocyte emigration.",
     ICO(intervention="Immunosuppressant FTY720", outcome="thymocyte emigration")),
    ("Autologous mesenchymal stem cells vs anti-IL-2 receptor antibody induction therapy in patients with end-stage "
     "renal disease: a randomized controlled trial",
     ICO(intervention="Autologous mesenchymal stem cells", comparator="anti-IL-2 receptor antibody induction therapy")),
])
def test_the_title_names_what_the_study_compares(title, expected):
    assert title_ico(title) == expected


@pytest.mark.parametrize("title", [
    "ADAR1 Forms a Complex with Dicer to Promote MicroRNA Processing and RNA-Induced Gene Silencing",
    "Intracellular sterol dynamics.",
    "Translational control of intron splicing in eukaryotes",
    "Incidence and risk of central nervous system metastases as site of first recurrence",
])
def test_a_title_that_names_no_comparison_gives_nothing(title):
    assert title_ico(title) == ICO()


def test_a_row_without_a_finding_reads_the_study_from_its_title_not_the_claim():
    row = document_ico(None, PARTNER_ABSTRACT, claim=PARTNER, title=PARTNER_TITLE)
    assert (row.intervention, row.outcome) == ("Stable partnership", "progression to AIDS or death")
    # with a finding, the finding's own association comes first; HAART (the setting) is no exposure
    row = document_ico(PARTNER_ABSTRACT[2], PARTNER_ABSTRACT, claim=PARTNER, title=PARTNER_TITLE)
    assert row.intervention == "stable partnership" and row.outcome == "rate of progression to AIDS or death"
    # a finding naming only the exposure takes its outcome from the title
    row = document_ico(PARTNER_ABSTRACT[1], PARTNER_ABSTRACT, claim=PARTNER, title=PARTNER_TITLE)
    assert (row.intervention, row.outcome) == ("Stable partnership", "progression to AIDS or death")


def test_a_passive_claim_names_its_exposure_last():
    claim = "Obesity is determined mostly by genetic factors."
    row = document_ico(None, ["Adoptees were studied for genetic factors and obesity."], claim=claim)
    assert (row.intervention, row.outcome) == ("genetic factors", "obesity")


def test_a_cell_is_a_phrase_never_a_fragment_of_a_sentence():
    finding = ("However, acceleration in SSB consumption trends consistent with industry marketing models would be "
               "expected to increase the impact efficacy of taxation.")
    row = document_ico(finding, [], title="Averting obesity and type 2 diabetes in India through sugar-sweetened "
                                          "beverage taxation: an economic-epidemiologic modeling study")
    assert row.intervention is None or "would" not in row.intervention


def test_a_population_phrase_ends_before_its_sentences_verb():
    assert extract_population(None, ["Patients with CGD also suffer from chronic inflammatory conditions."]) \
        == "Patients with CGD"
    assert extract_population(None, ["We studied 965 adults living in the same environment appears to matter."]) \
        == "adults living in the same environment"


@pytest.mark.parametrize(("sentence", "intervention", "comparator"), [
    ("Significantly greater percentage decrease in expired tidal volume was seen with I-Gel compared to PLMA "
     "(38.6% vs. 23.6%) during flexion (P = 0.001).", "I-Gel", "PLMA"),
    ("Mean times to reach 70 mg/dL were 16 min and 13 min with intranasal glucagon and intramuscular glucagon, "
     "respectively (P < 0.001).", "intranasal glucagon", "intramuscular glucagon"),
    ("Compared to metformin therapy, the levels of sVCAM-1 were remarkably suppressed after 8-week liraglutide "
     "treatment (382 vs 503 ng/ml, P = 0.046).", "liraglutide", "metformin"),
])
def test_arms_named_beside_the_result(sentence, intervention, comparator):
    from claimscope.tools.appraise.ico import extract_ico

    read = extract_ico(sentence)
    assert (read.intervention, read.comparator) == (intervention, comparator)


def test_an_arm_is_never_the_outcome_read_twice():
    from claimscope.tools.appraise.ico import extract_ico

    read = extract_ico("The macular integrity index decreased from 71.2 at baseline to 51.6 at 90 days (P=0.002) in "
                       "the DHA group only.")
    assert (read.intervention, read.outcome) == ("DHA", "macular integrity index")


def test_a_laboratory_study_names_its_organism_as_population():
    assert extract_population("Synaptic glutamate release by ventromedial hypothalamic neurons", [
        "Loss of VGLUT2 in SF1 neurons of mice caused hypoglycaemia during fasting.",
        "Such mice failed to mount a counterregulatory response."]) == "mice"
    # one passing mention is earlier work, not the system studied
    assert extract_population(None, ["Unlike the mouse gene, the human gene is spliced.", "Islet RNA was read."]) is None


@pytest.mark.parametrize("title, sentences, claim, column, expected", [
    ("PPARgamma in macrophages", ["Ligand-dependent activation of PPARgamma was studied in macrophages."],
     "Ligand-dependent activation of PPARgamma reduces inflammation", "intervention",
     "Ligand-dependent activation of PPARgamma"),
    ("Oxygen in hospitals", ["Solar-powered oxygen delivery was installed in 12 hospitals.", "Deaths from hypoxaemia fell."],
     "Solar-powered oxygen reduces deaths from hypoxaemia", "intervention", "Solar-powered oxygen"),
])
def test_a_cell_never_ends_on_a_modifier_without_its_noun(title, sentences, claim, column, expected):
    assert getattr(document_ico(None, sentences, claim=claim, title=title), column) == expected


@pytest.mark.parametrize("phrase", ["ligand-dependent", "solar-powered", "Nigeria' s", "mitochondrial",
                                    "standards could also beused to streamline vaccine", "vaccine approval across the"])
def test_a_cut_phrase_is_a_fragment(phrase):
    assert is_fragment(phrase)


@pytest.mark.parametrize("phrase", ["overall survival", "placebo", "patients with Crohn's", "birth weight",
                                    "latching-on", "a diuretic"])
def test_a_noun_phrase_is_not_a_fragment(phrase):
    assert not is_fragment(phrase)


@pytest.mark.parametrize("sentences, claim, expected", [
    (["We compared 40 patients with type 2 diabetes and 38 healthy controls.", "Insulin sensitivity was lower."],
     "Type 2 diabetes reduces insulin sensitivity", "healthy controls"),
    (["Mice were given placebo or metformin for 8 weeks.", "Metformin lowered tumour growth."],
     "Metformin reduces tumour growth", "placebo"),
])
def test_the_comparator_is_the_control_the_abstract_states(sentences, claim, expected):
    assert document_ico(None, sentences, claim=claim).comparator == expected


def test_no_comparator_when_the_abstract_states_no_control():
    row = document_ico(None, ["We followed 2,114 adults for ten years.", "Vitamin D was linked to fractures."],
                       claim="Vitamin D prevents fractures")
    assert row.comparator is None


def test_a_claim_whose_agent_follows_due_to_names_its_exposure_last():
    claim = "Obesity is due to genetic factors."
    row = document_ico(None, ["Adoptees were studied for genetic factors and obesity."], claim=claim)
    assert (row.intervention, row.outcome) == ("genetic factors", "obesity")
