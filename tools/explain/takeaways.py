"""Takeaways: what one abstract says about the claim, without a stance (LLM; the matched sentences,
else the abstract's last sentence, when the model fails)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import takeaway as takeaway_prompt
from claimscope.prompts.explanation import clip
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    Document,
)
from claimscope.tools.text.segmenter import without_section_label


class Takeaway(BaseModel):
    """What one abstract says about the claim (no stance)."""

    doc_id: str
    text: str
    sentence_indices: list[int] = Field(default_factory=list, description="0-based sentences it comes from.")
    mode: Literal["llm", "extractive"] = "llm"
    warning: str | None = Field(None, description="Why the extractive fallback was used.")


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
    text = takeaway_text(out.takeaway, takeaway_prompt.TAKEAWAY_CHARS)
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


def takeaway_text(text: str, limit: int) -> str:
    """A model's takeaway as shown: a small model often copies the abstract's first words, and a
    structured abstract's heading ("RESULTS We found ...") is no part of what the study found."""
    return clip(without_section_label(text.strip()), limit) if text.strip() else ""


def _extractive_takeaway(doc: Document, relevant: Sequence[int], warning: str | None) -> Takeaway:
    indices = list(relevant[:2]) or [len(doc.sentences) - 1]
    text = clip(" ".join(without_section_label(doc.sentences[i]) for i in indices), takeaway_prompt.TAKEAWAY_CHARS)
    return Takeaway(doc_id=doc.id, text=text, sentence_indices=indices, mode="extractive", warning=warning)
