"""The screen: which of the best-ranked gathered documents are evidence on the claim, read right
after gathering, and the "insufficient evidence" end of an investigation whose documents hold none;
with the configured global verdict both it and the aggregate step give, and the configured rule of an
aspect's consensus.
"""

from __future__ import annotations

from typing import Any

from claimscope.agent.graph.events import emit
from claimscope.agent.graph.readers import claim_reading, load_documents, options_of
from claimscope.agent.graph.state import DocumentRecord, InvestigationState, ScreenRecord
from claimscope.agent.services import Services
from claimscope.tools.models import Document, StanceResult, StanceScorer
from claimscope.tools.read.coverage import DEFAULT_MIN_COVERAGE, component_terms, coverage
from claimscope.tools.read.stance import (
    DocumentLabel,
    decide_document,
    document_model_of,
    document_rule,
)
from claimscope.tools.weigh.verdict import (
    ConfidenceCalibration,
    Consensus,
    CountedSegment,
    LocalItem,
    LocalLabel,
    Verdict,
    aspect_consensus,
    global_verdict,
)

NodeUpdate = dict[str, Any]

# How many of the best-ranked gathered documents the screen reads, per document weighed later.
SCREEN_FACTOR = 3


def document_decision(claim: str, doc: Document, results: list[StanceResult], services: Services,
                      scorer: StanceScorer | None = None) -> DocumentLabel:
    """Whether `doc` is evidence on `claim` and which way (tools.read.stance.DocumentLabel): the learned
    decision shipped with the stance model, or the configured thresholds (verdict.document_decision).
    `results` read by another scorer (the argument model of a debate claim) are decided by that
    scorer's own thresholds."""
    if scorer is not None and scorer is not services.stance:
        return decide_document(results, document_rule(scorer))
    v = services.settings.verdict
    model = document_model_of(services.stance) if v.document_decision == "learned" else None
    if model is not None and v.evidence_min_probability is not None:
        model = model.model_copy(update={"min_probability": v.evidence_min_probability})
    rule = {**document_rule(services.stance),
            **{k: x for k, x in (("support_threshold", v.support_threshold),
                                 ("refute_threshold", v.refute_threshold)) if x is not None}}
    return decide_document(results, rule, claim=claim, sentences=doc.sentences, title=doc.title, model=model)


def screen_documents(state: InvestigationState, services: Services, found: dict[str, DocumentRecord]
                     ) -> ScreenRecord:
    """Which of the best-ranked gathered documents are evidence on the claim (document_decision),
    and which only share its subject: read before any aspect is built, so that a corpus without
    evidence ends in "insufficient evidence" instead of a verdict over off-claim text."""
    n = SCREEN_FACTOR * options_of(state).top_documents
    ranked = sorted(found, key=lambda d: -float(found[d].get("score", 0.0)))[:n]
    docs = load_documents(state, services, ranked)
    terms = component_terms(state["claim"])
    scorer, test = claim_reading(state, services)
    evidence: list[str] = []
    on_subject: list[str] = []
    without_object: list[str] = []  # on the subject, not naming the object at all
    labels: dict[str, str] = {}
    confidence: dict[str, float] = {}
    for doc_id in ranked:
        doc = docs.get(doc_id)
        if doc is None or not doc.sentences:
            continue
        results = scorer.predict([(state["claim"], s) for s in doc.sentences])
        decision = document_decision(state["claim"], doc, results, services, scorer=scorer)
        labels[doc_id] = decision.label
        confidence[doc_id] = round(float(decision.confidence), 4)
        if decision.label != "NEI":
            evidence.append(doc_id)
        elif test.kind == "empirical":
            cov = coverage(terms, [doc.title, *doc.sentences])
            if cov.subject >= DEFAULT_MIN_COVERAGE - 1e-9:
                on_subject.append(doc_id)
                if cov.object < DEFAULT_MIN_COVERAGE - 1e-9:
                    without_object.append(doc_id)
    return {"checked": len(labels), "evidence": evidence, "on_subject": on_subject, "claim_kind": str(test.kind),
            "without_object": without_object, "labels": labels,
            "confidence": confidence, "subject_terms": terms.subject, "object_terms": terms.object}


def insufficient_evidence(state: InvestigationState, services: Services, screen: ScreenRecord) -> NodeUpdate:
    """The end of an investigation whose gathered documents hold no evidence: an "insufficient
    evidence" verdict over the documents read, and the reason in the warnings."""
    items = [LocalItem(doc_id=d, label=LocalLabel.NO_EVIDENCE) for d in screen["labels"]]
    verdict = configured_verdict(items, services)
    # How sure the abstention is: it is wrong as soon as one screened document is evidence after
    # all, so it is as sure as its least sure "not evidence" decision (the verdict's own feature is
    # the uninformative 0.5 when there is no evidence to weigh).
    sure = [float(c) for c in screen.get("confidence", {}).values()]
    if sure:
        least = round(min(sure), 4)
        verdict = verdict.model_copy(update={"confidence": least, "confidence_raw": least})
    msg = screen_warning(screen)
    emit("counts", "gather", msg)
    return {"status": "no_evidence", "verdict": verdict.model_dump(mode="json"), "warnings": [msg]}


def screen_warning(screen: ScreenRecord) -> str:
    """Why a screen that found no evidence ends the investigation, in the warnings: how many of the
    best-matching documents were read and how many share the claim's subject only."""
    checked, on_subject = screen["checked"], len(screen["on_subject"])
    # one document is said as one ("none of the 1 best-matching documents" read as a slip), and none
    # as none (the last one ignored in chat: "none of the 0 best-matching documents ... (0 share ...)")
    if not checked:
        left = "argue for or against the claim" if screen.get("claim_kind") == "debate" else "address the claim's relation"
        return f"no document is left to {left}; no verdict beyond 'insufficient evidence'"
    which = "the one best-matching document" if checked == 1 else f"none of the {checked} best-matching documents"
    if screen.get("claim_kind") == "debate":
        does = "does not argue" if checked == 1 else "argues"
        return f"{which} {does} for or against the claim; no verdict beyond 'insufficient evidence'"
    does = "does not address" if checked == 1 else "addresses"
    if checked == 1:
        shares = "it shares its subject only" if on_subject else "nor its subject"
    else:
        shares = ("nor does any share its subject" if not on_subject else
                  f"{on_subject} {'shares' if on_subject == 1 else 'share'} its subject only")
    return f"{which} {does} the claim's relation ({shares}); no verdict beyond 'insufficient evidence'"


def configured_verdict(items: list[LocalItem], services: Services, *, debate: bool = False) -> Verdict:
    """The global verdict over `items` with the configured calibration and label rules."""
    v = services.settings.verdict
    calibration = (ConfidenceCalibration(a=v.confidence_a, b=v.confidence_b) if v.confidence_a is not None
                   else None)
    # A debate claim's verdict counts arguments whose side is read right ~7 times in 10: at most
    # "leaning" unless configured otherwise.
    return global_verdict(items, calibration=calibration, pseudo_count=v.confidence_pseudo_count,
                          min_documents_generally=v.min_documents_generally,
                          strong_labels=not debate or v.debate_strong_labels)


def configured_consensus(segments: list[CountedSegment], services: Services, *, debate: bool = False) -> Consensus:
    """The consensus of one aspect, the claim itself included, on its counted (stance, weight, doc id)
    segments, with the label rules the verdict has: one rule for every level of the tree, so that an
    aspect and its sub-aspect on the same sentences never read two ways, and the claim never reads
    "insufficient evidence" beside a verdict drawn from one document."""
    v = services.settings.verdict
    return aspect_consensus(segments, min_evidence=v.min_node_evidence,
                            min_documents_generally=v.min_documents_generally,
                            strong_labels=not debate or v.debate_strong_labels)
