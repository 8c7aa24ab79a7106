"""The explanation's sentences and the attribution check that traces each to the sentences it cites:
supported, interpretation or unsupported; revision of failing sentences and removal of failing
restatements of the claim."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import explanation as explanation_prompt
from claimscope.prompts import revise as revise_prompt
from claimscope.prompts.explanation import clip
from claimscope.tools.errors import InputError
from claimscope.tools.explain.common import (
    DEFAULT_ATTRIBUTION_THRESHOLD,
    SentenceLookup,
    _dedupe,
    _map_indices,
    _norm,
)
from claimscope.tools.explain.perspectives import Perspective, _extractive_perspective
from claimscope.tools.explain.wording import (
    CLAIM_ECHO_OVERLAP,
    contradiction,
    factual_part,
    is_claim_echo,
    lexical_support,
    overstated,
    source_words,
)
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    SentenceKey,
    StanceScorer,
)
from claimscope.tools.text.segmenter import split_sentences


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
    (mode "drop"). Whatever the model's score or the shared words, a sentence whose direction words
    go against its citations' (as a whole or clause by clause), that states a number or names people
    they do not, adds facts, or states as found what they only propose or recommend
    (wording.contradiction, wording.overstated) fails, with a warning; a quote never does. Returns a new Explanation with checked=True.

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
        if not cites or any(_norm(t) == _norm(source_words(s.text)) for _, t in cites):
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
        if cites and any(_norm(t) == _norm(source_words(s.text)) for _, t in cites):
            support[n] = 1.0
        core = factual_part(s.text)
        quoted = support[n] == 1.0 and any(_norm(t) == _norm(source_words(s.text)) for _, t in cites)
        restated = (bool(cites) and min_overlap is not None and support[n] < threshold
                    and lexical_support(core, [t for _, t in cites]) >= min_overlap)
        ok = bool(cites) and (support[n] >= threshold or restated)
        # Neither a model's score nor shared words let a sentence say the opposite of its source
        # or put numbers in its mouth.
        if ok and not quoted and (why := _misattributed(s.text, [t for _, t in cites])):
            warnings.append(f"{clip(s.text, 60)!r} is not attributed to {[k for k, _ in cites]}: {why}.")
            ok = False
        if not ok and min_overlap is not None and recite_from:
            source = _best_restated(core, recite_from, get_sentence, min_overlap)
            if source is not None and _misattributed(s.text, [source[1]]) is None:
                warnings.append(f"Re-cited {clip(s.text, 60)!r} from {[k for k, _ in cites]} to {source[0]!r}, "
                                "the evidence sentence it restates.")
                cites = [(source[0], source[1])]
                support[n] = max(support[n], source[2])
                ok = True
        if not ok and recite_within_documents and cites:
            found = _best_supporting(core, [k for k, _ in cites], get_sentence, scorer, threshold)
            if found is not None and _misattributed(s.text, [found[1]]) is None:
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


def _misattributed(text: str, cited: Sequence[str]) -> str | None:
    """Why `text` does not say what `cited` says, whatever a model's score or the shared words: its
    factual part contradicts them (wording.contradiction) or the whole sentence claims more certainty
    than they do (wording.overstated: "The study found that" before a proposal)."""
    return contradiction(factual_part(text), cited) or overstated(text, cited)


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
