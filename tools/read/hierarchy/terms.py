"""The words of a text the no-LLM steps work with (content words and two-word phrases, stopwords
left out), and the small text helpers the other modules share.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

_STOPWORDS = frozenset(
    """a about above after again against all also although among an and any are as at be because
    been before being below between both but by can could did do does doing down during each either
    et al few for from further had has have having he her here hers him his how however i if in into
    is it its itself just may might more most much must my no nor not now of off on once only or
    other our out over own per same shall she should so some such than that the their them then there
    these they this those through to too under until up upon us very was we were what when where
    whether which while who whom why will with within without would yet you your respectively
    versus vs via using used use based show shows showed shown study studies result results
    found find finding findings among compared comparison data analysis associated association
    significant significantly higher lower increased decreased effect effects one two three
    patients group groups total including however therefore thus well whereas""".split()
)
_WORD = re.compile(r"[a-z][a-z0-9\-]{2,}")


def _ordered_terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def _terms(text: str) -> set[str]:
    return set(_ordered_terms(text))


def _term_set(text: str, exclude: Collection[str]) -> set[str]:
    words = _WORD.findall(text.lower())
    out = {w for w in words if w not in _STOPWORDS and w not in exclude}
    out.update(
        f"{a} {b}"
        for a, b in zip(words, words[1:], strict=False)
        if a not in _STOPWORDS and b not in _STOPWORDS and not (a in exclude and b in exclude)
    )
    return out


def _jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / max(1, len(a | b))


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        text = " ".join(str(item).split())
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
