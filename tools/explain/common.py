"""What the explanation modules share: citation lookups over documents, index mapping of the
model's [S1]..[Sn] answers back to sentence keys, the signed-stance margin and the defaults."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from claimscope.tools.models import (
    Document,
    SentenceKey,
)

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


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")
