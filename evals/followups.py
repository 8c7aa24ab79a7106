"""Follow-up questions on finished investigations, for readers to judge -> evals/labels/followups_pool.jsonl,
then their judgments scored -> evals/results/followups.json.

    python -m evals.followups run [--n 10] [--seed 7] [--depth 2] [--resume]
    python -m evals.followups packets [--readers 3] [--second 14]
    python -m evals.followups score [--judgments evals/labels/followups_judgments]

`run` investigates SciFact dev claims that have gold evidence (SUPPORT or CONTRADICT, `--n` of them),
one PERSPECTRUM dev claim (a debate claim, over PERSPECTRUM's perspective pool) and one claim no
document of the corpus addresses (an investigation that ends "insufficient evidence"): 12
investigations by default, kept in the work directory's sessions file under the code version (a
new commit investigates afresh, since "go deeper" and "ignore a source" change a stored
investigation), so `--resume` asks the questions again without re-running them. On each it asks the chat (agent/chat) questions of every
kind the docs advertise, built from its report: which sources support / oppose (in varying words),
what a named study found, why an aspect is disputed, the anti-claim search, the verdict, two free
questions, then "go deeper" and "ignore a source" (which re-run steps, so they come last). Each
question becomes one line of the pool: its id, the investigation, the report it was asked about (an
id of the report's content; the report itself is written to evals/labels/followups_reports/ID.md for
the readers), the kind asked and the tool that answered, the question, the answer, its citations
with the sentences they cite, the answer time, the load average and the code version.

`packets` writes the blind reading packets, evals/labels/followups_packets/<code>/<reader>.jsonl: each
reader gets whole investigations (every question asked of a report goes to one reader), and one more
reader reads `--second` questions again, spread over kinds, for the agreement. A packet item holds
what the guide lets a reader see (the question, the answer, the cited sentences and the path of the
report, and of the recomputed report for "go deeper" and "ignore a source"), never the kind, the tool
or the code, and the judgment line to fill in, which carries the question id and the code version
the answer came from.

`score` reads the readers' judgments (evals/labels/followups_judgments/<reader>.jsonl, one line per question
and reader: question_id, reader, answer_correct, citations_support_answer, grammar_ok, each "yes" or
"no"; the reading guide is docs/methods/followup-reading-guide.md) and writes the share of answers
judged correct, of citations judged to support their answer, the grammar slips, the agreement of two
readers where two judged the same question, and the median answer time per kind with the load
average the times were taken under.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from evals._harness import REPO, RESULTS, SHARED, WORK, code_version, write_json

LABELS = REPO / "evals" / "labels"
POOL = LABELS / "followups_pool.jsonl"
JUDGMENTS = LABELS / "followups_judgments"  # one file per reader, or a single .jsonl file
REPORTS = LABELS / "followups_reports"
OUT = RESULTS / "followups.json"

Kind = Literal["show_sources", "study_findings", "explain_aspect", "go_deeper", "exclude_source",
               "anti_claim_contribution", "verdict", "free"]
KINDS: tuple[Kind, ...] = ("show_sources", "study_findings", "explain_aspect", "go_deeper", "exclude_source",
                           "anti_claim_contribution", "verdict", "free")
# Kinds that re-run steps and so change the report: asked last, in this order.
MUTATING: tuple[Kind, ...] = ("go_deeper", "exclude_source")
# A claim no document of a biomedical corpus addresses (the "insufficient evidence" end).
NO_EVIDENCE_CLAIM = "The 1998 FIFA World Cup final was played at the Stade de France"

_SUPPORT_WORDS = ("Which sources support the claim?", "Which studies back the claim?",
                  "Which papers agree with the claim?")
_OPPOSE_WORDS = ("Which sources oppose the claim?", "Which papers argue against it?",
                 "Which studies contradict the claim?", "Which sources refute it?")
_FREE = ("What populations were studied?", "How strong is the evidence overall?",
         "Were any randomized trials among the evidence?", "What are the main limitations of the evidence?",
         "What outcome was measured?", "Is the effect consistent across the studies?")


class Question(BaseModel):
    kind: Kind
    text: str


class PoolRow(BaseModel):
    """One question asked of one investigation, with everything a reader judges it by."""

    question_id: str
    investigation: str = Field(description="The claim id (SciFact dev id, persp-N, or no-evidence).")
    claim: str
    report_id: str = Field(description="Content id of the report the question was asked about.")
    report_id_after: str | None = Field(None, description="The recomputed report's id (go deeper, ignore a source).")
    kind: Kind
    tool: str = Field(description="The chat tool that answered.")
    question: str
    answer: str
    citations: list[str] = Field(default_factory=list)
    cited_sentences: dict[str, str] = Field(default_factory=dict, description="key -> the sentence it cites.")
    unresolved_citations: list[str] = Field(default_factory=list,
                                            description="Citations that name no sentence of the investigation.")
    seconds: float
    load_average: float | None = None
    code: str


YesNo = Literal["yes", "no"]


class Judgment(BaseModel):
    question_id: str
    code: str | None = Field(None, description="The code version of the answer judged (the packet's).")
    reader: str = Field(min_length=1)
    answer_correct: YesNo
    citations_support_answer: YesNo
    grammar_ok: YesNo


# ---------------------------------------------------------------------------------- questions
def report_id(report: dict[str, Any]) -> str:
    """An id of what a reader sees in a report (its creation time, timings and usage left out)."""
    shown = {k: v for k, v in report.items() if k not in ("created_at", "timings", "usage")}
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:12]


def questions_for(report: dict[str, Any], turn: int) -> list[Question]:
    """The questions asked of one report, every kind once (sources twice: support and oppose) and
    two free questions; `turn` rotates the wordings and free questions between investigations.
    Kinds that change the report come last."""
    docs = report.get("documents") or []
    nodes = [n for n in (report.get("hierarchy") or {}).get("nodes", []) if n["id"] != "root"]
    top = [n for n in nodes if "." not in n["id"]]
    disputed = sorted(top, key=lambda n: (((n.get("consensus") or {}).get("label") != "controversial"), n["id"]))
    out = [Question(kind="show_sources", text=_SUPPORT_WORDS[turn % len(_SUPPORT_WORDS)]),
           Question(kind="show_sources", text=_OPPOSE_WORDS[turn % len(_OPPOSE_WORDS)])]
    if docs:
        out.append(Question(kind="study_findings", text=f"What does the study on {_topic(docs[turn % len(docs)])} say?"))
    aspect = disputed[0]["name"] if disputed else "the main aspect"
    out.append(Question(kind="explain_aspect", text=f"Why is {aspect} disputed?"))
    out.append(Question(kind="anti_claim_contribution", text="What does the anti-claim search add?"))
    out.append(Question(kind="verdict", text="What is the overall verdict?"))
    out += [Question(kind="free", text=_FREE[(2 * turn + i) % len(_FREE)]) for i in range(2)]
    out.append(Question(kind="go_deeper", text=f"Go deeper on aspect {disputed[0]['id'] if disputed else 1}"))
    out.append(Question(kind="exclude_source", text=f"Ignore source {docs[0]['id'] if docs else 'none'} and recompute"))
    return out


def _topic(doc: dict[str, Any]) -> str:
    """A few words that name a study the way a reader would: the start of its title (of its finding,
    for a document without a title), cut after a content word."""
    from claimscope.agent.chat.questions import question_terms

    text = doc.get("title") or (doc.get("finding") or {}).get("text") or doc["id"]
    words = [w.strip(",.:;()") for w in text.split()][:7]
    while len(words) > 1 and not question_terms(words[-1]):
        words.pop()
    return " ".join(words)


def ask(engine: Any, investigation: str, claim: str, turn: int, *, code: str,
        reports: Path | None = REPORTS, clock: Callable[[], float] = time.perf_counter) -> list[PoolRow]:
    """Ask `questions_for` the engine's current report through the chat's own routing, timing each
    answer; write each report version a question was asked about to `reports`."""
    from claimscope.agent.graph.readers import sentence_lookup

    thread = engine.session.current
    rows: list[PoolRow] = []
    report = engine._report()
    for i, q in enumerate(questions_for(report, turn)):
        before = report_id(report)
        _keep_report(report, before, reports)
        t0 = clock()
        tool, args = engine.route(q.text)
        reply = engine.call(tool, args)
        seconds = clock() - t0
        state = engine.inv.state(thread)
        get = sentence_lookup(state, engine.inv.services)
        texts = {c: get(c) for c in reply.citations}
        report = state.get("report") or {}
        after = report_id(report) if q.kind in MUTATING else None
        if after:
            _keep_report(report, after, reports)
        rows.append(PoolRow(
            question_id=f"{investigation}:{i}", investigation=investigation, claim=claim, report_id=before,
            report_id_after=after, kind=q.kind, tool=reply.tool or tool, question=q.text, answer=reply.text,
            citations=reply.citations, cited_sentences={k: v for k, v in texts.items() if v},
            unresolved_citations=[k for k, v in texts.items() if not v], seconds=round(seconds, 3),
            load_average=round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None, code=code))
    return rows


def _keep_report(report: dict[str, Any], rid: str, folder: Path | None) -> None:
    if folder is None or not report:
        return
    from claimscope.agent.report import render

    path = folder / f"{rid}.md"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(render(report, "md"))


# ---------------------------------------------------------------------------------- scoring
def read_judgments(path: Path) -> list[Judgment]:
    """The readers' judgments (a file, or a folder of one file per reader); a malformed line stops
    with its file, line number and what is wrong."""
    if path.is_dir():
        return [j for f in sorted(path.glob("*.jsonl")) for j in read_judgments(f)]
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Judgment.model_validate_json(line))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise SystemExit(f"{path}:{n}: {'.'.join(str(p) for p in first['loc']) or 'line'}: {first['msg']} "
                             "(each line: question_id, reader, answer_correct, citations_support_answer, "
                             "grammar_ok, the last three 'yes' or 'no').") from None
    return out


def _share(values: Iterable[str]) -> float | None:
    vs = list(values)
    return round(sum(v == "yes" for v in vs) / len(vs), 3) if vs else None


def _kappa(a: list[str], b: list[str]) -> float | None:
    """Cohen's kappa of two readers' yes/no answers (None when chance agreement is total)."""
    n = len(a)
    if not n:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(x == "yes" for x in a) / n, sum(y == "yes" for y in b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    return None if chance == 1 else round((observed - chance) / (1 - chance), 3)


FIELDS = ("answer_correct", "citations_support_answer", "grammar_ok")


def score(pool: list[PoolRow], judgments: list[Judgment]) -> dict[str, Any]:
    """The readers' figures over the pool: shares of "yes" per field (over every judgment, and per
    kind), grammar slips, two readers' agreement (percent and Cohen's kappa, over the questions both
    judged), and the median answer time per kind."""
    by_id = {r.question_id: r for r in pool}
    unknown = sorted({j.question_id for j in judgments} - set(by_id))
    # a judgment of another code version's answer to the same question says nothing of this one
    stale = sorted({j.question_id for j in judgments if j.question_id in by_id and j.code
                    and j.code != by_id[j.question_id].code})
    judged = [j for j in judgments if j.question_id in by_id and (not j.code or j.code == by_id[j.question_id].code)]
    per_kind: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        rows = [r for r in pool if r.kind == kind]
        js = [j for j in judged if by_id[j.question_id].kind == kind]
        per_kind[kind] = {
            "questions": len(rows), "judgments": len(js),
            **{f: _share(getattr(j, f) for j in js) for f in FIELDS},
            "median_seconds": round(statistics.median([r.seconds for r in rows]), 3) if rows else None,
        }
    slips = [j for j in judged if j.grammar_ok == "no"]
    readers_of: dict[str, dict[str, Judgment]] = defaultdict(dict)
    for j in judged:
        readers_of[j.question_id][j.reader] = j
    pairs: dict[tuple[str, str], list[tuple[Judgment, Judgment]]] = defaultdict(list)
    for by_reader in readers_of.values():
        names = sorted(by_reader)
        if len(names) >= 2:
            pairs[(names[0], names[1])].append((by_reader[names[0]], by_reader[names[1]]))
    both = [p for ps in pairs.values() for p in ps]
    agreement = {"questions": len(both), "reader_pairs": [list(k) for k in pairs]}
    for f in FIELDS:
        a, b = [getattr(x, f) for x, _ in both], [getattr(y, f) for _, y in both]
        agreement[f] = {"percent": round(sum(x == y for x, y in zip(a, b, strict=True)) / len(a), 3) if a else None,
                        "kappa": _kappa(a, b)}
    loads = [r.load_average for r in pool if r.load_average is not None]
    return {
        "questions": len(pool), "investigations": len({r.investigation for r in pool}),
        "judged_questions": len(readers_of), "judgments": len(judged),
        "readers": sorted({j.reader for j in judged}),
        **{f: _share(getattr(j, f) for j in judged) for f in FIELDS[:2]},
        "grammar_slips": {"count": len(slips), "share": round(len(slips) / len(judged), 3) if judged else None,
                          "questions": sorted({j.question_id for j in slips})},
        "agreement": agreement,
        "median_seconds_per_kind": {k: v["median_seconds"] for k, v in per_kind.items()},
        "load_average_median": round(statistics.median(loads), 2) if loads else None,
        # the templated questions the keyword router sent to their own tool
        "routed_as_asked": _share("yes" if r.tool == r.kind else "no" for r in pool if r.kind != "free"),
        "unresolved_citations": sum(len(r.unresolved_citations) for r in pool),
        "per_kind": per_kind,
        "unknown_question_ids": unknown,
        "judgments_of_other_code": stale,
        "codes": sorted({r.code for r in pool}),
    }


def read_pool(path: Path) -> list[PoolRow]:
    if not path.is_file():
        raise SystemExit(f"no pool at {path}: run `python -m evals.followups run` first.")
    return [PoolRow.model_validate_json(x) for x in path.read_text().splitlines() if x.strip()]


# ---------------------------------------------------------------------------------- packets
PACKETS = LABELS / "followups_packets"


class PacketItem(BaseModel):
    """What a reader sees of one question (docs/methods/followup-reading-guide.md), and the line to fill in."""

    question_id: str
    report: str = Field(description="The report the question was asked about, relative to the repository.")
    report_after: str | None = Field(None, description="The recomputed report (go deeper, ignore a source).")
    question: str
    answer: str
    cited_sentences: dict[str, str]
    judgment: dict[str, str | None]


def packets(pool: list[PoolRow], readers: int, second: int, seed: int, folder: Path = PACKETS,
            reports: Path = REPORTS) -> dict[str, list[PacketItem]]:
    """One packet per reader: whole investigations dealt round-robin (in pool order) to `readers`
    readers, and `second` questions, spread over the kinds, to one more reader for the agreement."""
    import random

    codes = sorted({r.code for r in pool})
    if len(codes) != 1:
        raise SystemExit(f"the pool mixes code versions {codes}: run `python -m evals.followups run` again.")
    investigations = list(dict.fromkeys(r.investigation for r in pool))
    names = [f"reader-{chr(ord('a') + i)}" for i in range(readers)]
    dealt = {inv: names[i % readers] for i, inv in enumerate(investigations)}
    out: dict[str, list[PacketItem]] = {n: [] for n in names}

    def item(r: PoolRow, reader: str) -> PacketItem:
        rel = reports.relative_to(REPO) if reports.is_relative_to(REPO) else reports
        return PacketItem(
            question_id=r.question_id, report=str(rel / f"{r.report_id}.md"),
            report_after=str(rel / f"{r.report_id_after}.md") if r.report_id_after else None,
            question=r.question, answer=r.answer, cited_sentences=r.cited_sentences,
            judgment={"question_id": r.question_id, "code": r.code, "reader": reader, "answer_correct": None,
                      "citations_support_answer": None, "grammar_ok": None})

    for r in pool:
        out[dealt[r.investigation]].append(item(r, dealt[r.investigation]))
    rng = random.Random(seed)
    by_kind: dict[str, list[PoolRow]] = defaultdict(list)
    for r in pool:
        by_kind[r.kind].append(r)
    for rows in by_kind.values():
        rng.shuffle(rows)
    again: list[PoolRow] = []
    while len(again) < min(second, len(pool)):
        for kind in KINDS:
            if by_kind[kind] and len(again) < second:
                again.append(by_kind[kind].pop())
    extra = f"reader-{chr(ord('a') + readers)}"
    out[extra] = [item(r, extra) for r in sorted(again, key=lambda r: pool.index(r))]
    target = folder / codes[0]
    target.mkdir(parents=True, exist_ok=True)
    for name, items in out.items():
        (target / f"{name}.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in items))
    judgments = JUDGMENTS.relative_to(REPO) if JUDGMENTS.is_relative_to(REPO) else JUDGMENTS
    (target / "README.md").write_text(
        f"# Reading packets: follow-up answers of code {codes[0]}\n\n"
        f"One packet per reader ({', '.join(f'`{n}.jsonl`' for n in out)}): each line is one question, "
        "with the report it was asked about (and the recomputed report for 'go deeper' and 'ignore a "
        "source'), the answer and the sentences it cites. Judge each as docs/methods/followup-reading-guide.md "
        "says, from the report and the answer only (not the code), and write the line's `judgment`, "
        f"filled in, to `{judgments}/<reader>.jsonl` (one line per question). `{extra}` reads questions "
        "another reader also has: judge them independently.\n")
    return out


# ---------------------------------------------------------------------------------- running
def _investigations(n: int, seed: int) -> list[tuple[str, str, str]]:
    """(id, claim, corpus): SciFact dev claims with gold evidence, a debate claim, a claim without evidence."""
    from evals.verdict_debate import CORPUS as DEBATE_CORPUS
    from evals.verdict_debate import dev_claims
    from evals.verdict_scifact import gold_label, sample

    claims_path = SHARED / "scifact" / "claims_dev.jsonl"
    rows = [r for r in sample(claims_path, 4 * n, seed) if gold_label(r) != "NEI"][:n]
    out = [(str(r["id"]), r["claim"], "scifact") for r in rows]
    debate = dev_claims(1, seed)
    out += [(f"persp-{c['cId']}", c["text"], DEBATE_CORPUS) for c in debate]
    out.append(("no-evidence", NO_EVIDENCE_CLAIM, "scifact"))
    return out


def run(args: argparse.Namespace) -> None:
    from claimscope.agent.chat import ChatEngine
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from evals._harness import ensure_corpus, services_for
    from evals.verdict_debate import CORPUS as DEBATE_CORPUS
    from evals.verdict_debate import pool_corpus

    services = services_for()
    ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
    ensure_corpus(services, pool_corpus(WORK / "perspectrum_pool.jsonl"), DEBATE_CORPUS)
    inv = Investigator(services, persistent=True)
    code = code_version()
    args.pool.parent.mkdir(parents=True, exist_ok=True)
    done = {r.investigation for r in read_pool(args.pool)} if args.resume and args.pool.is_file() else set()
    if not args.resume:
        args.pool.unlink(missing_ok=True)
    for turn, (cid, claim, corpus) in enumerate(_investigations(args.n, args.seed)):
        if cid in done:
            continue
        thread = f"followups-{code}-{cid}"
        t0 = time.perf_counter()
        if not (inv.state(thread).get("report")):
            inv.run(claim, InvestigationOptions(corpora=[corpus], sources=["local"], depth=args.depth), thread_id=thread)
        engine = ChatEngine(inv, f"followups-{cid}")
        engine.session.investigations = [thread]
        rows = ask(engine, cid, claim, turn, code=code)
        with args.pool.open("a") as fh:
            for r in rows:
                fh.write(r.model_dump_json() + "\n")
        print(f"{cid}: {len(rows)} questions ({time.perf_counter() - t0:.0f}s)", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="investigate and ask the questions -> the pool")
    r.add_argument("--n", type=int, default=10, help="SciFact dev claims with gold evidence.")
    r.add_argument("--seed", type=int, default=7)
    r.add_argument("--depth", type=int, default=2)
    r.add_argument("--resume", action="store_true", help="Keep the pool and ask only investigations it lacks.")
    r.add_argument("--pool", type=Path, default=POOL)
    p = sub.add_parser("packets", help="the blind reading packets of the pool, one per reader")
    p.add_argument("--pool", type=Path, default=POOL)
    p.add_argument("--readers", type=int, default=3, help="Readers the investigations are dealt to.")
    p.add_argument("--second", type=int, default=14, help="Questions one more reader reads again.")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=PACKETS)
    s = sub.add_parser("score", help="score the readers' judgments of the pool")
    s.add_argument("--pool", type=Path, default=POOL)
    s.add_argument("--judgments", type=Path, default=JUDGMENTS)
    s.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.command == "run":
        run(args)
        return
    if args.command == "packets":
        made = packets(read_pool(args.pool), args.readers, args.second, args.seed, args.out)
        print(json.dumps({name: len(items) for name, items in made.items()}))
        return
    pool = read_pool(args.pool)
    judgments = read_judgments(args.judgments) if args.judgments.exists() else []
    out = score(pool, judgments) | {"date": time.strftime("%Y-%m-%d"), "code_at_scoring": code_version(),
                                    "load_average_at_scoring": round(os.getloadavg()[0], 2)}
    write_json(args.out, out)
    print(json.dumps({k: out[k] for k in ("questions", "judgments", "answer_correct", "citations_support_answer")}))


if __name__ == "__main__":
    main()
