"""tools/explain/ and its prompts: takeaways, local labels, perspectives, the global explanation
and its attribution check, all with scripted fakes (no model is loaded).

Over 600 lines: the tests of one package, sharing its fixture documents and fakes."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from claimscope.prompts import document_assessment as assessment_prompt
from claimscope.prompts import explanation as explanation_prompt
from claimscope.prompts import local_label as local_label_prompt
from claimscope.prompts import perspective as perspective_prompt
from claimscope.prompts import takeaway as takeaway_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.explain import (
    STANCE_FRAMING,
    Explanation,
    ExplanationSentence,
    LocalAssessment,
    Takeaway,
    assess_document,
    check_attribution,
    citable_evidence,
    combine_labels,
    contradiction,
    extractive_explanation,
    findings_explanation,
    global_explanation,
    label_document,
    lexical_support,
    local_label,
    perspective_summary,
    revise_unsupported,
    sentence_lookup,
    sign_check,
    stance_assessment,
    stance_only_label,
    takeaway,
)
from claimscope.tools.llm import LLMError
from claimscope.tools.models import Document, Stance, StanceResult
from claimscope.tools.read.stance import decide_document
from claimscope.tools.weigh.verdict import LocalLabel
from tests.conftest import FIXTURES
from tests.fakes import CannedLLM, KeywordStance

DATA = json.loads((FIXTURES / "explain" / "docs.json").read_text())
CLAIM: str = DATA["claim"]
DOCS = {d["id"]: Document(**d) for d in DATA["documents"]}
GET = sentence_lookup(DOCS.values())
STANCE = KeywordStance()


def evidence_of(doc: Document) -> list[tuple[int, StanceResult]]:
    results = STANCE.predict([(CLAIM, s) for s in doc.sentences])
    return list(enumerate(results))


def assessment(doc_id: str, label: LocalLabel, cited: Sequence[int], explanation: str = "x") -> LocalAssessment:
    return LocalAssessment(doc_id=doc_id, label=label, score=label.score, explanation=explanation, cited_sentences=list(cited))


SUPPORT = StanceResult(label=Stance.SUPPORT, support=0.9, neutral=0.05, refute=0.05)
REFUTE = StanceResult(label=Stance.REFUTE, support=0.05, neutral=0.05, refute=0.9)
NEUTRAL = StanceResult(label=Stance.NEUTRAL, support=0.1, neutral=0.8, refute=0.1)


class WordCoverage:
    """Fake stance: support = share of the claim's content words found in the evidence."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        self.pairs.extend(pairs)
        out = []
        for claim, ev in pairs:
            words = {w.strip(".,").lower() for w in claim.split() if len(w) > 3}
            found = {w.strip(".,").lower() for w in ev.split()}
            cov = len(words & found) / max(1, len(words))
            out.append(StanceResult(label=Stance.SUPPORT if cov >= 0.5 else Stance.NEUTRAL,
                                    support=cov, neutral=1 - cov, refute=0.0))
        return out


# --- keys -----------------------------------------------------------------------------------


def test_sentence_keys_round_trip_and_reject_garbage():
    from claimscope.tools.models import SentenceKey

    key = SentenceKey.sentence("doc#with#hash", 3)
    assert str(key) == "doc#with#hash#3"
    assert SentenceKey.parse(str(key)) == key and key.doc_id == "doc#with#hash" and key.start == 3
    span = SentenceKey.parse("d1#0-2")
    assert (span.doc_id, span.start, span.end, str(span)) == ("d1", 0, 2, "d1#0-2")
    assert GET("d1#1") == DOCS["d1"].sentences[1]
    assert GET("d1#7") is None
    for garbage in ("d1-1", "#3", "d1#", "d1#x", "d1#2-2", "d1#3-1", "d1#1-"):
        assert SentenceKey.read(garbage) is None
        with pytest.raises(InputError, match="not a sentence key"):
            SentenceKey.parse(garbage)


# --- prompts --------------------------------------------------------------------------------


def test_the_label_prompts_answer_in_the_verdict_scale():
    """The local-label and document-assessment prompts name exactly tools.weigh.verdict.LocalLabel's
    values (prompts sit below tools, so the prompt spells them out and this test holds them equal)."""
    from typing import get_args

    assert set(get_args(local_label_prompt.LabelName)) == {lab.value for lab in LocalLabel}
    assert assessment_prompt.DocumentAssessmentOutput.model_fields["label"].annotation is local_label_prompt.LabelName


@pytest.mark.parametrize("module", [takeaway_prompt, local_label_prompt, assessment_prompt, perspective_prompt,
                                    explanation_prompt])
def test_prompts_render_bench_inputs_and_bound_outputs(module):
    inputs = module.bench_inputs("Aspirin lowers the risk of a first heart attack.")
    text = module.PROMPT.render(inputs)
    assert "Aspirin" in text and "{" not in text.replace("{}", "")
    assert module.PROMPT.temperature == 0.3
    for ex_in, ex_out in module.PROMPT.examples:
        module.PROMPT.render(ex_in)
        module.PROMPT.output_model.model_validate(ex_out.model_dump())
    schema = json.dumps(module.prompt_for(2).output_model.model_json_schema())
    assert '"enum": [1, 2]' in schema and "maxLength" in schema and "maxItems" in schema


def test_citation_schema_admits_only_listed_evidence():
    model = explanation_prompt.prompt_for(2).output_model
    ok = model.model_validate({"sentences": [{"text": "A.", "citations": [1, 2]}]})
    assert ok.sentences[0].citations == [1, 2]
    for bad in ([3], [0], [-1], ["d1#1"], []):
        with pytest.raises(ValidationError):
            model.model_validate({"sentences": [{"text": "A.", "citations": bad}]})


# --- takeaways ------------------------------------------------------------------------------


def test_takeaway_pruned_when_unrelated():
    llm = CannedLLM({"takeaway": [{"related": False, "sentences": [], "takeaway": ""}]})
    assert takeaway(CLAIM, DOCS["d3"], llm) is None
    # related but empty text is no takeaway either
    llm = CannedLLM({"takeaway": [{"related": True, "sentences": [1], "takeaway": "  "}]})
    assert takeaway(CLAIM, DOCS["d3"], llm) is None
    assert takeaway(CLAIM, Document(id="empty", title="t"), llm) is None


def test_takeaway_maps_numbers_to_sentence_indices_and_marks_matches():
    llm = CannedLLM({"takeaway": [{"related": True, "sentences": [2], "takeaway": "Supplements cut fractures by a fifth."}]})
    tk = takeaway(CLAIM, DOCS["d1"], llm, relevant_sentences=[1])
    assert tk == Takeaway(doc_id="d1", text="Supplements cut fractures by a fifth.", sentence_indices=[1], mode="llm")
    assert "[S2]* Vitamin" in llm.calls[0][1].abstract


def test_takeaway_window_on_long_abstract_keeps_matched_first_and_last():
    doc = Document(id="long", sentences=[f"Sentence number {i}." for i in range(30)])
    llm = CannedLLM({"takeaway": lambda inp: {"related": True, "sentences": [inp.matched[0]], "takeaway": "t"}})
    tk = takeaway(CLAIM, doc, llm, relevant_sentences=[17])
    shown = llm.calls[0][1].sentences
    assert len(shown) == takeaway_prompt.MAX_SENTENCES
    assert {"Sentence number 0.", "Sentence number 17.", "Sentence number 29."} <= set(shown)
    assert tk is not None and tk.sentence_indices == [17]


def test_takeaway_llm_failure_keeps_document_extractively():
    llm = CannedLLM({"takeaway": [LLMError("timeout")]})
    tk = takeaway(CLAIM, DOCS["d1"], llm, relevant_sentences=[1])
    assert tk is not None and tk.mode == "extractive" and tk.sentence_indices == [1]
    tk = takeaway(CLAIM, DOCS["d2"], llm)
    assert tk is not None and tk.sentence_indices == [1] and tk.text == DOCS["d2"].sentences[1]


STRUCTURED = Document(id="sa", title="Partnership and progression to AIDS", sentences=[
    "BACKGROUND Little is known about social support and HIV progression.",
    "RESULTS We found that a stable partnership was associated with slower progression to AIDS.",
    "CONCLUSIONS A stable partnership slows progression to AIDS or death.",
])


def test_takeaways_drop_a_structured_abstracts_heading():
    # quoted sentences (stance mode, the LLM failing) and a model that copies the abstract's first words
    res = [NEUTRAL, SUPPORT, SUPPORT]
    tk, la = label_document(CLAIM, STRUCTURED, res, decide_document(res, RULE), None, mode="stance")
    assert tk is not None and tk.text.startswith("We found that") and "CONCLUSIONS" not in tk.text
    assert la.takeaway == tk.text and '"We found that' in la.explanation
    tk = takeaway(CLAIM, STRUCTURED, CannedLLM({"takeaway": [LLMError("timeout")]}), relevant_sentences=[2])
    assert tk is not None and tk.text == "A stable partnership slows progression to AIDS or death."
    copied = {"related": True, "sentences": [3], "takeaway": "CONCLUSIONS A stable partnership slows progression."}
    tk = takeaway(CLAIM, STRUCTURED, CannedLLM({"takeaway": [copied]}))
    assert tk is not None and tk.text == "A stable partnership slows progression."
    both = assess_document(CLAIM, STRUCTURED, list(enumerate(res)), CannedLLM({"document_assessment": [
        {"related": True, "takeaway": "RESULTS We found slower progression.", "evidence": [2],
         "explanation": "e", "label": "Mostly True"}]}))
    assert both is not None and both[0].text == "We found slower progression." == both[1].takeaway
    assert stance_only_label(STRUCTURED, list(enumerate(res))).explanation.count("RESULTS") == 0


# --- local labels ---------------------------------------------------------------------------


def test_local_label_sign_conflict_is_flagged_not_fixed():
    doc = DOCS["d2"]  # sentence 1 refutes the claim
    llm = CannedLLM({"local_label": [{"evidence": [2], "explanation": "Supplements helped.", "label": "Mostly True"}]})
    a = local_label(CLAIM, doc, "Supplements did not lower risk.", evidence_of(doc), llm)
    assert a.label is LocalLabel.MOSTLY_TRUE and a.score == pytest.approx(0.66)
    assert a.cited_sentences == [1] and a.keys == ["d2#1"]
    assert a.sign_conflict is True and a.evidence_score is not None and a.evidence_score < 0


def test_local_label_agreeing_sign_has_no_conflict():
    doc = DOCS["d2"]
    llm = CannedLLM({"local_label": [{"evidence": [2], "explanation": "No lower risk.", "label": "False"}]})
    a = local_label(CLAIM, doc, None, evidence_of(doc), llm)
    assert a.label is LocalLabel.FALSE and not a.sign_conflict and a.mode == "llm"


def test_sign_check_edges():
    ev = {0: SUPPORT, 1: REFUTE, 2: NEUTRAL}
    assert sign_check(LocalLabel.FALSE, [0], ev) == (pytest.approx(0.85), True)
    assert sign_check(LocalLabel.TRUE, [0], ev)[1] is False
    # No Evidence never conflicts; mixed evidence inside the margin has no sign
    assert sign_check(LocalLabel.NO_EVIDENCE, [1], ev)[1] is False
    assert sign_check(LocalLabel.TRUE, [0, 1], ev) == (pytest.approx(0.0), False)
    # cited sentences without stance evidence -> the document's evidence as a whole
    assert sign_check(LocalLabel.TRUE, [5], {1: REFUTE})[1] is True
    assert sign_check(LocalLabel.TRUE, [0], {}) == (None, False)


def test_local_label_without_citations_borrows_takeaway_sentences():
    doc = DOCS["d1"]
    llm = CannedLLM({"local_label": [{"evidence": [], "explanation": "Fewer fractures.", "label": "True"}]})
    tk = Takeaway(doc_id="d1", text="Fewer fractures", sentence_indices=[1])
    a = local_label(CLAIM, doc, tk, evidence_of(doc), llm)
    assert a.cited_sentences == [1] and not a.sign_conflict


def test_local_label_llm_failure_falls_back_to_stance():
    llm = CannedLLM({"local_label": [LLMError("invalid JSON x3")]})
    a = local_label(CLAIM, DOCS["d1"], None, evidence_of(DOCS["d1"]), llm)
    assert a.mode == "stance" and a.label is LocalLabel.MOSTLY_TRUE and a.cited_sentences == [1]
    b = local_label(CLAIM, DOCS["d2"], None, evidence_of(DOCS["d2"]), llm)
    assert b.label is LocalLabel.MOSTLY_FALSE and b.cited_sentences == [1]
    c = stance_only_label(DOCS["d3"], evidence_of(DOCS["d3"]))
    assert c.label is LocalLabel.NO_EVIDENCE and c.cited_sentences == []


# --- takeaway and label in one call (prompts/document_assessment.py) -------------------------------------


def test_assess_document_gives_takeaway_and_sign_checked_label():
    doc = DOCS["d2"]  # sentence 1 refutes the claim
    llm = CannedLLM({"document_assessment": [{"related": True, "takeaway": "Supplements did not lower fracture risk.",
                                 "evidence": [2], "explanation": "They helped.", "label": "Mostly True"}]})
    tk, la = assess_document(CLAIM, doc, evidence_of(doc), llm)
    assert tk.text == "Supplements did not lower fracture risk." and tk.sentence_indices == [1]
    assert la.label is LocalLabel.MOSTLY_TRUE and la.cited_sentences == [1] and la.takeaway == tk.text
    assert la.sign_conflict is True and la.mode == "llm"
    (_, inputs), = llm.calls
    # the sentences with stance evidence are marked for the model, like retrieval matches
    assert inputs.matched and all(1 <= m <= len(doc.sentences) for m in inputs.matched)


def test_assess_document_prunes_unrelated_and_empty():
    llm = CannedLLM({"document_assessment": [{"related": False, "takeaway": "", "evidence": [], "explanation": "",
                                 "label": "No Evidence"}]})
    assert assess_document(CLAIM, DOCS["d3"], evidence_of(DOCS["d3"]), llm) is None
    assert assess_document(CLAIM, Document(id="empty", title="t"), [], CannedLLM({})) is None


def test_assess_document_llm_failure_keeps_document_with_stance_label():
    llm = CannedLLM({"document_assessment": [LLMError("timed out")]})
    tk, la = assess_document(CLAIM, DOCS["d1"], evidence_of(DOCS["d1"]), llm, relevant_sentences=[1])
    assert tk.mode == "extractive" and tk.sentence_indices == [1]
    assert la.mode == "stance" and la.label is LocalLabel.MOSTLY_TRUE and "timed out" in (la.warning or "")


# --- stance-decided labels (verdict.local_labels: hybrid | stance) ----------------------------

RULE = {"support_threshold": 0.5, "refute_threshold": 0.5}


def test_stance_assessment_grades_by_confidence_and_cites_rationales():
    doc = DOCS["d2"]
    res = [NEUTRAL, REFUTE, NEUTRAL][: len(doc.sentences)] + [NEUTRAL] * max(0, len(doc.sentences) - 3)
    la = stance_assessment(doc, decide_document(res, RULE))
    assert la.label is LocalLabel.FALSE and la.cited_sentences == [1] and la.mode == "stance"
    weak = StanceResult(label=Stance.SUPPORT, support=0.55, neutral=0.4, refute=0.05)
    la = stance_assessment(doc, decide_document([weak] + [NEUTRAL] * (len(doc.sentences) - 1), RULE))
    assert la.label is LocalLabel.MOSTLY_TRUE and la.cited_sentences == [0]
    none = stance_assessment(doc, decide_document([NEUTRAL] * len(doc.sentences), RULE))
    assert none.label is LocalLabel.NO_EVIDENCE and none.cited_sentences == []


def test_stance_assessment_quotes_the_strongest_sentence_whole():
    """Readers found "The strongest: \"... the frequency of DNA…\"": a quote cut at the explanation's
    length limit stops mid-phrase and reads as another finding."""
    finding = ("Using our two-step mouse model for myeloid leukemic disease progression involving overexpression "
               "of human mutant NRAS and BCL2 genes, we show that there is a stepwise increase in the frequency "
               "of DNA damage leading to an increased frequency of misrepaired DNA double-strand breaks.")
    doc = Document(id="long", title="A long finding", sentences=[finding])
    strong = StanceResult(label=Stance.SUPPORT, support=0.9, neutral=0.05, refute=0.05)
    la = stance_assessment(doc, decide_document([strong], RULE))
    assert la.explanation.endswith(f'"{finding}"')


def test_stance_assessment_cuts_a_runaway_quote_inside_its_quotation_marks():
    runaway = "Using our model, we show " + "a stepwise increase in the frequency of DNA damage " * 20 + "in cells."
    doc = Document(id="long", title="A long finding", sentences=[runaway])
    strong = StanceResult(label=Stance.SUPPORT, support=0.9, neutral=0.05, refute=0.05)
    la = stance_assessment(doc, decide_document([strong], RULE))
    assert la.explanation.endswith('…"') and la.explanation.count('"') == 2


def test_decide_document_thresholds_and_empty():
    mid = StanceResult(label=Stance.SUPPORT, support=0.6, neutral=0.3, refute=0.1)
    assert decide_document([mid], {"support_threshold": 0.5}).label == "SUPPORT"
    assert decide_document([mid], {"support_threshold": 0.7}).label == "NEI"
    assert decide_document([], RULE).label == "NEI"


def test_combine_labels_keeps_agreeing_llm_grade_and_flags_disagreement():
    st = assessment("d2", LocalLabel.MOSTLY_FALSE, [1]).model_copy(update={"mode": "stance"})
    agree = assessment("d2", LocalLabel.FALSE, [1], "the LLM's reason")
    out = combine_labels(agree, st)
    assert out.label is LocalLabel.FALSE and out.mode == "hybrid" and not out.sign_conflict
    assert out.explanation == "the LLM's reason"
    disagree = assessment("d2", LocalLabel.MOSTLY_TRUE, [0]).model_copy(update={"takeaway": "tk"})
    out = combine_labels(disagree, st, on_conflict="stance")
    assert out.label is LocalLabel.MOSTLY_FALSE and out.sign_conflict and out.takeaway == "tk"
    # the disagreement goes to the document's details, not to the run's warnings
    assert "Mostly True" in (out.disagreement or "") and out.warning is None
    assert combine_labels(disagree, st, on_conflict="llm").label is LocalLabel.MOSTLY_TRUE
    assert combine_labels(disagree, st, on_conflict="llm").sign_conflict
    out = combine_labels(disagree, st, on_conflict="abstain")
    assert out.label is LocalLabel.NO_EVIDENCE and out.sign_conflict and out.cited_sentences == []
    with pytest.raises(InputError):
        combine_labels(disagree, st, on_conflict="vote")
    abstain = assessment("d2", LocalLabel.NO_EVIDENCE, [])
    assert combine_labels(abstain, st, on_conflict="stance").label is LocalLabel.MOSTLY_FALSE
    assert combine_labels(abstain, st).label is LocalLabel.MOSTLY_FALSE  # default: the stance label stands
    assert combine_labels(abstain, st).sign_conflict
    nei = assessment("d2", LocalLabel.NO_EVIDENCE, []).model_copy(update={"mode": "stance"})
    assert combine_labels(agree, nei).label is LocalLabel.NO_EVIDENCE


def test_label_document_calls_the_llm_only_for_evidence():
    doc = DOCS["d2"]
    quiet = [NEUTRAL] * len(doc.sentences)
    llm = CannedLLM({})
    tk, la = label_document(CLAIM, doc, quiet, decide_document(quiet, RULE), llm)
    assert tk is None and la.label is LocalLabel.NO_EVIDENCE and llm.calls == []
    res = [NEUTRAL] * len(doc.sentences)
    res[1] = REFUTE
    llm = CannedLLM({"document_assessment": [{"related": True, "takeaway": "No effect on fractures.", "evidence": [2],
                                 "explanation": "They helped.", "label": "Mostly True"}]})
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), llm, on_conflict="stance")
    assert len(llm.calls) == 1
    assert la.label is LocalLabel.FALSE and la.sign_conflict and la.mode == "hybrid"
    # the stance label overruled the LLM's "Mostly True": the takeaway quotes what the label rests on
    assert tk.mode == "extractive" and tk.sentence_indices == [1] and la.takeaway == doc.sentences[1]
    agreeing = CannedLLM({"document_assessment": [{"related": True, "takeaway": "No effect on fractures.", "evidence": [2],
                                      "explanation": "No effect.", "label": "Mostly False"}]})
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), agreeing)
    assert tk.text == "No effect on fractures." and not la.sign_conflict
    echo = CannedLLM({"document_assessment": [{"related": True, "takeaway": CLAIM, "evidence": [2],
                                  "explanation": "No effect.", "label": "Mostly False"}]})
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), echo)
    assert tk.mode == "extractive" and tk.text == doc.sentences[1]  # a restated claim is no takeaway
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), None, mode="stance")
    assert tk.mode == "extractive" and tk.sentence_indices == [1] and la.label is LocalLabel.FALSE
    pruned = CannedLLM({"document_assessment": [{"related": False, "takeaway": "", "evidence": [], "explanation": "",
                                    "label": "No Evidence"}]})
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), pruned)
    assert tk is None and la.label is LocalLabel.NO_EVIDENCE
    failing = CannedLLM({"document_assessment": [LLMError("timed out")]})
    tk, la = label_document(CLAIM, doc, res, decide_document(res, RULE), failing)
    assert la.label is LocalLabel.FALSE and "timed out" in (la.warning or "")
    with pytest.raises(InputError):
        label_document(CLAIM, doc, res[:1], decide_document(res, RULE), llm)


def test_assess_schema_bounds_sentence_numbers_and_labels():
    model = assessment_prompt.prompt_for(3).output_model
    ok = {"related": True, "takeaway": "t", "evidence": [3], "explanation": "e", "label": "False"}
    assert model.model_validate(ok).evidence == [3]
    for bad in ({"evidence": [4]}, {"label": "Probably"}, {"evidence": [1, 2, 3, 1]}):
        with pytest.raises(ValidationError):
            model.model_validate(ok | bad)


def test_local_label_rejects_bad_evidence_index():
    with pytest.raises(InputError, match="0-based"):
        local_label(CLAIM, DOCS["d2"], None, [(5, SUPPORT)], CannedLLM({}))


# --- perspectives ---------------------------------------------------------------------------


def test_perspective_cites_only_given_segments():
    segs = [("d1#1", DOCS["d1"].sentences[1]), ("d9#0", "Calcium too lowered fracture risk.")]
    llm = CannedLLM({"perspective": [{"citations": [2, 1, 2], "summary": "Supplements lower fracture risk."}]})
    p = perspective_summary(CLAIM, "Fracture outcomes", Stance.SUPPORT, segs, llm)
    assert p.citations == ["d9#0", "d1#1"] and p.mode == "llm" and p.n_segments == 2
    with pytest.raises(ValidationError):
        perspective_prompt.prompt_for(2).output_model.model_validate({"citations": [3], "summary": "s"})


def test_perspective_fallback_and_empty():
    llm = CannedLLM({"perspective": [LLMError("down")]})
    p = perspective_summary(CLAIM, "a", "refute", [("d2#1", DOCS["d2"].sentences[1])], llm)
    assert p.mode == "extractive" and p.citations == ["d2#1"] and p.summary == DOCS["d2"].sentences[1]
    assert perspective_summary(CLAIM, "a", "refute", [], llm).summary == ""


# --- global explanation ---------------------------------------------------------------------

ASSESSMENTS = [
    assessment("d1", LocalLabel.MOSTLY_TRUE, [1], "Supplements cut fractures by a fifth."),
    assessment("d2", LocalLabel.FALSE, [1], "No lower fracture risk in a large cohort."),
    assessment("d3", LocalLabel.NO_EVIDENCE, [1], "About coffee, not vitamins."),
]


def test_global_explanation_maps_indices_to_keys_and_excludes_no_evidence():
    def answer(inp):
        # the strongest label first: d2 (False) then d1 (Mostly True)
        assert inp.evidence == [DOCS["d2"].sentences[1], DOCS["d1"].sentences[1]]
        assert "coffee" not in inp.documents_block.lower()
        return {"sentences": [{"text": "Supplements did not lower fracture risk in a cohort.", "citations": [1]},
                              {"text": "A trial found a one-fifth reduction.", "citations": [2, 2]}]}

    llm = CannedLLM({"explanation": answer})
    ex = global_explanation(CLAIM, ASSESSMENTS, llm, get_sentence=GET)
    assert ex.mode == "llm" and not ex.warnings
    assert [s.citations for s in ex.sentences] == [["d2#1"], ["d1#1"]]
    assert all(s.status == "interpretation" for s in ex.sentences) and not ex.checked


def test_global_explanation_merges_a_repeated_sentence():
    out = {"sentences": [{"text": "Supplements did not lower fracture risk.", "citations": [1]},
                         {"text": "A trial found a one-fifth reduction.", "citations": [2]},
                         {"text": "supplements did not  lower fracture risk", "citations": [2, 1]}]}
    ex = global_explanation(CLAIM, ASSESSMENTS, CannedLLM({"explanation": lambda inp: out}), get_sentence=GET)
    assert [s.text for s in ex.sentences] == ["Supplements did not lower fracture risk.",
                                              "A trial found a one-fifth reduction."]
    assert [s.citations for s in ex.sentences] == [["d2#1", "d1#1"], ["d1#1"]]  # the repeat's citations join
    assert len(ex.warnings) == 1 and "repeated sentence" in ex.warnings[0]


def test_global_explanation_rejects_citations_outside_the_evidence():
    bad_sentence = explanation_prompt.ExplanationSentence.model_construct(text="Invented.", citations=[7])
    mixed = explanation_prompt.ExplanationSentence.model_construct(text="Half right.", citations=[1, 0])
    out = explanation_prompt.ExplanationOutput.model_construct(sentences=[bad_sentence, mixed])
    llm = CannedLLM({"explanation": lambda inp: out})
    ex = global_explanation(CLAIM, ASSESSMENTS, llm, get_sentence=GET)
    assert [s.text for s in ex.sentences] == ["Half right."]
    assert ex.sentences[0].citations == ["d2#1"]
    assert any("Rejected" in w for w in ex.warnings) and any("Removed" in w for w in ex.warnings)
    # nothing valid at all -> extractive
    only_bad = explanation_prompt.ExplanationOutput.model_construct(sentences=[bad_sentence])
    ex = global_explanation(CLAIM, ASSESSMENTS, CannedLLM({"explanation": lambda inp: only_bad}), get_sentence=GET)
    assert ex.mode == "extractive" and ex.sentences


@pytest.mark.parametrize("copied, warning", [
    # the few-shot answer is about another claim
    (explanation_prompt.PROMPT.examples[0][1].sentences[1].text, "copied from the prompt's example"),
    # the stance-mode local explanation's framing is about the model, not the sources
    (f"{STANCE_FRAMING} supports the claim.", "about the stance model"),
])
def test_global_explanation_removes_copied_sentences(copied, warning):
    assessments = [assessment("d1", LocalLabel.MOSTLY_TRUE, [1])]
    llm = CannedLLM({"explanation": [{"sentences": [{"text": copied, "citations": [1]},
                                                    {"text": DOCS["d1"].sentences[1], "citations": [1]}]}]})
    out = global_explanation(CLAIM, assessments, llm, get_sentence=GET)
    assert [s.text for s in out.sentences] == [DOCS["d1"].sentences[1]]
    assert any(warning in w for w in out.warnings)


def test_global_explanation_shows_a_stance_label_without_its_framing():
    framed = assessment("d1", LocalLabel.MOSTLY_TRUE, [1], f"{STANCE_FRAMING} supports the claim (p=0.81).")
    llm = CannedLLM({"explanation": lambda inp: {"sentences": [{"text": "t", "citations": [1]}]}})
    global_explanation(CLAIM, [framed, ASSESSMENTS[1]], llm, get_sentence=GET)
    block = llm.calls[0][1].documents_block
    assert "stance model" not in block
    assert "(D2) Mostly True [evidence: S2]" in block
    assert "(D1) False: No lower fracture risk in a large cohort. [evidence: S1]" in block


def test_global_explanation_never_offers_a_sentence_missing_from_the_store():
    missing = [assessment("d1", LocalLabel.TRUE, [1, 9]), assessment("gone", LocalLabel.FALSE, [0])]
    llm = CannedLLM({"explanation": lambda inp: {"sentences": [{"text": "t", "citations": [1]}]}})
    ex = global_explanation(CLAIM, missing, llm, get_sentence=GET)
    assert llm.calls[0][1].evidence == [DOCS["d1"].sentences[1]]
    assert ex.sentences[0].citations == ["d1#1"]


def test_global_explanation_without_evidence_does_not_call_the_llm():
    llm = CannedLLM({})
    ex = global_explanation(CLAIM, [ASSESSMENTS[2]], llm, get_sentence=GET)
    assert ex.sentences == [] and ex.warnings and llm.calls == []


def test_llm_failure_gives_extractive_explanation_citing_itself():
    llm = CannedLLM({"explanation": [LLMError("server down")]})
    ex = global_explanation(CLAIM, ASSESSMENTS, llm, get_sentence=GET, scorer=STANCE)
    assert ex.mode == "extractive" and "server down" in ex.warnings[0]
    assert {c for s in ex.sentences for c in s.citations} == {"d1#1", "d2#1"}
    for s in ex.sentences:
        assert len(s.citations) == 1 and s.text == GET(s.citations[0]) and s.status == "supported"


def test_extractive_explanation_ranks_by_agreement_and_caps_per_document():
    many = [assessment("d1", LocalLabel.TRUE, [0, 1, 2]), assessment("d3", LocalLabel.NO_EVIDENCE, [0])]
    ex = extractive_explanation(CLAIM, many, GET, STANCE, per_document=2)
    assert [s.citations[0] for s in ex.sentences][0] == "d1#1"  # the sentence that supports, first
    assert len(ex.sentences) == 2 and all(c.startswith("d1#") for s in ex.sentences for c in s.citations)
    assert extractive_explanation(CLAIM, [many[1]], GET).sentences == []


# --- attribution check ----------------------------------------------------------------------


def draft(*sentences: ExplanationSentence) -> Explanation:
    return Explanation(sentences=list(sentences), mode="llm")


def test_attribution_supported_flagged_and_dropped():
    good = ExplanationSentence(text="Vitamin supplementation lowers fracture risk.", citations=["d1#1"])
    off = ExplanationSentence(text="Coffee shortens sleep in students.", citations=["d1#1"])
    flagged = check_attribution(draft(good, off), GET, WordCoverage(), threshold=0.5, mode="flag")
    assert [s.status for s in flagged.sentences] == ["supported", "interpretation"]
    assert flagged.sentences[0].support == pytest.approx(1.0) and flagged.sentences[1].support == 0.0
    assert flagged.checked and flagged.attribution_pass_rate() == 0.5
    assert "1 of 2" in flagged.warnings[-1] and flagged.text == good.text + " " + off.text
    dropped = check_attribution(draft(good, off), GET, WordCoverage(), threshold=0.5, mode="drop")
    assert [s.status for s in dropped.sentences] == ["supported", "dropped"]
    assert dropped.text == good.text and len(dropped.visible) == 1


class Blind:
    """Fake stance that never sees support (the misreading the word-overlap rule is for)."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        return [NEUTRAL for _ in pairs]


def test_lexical_support_guards_negation_numbers_and_short_sentences():
    src = ["Compared with placebo, vitamin E had no effect on the incidence of prostate cancer (HR 0.97)."]
    assert lexical_support("Vitamin E had no effect on the incidence of prostate cancer.", src) == 1.0
    assert lexical_support("Vitamin E had an effect on the incidence of prostate cancer.", src) == 0.0
    assert lexical_support("Vitamin E had no effect on the incidence of prostate cancer in 2012.", src) == 0.0
    assert lexical_support("Vitamin E had no effect.", src) == 0.0  # too few terms to judge
    assert 0.5 < lexical_support("Vitamin E had no effect on the incidence of lung cancer.", src) < 0.9


def test_attribution_passes_restatements_only_when_asked():
    doc = DOCS["d1"]
    cited = doc.sentences[1]
    restated = ExplanationSentence(text="The abstract directly states that " + cited[0].lower() + cited[1:],
                                   citations=["d1#1"])
    other = ExplanationSentence(text="Coffee shortens sleep in students and lowers their grades.",
                                citations=["d1#1"])
    plain = check_attribution(draft(restated, other), GET, Blind(), threshold=0.5)
    assert [x.status for x in plain.sentences] == ["interpretation", "interpretation"]
    checked = check_attribution(draft(restated, other), GET, Blind(), threshold=0.5, min_overlap=0.9)
    assert [x.status for x in checked.sentences] == ["supported", "interpretation"]
    with pytest.raises(InputError):
        check_attribution(draft(restated), GET, Blind(), min_overlap=0.0)


def test_attribution_recites_a_quote_to_the_sentence_it_comes_from():
    doc = DOCS["d1"]
    quote = ExplanationSentence(text=doc.sentences[1], citations=["d1#2"])  # neighbour cited
    off = ExplanationSentence(text="Coffee shortens sleep in students and lowers their grades.", citations=["d1#2"])
    checked = check_attribution(draft(quote, off), GET, Blind(), threshold=0.5, min_overlap=0.9,
                                recite_from=["d1#0", "d1#1"])
    assert [x.citations for x in checked.sentences] == [["d1#1"], ["d1#2"]]
    assert [x.status for x in checked.sentences] == ["supported", "interpretation"]
    assert any("Re-cited" in w for w in checked.warnings)
    # only sentences the model was shown are candidates
    unchanged = check_attribution(draft(quote), GET, Blind(), threshold=0.5, min_overlap=0.9, recite_from=["d1#0"])
    assert unchanged.sentences[0].citations == ["d1#2"] and unchanged.sentences[0].status == "interpretation"


def test_revision_replaces_a_failing_sentence_only_when_the_revision_passes():
    doc = DOCS["d1"]
    cited = doc.sentences[1]
    good = ExplanationSentence(text=cited, citations=["d1#1"])
    off = ExplanationSentence(text="Coffee shortens sleep in students and lowers their grades.", citations=["d1#1"])
    checked = check_attribution(draft(good, off), GET, Blind(), threshold=0.5, min_overlap=0.9)
    assert checked.attribution_pass_rate() == 0.5
    llm = CannedLLM({"revise": [{"text": cited, "citations": [1]}]})
    out = revise_unsupported(CLAIM, checked, GET, llm, Blind(), threshold=0.5, min_overlap=0.9)
    # only the failing sentence goes to the LLM, with its cited sentence as the evidence
    assert [(n, i.sentence, i.evidence) for n, i in llm.calls] == [("revise", off.text, [cited])]
    assert [x.status for x in out.sentences] == ["supported", "supported"]
    assert out.sentences[1].revised_from == off.text and out.sentences[1].citations == ["d1#1"]
    assert out.attribution_pass_rate() == 1.0 and [x.revised_from is not None for x in out.sentences] == [False, True]
    assert any("Revised 1 of 1" in w for w in out.warnings)
    assert not any("not supported by their citations" in w for w in out.warnings)
    # a revision that still fails the check leaves the first wording, flagged
    bad = CannedLLM({"revise": [{"text": "Coffee is bad for students and their grades overall.", "citations": [1]}]})
    kept = revise_unsupported(CLAIM, checked, GET, bad, Blind(), threshold=0.5, min_overlap=0.9)
    assert kept.sentences[1] == checked.sentences[1] and kept.sentences[1].revised_from is None
    assert any("Revised 0 of 1" in w for w in kept.warnings)
    assert any("1 of 2 explanation sentences are not supported" in w for w in kept.warnings)


def test_revision_survives_llm_failure_and_needs_a_checked_explanation():
    off = ExplanationSentence(text="Coffee shortens sleep in students and lowers their grades.", citations=["d1#1"])
    checked = check_attribution(draft(off), GET, Blind(), threshold=0.5)
    failing = CannedLLM({"revise": [LLMError("timeout")]})
    out = revise_unsupported(CLAIM, checked, GET, failing, Blind())
    assert out.sentences == checked.sentences and any("timeout" in w for w in out.warnings)
    with pytest.raises(InputError, match="check_attribution"):
        revise_unsupported(CLAIM, draft(off), GET, failing, Blind())
    # the revision can only cite the sentences the failing one cited (schema enum 1..n)
    from claimscope.prompts import revise as revise_prompt

    with pytest.raises(ValidationError):
        revise_prompt.prompt_for(1).output_model.model_validate({"text": "x", "citations": [2]})


def test_attribution_recites_within_the_cited_document_only_when_asked():
    wrong = ExplanationSentence(text="Vitamin supplementation lowers fracture risk in elderly adults.", citations=["d1#0"])
    off = ExplanationSentence(text="Coffee shortens sleep in students and lowers their grades.", citations=["d1#2"])
    plain = check_attribution(draft(wrong, off), GET, WordCoverage(), threshold=0.9)
    assert [x.status for x in plain.sentences] == ["interpretation", "interpretation"]
    scorer = WordCoverage()
    fixed = check_attribution(draft(wrong, off), GET, scorer, threshold=0.9, recite_within_documents=True)
    assert [x.citations for x in fixed.sentences] == [["d1#1"], ["d1#2"]]
    assert [x.status for x in fixed.sentences] == ["supported", "interpretation"]
    assert fixed.sentences[0].support == pytest.approx(1.0)
    assert any("the sentence of the cited document that supports it" in w for w in fixed.warnings)
    # only the cited documents' sentences are tried (d2 also says it, but is not cited)
    assert all(ev.startswith(("We enrolled", "Vitamin", "Adherence")) for _, ev in scorer.pairs)


def test_citable_evidence_is_what_the_explanation_offers():
    used = [assessment("d1", LocalLabel.MOSTLY_TRUE, [1, 2]), assessment("d3", LocalLabel.NO_EVIDENCE, [0])]
    assert citable_evidence(used, GET) == ["d1#1", "d1#2"]


def test_attribution_threshold_decides():
    s = ExplanationSentence(text="Vitamin supplementation helps adherence.", citations=["d1#1"])
    assert check_attribution(draft(s), GET, WordCoverage(), threshold=0.5).sentences[0].status == "supported"
    assert check_attribution(draft(s), GET, WordCoverage(), threshold=0.9).sentences[0].status == "interpretation"


def test_attribution_combines_cited_sentences():
    s = ExplanationSentence(text="Elderly adults enrolled, adherence high.", citations=["d1#0", "d1#2"])
    scorer = WordCoverage()
    out = check_attribution(draft(s), GET, scorer, threshold=0.99)
    assert out.sentences[0].status == "supported"
    assert (s.text, GET("d1#0") + " " + GET("d1#2")) in scorer.pairs


def test_attribution_removes_missing_citations_and_fails_uncited():
    s = ExplanationSentence(text="Vitamin supplementation lowers fracture risk.", citations=["nowhere#3"])
    out = check_attribution(draft(s), GET, WordCoverage(), threshold=0.1)
    assert out.sentences[0].citations == [] and out.sentences[0].status == "interpretation"
    assert any("nowhere#3" in w for w in out.warnings)


def test_attribution_quote_is_supported_without_the_model():
    quote = ExplanationSentence(text=GET("d2#1"), citations=["d2#1"])
    scorer = WordCoverage()
    out = check_attribution(draft(quote), GET, scorer, threshold=1.0)
    assert out.sentences[0].status == "supported" and scorer.pairs == []


def test_attribution_rejects_bad_settings():
    with pytest.raises(InputError):
        check_attribution(draft(), GET, WordCoverage(), mode="hide")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        check_attribution(draft(), GET, WordCoverage(), threshold=1.5)


def test_explain_end_to_end_with_keyword_stance():
    from claimscope.agent.graph.explanation import explain_claim

    llm = CannedLLM({"explanation": [{"sentences": [
        {"text": "Vitamin supplementation did not lower fracture risk in elderly adults.", "citations": [1]},
        {"text": "Coffee shortens sleep.", "citations": [2]},
    ]}]})
    ex = explain_claim(CLAIM, ASSESSMENTS, GET, _explain_services(explanation_style="summary",
                                                                  unsupported_sentences="flag"), llm=llm)
    assert [s.status for s in ex.sentences] == ["supported", "interpretation"]
    assert ex.attribution_pass_rate() == 0.5


def test_local_label_stance_hints_reach_the_prompt_only_when_asked():
    doc = DOCS["d2"]
    llm = CannedLLM({"local_label": [{"evidence": [2], "explanation": "No lower risk.", "label": "False"}]})
    local_label(CLAIM, doc, None, evidence_of(doc), llm)
    local_label(CLAIM, doc, None, evidence_of(doc), llm, stance_hints=True)
    plain, hinted = (inp.abstract for _, inp in llm.calls)
    assert "stance model" not in plain
    assert "[S2] Vitamin supplementation did not lower fracture risk in elderly adults. (stance model: contradicts" in hinted
    assert "[S1] This cohort followed 5,000 elderly adults for ten years." in hinted.splitlines()[0]


def test_fallbacks_say_why():
    llm = CannedLLM({"local_label": [LLMError("timed out")], "takeaway": [LLMError("timed out")]})
    a = local_label(CLAIM, DOCS["d1"], None, evidence_of(DOCS["d1"]), llm)
    assert a.warning and "timed out" in a.warning
    tk = takeaway(CLAIM, DOCS["d1"], llm)
    assert tk is not None and tk.warning and "timed out" in tk.warning


@pytest.mark.parametrize(("text", "core"), [
    ("The abstract states that A20 knockdown slows growth, which directly contradicts the claim.",
     "A20 knockdown slows growth"),
    ("HPV testing was more sensitive; this supports the claim.", "HPV testing was more sensitive"),
    ("Supplements lowered fracture risk.", "Supplements lowered fracture risk."),
    ("MicroRNAs confer robustness, which aligns with the claim that x.", "MicroRNAs confer robustness"),
    ("which supports the claim", "which supports the claim"),
    # judgement-led and results / evidence preambles
    ("The abstract directly supports the claim by stating that mTORC2 phosphorylates xCT.", "mTORC2 phosphorylates xCT."),
    ("The results suggest that statins lower LDL.", "statins lower LDL."),
    ("These studies found that X rose.", "X rose."),
    # "did not find" carries the negation: X alone would say the opposite
    ("The study did not find an effect of X.", "The study did not find an effect of X."),
    ("The data are consistent.", "The data are consistent."),
])
def test_factual_part_strips_preamble_and_judgement(text, core):
    from claimscope.tools.explain import factual_part

    assert factual_part(text) == core


def test_attribution_tests_the_factual_part():
    s = ExplanationSentence(text="The study found that vitamin supplementation lowers fracture risk, which supports the claim.",
                            citations=["d1#1"])
    scorer = WordCoverage()
    out = check_attribution(draft(s), GET, scorer, threshold=0.99)
    assert scorer.pairs[0][0] == "vitamin supplementation lowers fracture risk"
    assert out.sentences[0].status == "supported" and out.sentences[0].text == s.text


# --------------------------------------------------------------------------- claim echoes

def _checked(*sentences: tuple[str, str]) -> Explanation:
    return Explanation(checked=True, sentences=[
        ExplanationSentence(text=t, citations=["d1#0"], status=st) for t, st in sentences])


ECHO_CLAIM = "Vitamin D supplementation prevents acute respiratory infections in adults."


def test_is_claim_echo_needs_the_same_words_both_ways_and_the_same_negations():
    from claimscope.tools.explain import is_claim_echo

    assert is_claim_echo("Vitamin D supplementation prevents acute respiratory infections in adults.", [ECHO_CLAIM])
    assert is_claim_echo("The abstract states that vitamin D supplementation prevents acute respiratory "
                         "infections in adults.", [ECHO_CLAIM])
    assert not is_claim_echo("Vitamin D supplementation does not prevent acute respiratory infections in adults.",
                             [ECHO_CLAIM])
    assert not is_claim_echo("Vitamin D supplementation reduced acute respiratory infections in adults with low "
                             "baseline levels in 25 trials.", [ECHO_CLAIM])
    # short claims too, where attribution would not judge by word overlap (FRoSC frosc-19)
    assert is_claim_echo("The Antarctic Peninsula is shrinking.", ["Antarctic Peninsula is shrinking."])
    assert not is_claim_echo("The Antarctic Peninsula is not shrinking.", ["Antarctic Peninsula is shrinking."])
    assert not is_claim_echo("Antarctic ice shelves are shrinking.", ["Antarctic Peninsula is shrinking."])
    assert not is_claim_echo("", ["Antarctic Peninsula is shrinking."])


def test_an_unsupported_restatement_of_the_claim_is_dropped_with_a_warning():
    from claimscope.tools.explain import drop_unsupported_echoes

    expl = _checked((ECHO_CLAIM, "interpretation"), ("Trials found fewer infections with daily doses.", "supported"))
    out = drop_unsupported_echoes(expl, [ECHO_CLAIM])
    assert [s.status for s in out.sentences] == ["dropped", "supported"]
    assert out.text == "Trials found fewer infections with daily doses."
    assert any("only restates the claim" in w for w in out.warnings)
    # still counted as a failure: the benchmark's pass rate does not improve by hiding it
    assert out.attribution_pass_rate() == 0.5


def test_a_supported_restatement_or_another_unsupported_sentence_stays():
    from claimscope.tools.explain import drop_unsupported_echoes

    expl = _checked((ECHO_CLAIM, "supported"), ("Trials were small and heterogeneous.", "interpretation"))
    assert drop_unsupported_echoes(expl, [ECHO_CLAIM]) == expl


def test_the_anti_claim_echo_is_dropped_too_and_its_text_is_kept():
    from claimscope.tools.explain import drop_unsupported_echoes

    anti = "Vitamin D supplementation does not prevent acute respiratory infections in adults."
    expl = _checked((anti, "interpretation"), ("Trials found fewer infections with daily doses.", "interpretation"))
    out = drop_unsupported_echoes(expl, [ECHO_CLAIM, anti])
    assert [s.status for s in out.sentences] == ["dropped", "interpretation"]
    assert out.sentences[0].text == anti and "does not prevent" in out.warnings[-1]


def test_drop_unsupported_echoes_wants_a_checked_explanation():
    from claimscope.tools.explain import drop_unsupported_echoes

    with pytest.raises(InputError, match="check_attribution"):
        drop_unsupported_echoes(Explanation(sentences=[ExplanationSentence(text=ECHO_CLAIM)]), [ECHO_CLAIM])


def _explain_services(**verdict):
    from types import SimpleNamespace

    from claimscope.agent.settings import VerdictSettings

    return SimpleNamespace(settings=SimpleNamespace(verdict=VerdictSettings(**verdict)), stance=STANCE)


def test_an_explanation_that_only_restates_the_claim_falls_back_to_quotes():
    from claimscope.agent.graph.explanation import explain_claim

    claim = "Vitamin supplementation prevents hip fractures in nursing home residents."
    echo = {"explanation": [{"sentences": [{"text": claim, "citations": [1]}]}]}
    ex = explain_claim(claim, ASSESSMENTS, GET, _explain_services(explanation_style="summary"), llm=CannedLLM(echo))
    assert ex.mode == "extractive" and ex.checked and ex.visible
    assert all(s.text != claim for s in ex.visible)
    assert any("only restated the claim" in w for w in ex.warnings)
    # the dropped wording is kept, and counts against the attribution rate
    assert [(s.text, s.status) for s in ex.sentences if s.status == "dropped"] == [(claim, "dropped")]
    assert ex.attribution_pass_rate() < 1.0
    # with the setting at "flag" the restatement stays, flagged as interpretation
    flagged = explain_claim(claim, ASSESSMENTS, GET, _explain_services(unsupported_claim_echoes="flag",
                                                                       explanation_style="summary"),
                            llm=CannedLLM(echo))
    assert [(s.text, s.status) for s in flagged.sentences] == [(claim, "interpretation")]


class Credulous:
    """Fake stance that reads every pair as support (a model fooled by shared words)."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        return [SUPPORT for _ in pairs]


REJECTION = Document(id="msc", title="Autologous mesenchymal stem cells vs induction therapy in kidney transplants",
                     sentences=[
    "Among patients undergoing renal transplant, the use of autologous MSCs compared with anti-IL-2 receptor "
    "antibody induction therapy resulted in lower incidence of acute rejection, decreased risk of opportunistic "
    "infection, and better estimated renal function at 1 year.",
    "Women accounted for 38% of the cases reported to the registry.",
])
REJECTION_GET = sentence_lookup([REJECTION])


def test_a_restatement_saying_the_opposite_or_inventing_numbers_fails_attribution():
    flipped = ExplanationSentence(text="Autologous mesenchymal stem cells had higher rates of rejection compared "
                                       "to induction therapy.", citations=["msc#0"])
    invented = ExplanationSentence(text="The disease has a burden of 70-100 individuals per 100,000 people per "
                                        "year, mostly women.", citations=["msc#1"])
    faithful = ExplanationSentence(text="Autologous MSCs led to less acute rejection than induction therapy "
                                        "at 1 year.", citations=["msc#0"])
    quote = ExplanationSentence(text=REJECTION.sentences[1], citations=["msc#1"])
    checked = check_attribution(draft(flipped, invented, faithful, quote), REJECTION_GET, Credulous(),
                                threshold=0.5, min_overlap=0.5, recite_from=["msc#0", "msc#1"])
    assert [s.status for s in checked.sentences] == ["interpretation", "interpretation", "supported", "supported"]
    assert any("reads up where its citation reads down" in w for w in checked.warnings)
    assert any("100000" in w and "not in its citation" in w for w in checked.warnings)
    # a restatement the check refuses is replaced by the cited sentence's own words
    llm = CannedLLM({"finding": [{"finding": flipped.text}]})
    la = assessment("msc", LocalLabel.MOSTLY_TRUE, [0])
    ex = findings_explanation("Mesenchymal stem cells lower rejection in kidney transplants", [la], llm,
                              get_sentence=REJECTION_GET, scorer=Credulous())
    assert [s.text for s in ex.sentences] == [REJECTION.sentences[0]] and ex.mode == "extractive"


def test_contradiction_reads_directions_and_numbers():
    src = ["Serum IL-6 fell by 20% in the COVID-19 patients given tocilizumab."]
    assert contradiction("Tocilizumab lowered IL-6 by 20% in COVID-19 patients.", src) is None
    assert contradiction("Tocilizumab raised IL-6 in patients.", src) is not None
    assert contradiction("Tocilizumab had no significant effect on IL-6.", src) is not None
    assert contradiction("Tocilizumab lowered IL-6 by 30%.", src) == "its number(s) 30 are not in its citation"
    # one cited sentence that agrees is enough; a sentence without a direction opposes nothing
    assert contradiction("IL-6 rose in untreated patients.", [*src, "IL-6 rose in the control arm."]) is None
    assert contradiction("Tocilizumab was studied in patients.", src) is None


def test_perspective_summaries_drop_a_structured_abstracts_heading():
    segs = [("d9#4", "RESULTS We found that heavier birth weights went with more breast cancer.")]
    copied = CannedLLM({"perspective": [{"citations": [1], "summary": "RESULTS We found that heavier birth weights "
                                         "went with more breast cancer."}]})
    p = perspective_summary(CLAIM, "birth weight", Stance.REFUTE, segs, copied)
    assert p.summary.startswith("We found") and "RESULTS" not in p.summary
    quoted = perspective_summary(CLAIM, "birth weight", Stance.REFUTE, segs, CannedLLM({"perspective": [LLMError("x")]}))
    assert quoted.mode == "extractive" and quoted.summary.startswith("We found")


def test_the_quoted_findings_warning_agrees_with_its_count():
    """'1 of 2 findings are quoted' read as a slip."""
    second = Document(id="msc2", title="MSC induction and rejection", sentences=[
        "Autologous MSCs reduced acute rejection at 6 months compared with basiliximab induction."])
    get = sentence_lookup([REJECTION, second])
    llm = CannedLLM({"finding": [{"finding": "Autologous MSCs led to less acute rejection than induction therapy "
                                              "at 1 year."},
                                 {"finding": "Autologous MSCs raised acute rejection at 6 months."}]})
    ex = findings_explanation("Mesenchymal stem cells lower rejection in kidney transplants",
                              [assessment("msc", LocalLabel.MOSTLY_TRUE, [0]),
                               assessment("msc2", LocalLabel.MOSTLY_TRUE, [0])],
                              llm, get_sentence=get, scorer=Credulous())
    quoted = [w for w in ex.warnings if "quoted:" in w]
    assert quoted == ["1 of 2 findings is quoted: its restatement was not supported by the sentence it cites."]


def test_a_finding_quoted_among_restated_ones_reads_as_the_authors_words():
    """'We propose that Ly49Q is pivotal ... [5531479#6]' was shown bare among restated findings, so
    'We' read as the tool's voice while a warning said the finding 'is quoted'."""
    from claimscope.agent.chat.wording import summary_text

    second = Document(id="msc2", title="MSC induction and rejection", sentences=[
        "We found that autologous MSCs reduced acute rejection at 6 months compared with basiliximab induction."])
    get = sentence_lookup([REJECTION, second])
    llm = CannedLLM({"finding": [{"finding": "Autologous MSCs led to less acute rejection than induction therapy "
                                              "at 1 year."},
                                 {"finding": "Autologous MSCs raised acute rejection at 6 months."}]})
    claim = "Mesenchymal stem cells lower rejection in kidney transplants"
    ex = findings_explanation(claim, [assessment("msc", LocalLabel.MOSTLY_TRUE, [0]),
                                      assessment("msc2", LocalLabel.MOSTLY_TRUE, [0])],
                              llm, get_sentence=get, scorer=Credulous())
    texts = [s.text for s in ex.sentences]
    assert texts[0].startswith("Autologous MSCs led to less acute rejection")
    assert texts[1] == f'The authors write: "{second.sentences[0]}"'
    # the quote passes the attribution check as the sentence it cites, word for word
    checked = check_attribution(ex, get, Credulous(), threshold=0.5, min_overlap=0.5)
    assert [s.status for s in checked.sentences] == ["supported", "supported"] and checked.sentences[1].support == 1.0
    # the chat's verdict answer shows it so; an explanation all of quotes says what the report says under it
    report = {"verdict": {"weighted": {"label": "leaning supported"}},
              "explanation": {"mode": "llm", "sentences": [
                  {"text": texts[1], "citations": [{"doc_id": "msc2", "sentence": 0}], "status": "supported"}]}}
    assert summary_text(report).splitlines()[1] == f"{texts[1]} [msc2#0]"
    from claimscope.agent.report.common import QUOTED_NOTE

    report["explanation"] = {**report["explanation"], "mode": "extractive"}
    assert summary_text(report).splitlines()[-1] == QUOTED_NOTE


def test_a_clipped_quote_ends_on_a_whole_word():
    from claimscope.prompts.explanation import clip

    text = "Risk rose even in those with milder COPD and in those without previous exacerbations."
    assert clip(text, 40) == "Risk rose even in those with milder…"
    assert clip(text, 35) == "Risk rose even in those with…"  # never "mild…" for "milder"
    assert clip(text, 200) == text
    # one long word: cut inside it rather than dropping everything
    assert clip("Pneumonoultramicroscopicsilicovolcanoconiosis is long.", 20) == "Pneumonoultramicros…"
