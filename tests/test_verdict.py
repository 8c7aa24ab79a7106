"""Local label scale, global label thresholds at their exact edges, per-aspect consensus, global
verdict (No Evidence excluded), confidence and its calibration, SciFact mapping."""

from __future__ import annotations

import math

import pytest

from claimscope.tools.errors import InputError
from claimscope.tools.models import Stance
from claimscope.tools.weigh.verdict import (
    ConfidenceCalibration,
    GlobalLabel,
    LocalItem,
    LocalLabel,
    SciFactLabel,
    Verdict,
    aspect_consensus,
    fit_confidence_calibration,
    global_label,
    global_verdict,
    raw_confidence,
    to_scifact_label,
)

G = GlobalLabel


def item(label: LocalLabel, rep: float = 1.0, trust: float = 1.0, doc: str = "d") -> LocalItem:
    return LocalItem(doc_id=doc, label=label, reputation=rep, trust=trust)


def test_local_scale_scores():
    assert [lab.score for lab in LocalLabel] == [1.0, 0.66, 0.33, 0.0, -0.33, -0.66, -1.0]
    assert len(LocalLabel) == 7
    assert LocalLabel("Mostly True") is LocalLabel.MOSTLY_TRUE


def test_local_from_score_and_parse():
    assert LocalLabel.from_score(0.7) is LocalLabel.MOSTLY_TRUE
    assert LocalLabel.from_score(-0.2) is LocalLabel.SOMEWHAT_FALSE
    assert LocalLabel.from_score(0.165) is LocalLabel.NO_EVIDENCE  # tie -> weaker
    assert LocalLabel.from_score(-5) is LocalLabel.FALSE
    assert LocalLabel.parse("  mostly_TRUE ") is LocalLabel.MOSTLY_TRUE
    with pytest.raises(InputError, match="expected one of"):
        LocalLabel.parse("Kinda true")
    with pytest.raises(InputError):
        LocalLabel.from_score(math.nan)


@pytest.mark.parametrize(
    ("score", "label"),
    [
        (1.0, G.GENERALLY_SUPPORTED),
        (0.66, G.GENERALLY_SUPPORTED),  # edge: inclusive
        (0.6599, G.LEANING_SUPPORTED),
        (0.3301, G.LEANING_SUPPORTED),
        (0.33, G.CONTROVERSIAL),  # edge: leaning band is open
        (0.0, G.CONTROVERSIAL),
        (-0.33, G.CONTROVERSIAL),
        (-0.3301, G.LEANING_REFUTED),
        (-0.6599, G.LEANING_REFUTED),
        (-0.66, G.GENERALLY_REFUTED),
        (-1.0, G.GENERALLY_REFUTED),
        (None, G.INSUFFICIENT),
    ],
)
def test_global_label_edges(score, label):
    assert global_label(score) is label


def test_edges_are_robust_to_float_rounding():
    three = sum([0.66, 0.66, 0.66]) / 3  # 0.66 up to rounding
    assert global_label(three) is G.GENERALLY_SUPPORTED
    assert global_label(0.66 - 1e-12) is G.GENERALLY_SUPPORTED
    assert global_label(0.33 + 1e-12) is G.CONTROVERSIAL
    assert global_label((0.33 + 0.33 + 0.33) / 3) is G.CONTROVERSIAL
    with pytest.raises(InputError):
        global_label(math.inf)


def test_aspect_consensus_counts_ratios_and_score():
    c = aspect_consensus(
        [(Stance.SUPPORT, 1.0), (Stance.SUPPORT, 0.5), (Stance.NEUTRAL, 2.0), (Stance.REFUTE, 0.5)]
    )
    assert (c.support, c.neutral, c.oppose) == (2, 1, 1)
    assert (
        c.raw_ratios.support == 0.5 and c.raw_ratios.neutral == 0.25 and c.raw_ratios.oppose == 0.25
    )
    assert c.weighted_ratios.support == pytest.approx(1.5 / 4)
    assert c.weighted_ratios.neutral == pytest.approx(2.0 / 4)
    assert c.score == pytest.approx((1.5 - 0.5) / 2.0)  # neutral left out of the score
    assert c.label is G.LEANING_SUPPORTED


def test_aspect_consensus_empty_and_neutral_only():
    assert aspect_consensus([]).label is G.INSUFFICIENT
    neutral = aspect_consensus([(Stance.NEUTRAL, 1.0)] * 3)
    assert neutral.score is None and neutral.label is G.INSUFFICIENT
    assert neutral.raw_ratios.neutral == 1.0
    zero_w = aspect_consensus([(Stance.SUPPORT, 0.0)])
    assert zero_w.support == 1 and zero_w.score is None
    split = aspect_consensus([(Stance.SUPPORT, 1.0), (Stance.REFUTE, 1.0)])
    assert split.score == 0 and split.label is G.CONTROVERSIAL
    with pytest.raises(InputError):
        aspect_consensus([(Stance.SUPPORT, -1.0)])


def test_global_verdict_excludes_no_evidence():
    items = [item(LocalLabel.TRUE), item(LocalLabel.MOSTLY_TRUE), item(LocalLabel.NO_EVIDENCE)]
    v = global_verdict(items)
    assert v.unweighted_score == pytest.approx(0.83)
    assert v.weighted_score == pytest.approx(0.83)
    assert v.weighted_label is G.GENERALLY_SUPPORTED
    assert (v.n_documents, v.n_evidence) == (3, 2)


def test_global_verdict_weighting_changes_the_label():
    items = [
        item(LocalLabel.TRUE, rep=0.9, trust=0.9, doc="strong"),
        item(LocalLabel.FALSE, rep=0.1, trust=0.5, doc="weak"),
    ]
    v = global_verdict(items)
    assert v.unweighted_score == 0.0 and v.unweighted_label is G.CONTROVERSIAL
    w_s, w_w = 0.81, 0.05
    assert v.weighted_score == pytest.approx((w_s - w_w) / (w_s + w_w))
    assert v.weighted_label is G.GENERALLY_SUPPORTED


def test_global_verdict_without_usable_evidence():
    only_none = global_verdict([item(LocalLabel.NO_EVIDENCE)])
    assert only_none.weighted_score is None and only_none.weighted_label is G.INSUFFICIENT
    assert only_none.unweighted_label is G.INSUFFICIENT
    assert global_verdict([]).n_documents == 0
    retracted = global_verdict([item(LocalLabel.TRUE, rep=0.0)])
    assert retracted.weighted_label is G.INSUFFICIENT
    assert retracted.unweighted_label is G.GENERALLY_SUPPORTED


def test_confidence_grows_with_evidence_and_agreement():
    one = global_verdict([item(LocalLabel.TRUE)])
    many = global_verdict([item(LocalLabel.TRUE, doc=str(i)) for i in range(6)])
    assert 0 < one.confidence < many.confidence <= 1
    assert one.confidence == pytest.approx(1 / 3)  # coverage 1/(1+2), strength 1
    mixed = global_verdict(
        [item(LocalLabel.TRUE, doc=str(i)) for i in range(5)] + [item(LocalLabel.FALSE)] * 1
    )
    assert mixed.agreement == pytest.approx(4 / 6)
    assert mixed.confidence < many.confidence
    # an even split is a confident "controversial"; a near-leaning score is not
    even = global_verdict([item(LocalLabel.TRUE), item(LocalLabel.FALSE)] * 2)
    edge = global_verdict([item(LocalLabel.SOMEWHAT_TRUE)] * 4)
    assert even.weighted_label is edge.weighted_label is G.CONTROVERSIAL
    assert even.confidence > edge.confidence
    assert raw_confidence(None, 0, 0.0) == 0.5
    with pytest.raises(InputError):
        raw_confidence(0.5, 1, 1.0, pseudo_count=0)


def test_calibration_fit_and_apply():
    raw = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9] * 5
    correct = [False, False, True, False, True, True, False, True] * 5
    cal = fit_confidence_calibration(raw, correct)
    assert cal.a is not None and cal.a > 0
    assert 0 < cal.apply(0.1) < cal.apply(0.9) < 1
    v = global_verdict([item(LocalLabel.TRUE)], calibration=cal)
    assert v.confidence == pytest.approx(cal.apply(v.confidence_raw))
    assert ConfidenceCalibration().apply(0.37) == 0.37
    with pytest.raises(InputError):
        fit_confidence_calibration([0.1, 0.2], [True, True])


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        (G.GENERALLY_SUPPORTED, SciFactLabel.SUPPORT),
        (G.LEANING_SUPPORTED, SciFactLabel.SUPPORT),
        (G.CONTROVERSIAL, SciFactLabel.NEI),
        (G.INSUFFICIENT, SciFactLabel.NEI),
        (G.LEANING_REFUTED, SciFactLabel.CONTRADICT),
        (G.GENERALLY_REFUTED, SciFactLabel.CONTRADICT),
    ],
)
def test_scifact_mapping(label, expected):
    v = Verdict(weighted_label=label, unweighted_label=G.INSUFFICIENT)
    assert to_scifact_label(v) is expected
    assert to_scifact_label(v, use_weighted=False) is SciFactLabel.NEI
