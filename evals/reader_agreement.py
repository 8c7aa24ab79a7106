"""Do careful readers agree with what the report shows? -> evals/results/reader_agreement.json

    python -m evals.reader_agreement pool  --log evals/work/verdict_runs.jsonl [--claims 40]
    python -m evals.reader_agreement score --log evals/work/verdict_runs.jsonl --name after

The evaluation pool: every sentence of the documents that the reports of SciFact dev claims show
(runs of `python -m evals.verdict_scifact`), read by readers who see only the claim and one
sentence with its title (docs/methods/evidence-labelling-guide.md; no neighbouring sentence, no
model output) and label its stance and whether it speaks to the claim. The labels are stored in
evals/labels/stance_reader_eval.tsv and never trained on. `pool` writes the chunks of sentences no
reader has labelled yet (topping the pool up when a new model shows new documents); `score`
compares one run log with the readers:

- quoted_stance_agreement: of the sentences the report quotes with a stance (the aspects' quoted
  segments, the documents' key findings, the explanation's citations), the share whose shown stance
  (support / refute / neutral) the first reader gives too;
- evidence_doc_relevance: of the documents the report counts as evidence (supporting or opposing),
  the share in which a reader found at least one sentence that speaks to the claim;
- pool_coverage: the share of quoted sentences that are labelled.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("CLAIMSCOPE_SHARED_DATA", REPO.parent / "shared" / "data"))
LABELS = REPO / "evals" / "labels" / "stance_reader_eval.tsv"
WORK = REPO / "evals" / "work" / "reader_eval"
RESULTS = REPO / "evals" / "results" / "reader_agreement.json"
STANCES = {"S": "support", "N": "neutral", "R": "refute"}
SHOWN = {"support": "support", "supports": "support", "refute": "refute", "oppose": "refute", "opposes": "refute",
         "neutral": "neutral"}


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def item_id(claim_id: str, doc_id: str, sentence: int) -> str:
    return "e" + hashlib.sha1(f"{claim_id}|{doc_id}|{sentence}".encode()).hexdigest()[:10]


def runs(log: Path) -> list[dict]:
    """Runs of the log that ended with a report, in run order."""
    out = []
    for r in _jsonl(log):
        rep = (r.get("state") or {}).get("report") or {}
        if rep.get("documents"):
            out.append({"claim_id": str(r["claim_id"]), "claim": r["claim"], "report": rep, "state": r["state"]})
    return out


def quoted(run: dict) -> dict[tuple[str, int], str]:
    """(doc_id, sentence) -> the stance the report shows for it."""
    rep = run["report"]
    out: dict[tuple[str, int], str] = {}
    for node in (rep.get("hierarchy") or {}).get("nodes", []):
        for seg in node.get("top_segments") or []:
            stance = SHOWN.get(str(seg.get("stance")))
            if stance and seg.get("sentence") is not None:
                out[(str(seg["doc_id"]), int(seg["sentence"]))] = stance
    direction = {}
    for d in rep.get("documents", []):
        shown = SHOWN.get(str(d.get("direction")))
        if shown:
            direction[str(d["id"])] = shown
        f = d.get("finding") or {}
        if shown and f.get("sentence") is not None:
            out.setdefault((str(d["id"]), int(f["sentence"])), shown)
    for s in (rep.get("explanation") or {}).get("sentences", []):
        for c in s.get("citations") or []:
            if isinstance(c, dict) and c.get("sentence") is not None and str(c["doc_id"]) in direction:
                out.setdefault((str(c["doc_id"]), int(c["sentence"])), direction[str(c["doc_id"])])
    return out


def evidence_docs(run: dict) -> list[str]:
    return [str(d["id"]) for d in run["report"].get("documents", []) if SHOWN.get(str(d.get("direction"))) in
            ("support", "refute")]


def label_rows() -> dict[str, dict[str, str]]:
    if not LABELS.is_file():
        return {}
    lines = [line for line in LABELS.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    head = lines[0].split("\t")
    return {r["id"]: r for r in (dict(zip(head, line.split("\t"), strict=False)) for line in lines[1:])}


def corpus() -> dict[str, dict]:
    return {str(d["doc_id"]): d for d in _jsonl(DATA / "scifact" / "corpus.jsonl")}


def pool(args: argparse.Namespace) -> None:
    """Chunks of the unlabelled sentences of the first --claims reports' documents."""
    docs = corpus()
    have = label_rows()
    chosen = runs(args.log)[: args.claims]
    items = []
    for run in chosen:
        # The documents the report lists and those its quotes come from (an aspect can quote a
        # gathered document outside the assessed top documents).
        shown = list(dict.fromkeys([str(d["id"]) for d in run["report"]["documents"]]
                                   + [doc_id for doc_id, _ in quoted(run)]))
        for doc_id in shown:
            doc = docs.get(doc_id)
            if doc is None:
                continue
            for i, sent in enumerate(doc["abstract"]):
                iid = item_id(run["claim_id"], doc_id, i)
                if iid not in have:
                    items.append({"id": iid, "claim_id": run["claim_id"], "claim": run["claim"],
                                  "doc_id": doc_id, "sentence": i, "title": doc["title"], "text": sent})
    WORK.mkdir(parents=True, exist_ok=True)
    tag = args.tag
    (WORK / f"pool_{tag}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    cdir = WORK / "chunks"
    cdir.mkdir(exist_ok=True)
    by_claim: dict[str, list[dict]] = defaultdict(list)
    for x in items:
        by_claim[x["claim_id"]].append(x)
    chunks: list[list[dict]] = [[]]
    for cid in by_claim:
        if len(chunks[-1]) >= args.chunk_size:
            chunks.append([])
        chunks[-1].extend(by_claim[cid])
    # Whole claims for a second reader: about a tenth of the pool.
    second = [x for cid in by_claim if int(hashlib.sha1(f"second:{cid}".encode()).hexdigest(), 16) % 100 < 11
              for x in by_claim[cid]]
    for n, ch in enumerate([c for c in chunks if c], 1):
        (cdir / f"{tag}_{n:02d}.md").write_text(render(ch), encoding="utf-8")
    if second:
        (cdir / f"{tag}_second_01.md").write_text(render(second), encoding="utf-8")
    print(f"{len(chosen)} reports, {len(items)} unlabelled sentences, {len(chunks)} chunks, {len(second)} for a "
          f"second reader, in {cdir}")


def render(items: list[dict]) -> str:
    lines: list[str] = []
    last = None
    for x in items:
        if x["claim"] != last:
            lines.append(f"\n## CLAIM: {x['claim']}\n")
            last = x["claim"]
        lines += [f"[{x['id']}]", f"  TITLE: {' '.join(x['title'].split())}", f"  SENTENCE: {' '.join(x['text'].split())}",
                  ""]
    return "\n".join(lines) + "\n"


def collect(args: argparse.Namespace) -> None:
    """Readers' answers (WORK/answers/*.tsv, second readers' files named *_second_*) -> LABELS."""
    from evals.stance_readers import read_answers

    items = {}
    for path in sorted(WORK.glob("pool_*.jsonl")):
        for x in _jsonl(path):
            items[x["id"]] = x
    rows = label_rows()
    first = read_answers(sorted(p for p in (WORK / "answers").glob("*.tsv") if "_second_" not in p.name))
    second = read_answers(sorted((WORK / "answers").glob("*_second_*.tsv")))
    for iid, (s, r) in first.items():
        if iid in items and iid not in rows:
            x = items[iid]
            rows[iid] = {"id": iid, "claim_id": x["claim_id"], "doc_id": x["doc_id"], "sentence": str(x["sentence"]),
                         "stance": STANCES[s], "speaks": r, "stance2": "", "speaks2": ""}
    for iid, (s, r) in second.items():
        if iid in rows:
            rows[iid]["stance2"], rows[iid]["speaks2"] = STANCES[s], r
    head = ["id", "claim_id", "doc_id", "sentence", "stance", "speaks", "stance2", "speaks2"]
    LABELS.write_text(
        "# Evaluation pool of the evidence reader: every sentence of the documents shown in reports of SciFact dev\n"
        "# claims, labelled by readers who saw only the claim, the sentence and its title (stance, and whether it\n"
        "# speaks to the claim). Never trained on. Texts: SciFact dev claims and corpus (CC BY-NC 2.0), by id.\n"
        "# Built by `python -m evals.reader_agreement pool|collect`.\n"
        + "\t".join(head) + "\n"
        + "".join("\t".join(r.get(h, "") for h in head) + "\n"
                  for r in sorted(rows.values(), key=lambda r: (int(r["claim_id"]), r["doc_id"], int(r["sentence"])))),
        encoding="utf-8")
    print(f"{len(rows)} labelled ({sum(1 for r in rows.values() if r['stance2'])} read twice) -> {LABELS}")


def score(args: argparse.Namespace) -> dict:
    rows = label_rows()
    if not rows:
        sys.exit(f"no labels in {LABELS}; build the pool and collect the readers' answers first")
    labelled_claims = {r["claim_id"] for r in rows.values()}
    speaks_docs = {(r["claim_id"], r["doc_id"]) for r in rows.values() if r["speaks"] == "Y"}
    labelled_docs = {(r["claim_id"], r["doc_id"]) for r in rows.values()}
    n_q = n_lab = n_agree = 0
    confusion: Counter[str] = Counter()
    n_ev = n_ev_lab = n_ev_rel = 0
    claims = 0
    examples = []
    for run in runs(args.log):
        if run["claim_id"] not in labelled_claims:
            continue
        claims += 1
        for (doc, sent), shown in quoted(run).items():
            n_q += 1
            r = rows.get(item_id(run["claim_id"], doc, sent))
            if r is None:
                continue
            n_lab += 1
            n_agree += r["stance"] == shown
            confusion[f"shown {shown} / reader {r['stance']}"] += 1
            if r["stance"] != shown and len(examples) < 12:
                examples.append({"claim": run["claim"], "doc": doc, "sentence": sent, "shown": shown,
                                 "reader": r["stance"]})
        for doc in evidence_docs(run):
            n_ev += 1
            if (run["claim_id"], doc) in labelled_docs:
                n_ev_lab += 1
                n_ev_rel += (run["claim_id"], doc) in speaks_docs
    double = [r for r in rows.values() if r["stance2"]]
    out = {
        "log": str(args.log),
        "claims_scored": claims,
        "quoted_sentences": n_q,
        "quoted_stance_agreement": round(n_agree / n_lab, 4) if n_lab else None,
        "pool_coverage": round(n_lab / n_q, 4) if n_q else None,
        "evidence_documents": n_ev,
        "evidence_doc_relevance": round(n_ev_rel / n_ev_lab, 4) if n_ev_lab else None,
        "evidence_docs_labelled": n_ev_lab,
        "confusion": dict(confusion),
        "disagreements_sample": examples,
        "pool": {"labelled_sentences": len(rows), "claims": len(labelled_claims), "read_twice": len(double),
                 "two_reader_stance_agreement": round(sum(r["stance"] == r["stance2"] for r in double) / len(double), 4)
                 if double else None,
                 "two_reader_speaks_agreement": round(sum(r["speaks"] == r["speaks2"] for r in double) / len(double), 4)
                 if double else None},
    }
    res = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    res[args.name] = out
    res["command"] = "python -m evals.reader_agreement score --log LOG --name before|after"
    RESULTS.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in out.items() if k not in ("disagreements_sample",)}, indent=2))
    return out


def model_agreement(args: argparse.Namespace) -> dict:
    """The stance model's own reading of the pool's sentences against the first reader's label
    (claim and sentence, as the product scores them): per-class F1 and macro-F1."""
    from claimscope.tools.read.stance import load_stance
    from evals._metrics import macro_f1, per_class

    rows = label_rows()
    claims = {str(c["id"]): c["claim"] for c in _jsonl(DATA / "scifact" / "claims_dev.jsonl")}
    docs = corpus()
    items = [r for r in rows.values() if r["claim_id"] in claims and r["doc_id"] in docs]
    pairs = [(claims[r["claim_id"]], docs[r["doc_id"]]["abstract"][int(r["sentence"])]) for r in items]
    scorer = load_stance("packaged", model_dir=args.model_dir) if args.model_dir else load_stance("packaged")
    pred = [p.label.value for p in scorer.predict(pairs)]
    gold = [r["stance"] for r in items]
    out = {"model": str(args.model_dir or "tools/read/stance_model"), "pairs": len(items),
           "macro_f1": round(macro_f1(gold, pred, ("support", "neutral", "refute")), 4),
           "per_class": per_class(gold, pred, ("support", "neutral", "refute"))}
    res = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    res[f"model_vs_readers_{args.name}"] = out
    RESULTS.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("phase", choices=["pool", "collect", "score", "model"])
    ap.add_argument("--model-dir", type=Path, default=None, help="model: a stance model folder (default: shipped)")
    ap.add_argument("--log", type=Path, default=REPO / "evals" / "work" / "verdict_runs.jsonl")
    ap.add_argument("--claims", type=int, default=40, help="pool: the first N reports of the log")
    ap.add_argument("--tag", default="e1")
    ap.add_argument("--chunk-size", type=int, default=330)
    ap.add_argument("--name", default="after", help="score: the key the figures are stored under")
    args = ap.parse_args(argv)
    {"pool": pool, "collect": collect, "score": score, "model": model_agreement}[args.phase](args)


if __name__ == "__main__":
    main()
