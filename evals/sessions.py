"""Sessions benchmark: kill / resume, and concurrent MCP sessions over loopback HTTP.

    python -m evals.sessions [--runs 20] [--mcp-sessions 10] [--seed 7]

Offline and deterministic, on the graph tests' fixture (tests/investigation_fixtures.py): the
fixture corpus in a real Qdrant-local evidence store, the hashing embedder, the keyword stance fake
and the scripted model behind the real LLM gateway.

Kill / resume. For each of `--runs` investigations (options drawn from a seeded RNG; some guided,
answered with scripted decisions):
  1. a reference run, uninterrupted, in a subprocess;
  2. the same run in a subprocess that SIGKILLs itself at a random progress event (chosen
     uniformly among the reference run's events), logging every event (fsync'd) before it;
  3. a fresh subprocess resumes the session from the SQLite checkpointer (answering the remaining
     review decisions) and writes the final report.
`lost_steps` counts steps (review decisions included) that had finished before the kill, i.e.
the run had moved past them, but were missing from the checkpoint or were executed again after
resume; the step in flight at the kill is expected to run again and is reported separately
(`in_flight_reruns`). `result_mismatches` counts resumed runs whose final report differs from the
reference run's (ignoring timings, LLM usage and the creation time).

MCP. A subprocess serves the MCP server over streamable HTTP on 127.0.0.1; `--mcp-sessions`
clients connect concurrently, each starts an investigation and follows it with get_status
(wait_seconds, progress notifications) until it ends, then fetches the JSON report. A session
counts as completed when its status is complete, its report is valid, and the progress events it
received are numbered 1..n without gap, repeat or reordering and its steps came in a valid order.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "evals" / "results" / "sessions.json"
WORK = REPO / "evals" / "work" / "sessions"

CLAIMS = [
    "Vitamin D supplementation prevents respiratory infections",
    "Vitamin D supplementation prevents acute respiratory infections in adults",
    "Daily vitamin D supplements protect against respiratory infections",
    "Vitamin D supplementation reduces the risk of respiratory tract infections",
]
DECISIONS: list[Any] = ["accept", {"exclude": ["108"]}, "accept", {"accept": True, "note": "checked"}]
VOLATILE = {"timings", "usage", "created_at"}
VALID_ORDER = ["analyse", "gather", "grow_hierarchy", "assess", "weigh", "aggregate", "explain", "report"]


# ------------------------------------------------------------------------------------ child side


def _services(work: Path) -> Any:
    from tests.investigation_fixtures import make_services

    return make_services(work)


def _investigator(work: Path) -> Any:
    from claimscope.agent.investigation import Investigator

    return Investigator(_services(work), persistent=True)


def _options(spec: dict[str, Any]) -> Any:
    from claimscope.agent.graph.state import InvestigationOptions

    return InvestigationOptions(**spec["options"])


def _drive_to_end(inv: Any, spec: dict[str, Any], result: Any, on_event: Any) -> Any:
    """Answer the guided reviews in order (continuing from those already recorded) until the end."""
    tid = spec["thread_id"]
    while result.pending is not None:
        answered = len(inv.state(tid).get("decisions", []))
        result = inv.answer(tid, DECISIONS[min(answered, len(DECISIONS) - 1)], on_event=on_event)
    return result


def child_run(spec: dict[str, Any]) -> None:
    """Reference run (kill_at = 0) or a run that SIGKILLs itself at event number kill_at."""
    work = Path(spec["work"])
    inv = _investigator(work)
    log = open(work / "events.jsonl", "a", encoding="utf-8")  # noqa: SIM115 - stays open until the kill
    count = 0

    def on_event(ev: Any) -> None:
        nonlocal count
        count += 1
        log.write(json.dumps({"n": count, "kind": ev.kind, "step": ev.step}) + "\n")
        log.flush()
        os.fsync(log.fileno())
        if spec["kill_at"] and count >= spec["kill_at"]:
            os.kill(os.getpid(), signal.SIGKILL)

    result = inv.run(spec["claim"], _options(spec), thread_id=spec["thread_id"], on_event=on_event)
    result = _drive_to_end(inv, spec, result, on_event)
    _write_final(inv, spec, work / "final.json")


def child_resume(spec: dict[str, Any]) -> None:
    work = Path(spec["work"])
    inv = _investigator(work)
    tid = spec["thread_id"]
    saved = inv.state(tid)
    (work / "after_kill.json").write_text(json.dumps({
        "done": saved.get("done", []), "decisions": len(saved.get("decisions", [])),
    }))
    finished: list[str] = []

    def on_event(ev: Any) -> None:
        if ev.kind == "step_finished":
            finished.append(ev.step)

    if not saved:
        result = inv.run(spec["claim"], _options(spec), thread_id=tid, on_event=on_event)
    else:
        result = inv.resume(tid, on_event=on_event)
    result = _drive_to_end(inv, spec, result, on_event)
    (work / "resumed_steps.json").write_text(json.dumps(finished))
    _write_final(inv, spec, work / "final.json")


def _write_final(inv: Any, spec: dict[str, Any], path: Path) -> None:
    state = inv.state(spec["thread_id"])
    path.write_text(json.dumps({"status": state.get("status"), "done": state.get("done", []),
                                "report": state.get("report")}, default=str))


def child_prepare(work: Path) -> None:
    """Build the fixture store on disk (later runs reopen it)."""
    services = _services(work)
    services.store.close()


def child_serve(port: int, work: Path, workers: int) -> None:
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.mcp_server import build_server
    from claimscope.agent.runs import RunManager

    manager = RunManager(Investigator(_services(work), persistent=True), max_workers=workers)
    server = build_server(manager)
    server.run("streamable-http", host="127.0.0.1", port=port)


# ------------------------------------------------------------------------------------ parent side


def _spawn(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "evals.sessions", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _normalise(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _normalise(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_normalise(v) for v in obj]
    return obj


def _specs(n: int, rng: random.Random) -> list[dict[str, Any]]:
    specs = []
    for i in range(n):
        options = {
            "corpora": ["fixture"], "sources": ["local"],
            "depth": rng.choice([1, 2]), "top_k_aspects": rng.choice([2, 3]),
            "top_documents": rng.choice([3, 4, 6]), "planner": rng.choice(["fixed", "llm"]),
            "perspectives": rng.choice([True, False]), "guided": i % 4 == 3,
        }
        specs.append({"thread_id": f"kill{i:02d}", "claim": CLAIMS[i % len(CLAIMS)], "options": options})
    return specs


def _finished_before_kill(events: list[dict[str, Any]]) -> tuple[list[str], str | None]:
    """Steps the run had moved past before the kill (a later event followed their step_finished),
    and the step in flight at the kill (started, not moved past), if any."""
    finished, in_flight = [], None
    for i, ev in enumerate(events):
        if ev["kind"] == "step_started":
            in_flight = ev["step"]
        if ev["kind"] == "step_finished":
            if i + 1 < len(events):
                finished.append(ev["step"])
                in_flight = None
            else:
                in_flight = ev["step"]
    return finished, in_flight


def kill_resume(n: int, rng: random.Random) -> dict[str, Any]:
    per_run = []
    totals = collections.Counter()
    # Every run (reference, killed, resumed) opens a copy of one store built beforehand: a store
    # reopened from disk may order tied search results differently from the freshly built one
    # (measured below as fresh_store_matches_reopened), which is not what this benchmark is about.
    template = WORK / "template"
    shutil.rmtree(template, ignore_errors=True)
    template.mkdir(parents=True)
    proc = _spawn(["--child-prepare", str(template)])
    if proc.returncode != 0:
        raise SystemExit(f"preparing the store failed:\n{proc.stderr[-3000:]}")
    fresh_matches: bool | None = None
    for spec in _specs(n, rng):
        base = WORK / spec["thread_id"]
        shutil.rmtree(base, ignore_errors=True)
        ref_dir, kill_dir = base / "reference", base / "killed"
        for d in (ref_dir, kill_dir):
            shutil.copytree(template / "qdrant", d / "qdrant")
        if fresh_matches is None:
            fresh_dir = base / "fresh"
            fresh_dir.mkdir(parents=True)
            proc = _spawn(["--child-run", json.dumps({**spec, "work": str(fresh_dir), "kill_at": 0})])
            fresh = json.loads((fresh_dir / "final.json").read_text()) if proc.returncode == 0 else {}

        ref_spec = {**spec, "work": str(ref_dir), "kill_at": 0}
        proc = _spawn(["--child-run", json.dumps(ref_spec)])
        if proc.returncode != 0:
            raise SystemExit(f"reference run {spec['thread_id']} failed:\n{proc.stderr[-3000:]}")
        ref_events = [json.loads(x) for x in (ref_dir / "events.jsonl").read_text().splitlines()]
        reference = json.loads((ref_dir / "final.json").read_text())

        if fresh_matches is None:
            fresh_matches = _normalise(fresh.get("report")) == _normalise(reference["report"])
        kill_at = rng.randint(1, len(ref_events) - 1)
        kill_spec = {**spec, "work": str(kill_dir), "kill_at": kill_at}
        proc = _spawn(["--child-run", json.dumps(kill_spec)])
        killed = proc.returncode == -signal.SIGKILL
        events = [json.loads(x) for x in (kill_dir / "events.jsonl").read_text().splitlines()]
        proc = _spawn(["--child-resume", json.dumps(kill_spec)])
        if proc.returncode != 0:
            raise SystemExit(f"resume of {spec['thread_id']} failed:\n{proc.stderr[-3000:]}")
        saved = json.loads((kill_dir / "after_kill.json").read_text())
        resumed = json.loads((kill_dir / "resumed_steps.json").read_text())
        final = json.loads((kill_dir / "final.json").read_text())

        finished, in_flight = _finished_before_kill(events)
        done_saved = collections.Counter(saved["done"])
        finished_steps = collections.Counter(s for s in finished if s != "review")
        reviews_finished = sum(1 for s in finished if s == "review")
        unsaved = sum((finished_steps - done_saved).values()) + max(0, reviews_finished - saved["decisions"])
        ref_steps = collections.Counter(s for s in reference["done"])
        expected_left = ref_steps - done_saved
        resumed_steps = collections.Counter(s for s in resumed if s != "review")
        rerun = sum(max(0, resumed_steps[s] - expected_left[s]) for s in resumed_steps)
        in_flight_rerun = 1 if in_flight and in_flight != "review" and resumed_steps[in_flight] > 0 else 0
        # The step in flight at the kill had not finished: running it again is expected, not lost work.
        lost = unsaved + max(0, rerun - in_flight_rerun)
        same = _normalise(final["report"]) == _normalise(reference["report"]) and final["done"] == reference["done"]
        per_run.append({
            "thread_id": spec["thread_id"], "options": spec["options"], "events": len(ref_events),
            "kill_at": kill_at, "killed_by_sigkill": killed, "in_flight": in_flight,
            "finished_before_kill": len(finished), "saved_steps": len(saved["done"]),
            "saved_decisions": saved["decisions"], "lost_steps": lost, "in_flight_reruns": in_flight_rerun,
            "same_result": same, "final_status": final["status"],
        })
        if not same:
            ref_n, fin_n = _normalise(reference["report"]) or {}, _normalise(final["report"]) or {}
            per_run[-1]["differs"] = sorted(k for k in set(ref_n) | set(fin_n) if ref_n.get(k) != fin_n.get(k))
            if final["done"] != reference["done"]:
                per_run[-1]["differs"].append("done")
        totals["lost"] += lost
        totals["mismatch"] += 0 if same else 1
        totals["killed"] += 1 if killed else 0
        totals["in_flight"] += in_flight_rerun
        print(f"{spec['thread_id']}: kill at event {kill_at}/{len(ref_events)} (in flight: {in_flight}), "
              f"saved {len(saved['done'])} steps, lost {lost}, same result: {same}", flush=True)
        if same and lost == 0:
            shutil.rmtree(base, ignore_errors=True)  # kept otherwise, for inspection
    shutil.rmtree(template, ignore_errors=True)
    return {"kill_resume_runs": n, "killed_by_sigkill": totals["killed"], "lost_steps": totals["lost"],
            "fresh_store_matches_reopened": fresh_matches,
            "in_flight_reruns": totals["in_flight"], "result_mismatches": totals["mismatch"], "runs": per_run}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _steps_in_order(steps: list[str]) -> bool:
    ranks = [VALID_ORDER.index(s) for s in steps if s in VALID_ORDER]
    return bool(ranks) and ranks == sorted(ranks) and steps[0] == "analyse" and steps[-1] == "report"


async def _one_session(url: str, i: int) -> dict[str, Any]:
    from mcp import Client

    progress: list[float] = []
    events: list[dict[str, Any]] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append(p)

    t0 = time.perf_counter()
    async with Client(url) as client:
        args = {"claim": CLAIMS[i % len(CLAIMS)],
                "options": {"corpora": ["fixture"], "depth": 1 + i % 2, "top_documents": 3 + i % 3}}
        r = await client.call_tool("start_investigation", args, progress_callback=on_progress)
        if r.is_error:
            return {"session": i, "error": r.content[0].text}
        status = r.structured_content
        events += status["new_events"]
        sid = status["session_id"]
        while status["active"] or status["status"] in ("queued", "running"):
            r = await client.call_tool("get_status", {"session_id": sid, "since": status["events"],
                                                      "wait_seconds": 5}, progress_callback=on_progress)
            if r.is_error:
                return {"session": i, "error": r.content[0].text}
            status = r.structured_content
            events += status["new_events"]
        rep = await client.call_tool("get_report", {"session_id": sid, "format": "json"})
        report = None if rep.is_error else json.loads(rep.content[0].text)
    seqs = [e["seq"] for e in events]
    steps = [e["step"] for e in events if e["kind"] == "step_started"]
    in_order = (seqs == list(range(1, len(seqs) + 1)) and progress == sorted(set(progress))
                and set(progress) <= set(seqs) and _steps_in_order(steps))
    return {
        "session": i, "session_id": sid, "status": status["status"], "events": len(seqs),
        "progress_notifications": len(progress), "in_order": in_order,
        "report_ok": bool(report and report.get("claim") == args["claim"]),
        "seconds": round(time.perf_counter() - t0, 2),
    }


def mcp_concurrency(n: int, workers: int) -> dict[str, Any]:
    work = WORK / "mcp"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_NUM_THREADS": "1"}
    # The server writes its own copy of the log's descriptor; ours is closed once it has started.
    with open(work / "server.log", "w") as server_log:
        server = subprocess.Popen(
            [sys.executable, "-m", "evals.sessions", "--child-serve", str(port), str(work), str(workers)],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=server_log,
        )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(f"the MCP server exited: {(work / 'server.log').read_text()[-3000:]}") from None
                time.sleep(0.5)
        url = f"http://127.0.0.1:{port}/mcp"

        async def all_sessions() -> list[dict[str, Any]]:
            return await asyncio.gather(*(_one_session(url, i) for i in range(n)))

        t0 = time.perf_counter()
        sessions = asyncio.run(all_sessions())
        seconds = time.perf_counter() - t0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    completed = sum(1 for s in sessions if s.get("status") == "complete" and s.get("report_ok") and s.get("in_order"))
    return {"mcp_concurrent_sessions": n, "mcp_completed": completed,
            "mcp_events_in_order": sum(1 for s in sessions if s.get("in_order")),
            "mcp_workers": workers, "mcp_seconds": round(seconds, 1), "mcp_sessions": sessions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--mcp-sessions", type=int, default=10)
    parser.add_argument("--mcp-workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS, help="Where to write the results JSON.")
    parser.add_argument("--child-run")
    parser.add_argument("--child-resume")
    parser.add_argument("--child-serve", nargs=3)
    parser.add_argument("--child-prepare")
    args = parser.parse_args()
    if args.child_run:
        return child_run(json.loads(args.child_run))
    if args.child_resume:
        return child_resume(json.loads(args.child_resume))
    if args.child_prepare:
        return child_prepare(Path(args.child_prepare))
    if args.child_serve:
        port, work, workers = args.child_serve
        return child_serve(int(port), Path(work), int(workers))

    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    results: dict[str, Any] = {"seed": args.seed}
    results.update(kill_resume(args.runs, rng))
    results.update(mcp_concurrency(args.mcp_sessions, args.mcp_workers))
    results["seconds"] = round(time.perf_counter() - t0, 1)
    results["setup"] = ("offline fixture: tests/fixtures/investigation/corpus.jsonl in the embedded store (Qdrant Edge), "
                        "HashEmbedder, KeywordStance, scripted model through the real LiteLLM gateway; "
                        "kills are SIGKILL of a subprocess at a random progress event; MCP over streamable "
                        "HTTP on 127.0.0.1 with the official MCP client")
    # Other people edit the working tree while this runs for minutes; run it on a snapshot of a commit
    # (git archive) and name the commit here, so every subprocess ran the same code.
    results["code"] = os.environ.get("CLAIMSCOPE_BENCH_COMMIT", "working tree")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    summary = {k: results[k] for k in ("kill_resume_runs", "lost_steps", "result_mismatches",
                                       "mcp_concurrent_sessions", "mcp_completed")}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
