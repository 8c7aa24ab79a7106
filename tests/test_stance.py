"""Stance interface: batching, cache, label mapping, empty input, truncation, backends, document
labels; and the committed packaged model (loads offline, gets obvious pairs right)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from claimscope.tools.errors import ClaimscopeError, InputError
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Stance, StanceResult
from claimscope.tools.read.stance import (
    PACKAGED_DIR,
    DocumentLabel,
    HFStanceModel,
    LLMStanceModel,
    OnnxStanceModel,
    StanceModel,
    default_label_map,
    document_label,
    fit_temperature,
    load_stance,
    tune_document_thresholds,
)
from tests.fakes import CannedLLM, KeywordStance


class CountingModel(StanceModel):
    """Deterministic backend that records every batch it is asked to score."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.batches: list[list[tuple[str, str]]] = []
        self.name = "counting"

    def _probs(self, pairs):
        self.batches.append(list(pairs))
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        for i, (_, e) in enumerate(pairs):
            out[i] = (0.7, 0.2, 0.1) if "yes" in e else (0.1, 0.2, 0.7) if "no" in e else (0.1, 0.8, 0.1)
        return out


# ----------------------------------------------------------------------------- base behaviour


def test_empty_input_returns_empty_list():
    m = CountingModel()
    assert m.predict([]) == []
    assert m.batches == []


def test_batches_respect_batch_size_and_order():
    m = CountingModel(batch_size=2)
    pairs = [("c", "yes 1"), ("c", "no 2"), ("c", "maybe 3"), ("c", "yes 4"), ("c", "no 5")]
    res = m.predict(pairs)
    assert [len(b) for b in m.batches] == [2, 2, 1]
    assert [r.label for r in res] == [Stance.SUPPORT, Stance.REFUTE, Stance.NEUTRAL, Stance.SUPPORT, Stance.REFUTE]


def test_cache_skips_scored_pairs_and_duplicates():
    m = CountingModel(batch_size=10)
    m.predict([("c", "yes"), ("c", "yes"), ("c", "no")])
    assert len(m.batches) == 1 and sorted(m.batches[0]) == [("c", "no"), ("c", "yes")]
    again = m.predict([("c", "no"), ("c", "yes")])
    assert len(m.batches) == 1  # all cached
    assert [r.label for r in again] == [Stance.REFUTE, Stance.SUPPORT]
    m.predict([("c", "yes"), ("other claim", "yes")])
    assert m.batches[-1] == [("other claim", "yes")]


def test_cache_is_bounded():
    m = CountingModel(cache_size=2)
    m.predict([("c", "a"), ("c", "b"), ("c", "d")])
    assert len(m._cache) == 2
    m.predict([("c", "a")])
    assert len(m.batches) == 2  # evicted, scored again


def test_malformed_pair_is_an_input_error():
    with pytest.raises(InputError, match="pair 1"):
        CountingModel().predict([("c", "e"), "just a string"])  # type: ignore[list-item]


def test_very_long_text_is_clipped_before_the_backend():
    m = CountingModel(max_length=32)
    huge = "word " * 200_000
    res = m.predict([("c", huge)])
    assert len(res) == 1
    assert len(m.batches[0][0][1]) <= 32 * 12


def test_invalid_sizes_are_input_errors():
    with pytest.raises(InputError):
        CountingModel(batch_size=0)
    with pytest.raises(InputError):
        CountingModel(max_length=4)


def test_load_stance_rejects_unknown_backends():
    with pytest.raises(InputError, match="unknown stance backend"):
        load_stance("bogus")
    with pytest.raises(InputError, match="needs an LLM"):
        load_stance("llm")
    with pytest.raises(InputError, match="could not load|Could not load"):
        load_stance("hf:/nonexistent/model/dir")


# ------------------------------------------------------------------------------ label mapping


def test_default_label_map_reads_common_nli_names():
    m = default_label_map({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    assert m == {"ENTAILMENT": Stance.SUPPORT, "NEUTRAL": Stance.NEUTRAL, "CONTRADICTION": Stance.REFUTE}
    m2 = default_label_map({0: "entailment", 1: "not_entailment"})
    assert m2 == {"entailment": Stance.SUPPORT, "not_entailment": Stance.NEUTRAL}
    assert default_label_map({0: "LABEL_0", 1: "LABEL_1"}) == {}


def _tiny_hf_model(path: Path, id2label: dict[int, str]) -> Path:
    """A randomly initialised 1-layer BERT with a 60-word vocabulary, saved like any HF model."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [
        "the", "a", "drug", "reduces", "increases", "risk", "of", "disease", "not", "no", "did", "trial",
        "patients", "in", "we", "found", "that", "effect", "vitamin", "d", "cancer", "smoking", "causes",
        "word", "claim", "evidence", ".", ",", "is", "was", "and", "with", "lower", "higher", "study",
    ]
    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=len(id2label),
                     id2label=id2label, label2id={v: k for k, v in id2label.items()})
    BertForSequenceClassification(cfg).eval().save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def nli_dir(tmp_path_factory) -> Path:
    return _tiny_hf_model(tmp_path_factory.mktemp("nli"), {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})


def test_hf_backend_maps_nli_labels_and_returns_distributions(nli_dir):
    m = load_stance(f"hf:{nli_dir}", batch_size=2)
    assert isinstance(m, HFStanceModel)
    assert m.label_map == {"ENTAILMENT": "support", "NEUTRAL": "neutral", "CONTRADICTION": "refute"}
    res = m.predict([("the drug reduces risk", "we found that the drug reduces risk"), ("a", "b"), ("c", "d")])
    assert len(res) == 3
    for r in res:
        assert abs(r.support + r.neutral + r.refute - 1) < 1e-5
        assert r.label == max(Stance, key=lambda s: getattr(r, s.value))


def test_hf_backend_truncates_long_evidence(nli_dir):
    # max_position_embeddings is 64: anything not truncated to max_length would crash the model.
    m = load_stance(f"hf:{nli_dir}", max_length=48)
    res = m.predict([("smoking causes cancer", "the study " * 5000)])
    assert len(res) == 1


def test_hf_backend_label_map_override_and_errors(tmp_path):
    d = _tiny_hf_model(tmp_path / "m", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(InputError, match="label_map"):
        load_stance(f"hf:{d}")
    m = load_stance(f"hf:{d}", label_map={"LABEL_0": "refute", "LABEL_1": "support", "LABEL_2": "support"})
    r = m.predict([("a", "b")])[0]
    assert r.neutral == pytest.approx(0.0)
    assert r.support + r.refute == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(InputError, match="does not have"):
        load_stance(f"hf:{d}", label_map={"entailment": "support"})
    with pytest.raises(InputError, match="support, neutral or refute"):
        load_stance(f"hf:{d}", label_map={"LABEL_0": "yes", "LABEL_1": "support", "LABEL_2": "support"})


def test_hf_two_label_model_puts_not_entailment_in_neutral(tmp_path):
    d = _tiny_hf_model(tmp_path / "m2", {0: "entailment", 1: "not_entailment"})
    r = load_stance(f"hf:{d}").predict([("a", "b")])[0]
    assert r.refute == pytest.approx(0.0)
    assert r.support + r.neutral == pytest.approx(1.0, abs=1e-5)


# ------------------------------------------------------------------------------------ LLM backend


def test_llm_backend_turns_label_and_confidence_into_probabilities():
    llm = CannedLLM({"stance": [{"label": "refute", "confidence": 0.9}, {"label": "support", "confidence": 0.6}]})
    m = load_stance("llm", llm=llm)
    assert isinstance(m, LLMStanceModel)
    r1, r2 = m.predict([("claim", "e1"), ("claim", "e2")])
    assert r1.label == Stance.REFUTE and r1.refute == pytest.approx(0.9) and r1.support == pytest.approx(0.05)
    assert r2.label == Stance.SUPPORT and r2.support == pytest.approx(0.6)
    assert [c[0] for c in llm.calls] == ["stance", "stance"]
    m.predict([("claim", "e1")])
    assert len(llm.calls) == 2  # cached


def test_llm_backend_failure_is_neutral_and_counted():
    m = load_stance("llm", llm=CannedLLM({"stance": [LLMError("bad json")]}))
    r = m.predict([("claim", "evidence")])[0]
    assert r.label == Stance.NEUTRAL and r.neutral == 1.0
    assert m.failures == 1


def test_stance_prompt_bench_inputs_and_bounds():
    from claimscope.prompts.stance import PROMPT, StanceInput, StanceOutput, bench_inputs

    inp = bench_inputs("Statins reduce the risk of dementia.")
    assert isinstance(inp, StanceInput) and "statins reduce" in inp.evidence
    assert "Statins reduce" in PROMPT.render(inp)
    with pytest.raises(ValueError, match="label"):
        StanceOutput(label="maybe", confidence=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        StanceOutput(label="support", confidence=1.5)


# --------------------------------------------------------------------------- document-level label


def test_document_label_support_contradict_nei():
    ks = KeywordStance()
    claim = "aspirin lowers stroke risk in adults"
    sup = ["Background sentence about hearts.", "Aspirin lowers stroke risk in adults over 60.", "Other words here."]
    d = document_label(claim, sup, ks)
    assert isinstance(d, DocumentLabel)
    assert d.label == "SUPPORT" and d.rationale_indices == [1] and d.confidence == pytest.approx(0.8)
    con = ["Aspirin did not lower stroke risk in adults.", "Unrelated methods text."]
    assert document_label(claim, con, ks).label == "CONTRADICT"
    nei = ["Completely different topic.", "Nothing on that here."]
    d3 = document_label(claim, nei, ks)
    assert d3.label == "NEI" and d3.rationale_indices == []
    assert document_label(claim, [], ks).label == "NEI"
    with pytest.raises(InputError):
        document_label("  ", sup, ks)


def test_document_label_threshold_and_passage_weight():
    class Fixed:
        def predict(self, pairs):
            out = []
            for _, e in pairs:
                if e.startswith("T."):  # the whole-abstract pair
                    out.append(StanceResult(label=Stance.REFUTE, support=0.0, neutral=0.1, refute=0.9))
                else:
                    out.append(StanceResult(label=Stance.SUPPORT, support=0.6, neutral=0.4, refute=0.0))
            return out

    sents = ["s1", "s2"]
    assert document_label("c", sents, Fixed(), title="T", rule={"threshold": 0.7}).label == "NEI"
    assert document_label("c", sents, Fixed(), title="T", rule={"threshold": 0.5}).label == "SUPPORT"
    d = document_label("c", sents, Fixed(), title="T", rule={"threshold": 0.5, "passage_weight": 1.0})
    assert d.label == "CONTRADICT" and d.refute == pytest.approx(0.9)


def test_tune_document_thresholds_finds_a_separating_rule():
    ks = KeywordStance()
    items = [
        {"claim": "aspirin lowers stroke risk", "sentences": ["aspirin lowers stroke risk"], "label": "SUPPORT"},
        {"claim": "aspirin lowers stroke risk", "sentences": ["aspirin not lowers stroke risk"], "label": "CONTRADICT"},
        {"claim": "aspirin lowers stroke risk", "sentences": ["something else entirely"], "label": "NEI"},
    ]
    rule, f1 = tune_document_thresholds(items, ks)
    assert f1 == pytest.approx(1.0)
    assert 0.1 <= rule["support_threshold"] <= 0.8 and 0.1 <= rule["refute_threshold"] <= 0.8


def test_fit_temperature_softens_overconfident_logits():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    logits = rng.normal(size=(600, 3))
    logits[np.arange(600), y] += 1.0
    t_good = fit_temperature(logits, y)
    t_over = fit_temperature(logits * 8, y)
    assert t_over > 4 * t_good
    with pytest.raises(InputError):
        fit_temperature(np.zeros((0, 3)), np.zeros(0))


# --------------------------------------------------------------------------------- packaged model


def test_missing_packaged_model_says_how_to_rebuild(tmp_path):
    with pytest.raises(ClaimscopeError, match="evals.train_stance"):
        load_stance("packaged", model_dir=tmp_path / "nothing")


def test_corrupt_packaged_model_says_how_to_rebuild(tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(PACKAGED_DIR, bad)
    (bad / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(ClaimscopeError, match="evals.train_stance"):
        load_stance("packaged", model_dir=bad)


def test_packaged_model_is_small_and_shipped():
    files = {p.name for p in PACKAGED_DIR.iterdir()}
    assert {"model.onnx", "tokenizer.json", "config.json", "stance_config.json", "MODEL_CARD.md"} <= files
    # The size budget of the evidence reader on disk: 150 MB.
    assert sum(p.stat().st_size for p in PACKAGED_DIR.iterdir()) <= 150 * 1000 * 1000


def test_packaged_graph_multiplies_in_fp32():
    # onnxruntime's int8 kernels for quantised activations differ by CPU (AVX2 without VNNI saturates
    # u8 x s8 products), so a graph that quantises activations labels the same pair differently on
    # different machines. The shipped graph keeps int8 weights only, dequantised before each MatMul.
    import onnx

    graph = onnx.load(str(PACKAGED_DIR / "model.onnx"), load_external_data=False).graph
    ops = {n.op_type for n in graph.node}
    assert not ops & {"QuantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul",
                      "MatMulIntegerToFloat", "QGemm"}, ops
    assert "DequantizeLinear" in ops  # the weights stay int8 on disk


# Raw logits (support, neutral, refute) of the trained checkpoint in fp32 (evals/checkpoints/stance
# exported without quantisation); the shipped graph must reproduce them on any CPU.
TRAINED_LOGITS = [
    (("Women with a lower birth weight are more likely to develop breast cancer later in life.",
      "Relative to women who weighed 3.0-3.5 kg at birth, the risk of breast cancer was 0.96 for those under "
      "2.5 kg and 1.12 for those over 4 kg."), (-0.50, -0.40, 0.88)),
    (("Women with a lower birth weight are more likely to develop breast cancer later in life.",
      "Women who weighed less than 2.5 kg at birth had a higher risk of breast cancer than women of normal "
      "birth weight."), (1.49, -0.84, -0.70)),
    (("Coffee consumption lowers the risk of type 2 diabetes.",
      "Higher coffee intake was associated with a lower risk of type 2 diabetes."), (0.92, -1.56, 0.57)),
    (("Vitamin D supplementation prevents fractures in older adults.",
      "Vitamin D supplementation did not reduce the incidence of fractures compared with placebo."),
     (-1.25, -0.10, 1.35)),
]


@pytest.fixture(scope="module")
def packaged() -> OnnxStanceModel:
    m = load_stance("packaged", threads=1)
    assert isinstance(m, OnnxStanceModel)
    return m


@pytest.mark.slow
def test_packaged_model_gets_obvious_pairs_right(packaged):
    pairs = [
        # unrelated evidence -> neutral
        ("Smoking increases the risk of lung cancer.", "The hospital car park was resurfaced in 2015."),
        ("Masks reduce COVID-19 transmission.", "The Eiffel tower is in Paris."),
        ("Vitamin D lowers blood pressure.", "Our software runs on Linux and Windows."),
        # explicit negation of the claimed effect -> refute
        ("Vitamin C supplementation prevents the common cold.",
         "Vitamin C supplementation did not reduce the incidence of colds in the general population."),
        ("Masks reduce COVID-19 transmission.", "Mask wearing had no effect on SARS-CoV-2 transmission."),
        # restatement -> support
        ("Aspirin reduces the risk of heart attack.",
         "Daily aspirin reduced the risk of myocardial infarction by 44% in healthy men."),
    ]
    labels = [r.label for r in packaged.predict(pairs)]
    assert labels == [Stance.NEUTRAL] * 3 + [Stance.REFUTE] * 2 + [Stance.SUPPORT]


@pytest.mark.slow
def test_packaged_model_reproduces_the_trained_checkpoint(packaged):
    got = packaged.logits([pair for pair, _ in TRAINED_LOGITS])
    want = np.array([w for _, w in TRAINED_LOGITS])
    assert (got.argmax(1) == want.argmax(1)).all(), got
    # int8 weights move a logit by up to about 0.2 from the checkpoint's
    assert np.abs(got - want).max() < 0.3, got


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known weakness of the shipped model: direction has to be composed "
                   "(lower mortality against 'increases mortality', reduced incidence for 'lowers the risk') "
                   "and a causal restatement is read as neutral; when this passes, the model improved -- "
                   "move these up")
def test_packaged_model_polarity_known_weakness(packaged):
    pairs = [
        ("Smoking increases the risk of lung cancer.",
         "Smoking was strongly associated with an increased risk of lung cancer (OR 9.1)."),
        ("Exercise increases mortality in older adults.",
         "Regular physical activity was associated with a substantially lower mortality in older adults."),
        ("Masks reduce COVID-19 transmission.", "Mask wearing reduced SARS-CoV-2 transmission by 50% in households."),
        ("Smoking increases the risk of lung cancer.", "Smoking causes lung cancer."),
        ("Aspirin lowers the risk of colorectal cancer.",
         "Aspirin use significantly reduced the incidence of colorectal cancer compared with placebo (HR 0.74)."),
    ]
    labels = [r.label for r in packaged.predict(pairs)]
    assert labels == [Stance.SUPPORT, Stance.REFUTE, Stance.SUPPORT, Stance.SUPPORT, Stance.SUPPORT]


@pytest.mark.slow
def test_packaged_model_label_does_not_depend_on_the_batch(packaged):
    # A sentence's label must not depend on which other sentences were scored with it: short and long
    # evidence mixed, scored together, one at a time and in another order (no cache: logits()).
    claim = "Aspirin lowers the risk of colorectal cancer."
    evidence = [
        "Aspirin use significantly reduced the incidence of colorectal cancer compared with placebo (HR 0.74).",
        "No.",
        "There was no significant difference in colorectal cancer incidence between the aspirin and placebo groups.",
        "We followed 2,000 adults for ten years in a randomised comparison of daily aspirin with placebo, with "
        "colonoscopy every three years and central review of all pathology reports by two blinded pathologists.",
        "Aspirin use significantly increased the incidence of colorectal cancer compared with placebo (HR 1.30).",
        "The hospital car park was resurfaced in 2015.",
    ] * 3
    pairs = [(claim, e) for e in evidence]
    size = packaged.batch_size
    try:
        packaged.batch_size = 64
        together = packaged.logits(pairs)
        reordered = packaged.logits(pairs[::-1])[::-1]
        packaged.batch_size = 1
        alone = packaged.logits(pairs)
    finally:
        packaged.batch_size = size
    assert (together.argmax(1) == alone.argmax(1)).all() and (reordered.argmax(1) == alone.argmax(1)).all()
    assert np.abs(together - alone).max() < 1e-3 and np.abs(reordered - alone).max() < 1e-3


@pytest.mark.slow
def test_packaged_model_probabilities_and_truncation(packaged):
    res = packaged.predict([("Masks reduce transmission.", "Masks reduce transmission. " * 3000), ("a", "b")])
    assert len(res) == 2
    for r in res:
        assert abs(r.support + r.neutral + r.refute - 1) < 1e-4
    assert 0.2 < packaged.temperature < 10


def _trial(finding: str, conclusion: str, topic: str) -> list[str]:
    """A short abstract in the usual shape: background, methods, the finding, the conclusion."""
    return [f"{topic} is a common question in prevention.",
            "We followed 2,000 adults for ten years in a randomised comparison.", finding, conclusion]


@pytest.mark.parametrize(("claim", "finding", "conclusion", "expected"), [
    pytest.param(
        "Aspirin lowers the risk of colorectal cancer.",
        "Aspirin use significantly reduced the incidence of colorectal cancer compared with placebo (HR 0.74).",
        "Daily aspirin lowers the risk of colorectal cancer.", {"SUPPORT"},
        marks=pytest.mark.xfail(strict=True, reason="known weakness of the shipped model: 'reduced the incidence' "
                                "is read against 'lowers the risk' (support 0.48, refute 0.65); see "
                                "test_packaged_model_polarity_known_weakness")),
    ("Statins increase the risk of diabetes.",
     "Statin therapy was associated with a significantly higher risk of incident diabetes (HR 1.28).",
     "Statin use increases the risk of diabetes.", {"SUPPORT"}),
    ("Statins increase the risk of diabetes.",
     "Statin therapy was associated with a significantly lower risk of incident diabetes (HR 0.80).",
     "Statin use does not increase the risk of diabetes.", {"CONTRADICT"}),
    # The shipped model abstains on these (its support / refute scores are close), but never reads
    # an increase or a null result as support for a lowering claim.
    ("Aspirin lowers the risk of colorectal cancer.",
     "Aspirin use significantly increased the incidence of colorectal cancer compared with placebo (HR 1.30).",
     "Daily aspirin raises the risk of colorectal cancer.", {"CONTRADICT", "NEI"}),
    ("Aspirin lowers the risk of colorectal cancer.",
     "There was no significant difference in colorectal cancer incidence between the aspirin and placebo groups.",
     "Daily aspirin does not lower the risk of colorectal cancer.", {"CONTRADICT", "NEI"}),
])
@pytest.mark.slow
def test_packaged_document_decision_reads_direction(packaged, claim, finding, conclusion, expected):
    topic = claim.split()[0]
    d = document_label(claim, _trial(finding, conclusion, topic), packaged, title=f"{topic}: a randomised trial")
    assert d.learned
    assert d.label in expected


@pytest.mark.slow
def test_packaged_document_decision_on_subject_off_relation_is_not_evidence(packaged):
    # About vitamin D, not about respiratory infection: the case that once made a confident verdict.
    sentences = ["Vitamin D supplementation was associated with significantly reduced mortality in elderly patients.",
                 "91.9% of cases had 25OHD serum levels below 30 ng/ml."]
    d = document_label("Vitamin D supplementation prevents respiratory infections.", sentences, packaged,
                       title="Vitamin D and mortality")
    assert d.label == "NEI"
    assert d.rationale_indices == []
