"""The automatic rubric of an analysis (aspect tree, perspectives, explanation), computed the same way
for every investigation, and its check against ClaimSpect's human judgements.

    python -m evals.rubric            # agreement with ClaimSpect's human judgements

Per investigation (`tree_rubric`, used by evals.hierarchy_scifact and evals.verdict_open):

- segment relevance of a node's top-5 segments: a segment is relevant when it addresses the claim
  (the claim's evidence test, tools.read.relevance: for an empirical claim its own text covers both ends
  of the claim's relation; for a debate claim the argument model reads it as for or against) and is
  about the aspect (cosine with the aspect's wording
  >= tools.read.relevance.ASPECT_MIN_SIMILARITY). This is the test the tree is grown with, so it is
  checked once against human judges here before its numbers are trusted;
- off-claim nodes: nodes with segments of which fewer than half address the claim;
- copied names: node names or descriptions whose words are >= 80% inside one source sentence the
  model was shown (the node's and its parent's top segments);
- sibling uniqueness: share of sibling pairs below cosine 0.8 (tools.read.relevance.sibling_uniqueness);
- degenerate text: model-written fields failing the text guard before any fallback (the gateway's
  count), and the report's text fields failing it after (what a reader sees);
- attribution: explanation sentences and perspective sentences traced to what they cite.

The human check (`main`): ClaimSpect's `human_align` files hold 10 segment-quality judgements
(share of 5 segments relevant to a sub-aspect of a claim) and 10 uniqueness judgements (of a whole
taxonomy); the rubric scores the same items and the agreement is written to
evals/results/rubric_alignment.json.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
from pathlib import Path
from typing import Any

from evals._harness import RESULTS, SHARED, write_json

TOP_SEGMENTS = 5
UNIQUENESS_THRESHOLD = 0.8
OFF_CLAIM_SHARE = 0.5


def tree_rubric(state: dict[str, Any], services: Any) -> dict[str, Any]:
    """The rubric's counts for one investigation's state (empty counts when it built no tree)."""
    from claimscope.agent.graph.readers import claim_reading
    from claimscope.tools.read.hierarchy import AspectTree
    from claimscope.tools.read.relevance import node_relevance, sibling_uniqueness
    from claimscope.tools.text.text_guard import copied_from, text_problems

    out: dict[str, Any] = {"nodes": 0, "nodes_with_segments": 0, "relevance": [], "offclaim_nodes": 0,
                           "copied_fields": 0, "name_fields": 0, "uniqueness": None,
                           "fields_checked": 0, "fields_degenerate_after": 0, "degenerate_examples": []}
    claim = state.get("claim", "")
    if state.get("tree"):
        tree = AspectTree.model_validate(state["tree"])
        _, test = claim_reading(state, services)  # type: ignore[arg-type]
        keys = {k for n in tree.walk() for k in n.segment_keys[:TOP_SEGMENTS]}
        segs = {s.key: s for s in services.store.get_segments(sorted(keys))} if keys else {}
        for node in tree.walk():
            if node.id == "root":
                continue
            out["nodes"] += 1
            top = [segs[k] for k in node.segment_keys[:TOP_SEGMENTS] if k in segs]
            parent = tree.nodes.get(node.parent_id or "root")
            shown = [segs[k].text for k in (parent.segment_keys[:TOP_SEGMENTS] if parent else []) if k in segs]
            shown += [s.text for s in top]
            for text in (node.name, node.description):
                out["name_fields"] += 1
                out["copied_fields"] += copied_from(text, shown) is not None
            if not top:
                continue
            out["nodes_with_segments"] += 1
            rel = node_relevance(test, node, tree.ancestors(node.id), top, services.embedder)
            out["relevance"].append(len(rel.relevant) / len(top))
            out["offclaim_nodes"] += sum(rel.on_claim.values()) / len(top) < OFF_CLAIM_SHARE
        out["uniqueness"] = sibling_uniqueness(tree, services.embedder, UNIQUENESS_THRESHOLD)
    for text in report_texts(state):
        out["fields_checked"] += 1
        if problems := text_problems(text, reference=claim):
            out["fields_degenerate_after"] += 1
            out["degenerate_examples"].append({"text": text[:160], "problems": problems})
    usage = state.get("usage") or {}
    out["fields_generated"] = int(sum((u.get("text_fields") or 0) for u in usage.values()))
    out["fields_degenerate_before"] = int(sum((u.get("degenerate_fields") or 0) for u in usage.values()))
    out["regenerated"] = int(sum((u.get("regenerated") or 0) for u in usage.values()))
    out["fell_back"] = int(sum((u.get("fell_back") or 0) for u in usage.values()))
    persp = list((state.get("perspectives") or {}).values())
    out["perspective_sentences"] = sum(int(p.get("sentences_checked") or 0) for p in persp)
    out["perspective_supported"] = sum(int(p.get("sentences_supported") or 0) for p in persp)
    return out


def report_texts(state: dict[str, Any]) -> list[str]:
    """The model-written (or fallback) text fields a reader sees in the report. A quote of a cited
    sentence is the source's own text, not something the model wrote, and is left out."""
    from claimscope.tools.explain.wording import source_words

    report = state.get("report") or {}

    def quoted(text: str, citations: list[dict[str, Any]]) -> bool:
        # A quote clipped to the field's length ends in "…" and starts its sentence.
        t = " ".join(source_words(text).split())  # a finding quoted as the authors' words is theirs
        clipped = t[:-1].rstrip() if t.endswith("…") else ""
        for c in citations:
            source = " ".join(str(c.get("text") or "").split())
            if t == source or (clipped and source.startswith(clipped)):
                return True
        return False

    texts: list[str] = []
    for node in (report.get("hierarchy") or {}).get("nodes", []):
        if node.get("id") != "root":
            texts += [node.get("name", ""), node.get("description", "")]
        texts += [p.get("summary", "") for p in node.get("perspectives", [])
                  if not quoted(p.get("summary", ""), p.get("citations", []))]
    texts += [s.get("text", "") for s in (report.get("explanation") or {}).get("sentences", [])
              if s.get("status") != "dropped" and not quoted(s.get("text", ""), s.get("citations", []))]
    for a in (state.get("assessments") or {}).values():
        tk = a.get("takeaway") or {}
        if tk.get("mode") != "extractive":  # an extractive takeaway quotes the abstract
            texts.append(tk.get("text", ""))
    return [t for t in texts if t and t.strip()]


def summarise_rubric(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures over investigations: means over nodes (relevance) and over fields (rates)."""
    rel = [x for r in rows for x in r["relevance"]]
    nodes_seg = sum(r["nodes_with_segments"] for r in rows)
    uniq = [r["uniqueness"] for r in rows if r["uniqueness"] is not None]
    gen = sum(r["fields_generated"] for r in rows)
    checked = sum(r["fields_checked"] for r in rows)
    names = sum(r["name_fields"] for r in rows)
    p_sent = sum(r["perspective_sentences"] for r in rows)

    def rate(num: float, den: float) -> float | None:
        return round(num / den, 4) if den else None

    return {
        "claims_with_tree": sum(1 for r in rows if r["nodes"]),
        "nodes": sum(r["nodes"] for r in rows),
        "nodes_with_segments": nodes_seg,
        "segment_relevance_top5": round(statistics.mean(rel), 4) if rel else None,
        "offclaim_node_rate": rate(sum(r["offclaim_nodes"] for r in rows), nodes_seg),
        "sentence_name_rate": rate(sum(r["copied_fields"] for r in rows), names),
        "sibling_uniqueness": round(statistics.mean(uniq), 4) if uniq else None,
        "degenerate_text_rate_before_fallback": rate(sum(r["fields_degenerate_before"] for r in rows), gen),
        "degenerate_text_rate_after_fallback": rate(sum(r["fields_degenerate_after"] for r in rows), checked),
        "text_fields_generated": gen,
        "report_text_fields": checked,
        "answers_regenerated": sum(r["regenerated"] for r in rows),
        "answers_fell_back": sum(r["fell_back"] for r in rows),
        "perspective_sentences": p_sent,
        "perspective_attribution_pass_rate": rate(sum(r["perspective_supported"] for r in rows), p_sent),
        "degenerate_examples_after": [e for r in rows for e in r["degenerate_examples"]][:5],
    }


# ---------------------------------------------------------------------------------------------
# agreement with ClaimSpect's human judgements

_CONTENT = re.compile(r"content=(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")


def _segment_text(raw: str) -> str:
    m = _CONTENT.search(raw)
    return ast.literal_eval(m.group(1)) if m else raw


def _aspect(raw: str) -> tuple[str, str]:
    """'dual_use_biotechnology (This subaspect involves ...)' -> (name, description)."""
    name, _, rest = raw.partition(" (")
    return name, rest.rstrip(")")


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3 or statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return None
    return round(statistics.correlation(xs, ys), 4)


def segment_quality_agreement(path: Path, services: Any) -> dict[str, Any]:
    from claimscope.tools.models import Segment
    from claimscope.tools.read.hierarchy import AspectNode, AspectTree
    from claimscope.tools.read.relevance import RelationTest, node_relevance

    data = json.loads(path.read_text())
    ours, human, llm, items = [], [], [], []
    for inst in data["instances"]:
        name, description = _aspect(inst["aspect_name"]["aspect_name"])
        tree = AspectTree.new(inst["claim"])
        node = AspectNode(id="1", name=name.replace("_", " "), description=description, depth=1, parent_id="root")
        texts = [_segment_text(s) for s in inst["segments"]]
        segs = [Segment(doc_id=f"h{i}", start=0, end=1, text=t, embed_text=t) for i, t in enumerate(texts)]
        rel = node_relevance(RelationTest(inst["claim"]), node, [tree.nodes["root"]], segs, services.embedder)
        share = len(rel.relevant) / len(segs)
        on_claim = sum(rel.on_claim.values()) / len(segs)
        ours.append(share)
        human.append(float(inst["human_result"]))
        llm.append(float(inst["llm_result"]))
        items.append({"claim": inst["claim"][:100], "aspect": name, "human": inst["human_result"],
                      "claimspect_llm_judge": inst["llm_result"], "rubric": round(share, 2),
                      "rubric_on_claim_only": round(on_claim, 2)})
    return {**_agreement(ours, human, llm), "items": items}


def uniqueness_agreement(path: Path, services: Any) -> dict[str, Any]:
    """ClaimSpect's human judges counted the "largely overlapping or almost equivalent" nodes of a
    whole taxonomy; uniqueness = 1 - that count / nodes. The rubric's node-level count: nodes whose
    "name: description" is >= 0.8 similar to another node's. Its sibling-pair uniqueness (what the
    benchmarks report) is given beside it."""
    from claimscope.tools.read.relevance import sibling_uniqueness

    data = json.loads(path.read_text())
    ours, pairs, human, llm = [], [], [], []
    for inst in data["instances"]:
        tree = _taxonomy_tree(inst["claim"], inst["taxonomy"])
        n = len(tree.nodes) - 1
        ours.append(1 - _overlapping_nodes(tree, services.embedder) / n)
        pairs.append(sibling_uniqueness(tree, services.embedder, UNIQUENESS_THRESHOLD))
        human.append(1 - float(inst["human_result"]) / n)
        llm.append(float(inst["llm_result"]))
    sibling_pairs = {f"rubric_sibling_pairs_{k.removeprefix('rubric_')}": v
                     for k, v in _agreement(pairs, human, llm).items() if k.startswith("rubric_")}
    return {**_agreement(ours, human, llm), **sibling_pairs}


def _agreement(ours: list[float], human: list[float], llm: list[float]) -> dict[str, Any]:
    """Means, mean absolute error and Pearson correlation with the human scores, for the rubric and
    for ClaimSpect's own LLM judge."""
    def mae(xs: list[float]) -> float:
        return round(statistics.mean(abs(a - b) for a, b in zip(xs, human, strict=True)), 4)

    return {
        "instances": len(ours),
        "human_mean": round(statistics.mean(human), 4),
        "rubric_mean": round(statistics.mean(ours), 4),
        "claimspect_llm_judge_mean": round(statistics.mean(llm), 4),
        "rubric_mae_vs_human": mae(ours),
        "llm_judge_mae_vs_human": mae(llm),
        "rubric_pearson_vs_human": _pearson(ours, human),
        "llm_judge_pearson_vs_human": _pearson(llm, human),
    }


def _overlapping_nodes(tree: Any, embedder: Any) -> int:
    nodes = [n for n in tree.walk() if n.id != "root"]
    vecs = embedder.encode([f"{n.name}: {n.description}" for n in nodes])
    sims = vecs @ vecs.T
    return sum(1 for i in range(len(nodes)) if any(sims[i, j] >= UNIQUENESS_THRESHOLD
                                                   for j in range(len(nodes)) if j != i))


def _taxonomy_tree(claim: str, text: str) -> Any:
    """ClaimSpect's indented taxonomy print ("  - name (description)") as an AspectTree."""
    from claimscope.tools.read.hierarchy import ROOT_ID, AspectDraft, AspectTree

    tree = AspectTree.new(claim)
    stack: list[tuple[int, str]] = [(-1, ROOT_ID)]
    for line in text.splitlines()[1:]:
        if not line.strip().startswith("- "):
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name, description = _aspect(line.strip()[2:])
        child = tree.add_children(stack[-1][1], [AspectDraft(name=name.replace("_", " "), description=description)])[0]
        stack.append((indent, child.id))
    return tree


def main() -> None:
    ap = argparse.ArgumentParser(description="Agreement of the analysis rubric with ClaimSpect's human judgements.")
    ap.add_argument("--data", type=Path, default=SHARED / "claimspect" / "human_align")
    ap.add_argument("--out", type=Path, default=RESULTS / "rubric_alignment.json")
    args = ap.parse_args()
    from evals._harness import services_for

    services = services_for()
    out = {
        "source": "ClaimSpect human_align (k10, seed 41): 10 judged instances per metric",
        "segment_relevance": segment_quality_agreement(args.data / "segment_quality_k10_seed41.json", services),
        "sibling_uniqueness": uniqueness_agreement(args.data / "uniqueness_k10_seed41.json", services),
    }
    write_json(args.out, out)


if __name__ == "__main__":
    main()
