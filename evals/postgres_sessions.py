"""Shared sessions in PostgreSQL: two OS processes, one database, concurrent investigations.

    python -m evals.postgres_sessions [--investigations 10] [--processes 2] [--write]

Starts a throwaway PostgreSQL server (tests/postgres_server.py; needs PostgreSQL's server
programs, see there) and `--processes` worker processes whose settings share one `sessions.url`.
Each worker runs its share of the investigations at once (RunManager, one worker thread each) on
the graph tests' offline fixture (tests/investigation_fixtures.py: the fixture corpus in an
embedded store of its own, the hashing embedder, the keyword stance fake, the scripted model), the
claims differing per investigation. Then every worker waits until it sees all of them finished in
the shared session index, and reports what it sees.

Checked: every investigation completes (`completed`), none is missing from any worker's listing
(`lost`), every report is about its own session's claim and every event log is numbered 1..n
(`cross_talk` counts those that are not), and every worker lists all of them
(`all_listed_by_every_process`). Timings (wall clock, per investigation) depend on the machine's
load, reported with it.

`measure()` returns the figures (evals/store_scale.py files them under `postgres_sessions`), or
{"skipped": reason} where no PostgreSQL server can start; `--write` also writes
evals/results/postgres_sessions.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "evals" / "results" / "postgres_sessions.json"
TOPICS = ["respiratory infections", "acute respiratory infections in adults", "colds in children",
          "upper respiratory tract infections", "influenza in the elderly", "pneumonia in care homes",
          "bronchitis in smokers", "tuberculosis in contacts", "sinusitis in adults", "otitis in infants",
          "croup in toddlers", "asthma attacks in teenagers"]
CHILD_TIMEOUT_S = 600


def claim_for(i: int) -> str:
    """A different claim per investigation (the scripted model answers every one alike)."""
    topic = TOPICS[i % len(TOPICS)]
    return f"Vitamin D supplementation prevents {topic}" + (f" (cohort {i // len(TOPICS) + 1})" if i >= len(TOPICS) else "")


def options() -> Any:
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=2, top_documents=3)


# ------------------------------------------------------------------------------------ worker side


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """One worker process: start `spec["sessions"]` ({id: claim}) at once on the shared database,
    wait for them, then until all of `spec["expect"]` are finished (also those of other workers),
    and describe what it sees."""
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.runs import RunManager
    from tests.investigation_fixtures import make_services

    work = Path(spec["work"])
    services = make_services(work, sessions={"url": spec["url"]})
    manager = RunManager(Investigator(services), max_workers=max(1, len(spec["sessions"])))
    started: dict[str, float] = {}
    t0 = time.perf_counter()
    for sid, claim in spec["sessions"].items():
        started[sid] = time.perf_counter()
        manager.start(claim, options(), session_id=sid)
    seconds = {}
    for sid in spec["sessions"]:
        info = manager.wait(sid, timeout=CHILD_TIMEOUT_S)
        seconds[sid] = time.perf_counter() - started[sid]
        assert not info.active, f"{sid} still running"
    own_s = time.perf_counter() - t0
    expect = set(spec.get("expect") or spec["sessions"])
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while True:
        listed = {i.session_id: i for i in manager.list()}
        if all(s in listed and not listed[s].active and listed[s].has_report for s in expect):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    seen = {}
    for sid, info in listed.items():
        report = manager.result(sid).report or {} if info.has_report else {}
        seqs = [e.seq for e in manager.events(sid)]
        seen[sid] = {"status": info.status, "claim": info.claim, "report_claim": report.get("claim"),
                     "events": len(seqs), "events_in_order": seqs == list(range(1, len(seqs) + 1))}
    manager.shutdown()
    return {"pid": os.getpid(), "own": sorted(spec["sessions"]), "seconds": seconds, "own_wall_s": own_s,
            "seen": seen}


def run_worker(spec: dict[str, Any]) -> subprocess.Popen[str]:
    """Start `worker(spec)` in a new Python process; its JSON answer is written to spec["out"]."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "evals.postgres_sessions", "--worker", json.dumps(spec)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_worker(proc: subprocess.Popen[str], spec: dict[str, Any]) -> dict[str, Any]:
    _, stderr = proc.communicate(timeout=CHILD_TIMEOUT_S * 2)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {spec['work']} failed ({proc.returncode}):\n{stderr[-3000:]}")
    return json.loads(Path(spec["out"]).read_text())


# ------------------------------------------------------------------------------------ parent side


def measure(investigations: int = 10, processes: int = 2) -> dict[str, Any]:
    """Figures of `investigations` concurrent investigations over `processes` processes sharing one
    PostgreSQL sessions database (see the module docstring); {"skipped": reason} where no
    PostgreSQL server can be started here."""
    from tests.postgres_server import PostgresUnavailable, start_postgres

    try:
        server = start_postgres()
    except PostgresUnavailable as exc:
        return {"skipped": str(exc)}
    root = Path(tempfile.mkdtemp(prefix="claimscope-pg-eval-"))
    try:
        url = server.create_database("claimscope")
        claims = {f"pg{i:02d}": claim_for(i) for i in range(investigations)}
        ids = list(claims)
        specs = []
        for p in range(processes):
            own = {sid: claims[sid] for sid in ids[p::processes]}
            specs.append({"url": url, "work": str(root / f"w{p}"), "out": str(root / f"w{p}.json"),
                          "sessions": own, "expect": ids})
        t0 = time.perf_counter()
        procs = [run_worker(s) for s in specs]
        answers = [finish_worker(p, s) for p, s in zip(procs, specs, strict=True)]
        wall = time.perf_counter() - t0
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    per_inv = [s for a in answers for s in a["seconds"].values()]
    completed = sum(1 for a in answers for sid in a["own"] if a["seen"].get(sid, {}).get("status") == "complete")
    lost = sum(1 for a in answers for sid in ids if sid not in a["seen"])
    cross = sum(1 for a in answers for sid in ids if sid in a["seen"] and (
        a["seen"][sid]["report_claim"] != claims[sid] or a["seen"][sid]["claim"] != claims[sid]
        or not a["seen"][sid]["events_in_order"]))
    extra = sum(1 for a in answers for sid in a["seen"] if sid not in claims)
    return {
        "processes": processes, "investigations": investigations, "completed": completed, "lost": lost,
        "cross_talk": cross, "unexpected_sessions": extra,
        "all_listed_by_every_process": all(set(ids) <= set(a["seen"]) for a in answers),
        "distinct_pids": len({a["pid"] for a in answers}),
        "wall_s": round(wall, 2),
        "per_investigation_s": {"median": round(statistics.median(per_inv), 2), "max": round(max(per_inv), 2),
                                "min": round(min(per_inv), 2)} if per_inv else {},
        "events_per_investigation": sorted({a["seen"][sid]["events"] for a in answers for sid in a["own"]}),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--investigations", type=int, default=10)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--write", action="store_true", help=f"also write {RESULTS.relative_to(REPO)}")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        spec = json.loads(args.worker)
        Path(spec["out"]).write_text(json.dumps(worker(spec)))
        return
    figures = measure(args.investigations, args.processes)
    print(json.dumps(figures, indent=2))
    if "skipped" in figures:
        raise SystemExit(1)
    if args.write:
        RESULTS.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
