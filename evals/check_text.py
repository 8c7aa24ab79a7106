"""Checking whole texts, measured: claims found against readers' marks, their spans, verdicts on
paragraphs built from labelled claims, and the extraction's seconds per claim.

    python -m evals.check_text build            # the texts set -> evals/work/check_text/texts.jsonl
    python -m evals.check_text packets          # blind packets for readers (the texts only)
    python -m evals.check_text run              # extract every text's claims (timed), write the
                                                # judging packets, then investigate the FRoSC-style
                                                # paragraphs (--investigate all|none); resumable
    python -m evals.check_text judge-packets    # the tool's claims, for readers to judge
    python -m evals.check_text score            # -> evals/results/check_text.json
    python -m evals.check_text build --tune     # the tuning set -> evals/work/check_text_tune/texts.jsonl
    python -m evals.check_text tune             # extraction against the tuning labels (rules only;
                                                # --llm with the embedded model) -> check_text_tune.json
    python -m evals.check_text build --tune --tune-set 2   # the second tuning set
    python -m evals.check_text tune --tune-set 2           # -> check_text_tune2.json

The texts (none tuned on): PubMedQA abstracts with their conclusion, read as press releases;
FRoSC-style paragraphs written from SciFact TRAIN claims, mixing supported, refuted and uncovered
statements (their spans and verdicts known by construction); and opinion-heavy paragraphs.
Readers mark a text's check-worthy claims first, seeing only the text
(`evals/labels/check_text_claims.jsonl`), and judge the tool's claims afterwards
(`evals/labels/check_text_judgements.jsonl`); docs/methods/check-text-readers.md is their guide.

Tuning is done on a separate set, never on the texts above: 12 other PubMedQA abstracts (`build
--tune`), whose check-worthy claims and rejected sentences a reader marked blind
(`evals/labels/check_text_tune_claims.jsonl`, `check_text_tune_rejects.jsonl`); `tune` scores the
extraction against them without readers: recall as above, and precision as the share of the tool's
claims that lie mostly inside a reader's claim and not inside a rejected sentence.

Measures: `claim_recall` (reader claims a tool claim covers), `claim_precision` (tool claims a
reader accepts as atomic, self-contained and check-worthy), `span_correct` (tool claims whose span
a reader accepts), `verdict_macro_f1` (FRoSC-style paragraphs), `seconds_per_claim` (extraction
time per extracted claim, models loaded) and `n_texts`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from claimscope.agent.services import Services
from claimscope.tools.errors import InputError
from evals._harness import REPO, RESULTS, SHARED, WORK, code_version, write_json
from evals._metrics import macro_f1, per_class

OUT_DIR = WORK / "check_text"
TEXTS = OUT_DIR / "texts.jsonl"
LABELS = REPO / "evals" / "labels"
READER_CLAIMS = LABELS / "check_text_claims.jsonl"
JUDGEMENTS = LABELS / "check_text_judgements.jsonl"
RESULT = RESULTS / "check_text.json"
TUNE_DIR = WORK / "check_text_tune"
TUNE_CLAIMS = LABELS / "check_text_tune_claims.jsonl"
TUNE_REJECTS = LABELS / "check_text_tune_rejects.jsonl"
TUNE_RESULT = RESULTS / "check_text_tune.json"
# The tuning set: PubMedQA abstracts drawn with this seed, none of them in the evaluation set.
TUNE_SEED, TUNE_DRAW, TUNE_SIZE = 7, 16, 12
# The second tuning set: PubMedQA abstracts of another draw, in neither the evaluation set nor the
# first tuning set, and paragraphs written from SciFact TRAIN claims (TUNE2_PARAGRAPHS).
TUNE2_SEED, TUNE2_DRAW, TUNE2_SIZE = 11, 24, 16


class TuneSet(BaseModel):
    """Where a tuning set's texts, labels and result live."""

    texts_dir: Path
    claims: Path
    rejects: Path
    result: Path


TUNE_SETS = {
    1: TuneSet(texts_dir=TUNE_DIR, claims=TUNE_CLAIMS, rejects=TUNE_REJECTS, result=TUNE_RESULT),
    2: TuneSet(texts_dir=WORK / "check_text_tune2", claims=LABELS / "check_text_tune2_claims.jsonl",
               rejects=LABELS / "check_text_tune2_rejects.jsonl", result=RESULTS / "check_text_tune2.json"),
}
JUDGE_PACKETS = OUT_DIR / "judge_packets"
VERDICTS = ("supported", "refuted", "insufficient evidence")
_SCIFACT_VERDICT = {"SUPPORT": "supported", "CONTRADICT": "refuted"}
# Reader claim covered by a tool claim: this share of the reader's characters inside the tool's span.
MIN_COVER = 0.5

OPINION_PARAGRAPHS = (
    "The new cycling lanes are the best thing the council has done in years. Everyone should use them. "
    "The council plans to add twelve more kilometres next spring. Cycling to work lowers the risk of "
    "cardiovascular disease.",
    "Is a four-day week the future of work? We believe it is. Productivity is defined as output per hour "
    "worked. Shorter working weeks reduce employee burnout.",
    "This remarkable vaccine is a game changer. The ministry will offer it to every adult over 50 this "
    "autumn. Vaccination against shingles reduces the incidence of postherpetic neuralgia.",
)


# Written for the second tuning set around SciFact TRAIN claims (ids 1103, 112; 426, 430, 668, 445;
# 944, 1373; 817, 80, 222, 1230), with the sentences that trouble the extraction: method and sample
# sentences, references to a sentence before ("They", "its", "C", "The results"), a list sharing
# one predicate, a "since" clause, findings of opposite polarity in one sentence, two clauses joined
# by a semicolon, a clause without its subject, a definition, a speculative implication.
TUNE2_PARAGRAPHS = (
    "A registry study followed 2,100 patients admitted with acute ischaemic stroke. Of these, 530 had taken a "
    "direct oral anticoagulant before the stroke and 1,570 had taken warfarin. Stroke patients with prior use "
    "of direct oral anticoagulants had a lower risk of in-hospital mortality than those with prior use of "
    "warfarin. They were also less often discharged to a nursing home. Since warfarin requires regular "
    "monitoring, adherence to it is often poor, and missed doses raise the risk of a second stroke. "
    "Angiotensin converting enzyme inhibitors are associated with a decreased risk of functional renal "
    "insufficiency. These findings may inform the design of future anticoagulation trials.",
    "Forkhead O (FoxO) transcription factors are involved in apoptosis. Their activation in neuronal death is "
    "inhibited by reactive oxygen species. Loss of GATA3, loss of Klf4 and loss of PU.1 were all significantly "
    "associated with impaired haematopoiesis in mice. Klf4 is important for proper myeloid cell "
    "differentiation, whereas GATA3 regulates the self-renewal capacity of bone marrow haematopoietic stem "
    "cells. Haematopoiesis is defined as the formation of blood cells. The authors believe the findings "
    "should change how leukaemia is treated.",
    "In a trial of 240 older adults with mild Alzheimer's disease, 120 were assigned to supervised exercise "
    "(E) and 120 to usual care (C). Physical activity did not improve cognitive function in these patients. "
    "Compared with C, E was better for balance and mood but not for memory. The results were consistent "
    "across sexes. Walking in traffic areas in London does not improve lung function in elderly adults. "
    "Frailty is a syndrome of reduced physiological reserve and increased vulnerability to stressors.",
    "Myelin sheaths are lipid-rich cellular structures. Oligodendrocyte progenitor cells are the precursors of "
    "myelinating oligodendrocytes; their fate in the ageing brain is poorly defined. Acute ablation of KRAS "
    "causes severe growth impairment in adult mice. In beige fat, Ca2+ cycling is a UCP1-independent "
    "thermogenic mechanism, and it correlated inversely with weight gain. The minor G allele of FOXO3 "
    "downregulates pro-inflammatory cytokines. We think FOXO3 is an attractive target for drug development.",
)


class GoldClaim(BaseModel):
    start: int
    end: int
    verdict: str


class EvalText(BaseModel):
    id: str
    kind: Literal["press_release", "frosc", "opinion"]
    text: str
    gold: list[GoldClaim] = Field(default_factory=list, description="Built paragraphs: each labelled claim's span.")


# ------------------------------------------------------------------------------------------- build

def _join(sentences: list[tuple[str, str | None]]) -> tuple[str, list[GoldClaim]]:
    """A paragraph of `sentences` with the spans of those that carry a verdict."""
    text, gold = "", []
    for sentence, verdict in sentences:
        start = len(text) + (1 if text else 0)
        text = f"{text} {sentence}" if text else sentence
        if verdict is not None:
            gold.append(GoldClaim(start=start, end=start + len(sentence), verdict=verdict))
    return text, gold


def build_texts(*, n_press: int = 10, n_frosc: int = 10, seed: int = 0, shared: Path = SHARED) -> list[EvalText]:
    """The texts set: PubMedQA abstracts, paragraphs from SciFact TRAIN claims, opinion paragraphs."""
    rng = random.Random(seed)
    texts: list[EvalText] = []
    pubmedqa = json.loads((shared / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    for pmid in rng.sample(sorted(pubmedqa), n_press):
        row = pubmedqa[pmid]
        text = "\n\n".join([*row["CONTEXTS"], row["LONG_ANSWER"]])
        texts.append(EvalText(id=f"pubmedqa-{pmid}", kind="press_release", text=text))
    by_verdict: dict[str, list[str]] = {"supported": [], "refuted": [], "insufficient evidence": []}
    for line in (shared / "scifact" / "claims_train.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        labels = {e["label"] for ev in row.get("evidence", {}).values() for e in ev}
        verdict = "insufficient evidence" if not labels else (_SCIFACT_VERDICT[labels.pop()] if len(labels) == 1
                                                              else None)
        claim = " ".join(row["claim"].split())
        if verdict is not None and claim.endswith("."):
            by_verdict[verdict].append(claim)
    for i in range(n_frosc):
        picked = [(rng.choice(by_verdict[v]), v) for v in VERDICTS]
        rng.shuffle(picked)
        opinion = rng.choice(("We think this deserves far more attention.", "Further studies will follow.",
                              "Why has nobody asked this before?"))
        text, gold = _join([*picked[:2], (opinion, None), *picked[2:]])
        texts.append(EvalText(id=f"frosc-{i + 1:02d}", kind="frosc", text=text, gold=gold))
    texts += [EvalText(id=f"opinion-{i + 1}", kind="opinion", text=t) for i, t in enumerate(OPINION_PARAGRAPHS)]
    return texts


def build_tune_texts(shared: Path = SHARED, tune_set: int = 1) -> list[EvalText]:
    """A tuning set. The first: the first PubMedQA abstracts of a seed-7 draw that are not in the
    evaluation set (`build_texts` with its defaults). The second: those of a seed-11 draw in
    neither the evaluation set nor the first, and the paragraphs written from SciFact TRAIN claims."""
    held_out = {t.id for t in build_texts(shared=shared)}
    if tune_set == 1:
        drawn = build_texts(n_press=TUNE_DRAW, n_frosc=0, seed=TUNE_SEED, shared=shared)
        return [t for t in drawn if t.kind == "press_release" and t.id not in held_out][:TUNE_SIZE]
    held_out |= {t.id for t in build_tune_texts(shared, 1)}
    drawn = build_texts(n_press=TUNE2_DRAW, n_frosc=0, seed=TUNE2_SEED, shared=shared)
    abstracts = [t for t in drawn if t.kind == "press_release" and t.id not in held_out][:TUNE2_SIZE]
    return abstracts + [EvalText(id=f"written-{i + 1}", kind="frosc", text=t) for i, t in enumerate(TUNE2_PARAGRAPHS)]


def write_jsonl(path: Path, rows: Iterable[BaseModel]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {path}")


def read_texts(path: Path = TEXTS) -> list[EvalText]:
    return [EvalText.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# --------------------------------------------------------------------------------------------- run

# A text of our own (not in the set) whose second sentence needs the model: the warm-up call loads
# the embedded model before any text is timed, so seconds per claim are "with models loaded".
WARM_UP = "Aspirin lowers the risk of stroke in older adults. It also reduces the risk of heart attacks."
# Kinds investigated by default: only the FRoSC-style paragraphs carry verdicts to score, and each
# claim's investigation costs about a minute of both cores; the others need the extraction only.
INVESTIGATED_BY_DEFAULT = ("frosc",)


def _load() -> list[float]:
    """The load average (1, 5, 15 minutes), as `uptime` prints it."""
    return [round(x, 2) for x in os.getloadavg()]


def _write(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def extract_texts(texts: list[EvalText], services: Services, out_dir: Path, options: dict[str, Any]) -> None:
    """Extract every text's claims (models loaded first), timing each text, into `out_dir/<id>.json`
    with the record to investigate later and the report as it stands (claims pending); texts already
    there are skipped (resume)."""
    from claimscope.agent.check import prepare_check, text_report
    from claimscope.agent.investigation import default_options
    from claimscope.tools.read.claim_extraction import extract_claims

    opts = default_options(services.settings, **options)
    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [t for t in texts if not (out_dir / f"{t.id}.json").exists()]
    if todo:
        extract_claims(WARM_UP, llm=services.llm)
    for t in todo:
        load_before = _load()
        start = time.monotonic()
        record = prepare_check(t.text, services, opts, source=t.id, check_id=f"eval-{t.id}")
        seconds = time.monotonic() - start
        _write(out_dir / f"{t.id}.json", {
            "id": t.id, "kind": t.kind, "extraction_seconds": round(seconds, 4), "n_extracted": len(record.claims),
            "load_before": load_before, "load_after": _load(), "investigated": False,
            "record": record.model_dump(mode="json"), "report": text_report(record).model_dump(mode="json")})
        print(f"{t.id}: {len(record.claims)} claims extracted ({len(record.to_check())} check-worthy) in "
              f"{seconds:.2f}s, load {load_before[0]}", flush=True)


def investigate_texts(texts: list[EvalText], services: Services, out_dir: Path,
                      kinds: tuple[str, ...] = INVESTIGATED_BY_DEFAULT) -> None:
    """Investigate the check-worthy claims of the extracted texts of `kinds`, one claim after
    another with one investigator; each text's output gets the finished report. A text already
    investigated is skipped; one cut short resumes from its saved check (its finished claims kept)."""
    from claimscope.agent.check import CheckRecord, TextChecker
    from claimscope.agent.investigation import Investigator

    checker = TextChecker(Investigator(services))
    for t in texts:
        path = out_dir / f"{t.id}.json"
        if t.kind not in kinds or not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("investigated"):
            continue
        record = CheckRecord.model_validate(data["record"])
        try:
            record = checker.store.load(record.id)
        except InputError:
            pass  # never started: the extracted record
        load_before = _load()

        def say(e: Any, text_id: str = t.id) -> None:
            if e.kind in ("claim_started", "claim_finished"):
                print(f"{text_id} {e.line()}", flush=True)

        report = checker.run(record, on_event=say)
        data.update(report=report.model_dump(mode="json"), investigated=report.status == "complete",
                    investigation_load_before=load_before, investigation_load_after=_load())
        _write(path, data)
        print(f"{t.id}: {len(report.claims)} claims investigated ({report.counts()}), load {_load()[0]}",
              flush=True)


def run_texts(texts: list[EvalText], services: Services, out_dir: Path, options: dict[str, Any],
              kinds: tuple[str, ...] = INVESTIGATED_BY_DEFAULT, packets: Path | None = None) -> None:
    """Extraction on every text first (then the judging packets, when `packets` is given, so readers
    can start), then the investigations of the texts of `kinds`."""
    extract_texts(texts, services, out_dir, options)
    if packets is not None:
        write_judge_packets(read_outputs(out_dir), packets)
    investigate_texts(texts, services, out_dir, kinds)


# ----------------------------------------------------------------------------------------- readers

class ReaderClaim(BaseModel):
    """A claim a reader marked in a text, seeing only the text."""

    text_id: str
    reader: str
    start: int
    end: int
    claim: str = ""
    refs: list[str] = Field(default_factory=list, description="Words of the span that refer to something named "
                            "elsewhere in the text ('They', 'these patients'): a claim that keeps them does not read "
                            "alone (tuning labels; the strict precision counts it imprecise).")


class Judgement(BaseModel):
    """A reader's judgement of one of the tool's claims."""

    text_id: str
    claim_id: str
    reader: str
    accept: bool = Field(description="Atomic, self-contained and check-worthy.")
    span_correct: bool = Field(description="The span holds the words the claim came from, and no more than its sentence.")


def _read(path: Path, model: type[BaseModel]) -> list[Any]:
    if not path.exists():
        return []
    return [model.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_packets(texts: list[EvalText], folder: Path) -> None:
    """One Markdown file per text with only the text, for readers to mark its claims."""
    folder.mkdir(parents=True, exist_ok=True)
    for t in texts:
        (folder / f"{t.id}.md").write_text(f"# {t.id}\n\n{t.text}\n", encoding="utf-8")
    print(f"wrote {len(texts)} packets to {folder}")


def write_judge_packets(outputs: dict[str, dict[str, Any]], folder: Path) -> None:
    """One Markdown file per text listing the tool's claims with their quotes, for readers to judge."""
    folder.mkdir(parents=True, exist_ok=True)
    for text_id, out in outputs.items():
        rep = out["report"]
        lines = [f"# {text_id}", "", rep["text"], "", "## Claims to judge", ""]
        lines += [f"- {c['id']}: {c['text']}  \n  from: “{c['quote']}”" for c in rep["claims"]]
        (folder / f"{text_id}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(outputs)} judging packets to {folder}")


# ------------------------------------------------------------------------------------------- score

def _covered(reader: ReaderClaim, spans: list[tuple[int, int]]) -> bool:
    """Whether one tool claim's span holds MIN_COVER of the reader's claim."""
    return any(_inside(reader.start, reader.end, [span]) >= MIN_COVER for span in spans)


def score(texts: list[EvalText], outputs: dict[str, dict[str, Any]], reader_claims: list[ReaderClaim],
          judgements: list[Judgement]) -> dict[str, Any]:
    """The measures over the texts that have an output; a measure without labels is None."""
    done = [t for t in texts if t.id in outputs]
    spans = {t.id: [(c["start"], c["end"]) for c in outputs[t.id]["report"]["claims"]] for t in done}
    marked = [r for r in reader_claims if r.text_id in spans]
    found = [_covered(r, spans[r.text_id]) for r in marked]
    judged = [j for j in judgements if j.text_id in spans]
    gold, pred = [], []
    investigated = [t for t in done if outputs[t.id].get("investigated")]
    for t in investigated:
        claims = outputs[t.id]["report"]["claims"]
        for g in t.gold:
            hit = next((c for c in claims if c["start"] < g.end and g.start < c["end"]), None)
            gold.append(g.verdict)
            pred.append(hit["verdict"] if hit else "not checked")
    n_extracted = sum(outputs[t.id]["n_extracted"] for t in done)
    checked = [c for t in investigated for c in outputs[t.id]["report"]["claims"] if c["status"] != "pending"]
    loads = [outputs[t.id]["load_before"][0] for t in done if outputs[t.id].get("load_before")]
    inv_loads = [outputs[t.id]["investigation_load_before"][0] for t in investigated
                 if outputs[t.id].get("investigation_load_before")]

    def share(xs: list[bool]) -> float | None:
        return round(sum(xs) / len(xs), 4) if xs else None

    return {
        "n_texts": len(done),
        "n_texts_by_kind": {k: sum(t.kind == k for t in done) for k in ("press_release", "frosc", "opinion")},
        "n_reader_claims": len(marked),
        "n_tool_claims": sum(len(s) for s in spans.values()),
        "claim_recall": share(found),
        "claim_precision": share([j.accept for j in judged]),
        "span_correct": share([j.span_correct for j in judged]),
        "verdict_macro_f1": round(macro_f1(gold, pred, VERDICTS), 4) if gold else None,
        "n_verdict_claims": len(gold),
        "verdict_per_class": per_class(gold, pred, VERDICTS) if gold else None,
        "verdict_pairs": dict(sorted(Counter(f"{g} -> {p}" for g, p in zip(gold, pred, strict=True)).items())),
        "seconds_per_claim": round(sum(outputs[t.id]["extraction_seconds"] for t in done) / n_extracted, 4)
        if n_extracted else None,
        "extraction_load_1min": [min(loads), max(loads)] if loads else None,
        "n_texts_investigated": len(investigated),
        "n_claims_investigated": len(checked),
        "investigation_seconds_per_claim": round(sum(c["seconds"] for c in checked) / len(checked), 2)
        if checked else None,
        "investigation_load_1min": [min(inv_loads), max(inv_loads)] if inv_loads else None,
        "targets": {"claim_recall": 0.85, "claim_precision": 0.85, "span_correct": 0.95, "seconds_per_claim": 1.0},
        "notes": _notes(marked, judged, done, investigated),
    }


def _notes(marked: list[ReaderClaim], judged: list[Judgement], done: list[EvalText],
           investigated: list[EvalText]) -> list[str]:
    """What the figures rest on, and why a figure is None."""
    notes = []
    if marked:
        readers = sorted({r.reader for r in marked})
        notes.append(f"claim_recall pools the marks of {len(readers)} reader(s) ({', '.join(readers)}): a reader's "
                     f"claim counts as found when a tool claim's span holds {MIN_COVER:.0%} of its characters.")
    else:
        notes.append(f"claim_recall is null: no reader has marked the texts' claims yet ({READER_CLAIMS.name}).")
    if not judged:
        notes.append(f"claim_precision and span_correct are null: readers have not judged the tool's claims yet "
                     f"(judging packets in {JUDGE_PACKETS.relative_to(REPO)}, judgements to {JUDGEMENTS.name}).")
    skipped = [t.id for t in done if t.gold and t not in investigated]
    if skipped:
        notes.append(f"verdict_macro_f1 leaves out {len(skipped)} labelled paragraph(s) not investigated yet.")
    notes.append("seconds_per_claim is the extraction's wall time per extracted claim with the models loaded; "
                 "extraction_load_1min is the 1-minute load average before each text (min, max).")
    return notes


class RejectedSentence(BaseModel):
    """A sentence (or lead-in) a reader judged not check-worthy, with the reason."""

    text_id: str
    reader: str
    start: int
    end: int
    reason: str


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> float:
    """The share of [start, end) covered by `spans`."""
    covered = sum(max(0, min(end, e) - max(start, s)) for s, e in spans)
    return covered / max(1, end - start)


def _strict_fault(start: int, end: int, text: str, marked: list[ReaderClaim],
                  rejected: list[RejectedSentence]) -> str | None:
    """Why a tool claim inside the readers' claims would still be rejected, or None: it holds two
    reader claims, or a claim and a sentence they rejected ("not atomic"); it holds less than
    MIN_COVER of the reader claim it comes from ("fragment"); it keeps a word the reader marked as
    referring elsewhere in the text ("not self-contained")."""
    span = [(start, end)]
    covered = [r for r in marked if _inside(r.start, r.end, span) >= MIN_COVER]
    # A lead-in the reader rejected before their claim ("We found that") belongs to the claim's sentence.
    mixed = [r for r in rejected if "lead-in" not in r.reason and "claim marked after it" not in r.reason
             and _inside(r.start, r.end, span) >= MIN_COVER]
    if len(covered) > 1 or (covered and mixed):
        return "not atomic"
    source = max(marked, key=lambda r: _inside(start, end, [(r.start, r.end)]))
    if _inside(source.start, source.end, span) < MIN_COVER:
        return "fragment"
    if any(re.search(r"(?<!\w)" + re.escape(ref) + r"(?!\w)", text, re.I) for ref in source.refs):
        return "not self-contained"
    return None


def score_tune(texts: list[EvalText], claims: dict[str, list[tuple[int, int, str]]], reader_claims: list[ReaderClaim],
               rejects: list[RejectedSentence]) -> dict[str, Any]:
    """Extraction against the tuning labels: recall (reader claims a tool claim covers), precision
    (tool claims mostly inside reader claims and not inside a rejected sentence), and the strict
    precision, which also asks each of those to be one whole reader claim that reads alone
    (`_strict_fault`)."""
    marked = [r for r in reader_claims if r.text_id in claims]
    found = [_covered(r, [(s, e) for s, e, _ in claims[r.text_id]]) for r in marked]
    precise, strict, missed_by, faults, strict_misses = [], [], Counter(), Counter(), []
    for t in texts:
        in_text = [r for r in marked if r.text_id == t.id]
        spans = [(r.start, r.end) for r in in_text]
        rejected = [r for r in rejects if r.text_id == t.id]
        for s, e, claim in claims.get(t.id, []):
            ok = _inside(s, e, spans) >= MIN_COVER and _inside(s, e, [(r.start, r.end) for r in rejected]) < MIN_COVER
            precise.append(ok)
            if not ok:
                hit = next((r.reason for r in rejected if _inside(s, e, [(r.start, r.end)]) >= MIN_COVER), "no reader claim")
                missed_by[hit.split(":")[0]] += 1
            fault = _strict_fault(s, e, claim, in_text, rejected) if ok else None
            strict.append(ok and fault is None)
            if fault is not None:
                faults[fault] += 1
                strict_misses.append({"text_id": t.id, "start": s, "end": e, "claim": claim, "fault": fault})
    return {
        "n_texts": len(claims), "n_reader_claims": len(marked), "n_tool_claims": len(precise),
        "claim_recall": round(sum(found) / len(found), 4) if found else None,
        "claim_precision": round(sum(precise) / len(precise), 4) if precise else None,
        "claim_precision_strict": round(sum(strict) / len(strict), 4) if strict else None,
        "imprecise_by_reason": dict(sorted(missed_by.items())),
        "strict_faults": dict(sorted(faults.items())),
        "missed": [{"text_id": r.text_id, "start": r.start, "end": r.end}
                   for r, f in zip(marked, found, strict=True) if not f],
        "strict_misses": strict_misses,
    }


def run_tune(texts: list[EvalText], llm: Any = None, tune_set: TuneSet = TUNE_SETS[1]) -> dict[str, Any]:
    """The check-worthy claims' spans of every tuning text, timed, with the load around it."""
    from claimscope.tools.read.claim_extraction import extract_claims

    if llm is not None:
        extract_claims(WARM_UP, llm=llm)
    load_before = _load()
    start = time.monotonic()
    claims = {t.id: [(c.start, c.end, c.text) for c in extract_claims(t.text, llm=llm).check_worthy] for t in texts}
    seconds = time.monotonic() - start
    n = sum(len(v) for v in claims.values())
    result = score_tune(texts, claims, _read(tune_set.claims, ReaderClaim), _read(tune_set.rejects, RejectedSentence))
    return {**result, "with_model": llm is not None, "seconds_per_claim": round(seconds / n, 4) if n else None,
            "load_1min": [load_before[0], _load()[0]]}


def read_outputs(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("command", choices=("build", "packets", "run", "judge-packets", "score", "tune"))
    ap.add_argument("--tune", action="store_true", help="build: the tuning set (PubMedQA, seed 7, none of the "
                    "evaluation texts) into evals/work/check_text_tune/texts.jsonl.")
    ap.add_argument("--tune-set", type=int, choices=sorted(TUNE_SETS), default=1,
                    help="build --tune, tune: which tuning set (1: 12 PubMedQA abstracts; 2: 16 other PubMedQA "
                         "abstracts and 4 paragraphs written from SciFact TRAIN claims).")
    ap.add_argument("--llm", action="store_true", help="tune: resolve references with the embedded model too.")
    ap.add_argument("--judge-packets", type=Path, default=JUDGE_PACKETS,
                    help="run, judge-packets: the folder of the judging packets.")
    ap.add_argument("--texts", type=Path, default=TEXTS)
    ap.add_argument("--outputs", type=Path, default=OUT_DIR / "outputs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULT)
    ap.add_argument("--judgements", type=Path, default=JUDGEMENTS,
                    help="score: the readers' round-2 judgements of these outputs' claims (claim ids are per run).")
    ap.add_argument("--investigate", choices=("frosc", "all", "none"), default="frosc",
                    help="run: whose claims are investigated after every text's extraction (default: the "
                         "FRoSC-style paragraphs, the only texts with verdicts to score).")
    args = ap.parse_args(argv)
    tune_set = TUNE_SETS[args.tune_set]
    if args.command == "build" and args.tune:
        write_jsonl(tune_set.texts_dir / "texts.jsonl", build_tune_texts(tune_set=args.tune_set))
        write_packets(read_texts(tune_set.texts_dir / "texts.jsonl"), tune_set.texts_dir / "packets")
    elif args.command == "build":
        write_jsonl(args.texts, build_texts(seed=args.seed))
    elif args.command == "tune":
        llm = None
        if args.llm:
            from evals._harness import services_for

            llm = services_for().llm
        texts_path = tune_set.texts_dir / "texts.jsonl"
        if not texts_path.exists():
            raise SystemExit(f"no tuning texts at {texts_path}: build them first with "
                             f"`python -m evals.check_text build --tune --tune-set {args.tune_set}`.")
        result = run_tune(read_texts(texts_path), llm=llm, tune_set=tune_set)
        write_json(tune_set.result, {"code_version": code_version(), "tune_set": args.tune_set, **result})
        print(json.dumps({k: v for k, v in result.items() if k not in ("missed", "strict_misses")}))
    elif args.command == "packets":
        write_packets(read_texts(args.texts), OUT_DIR / "packets")
    elif args.command == "run":
        from evals._harness import ensure_corpus, services_for

        services = services_for()
        ensure_corpus(services, SHARED / "scifact" / "corpus.jsonl", "scifact")
        kinds = {"frosc": INVESTIGATED_BY_DEFAULT, "all": ("press_release", "frosc", "opinion"), "none": ()}
        run_texts(read_texts(args.texts), services, args.outputs,
                  {"corpora": ["scifact"], "sources": ["local"], "depth": args.depth},
                  kinds=kinds[args.investigate], packets=args.judge_packets)
    elif args.command == "judge-packets":
        write_judge_packets(read_outputs(args.outputs), args.judge_packets)
    else:
        result = score(read_texts(args.texts), read_outputs(args.outputs), _read(READER_CLAIMS, ReaderClaim),
                       _read(args.judgements, Judgement))
        write_json(args.out, {"code_version": code_version(), **result})


if __name__ == "__main__":
    main()
