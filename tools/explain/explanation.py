"""The global explanation: the local explanations (No Evidence excluded) summarised in sentences that
each cite the source sentences they rest on (LLM), the extractive fallback built from the strongest
attributed sentences, and the clean-up of repeated or copied sentences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Literal

from claimscope.prompts import explanation as explanation_prompt
from claimscope.prompts import finding as finding_prompt
from claimscope.prompts.explanation import LocalExplanation, clip
from claimscope.tools.errors import InputError
from claimscope.tools.explain.attribution import Explanation, ExplanationSentence, check_attribution
from claimscope.tools.explain.common import (
    DEFAULT_ATTRIBUTION_THRESHOLD,
    EXTRACTIVE_PER_DOCUMENT,
    EXTRACTIVE_SENTENCES,
    SentenceLookup,
    _dedupe,
    _map_indices,
    _norm,
    _sign,
)
from claimscope.tools.explain.labels import ARGUMENT_FRAMING, STANCE_FRAMING, LocalAssessment
from claimscope.tools.explain.wording import SIDE_LABELS, quoted_finding
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    SentenceKey,
    StanceScorer,
)
from claimscope.tools.read.claim_worthiness import is_finding
from claimscope.tools.weigh.verdict import LocalLabel


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
    quotes: list[int] = []  # the positions of the findings quoted instead of restated
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
        quotes.append(len(sentences))
        sentences.append(quote)
    quoted = len(quotes)
    if quoted and quoted < len(sentences):
        # Among restated findings a bare quote reads as the explanation's own voice ("We propose
        # ..."): it is shown as the authors' words. (When every finding is quoted the explanation is
        # extractive, and the report says so of all of them.)
        for i in quotes:
            sentences[i] = sentences[i].model_copy(update={"text": quoted_finding(sentences[i].text)})
        # "1 of 2 findings are quoted" read as a slip: the verb agrees with the count quoted
        warnings.append(f"{quoted} of {len(sentences)} findings {'is' if quoted == 1 else 'are'} quoted: "
                        f"{'its' if quoted == 1 else 'their'} restatement was not supported by the sentence it cites.")
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
    local labels, No Evidence excluded) quoted verbatim, each citing itself; a study's aims, methods
    and background sentences only when no cited sentence states a finding.

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
    # Aims, methods and background are no findings (claim_worthiness.is_finding): offered only when no
    # cited sentence states one.
    cands = [c for c in cands if is_finding(c[1], strict=True)] or cands
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
