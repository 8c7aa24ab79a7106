"""Perspective summaries: what the segments taking one stance on one aspect say, grounded in those
segments (LLM; the top segment verbatim when the model fails)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import perspective as perspective_prompt
from claimscope.prompts.explanation import clip
from claimscope.tools.errors import InputError
from claimscope.tools.explain.common import _map_indices
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import (
    Stance,
)
from claimscope.tools.text.segmenter import without_section_label


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
    quotes: list[str] = Field(default_factory=list, description="A quoted perspective's quote of each citation, "
                              "in order: the summary is these joined, so one can be left out with its citation.")


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
    # A model that copies a structured abstract's first words copies its heading too ("RESULTS We found ...").
    summary = clip(without_section_label(out.summary.strip()), perspective_prompt.SUMMARY_CHARS)
    if not cited or not summary:
        return _extractive_perspective(st, segs, "perspective summary had no valid citation; quoted instead")
    return Perspective(stance=st, summary=summary, citations=cited, n_segments=len(segs), mode="llm")


def _extractive_perspective(stance: Stance, segs: Sequence[tuple[str, str]], warning: str) -> Perspective:
    key, text = segs[0]
    return Perspective(
        stance=stance,
        summary=clip(without_section_label(text.strip()), perspective_prompt.SUMMARY_CHARS),
        citations=[key],
        n_segments=len(segs),
        mode="extractive",
        warning=warning,
    )
