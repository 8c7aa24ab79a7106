"""The training-data augmentations and bookkeeping of evals.train_stance (pure functions, no data)."""

import argparse
import json
import random
from pathlib import Path

from evals.train_stance import NEU, REF, SUP, _args_json, swap_direction, swap_pairs


def test_swap_direction_swaps_the_first_direction_word_keeping_case_and_punctuation():
    assert swap_direction("Exercise increases insulin sensitivity.") == "Exercise decreases insulin sensitivity."
    assert swap_direction("Higher BMI predicts mortality") == "Lower BMI predicts mortality"
    assert swap_direction("Statins reduced LDL, and raised HDL.") == "Statins increased LDL, and raised HDL."


def test_swap_direction_leaves_negated_or_directionless_claims_alone():
    assert swap_direction("Aspirin does not increase bleeding.") is None
    assert swap_direction("Smoking isn't reducing lifespan.") is None
    assert swap_direction("Vitamin D is associated with bone density.") is None


def test_swap_pairs_exchange_support_and_refute_and_keep_neutral():
    ex = [("A increases B.", "e1", SUP, "healthver"), ("A increases B.", "e2", REF, "healthver"),
          ("A increases B.", "e3", NEU, "healthver"), ("A is linked to B.", "e4", SUP, "healthver"),
          ("A decreases B.", "e5", REF, "scifact_neg")]
    out = swap_pairs(ex, 1.0, random.Random(0))
    assert out == [("A decreases B.", "e1", REF, "swap_aug"), ("A decreases B.", "e2", SUP, "swap_aug"),
                   ("A decreases B.", "e3", NEU, "swap_aug")]


def test_swap_pairs_never_duplicates_an_existing_pair():
    ex = [("A increases B.", "e1", SUP, "healthver"), ("A decreases B.", "e1", REF, "healthver")]
    # each pair's swap is already the other pair (with the other label): nothing is added
    assert swap_pairs(ex, 1.0, random.Random(0)) == []


def test_run_arguments_are_stored_as_json_values():
    args = argparse.Namespace(lr=3e-5, ckpt=Path("/tmp/x"), sources="")
    assert json.loads(json.dumps(_args_json(args))) == {"lr": 3e-5, "ckpt": "/tmp/x", "sources": ""}


def test_a_candidate_stage_replays_into_its_own_folder():
    from evals.train_stance import _stage_flags

    base = {"epochs": 1, "lr": 3e-5, "train_layers": 6, "threads": 2, "batch_size": 32, "max_length": 128,
            "cap": 1200, "negation_share": 0.0, "swap_share": 1.0, "sources": "", "resume": True}
    assert _stage_flags(base) == " --lr 3e-05 --train-layers 6 --threads 2 --swap-share 1.0 --resume"
    cand = base | {"save_last": True, "ckpt": "evals/work/stance/e2"}
    assert _stage_flags(cand).endswith(" --resume --ckpt evals/work/stance/e2 --save-last")


def test_a_build_trained_from_a_dump_replays_the_dump_first(tmp_path):
    import json

    from evals.train_stance import _dump_command, _dump_recipe, _stage_flags

    data = tmp_path / "data.jsonl.gz"
    data.with_suffix(".recipe.json").write_text(json.dumps({"seed": 13, "negation_share": 0.3, "swap_share": 0.5}))
    args = {"data_file": str(data), "exclude_sources": "", "lr": 4e-05}
    info = {"args": args, "data_dump": _dump_recipe(data)}
    assert _dump_command(info) == [f"python -m evals.train_stance --phase dump --data-file {data} --seed 13 "
                                   "--negation-share 0.3 --swap-share 0.5"]
    # an empty value still reaches the shell as one argument, and the dump is what the stage reads
    assert _stage_flags(args) == f' --lr 4e-05 --exclude-sources "" --data-file {data}'
    assert _dump_command({"args": {"lr": 4e-05}}) == []
