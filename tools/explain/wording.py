"""What a sentence of an explanation states, read from its words: its factual part (without
trailing judgements about the claim, source preambles or a side label), how much of it the cited
sentences contain, and whether it only restates the claim."""

from __future__ import annotations

import re
from collections.abc import Sequence

from claimscope.tools.find.sparse import tokenize
from claimscope.tools.read.direction import Direction, sentence_direction

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


# Stemmed negation cues (tools.find.sparse.tokenize keeps no / not / nor as terms).
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


_SIGNED = (Direction.UP, Direction.DOWN)
# A number standing on its own ("70-100", "100,000", "2.5"), not part of a name ("COVID-19", "IL-6", "H1N1").
_NUMBER = re.compile(r"(?<![A-Za-z])(?<![A-Za-z]-)\d+(?:[.,]\d+)*")


def _opposed(a: Direction, b: Direction) -> bool:
    """Up against down, or an effect against no effect."""
    if a in _SIGNED and b in _SIGNED:
        return a is not b
    return {a, b} in ({Direction.NONE, Direction.UP}, {Direction.NONE, Direction.DOWN})


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def contradiction(text: str, cited: Sequence[str]) -> str | None:
    """Why `text` cannot restate the `cited` sentences, however close its words or a model's score:
    its direction words go against those of every cited sentence that has any (tools.read.direction:
    "higher" where the source says "lower", an effect where it says no difference), or it states a
    number none of them states. None when neither."""
    # A direction word both sides use tells nothing apart, and is often a name ("induction therapy"
    # reads as "induce"): it is masked on both sides before the directions are read.
    shared = {w.lower() for w in re.findall(r"[A-Za-z][\w-]*", text)} & {
        w.lower() for c in cited for w in re.findall(r"[A-Za-z][\w-]*", c)}
    masked = {w for w in shared if sentence_direction(w) in _SIGNED}

    def read(t: str) -> Direction:
        return sentence_direction(re.sub(r"[A-Za-z][\w-]*", lambda m: "x" if m.group(0).lower() in masked
                                         else m.group(0), t))

    own = read(text)
    theirs = [d for d in (read(c) for c in cited) if d in (*_SIGNED, Direction.NONE)]
    if own in (*_SIGNED, Direction.NONE) and theirs and all(_opposed(own, d) for d in theirs):
        return f"it reads {own.value} where its citation reads {theirs[0].value}"
    missing = sorted(_numbers(text) - _numbers(" ".join(cited)))
    if missing:
        return f"its number(s) {', '.join(missing)} are not in its citation"
    return None


# How a quoted argument of a debate claim is introduced ("Against the claim: <quote>").
SIDE_LABELS = {True: "For the claim: ", False: "Against the claim: "}


_SIDE = re.compile(r"^(?:for|against) the claim:\s*", re.IGNORECASE)


def factual_part(text: str) -> str:
    """`text` without a leading "The abstract states that" (or a quoted argument's "For the claim:")
    and a trailing judgement about the claim: the part of an explanation sentence that its
    citations can support."""
    core = _JUDGEMENT.sub("", _PREAMBLE.sub("", _SIDE.sub("", text.strip()))).strip()
    return core or text.strip()


def is_claim_echo(text: str, claims: Sequence[str], *, min_overlap: float = CLAIM_ECHO_OVERLAP) -> bool:
    """Whether `text` (its factual_part) only restates one of `claims`: at least `min_overlap` of
    its content terms are the claim's and of the claim's are its, with the same negations and
    numbers (lexical_support's measure both ways, at any length)."""
    core = factual_part(text)
    # No minimum length here, unlike attribution: a short claim ("Antarctic Peninsula is
    # shrinking.") restated word for word is still only the claim.
    return any(c and c.strip() and _term_overlap(core, [c], 1) >= min_overlap
               and _term_overlap(c, [core], 1) >= min_overlap for c in claims)
