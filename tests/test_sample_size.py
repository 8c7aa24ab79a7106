"""The number of participants: the readings the patterns propose, and the fitted chooser that picks
among them."""

from __future__ import annotations

import pytest

from claimscope.tools.appraise.sample_size import (
    FEATURE_NAMES,
    MODEL_PATH,
    SizeChooser,
    candidate_features,
    packaged_chooser,
    readings,
    sample_size,
    sample_size_rules,
    states_size,
)


def test_readings_propose_the_total_and_the_sum_of_groups():
    proposed = readings("We enrolled 100 hypertensive patients and 30 normotensive subjects.")
    assert "total_first" in proposed[100] and "group_sum" in proposed[130] and "rules" in proposed[130]


def test_a_count_of_people_left_out_is_marked():
    features = candidate_features("Of 5,000 patients screened, 310 patients were enrolled.")
    assert features[5000]["left_out"] == 1.0 and features[310]["left_out"] == 0.0
    assert features[310]["is_largest"] == 1.0


def test_the_chooser_keeps_the_best_candidate_above_its_floor():
    text = "We compared 448 women with a history of miscarriage to 2,343 women without one."
    # weights by hand: sums of groups score high, a number written in the text low
    model = SizeChooser(features=["in_text", "above_largest"], coef=[-2.0, 3.0], intercept=0.0, floor=0.5)
    assert model.choose(text) == 2791
    assert SizeChooser(features=["in_text"], coef=[-5.0], intercept=-1.0, floor=0.5).choose(text) is None
    # equal scores go to the smaller number
    assert SizeChooser(features=[], coef=[], intercept=0.0, floor=0.1).choose(text) == 448


def test_no_candidate_no_number():
    assert sample_size("Mice were fed a high-fat diet for 12 weeks.") is None


def test_without_a_chooser_the_fixed_order_decides():
    text = "We compared 448 women with a history of miscarriage to 2,343 women without one."
    assert sample_size(text, chooser=False) == sample_size_rules(text) == 448


@pytest.mark.parametrize(("text", "n"), [
    ("Of 5,000 patients screened, 310 patients were enrolled.", 310),
    ("A total of 1,234 patients were included; 203 of them had a prior biopsy.", 1234),
    ("We enrolled 44 patients with PID and 44 healthy women.", 88),
    # groups compared, no total stated: the fixed order keeps the first group alone
    ("We compared 448 pregnant women with a history of miscarriage to 2,343 pregnant women without one.", 2791),
])
def test_the_packaged_chooser(text, n):
    assert sample_size(text) == n


def test_every_feature_computed_is_one_a_chooser_may_weigh():
    texts = ["We enrolled 44 patients with PID and 44 healthy women.", "A total of 120 subjects versus 40 controls.",
             "Of 5,000 patients screened, 310 patients were enrolled (n = 150 and n = 160)."]
    computed = {k for t in texts for f in candidate_features(t).values() for k in f}
    assert computed <= FEATURE_NAMES


def test_a_chooser_fitted_on_other_features_is_refused():
    with pytest.raises(ValueError, match="evals.train_sample_size"):
        SizeChooser(features=["reading:somewhere_else"], coef=[1.0], intercept=0.0, floor=0.1)
    # the package ships its chooser: sample_size falls back to the fixed order only without one
    assert MODEL_PATH.is_file() and packaged_chooser() is not None


def test_an_age_bound_before_the_people_is_not_their_number():
    """'Five hundred six adult (\u226518 years) cigarette smokers' read as 18 smokers."""
    sentence = "Five hundred six adult (\u226518 years) cigarette smokers were randomly assigned and 315 completed."
    assert 18 not in readings(sentence) and not states_size(sentence, 18)


def test_a_sentence_states_a_size_only_as_a_number_of_people():
    assert states_size("Serum markers were measured in 96 COPD patients.", 96)
    assert states_size("We enrolled 100 patients and 30 healthy controls.", 130)
    assert not states_size("We related serum markers to lung function in COPD patients.", 96)
    assert not states_size("Doses of 96 mg were given to 40 patients.", 96)
