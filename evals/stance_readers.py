"""Careful readers' labels for the evidence reader: the pool of (claim, evidence sentence) pairs they
read, the chunks handed to them, and the assembled label file the stance model trains on.

Over 600 lines: the three phases of one labelling round (pool, collect, agreement) share the pair
sources and the chunk format.

    python -m evals.stance_readers pool      # draw the pairs, write reader chunks (evals/work/)
    python -m evals.stance_readers collect   # readers' answers -> evals/labels/stance_reader_train.tsv
    python -m evals.stance_readers agreement # two-reader agreement -> evals/results/stance_readers.json

The pairs are drawn where the evidence reader fails: sentences the product's own embedding model
ranks high for a claim from abstracts the claim does not cite (same subject, another relation,
another population, no direction stated), the claim's own abstracts (findings, background, aims),
negated and direction-swapped claims against their evidence, claims built from Evidence Inference
prompts in every direction against the trial's finding (and against another outcome's finding),
and statements written from PubMedQA questions (and their negations) against the abstract's
conclusion and results.

Disjoint from every evaluation set: no SciFact dev or test claim, no abstract that a SciFact dev or
test claim cites (read only through their cited_doc_ids), no SciFact TRAIN claim that cites such an
abstract; Evidence Inference TRAIN articles only; no HealthVer or Check-COVID data at all.

The committed label file holds references (claim and sentence ids, the rule that built a claim)
and the readers' labels, not the source texts: `reader_examples()` rebuilds the texts from the
public data (SciFact CC BY-NC 2.0, Evidence Inference MIT, PubMedQA MIT; see the guide).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("CLAIMSCOPE_SHARED_DATA", REPO.parent / "shared" / "data"))
WORK = REPO / "evals" / "work" / "stance_readers"
LABELS_DIR = REPO / "evals" / "labels"
LABEL_FILE = LABELS_DIR / "stance_reader_train.tsv"
PUBMEDQA_CLAIMS = LABELS_DIR / "pubmedqa_statements.tsv"
GUIDE = REPO / "docs" / "methods" / "evidence-labelling-guide.md"
RESULTS = REPO / "evals" / "results" / "stance_readers.json"
SEED = 29
STANCES = {"S": "support", "N": "neutral", "R": "refute"}

csv.field_size_limit(10**8)


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _h(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16)


def _clean(text: str) -> str:
    return " ".join(str(text).split())


# ------------------------------------------------------------------------------------ sources


def excluded_scifact_docs() -> set[int]:
    """Abstracts that SciFact dev or test claims cite (only their cited_doc_ids are read)."""
    out: set[int] = set()
    for name in ("claims_dev.jsonl", "claims_test.jsonl"):
        for c in _jsonl(DATA / "scifact" / name):
            out.update(int(d) for d in c.get("cited_doc_ids", []))
    return out


def scifact_corpus() -> dict[int, dict]:
    return {int(d["doc_id"]): d for d in _jsonl(DATA / "scifact" / "corpus.jsonl")}


def scifact_train_claims() -> list[dict]:
    """SciFact TRAIN claims that cite no abstract a dev or test claim cites."""
    bad = excluded_scifact_docs()
    return [c for c in _jsonl(DATA / "scifact" / "claims_train.jsonl")
            if not any(int(d) in bad for d in c["cited_doc_ids"])]


def ei_train() -> tuple[dict[str, dict], list[dict]]:
    """Evidence Inference TRAIN: prompts by id and valid annotations of TRAIN articles."""
    base = DATA / "evidence_inference"
    train_ids = set((base / "ev2_train_article_ids.txt").read_text().split())
    with (base / "prompts_merged.csv").open(encoding="utf-8") as f:
        prompts = {r["PromptID"]: r for r in csv.DictReader(f) if r["PMCID"] in train_ids}
    with (base / "v2_annotations.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f)
                if r["PMCID"] in train_ids and r["PromptID"] in prompts and r["Valid Label"] == "True"]
    return prompts, rows


def pubmedqa() -> dict[str, dict]:
    return json.loads((DATA / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- claim building

_EI_VERB = {"increase": "increases", "decrease": "decreases", "none": "does not change"}


def ei_claim(prompt: dict, direction: str) -> str:
    """A claim written from an Evidence Inference prompt in one direction."""
    i = _clean(prompt["Intervention"]).rstrip(". ")
    o = _clean(prompt["Outcome"]).rstrip(". ")
    c = _clean(prompt["Comparator"]).rstrip(". ")
    return f"{i[:1].upper() + i[1:]} {_EI_VERB[direction]} {o} compared with {c}."


def ei_direction(label: str) -> str:
    low = label.lower()
    if "increase" in low:
        return "increase"
    if "decrease" in low:
        return "decrease"
    return "none"


def ei_evidence(row: dict) -> str:
    return _clean(row["Annotations"])


def _neg(claim: str) -> str | None:
    from claimscope.tools.read.claim_analysis import negate_claim

    out = negate_claim(claim)
    return None if out.startswith("It is not the case") else out


def _swap(claim: str) -> str | None:
    from evals.train_stance import swap_direction

    return swap_direction(claim)


def pubmedqa_statements() -> dict[str, str]:
    """Statements written by readers from PubMedQA questions (PMID -> statement)."""
    if not PUBMEDQA_CLAIMS.is_file():
        return {}
    out = {}
    with PUBMEDQA_CLAIMS.open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            pmid, statement = line.rstrip("\n").split("\t")[:2]
            if pmid != "pmid" and statement.strip():
                out[pmid] = statement.strip()
    return out


def pubmedqa_sentences(item: dict) -> tuple[list[str], list[str]]:
    """(results sentences of the context, conclusion sentences)."""
    from claimscope.tools.text.segmenter import split_sentences

    results: list[str] = []
    for lab, ctx in zip(item["LABELS"], item["CONTEXTS"], strict=False):
        if "RESULT" in lab.upper() or "FINDING" in lab.upper():
            results += split_sentences(ctx)
    return results, split_sentences(item["LONG_ANSWER"])


# ---------------------------------------------------------------------------- resolving refs


class Resolver:
    """Texts for the references stored in the label file (claims, sentences, titles, context)."""

    def __init__(self) -> None:
        self._corpus: dict[int, dict] | None = None
        self._claims: dict[int, str] | None = None
        self._ei: tuple[dict[str, dict], dict[str, dict]] | None = None
        self._pq: dict[str, dict] | None = None
        self._pq_claims: dict[str, str] | None = None

    @property
    def corpus(self) -> dict[int, dict]:
        if self._corpus is None:
            self._corpus = scifact_corpus()
        return self._corpus

    def scifact_claim(self, cid: int) -> str:
        if self._claims is None:
            self._claims = {int(c["id"]): c["claim"] for c in _jsonl(DATA / "scifact" / "claims_train.jsonl")}
        return self._claims[cid]

    def ei(self) -> tuple[dict[str, dict], dict[str, dict]]:
        if self._ei is None:
            prompts, rows = ei_train()
            self._ei = (prompts, {f"{r['UserID']}-{r['PromptID']}": r for r in rows})
        return self._ei

    def pq(self) -> dict[str, dict]:
        if self._pq is None:
            self._pq = pubmedqa()
        return self._pq

    def claim(self, ref: str) -> str | None:
        """scifact:ID[:neg|:swap] | ei:PROMPT:DIRECTION | pubmedqa:PMID[:neg]."""
        parts = ref.split(":")
        if parts[0] == "scifact":
            text = self.scifact_claim(int(parts[1]))
            if len(parts) > 2:
                return _neg(text) if parts[2] == "neg" else _swap(text)
            return text
        if parts[0] == "ei":
            prompts, _ = self.ei()
            return ei_claim(prompts[parts[1]], parts[2])
        if parts[0] == "pubmedqa":
            if self._pq_claims is None:
                self._pq_claims = pubmedqa_statements()
            text = self._pq_claims.get(parts[1])
            if text is None:
                return None
            return _neg(text) if len(parts) > 2 and parts[2] == "neg" else text
        raise ValueError(f"unknown claim ref {ref}")

    def evidence(self, ref: str) -> tuple[str, str, str]:
        """(title, sentence, neighbouring sentence) for scifact:DOC:I | ei:USER-PROMPT |
        pubmedqa:PMID:r|c:I."""
        parts = ref.split(":")
        if parts[0] == "scifact":
            doc = self.corpus[int(parts[1])]
            i = int(parts[2])
            sents = doc["abstract"]
            ctx = sents[i - 1] if i > 0 else (sents[i + 1] if len(sents) > 1 else "")
            return _clean(doc["title"]), _clean(sents[i]), _clean(ctx)
        if parts[0] == "ei":
            _, rows = self.ei()
            return "", ei_evidence(rows[parts[1]]), ""
        if parts[0] == "pubmedqa":
            results, concl = pubmedqa_sentences(self.pq()[parts[1]])
            sents = results if parts[2] == "r" else concl
            i = int(parts[3])
            ctx = sents[i - 1] if i > 0 else (sents[i + 1] if len(sents) > 1 else "")
            return "", _clean(sents[i]), _clean(ctx)
        raise ValueError(f"unknown evidence ref {ref}")


# --------------------------------------------------------------------------------- the pool


def _embedder():
    from claimscope.tools.find.embeddings import SentenceEmbedder

    return SentenceEmbedder("packaged:all-MiniLM-L6-v2")


def scifact_pairs(rng: random.Random, hard_per_claim: int = 4) -> list[dict]:
    import numpy as np

    corpus = scifact_corpus()
    bad = excluded_scifact_docs()
    claims = scifact_train_claims()
    allowed = [d for d in sorted(corpus) if d not in bad]
    sent_refs: list[tuple[int, int]] = []
    texts: list[str] = []
    for d in allowed:
        for i, s in enumerate(corpus[d]["abstract"]):
            sent_refs.append((d, i))
            # Sentences are embedded with their title, as the product's store does.
            texts.append(f"{corpus[d]['title']}. {s}")
    emb_path = WORK / "scifact_sentence_emb.npy"
    model = _embedder()
    if emb_path.is_file() and np.load(emb_path).shape[0] == len(texts):
        mat = np.load(emb_path)
    else:
        print(f"embedding {len(texts)} sentences ...", file=sys.stderr, flush=True)
        mat = np.asarray(model.encode(texts), dtype=np.float32)
        WORK.mkdir(parents=True, exist_ok=True)
        np.save(emb_path, mat)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True) + 1e-9
    cvec = np.asarray(model.encode([c["claim"] for c in claims]), dtype=np.float32)
    cvec /= np.linalg.norm(cvec, axis=1, keepdims=True) + 1e-9
    out: list[dict] = []
    for c, v in zip(claims, cvec, strict=True):
        cid = int(c["id"])
        cref = f"scifact:{cid}"
        cited = {int(d) for d in c["cited_doc_ids"]}
        gold: list[tuple[int, int]] = []
        for did, rsets in c["evidence"].items():
            for r in rsets:
                gold += [(int(did), i) for i in r["sentences"]]
        gold = sorted(set(gold))
        for d, i in gold:
            out.append({"claim_ref": cref, "ev_ref": f"scifact:{d}:{i}", "kind": "cited_rationale"})
        # Other sentences of the claim's own abstracts: background, aims, methods, side findings.
        others = [(d, i) for d in sorted(cited) if d in corpus for i in range(len(corpus[d]["abstract"]))
                  if (d, i) not in gold]
        for d, i in rng.sample(others, min(2, len(others))):
            out.append({"claim_ref": cref, "ev_ref": f"scifact:{d}:{i}", "kind": "cited_other"})
        # Hard negatives: the embedding model's top sentences from abstracts the claim does not cite,
        # one per abstract.
        sims = mat @ v
        top = np.argsort(-sims)[:200]
        seen_docs: set[int] = set()
        taken = 0
        for j in top:
            d, i = sent_refs[int(j)]
            if d in cited or d in seen_docs:
                continue
            seen_docs.add(d)
            out.append({"claim_ref": cref, "ev_ref": f"scifact:{d}:{i}", "kind": "retrieved_uncited"})
            taken += 1
            if taken >= hard_per_claim:
                break
        if gold:
            d, i = rng.choice(gold)
            neg = _neg(c["claim"])
            if neg and rng.random() < 0.45:
                out.append({"claim_ref": cref + ":neg", "ev_ref": f"scifact:{d}:{i}", "kind": "negated_claim"})
            sw = _swap(c["claim"])
            if sw:
                out.append({"claim_ref": cref + ":swap", "ev_ref": f"scifact:{d}:{i}", "kind": "swapped_claim"})
    return out


def ei_pairs(rng: random.Random, n: int = 1100, other_outcome: int = 400) -> list[dict]:
    prompts, rows = ei_train()
    by_prompt: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        ev = ei_evidence(r)
        if 25 <= len(ev) <= 600 and len(_clean(prompts[r["PromptID"]]["Intervention"])) <= 160:
            by_prompt[r["PromptID"]].append(r)
    pids = sorted(by_prompt, key=lambda p: _h(f"ei:{p}"))
    by_article: dict[str, list[str]] = defaultdict(list)
    for p in pids:
        by_article[prompts[p]["PMCID"]].append(p)
    out: list[dict] = []
    for p in pids[:n]:
        r = by_prompt[p][0]
        direction = rng.choice(["increase", "decrease", "none"])
        out.append({"claim_ref": f"ei:{p}:{direction}", "ev_ref": f"ei:{r['UserID']}-{p}", "kind": "ei_finding"})
    # The same trial's finding on another outcome or another comparison.
    k = 0
    for p in pids[n:]:
        sib = [q for q in by_article[prompts[p]["PMCID"]] if q != p and
               _clean(prompts[q]["Outcome"]).lower() != _clean(prompts[p]["Outcome"]).lower()]
        if not sib:
            continue
        q = sib[0]
        r = by_prompt[q][0]
        direction = rng.choice(["increase", "decrease", "none"])
        out.append({"claim_ref": f"ei:{p}:{direction}", "ev_ref": f"ei:{r['UserID']}-{q}", "kind": "ei_other_outcome"})
        k += 1
        if k >= other_outcome:
            break
    return out


def pubmedqa_pairs(rng: random.Random) -> list[dict]:
    statements = pubmedqa_statements()
    pq = pubmedqa()
    out: list[dict] = []
    for pmid in sorted(statements, key=lambda p: _h(f"pq:{p}")):
        results, concl = pubmedqa_sentences(pq[pmid])
        cref = f"pubmedqa:{pmid}" + (":neg" if rng.random() < 0.5 and _neg(statements[pmid]) else "")
        if concl:
            out.append({"claim_ref": cref, "ev_ref": f"pubmedqa:{pmid}:c:0", "kind": "pubmedqa_conclusion"})
        if results:
            i = rng.randrange(len(results))
            out.append({"claim_ref": cref, "ev_ref": f"pubmedqa:{pmid}:r:{i}", "kind": "pubmedqa_result"})
    return out


def build_pool(args: argparse.Namespace) -> None:
    rng = random.Random(SEED)
    WORK.mkdir(parents=True, exist_ok=True)
    items: list[dict] = []
    if "scifact" in args.sources:
        items += scifact_pairs(rng, hard_per_claim=args.hard)
    if "ei" in args.sources:
        items += ei_pairs(rng)
    if "pubmedqa" in args.sources:
        items += pubmedqa_pairs(rng)
    res = Resolver()
    # Pairs already in another pool are not read again.
    seen: set[tuple[str, str]] = {(p["claim_ref"], p["ev_ref"]) for path in sorted(WORK.glob("pool_*.jsonl"))
                                  if path.name != f"pool_{args.tag}.jsonl" for p in _jsonl(path)}
    pool: list[dict] = []
    for it in items:
        key = (it["claim_ref"], it["ev_ref"])
        if key in seen:
            continue
        claim = res.claim(it["claim_ref"])
        if not claim:
            continue
        seen.add(key)
        title, sent, ctx = res.evidence(it["ev_ref"])
        pool.append({**it, "id": "p" + hashlib.sha1(f"{key}".encode()).hexdigest()[:10],
                     "claim": claim, "title": title, "sentence": sent, "context": ctx})
    tag = args.tag
    (WORK / f"pool_{tag}.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pool), encoding="utf-8")
    print(f"{len(pool)} pairs: {dict(Counter(p['kind'] for p in pool))}")
    write_chunks(pool, tag, args.chunk_size, args.second_share)


def _render(items: list[dict]) -> str:
    """One chunk as the readers see it: the claim once, then its numbered sentences."""
    lines: list[str] = []
    by_claim: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_claim[it["claim"]].append(it)
    for claim, group in by_claim.items():
        lines.append(f"\n## CLAIM: {claim}\n")
        for it in group:
            lines.append(f"[{it['id']}]")
            if it["title"]:
                lines.append(f"  TITLE: {it['title']}")
            if it["context"]:
                lines.append(f"  NEIGHBOUR: {it['context']}")
            lines.append(f"  SENTENCE: {it['sentence']}")
            lines.append("")
    return "\n".join(lines) + "\n"


def write_chunks(pool: list[dict], tag: str, size: int, second_share: float) -> None:
    """Primary chunks keep a claim's pairs together (claims in hashed order); second-reader chunks
    take a hashed share of the pool's claims, whole."""
    cdir = WORK / "chunks"
    cdir.mkdir(parents=True, exist_ok=True)
    by_claim: dict[str, list[dict]] = defaultdict(list)
    for p in pool:
        by_claim[p["claim_ref"]].append(p)
    order = sorted(by_claim, key=lambda c: _h(f"{tag}:{c}"))
    chunks: list[list[dict]] = [[]]
    for c in order:
        if len(chunks[-1]) >= size:
            chunks.append([])
        chunks[-1].extend(by_claim[c])
    second: list[dict] = []
    for c in order:
        if (_h(f"second:{c}") % 1000) < second_share * 1000:
            second.extend(by_claim[c])
    for n, ch in enumerate(chunks, 1):
        (cdir / f"{tag}_{n:02d}.md").write_text(_render(ch), encoding="utf-8")
    for n in range(0, len(second), size):
        (cdir / f"{tag}_second_{n // size + 1:02d}.md").write_text(_render(second[n:n + size]), encoding="utf-8")
    print(f"{len(chunks)} chunks of ~{size}; {len(second)} pairs for a second reader "
          f"({(len(second) + size - 1) // size} chunks) in {cdir}")


# ------------------------------------------------------------------------------ the answers


def read_answers(paths: Iterable[Path]) -> dict[str, tuple[str, str]]:
    """id -> (stance, speaks) from readers' answer files: `ID<TAB>S|N|R<TAB>Y|N` per line."""
    out: dict[str, tuple[str, str]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = [p.strip() for p in re.split(r"\t|\s*\|\s*|,", line.strip()) if p.strip()]
            if len(parts) < 3 or not re.fullmatch(r"[pe][0-9a-f]{10}", parts[0]):
                continue
            s, r = parts[1].upper()[:1], parts[2].upper()[:1]
            if s in STANCES and r in ("Y", "N"):
                out[parts[0]] = (s, r)
    return out


def _pools() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in sorted(WORK.glob("pool_*.jsonl")):
        for p in _jsonl(path):
            out[p["id"]] = p
    return out


def collect(args: argparse.Namespace) -> None:
    pool = _pools()
    adir = WORK / "answers"
    first = read_answers(sorted(p for p in adir.glob("*.tsv") if "_second_" not in p.name))
    second = read_answers(sorted(adir.glob("*_second_*.tsv")))
    rows = []
    for pid in sorted(first, key=lambda k: (pool[k]["claim_ref"], pool[k]["ev_ref"]) if k in pool else ("", k)):
        if pid not in pool:
            continue
        p = pool[pid]
        s2, r2 = second.get(pid, ("", ""))
        rows.append([pid, p["kind"], p["claim_ref"], p["ev_ref"], STANCES[first[pid][0]], first[pid][1],
                     STANCES.get(s2, ""), r2])
    header = [
        "# Evidence reader training labels: careful readers' stance of one sentence (with its title and a",
        "# neighbouring sentence) toward a claim, and whether it speaks to the claim's own relation.",
        "# Readers saw only the claim, the text and docs/methods/evidence-labelling-guide.md, never a",
        "# model's output. Built by `python -m evals.stance_readers pool|collect`; texts are rebuilt from",
        "# the public data by evals.stance_readers.reader_examples (SciFact TRAIN claims and corpus, CC BY-NC",
        "# 2.0; Evidence Inference 2.0 TRAIN, MIT; PubMedQA PQA-L, MIT, with statements in",
        "# pubmedqa_statements.tsv). Never drawn from SciFact dev/test claims or the abstracts they cite.",
        "# stance/speaks: first reader; stance2/speaks2: an independent second reader where one read it.",
    ]
    with LABEL_FILE.open("w", encoding="utf-8") as f:
        f.write("\n".join(header) + "\n")
        f.write("\t".join(["id", "kind", "claim_ref", "evidence_ref", "stance", "speaks", "stance2", "speaks2"]) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} labelled pairs ({sum(1 for r in rows if r[6])} read twice) -> {LABEL_FILE}")
    print(dict(Counter(r[4] for r in rows)), dict(Counter(r[1] for r in rows)))


def label_rows(path: Path = LABEL_FILE) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def cohen_kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    if n == 0:
        return float("nan")
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def agreement(args: argparse.Namespace) -> dict:
    rows = [r for r in label_rows() if r["stance2"]]
    a, b = [r["stance"] for r in rows], [r["stance2"] for r in rows]
    sa, sb = [r["speaks"] for r in rows], [r["speaks2"] for r in rows]
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    out = {
        "n_labelled": len(label_rows()),
        "n_double": len(rows),
        "stance_agreement": round(sum(x == y for x, y in zip(a, b, strict=True)) / max(1, len(rows)), 4),
        "stance_kappa": round(cohen_kappa(a, b), 4),
        "speaks_agreement": round(sum(x == y for x, y in zip(sa, sb, strict=True)) / max(1, len(rows)), 4),
        "speaks_kappa": round(cohen_kappa(sa, sb), 4),
        "stance_agreement_by_kind": {k: {"n": len(v), "agreement": round(sum(r["stance"] == r["stance2"] for r in v)
                                                                          / len(v), 4)}
                                     for k, v in sorted(by_kind.items())},
        "confusion": dict(Counter(f"{x}/{y}" for x, y in zip(a, b, strict=True))),
        "label_counts": dict(Counter(r["stance"] for r in label_rows())),
        "command": "python -m evals.stance_readers agreement",
    }
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


COMPOSED = LABELS_DIR / "stance_composed_claims.tsv"
_DIRECTIONAL = re.compile(r"\b(increase|decrease|reduc|lower|higher|rais|improv|wors|prevent|protect|risk|surviv|"
                          r"mortality|death|progress|inhibit|promot|enhanc|impair|suppress|less|more|slow|fast|"
                          r"benefit|harm|effective|associated)", re.I)


def write_composition_chunks(args: argparse.Namespace) -> None:
    """Chunks for writers of composed-direction claims: TRAIN-split pairs readers labelled support or
    refute whose claim states a direction. A writer restates the claim so that its direction has to be
    composed (survival <-> death, risk <-> protection, slower progression <-> longer survival), once
    with the same meaning and once with the opposite; the reader's label carries over (flipped for the
    opposite)."""
    from evals.train_stance import split_of

    pool = _pools()
    rows = [r for r in label_rows() if r["stance"] in ("support", "refute") and (not r["stance2"] or
                                                                               r["stance2"] == r["stance"])]
    keep = []
    for r in rows:
        parts = r["claim_ref"].split(":")
        p = pool.get(r["id"])
        if p and split_of(f"{parts[0]}:{parts[1]}") == "train" and _DIRECTIONAL.search(p["claim"]):
            keep.append(p)
    keep.sort(key=lambda p: _h(f"compose:{p['id']}"))
    keep = keep[: args.compose_n]
    cdir = WORK / "compose"
    cdir.mkdir(parents=True, exist_ok=True)
    size = args.chunk_size
    for n in range(0, len(keep), size):
        lines = []
        for p in keep[n:n + size]:
            lines += [f"[{p['id']}]", f"  CLAIM: {p['claim']}", f"  SENTENCE: {p['sentence']}", ""]
        (cdir / f"c_{n // size + 1:02d}.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(keep)} pairs in {(len(keep) + size - 1) // size} chunks in {cdir}")


def collect_compositions(args: argparse.Namespace) -> None:
    out: dict[str, tuple[str, str]] = {}
    for path in sorted((WORK / "compose").glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) >= 3 and re.fullmatch(r"p[0-9a-f]{10}", parts[0].strip()):
                same, opp = parts[1].strip(), parts[2].strip()
                out[parts[0].strip()] = ("" if same in ("-", "") else same, "" if opp in ("-", "") else opp)
    with COMPOSED.open("w", encoding="utf-8") as f:
        f.write("# Claims restated by writers so that their direction has to be composed (the same meaning, and the\n"
                "# opposite), for TRAIN-split pairs of stance_reader_train.tsv that readers labelled support or refute.\n"
                "# The pair's reader label carries over to `same` and flips for `opposite`. Built by\n"
                "# `python -m evals.stance_readers compose|compose-collect`. '-' = the writer found no natural restatement.\n")
        f.write("id\tsame\topposite\n")
        for pid in sorted(out):
            same, opp = out[pid]
            f.write(f"{pid}\t{same or '-'}\t{opp or '-'}\n")
    print(f"{len(out)} restated claims -> {COMPOSED}")


def composed_claims(path: Path = COMPOSED) -> dict[str, tuple[str, str]]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        if line.startswith("#") or line.startswith("id\t"):
            continue
        pid, same, opp = (line.split("\t") + ["-", "-"])[:3]
        out[pid] = ("" if same == "-" else same, "" if opp == "-" else opp)
    return out


def reader_examples(path: Path = LABEL_FILE) -> list[dict]:
    """The labelled pairs with their texts rebuilt from the public data: claim, title, sentence,
    context, stance (support/neutral/refute), speaks (bool), kind, and the second reader's stance.
    Pairs whose readers disagree keep the first reader's label only when the second said nothing."""
    res = Resolver()
    out = []
    for r in label_rows(path):
        claim = res.claim(r["claim_ref"])
        if not claim:
            continue
        title, sent, ctx = res.evidence(r["evidence_ref"])
        out.append({"id": r["id"], "claim": claim, "title": title, "sentence": sent, "context": ctx, "stance": r["stance"],
                    "speaks": r["speaks"] == "Y", "kind": r["kind"], "claim_ref": r["claim_ref"],
                    "stance2": r["stance2"] or None})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("phase", choices=["pool", "collect", "agreement", "compose", "compose-collect"])
    ap.add_argument("--compose-n", type=int, default=900, help="compose: pairs handed to writers")
    ap.add_argument("--sources", default="scifact,ei,pubmedqa")
    ap.add_argument("--tag", default="a", help="pool name (chunks are named after it)")
    ap.add_argument("--chunk-size", type=int, default=350)
    ap.add_argument("--hard", type=int, default=4, help="retrieved sentences per SciFact claim, one per abstract")
    ap.add_argument("--second-share", type=float, default=0.11)
    args = ap.parse_args(argv)
    {"pool": build_pool, "collect": collect, "agreement": agreement, "compose": write_composition_chunks,
     "compose-collect": collect_compositions}[args.phase](args)


if __name__ == "__main__":
    main()
