"""Claims out of a whole text: spans, atomic splitting, check-worthiness, and the model's rewrite
kept only when it holds to the text."""

from __future__ import annotations

import pytest

from claimscope.agent.llm.fake import scripted_llm, timeout
from claimscope.tools.errors import InputError
from claimscope.tools.read.claim_extraction import extract_claims, judge
from claimscope.tools.read.claim_wording import accepted_rewrite
from claimscope.tools.text.segmenter import sentence_spans, split_sentences
from tests.conftest import FIXTURES

PRESS = (FIXTURES / "check" / "press_release.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("text", [
    "Smith et al. showed an effect. It was large.\nA second line, e.g. this one. Done!",
    "# Heading\n\nFirst paragraph here. Second one (p < 0.05).\r\n\r\nThird paragraph. Is it causal?",
    "  Leading space. U.S. Army data were used.\n\n\n## Results\nIt held.",
])
def test_sentence_spans_have_the_boundaries_of_split_sentences(text):
    spans = sentence_spans(text)
    assert [" ".join(text[s:e].split()) for s, e in spans] == split_sentences(text)
    assert all(text[s:e] == text[s:e].strip() for s, e in spans)


def test_a_list_item_is_a_sentence_of_its_own_without_its_bullet():
    text = "Key points:\n- Vitamin D cut infections\n- Falls were rarer. Costs fell.\n1. Sleep improved"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Key points:", "Vitamin D cut infections", "Falls were rarer.", "Costs fell.", "Sleep improved"]


def test_every_claim_points_at_its_exact_words_in_the_text():
    out = extract_claims(PRESS)
    assert out.claims
    for c in out.claims:
        assert PRESS[c.start:c.end] == c.quote
    ids = [c.id for c in out.claims]
    assert ids == [f"c{i}" for i in range(1, len(ids) + 1)]


def test_check_worthiness_by_rules_with_reasons():
    out = extract_claims(PRESS)
    by_quote = {c.quote: c for c in out.claims}
    expect = {
        "New vitamin D trial": "fragment",
        "Daily vitamin D supplements reduce the risk of respiratory infections in older adults.": "factual",
        '"This is a game changer for public health," said Dr. Lee.': "opinion",
        "We believe every care home should offer it.": "opinion",
        "We enrolled 3,000 adults aged over 65 in 12 care homes.": "method",
        "Participants were randomly assigned to vitamin D or placebo.": "method",
        "What does this mean for younger people?": "question",
        "Vitamin D is defined as a group of fat-soluble secosteroids.": "definition",
        "The team will start a second trial next year.": "plan",
    }
    for quote, category in expect.items():
        claim = by_quote[quote]
        assert claim.category == category, quote
        assert claim.check_worthy is (category == "factual")
        assert claim.reason
    assert len({c.reason for c in out.claims}) == len({c.category for c in out.claims})


def test_a_structured_abstracts_heading_and_the_reporting_frame_are_left_out():
    out = extract_claims(PRESS)
    c = next(c for c in out.claims if c.text.startswith("Vitamin D reduced infections"))
    assert c.quote == "We found that vitamin D reduced infections by 12%"
    assert c.text == "Vitamin D reduced infections by 12%."
    assert "RESULTS" not in c.quote


def test_two_clauses_with_their_own_verbs_are_two_claims_with_sub_spans():
    text = "Vitamin D reduced infections by 12%, whereas fracture rates did not change."
    out = extract_claims(text)
    assert [c.text for c in out.claims] == ["Vitamin D reduced infections by 12%.", "Fracture rates did not change."]
    assert [c.quote for c in out.claims] == ["Vitamin D reduced infections by 12%", "fracture rates did not change."]
    # A conjunction of objects is one claim (the investigation decomposes it).
    one = extract_claims("Smoking increases the risk of lung cancer and of heart disease.")
    assert len(one.claims) == 1


def test_a_reference_is_resolved_by_the_rules_without_a_model():
    out = extract_claims(PRESS)
    c = next(c for c in out.claims if c.quote.startswith("It also lowers"))
    assert c.resolved_by == "rules"
    assert c.text.startswith("Daily vitamin D supplements also lowers the risk of falls")


def test_the_models_rewrite_is_used_when_it_holds_to_the_text():
    llm = scripted_llm({"resolve_claim": [{"claim": "Daily vitamin D supplements also lower the risk of falls by 20%."}]})
    out = extract_claims(PRESS, llm=llm)
    c = next(c for c in out.claims if c.quote.startswith("It also lowers"))
    assert (c.resolved_by, c.text) == ("model", "Daily vitamin D supplements also lower the risk of falls by 20%.")
    # Only the sentence that needed it went to the model.
    assert llm.scripted.calls == ["resolve_claim"]


@pytest.mark.parametrize("answer", [
    {"claim": "Daily zinc tablets also lower the risk of falls by 20%."},  # invents a word
    {"claim": "Daily vitamin D supplements help older adults."},  # drops the sentence's own words
    {"claim": "It also lowers the risk of falls by 20 percent."},  # still a reference
    "{not json",
    timeout(),
])
def test_a_rewrite_that_does_not_hold_or_fails_falls_back_to_the_rules(answer):
    llm = scripted_llm({"resolve_claim": [answer]}, max_attempts=1)
    out = extract_claims(PRESS, llm=llm)
    c = next(c for c in out.claims if c.quote.startswith("It also lowers"))
    assert c.resolved_by == "rules"
    assert c.text.startswith("Daily vitamin D supplements also lowers")


def test_an_unresolvable_reference_is_listed_as_needing_context_with_a_warning():
    out = extract_claims("It reduces the risk of colds in children by a third.")
    c = out.claims[0]
    assert (c.check_worthy, c.category, c.resolved_by) == (False, "context", "none")
    assert "edit it" in c.reason
    assert any("could not be made to read alone" in w for w in out.warnings)


def test_structured_abstract_headings_are_split_off_even_when_glued_to_the_sentence_before():
    text = ("Fish bones can migrate out of the oesophagus into the neck.AIM: Describe the mechanisms of migration. "
            "Analgesia was better in hospice.The prescribing practices differ between nursing homes.")
    out = extract_claims(text)
    quotes = [c.quote for c in out.claims]
    assert quotes == ["Fish bones can migrate out of the oesophagus into the neck.",
                      "Describe the mechanisms of migration.", "Analgesia was better in hospice.",
                      "The prescribing practices differ between nursing homes."]
    assert not any("AIM" in c.quote or "AIM" in c.text for c in out.claims)
    assert out.claims[1].category == "method"


@pytest.mark.parametrize(("text", "category"), [
    ("To correlate MR image findings with the histological grade of the tumours.", "method"),
    ("We aimed to study the association between HCMV infection and hypertension.", "method"),
    ("Models were compared using Harrell's concordance index.", "method"),
    ("Intraoperatively, the annulus diameter was measured by insertion of a gauge.", "method"),
    ("Sixty-eight patients fulfilled the revised Ascites Club Criteria.", "sample"),
    ("A total of 3910 members received the intervention by post.", "sample"),
    ("The daily pain subset consisted of 709 hospice and 1,326 nonhospice residents.", "sample"),
    ("Mean patient age was 50 years.", "sample"),
    ("Secondary data analysis of an ongoing prospective multicenter cohort study.", "fragment"),
    # Counts that are findings stay.
    ("169 of 321 patients had a recurrence within two years.", "factual"),
    ("Hyponatraemia occurred in 14% of the patients.", "factual"),
    ("Follow-up was performed electively by 89.4% of residents.", "factual"),
    ("A majority of residents (76.9%) believed that patient follow-up should be mandatory.", "factual"),
    # Plans, and short statements whose verb the grammar does not know.
    ("The council will fund three new clinics next year.", "plan"),
    ("DUSP4 decreases apoptosis.", "factual"),
    ("No patient underwent an inguinal exploration.", "factual"),
    ("Albendazole is used to treat soil-transmitted helminths.", "factual"),
    ("A two-sided p value of 0.05 or less was considered statistically significant.", "method"),
    ("We received 210 completed surveys from 260 eligible residents (80.8%).", "sample"),
    ("Patients complaining of lower urinary tract symptoms were recruited from a urodynamic clinic.", "method"),
    ("Because of the symmetry of the body, we hypothesised that joint lines may be assessed from the other knee.",
     "method"),
])
def test_aims_methods_samples_plans_and_findings(text, category):
    assert judge(text)[0] == category


def test_a_clause_is_split_only_where_each_piece_has_its_own_verb_and_never_inside_brackets():
    one = extract_claims("Islet autoantibodies (GADA, IA-2A, and ZnT8A) predicted type 1 diabetes in children.")
    assert len(one.claims) == 1
    lst = extract_claims("Men required higher fluid volumes, more often had liver disease, and had longer stays.")
    assert len(lst.claims) == 1
    two = extract_claims("Hyponatraemia occurred in 14% of the patients and was more common in females.")
    assert [c.text for c in two.claims] == ["Hyponatraemia occurred in 14% of the patients.",
                                            "Hyponatraemia was more common in females."]
    assert [c.quote for c in two.claims] == ["Hyponatraemia occurred in 14% of the patients",
                                             "was more common in females."]
    tail = extract_claims("The gradient ranged from 10 to 22 mmHg in one group, and from 9 to 12 mmHg in the other; "
                          "it was lower for small valves.")
    assert tail.claims[0].quote.endswith("in the other")


def test_a_comment_tail_is_left_out_and_an_inference_tail_is_a_claim_of_its_own():
    out = extract_claims("Serum ferritin was higher in smokers, which warrants further investigation.")
    assert [c.text for c in out.claims] == ["Serum ferritin was higher in smokers."]
    assert "warrants" not in out.claims[0].quote
    out = extract_claims("Statin users had fewer fractures, suggesting that statins might protect bone.")
    assert [c.text for c in out.claims] == ["Statin users had fewer fractures.", "Statins might protect bone."]
    assert all(c.check_worthy for c in out.claims)


def test_references_are_resolved_from_the_texts_own_words_or_marked_as_needing_context():
    text = ("139 patients received the Mosaic (n = 67) or Perimount (n = 72) valve. "
            "Mortality did not differ between the two groups. "
            "HCMV seropositivity was significantly associated with hypertension in women. "
            "After adjusting for age, the association was no longer significant. "
            "Gallstones were more frequent in the sludge group.")
    out = extract_claims(text)
    by_start = {c.quote.split()[0]: c for c in out.claims}
    assert by_start["Mortality"].text == "Mortality did not differ between the Mosaic and Perimount groups."
    assert by_start["After"].text == ("After adjusting for age, the association between HCMV seropositivity and "
                                      "hypertension in women was no longer significant.")
    assert (by_start["Gallstones"].category, by_start["Gallstones"].check_worthy) == ("context", False)


def test_the_items_of_an_aims_list_are_aims_too():
    out = extract_claims("Here we investigated if: (a) biopsy timing influences the detection rate; "
                         "(b) PSA slope predicts a different risk of cancer.")
    assert [c.category for c in out.claims] == ["method", "method"]


def test_a_bare_this_is_not_replaced_by_the_subject_of_the_finding_before_it():
    out = extract_claims("Physicians often differ from patients in the assessment of quality of life. "
                         "This is most likely due to a difference in the perception of symptoms.")
    assert out.claims[1].category == "context"
    assert not out.claims[1].text.startswith("Physicians")


def test_a_leading_it_is_never_resolved_to_the_subject_of_a_non_factual_sentence():
    out = extract_claims("We believe vaccines should be free. It reduces hospital admissions in winter.")
    assert out.claims[1].category == "context"
    out = extract_claims("Furthermore, it was observed that 106 boys had adhesions again after dilation.")
    assert out.claims[0].text == "106 boys had adhesions again after dilation."


def test_accepted_rewrite_checks_terms_against_claim_and_context():
    ctx = "Metformin is the most prescribed drug for type 2 diabetes."
    claim = "The drug may also lower the risk of some cancers."
    assert accepted_rewrite("Metformin may also lower the risk of some cancers", claim, ctx) == \
        "Metformin may also lower the risk of some cancers."
    assert accepted_rewrite("Aspirin may also lower the risk of some cancers.", claim, ctx) is None
    # Dropping the reference names nothing.
    assert accepted_rewrite("Patients had a higher risk of bleeding.", "These patients had a higher risk of bleeding.",
                            "Aspirin was given to 300 patients with diabetes.") is None


@pytest.mark.parametrize(("text", "category"), [
    ("Coffee consumption lowers the risk of type 2 diabetes.", "factual"),
    ("Vaccines should be mandatory for all schoolchildren.", "opinion"),
    ("We plan to expand the programme to three more cities.", "plan"),
    ("BMI refers to weight divided by height squared.", "definition"),
    ("Does coffee cause cancer?", "question"),
    ("The aim of this study was to assess sleep quality.", "method"),
    ("Introduction", "fragment"),
    ("I hope this helps!", "opinion"),
])
def test_judge(text, category):
    assert judge(text)[0] == category


def test_no_check_worthy_claim_is_said():
    out = extract_claims("We believe this is the best policy. Will it work?")
    assert not out.check_worthy
    assert any("no check-worthy claim" in w for w in out.warnings)


@pytest.mark.parametrize(("text", "words"), [
    ("", "the text is empty"),
    ("   \n\n ", "the text is empty"),
    ("abc\x00def", "binary"),
    ("word " * 201, "too long"),
    ("12 34 56", "no words"),
])
def test_bad_text_is_one_line_error(text, words):
    with pytest.raises(InputError) as exc:
        extract_claims(text, max_chars=1_000)
    assert words in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(("text", "category"), [
    # The study's sample, design and measurements, though they carry figures or comparison words.
    ("82 patients had flu-PSA levels and 129 si-PSA levels.", "sample"),
    ("Twelve patients scheduled to undergo cardiac operations with normothermic (n = 6) or hypothermic (n = 6) CPB.",
     "sample"),
    ("Grandmultiparous women were predominantly Hispanic (56%).", "sample"),
    ("Patients who underwent cold or warm bypass were comparable with regard to age and body weight.", "sample"),
    ("The subjects were seven healthy humans.", "sample"),
    ("Age of presentation averaged 3.5 days (range 1-14 days).", "sample"),
    ("Mean followup was 36 months (range, 12-84 months).", "sample"),
    ("There were 1,986 trauma presentations during the 6-year period.", "sample"),
    ("Flu-PSA level was defined as a PSA series with at least one PSA value lower than the one before it.", "method"),
    ("Endorsement was assessed with the Stroke Action Test and the cut-off point was set at 75%.", "method"),
    ("The difference between non-cycloplegic and cycloplegic refractive measurements was analyzed.", "method"),
    ("A registry study followed 2,100 patients admitted with acute ischaemic stroke.", "method"),
    ("This was a prospective study of 1400 eyes of enlisted soldiers aged 18 to 21 years.", "method"),
    ("All subjects had their serum 25-hydroxyvitamin D level measured.", "method"),
    ("Data for this study were gathered during the winter of 2007/2008 in a survey of all Dutch hospitals.",
     "method"),
    ("It was hypothesized that satisfaction with information would improve after the interventions.", "method"),
    ("We (1) asked whether infection control rates differed between implant retention and two-stage revision.",
     "method"),
    # Definitions of a condition, questions left open, recommendations and speculative implications.
    ("Frailty is a syndrome of reduced physiological reserve and increased vulnerability to stressors.",
     "definition"),
    ("Celiac disease (CD) is an autoimmune enteropathy characterized by villus atrophy and malabsorption.",
     "definition"),
    ("Whether serum bilirubin could be a biomarker of cardioembolic stroke is unclear.", "question"),
    ("It has yet to be shown whether the level of hospital changes the outcome of trauma patients in Australia.",
     "question"),
    ("The prognostic factors of survival in this group have not been thoroughly studied.", "question"),
    ("Whether this mechanism contributes to the progression of bronchitis remains unknown.", "question"),
    ("These results suggest the need to provide interventions that increase awareness of stroke symptoms.",
     "opinion"),
    ("These findings may inform the design of future anticoagulation trials.", "opinion"),
    ("Clinical data and serum bilirubin may be a feasible strategy to diagnose cardioembolic stroke.", "opinion"),
    ("Combined modality treatment might be indicated for selected cases.", "opinion"),
    ("A contralateral hydrocele does not warrant formal inguinal exploration.", "opinion"),
    # Findings stay findings.
    ("12 patients relapsed and 3 died.", "factual"),
    ("Men (n = 680) and women (n = 356) were similar except that men required higher fluid volumes.", "factual"),
    ("Significantly greater differences were observed in hypermetropes than in myopes.", "factual"),
    ("Statins have not been shown to reduce mortality in dialysis patients.", "factual"),
    ("Klf4 is important for proper myeloid cell differentiation.", "factual"),
    ("Sepsis is a leading cause of death in intensive care units.", "factual"),
    ("Glioblastoma multiforme (GBM) is characterized by extensive invasion and rapid growth.", "factual"),
])
def test_sample_design_definitions_open_questions_and_implications_are_not_claims(text, category):
    assert judge(text)[0] == category


def test_a_recommendation_drawn_from_a_finding_is_left_out_of_its_claim():
    out = extract_claims("Grandmultiparous women had increased neonatal mortality even after controlling for "
                         "confounders, suggesting a need for closer observation during labor.")
    assert [c.text for c in out.check_worthy] == [
        "Grandmultiparous women had increased neonatal mortality even after controlling for confounders."]
    assert "need" not in out.claims[0].quote


def test_a_leading_since_or_although_clause_is_a_claim_of_its_own():
    out = extract_claims("Since warfarin requires regular monitoring, adherence to warfarin is often poor.")
    assert [c.text for c in out.claims] == ["Warfarin requires regular monitoring.", "Adherence to warfarin is often poor."]
    assert [c.quote for c in out.claims] == ["warfarin requires regular monitoring", "adherence to warfarin is often poor."]
    out = extract_claims("Although initial infection control was lower with retention than with removal, final "
                         "infection control was comparable at the latest follow-up.")
    assert len(out.claims) == 2
    # A leading phrase without a verb is no clause.
    assert len(extract_claims("Since 2010, obesity rates have increased in children.").claims) == 1


def test_findings_of_opposite_polarity_are_two_claims():
    out = extract_claims("Compared with usual care, exercise was better for balance and mood but not for memory.")
    assert [c.text for c in out.claims] == ["Compared with usual care, exercise was better for balance and mood.",
                                            "Compared with usual care, exercise was not better for memory."]
    assert out.claims[1].quote == "but not for memory."
    out = extract_claims("Compared to chemotherapy alone, combined therapy could benefit the patients with a "
                         "disease-free interval over 1 year, but not those with a shorter interval.")
    assert out.claims[1].text == ("Compared to chemotherapy alone, combined therapy could not benefit the patients "
                                  "with a shorter interval.")
    # No auxiliary to negate: the rules do not guess, the sentence stays whole.
    assert len(extract_claims("Exercise improved balance but not memory in older adults.").claims) == 1


def test_a_list_before_a_shared_predicate_is_not_cut_into_fragments():
    out = extract_claims("We asked whether the infection control rates, number of additional procedures, length "
                         "of hospital stay, and treatment duration differed between retention and revision.")
    assert len(out.claims) == 1 and out.claims[0].category == "method"
    out = extract_claims("Blood was analyzed for total thyroxine (TT4), free T3 (fT3), reverse T3 (rT3), and "
                         "thyroid stimulating hormone (TSH) 60 min after bypass was initiated.")
    assert len(out.claims) == 1 and out.claims[0].category == "method"
    # "reduced X and increased Y" after a preposition is a list of noun phrases, not a second verb.
    out = extract_claims("Frailty raises mortality through reduced physiological reserve and increased "
                         "vulnerability to stressors.")
    assert len(out.claims) == 1


def test_clauses_in_a_series_and_a_clause_joined_by_and_before_a_reporting_frame_are_separate_claims():
    out = extract_claims("After bypass, total T3 was reduced for 5 days (p<0.05), free T3 was reduced for 3 days "
                         "(p<0.05), and TSH remained unchanged.")
    assert [c.text for c in out.claims] == ["After bypass, total T3 was reduced for 5 days (p<0.05).",
                                            "Free T3 was reduced for 3 days (p<0.05).", "TSH remained unchanged."]
    out = extract_claims("Inguinal exploration was not performed in our study and our long-term results demonstrate "
                         "that scrotal repair of a hydrocele is safe.")
    assert [c.category for c in out.claims] == ["method", "factual"]
    assert out.claims[1].text == "Scrotal repair of a hydrocele is safe."


def test_a_structured_abstracts_heading_with_a_slash_is_split_off():
    out = extract_claims("The studies depend on historical rather than concurrent controls.QUESTIONS/")
    assert out.claims[0].quote == "The studies depend on historical rather than concurrent controls."
    assert not out.claims[1].check_worthy


def test_a_possessive_a_pronoun_after_a_preposition_and_a_lettered_group_are_resolved_from_the_text():
    out = extract_claims("Forkhead O transcription factors are involved in apoptosis. Their activation in neuronal "
                         "death is inhibited by reactive oxygen species.")
    assert out.claims[1].text == ("The activation of forkhead O transcription factors in neuronal death is inhibited "
                                  "by reactive oxygen species.")
    out = extract_claims("Since warfarin requires regular monitoring, adherence to it is often poor.")
    assert out.claims[1].text == "Adherence to warfarin is often poor."
    out = extract_claims("Older adults were assigned to supervised exercise (E) or usual care (C). "
                         "Compared with C, E improved balance.")
    assert out.claims[1].text == "Compared with usual care, supervised exercise improved balance."
    assert out.claims[1].check_worthy
    # A letter the text does not define is a name of its own (the gene T).
    out = extract_claims("MSX2 is induced 3 hours after BMP4, which is earlier than T and CDX2.")
    assert out.claims[0].check_worthy and "than T" in out.claims[0].text
    # The subject the grammar misreads ("prior use of") is taken whole.
    out = extract_claims("Stroke patients with prior use of anticoagulants had a lower mortality than warfarin users. "
                         "They were also less often discharged to a nursing home.")
    assert out.claims[1].text == ("Stroke patients with prior use of anticoagulants were also less often discharged "
                                  "to a nursing home.")


@pytest.mark.parametrize("sentence", [
    "The second goal universally involves contralateral scrotal fixation.",
    "However, the studies on which this presumption is based depend on historical controls.",
    "The results were consistent across sexes.",
    "Patient satisfaction with information significantly increased after the interventions.",
    "There were no other complications during the sitting period.",
    "Fracture risk was higher in these 1,287 subjects.",
    "In avoiding an inguinal approach we did not subject our patients to unnecessary risk.",
    "Mortality did not differ between groups.",
    "There was no significant difference.",
])
def test_a_claim_that_does_not_read_alone_is_held_back_for_a_person(sentence):
    out = extract_claims("Hydroceles are common in neonatal torsion. " + sentence)
    assert not out.claims[-1].check_worthy
    assert out.claims[-1].category == "context"


def test_a_finding_named_by_these_findings_is_not_given_the_subject_before_it():
    out = extract_claims("ACE inhibitors are associated with a lower risk of renal failure. "
                         "These findings were consistent in women.")
    assert out.claims[1].category == "context"
    assert not out.claims[1].text.startswith("ACE")
    # A reporting frame is no reference.
    out = extract_claims("Our data showed no difference in vitamin D levels between children with and without "
                         "celiac disease.")
    assert out.claims[0].check_worthy


def test_the_rest_of_a_hypothesis_is_the_hypothesis_too():
    out = extract_claims("It was hypothesized that satisfaction with information would improve after the "
                         "interventions, and accruals to clinical trials would increase in the following year.")
    assert [c.category for c in out.claims] == ["method", "method"]


def test_two_percentages_with_their_own_verbs_are_two_claims():
    out = extract_claims("Of the participants, 54.7% had serologic evidence of HCMV infection and 17.5% had "
                         "hypertension.")
    assert [c.quote for c in out.claims] == ["Of the participants, 54.7% had serologic evidence of HCMV infection",
                                             "17.5% had hypertension."]


@pytest.mark.parametrize(("text", "category"), [
    ("05 considered significant).", "fragment"),
    ("Age, disease-free interval and treatment modality were evaluated as independent prognostic factors of "
     "survival.", "factual"),
])
def test_a_piece_cut_off_by_a_bad_sentence_boundary_and_a_finding_worded_as_a_method(text, category):
    assert judge(text)[0] == category


def test_a_borrowed_subject_leaves_the_adverbs_before_its_verb():
    out = extract_claims("Patients with chronic pain more often reported depression than controls. "
                         "Overall they were not more alexithymic.")
    assert out.claims[1].text == "Patients with chronic pain were not more alexithymic."


@pytest.mark.parametrize(("text", "category"), [
    # A sample or a method whatever else its sentence holds: who they were between subject and verb, a
    # relative clause before the passive verb, a compound ("HNPCC-associated") or bracketed words that are
    # no result, a response rate, what each arm received, where the data came from, an unnamed design.
    ("Forty-four patients (20 women, 24 men; mean age 53.5 years) with chronic bleeding underwent enteroscopy.",
     "sample"),
    ("Patients who underwent an appendectomy between 2010 and 2012 were retrospectively reviewed.", "method"),
    ("Patients were divided into risk groups: high, medium (a relative with an HNPCC-associated cancer) and low.",
     "method"),
    ("Gap measurements were performed in three patella positions (reduced, subluxated and everted).", "method"),
    ("In all, 85% (17/20) of surgical programs responded to the survey.", "sample"),
    ("Participants completed a questionnaire on their eating habits.", "sample"),
    ("Group 2 received a 1 mg/kg dose of 0.9% sodium chloride before pneumoperitoneum.", "method"),
    ("Each adult's claims data were linked with practice variables collected from the dentist.", "method"),
    ("Exclusion criteria included bilateral injuries and previous deformity.", "method"),
    ("Cross-sectional study of 55 head and neck cancer patients was made.", "method"),
    ("Year 10 students were asked to participate in focus groups.", "method"),
    ("The primiparous group included 114 women in their first pregnancy.", "sample"),
    ("59 patients had tumour blocks available for analysis.", "sample"),
    ("Metabolic syndrome is a cluster of risk factors including obesity and hypertension.", "definition"),
    ("The question of the additional cost has to be discussed.", "opinion"),
    ("Between 1984 and 1989, our institution entered 35 patients with bladder cancer into the SAKK study.", "sample"),
    ("A total of 13,384 adults aged 40-65 answered questions about their interest in insurance.", "sample"),
    ("The minimum follow-up was 12 months (median, 56 months).", "sample"),
    ("There were 13 men and 14 women, ranging in age from 34 to 94 years.", "sample"),
    ("All patients underwent surgical resection of their primary lesion.", "sample"),
    ("Of the patients enrolled, 26.5% were females and 73.5% males.", "sample"),
    ("The eligible studies included a total of 1740 patients.", "sample"),
    ("Participants were then asked to indicate whether a probe word belonged to the list.", "method"),
    ("Records of 50 people discharged home were audited.", "method"),
    ("Falls risk factors assessed.", "method"),
    ("Evaluation of continence was based on the Cleveland Clinic Continence Score.", "method"),
    ("A thromboelastogram analysis (n = 7) was made.", "method"),
    ("Radiation doses, when available, were analyzed to assess the effect of the delayed phase.", "method"),
    ("Subsequently, we combined the results with those of the published literature in a meta-analysis.", "method"),
    ("Thirteen focus groups were held involving 287 students.", "method"),
    ("The primary outcome was all-cause mortality at 30 days.", "method"),
    ("Outcomes included mortality and length of stay.", "method"),
    ("Follow-up lasted 5 years.", "method"),
    ("Each participant underwent an MRI scan.", "method"),
    # Findings stay findings.
    ("The primary outcome was lower in the treated group.", "factual"),
    ("A series of factors are involved in the process of arterial calcification.", "factual"),
    ("Patients received a median of 6.5 out of 16 possible strategies.", "factual"),
    ("Vaccines were exposed to temperatures that may reduce their potency.", "factual"),
    ("Qualitative analysis of feedback showed high acceptance of the examination.", "factual"),
    ("Of these, 1,957 (5.4%) had a feeding tube inserted within 1 year.", "factual"),
])
def test_methods_and_samples_worded_as_findings(text, category):
    assert judge(text)[0] == category


@pytest.mark.parametrize("text", [
    "Ibuprofen lowered fever in children. In girls, this effect was stronger.",
    "Ibuprofen was given to 200 children. Fever fell faster in children given the drug.",
    "Ibuprofen or paracetamol was given to 200 children. Neither group had serious adverse events.",
    "Ibuprofen lowered fever in children. Similar results were found in adults.",
    "Ibuprofen and paracetamol were compared in 200 children. Final results were comparable at latest followup.",
    "Double-balloon enteroscopy was safe. 2. this method permits biopsies of the lesions.",
])
def test_a_reference_anywhere_in_a_claim_holds_it_back_for_a_person(text):
    last = extract_claims(text).claims[-1]
    assert (last.category, last.check_worthy) == ("context", False)


def test_a_list_of_counts_sharing_one_verb_is_not_cut_into_fragments():
    out = extract_claims("Twenty-two subjects were classified as type 1, 9 as type 2, and 11 as type 3.")
    assert [c.quote for c in out.claims] == ["Twenty-two subjects were classified as type 1, 9 as type 2, and 11 as type 3."]
    out = extract_claims("Knowledge was associated with global health status, but not with self-reported "
                         "health-related quality of life.")
    assert not any(c.text.startswith("Not with") for c in out.claims)


def test_a_borrowed_subject_is_the_clauses_own_and_a_method_clause_lends_its_category():
    out = extract_claims("At lower concentrations, chloroquine can decrease the T-cell response and can inhibit MHC "
                         "class II expression.")
    assert out.claims[-1].text == "Chloroquine can inhibit MHC class II expression."
    out = extract_claims("Patients who failed the physical tests were older, and had longer disease duration.")
    assert [c.text for c in out.claims] == ["Patients who failed the physical tests were older.",
                                            "Patients who failed the physical tests had longer disease duration."]
    out = extract_claims("Children were included in the study if they had a diagnosis of CD by intestinal biopsy, and "
                         "were not on a gluten-free diet (GFD).")
    assert not out.check_worthy
