"""Training variants of the stance model side by side -> evals/results/stance_variants.json.

    python -m evals.stance_variants --variant shipped=tools/read/stance_model --variant swap=DIR [...]

A variant is a model folder built by `evals.train_stance` (train -> export -> calib, each with its
own `--ckpt` / `--out-dir`). For each one this records:
- what a choice between variants may rest on, all carved out of TRAIN data: the selection-slice
  and calibration-slice macro-F1 and the held-out SciFact TRAIN abstract-level macro-F1 (thresholds
  tuned on those items) from the folder's train_info.json, plus the held-out SciFact TRAIN
  sentence-level macro-F1 (every sentence of the held-out claims' cited abstracts) measured here;
- the evaluation figures of `evals.stance` (SciFact dev abstract / sentence, HealthVer test,
  Check-COVID test), reported and never used to choose;
- the commands that rebuild the variant (from its train_info.json stages).
Entries are merged by name, so variants can be added one run at a time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from evals.stance import DATA, _pairs_eval, check_covid_test, healthver_test, scifact_dev

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "evals" / "results" / "stance_variants.json"


def heldout_sentence_pairs() -> tuple[list[tuple[str, str]], list[str], int]:
    """(pairs, gold, abstracts): every sentence of the held-out SciFact TRAIN claims' cited
    abstracts, rationale sentences labelled by their set's label, every other sentence neutral."""
    from evals.train_stance import SEED, build_data

    _, items = build_data(SEED)
    held = [d for d in items if d["split"] in ("select", "calib")]
    pairs, gold = [], []
    for it in held:
        rat = set(it["rationales"])
        for i, s in enumerate(it["sentences"]):
            pairs.append((it["claim"], s))
            gold.append(("support" if it["label"] == "SUPPORT" else "refute") if i in rat else "neutral")
    return pairs, gold, len(held)


def variant(name: str, folder: Path, heldout: tuple[list[tuple[str, str]], list[str], int]) -> dict:
    from claimscope.tools.read.stance import load_stance
    from evals.train_stance import _stage_flags

    info = json.loads((folder / "train_info.json").read_text())
    scorer = load_stance("packaged", model_dir=folder)
    t0 = time.time()
    sentence, abstract = scifact_dev(scorer)
    stages = info.get("stages") or [{"steps": info["steps"], "args": info["args"]}]
    rebuild = []
    for st in stages:
        if st["args"].get("save_last"):
            # a candidate stage continues a copy of the checkpoint the stages before it built
            rebuild.append(f"cp -r evals/work/stance/best {st['args']['ckpt']}")
        rebuild.append(f"python -m evals.train_stance --phase train --max-steps {st['steps']}" + _stage_flags(st["args"]))
    if stages[-1]["args"].get("save_last"):
        ck = stages[-1]["args"]["ckpt"]
        rebuild.append(f"python -m evals.train_stance --phase export --ckpt {ck} --out-dir {folder} && "
                       f"python -m evals.train_stance --phase calib --ckpt {ck} --out-dir {folder}")
    return {
        "folder": str(folder),
        "rebuild": rebuild,
        "train_pairs_by_source": info.get("train_by_source"),
        "heldout_train": {
            "selection_slice_macro_f1": round(info["selection_macro_f1"], 4),
            "calibration_slice_macro_f1": round(info["calibration_slice_macro_f1"], 4),
            "scifact_abstract_macro_f1_tuned": round(info["heldout_scifact_train_abstract_macro_f1"], 4),
            "scifact_sentence": _pairs_eval(scorer, heldout[0], heldout[1]) | {"abstracts": heldout[2]},
        },
        "evaluation": {
            "scifact_dev_abstract": abstract,
            "scifact_dev_sentence": sentence,
            "healthver_test": healthver_test(scorer),
            "check_covid_test": check_covid_test(scorer),
        },
        "seconds": round(time.time() - t0, 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", action="append", required=True, metavar="NAME=DIR",
                    help="a name and the model folder (with train_info.json and stance_config.json)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        raise SystemExit(f"shared data not found at {DATA}; set CLAIMSCOPE_SHARED_DATA")
    out = json.loads(args.out.read_text()) if args.out.is_file() else {"variants": {}}
    heldout = heldout_sentence_pairs()
    for spec in args.variant:
        name, sep, folder = spec.partition("=")
        if not sep or not (Path(folder) / "train_info.json").is_file():
            raise SystemExit(f"--variant wants NAME=DIR with DIR a built model folder, got {spec!r}")
        v = variant(name, Path(folder), heldout)
        out["variants"][name] = v
        h, e = v["heldout_train"], v["evaluation"]
        print(f"{name:12s} held-out train: select {h['selection_slice_macro_f1']:.3f} calib "
              f"{h['calibration_slice_macro_f1']:.3f} sf-abs {h['scifact_abstract_macro_f1_tuned']:.3f} "
              f"sf-sent {h['scifact_sentence']['macro_f1']:.3f} | dev abs {e['scifact_dev_abstract']['macro_f1']:.3f} "
              f"sent {e['scifact_dev_sentence']['macro_f1']:.3f} hv {e['healthver_test']['macro_f1']:.3f} "
              f"cc {e['check_covid_test']['macro_f1']:.3f}", flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
