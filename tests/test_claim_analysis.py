"""Claim analysis: claim types, sub-claims, anti-claim (LLM and rule fallback), passage filter."""

from __future__ import annotations

import pytest

from claimscope.prompts import anti_claim as anti_claim_prompt
from claimscope.prompts import decompose as decompose_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Segment, SegmentHit, Stance, StanceResult
from claimscope.tools.read.claim_analysis import (
    SUB_CLAIM_PREFIX,
    ClaimType,
    analyse_claim,
    anti_claim,
    decompose,
    decomposition,
    detect_claim_type,
    filter_passages,
    negate_claim,
    rule_decompose,
)
from tests.fakes import CannedLLM, KeywordStance

# ------------------------------------------------------------------------------------ claim types


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Vitamin D reduces fracture risk.", ClaimType.SIMPLE),
        ("Aspirin is more effective than ibuprofen for tension headache.", ClaimType.COMPARATIVE),
        ("Drug A is as effective as placebo in preventing migraine.", ClaimType.COMPARATIVE),
        ("Statins compared with placebo reduce mortality.", ClaimType.COMPARATIVE),
        ("Model X outperforms model Y on reading comprehension.", ClaimType.COMPARATIVE),
        ("Smoking increases the risk of lung cancer and decreases life expectancy.", ClaimType.CONJUNCTIVE),
        ("Both smoking and obesity increase the risk of type 2 diabetes.", ClaimType.CONJUNCTIVE),
        ("Coffee consumption increases or decreases the risk of heart disease.", ClaimType.DISJUNCTIVE),
        ("Either vaccination or prior infection protects against severe COVID-19.", ClaimType.DISJUNCTIVE),
        ("RUNX1 is downregulated or mutated in TLX1 T-ALL.", ClaimType.DISJUNCTIVE),
        # Coordinated nouns inside a phrase are not split.
        ("Ca2+ and cAMP signalling regulate insulin secretion.", ClaimType.SIMPLE),
        ("There is a positive correlation between hip fractures and statin use.", ClaimType.SIMPLE),
        ("61% of colorectal cancer patients are diagnosed with regional or distant metastases.", ClaimType.SIMPLE),
        ("Masks work with or without vaccination.", ClaimType.SIMPLE),
        # "more than <number>" is a quantity, not a comparison of two things.
        ("More than 50% of patients respond to treatment.", ClaimType.SIMPLE),
        # Contrasts and comparisons with an expectation name no second entity.
        ("The programme aims at preventing outbreaks rather than developing weapons.", ClaimType.SIMPLE),
        ("The vaccine provokes stronger than anticipated immune responses.", ClaimType.SIMPLE),
        # Infinitives coordinated inside an object do not make the claim conjunctive.
        ("The invocation of threats is a strategy to justify military actions and influence opinion.", ClaimType.SIMPLE),
    ],
)
def test_detect_claim_type(claim, expected):
    assert detect_claim_type(claim) == expected


# ---------------------------------------------------------------------------------- decomposition


def test_simple_claim_passes_through_without_llm_call():
    llm = CannedLLM({})
    assert decompose("Vitamin D reduces fracture risk.", ClaimType.SIMPLE, llm) == ["Vitamin D reduces fracture risk."]
    assert llm.calls == []


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        (
            "Aspirin is more effective than ibuprofen for tension headache.",
            ["whether Aspirin is effective for tension headache.", "whether ibuprofen is effective for tension headache."],
        ),
        (
            "Exercise reduces blood pressure more than medication.",
            ["whether exercise reduces blood pressure.", "whether medication reduces blood pressure."],
        ),
        (
            "Smoking increases the risk of lung cancer and decreases life expectancy.",
            ["whether smoking increases the risk of lung cancer.", "whether smoking decreases life expectancy."],
        ),
        (
            "Both smoking and obesity increase the risk of type 2 diabetes.",
            ["whether smoking increases the risk of type 2 diabetes.", "whether obesity increases the risk of type 2 diabetes."],
        ),
        (
            "Coffee consumption increases or decreases the risk of heart disease.",
            ["whether Coffee consumption increases the risk of heart disease.",
             "whether Coffee consumption decreases the risk of heart disease."],
        ),
        (
            "RUNX1 is downregulated or mutated in TLX1 T-ALL.",
            ["whether RUNX1 is downregulated.", "whether RUNX1 is mutated in TLX1 T-ALL."],
        ),
        (
            "The immune response to mRNA vaccines is robust and provides protection against variants.",
            ["whether the immune response to mRNA vaccines is robust.",
             "whether the immune response to mRNA vaccines provides protection against variants."],
        ),
        (
            "Moderna's reactogenicity compared to Pfizer may indicate a flawed vaccine design.",
            ["whether Moderna's reactogenicity may indicate a flawed vaccine design.",
             "whether Pfizer may indicate a flawed vaccine design."],
        ),
        (
            "Evidence suggests that two-dose regimens are more effective against Delta than single-dose vaccines.",
            ["whether two-dose regimens are effective against Delta.", "whether single-dose vaccines are effective against Delta."],
        ),
    ],
)
def test_rule_decomposition_into_existence_sub_claims(claim, expected):
    subs = rule_decompose(claim, detect_claim_type(claim))
    assert subs == [f"{SUB_CLAIM_PREFIX} {e}" for e in expected]


def test_decompose_uses_the_llm_when_it_answers():
    claim = "Aspirin is more effective than ibuprofen for tension headache."
    subs = [f"{SUB_CLAIM_PREFIX} the effectiveness of aspirin.", f"{SUB_CLAIM_PREFIX} the effectiveness of ibuprofen."]
    llm = CannedLLM({"decompose": [{"sub_claims": subs}]})
    assert decompose(claim, ClaimType.COMPARATIVE, llm) == subs
    name, inputs = llm.calls[0]
    assert name == "decompose" and inputs.claim_type == "comparative"


@pytest.mark.parametrize(
    "answer",
    [LLMError("invalid JSON after 3 attempts"), {"sub_claims": ["Aspirin is more effective than ibuprofen for tension headache."]}],
    ids=["llm-error", "only-the-claim-back"],
)
def test_decompose_falls_back_to_rules(answer):
    claim = "Aspirin is more effective than ibuprofen for tension headache."
    llm = CannedLLM({"decompose": [answer], "anti_claim": [{"anti_claim": "Aspirin is not more effective than ibuprofen."}]})
    analysis = analyse_claim(claim, llm)
    assert analysis.sub_claims == rule_decompose(claim, ClaimType.COMPARATIVE)
    assert len(analysis.sub_claims) == 2
    assert any("rule-based split" in w for w in analysis.warnings)


# ------------------------------------------------------------------------------------- anti-claim


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Vitamin D reduces fracture risk.", "Vitamin D does not reduce fracture risk."),
        ("Minimum wage increases cause job losses.", "Minimum wage increases do not cause job losses."),
        ("Statins lower LDL cholesterol.", "Statins do not lower LDL cholesterol."),
        ("Treatment improved survival in elderly patients.", "Treatment did not improve survival in elderly patients."),
        ("ALDH1 expression is associated with poor prognosis.", "ALDH1 expression is not associated with poor prognosis."),
        ("Antibiotics can cure viral infections.", "Antibiotics cannot cure viral infections."),
        ("Masks may reduce transmission.", "Masks may not reduce transmission."),
        ("The drug has been shown to improve survival.", "The drug has not been shown to improve survival."),
        ("Smokers have higher rates of cancer.", "Smokers do not have higher rates of cancer."),
        ("Sepsis related mortality has remained stable.", "Sepsis related mortality has not remained stable."),
        ("An increase in temperature causes more wildfires.", "An increase in temperature does not cause more wildfires."),
        # Already negated: the negation is removed.
        ("Statins do not reduce the risk of dementia.", "Statins do reduce the risk of dementia."),
        ("Vaccines don't cause autism.", "Vaccines do cause autism."),
        ("Exposure to sunlight is not harmful.", "Exposure to sunlight is harmful."),
        ("There is no association between vaccines and autism.", "There is some association between vaccines and autism."),
        ("Antibiotics cannot cure viral infections.", "Antibiotics can cure viral infections."),
        ("Masks fail to prevent transmission.", "Masks do prevent transmission."),
        ("The drug has never been shown to work.", "The drug has been shown to work."),
        ("It is not proven that chocolate reduces the risk of CVD.", "It is proven that chocolate reduces the risk of CVD."),
        ("Mutant plants in Arabidopsis do not make root meristem.", "Mutant plants in Arabidopsis do make root meristem."),
        ("X, however, does not reduce Y.", "X, however, does reduce Y."),
        # A negation in a subordinate or contrasted clause is not the claim's: negate the main verb.
        ("Stem cells give rise to ectoderm, but not to the other two layers.",
         "Stem cells do not give rise to ectoderm, but not to the other two layers."),
        ("Vaccine A may trigger stronger responses, suggesting effects not captured in trials.",
         "Vaccine A may not trigger stronger responses, suggesting effects not captured in trials."),
        # No verb the rules know: a safe wrapper.
        ("VgrG protein punctuates membranes by forming a spike.",
         "It is not the case that VgrG protein punctuates membranes by forming a spike."),
    ],
)
def test_negate_claim(claim, expected):
    assert negate_claim(claim) == expected


def test_anti_claim_from_llm():
    llm = CannedLLM({"anti_claim": [{"anti_claim": "Vitamin D does not lower fracture risk."}]})
    assert anti_claim("Vitamin D reduces fracture risk.", llm) == ("Vitamin D does not lower fracture risk.", "llm")


@pytest.mark.parametrize(
    "answer",
    [
        LLMError("timed out"),
        {"anti_claim": "Vitamin D reduces fracture risk!"},
        {"anti_claim": "The weather in Paris is mild in spring."},
    ],
    ids=["llm-error", "claim-repeated", "off-topic"],
)
def test_anti_claim_falls_back_to_negation(answer):
    llm = CannedLLM({"anti_claim": [answer]})
    assert anti_claim("Vitamin D reduces fracture risk.", llm) == ("Vitamin D does not reduce fracture risk.", "rule")


def test_anti_claim_without_llm_is_rule_based():
    assert anti_claim("Vitamin D reduces fracture risk.", None) == ("Vitamin D does not reduce fracture risk.", "rule")


# --------------------------------------------------------------------------------------- analysis


def test_analyse_simple_claim_with_llm():
    llm = CannedLLM({"anti_claim": [{"anti_claim": "Vitamin D does not reduce fracture risk in older adults."}]})
    a = analyse_claim("  Vitamin D reduces   fracture risk in older adults. ", llm)
    assert a.claim == "Vitamin D reduces fracture risk in older adults."
    assert a.claim_type == ClaimType.SIMPLE and a.sub_claims == [a.claim]
    assert a.anti_claim_source == "llm" and a.queries == [a.claim, a.anti_claim]
    assert a.warnings == [] and [c[0] for c in llm.calls] == ["anti_claim"]


def test_analyse_records_llm_failure_as_warning():
    llm = CannedLLM({"anti_claim": [LLMError("model returned invalid JSON")]})
    a = analyse_claim("Vitamin D reduces fracture risk.", llm)
    assert a.anti_claim == "Vitamin D does not reduce fracture risk." and a.anti_claim_source == "rule"
    assert len(a.warnings) == 1 and "invalid JSON" in a.warnings[0]


def test_analyse_without_llm():
    a = analyse_claim("Smoking increases the risk of lung cancer and decreases life expectancy.", None)
    assert a.claim_type == ClaimType.CONJUNCTIVE and len(a.sub_claims) == 2
    assert a.anti_claim_source == "rule" and a.warnings == []
    assert a.model_dump(mode="json")["claim_type"] == "conjunctive"


@pytest.mark.parametrize(
    ("claim", "message"),
    [("", "empty"), ("   ", "empty"), ("Yes", "too short"), ("Coffee bad", "too short"), ("x " * 600, "too long")],
)
def test_bad_claims_are_input_errors(claim, message):
    with pytest.raises(InputError, match=message):
        analyse_claim(claim, None)


# ----------------------------------------------------------------------------------------- filter


SUBS = ["aspirin relieves migraine", "ibuprofen lowers fever"]


def test_filter_keeps_passages_entailing_any_sub_claim():
    passages = [
        "Aspirin relieves migraine within two hours.",
        "The weather was sunny.",
        "Ibuprofen lowers fever in most adults.",
        "Paracetamol is cheap.",
    ]
    r = filter_passages(SUBS, passages, KeywordStance())
    assert r.kept_indices == [0, 2] and r.kept == [passages[0], passages[2]]
    assert not r.fell_back
    assert r.best_sub_claim[0] == 0 and r.best_sub_claim[2] == 1
    assert r.support[1] < 0.5 <= r.support[0]


def test_filter_falls_back_to_all_when_nothing_entails():
    passages = ["The weather was sunny.", "Aspirin does not relieve migraine."]
    r = filter_passages(SUBS, passages, KeywordStance())
    assert r.fell_back and r.kept_indices == [0, 1] and r.kept == passages


def test_filter_accepts_segment_hits_and_checks_arguments():
    seg = Segment(doc_id="d1", start=0, end=1, text="Aspirin relieves migraine.", embed_text="T. Aspirin relieves migraine.")
    hit = SegmentHit(segment=seg, score=0.9)
    r = filter_passages(SUBS, [hit, "Nothing relevant here at all."], KeywordStance())
    assert r.kept == [hit] and r.kept_indices == [0]
    assert filter_passages(SUBS, [], KeywordStance()).kept_indices == []
    with pytest.raises(InputError):
        filter_passages([], ["x"], KeywordStance())
    with pytest.raises(InputError):
        filter_passages(SUBS, ["x"], KeywordStance(), threshold=1.5)


def test_filter_threshold_is_inclusive():
    class Fixed:
        def predict(self, pairs):
            return [StanceResult(label=Stance.SUPPORT, support=0.5, neutral=0.3, refute=0.2) for _ in pairs]

    assert filter_passages(["a claim here"], ["p1", "p2"], Fixed(), threshold=0.5).kept_indices == [0, 1]
    assert filter_passages(["a claim here"], ["p1", "p2"], Fixed(), threshold=0.6).fell_back


# ---------------------------------------------------------------------------------------- prompts


@pytest.mark.parametrize("module, bench_inputs", [(anti_claim_prompt, anti_claim_prompt.bench_inputs),
                                                  (decompose_prompt, decomposition.bench_inputs)])
def test_prompts_render_and_bench_inputs(module, bench_inputs):
    claim = "Aspirin is more effective than ibuprofen for tension headache."
    inputs = bench_inputs(claim)
    assert inputs.model_dump().get("claim_type", "comparative") == "comparative"
    text = module.PROMPT.render(inputs)
    assert claim in text
    for example_in, example_out in module.PROMPT.examples:
        module.PROMPT.render(example_in)
        module.PROMPT.output_model.model_validate(example_out.model_dump())
    assert module.PROMPT.temperature == 0.3


def test_prompt_outputs_are_bounded():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        anti_claim_prompt.AntiClaimOutput(anti_claim="x" * 1000)
    with pytest.raises(ValidationError):
        decompose_prompt.DecomposeOutput(sub_claims=[f"{SUB_CLAIM_PREFIX} item {i}." for i in range(6)])
    assert decomposition.bench_inputs("Vitamin D reduces fracture risk.").claim_type == "simple"
