"""Shared by the investigation benchmarks: real services on a work directory, a corpus ingested
once, claims run one by one with their per-claim state kept for the metrics."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import Investigator
from claimscope.agent.services import Services
from claimscope.agent.settings import load_settings

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
# A second benchmark can run beside another with its own copy of the data directory (the embedded
# store admits one process at a time): CLAIMSCOPE_EVAL_WORK=evals/work/second.
WORK = Path(os.environ.get("CLAIMSCOPE_EVAL_WORK", REPO / "evals" / "work"))
RESULTS = REPO / "evals" / "results"


class ClaimRun(BaseModel):
    claim_id: str
    claim: str
    seconds: float
    state: dict[str, Any]
    error: str | None = None


def scifact_args(description: str, *, n: int, seed: int, out: Path) -> argparse.ArgumentParser:
    """The arguments the SciFact investigation benchmarks share."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--n", type=int, default=n, help="How many dev claims.")
    ap.add_argument("--seed", type=int, default=seed, help="Seed of the claim sample.")
    ap.add_argument("--depth", type=int, default=2, help="Aspect hierarchy depth.")
    ap.add_argument("--corpus", type=Path, default=SHARED / "scifact" / "corpus.jsonl")
    ap.add_argument("--claims", type=Path, default=SHARED / "scifact" / "claims_dev.jsonl")
    ap.add_argument("--reuse", action="store_true", help="Recompute the metrics from the last run's log.")
    ap.add_argument("--resume", action="store_true",
                    help="Keep the last run's log and run only the claims it does not have yet.")
    ap.add_argument("--out", type=Path, default=out)
    return ap


def services_for(work: Path = WORK, **overrides: Any) -> Services:
    settings = load_settings(data_dir=work / "data", **overrides)
    return Services(settings)


def ensure_corpus(services: Services, path: Path, name: str) -> None:
    """Ingest `path` as corpus `name`. Ingest is idempotent, so an interrupted ingest is completed
    and a complete one costs only the duplicate check."""
    from claimscope.tools.find.ingest import read_path

    t0 = time.perf_counter()
    stats = services.store.add_documents(read_path(path).documents, corpus=name)
    print(f"corpus {name!r}: {stats.added} added, {stats.skipped_duplicates} already there "
          f"({time.perf_counter() - t0:.0f}s)", flush=True)


def start_log(log: Path, resume: bool) -> set[str]:
    """Claim ids already in `log` when resuming (an interrupted benchmark goes on where it
    stopped); otherwise the log is emptied for a new run."""
    if resume and log.exists():
        return {r.claim_id for r in load_runs(log)}
    log.unlink(missing_ok=True)
    return set()


def run_claims(services: Services, claims: Iterable[tuple[str, str]], options: InvestigationOptions,
               log: Path | None = None, skip: set[str] | None = None) -> list[ClaimRun]:
    inv = Investigator(services, persistent=False)
    runs = []
    for claim_id, claim in claims:
        if skip and str(claim_id) in skip:
            continue
        t0 = time.perf_counter()
        err = None
        try:
            result = inv.run(claim, options, thread_id=f"eval-{claim_id}")
            state = inv.state(result.thread_id)
        except Exception as exc:  # a benchmark records a failing claim and goes on
            err = f"{type(exc).__name__}: {exc}"
            state = {}
        run = ClaimRun(claim_id=str(claim_id), claim=claim, seconds=time.perf_counter() - t0, state=state, error=err)
        runs.append(run)
        status = state.get("status", "error")
        print(f"[{len(runs)}] {claim_id} {status} {run.seconds:.0f}s {err or ''}", flush=True)
        if log is not None:
            with log.open("a") as fh:
                fh.write(run.model_dump_json() + "\n")
    return runs


def load_runs(log: Path) -> list[ClaimRun]:
    return [ClaimRun.model_validate_json(line) for line in log.read_text().splitlines() if line.strip()]


def median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 3) if xs else None


def _report_usage(state: dict[str, Any]) -> dict[str, Any] | None:
    """The usage the claim's report carries (its own investigation's calls only)."""
    usage = (state.get("report") or {}).get("usage")
    return usage if isinstance(usage, dict) and usage.get("calls") is not None else None


def tokens(state: dict[str, Any], prompts: set[str] | None = None) -> int:
    """Tokens of one claim's investigation: from its report, or per prompt from the state's per-step
    counts (which the report's figure is the sum of)."""
    reported = _report_usage(state) if prompts is None else None
    if reported is not None:
        return int((reported.get("prompt_tokens") or 0) + (reported.get("completion_tokens") or 0))
    usage = state.get("usage") or {}
    return int(sum(v.get("prompt_tokens", 0) + v.get("completion_tokens", 0)
                   for k, v in usage.items() if prompts is None or k in prompts))


def calls(state: dict[str, Any], prompts: set[str] | None = None) -> int:
    reported = _report_usage(state) if prompts is None else None
    if reported is not None:
        return int(reported.get("calls") or 0)
    usage = state.get("usage") or {}
    return int(sum(v.get("calls", 0) for k, v in usage.items() if prompts is None or k in prompts))


def code_version() -> str:
    """The commit the benchmark ran on ("+dirty" when the working tree had changes), so a results
    file says which code its figures belong to."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + ("+dirty" if dirty else "")


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    print(f"wrote {path}")
