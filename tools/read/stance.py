"""Stance of evidence toward a claim (support / neutral / refute), with three backends behind one
interface, a cache keyed by (model, claim, evidence), and document-level labels built from
sentence-level stances.

Backends (`load_stance(backend=...)`):
- "packaged": the int8 ONNX cross-encoder in tools/read/stance_model/, trained by
  `python -m evals.train_stance` (MiniLM-L6 + 3-way head, temperature-calibrated).
- "hf:<name or local path>": any Hugging Face sequence-classification NLI / cross-encoder model;
  its id2label is mapped to stances (entailment -> support, contradiction -> refute, neutral /
  not_entailment -> neutral) unless `label_map` says otherwise.
- "llm": the StructuredLLM passed in, with prompts/stance.py.
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from claimscope.prompts.stance import PROMPT, StanceInput
from claimscope.tools.errors import ClaimscopeError, InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import Stance, StanceResult, StanceScorer
from claimscope.tools.read.document_model import DocumentModel, decide, load_document_model

log = logging.getLogger(__name__)

PACKAGED_DIR = Path(__file__).resolve().parent / "stance_model"
# The argument model: the same kind of cross-encoder, trained on PERSPECTRUM debate claims by
# `python -m evals.train_argument` (support / argues past the claim / undermine).
ARGUMENT_DIR = Path(__file__).resolve().parent / "argument_model"
REBUILD_HINT = "Rebuild it from the repository root with `python -m evals.train_stance`."
# Column order of every probability / logit array in this module.
ORDER: tuple[Stance, Stance, Stance] = (Stance.SUPPORT, Stance.NEUTRAL, Stance.REFUTE)
# Characters kept per text before tokenising: far more than max_length tokens ever needs, and it
# keeps a pasted book from being tokenised in full.
CHARS_PER_TOKEN_BOUND = 12
CACHE_SIZE = 200_000

# Default document-level decision rule (overridden by the packaged model's tuned values).
DEFAULT_DOCUMENT_RULE = {"support_threshold": 0.5, "refute_threshold": 0.5, "passage_weight": 0.0,
                         "rationale_threshold": 0.5}


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _result(p: np.ndarray) -> StanceResult:
    return StanceResult(label=ORDER[int(np.argmax(p))], support=float(p[0]), neutral=float(p[1]),
                        refute=float(p[2]))


class StanceModel:
    """Batched, cached stance scorer; subclasses implement `_probs` for pairs not yet cached.

    Implements tools.models.StanceScorer.
    """

    name: str = "stance"

    def __init__(self, *, batch_size: int = 64, max_length: int = 256, cache_size: int = CACHE_SIZE) -> None:
        if batch_size < 1:
            raise InputError(f"stance batch_size must be >= 1, got {batch_size}.")
        if max_length < 16:
            raise InputError(f"stance max_length must be >= 16 tokens, got {max_length}.")
        self.batch_size = batch_size
        self.max_length = max_length
        self._cache: OrderedDict[tuple[str, str, str], StanceResult] = OrderedDict()
        self._cache_size = cache_size
        self.calls = 0  # backend batches actually run (cache hits do not count)

    def _clip(self, text: str) -> str:
        return " ".join(str(text).split())[: self.max_length * CHARS_PER_TOKEN_BOUND]

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        """One calibrated result per (claim, evidence) pair, in order. Empty input -> []."""
        if not pairs:
            return []
        clean: list[tuple[str, str]] = []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise InputError(f"stance pair {i} must be a (claim, evidence) tuple, got {pair!r:.80}.")
            clean.append((self._clip(pair[0]), self._clip(pair[1])))
        keys = [(self.name, c, e) for c, e in clean]
        found: dict[tuple[str, str, str], StanceResult] = {}
        for k in keys:
            if k in self._cache:
                self._cache.move_to_end(k)
                found[k] = self._cache[k]
        todo = list(dict.fromkeys(k for k in keys if k not in found))
        # Similar lengths share a batch: less padding, same results.
        todo.sort(key=lambda k: len(k[1]) + len(k[2]))
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start:start + self.batch_size]
            probs = self._probs([(c, e) for _, c, e in chunk])
            self.calls += 1
            for k, p in zip(chunk, probs, strict=True):
                found[k] = _result(p)
                self._put(k, found[k])
        return [found[k] for k in keys]

    def _put(self, key: tuple[str, str, str], value: StanceResult) -> None:
        self._cache[key] = value
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """(len(pairs), 3) probabilities in ORDER."""
        raise NotImplementedError


class OnnxStanceModel(StanceModel):
    """The packaged cross-encoder: int8 ONNX graph + tokenizer + temperature (stance_config.json)."""

    def __init__(self, model_dir: Path = PACKAGED_DIR, *, calibrated: bool = True, threads: int = 0,
                 **kw: Any) -> None:
        super().__init__(**kw)
        model_dir = Path(model_dir)
        onnx_path = model_dir / "model.onnx"
        if not onnx_path.is_file() or not (model_dir / "tokenizer.json").is_file():
            raise ClaimscopeError(f"The packaged stance model is missing from {model_dir}. {REBUILD_HINT}")
        try:
            import onnxruntime as ort
            from transformers import AutoTokenizer

            opts = ort.SessionOptions()
            if threads:
                opts.intra_op_num_threads = threads
            self._session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
            self._tok = AutoTokenizer.from_pretrained(str(model_dir))
            cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            id2label = {int(k): v for k, v in cfg["id2label"].items()}
            extra = model_dir / "stance_config.json"
            self.config: dict[str, Any] = json.loads(extra.read_text(encoding="utf-8")) if extra.is_file() else {}
        except ClaimscopeError:
            raise
        except Exception as exc:  # a truncated / corrupt file surfaces as many different errors
            raise ClaimscopeError(
                f"The packaged stance model in {model_dir} could not be loaded ({type(exc).__name__}: "
                f"{str(exc)[:200]}). {REBUILD_HINT}"
            ) from exc
        self._cols = [id2label[i] for i in range(len(id2label))]
        if sorted(self._cols) != sorted(s.value for s in ORDER):
            raise ClaimscopeError(f"{model_dir}/config.json has labels {self._cols}, expected "
                                  f"support/neutral/refute. {REBUILD_HINT}")
        self._perm = [self._cols.index(s.value) for s in ORDER]
        self.temperature = float(self.config.get("temperature", 1.0)) if calibrated else 1.0
        self.name = f"packaged:{model_dir}:{self.temperature:.4f}"
        self._inputs = {i.name for i in self._session.get_inputs()}

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw (uncalibrated) logits in ORDER, uncached; used for calibration and benchmarks."""
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        clipped = [(self._clip(c), self._clip(e)) for c, e in pairs]
        # Score in order of length so a batch pads to similar lengths (several times faster on mixed
        # sentence / abstract input), then put the rows back in input order.
        order = sorted(range(len(clipped)), key=lambda i: len(clipped[i][0]) + len(clipped[i][1]))
        out = np.zeros((len(clipped), 3), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            enc = self._tok([clipped[i][0] for i in idx], [clipped[i][1] for i in idx], truncation="longest_first",
                            max_length=self.max_length, padding=True, return_tensors="np")
            feed = {k: v.astype(np.int64) for k, v in enc.items() if k in self._inputs}
            out[idx] = self._session.run(["logits"], feed)[0][:, self._perm]
        return out

    def _probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        return _softmax(self.logits(pairs) / self.temperature)


def default_label_map(id2label: dict[int, str]) -> dict[str, Stance]:
    """Map an NLI / stance model's labels to stances by their names, or raise InputError."""
    out: dict[str, Stance] = {}
    for name in id2label.values():
        n = name.lower().replace("-", "_")
        if n.startswith("not_") or n.startswith("non_") or "neutral" in n or n in ("nei", "not_enough_info", "notenoughinfo"):
            out[name] = Stance.NEUTRAL
        elif "entail" in n or "support" in n or n in ("true", "agree"):
            out[name] = Stance.SUPPORT
        elif "contradict" in n or "refut" in n or n in ("false", "disagree"):
            out[name] = Stance.REFUTE
    return out


class HFStanceModel(StanceModel):
    """Any Hugging Face sequence-classification model (NLI or cross-encoder), by name or path."""

    def __init__(self, name_or_path: str, *, label_map: Mapping[str, str] | None = None, threads: int = 0,
                 **kw: Any) -> None:
        super().__init__(**kw)
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            self._tok = AutoTokenizer.from_pretrained(name_or_path)
            self._model = AutoModelForSequenceClassification.from_pretrained(name_or_path).eval()
        except Exception as exc:
            raise InputError(
                f"Could not load the stance model {name_or_path!r} ({type(exc).__name__}: {str(exc)[:200]}). "
                "Give a local directory or a model name available offline (HF_HUB_OFFLINE is honoured), "
                "or set stance.backend to 'packaged'."
            ) from exc
        if threads:
            torch.set_num_threads(threads)
        self._torch = torch
        id2label = {int(k): str(v) for k, v in self._model.config.id2label.items()}
        if len(id2label) < 2:
            raise InputError(f"{name_or_path!r} has a single output (a relevance cross-encoder?); a stance "
                             "backend needs a classifier with entailment/contradiction-style labels.")
        mapping = default_label_map(id2label)
        if label_map:
            unknown = set(label_map) - set(id2label.values())
            if unknown:
                raise InputError(f"stance.label_map names labels {sorted(unknown)} that {name_or_path!r} does "
                                 f"not have; its labels are {sorted(id2label.values())}.")
            try:
                mapping.update({k: Stance(v) for k, v in label_map.items()})
            except ValueError as exc:
                raise InputError(f"stance.label_map values must be support, neutral or refute: {exc}.") from exc
        missing = [v for v in id2label.values() if v not in mapping]
        if missing:
            raise InputError(
                f"{name_or_path!r} has labels {sorted(id2label.values())}; cannot tell the stance of "
                f"{missing}. Set stance.label_map, e.g. {{{missing[0]!r}: 'support'}}."
            )
        # (n_labels, 3) matrix that sums each model label's probability into its stance column.
        self._mix = np.zeros((len(id2label), 3), dtype=np.float32)
        for i, lab in id2label.items():
            self._mix[i, ORDER.index(mapping[lab])] = 1.0
        self.label_map = {k: v.value for k, v in mapping.items()}
        self.name = f"hf:{name_or_path}:{sorted(self.label_map.items())}"

    def _probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        enc = self._tok([c for c, _ in pairs], [e for _, e in pairs], truncation="longest_first",
                        max_length=self.max_length, padding=True, return_tensors="pt")
        with self._torch.inference_mode():
            logits = self._model(**enc).logits.float().numpy()
        p = _softmax(logits) @ self._mix
        # A stance column no label maps to stays 0; renormalise in case of numeric drift.
        return p / p.sum(axis=1, keepdims=True)


class LLMStanceModel(StanceModel):
    """Stance from the LLM (prompts/stance.py). A failed call yields a neutral result (and is
    counted in `failures`) so one bad answer does not sink a whole batch."""

    def __init__(self, llm: StructuredLLM, **kw: Any) -> None:
        super().__init__(**kw)
        self._llm = llm
        self.failures = 0
        self.name = f"llm:{type(llm).__name__}:{id(llm)}"

    def _probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        limit = self.max_length * 6  # characters: a rough token budget for the prompt
        for i, (claim, ev) in enumerate(pairs):
            try:
                ans = self._llm.run(PROMPT, StanceInput(claim=claim[:limit], evidence=ev[:limit]))
            except LLMError as exc:
                log.warning("stance LLM call failed, scoring the pair neutral: %s", exc)
                self.failures += 1
                out[i] = (0.0, 1.0, 0.0)
                continue
            conf = min(max(float(ans.confidence), 1 / 3), 1.0)
            col = ORDER.index(Stance(ans.label))
            out[i] = (1.0 - conf) / 2
            out[i, col] = conf
        return out


def load_stance(backend: str = "packaged", *, label_map: Mapping[str, str] | None = None, batch_size: int = 64,
                max_length: int = 256, llm: StructuredLLM | None = None, model_dir: Path | None = None,
                calibrated: bool = True, threads: int = 0) -> StanceModel:
    """A stance scorer for `backend`: "packaged" (default), "hf:<name or path>" or "llm"."""
    kw: dict[str, Any] = {"batch_size": batch_size, "max_length": max_length}
    backend = (backend or "").strip()
    if backend == "packaged":
        return OnnxStanceModel(model_dir or PACKAGED_DIR, calibrated=calibrated, threads=threads, **kw)
    if backend.startswith("hf:") and backend[3:].strip():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return HFStanceModel(backend[3:].strip(), label_map=label_map, threads=threads, **kw)
    if backend == "llm":
        if llm is None:
            raise InputError("stance backend 'llm' needs an LLM; pass llm=... or choose stance.backend 'packaged'.")
        return LLMStanceModel(llm, **kw)
    raise InputError(f"unknown stance backend {backend!r}; use 'packaged', 'hf:<model name or path>' or 'llm'.")


def load_argument_model(*, batch_size: int = 64, max_length: int = 128, threads: int = 0,
                        model_dir: Path | None = None) -> StanceModel:
    """The argument model for debate claims (ARGUMENT_DIR): neutral means "argues past the claim"."""
    return OnnxStanceModel(model_dir or ARGUMENT_DIR, batch_size=batch_size, max_length=max_length, threads=threads)


# ------------------------------------------------------------------------- document-level labels


DocLabelName = Literal["SUPPORT", "CONTRADICT", "NEI"]


class DocumentLabel(BaseModel):
    """SciFact-style label of a whole abstract toward a claim, with the sentences it rests on."""

    label: DocLabelName
    confidence: float = Field(ge=0, le=1, description="Probability-like strength of the label.")
    rationale_indices: list[int] = Field(default_factory=list, description="0-based sentences behind the label.")
    support: float = Field(0.0, description="Combined support score the decision used.")
    refute: float = Field(0.0, description="Combined refute score the decision used.")
    coverage: float | None = Field(None, description="How far the abstract covers the weaker end of the claim's "
                                   "relation (tools.read.coverage); None when the threshold rule decided.")
    learned: bool = Field(False, description="True when the learned document model decided.")


def document_rule(scorer: StanceScorer) -> dict[str, float]:
    """The decision rule tuned for `scorer` (packaged model), else DEFAULT_DOCUMENT_RULE."""
    cfg = getattr(scorer, "config", None) or {}
    return {**DEFAULT_DOCUMENT_RULE, **cfg.get("document", {})}


def _doc_scores(sent: list[StanceResult], passage: StanceResult | None, w: float) -> tuple[float, float]:
    s = max(r.support for r in sent)
    r = max(r.refute for r in sent)
    if passage is not None and w > 0:
        s = (1 - w) * s + w * passage.support
        r = (1 - w) * r + w * passage.refute
    return s, r


def _label(s: float, r: float, rule: dict[str, float]) -> DocLabelName:
    ms, mr = s - rule["support_threshold"], r - rule["refute_threshold"]
    if ms < 0 and mr < 0:
        return "NEI"
    return "SUPPORT" if ms >= mr else "CONTRADICT"


def document_model_of(scorer: StanceScorer) -> DocumentModel | None:
    """The learned document decision shipped with `scorer` (packaged model), else None."""
    return load_document_model(getattr(scorer, "config", None))


def decide_document(sent: Sequence[StanceResult], rule: dict[str, float], *, claim: str | None = None,
                    sentences: Sequence[str] | None = None, title: str = "",
                    model: DocumentModel | None = None) -> DocumentLabel:
    """The document label for these per-sentence stances (no passage score): what document_label
    decides once its sentences are scored, for callers that already hold them. With `model` (and
    the claim and sentence texts it needs) the learned decision (tools.read.document_model) is used;
    otherwise the thresholds of `rule`."""
    if not sent:
        return DocumentLabel(label="NEI", confidence=1.0)
    rule = {**DEFAULT_DOCUMENT_RULE, **_expand(rule)}
    if model is not None and claim and sentences is not None:
        label, conf, idx, ev = decide(model, claim, sentences, sent, title=title,
                                      rationale_threshold=rule["rationale_threshold"])
        return DocumentLabel(label=label, confidence=round(conf, 6), rationale_indices=idx,  # type: ignore[arg-type]
                             support=ev.features["support_max"], refute=ev.features["refute_max"],
                             coverage=round(ev.coverage_both, 6), learned=True)
    return _decide(*_doc_scores(list(sent), None, 0.0), list(sent), rule)


def _decide(s: float, r: float, sent: list[StanceResult], rule: dict[str, float]) -> DocumentLabel:
    label = _label(s, r, rule)
    if label == "NEI":
        return DocumentLabel(label="NEI", confidence=round(1 - max(s, r), 6), support=s, refute=r)
    stance = Stance.SUPPORT if label == "SUPPORT" else Stance.REFUTE
    col = [getattr(x, stance.value) for x in sent]
    best = int(np.argmax(col))
    idx = sorted({best} | {i for i, v in enumerate(col) if v >= rule["rationale_threshold"]})
    return DocumentLabel(label=label, confidence=round(max(s, r), 6), rationale_indices=idx, support=s, refute=r)


def _expand(rule: dict[str, float]) -> dict[str, float]:
    """`threshold` is shorthand for equal support and refute thresholds."""
    rule = dict(rule)
    if "threshold" in rule:
        t = rule.pop("threshold")
        rule.setdefault("support_threshold", t)
        rule.setdefault("refute_threshold", t)
    return rule


def document_label(claim: str, sentences: Sequence[str], scorer: StanceScorer, *, title: str = "",
                   rule: dict[str, float] | None = None, use_model: bool = True) -> DocumentLabel:
    """Label an abstract toward a claim from its sentences' stances.

    When the scorer ships a learned document model (tools.read.document_model) and `use_model` is True,
    that model decides. Otherwise the threshold rule: the abstract supports (contradicts) the claim when its strongest support (refute) score --
    the best sentence, optionally mixed with the whole-abstract pair by `passage_weight` -- passes
    `support_threshold` (`refute_threshold`), by a larger margin than the other; otherwise NEI. Rationales are the sentences whose own score
    for the winning stance passes `rationale_threshold` (at least the best one).
    """
    if not claim or not claim.strip():
        raise InputError("document_label needs a non-empty claim.")
    sents = [s for s in sentences]
    if not sents:
        return DocumentLabel(label="NEI", confidence=1.0)
    rule = {**document_rule(scorer), **_expand(rule or {})}
    model = document_model_of(scorer) if use_model else None
    if model is not None:
        return decide_document(scorer.predict([(claim, s) for s in sents]), rule, claim=claim, sentences=sents,
                               title=title, model=model)
    w = float(rule["passage_weight"])
    pairs = [(claim, s) for s in sents]
    if w > 0:
        pairs.append((claim, ((title.strip() + ". ") if title.strip() else "") + " ".join(sents)))
    res = scorer.predict(pairs)
    sent, passage = res[: len(sents)], (res[-1] if w > 0 else None)
    return _decide(*_doc_scores(sent, passage, w), sent, rule)


# -------------------------------------------------------------------- calibration / tuning helpers


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """Temperature T minimising the NLL of softmax(logits / T) (Guo et al. 2017)."""
    logits = np.asarray(logits, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if len(logits) == 0:
        raise InputError("fit_temperature needs at least one example.")

    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        return float(-(z[np.arange(len(z)), labels] - np.log(np.exp(z).sum(axis=1))).mean())

    grid = np.exp(np.linspace(np.log(0.05), np.log(20.0), 400))
    return float(grid[int(np.argmin([nll(t) for t in grid]))])


def _macro_f1(y: Sequence[str], p: Sequence[str], classes: Iterable[str]) -> float:
    f1s = []
    for c in classes:
        tp = sum(1 for a, b in zip(y, p, strict=True) if a == c and b == c)
        fp = sum(1 for a, b in zip(y, p, strict=True) if a != c and b == c)
        fn = sum(1 for a, b in zip(y, p, strict=True) if a == c and b != c)
        f1s.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f1s))


def tune_document_thresholds(items: Sequence[dict[str, Any]], scorer: StanceScorer) -> tuple[dict[str, float], float]:
    """Grid-search the document rule on labelled (claim, sentences, label) items -- held-out TRAIN
    claims only. Returns the best rule and its macro-F1 on `items`."""
    if not items:
        raise InputError("tune_document_thresholds needs labelled items.")
    cached = []
    for it in items:
        res = scorer.predict([(it["claim"], s) for s in it["sentences"]]
                             + [(it["claim"], (it.get("title", "") + ". " + " ".join(it["sentences"])).strip())])
        cached.append((res[:-1], res[-1]))
    y = [it["label"] for it in items]
    best: tuple[float, dict[str, float]] = (-1.0, dict(DEFAULT_DOCUMENT_RULE))
    grid = [round(float(t), 3) for t in np.arange(0.10, 0.951, 0.05)]
    for w in (0.0, 0.25, 0.5, 0.75, 1.0):
        scores = [_doc_scores(sent, passage, w) for sent, passage in cached]
        for ts in grid:
            for tr in grid:
                rule = {"support_threshold": ts, "refute_threshold": tr, "passage_weight": w,
                        "rationale_threshold": 0.5}
                pred = [_label(s, r, rule) for s, r in scores]
                f1 = _macro_f1(y, pred, ("SUPPORT", "CONTRADICT", "NEI"))
                if f1 > best[0] + 1e-9:
                    best = (f1, rule)
    return best[1], best[0]
