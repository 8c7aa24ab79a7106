"""Claims out of a whole text: spans, atomic splitting, check-worthiness, and the model's rewrite
kept only when it holds to the text."""

from __future__ import annotations

import pytest

from claimscope.agent.llm.fake import scripted_llm, timeout
from claimscope.tools.errors import InputError
from claimscope.tools.read.claim_extraction import (
    accepted_rewrite,
    extract_claims,
    judge,
)
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


def test_an_unresolvable_reference_is_kept_with_a_warning():
    out = extract_claims("It reduces the risk of colds in children by a third.")
    assert out.claims[0].check_worthy and out.claims[0].resolved_by == "none"
    assert any("could not be made to read alone" in w for w in out.warnings)


def test_accepted_rewrite_checks_terms_against_claim_and_context():
    ctx = "Metformin is the most prescribed drug for type 2 diabetes."
    claim = "The drug may also lower the risk of some cancers."
    assert accepted_rewrite("Metformin may also lower the risk of some cancers", claim, ctx) == \
        "Metformin may also lower the risk of some cancers."
    assert accepted_rewrite("Aspirin may also lower the risk of some cancers.", claim, ctx) is None


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
