"""What a sentence of an explanation states, read from its words: its factual part (without
trailing judgements about the claim, source preambles or a side label), how much of it the cited
sentences contain, whether it says what they say (directions clause by clause, numbers, people,
certainty, added facts), whether it only restates the claim, and whether a source sentence states a
finding at all (not an aim, a method or background)."""

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
    "higher" where the source says "lower", an effect where it says no difference), or, clause by
    clause, it moves a term one way where its citation moves it the other ("higher rates of
    rejection" against "lower incidence of acute rejection"); it states a number none of them states;
    it names people its citation does not ("women", "children"); or it adds more than ADDED_TERMS_MAX content terms its
    citation does not have. None when none of these."""
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
    joined = " ".join(cited)
    if (term := _opposed_terms(text, joined)) is not None:
        return f"it moves {term!r} the other way from its citation"
    missing = sorted(_numbers(text) - _numbers(joined))
    if missing:
        return f"its number(s) {', '.join(missing)} are not in its citation"
    source = set(tokenize(joined))
    who = [w for w in dict.fromkeys(m.lower() for m in _WHO.findall(text)) if not set(tokenize(w)) & source]
    if who:
        return f"it speaks of {who[0]}, whom its citation does not name"
    added = added_terms(text, cited)
    if len(added) > ADDED_TERMS_MAX:
        return f"it adds {', '.join(added[:4])}, which its citation does not state"
    return None


# How a quoted argument of a debate claim is introduced ("Against the claim: <quote>").
SIDE_LABELS = {True: "For the claim: ", False: "Against the claim: "}


_SIDE = re.compile(r"^(?:for|against) the claim:\s*", re.IGNORECASE)

# How a finding quoted among restated ones is introduced: an author's sentence ("We propose ...")
# shown bare read as the explanation's own voice.
QUOTE_LEAD = "The authors write: "
_QUOTED = re.compile(r'^the authors write:\s*"(.*)"$', re.IGNORECASE | re.DOTALL)


def quoted_finding(sentence: str) -> str:
    """An evidence sentence shown as the authors' words: 'The authors write: "We propose ..."'."""
    return f'{QUOTE_LEAD}"{" ".join(sentence.split())}"'


def source_words(text: str) -> str:
    """An explanation sentence without what introduces a quote (a debate argument's side, the
    authors' "write:"): the words a quote shares with the sentence it cites."""
    bare = _SIDE.sub("", text.strip())
    quote = _QUOTED.match(bare)
    return quote.group(1) if quote else bare


def factual_part(text: str) -> str:
    """`text` without a leading "The abstract states that" (or a quoted argument's "For the claim:",
    a quoted finding's "The authors write:") and a trailing judgement about the claim: the part of
    an explanation sentence that its citations can support."""
    core = _JUDGEMENT.sub("", _PREAMBLE.sub("", source_words(text))).strip()
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


# Direction words read clause by clause: a restatement that says "higher rates of rejection" where its
# citation says "lower incidence of acute rejection" contradicts it even when the citation's other
# clauses go up ("... and better renal function") and the sentence as a whole reads no clear way.
# Two axes: how much (higher / lower) and how well (better / worse); only the same axis is compared.
_CUES = {
    ("amount", "up"): r"higher|greater|more|increas(?:e|ed|es|ing)|elevated|raised|enhanced|larger|longer|rose|rising",
    ("amount", "down"): r"lower|less|fewer|reduc(?:e|ed|es|ing|tion|tions)|decreas(?:e|ed|es|ing)|diminished|smaller|"
                        r"shorter|declin(?:e|ed|es|ing)|fell|attenuated",
    ("quality", "up"): r"better|improv(?:e|ed|es|ing|ement|ements)",
    ("quality", "down"): r"worse|worsen(?:ed|s|ing)?|deteriorat(?:ed|ion)",
}
_CUE = re.compile(r"\b(?:" + "|".join(f"(?P<{axis}_{sign}>{words})" for (axis, sign), words in _CUES.items())
                  + r")\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;:()\[\]]|\.(?!\d)|\b(?:and|but|while|whereas|than|compared|versus|vs|relative|in\s+the|"
                         r"among|after|during|at|by|with)\b", re.IGNORECASE)
_CLAUSE_START = re.compile(r".*(?:[,;:()\[\]]|\.(?!\d)|\b(?:and|but|while|whereas|that|which|than)\b)", re.IGNORECASE | re.DOTALL)
# What a direction word is about, less the words that only say it is a quantity ("rates of", "risk of").
_MEASURE_WORDS = frozenset(tokenize("rate rates risk risks incidence level levels number numbers proportion odds "
                                    "likelihood frequency occurrence amount percentage significantly statistically "
                                    "the of in a an group groups patients participants subjects overall total mean"))
_NEGATED = re.compile(r"\b(?:no|not|nor|neither|without)\s+(?:\w+\s+)?$", re.IGNORECASE)
_CLAUSE_WORDS = 6


def _directed_terms(text: str) -> list[tuple[str, str, frozenset[str]]]:
    """(axis, sign, terms) for every direction word of `text`: the content terms of the phrase it
    qualifies ("higher rates of rejection" -> rejection; "rejection was lower" -> rejection)."""
    out = []
    for m in _CUE.finditer(text):
        key = next(k for k, v in m.groupdict().items() if v)
        axis, sign = key.split("_")
        before = text[: m.start()]
        if _NEGATED.search(before):
            continue
        after = text[m.end():]
        end = _CLAUSE_END.search(after)
        words = (after[: end.start()] if end else after).split()[:_CLAUSE_WORDS]
        if re.search(r"\b(?:was|were|is|are|been|be)\s+(?:\w+ly\s+)?$", before, re.IGNORECASE):
            # "rejection was lower": the phrase before the verb
            start = _CLAUSE_START.match(before)
            subject = before[start.end():] if start else before
            subject = re.sub(r"\b(?:was|were|is|are|been|be)\s+(?:\w+ly\s+)?$", "", subject, flags=re.IGNORECASE)
            words = subject.split()[-_CLAUSE_WORDS:] + words
        terms = frozenset(tokenize(" ".join(words))) - _MEASURE_WORDS
        if terms:
            out.append((axis, sign, terms))
    return out


def _opposed_terms(text: str, cited: str) -> str | None:
    """The first term `text` moves one way and `cited` the other (same axis), and never the same way."""
    theirs = _directed_terms(cited)
    for axis, sign, terms in _directed_terms(text):
        against = [t for a, s, t in theirs if a == axis and s != sign and t & terms]
        along = [t for a, s, t in theirs if a == axis and s == sign and t & terms]
        if against and not along:
            return sorted(terms & against[0])[0]
    return None


# A proposal or hypothesis is not a finding: "We propose that X" restated as "The study found that X".
_PROPOSED = re.compile(r"\b(?:we|authors?)\s+(?:\w+ly\s+)?(?:propose|hypothesi[sz]e|speculate|postulate)|"
                       r"\b(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:proposed|hypothesi[sz]ed|speculated|postulated)\b|"
                       r"\bhypothesis\b", re.IGNORECASE)
_HEDGED = re.compile(r"\b(?:propos\w*|hypothes\w*|speculat\w*|postulat\w*|may|might|could|suggest\w*|possibl[ey]|"
                     r"potential(?:ly)?|likely|perhaps)\b", re.IGNORECASE)
# Who a sentence is about, when it names them: a restatement may not move a finding to other people.
_WHO = re.compile(r"\b(?:women|woman|men|man|girls?|boys?|children|child|infants?|newborns?|neonates?|adolescents?|"
                  r"adults?|elderly|older\s+adults|mothers?|pregnan\w+|mice|mouse|rats?|humans?|smokers?|"
                  r"veterans?|students?|workers?)\b", re.IGNORECASE)
# Words a restatement adds without adding a fact: the study's voice and the explanation's framing.
_FRAMING_WORDS = frozenset(tokenize("study studies found find finds showed shows show reported reports report "
                                    "authors author results result data evidence observed suggests suggest "
                                    "indicated indicates demonstrated demonstrates researchers trial paper abstract "
                                    "significantly significant statistically also overall patients participants"))
# A restatement adding this many content terms its citation does not have says more than its source.
ADDED_TERMS_MAX = 1


# Verbs a plain restatement uses for any effect ("led to", "gave", "helps").
_PLAIN_VERBS = frozenset(tokenize("led lead leads leading gave give gives given helped helps help had has have made "
                                  "makes make went goes took takes resulted results caused causes linked link "
                                  "associated association went seen saw"))


def added_terms(text: str, cited: Sequence[str]) -> list[str]:
    """Content terms of `text` (stemmed) that none of the `cited` sentences has: framing words, plain
    verbs of effect and direction words (a synonym of the citation's "reduced" adds no fact; the
    direction checks judge it) aside."""
    source = set(tokenize(" ".join(cited)))
    out: list[str] = []
    for word in re.findall(r"[A-Za-z][\w-]*", text):
        if sentence_direction(word) in (*_SIGNED, Direction.NONE):
            continue
        out += [w for w in tokenize(word) if w not in source and w not in _FRAMING_WORDS
                and w not in _PLAIN_VERBS and not w.isdigit() and w not in out]
    return out


_RECOMMENDS = re.compile(r"\b(?:should|must|recommend\w*|advis\w*)\b", re.IGNORECASE)
_REPORTED_AS_FOUND = re.compile(r"\b(?:found|finds|showed|shows|demonstrated|demonstrates|established|proved|"
                                r"confirmed)\b", re.IGNORECASE)


def overstated(text: str, cited: Sequence[str]) -> str | None:
    """Why `text` (the whole sentence, its preamble included) claims more certainty than its `cited`
    sentences: it states as a finding what they only propose or hypothesise ("We propose that X"
    -> "The study found that X"), or reports as found what they recommend ("... should include a
    psychologist"). None when it does not."""
    joined = " ".join(cited)
    if _PROPOSED.search(joined) and not _HEDGED.search(text):
        return "it states as found what its citation only proposes"
    if _RECOMMENDS.search(joined) and _REPORTED_AS_FOUND.search(text) and not _REPORTED_AS_FOUND.search(joined):
        return "it reports as found what its citation recommends"
    return None
