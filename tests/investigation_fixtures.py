"""A whole investigation offline: a fixture corpus, a real evidence store with the hashing
embedder, the keyword stance fake, and a scripted model behind the real LLM gateway."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from claimscope.agent.llm import ActionChoice
from claimscope.agent.llm.fake import scripted_llm
from claimscope.agent.services import Services
from claimscope.agent.settings import Settings, load_settings
from claimscope.tools.read.hierarchy import AspectDraft, AspectTree
from claimscope.tools.weigh.verdict import LocalItem, LocalLabel, global_verdict
from tests.conftest import FIXTURES
from tests.fakes import HashEmbedder, KeywordStance

CORPUS = FIXTURES / "investigation" / "corpus.jsonl"
CLAIM = "Vitamin D supplementation prevents respiratory infections"


def _aspects(names: list[str]) -> dict[str, Any]:
    return {"aspects": [
        {"name": n, "description": f"evidence about {n} in vitamin d trials", "keywords": n.split()[:3]}
        for n in names
    ]}


def _takeaway(messages: list[dict[str, Any]]) -> dict[str, Any]:
    text = messages[-1]["content"].lower()
    if "zinc" in text or "exercise" in text:
        return {"related": False, "sentences": [], "takeaway": "Not about vitamin D."}
    return {"related": True, "sentences": [1], "takeaway": "The abstract reports on vitamin D and infections."}


def _document_assessment(messages: list[dict[str, Any]]) -> dict[str, Any]:
    tk = _takeaway(messages)
    if not tk["related"]:
        return {"related": False, "takeaway": "", "evidence": [], "explanation": "", "label": "No Evidence"}
    la = _local_label(messages)
    return {"related": True, "takeaway": tk["takeaway"], "evidence": la["evidence"],
            "explanation": la["explanation"], "label": la["label"]}


def _local_label(messages: list[dict[str, Any]]) -> dict[str, Any]:
    text = messages[-1]["content"].lower()
    negative = "did not" in text or "does not" in text or "no protective" in text
    return {"evidence": [1], "explanation": "The first sentence states the result.",
            "label": "Mostly False" if negative else "Mostly True"}


def investigation_script() -> dict[str, Any]:
    """Answers for every prompt an investigation uses."""
    return {
        "anti_claim": [{"anti_claim": "Vitamin D supplementation does not prevent respiratory infections"}],
        "decompose": [{"sub_claims": [CLAIM]}],
        "aspects": [_aspects(["dosing regimen", "baseline deficiency", "infection type"])],
        "subaspects": [_aspects(["daily dosing", "bolus dosing"])],
        "keywords": [{"keywords": ["vitamin d", "supplementation", "respiratory infection"]}],
        "perspective": [{"citations": [1], "summary": "Trials report this stance on vitamin D."}],
        "takeaway": _takeaway,
        "local_label": _local_label,
        "document_assessment": _document_assessment,
        "explanation": [{"sentences": [
            {"text": "Vitamin D supplementation reduced the risk of acute respiratory infection.", "citations": [1]},
            {"text": "Monthly high-dose vitamin D did not reduce infections.", "citations": [2]},
        ]}],
        "finding": _finding,
        "choose_action": first_offered_step,
    }


def _finding(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A faithful restatement of the sentence shown (what the finding prompt asks for)."""
    sentence = re.findall(r"^Sentence: (.+)$", str(messages[-1]["content"]), re.M)[-1]
    return {"finding": f"The study found that {sentence[0].lower()}{sentence[1:]}"}


STEP_ORDER = ("analyse", "gather", "grow_hierarchy", "assess", "weigh", "aggregate", "explain", "report")


def first_offered_step(messages: list[dict[str, Any]]) -> ActionChoice:
    """The planner's scripted choice: the first offered step in the papers' order. The menu of a
    JSON-mode action choice lists the offered tools as "- name: description" lines."""
    text = "\n".join(str(m.get("content") or "") for m in messages)
    offered = set(re.findall(r"^- ([a-z_]+):", text, re.M))
    return ActionChoice(tool=next((s for s in STEP_ORDER if s in offered), "report"))


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    # The script's aspects ("dosing regimen", ...) are the model's proposals, so the graph tests run with
    # hierarchy.aspects: proposed; tests of the default (facets) ask for it: hierarchy={"aspects": "facets"}.
    hierarchy = {"aspects": "proposed", **overrides.pop("hierarchy", {})}
    return load_settings(data_dir=tmp_path / "data", hierarchy=hierarchy, **overrides)


def make_services(tmp_path: Path, *, script: dict[str, Any] | None = None, corpus: Path = CORPUS,
                  **overrides: Any) -> Services:
    """Services over the fixture corpus, or `corpus` (ingested as corpus 'fixture')."""
    from claimscope.tools.find.ingest import read_path
    from claimscope.tools.find.store import EvidenceStore

    settings = make_settings(tmp_path, **overrides)
    embedder = HashEmbedder(dim=128)
    store = EvidenceStore(embedder, path=tmp_path / "qdrant")
    store.add_documents(read_path(corpus).documents, corpus="fixture")
    llm = scripted_llm(script or investigation_script())
    return Services(settings, _store=store, _embedder=embedder, _llm=llm, _stance=KeywordStance())


def finished_state(labels: dict[str, LocalLabel], *, aspects: tuple[str, ...] = ("dosing regimen",),
                   stances: dict[str, str] | None = None, assignments: dict[str, str] | None = None) -> dict[str, Any]:
    """A completed investigation's state on CLAIM, built directly: the fixture documents' local labels
    (each polar label citing sentence 0), the verdict on them, `aspects` under the root, the assess
    step's `assignments` (segment key -> aspect id) and `stances` (segment key -> stance label), and
    an explanation citing 101#0."""
    tree = AspectTree.new(CLAIM)
    tree.add_children(tree.ROOT, [AspectDraft(name=n) for n in aspects])
    verdict = global_verdict([LocalItem(doc_id=d, label=lab, reputation=0.5, trust=0.5) for d, lab in labels.items()],
                             min_documents_generally=3)
    return {
        "claim": CLAIM, "status": "complete",
        "documents": {d: {"corpus": "fixture", "found_by": ["claim"], "score": 0.5} for d in labels},
        "options": {"corpora": ["fixture"], "sources": ["local"]},
        "tree": tree.model_dump(mode="json"),
        "assignments": dict(assignments or {}),
        "stances": {k: {"label": v} for k, v in (stances or {}).items()},
        "assessments": {d: {"takeaway": None, "assessment": {
            "doc_id": d, "label": lab.value, "score": lab.score, "explanation": "e",
            "cited_sentences": [0] if lab.score else []}} for d, lab in labels.items()},
        "verdict": verdict.model_dump(mode="json"),
        "explanation": {"sentences": [{"text": "Supplementation reduced infections.", "citations": ["101#0"],
                                       "status": "supported"}], "mode": "llm"},
    }
