"""The no-LLM fallback and the prompts' excerpts: salient terms of segments, keyword clusters of
them as aspect drafts, and numbered, trimmed excerpts for a prompt.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence

from claimscope.tools.read.hierarchy.terms import _clip, _jaccard, _term_set
from claimscope.tools.read.hierarchy.tree import DESCRIPTION_CHARS, NAME_CHARS, AspectDraft

# Prompt budget for the embedded model (~70 prompt tokens/s): a handful of trimmed excerpts.
MAX_EXCERPTS = 8
EXCERPT_CHARS = 400


def salient_terms(texts: Sequence[str], *, exclude: Collection[str] = (), limit: int = 50) -> list[tuple[str, float]]:
    """Content words and two-word phrases of `texts`, scored df * log(1 + N / df): frequent across
    the texts but not in all of them. With 4+ texts a term must occur in at least two."""
    docs = [_term_set(t, exclude) for t in texts]
    df: Counter[str] = Counter()
    for terms in docs:
        df.update(terms)
    n = len(docs)
    min_df = 2 if n >= 4 else 1
    scored = [(t, c * math.log(1 + n / c)) for t, c in df.items() if c >= min_df]
    scored.sort(key=lambda tc: (-tc[1], tc[0]))
    return scored[:limit]


def keyword_clusters(
    segments: Sequence[str], *, k: int, n_keywords: int = 5, exclude: Collection[str] = ()
) -> list[AspectDraft]:
    """Up to k aspects from the segments alone: seed terms chosen greedily so that no two seeds mostly
    share segments (Jaccard < 0.5), each with the terms that co-occur with it as keywords."""
    docs = [_term_set(t, exclude) for t in segments]
    if not docs:
        return []
    candidates = salient_terms(segments, exclude=exclude, limit=200)
    seeds: list[tuple[str, set[int]]] = []
    for term, _ in candidates:
        members = {i for i, d in enumerate(docs) if term in d}
        if any(_jaccard(members, m) >= 0.5 or term in s or s in term for s, m in seeds):
            continue
        seeds.append((term, members))
        if len(seeds) == k:
            break
    seed_terms = {s for s, _ in seeds}
    drafts = []
    for term, members in seeds:
        co: Counter[str] = Counter()
        for i in members:
            co.update(t for t in docs[i] if t not in seed_terms and term not in t)
        keywords = [term, *[t for t, _ in co.most_common(n_keywords - 1)]]
        drafts.append(
            AspectDraft(
                name=_clip(term, NAME_CHARS),
                description=_clip(f"What the evidence says about {term} ({len(members)} of {len(docs)} excerpts mention it).", DESCRIPTION_CHARS),
                keywords=keywords[:n_keywords],
            )
        )
    return drafts


def format_excerpts(segments: Sequence[str], *, limit: int = MAX_EXCERPTS, chars: int = EXCERPT_CHARS) -> str:
    """Numbered, trimmed excerpts for a prompt."""
    if not segments:
        return "(no excerpts)"
    return "\n".join(f"{i}. {_clip(' '.join(s.split()), chars)}" for i, s in enumerate(segments[:limit], start=1))
