"""Local labels: one document's graded verdict on the claim (the 7-grade scale of Tan et al.) with its
reason and cited sentences, from the LLM, the stance model's document decision, or both (with the
sign check that catches a label contradicting the stance evidence)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import document_assessment as assessment_prompt
from claimscope.prompts import local_label as local_label_prompt
from claimscope.prompts.explanation import clip
from claimscope.tools.errors import InputError
from claimscope.tools.explain.common import DEFAULT_CONFLICT_MARGIN, _sign
from claimscope.tools.explain.takeaways import (
    Takeaway,
    _abstract_inputs,
    _extractive_takeaway,
    _window,
    takeaway_text,
)
from claimscope.tools.explain.wording import is_claim_echo
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    Document,
    SentenceKey,
    Stance,
    StanceResult,
)
from claimscope.tools.read.stance import DocumentLabel
from claimscope.tools.text.segmenter import without_section_label
from claimscope.tools.weigh.verdict import LocalLabel


class LocalAssessment(BaseModel):
    """One document's graded verdict on the claim, with its reason and cited sentences."""

    doc_id: str
    label: LocalLabel
    score: float = Field(description="The label's score on the 7-grade scale (tools.weigh.verdict).")
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
    disagreement: str | None = Field(
        None, description="Where two judges read the document differently (hybrid: the LLM and the stance "
        "model), what each said and which label stands; shown in the report's details, not as a warning.")

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
    """Takeaway and local label of one document in a single LLM call (prompts/document_assessment.py).

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
    shown, inputs = _abstract_inputs(claim, doc, relevant, assessment_prompt.MAX_SENTENCES)
    try:
        out = llm.run(assessment_prompt.prompt_for(len(shown)), inputs)
        label = LocalLabel.parse(out.label)
    except (LLMError, InputError) as exc:
        tk = _extractive_takeaway(doc, relevant, f"assessment LLM call failed ({exc}); sentences quoted instead")
        fallback = stance_only_label(doc, stance_evidence, takeaway=tk.text)
        fallback.warning = f"assessment LLM call failed ({exc}); label from the stance model"
        return tk, fallback
    text = takeaway_text(out.takeaway, assessment_prompt.TAKEAWAY_CHARS)
    if not out.related or not text:
        return None
    positions = [p for p in out.evidence if isinstance(p, int) and 1 <= p <= len(shown)]
    tk = Takeaway(doc_id=doc.id, text=text, sentence_indices=list(dict.fromkeys(shown[p - 1] for p in positions)))
    la = _assessment_from_answer(doc, label, out.evidence, shown, [], evidence,
                                 clip(out.explanation, assessment_prompt.EXPLANATION_CHARS), text, conflict_margin)
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
    lead = without_section_label(doc.sentences[cited[0]] if cited else doc.sentences[ranked[0]])
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


# Longest quoted sentence a stance-mode explanation shows whole; SciFact abstracts' sentences are far shorter.
QUOTE_CHARS = 600


# How a stance-mode local explanation opens; global_explanation drops summary sentences that copy it.
STANCE_FRAMING = "The stance model reads this abstract as evidence that"


# The same for the argument model of a debate claim: its texts are arguments, not abstracts.
ARGUMENT_FRAMING = "The argument model reads this text as an argument"


def stance_assessment(doc: Document, decision: DocumentLabel, *, takeaway: str = "",
                      max_cited: int = 3, arguments: bool = False) -> LocalAssessment:
    """The local label the stance model's document decision (tools.read.stance.decide_document) gives:
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
    framing = (f"{ARGUMENT_FRAMING} {'for' if sign > 0 else 'against'}" if arguments
               else f"{STANCE_FRAMING} {verb}")
    head = clip(f"{framing} the claim (p={decision.confidence:.2f}).", local_label_prompt.EXPLANATION_CHARS)
    # The quote is the whole sentence: cut at a length limit it stopped mid-phrase ("... the frequency
    # of DNA…"), which reads as another finding. Only a runaway sentence (a segmentation failure) is
    # cut, inside its quotation marks so it still reads as a closed quote.
    lead = (f' The strongest: "{clip(without_section_label(doc.sentences[cited[0]]), QUOTE_CHARS)}"'
            if cited else "")
    return LocalAssessment(
        doc_id=doc.id, label=label, score=label.score,
        explanation=head + lead,
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
    is always flagged as a sign conflict, with both labels named in `disagreement`; `on_conflict`
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
                                      "disagreement": f"{both}; the LLM's label is used"})
    if on_conflict == "abstain":
        return stance.model_copy(update={
            "label": LocalLabel.NO_EVIDENCE, "score": LocalLabel.NO_EVIDENCE.score, "cited_sentences": [],
            "mode": "hybrid", "sign_conflict": True, "takeaway": llm.takeaway or stance.takeaway,
            "disagreement": f"{both}; counted as No Evidence"})
    return stance.model_copy(update={
        "mode": "hybrid", "sign_conflict": True, "takeaway": llm.takeaway or stance.takeaway,
        "disagreement": f"{both}; the stance model's label is used",
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
    document decision over them (tools.read.stance.decide_document). A document that is not evidence
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
