"""From evidence to what a user reads: perspective summaries per aspect and stance, per-document
takeaways and local labels, the global explanation and its attribution check.

Method: "Faithful reasoning over scientific claims" (Tan et al.; DESIGN.md). Per abstract a
takeaway (unrelated abstracts are pruned), a local label on the 7-grade scale with a reason, then
a global explanation that summarises the local explanations (No Evidence excluded) in which every
sentence cites the source sentences it rests on, and a check that traces each sentence to them.

Citations are sentence keys "docid#idx" (idx = 0-based sentence index in Document.sentences, the
same key as tools.models.Segment.key for a one-sentence segment). A citation of a sentence that
is not in the evidence is impossible by construction: the LLM only sees the allowed sentences
numbered [S1]..[Sn] and its output schema only admits the integers 1..n (prompts/*.prompt_for),
and the mapping back to keys rejects anything else, so the model never writes a key itself.

Every LLM step has a documented fallback (tools.llm.LLMError never escapes): perspective ->
the top segment verbatim; takeaway -> the matched sentences (else the last sentence, where
abstracts state their conclusion); local label -> a label from the stance evidence alone;
global explanation -> an extractive explanation built from the strongest attributed sentences;
revision of a sentence that failed the attribution check -> the sentence stays, flagged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import assess as assess_prompt
from claimscope.prompts import explanation as explanation_prompt
from claimscope.prompts import finding as finding_prompt
from claimscope.prompts import local_label as local_label_prompt
from claimscope.prompts import perspective as perspective_prompt
from claimscope.prompts import revise as revise_prompt
from claimscope.prompts import takeaway as takeaway_prompt
from claimscope.prompts.explanation import LocalExplanation, clip
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    Document,
    DocumentHit,
    SentenceKey,
    Stance,
    StanceResult,
    StanceScorer,
)
from claimscope.tools.segmenter import split_sentences
from claimscope.tools.sparse import tokenize
from claimscope.tools.stance import DocumentLabel
from claimscope.tools.verdict import LocalLabel

SentenceLookup = Callable[[str], str | None]

# A mean signed stance (support - refute) within +-CONFLICT_MARGIN has no sign: weak or mixed
# evidence cannot contradict a label.
DEFAULT_CONFLICT_MARGIN = 0.2
# Default support probability an explanation sentence needs from its citations (the stance model
# reading the cited sentence(s) as evidence for the explanation sentence).
DEFAULT_ATTRIBUTION_THRESHOLD = 0.5
# Extractive explanation: sentences in all, and at most this many from one document.
EXTRACTIVE_SENTENCES = 5
EXTRACTIVE_PER_DOCUMENT = 2


def sentence_lookup(documents: Iterable[Document]) -> SentenceLookup:
    """A get_sentence function over `documents`: key -> sentence text, None when absent."""
    table = {str(SentenceKey.sentence(d.id, i)): s for d in documents for i, s in enumerate(d.sentences)}
    return table.get


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _map_indices(indices: Iterable[object], targets: Sequence[str]) -> tuple[list[str], list[object]]:
    """1-based indices -> targets; anything that is not an int in 1..len(targets) is rejected."""
    kept: list[str] = []
    rejected: list[object] = []
    for i in indices:
        if isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= len(targets):
            kept.append(targets[i - 1])
        else:
            rejected.append(i)
    return _dedupe(kept), rejected


def _sign(x: float, margin: float = 0.0) -> int:
    if x > margin:
        return 1
    if x < -margin:
        return -1
    return 0


# ---------------------------------------------------------------------------------------------
# Perspective summaries (per aspect, per stance)


class Perspective(BaseModel):
    """What the segments taking one stance on one aspect say, grounded in those segments."""

    stance: Stance
    summary: str = Field(description="One or two sentences; empty when there were no segments.")
    citations: list[str] = Field(default_factory=list, description="Keys of the segments it rests on.")
    n_segments: int = Field(0, description="Segments the summary was written from.")
    mode: Literal["llm", "extractive"] = "llm"
    warning: str | None = None
    sentences_checked: int = Field(0, description="Sentences of the summary traced to its citations.")
    sentences_supported: int = Field(0, description="Of those, sentences the citations support.")


def perspective_summary(
    claim: str,
    aspect_name: str,
    stance: Stance | str,
    segments: Sequence[tuple[str, str]],
    llm: StructuredLLM,
    *,
    max_segments: int = perspective_prompt.MAX_SEGMENTS,
) -> Perspective:
    """Summary of `segments` ((key, text), best first) that take `stance` on `aspect_name`.

    Cites segment keys only from `segments`. On LLMError the best segment is quoted (extractive).
    """
    st = Stance(stance)
    if not 1 <= max_segments <= perspective_prompt.MAX_SEGMENTS:
        raise InputError(f"max_segments must be in 1..{perspective_prompt.MAX_SEGMENTS}, got {max_segments}.")
    segs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key, text in segments:
        if key not in seen and text.strip():
            seen.add(key)
            segs.append((key, text))
    segs = segs[:max_segments]
    if not segs:
        return Perspective(stance=st, summary="", n_segments=0, mode="extractive")
    keys = [k for k, _ in segs]
    inputs = perspective_prompt.PerspectiveInput(
        claim=claim, aspect=aspect_name, stance=st.value, segments=[t for _, t in segs]
    )
    try:
        out = llm.run(perspective_prompt.prompt_for(len(segs)), inputs)
    except LLMError as exc:
        return _extractive_perspective(st, segs, f"perspective summary fell back to a quote: {exc}")
    cited, _ = _map_indices(out.citations, keys)
    summary = clip(out.summary, perspective_prompt.SUMMARY_CHARS)
    if not cited or not summary:
        return _extractive_perspective(st, segs, "perspective summary had no valid citation; quoted instead")
    return Perspective(stance=st, summary=summary, citations=cited, n_segments=len(segs), mode="llm")


def _extractive_perspective(stance: Stance, segs: Sequence[tuple[str, str]], warning: str) -> Perspective:
    key, text = segs[0]
    return Perspective(
        stance=stance,
        summary=clip(text, perspective_prompt.SUMMARY_CHARS),
        citations=[key],
        n_segments=len(segs),
        mode="extractive",
        warning=warning,
    )


def aspect_perspectives(
    claim: str,
    aspect_name: str,
    segments: Sequence[tuple[str, str, Stance | str]],
    llm: StructuredLLM,
    *,
    max_segments: int = perspective_prompt.MAX_SEGMENTS,
    stances: Sequence[Stance] = (Stance.SUPPORT, Stance.NEUTRAL, Stance.REFUTE),
) -> dict[Stance, Perspective]:
    """One perspective summary per stance present among `segments` ((key, text, stance), best
    first) of one aspect; stances without segments are absent from the result."""
    groups: dict[Stance, list[tuple[str, str]]] = {}
    for key, text, st in segments:
        groups.setdefault(Stance(st), []).append((key, text))
    return {
        st: perspective_summary(claim, aspect_name, st, groups[st], llm, max_segments=max_segments)
        for st in stances
        if groups.get(st)
    }


# ---------------------------------------------------------------------------------------------
# Takeaways


class Takeaway(BaseModel):
    """What one abstract says about the claim (no stance)."""

    doc_id: str
    text: str
    sentence_indices: list[int] = Field(default_factory=list, description="0-based sentences it comes from.")
    mode: Literal["llm", "extractive"] = "llm"
    warning: str | None = Field(None, description="Why the extractive fallback was used.")


def relevant_indices(hit: DocumentHit) -> list[int]:
    """Sentence indices (0-based, best segment first) covered by a retrieval hit's segments: the
    `relevant_sentences` to pass to takeaway()."""
    ordered = sorted(hit.segments, key=lambda h: -h.score)
    return list(dict.fromkeys(i for h in ordered for i in range(h.segment.start, h.segment.end)))


def _window(n_sentences: int, priority: Sequence[int], limit: int) -> list[int]:
    """Indices of the sentences to show when an abstract is longer than `limit`: the priority
    sentences, then the last (conclusions) and the first (background), then the rest in order;
    returned in document order."""
    if n_sentences <= limit:
        return list(range(n_sentences))
    order = [i for i in priority if 0 <= i < n_sentences]
    order += [n_sentences - 1, 0, n_sentences - 2, 1]
    order += list(range(n_sentences))
    chosen = list(dict.fromkeys(order))[:limit]
    return sorted(chosen)


def takeaway(
    claim: str,
    doc: Document,
    llm: StructuredLLM,
    *,
    relevant_sentences: Sequence[int] = (),
) -> Takeaway | None:
    """The abstract's main point about `claim`, or None (pruned) when the LLM finds it unrelated
    or the document has no sentences. `relevant_sentences` (0-based) are the sentences retrieval
    matched: they are highlighted to the model and always shown. On LLMError the document is kept
    with an extractive takeaway (the matched sentences, else the last sentence)."""
    if not doc.sentences:
        return None
    relevant = [i for i in dict.fromkeys(relevant_sentences) if 0 <= i < len(doc.sentences)]
    shown, inputs = _abstract_inputs(claim, doc, relevant, takeaway_prompt.MAX_SENTENCES)
    try:
        out = llm.run(takeaway_prompt.prompt_for(len(shown)), inputs)
    except LLMError as exc:
        return _extractive_takeaway(doc, relevant, f"takeaway LLM call failed ({exc}); sentences quoted instead")
    text = clip(out.takeaway, takeaway_prompt.TAKEAWAY_CHARS) if out.takeaway.strip() else ""
    if not out.related or not text:
        return None
    positions = [p for p in out.sentences if isinstance(p, int) and 1 <= p <= len(shown)]
    indices = list(dict.fromkeys(shown[p - 1] for p in positions))
    return Takeaway(doc_id=doc.id, text=text, sentence_indices=indices, mode="llm")


def _abstract_inputs(claim: str, doc: Document, relevant: Sequence[int],
                     limit: int) -> tuple[list[int], takeaway_prompt.TakeawayInput]:
    """The sentences shown to the model (0-based, at most `limit`) and the prompt inputs with the
    retrieval-matched ones marked; shared by the takeaway and the one-call assessment."""
    shown = _window(len(doc.sentences), relevant, limit)
    return shown, takeaway_prompt.TakeawayInput(
        claim=claim,
        title=doc.title,
        sentences=[doc.sentences[i] for i in shown],
        matched=[pos + 1 for pos, i in enumerate(shown) if i in relevant],
    )


def _extractive_takeaway(doc: Document, relevant: Sequence[int], warning: str | None) -> Takeaway:
    indices = list(relevant[:2]) or [len(doc.sentences) - 1]
    text = clip(" ".join(doc.sentences[i] for i in indices), takeaway_prompt.TAKEAWAY_CHARS)
    return Takeaway(doc_id=doc.id, text=text, sentence_indices=indices, mode="extractive", warning=warning)


# ---------------------------------------------------------------------------------------------
# Local labels


class LocalAssessment(BaseModel):
    """One document's graded verdict on the claim, with its reason and cited sentences."""

    doc_id: str
    label: LocalLabel
    score: float = Field(description="The label's score on the 7-grade scale (tools.verdict).")
    explanation: str
    cited_sentences: list[int] = Field(default_factory=list, description="0-based indices in the document.")
    evidence_score: float | None = Field(
        None, description="Mean signed stance (support - refute) of the stance evidence the label was checked against."
    )
    sign_conflict: bool = Field(
        False, description="The label's sign disagrees with that evidence; flagged, not corrected."
    )
    mode: Literal["llm", "stance", "hybrid"] = Field(
        "llm", description="Who chose the label: the LLM, the stance model, or the LLM's grade on the "
        "stance model's sign (tools.explain.combine_labels).")
    takeaway: str = ""
    warning: str | None = Field(None, description="Why the stance-only fallback was used.")

    @property
    def keys(self) -> list[str]:
        return [str(SentenceKey.sentence(self.doc_id, i)) for i in self.cited_sentences]


def _evidence_table(doc: Document, stance_evidence: Sequence[tuple[int, StanceResult]]) -> dict[int, StanceResult]:
    table: dict[int, StanceResult] = {}
    for idx, res in stance_evidence:
        if not 0 <= idx < len(doc.sentences):
            raise InputError(
                f"stance evidence cites sentence {idx} of document {doc.id!r}, which has "
                f"{len(doc.sentences)} sentences; pass 0-based indices of Document.sentences."
            )
        table[idx] = res
    return table


def sign_check(
    label: LocalLabel,
    cited: Sequence[int],
    evidence: dict[int, StanceResult],
    *,
    margin: float = DEFAULT_CONFLICT_MARGIN,
) -> tuple[float | None, bool]:
    """(evidence score, sign conflict) of `label` against the stance evidence of its cited
    sentences, or of all the document's stance evidence when it cites none that has any.

    The evidence score is the mean of support - refute; a conflict is a non-zero label sign
    opposite to an evidence sign outside +-margin. No Evidence never conflicts.
    """
    chosen = [evidence[i] for i in cited if i in evidence] or list(evidence.values())
    if not chosen:
        return None, False
    score = sum(r.signed for r in chosen) / len(chosen)
    conflict = _sign(label.score) * _sign(score, margin) < 0
    return score, conflict


def local_label(
    claim: str,
    doc: Document,
    takeaway: Takeaway | str | None,
    stance_evidence: Sequence[tuple[int, StanceResult]],
    llm: StructuredLLM,
    *,
    conflict_margin: float = DEFAULT_CONFLICT_MARGIN,
    stance_hints: bool = False,
) -> LocalAssessment:
    """The document's 7-grade label with a reason and cited sentences.

    `stance_evidence` holds (0-based sentence index, stance result) pairs from the stance model.
    The label is checked in sign against the stance evidence it cites (sign_check): a conflict
    is flagged in `sign_conflict`, never silently fixed. When the LLM cites no sentence for a
    label other than No Evidence, the takeaway's sentences (else the strongest stance evidence of
    the label's sign) stand in, so that the global explanation can cite the document. On LLMError
    the label comes from the stance evidence alone (stance_only_label). With `stance_hints` the
    prompt shows the stance model's reading of each sentence (help for a small model).
    """
    if not doc.sentences:
        raise InputError(f"document {doc.id!r} has no sentences to label; prune it before labelling.")
    evidence = _evidence_table(doc, stance_evidence)
    tk_text = takeaway.text if isinstance(takeaway, Takeaway) else (takeaway or "")
    tk_idx = takeaway.sentence_indices if isinstance(takeaway, Takeaway) else []
    priority = list(dict.fromkeys([*tk_idx, *sorted(evidence, key=lambda i: -abs(evidence[i].signed))]))
    shown = _window(len(doc.sentences), priority, local_label_prompt.MAX_SENTENCES)
    inputs = local_label_prompt.LocalLabelInput(
        claim=claim,
        title=doc.title,
        takeaway=tk_text or "(none)",
        sentences=[doc.sentences[i] for i in shown],
        hints=[_hint(evidence.get(i)) for i in shown] if stance_hints else [],
    )
    try:
        out = llm.run(local_label_prompt.prompt_for(len(shown)), inputs)
        label = LocalLabel.parse(out.label)
    except (LLMError, InputError) as exc:
        # InputError: a label outside the scale (only from a model not bound by the schema).
        fallback = stance_only_label(doc, stance_evidence, takeaway=tk_text)
        fallback.warning = f"local label LLM call failed ({exc}); label from the stance model"
        return fallback
    return _assessment_from_answer(doc, label, out.evidence, shown, tk_idx, evidence,
                                   clip(out.explanation, local_label_prompt.EXPLANATION_CHARS), tk_text,
                                   conflict_margin)


def _assessment_from_answer(
    doc: Document, label: LocalLabel, numbers: Sequence[object], shown: Sequence[int], tk_idx: Sequence[int],
    evidence: dict[int, StanceResult], explanation: str, tk_text: str, conflict_margin: float,
) -> LocalAssessment:
    """A LocalAssessment from the model's label and cited sentence numbers (1-based over `shown`).

    When the model cites nothing for a label other than No Evidence, the takeaway's sentences
    (else the strongest stance evidence of the label's sign) stand in, so the global explanation
    can cite the document; the sign check then runs on what is cited."""
    positions = [p for p in numbers if isinstance(p, int) and 1 <= p <= len(shown)]
    cited = list(dict.fromkeys(shown[p - 1] for p in positions))
    if not cited and label is not LocalLabel.NO_EVIDENCE:
        cited = [i for i in tk_idx if 0 <= i < len(doc.sentences)]
        if not cited:
            agreeing = [i for i in evidence if _sign(evidence[i].signed) == _sign(label.score)]
            cited = sorted(agreeing, key=lambda i: -abs(evidence[i].signed))[:1]
    ev_score, conflict = sign_check(label, cited, evidence, margin=conflict_margin)
    return LocalAssessment(
        doc_id=doc.id,
        label=label,
        score=label.score,
        explanation=explanation,
        cited_sentences=cited,
        evidence_score=ev_score,
        sign_conflict=conflict,
        mode="llm",
        takeaway=tk_text,
    )


def assess_document(
    claim: str,
    doc: Document,
    stance_evidence: Sequence[tuple[int, StanceResult]],
    llm: StructuredLLM,
    *,
    relevant_sentences: Sequence[int] = (),
    conflict_margin: float = DEFAULT_CONFLICT_MARGIN,
) -> tuple[Takeaway, LocalAssessment] | None:
    """Takeaway and local label of one document in a single LLM call (prompts/assess.py).

    Same contract as takeaway() followed by local_label(): None when the abstract is unrelated
    (pruned) or has no sentences; the label is sign-checked against the stance evidence; on
    LLMError the document is kept with an extractive takeaway and a stance-only label.
    `relevant_sentences` (0-based) default to the sentences with stance evidence, strongest first.
    """
    if not doc.sentences:
        return None
    evidence = _evidence_table(doc, stance_evidence)
    relevant = [i for i in dict.fromkeys(relevant_sentences or sorted(evidence, key=lambda i: -abs(evidence[i].signed)))
                if 0 <= i < len(doc.sentences)]
    shown, inputs = _abstract_inputs(claim, doc, relevant, assess_prompt.MAX_SENTENCES)
    try:
        out = llm.run(assess_prompt.prompt_for(len(shown)), inputs)
        label = LocalLabel.parse(out.label)
    except (LLMError, InputError) as exc:
        tk = _extractive_takeaway(doc, relevant, f"assessment LLM call failed ({exc}); sentences quoted instead")
        fallback = stance_only_label(doc, stance_evidence, takeaway=tk.text)
        fallback.warning = f"assessment LLM call failed ({exc}); label from the stance model"
        return tk, fallback
    text = clip(out.takeaway, assess_prompt.TAKEAWAY_CHARS) if out.takeaway.strip() else ""
    if not out.related or not text:
        return None
    positions = [p for p in out.evidence if isinstance(p, int) and 1 <= p <= len(shown)]
    tk = Takeaway(doc_id=doc.id, text=text, sentence_indices=list(dict.fromkeys(shown[p - 1] for p in positions)))
    la = _assessment_from_answer(doc, label, out.evidence, shown, [], evidence,
                                 clip(out.explanation, assess_prompt.EXPLANATION_CHARS), text, conflict_margin)
    return tk, la


def _hint(result: StanceResult | None) -> str:
    if result is None or result.label is Stance.NEUTRAL:
        return ""
    verb = "supports" if result.label is Stance.SUPPORT else "contradicts"
    return f"stance model: {verb} the claim, p={max(result.support, result.refute):.2f}"


def stance_only_label(
    doc: Document,
    stance_evidence: Sequence[tuple[int, StanceResult]],
    *,
    takeaway: str = "",
    max_cited: int = 3,
) -> LocalAssessment:
    """Label from the stance model alone (the LLM fallback): the mean support - refute of the
    non-neutral sentences, rounded to the nearest grade (LocalLabel.from_score); No Evidence when
    every sentence is neutral. Cites the strongest sentences agreeing with the label's sign."""
    evidence = _evidence_table(doc, stance_evidence)
    polar = {i: r for i, r in evidence.items() if r.label is not Stance.NEUTRAL}
    if not polar:
        return LocalAssessment(
            doc_id=doc.id,
            label=LocalLabel.NO_EVIDENCE,
            score=LocalLabel.NO_EVIDENCE.score,
            explanation="The stance model found no sentence that supports or contradicts the claim.",
            evidence_score=None,
            mode="stance",
            takeaway=takeaway,
        )
    mean = sum(r.signed for r in polar.values()) / len(polar)
    label = LocalLabel.from_score(mean)
    sgn = _sign(mean)
    ranked = sorted(polar, key=lambda i: -abs(polar[i].signed))
    cited = [i for i in ranked if sgn == 0 or _sign(polar[i].signed) == sgn][:max_cited]
    n_sup = sum(1 for r in polar.values() if r.label is Stance.SUPPORT)
    n_ref = len(polar) - n_sup
    lead = doc.sentences[cited[0]] if cited else doc.sentences[ranked[0]]
    explanation = clip(
        f"The stance model reads {n_sup} sentence(s) as supporting and {n_ref} as contradicting the claim; "
        f'the strongest: "{lead}"',
        local_label_prompt.EXPLANATION_CHARS,
    )
    return LocalAssessment(
        doc_id=doc.id,
        label=label,
        score=label.score,
        explanation=explanation,
        cited_sentences=cited,
        evidence_score=mean,
        sign_conflict=False,
        mode="stance",
        takeaway=takeaway,
    )


# How a stance-mode local explanation opens; global_explanation drops summary sentences that copy it.
STANCE_FRAMING = "The stance model reads this abstract as evidence that"
# The same for the argument model of a debate claim: its texts are arguments, not abstracts.
ARGUMENT_FRAMING = "The argument model reads this text as an argument"


def stance_assessment(doc: Document, decision: DocumentLabel, *, takeaway: str = "",
                      max_cited: int = 3, arguments: bool = False) -> LocalAssessment:
    """The local label the stance model's document decision (tools.stance.decide_document) gives:
    No Evidence for NEI, else the grade nearest to +-confidence (a document just past its threshold
    is "Somewhat", a near-certain one "True"/"False"), citing its rationale sentences."""
    if decision.label == "NEI":
        return LocalAssessment(
            doc_id=doc.id, label=LocalLabel.NO_EVIDENCE, score=LocalLabel.NO_EVIDENCE.score,
            explanation="The stance model found no sentence that clearly supports or contradicts the claim.",
            evidence_score=round(decision.support - decision.refute, 6), mode="stance", takeaway=takeaway,
        )
    sign = 1.0 if decision.label == "SUPPORT" else -1.0
    label = LocalLabel.from_score(sign * decision.confidence)
    cited = [i for i in decision.rationale_indices if 0 <= i < len(doc.sentences)][:max_cited]
    verb = "supports" if sign > 0 else "contradicts"
    lead = f' The strongest: "{doc.sentences[cited[0]]}"' if cited else ""
    framing = (f"{ARGUMENT_FRAMING} {'for' if sign > 0 else 'against'}" if arguments
               else f"{STANCE_FRAMING} {verb}")
    return LocalAssessment(
        doc_id=doc.id, label=label, score=label.score,
        explanation=clip(f"{framing} the claim "
                         f"(p={decision.confidence:.2f}).{lead}", local_label_prompt.EXPLANATION_CHARS),
        cited_sentences=cited, evidence_score=round(decision.support - decision.refute, 6),
        mode="stance", takeaway=takeaway,
    )


ConflictPolicy = Literal["stance", "llm", "abstain"]


def combine_labels(llm: LocalAssessment, stance: LocalAssessment, *,
                   on_conflict: ConflictPolicy = "stance") -> LocalAssessment:
    """Hybrid local label: the stance model decides whether the abstract is evidence and which
    way it points; the LLM's label (grade, explanation, citations) is kept when it agrees in sign.

    A small LLM grades almost every related abstract "Mostly True" (88 of 110 on SciFact
    dev), so its sign is not trusted on its own. A disagreement (including the LLM's No Evidence)
    is always flagged as a sign conflict, with both labels named in the warning; `on_conflict`
    says which label stands: the stance model's, the LLM's, or neither (abstain: No Evidence)."""
    if stance.label is LocalLabel.NO_EVIDENCE:
        return stance.model_copy(update={"takeaway": llm.takeaway or stance.takeaway})
    if math.copysign(1.0, llm.score) == math.copysign(1.0, stance.score) and llm.score != 0:
        return llm.model_copy(update={"mode": "hybrid"})
    if on_conflict not in ("stance", "llm", "abstain"):
        raise InputError(f"on_conflict must be 'stance', 'llm' or 'abstain', got {on_conflict!r}.")
    both = f"the LLM labelled it {llm.label.value!r}, the stance model {stance.label.value!r}"
    if on_conflict == "llm":
        return llm.model_copy(update={"mode": "hybrid", "sign_conflict": True,
                                      "warning": f"{both}; the LLM's label is used"})
    if on_conflict == "abstain":
        return stance.model_copy(update={
            "label": LocalLabel.NO_EVIDENCE, "score": LocalLabel.NO_EVIDENCE.score, "cited_sentences": [],
            "mode": "hybrid", "sign_conflict": True, "takeaway": llm.takeaway or stance.takeaway,
            "warning": f"{both}; counted as No Evidence"})
    return stance.model_copy(update={
        "mode": "hybrid", "sign_conflict": True, "takeaway": llm.takeaway or stance.takeaway,
        "warning": f"{both}; the stance model's label is used",
    })


def label_document(
    claim: str,
    doc: Document,
    stance_results: Sequence[StanceResult],
    decision: DocumentLabel,
    llm: StructuredLLM | None,
    *,
    mode: Literal["hybrid", "stance"] = "hybrid",
    conflict_margin: float = DEFAULT_CONFLICT_MARGIN,
    on_conflict: ConflictPolicy = "stance",
    arguments: bool = False,
) -> tuple[Takeaway | None, LocalAssessment]:
    """Takeaway and local label of one document when the stance model decides what is evidence.

    `stance_results` are the stances of every sentence of `doc` (in order) and `decision` the
    document decision over them (tools.stance.decide_document). A document that is not evidence
    gets No Evidence and no takeaway, with no LLM call. In "stance" mode an evidence document gets
    the stance label and its rationale sentences quoted as the takeaway; in "hybrid" mode the LLM
    reads it (assess_document) and combine_labels settles the label (`on_conflict`). When the LLM finds the abstract
    unrelated, it is No Evidence (Tan et al. prune such documents); when the LLM fails, the stance
    label stands with the failure in its warning. `arguments`: the results come from the argument
    model of a debate claim, and the label's explanation says so.
    """
    if len(stance_results) != len(doc.sentences):
        raise InputError(f"label_document needs one stance result per sentence of {doc.id!r} "
                         f"({len(doc.sentences)}), got {len(stance_results)}.")
    st = stance_assessment(doc, decision, arguments=arguments)
    if decision.label == "NEI":
        return None, st
    strongest = sorted(range(len(stance_results)), key=lambda i: -abs(stance_results[i].signed))
    relevant = list(dict.fromkeys([*st.cited_sentences, *strongest]))
    if mode == "stance" or llm is None:
        tk = _extractive_takeaway(doc, st.cited_sentences or relevant, None)
        return tk, st.model_copy(update={"takeaway": tk.text})
    both = assess_document(claim, doc, list(enumerate(stance_results)), llm, relevant_sentences=relevant,
                           conflict_margin=conflict_margin)
    if both is None:
        return None, st.model_copy(update={
            "label": LocalLabel.NO_EVIDENCE, "score": LocalLabel.NO_EVIDENCE.score, "cited_sentences": [],
            "mode": "hybrid", "explanation": "The LLM read the abstract as unrelated to the claim.",
        })
    tk, la = both
    if la.mode == "stance":  # the LLM call failed; assess_document fell back to a cruder stance label
        return tk, st.model_copy(update={"takeaway": tk.text, "warning": la.warning})
    combined = combine_labels(la, st, on_conflict=on_conflict)
    # A takeaway must not contradict the label shown beside it: where the stance label overruled
    # the LLM, or the LLM only restated the claim, the sentences the label rests on are quoted instead.
    overruled = combined.sign_conflict and combined.label is st.label
    if overruled or is_claim_echo(tk.text, [claim]):
        tk = _extractive_takeaway(doc, st.cited_sentences or relevant, None)
        combined = combined.model_copy(update={"takeaway": tk.text})
    return tk, combined


# ---------------------------------------------------------------------------------------------
# Global explanation


class ExplanationSentence(BaseModel):
    """One sentence of the explanation with the evidence sentences it cites."""

    text: str
    citations: list[str] = Field(default_factory=list, description='Sentence keys "docid#idx".')
    status: Literal["supported", "interpretation", "dropped"] = Field(
        "interpretation",
        description="supported = passed the attribution check; interpretation = not (yet) traced to "
        "its citations; dropped = failed it with unsupported_sentences: drop.",
    )
    support: float = Field(0.0, ge=0, le=1, description="Best support probability from its citations.")
    revised_from: str | None = Field(
        None, description="The LLM's first wording, when the sentence failed the attribution check and "
        "this text is its revision to what the citations say (revise_unsupported)."
    )


class Explanation(BaseModel):
    """The global explanation: attributed sentences, how it was made, and what went wrong."""

    sentences: list[ExplanationSentence] = Field(default_factory=list)
    mode: Literal["llm", "extractive"] = "llm"
    warnings: list[str] = Field(default_factory=list)
    checked: bool = Field(False, description="Whether check_attribution has run.")

    @property
    def visible(self) -> list[ExplanationSentence]:
        """The sentences a reader sees (dropped ones removed)."""
        return [s for s in self.sentences if s.status != "dropped"]

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.visible)

    def attribution_pass_rate(self) -> float | None:
        """Share of sentences that passed the attribution check (None before it or when empty)."""
        if not self.checked or not self.sentences:
            return None
        return sum(s.status == "supported" for s in self.sentences) / len(self.sentences)


def _evidence_docs(assessments: Sequence[LocalAssessment]) -> list[LocalAssessment]:
    """Assessments with evidence (No Evidence excluded), strongest first (stable)."""
    used = [a for a in assessments if a.label is not LocalLabel.NO_EVIDENCE]
    return sorted(used, key=lambda a: -abs(a.score))


def _allowed_evidence(
    used: Sequence[LocalAssessment], get_sentence: SentenceLookup, limit: int
) -> tuple[list[str], list[str]]:
    """Citable (keys, texts): the assessments' cited sentences that exist, taken round-robin over
    documents (each document's first citation before any document's second) up to `limit`."""
    queues = [[k for k in a.keys] for a in used]
    keys: list[str] = []
    texts: list[str] = []
    depth = 0
    while len(keys) < limit and any(depth < len(q) for q in queues):
        for q in queues:
            if depth < len(q) and len(keys) < limit and q[depth] not in keys:
                text = get_sentence(q[depth])
                if text is not None and text.strip():
                    keys.append(q[depth])
                    texts.append(text)
        depth += 1
    return keys, texts


def citable_evidence(assessments: Sequence[LocalAssessment], get_sentence: SentenceLookup,
                     limit: int = explanation_prompt.MAX_EVIDENCE) -> list[str]:
    """The sentence keys global_explanation offers the model for these assessments."""
    return _allowed_evidence(_evidence_docs(assessments), get_sentence, limit)[0]


def global_explanation(
    claim: str,
    assessments: Sequence[LocalAssessment],
    llm: StructuredLLM,
    *,
    get_sentence: SentenceLookup,
    scorer: StanceScorer | None = None,
    max_evidence: int = explanation_prompt.MAX_EVIDENCE,
) -> Explanation:
    """Summary of the local explanations (No Evidence excluded) in which every sentence cites
    sentence keys of the allowed evidence: the cited sentences of the assessments that
    `get_sentence` can resolve, numbered [S1]..[Sn] for the model. Citations are mapped from
    indices constrained to 1..n; any other index is rejected (and a sentence left without a valid
    citation is removed, with a warning). On LLMError, or when nothing valid comes back, the
    extractive explanation is returned instead (ranked with `scorer` when given).

    Run check_attribution on the result before showing it.
    """
    if not 1 <= max_evidence <= explanation_prompt.MAX_EVIDENCE:
        raise InputError(f"max_evidence must be in 1..{explanation_prompt.MAX_EVIDENCE}, got {max_evidence}.")
    used = _evidence_docs(assessments)
    if not used:
        return Explanation(
            mode="extractive",
            warnings=["No document gave evidence on the claim (every local label is No Evidence); nothing to explain."],
        )
    keys, texts = _allowed_evidence(used, get_sentence, max_evidence)
    if not keys:
        return Explanation(
            mode="extractive",
            warnings=["None of the sentences the local labels cite is in the evidence store; nothing to explain."],
        )
    position = {k: i + 1 for i, k in enumerate(keys)}
    documents = [
        LocalExplanation(
            label=a.label.value,
            # The stance model's framing says nothing about the sources and the model copied it
            # into summaries; its label and evidence numbers carry what it knows.
            explanation="" if a.explanation.startswith((STANCE_FRAMING, ARGUMENT_FRAMING)) else a.explanation,
            evidence=[position[k] for k in a.keys if k in position],
        )
        for a in used
    ]
    inputs = explanation_prompt.make_input(claim, documents, texts)
    try:
        out = llm.run(explanation_prompt.prompt_for(len(keys)), inputs)
    except LLMError as exc:
        fallback = extractive_explanation(claim, assessments, get_sentence, scorer)
        fallback.warnings.insert(0, f"The LLM explanation failed ({exc}); an extractive explanation is shown.")
        return fallback
    sentences: list[ExplanationSentence] = []
    warnings: list[str] = []
    for s in out.sentences:
        cited, rejected = _map_indices(s.citations, keys)
        if rejected:
            warnings.append(f"Rejected citation(s) {rejected} outside the {len(keys)} evidence sentences.")
        text = clip(s.text, explanation_prompt.SENTENCE_CHARS)
        if not cited or not text:
            warnings.append(f"Removed a sentence without a valid citation: {clip(s.text, 80)!r}.")
            continue
        reason = copied_text_reason(text)
        if reason:
            warnings.append(f"Removed a sentence {reason}: {clip(text, 80)!r}.")
            continue
        sentences.append(ExplanationSentence(text=text, citations=cited))
    sentences, merged = merge_repeated_sentences(sentences)
    warnings += merged
    if not sentences:
        fallback = extractive_explanation(claim, assessments, get_sentence, scorer)
        fallback.warnings[:0] = [*warnings, "The LLM explanation had no validly cited sentence; an extractive explanation is shown."]
        return fallback
    return Explanation(sentences=sentences, mode="llm", warnings=warnings)


def findings_explanation(
    claim: str,
    assessments: Sequence[LocalAssessment],
    llm: StructuredLLM,
    *,
    get_sentence: SentenceLookup,
    scorer: StanceScorer,
    titles: Callable[[str], str] | None = None,
    threshold: float = DEFAULT_ATTRIBUTION_THRESHOLD,
    min_overlap: float | None = None,
    max_sentences: int = EXTRACTIVE_SENTENCES,
    per_document: int = EXTRACTIVE_PER_DOCUMENT,
) -> Explanation:
    """The explanation written finding by finding: the evidence is chosen first (the sentences the
    extractive explanation would quote), then the model restates each one in plain words
    (prompts/finding.py). A restatement its sentence does not support (the attribution check), or
    one the model could not write, is replaced by the quote, with a warning; so every sentence a
    reader sees is traced to the sentence it cites. `titles` maps a document id to its title.

    Run check_attribution on the result like any explanation (quotes pass it by identity)."""
    chosen = extractive_explanation(claim, assessments, get_sentence, scorer,
                                    max_sentences=max_sentences, per_document=per_document)
    if not chosen.sentences:
        return chosen
    sentences: list[ExplanationSentence] = []
    warnings = list(chosen.warnings)
    quoted = 0
    for quote in chosen.sentences:
        key = quote.citations[0]
        source = get_sentence(key) or quote.text
        title = titles(SentenceKey.parse(key).doc_id) if titles is not None else ""
        try:
            out = llm.run(finding_prompt.PROMPT, finding_prompt.FindingInput(claim=claim, title=clip(title, 200),
                                                                           sentence=clip(source, 600)))
            text = clip(out.finding, finding_prompt.FINDING_CHARS)
        except LLMError as exc:
            warnings.append(f"A finding could not be written ({exc}); the sentence is quoted.")
            text = ""
        if text:
            one = Explanation(sentences=[ExplanationSentence(text=text, citations=[key])])
            checked = check_attribution(one, get_sentence, scorer, threshold=threshold, min_overlap=min_overlap)
            if checked.sentences and checked.sentences[0].status == "supported":
                sentences.append(checked.sentences[0])
                continue
        quoted += 1
        sentences.append(quote)
    if quoted and quoted < len(sentences):
        warnings.append(f"{quoted} of {len(sentences)} findings are quoted: their restatement was not supported "
                        "by the sentence it cites.")
    sentences, merged = merge_repeated_sentences(sentences)
    mode: Literal["llm", "extractive"] = "extractive" if quoted == len(chosen.sentences) else "llm"
    return Explanation(sentences=sentences, mode=mode, warnings=[*warnings, *merged])


def merge_repeated_sentences(
    sentences: Sequence[ExplanationSentence],
) -> tuple[list[ExplanationSentence], list[str]]:
    """One sentence per wording: a repeat (same text up to case, spacing and the final period)
    is removed and its citations join the first occurrence's. The embedded LLM sometimes writes
    the same sentence twice (6 times in 59 stored open-claim runs), which reads as padding and
    would count twice in the attribution rate. Returns the sentences and a warning per repeat."""
    first: dict[str, int] = {}
    out: list[ExplanationSentence] = []
    warnings: list[str] = []
    for s in sentences:
        key = _norm(s.text)
        if key not in first:
            first[key] = len(out)
            out.append(s)
            continue
        i = first[key]
        out[i] = out[i].model_copy(update={"citations": _dedupe([*out[i].citations, *s.citations])})
        warnings.append(f"Merged a repeated sentence into its first occurrence: {clip(s.text, 80)!r}.")
    return out, warnings


def copied_text_reason(text: str) -> str | None:
    """Why an explanation sentence copies text that is not about the sources, or None.
    A small model sometimes copies the few-shot answer (it is about another claim) or the
    stance-mode local explanation's framing (it is about the model; 12 of the 37 failing sentences
    of the open-claims run). No cited sentence can back either."""
    norm = _norm(text)
    if norm in _example_sentences():
        return "copied from the prompt's example"
    if _norm(STANCE_FRAMING) in norm or _norm(ARGUMENT_FRAMING) in norm:
        return "about the stance model, not the sources"
    return None


@lru_cache(maxsize=1)
def _example_sentences() -> frozenset[str]:
    return frozenset(_norm(x.text) for _, out in explanation_prompt.PROMPT.examples for x in out.sentences)


def extractive_explanation(
    claim: str,
    assessments: Sequence[LocalAssessment],
    get_sentence: SentenceLookup,
    scorer: StanceScorer | None = None,
    *,
    max_sentences: int = EXTRACTIVE_SENTENCES,
    per_document: int = EXTRACTIVE_PER_DOCUMENT,
) -> Explanation:
    """The explanation used when the LLM fails: the strongest attributed sentences (cited by the
    local labels, No Evidence excluded) quoted verbatim, each citing itself.

    With a scorer, a sentence's strength is its stance toward the claim in the direction of its
    document's label (support - refute, times the label's sign), so each quote says what its
    document's label says; ties and the scorer-less case go by |label score|. At most
    `per_document` quotes per document.
    """
    used = _evidence_docs(assessments)
    cands: list[tuple[str, str, LocalAssessment]] = []
    seen: set[str] = set()
    for a in used:
        for k in a.keys:
            text = get_sentence(k)
            if k not in seen and text is not None and text.strip():
                seen.add(k)
                cands.append((k, text, a))
    if not cands:
        return Explanation(mode="extractive", warnings=["No cited evidence sentence is available to quote."])
    if scorer is not None:
        results = scorer.predict([(claim, text) for _, text, _ in cands])
        agree = [r.signed * _sign(a.score) for r, (_, _, a) in zip(results, cands, strict=True)]
    else:
        agree = [0.0] * len(cands)
    order = sorted(range(len(cands)), key=lambda i: (-agree[i], -abs(cands[i][2].score), i))
    per_doc: dict[str, int] = {}
    sentences: list[ExplanationSentence] = []
    for i in order:
        key, text, a = cands[i]
        if per_doc.get(a.doc_id, 0) >= per_document:
            continue
        per_doc[a.doc_id] = per_doc.get(a.doc_id, 0) + 1
        sentences.append(ExplanationSentence(text=" ".join(text.split()), citations=[key], status="supported", support=1.0))
        if len(sentences) >= max_sentences:
            break
    return Explanation(sentences=sentences, mode="extractive")


# ---------------------------------------------------------------------------------------------
# Attribution check


# A trailing judgement about the claim ("..., which directly supports the claim") is not a fact any
# source sentence states; it is removed before a sentence is traced to its citations.
_JUDGEMENT = re.compile(
    r"[,;]?\s*(?:which|this|and this|thus|so)\s+(?:\w+ly\s+)?"
    r"(?:supports?|contradicts?|refutes?|confirms?|is consistent with|is inconsistent with|"
    r"agrees? with|disagrees? with|aligns? with|goes? against)\s+the\s+claim\b.*$",
    re.IGNORECASE,
)
# Leading attributions to the source add nothing to trace: "The abstract states that X", "The
# results suggest that X", "The study directly supports the claim by showing that X" are traced as X.
# Negated attributions ("The study did not find X") are left whole: stripping them would flip X.
_SOURCE = r"(?:abstracts?|stud(?:y|ies)|articles?|papers?|sources?|trials?|authors?|evidence|results?|findings?|data)"
_PREAMBLE = re.compile(
    rf"^(?:the|this|these|one|a|another|both)\s+{_SOURCE}\s+(?:\w+ly\s+)?"
    r"(?:(?:supports?|contradicts?|refutes?|confirms?)\s+the\s+claim\s+by\s+"
    r"(?:stating|reporting|showing|noting|finding|mentioning|demonstrating|indicating)|"
    r"states?|stated|reports?|reported|shows?|showed|finds|found|says|say|mentions?|notes?|indicates?|"
    r"indicated|demonstrates?|demonstrated|concludes?|concluded|observes?|observed|suggests?|suggested|"
    r"reveals?|revealed|confirms?|confirmed)\s+(?:that\s+)?",
    re.IGNORECASE,
)
# Stemmed negation cues (tools.sparse.tokenize keeps no / not / nor as terms).
_NEGATIONS = frozenset({"no", "not", "nor", "never", "without", "neither", "none", "fail", "lack", "absenc"})
# Share of content terms an explanation sentence and the claim must have in common, both ways,
# for the sentence to count as a restatement of the claim (drop_unsupported_echoes).
CLAIM_ECHO_OVERLAP = 0.9
# A sentence this short is not judged by word overlap alone.
_MIN_OVERLAP_TERMS = 5


def lexical_support(text: str, cited: Sequence[str]) -> float:
    """Share of the content terms of `text` found in the `cited` sentences (stemmed, stop words
    out), or 0 when the restatement could have flipped the meaning: a negation cue or a number
    in one but not the other. A sentence that restates its source's own words is attributable
    without asking the stance model, which misreads close paraphrases ("had no effect on X" read
    against "Compared with placebo, vitamin E had no effect on X" scored 0.16)."""
    return _term_overlap(text, cited, _MIN_OVERLAP_TERMS)


def _term_overlap(text: str, cited: Sequence[str], min_terms: int) -> float:
    """lexical_support with `min_terms` as the shortest `text` it judges (0 below)."""
    words = set(tokenize(text))
    if not words or len(words) < min_terms:
        return 0.0
    source = set(tokenize(" ".join(cited)))
    if (words & _NEGATIONS) != (source & _NEGATIONS):
        return 0.0
    if any(w.isdigit() and w not in source for w in words):
        return 0.0
    return len(words & source) / len(words)


# How a quoted argument of a debate claim is introduced ("Against the claim: <quote>").
SIDE_LABELS = {True: "For the claim: ", False: "Against the claim: "}
_SIDE = re.compile(r"^(?:for|against) the claim:\s*", re.IGNORECASE)


def factual_part(text: str) -> str:
    """`text` without a leading "The abstract states that" (or a quoted argument's "For the claim:")
    and a trailing judgement about the claim: the part of an explanation sentence that its
    citations can support."""
    core = _JUDGEMENT.sub("", _PREAMBLE.sub("", _SIDE.sub("", text.strip()))).strip()
    return core or text.strip()


def sided_quotes(explanation: Explanation, assessments: Sequence[LocalAssessment]) -> Explanation:
    """A debate claim's quoted arguments, each introduced by the side its document's label takes
    ("For the claim: ...", "Against the claim: ..."), those for the claim first: a reader cannot
    tell from an argument alone which way it cuts."""
    sign = {a.doc_id: a.score for a in assessments}
    sided: list[tuple[bool, ExplanationSentence]] = []
    for sentence in explanation.sentences:
        doc = SentenceKey.parse(sentence.citations[0]).doc_id if sentence.citations else ""
        score = sign.get(doc, 0.0)
        if not score:
            sided.append((True, sentence))
            continue
        sided.append((score > 0, sentence.model_copy(update={"text": SIDE_LABELS[score > 0] + sentence.text})))
    ordered = [s for side, s in sided if side] + [s for side, s in sided if not side]
    return explanation.model_copy(update={"sentences": ordered})


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def check_attribution(
    explanation: Explanation,
    get_sentence: SentenceLookup,
    scorer: StanceScorer,
    *,
    threshold: float = DEFAULT_ATTRIBUTION_THRESHOLD,
    mode: Literal["flag", "drop"] = "flag",
    min_overlap: float | None = None,
    recite_from: Sequence[str] = (),
    recite_within_documents: bool = False,
) -> Explanation:
    """Trace every sentence to its citations with the stance model.

    A sentence is supported when the support probability of (sentence, cited text) reaches
    `threshold` for any one cited sentence or for all its cited sentences joined (a sentence may
    be composed from several). A sentence identical to a cited sentence (extractive quotes) is
    supported without asking the model, and so is, with `min_overlap` set, a restatement whose
    lexical_support against its citations reaches it. What is tested is the sentence's factual_part (without
    "The abstract states that ..." and "..., which supports the claim"). Citations that `get_sentence` cannot resolve are removed
    with a warning. Unsupported sentences become "interpretation" (mode "flag") or "dropped"
    (mode "drop"). Returns a new Explanation with checked=True.

    Re-citation (with `min_overlap` and `recite_from`): a sentence that fails against its own
    citations but restates one of the `recite_from` sentences (the evidence the model was shown)
    is re-cited to that sentence, with a warning. A small model often quotes one sentence and cites
    its neighbour; the citation then points where the words come from.

    With `recite_within_documents`, a sentence still failing is tested against every sentence of
    the documents it cites (the same model and `threshold`) and re-cited to the one that supports
    it best, with a warning: the paper does say it, in another sentence than the one cited.
    """
    if mode not in ("flag", "drop"):
        raise InputError(f"unsupported_sentences must be 'flag' or 'drop', got {mode!r}.")
    if min_overlap is not None and not (isinstance(min_overlap, int | float) and 0.0 < min_overlap <= 1.0):
        raise InputError(f"the attribution word overlap must be a number in (0, 1] or null, got {min_overlap!r}.")
    if not (isinstance(threshold, int | float) and math.isfinite(threshold) and 0.0 <= threshold <= 1.0):
        raise InputError(f"the attribution threshold must be a number in [0, 1], got {threshold!r}.")
    warnings = list(explanation.warnings)
    fail_status: Literal["interpretation", "dropped"] = "interpretation" if mode == "flag" else "dropped"
    resolved: list[list[tuple[str, str]]] = []
    pairs: list[tuple[str, str]] = []
    owners: list[int] = []
    for n, s in enumerate(explanation.sentences):
        cites: list[tuple[str, str]] = []
        for k in s.citations:
            text = get_sentence(k)
            if text is None:
                warnings.append(f"Citation {k!r} is not in the evidence store and was removed.")
            else:
                cites.append((k, text))
        resolved.append(cites)
        if not cites or any(_norm(t) == _norm(_SIDE.sub("", s.text.strip())) for _, t in cites):
            continue
        core = factual_part(s.text)
        for _, t in cites:
            pairs.append((core, t))
            owners.append(n)
        if len(cites) > 1:
            pairs.append((core, " ".join(t for _, t in cites)))
            owners.append(n)
    support = [0.0] * len(explanation.sentences)
    for owner, res in zip(owners, scorer.predict(pairs) if pairs else [], strict=True):
        support[owner] = max(support[owner], float(res.support))
    out: list[ExplanationSentence] = []
    for n, (s, cites) in enumerate(zip(explanation.sentences, resolved, strict=True)):
        if cites and any(_norm(t) == _norm(_SIDE.sub("", s.text.strip())) for _, t in cites):
            support[n] = 1.0
        restated = (bool(cites) and min_overlap is not None and support[n] < threshold
                    and lexical_support(factual_part(s.text), [t for _, t in cites]) >= min_overlap)
        ok = bool(cites) and (support[n] >= threshold or restated)
        if not ok and min_overlap is not None and recite_from:
            source = _best_restated(factual_part(s.text), recite_from, get_sentence, min_overlap)
            if source is not None:
                warnings.append(f"Re-cited {clip(s.text, 60)!r} from {[k for k, _ in cites]} to {source[0]!r}, "
                                "the evidence sentence it restates.")
                cites = [(source[0], source[1])]
                support[n] = max(support[n], source[2])
                ok = True
        if not ok and recite_within_documents and cites:
            found = _best_supporting(factual_part(s.text), [k for k, _ in cites], get_sentence, scorer, threshold)
            if found is not None:
                warnings.append(f"Re-cited {clip(s.text, 60)!r} from {[k for k, _ in cites]} to {found[0]!r}, "
                                "the sentence of the cited document that supports it.")
                cites = [(found[0], found[1])]
                support[n] = found[2]
                ok = True
        out.append(
            ExplanationSentence(
                text=s.text,
                citations=[k for k, _ in cites],
                status="supported" if ok else fail_status,
                support=min(1.0, max(0.0, support[n])),
            )
        )
    if summary := _unsupported_summary(out):
        warnings.append(summary)
    return Explanation(sentences=out, mode=explanation.mode, warnings=warnings, checked=True)


def check_perspective(
    perspective: Perspective,
    segments: Sequence[tuple[str, str]],
    get_sentence: SentenceLookup,
    scorer: StanceScorer,
    *,
    threshold: float = DEFAULT_ATTRIBUTION_THRESHOLD,
    min_overlap: float | None = None,
) -> Perspective:
    """The attribution check of the global explanation applied to a perspective summary: each of its
    sentences must be supported by the segments it cites (`get_sentence` resolves their keys).
    Unsupported sentences are removed; when none is left the best segment of `segments` ((key,
    text), best first) is quoted instead, with a warning."""
    if not perspective.summary.strip():
        return perspective
    sentences = [ExplanationSentence(text=t, citations=list(perspective.citations))
                 for t in split_sentences(perspective.summary)]
    checked = check_attribution(Explanation(sentences=sentences, mode=perspective.mode), get_sentence, scorer,
                                threshold=threshold, min_overlap=min_overlap)
    kept = [x for x in checked.sentences if x.status == "supported"]
    counts = {"sentences_checked": len(checked.sentences), "sentences_supported": len(kept)}
    if kept:
        cited = _dedupe(k for x in kept for k in x.citations)
        warning = perspective.warning
        if len(kept) < len(checked.sentences):
            warning = (f"{len(checked.sentences) - len(kept)} sentence(s) of the summary were not supported by "
                       "their citations and were removed")
        return perspective.model_copy(update={"summary": " ".join(x.text for x in kept), "citations": cited,
                                              "warning": warning, **counts})
    if not segments:
        return perspective.model_copy(update={"summary": "", "citations": [], **counts})
    quoted = _extractive_perspective(perspective.stance, segments,
                                     "the perspective summary was not supported by its citations; quoted instead")
    return quoted.model_copy(update=counts)


def _unsupported_summary(sentences: Sequence[ExplanationSentence]) -> str | None:
    """The warning that counts the sentences failing the attribution check (None when none fail)."""
    failed = [x for x in sentences if x.status != "supported"]
    if not failed:
        return None
    action = "dropped" if failed[0].status == "dropped" else "flagged as interpretation"
    return f"{len(failed)} of {len(sentences)} explanation sentences are not supported by their citations ({action})."


# Most sentences of one cited document tried when re-citing within documents.
RECITE_MAX_SENTENCES = 60


def _best_supporting(text: str, cited: Sequence[str], get_sentence: SentenceLookup, scorer: StanceScorer,
                     threshold: float) -> tuple[str, str, float] | None:
    """(key, sentence, support) of the sentence of the cited documents that supports `text` best,
    if it reaches `threshold`; the sentences already cited are not tried again."""
    candidates: list[tuple[str, str]] = []
    for doc_id in _dedupe(SentenceKey.parse(k).doc_id for k in cited):
        for i in range(RECITE_MAX_SENTENCES):
            key = str(SentenceKey.sentence(doc_id, i))
            t = get_sentence(key)
            if t is None:
                break
            if key not in cited:
                candidates.append((key, t))
    if not candidates:
        return None
    scores = [float(r.support) for r in scorer.predict([(text, t) for _, t in candidates])]
    best = max(range(len(candidates)), key=lambda j: scores[j])
    if scores[best] < threshold:
        return None
    return candidates[best][0], candidates[best][1], scores[best]


def _best_restated(text: str, keys: Sequence[str], get_sentence: SentenceLookup,
                   min_overlap: float) -> tuple[str, str, float] | None:
    """(key, sentence, overlap) of the candidate `text` restates best, if any reaches `min_overlap`."""
    best: tuple[float, str, str] | None = None
    for k in keys:
        t = get_sentence(k)
        if t is None:
            continue
        score = lexical_support(text, [t])
        if score >= min_overlap and (best is None or score > best[0]):
            best = (score, k, t)
    return (best[1], best[2], best[0]) if best else None


def explain(
    claim: str,
    assessments: Sequence[LocalAssessment],
    llm: StructuredLLM,
    *,
    get_sentence: SentenceLookup,
    scorer: StanceScorer,
    threshold: float = DEFAULT_ATTRIBUTION_THRESHOLD,
    mode: Literal["flag", "drop"] = "flag",
    min_overlap: float | None = None,
) -> Explanation:
    """global_explanation followed by check_attribution (the graph's explain step)."""
    draft = global_explanation(claim, assessments, llm, get_sentence=get_sentence, scorer=scorer)
    return check_attribution(draft, get_sentence, scorer, threshold=threshold, mode=mode, min_overlap=min_overlap,
                             recite_from=citable_evidence(assessments, get_sentence))


def is_claim_echo(text: str, claims: Sequence[str], *, min_overlap: float = CLAIM_ECHO_OVERLAP) -> bool:
    """Whether `text` (its factual_part) only restates one of `claims`: at least `min_overlap` of
    its content terms are the claim's and of the claim's are its, with the same negations and
    numbers (lexical_support's measure both ways, at any length)."""
    core = factual_part(text)
    # No minimum length here, unlike attribution: a short claim ("Antarctic Peninsula is
    # shrinking.") restated word for word is still only the claim.
    return any(c and c.strip() and _term_overlap(core, [c], 1) >= min_overlap
               and _term_overlap(c, [core], 1) >= min_overlap for c in claims)


def drop_unsupported_echoes(explanation: Explanation, claims: Sequence[str], *,
                            min_overlap: float = CLAIM_ECHO_OVERLAP) -> Explanation:
    """Drop the sentences that restate the claim (or its anti-claim) and failed the attribution
    check. Such a sentence asserts the very claim under investigation with nothing behind it: next
    to a "refuted" verdict a reader takes it for a finding. A restatement that passed stays (its
    sources do say it). Dropped sentences keep their text (status "dropped", named in a warning)
    and still count as failures in attribution_pass_rate. Run after check_attribution; when nothing
    visible is left, the caller shows the extractive explanation instead (agent explain_claim)."""
    if not explanation.checked:
        raise InputError("drop_unsupported_echoes needs a checked explanation; run check_attribution first.")
    echo = [s.status == "interpretation" and is_claim_echo(s.text, claims, min_overlap=min_overlap)
            for s in explanation.sentences]
    if not any(echo):
        return explanation
    out = [s.model_copy(update={"status": "dropped"}) if e else s
           for e, s in zip(echo, explanation.sentences, strict=True)]
    return explanation.model_copy(update={"sentences": out, "warnings": [
        *explanation.warnings,
        *(f"Dropped a sentence that only restates the claim and is not supported by its citations "
          f"(verdict.unsupported_claim_echoes): {clip(s.text, 80)!r}."
          for e, s in zip(echo, explanation.sentences, strict=True) if e)]})


def revise_unsupported(
    claim: str,
    explanation: Explanation,
    get_sentence: SentenceLookup,
    llm: StructuredLLM,
    scorer: StanceScorer,
    *,
    threshold: float = DEFAULT_ATTRIBUTION_THRESHOLD,
    min_overlap: float | None = None,
) -> Explanation:
    """Give every sentence that failed the attribution check one revision: the LLM rewrites it to
    say only what its cited sentences say (prompts/revise.py; it may cite only those), and the
    revision replaces the sentence if it passes the same check (`threshold`, `min_overlap`), keeping
    the first wording in `revised_from`. A revision that fails, or an LLM error, leaves the sentence
    as it was (flagged or dropped). Run after check_attribution; returns a new Explanation."""
    if not explanation.checked:
        raise InputError("revise_unsupported needs a checked explanation; run check_attribution first.")
    out: list[ExplanationSentence] = []
    warnings = list(explanation.warnings)
    revised = tried = 0
    for s in explanation.sentences:
        cites = [(k, t) for k in s.citations if (t := get_sentence(k)) is not None]
        if s.status == "supported" or not cites:
            out.append(s)
            continue
        tried += 1
        cites = cites[: explanation_prompt.MAX_CITATIONS]
        try:
            ans = llm.run(revise_prompt.prompt_for(len(cites)),
                          revise_prompt.make_input(claim, s.text, [t for _, t in cites]))
        except LLMError as exc:
            warnings.append(f"Could not revise {clip(s.text, 60)!r} ({clip(str(exc), 160)}); it stays flagged.")
            out.append(s)
            continue
        keys, _ = _map_indices(ans.citations, [k for k, _ in cites])
        text = clip(ans.text, explanation_prompt.SENTENCE_CHARS)
        if not keys or not text or _norm(text) == _norm(s.text):
            out.append(s)
            continue
        trial = check_attribution(Explanation(sentences=[ExplanationSentence(text=text, citations=keys)]),
                                  get_sentence, scorer, threshold=threshold, min_overlap=min_overlap)
        new = trial.sentences[0]
        if new.status != "supported":
            out.append(s)
            continue
        revised += 1
        out.append(new.model_copy(update={"revised_from": s.text}))
    if tried:
        warnings.append(f"Revised {revised} of {tried} explanation sentences that their citations did not support "
                        "to what the citations say (the first wording is kept in revised_from).")
    if revised:  # the check's count of failing sentences is out of date
        warnings = [w for w in warnings if w != _unsupported_summary(explanation.sentences)]
        if summary := _unsupported_summary(out):
            warnings.append(summary)
    return Explanation(sentences=out, mode=explanation.mode, warnings=warnings, checked=True)
