"""Sentence splitting for scientific text, without a heavy NLP dependency.

A boundary is a `.`, `!` or `?` (optionally followed by closing quotes or brackets), then
whitespace, then something that can start a sentence (an upper-case letter, a digit, an opening
bracket or quote). Candidates are rejected when the word before the period is a known
abbreviation ("et al.", "e.g.", "Fig.", "vs.", "approx." ...), a single initial ("J. Smith"), or a
dotted acronym ("U.S."). Decimals ("0.05") never match because no whitespace follows the period.
Blank lines (and Markdown headings) are hard boundaries, single newlines are plain whitespace,
so text from .txt / .md / PDF files is split into paragraphs first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Lower-cased, without the final period. Abbreviations that scientific prose uses mid-sentence;
# words that also commonly end a sentence ("etc", "al" alone is safe because of "et al.") are
# listed only when a false split costs more than a missed one.
ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "al", "e.g", "i.e", "cf", "vs", "viz", "approx", "ca", "circa", "resp", "incl", "excl",
        "fig", "figs", "tab", "tabl", "eq", "eqs", "ref", "refs", "sec", "secs", "ch", "chap",
        "vol", "vols", "no", "nos", "p", "pp", "ed", "eds", "suppl", "supp", "ext", "app",
        "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "dept", "univ", "inst", "co", "corp",
        "inc", "ltd", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
        "nov", "dec", "sp", "spp", "subsp", "ssp", "esp", "conc", "n.s", "s.d", "s.e",
        "s.e.m", "et", "u.s", "u.k", "e.u", "a.m", "p.m", "ph.d", "m.d", "b.sc", "m.sc",
    }
)

_CANDIDATE = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"(\S+)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BLANK_LINE = re.compile(r"\n\s*\n")


def _is_abbreviation(before: str) -> bool:
    """True if the text ending just before a period ends in an abbreviation or an initial."""
    m = _WORD_BEFORE.search(before)
    if m is None:
        return False
    word = m.group(1).lstrip("\"'“‘([")
    low = word.lower()
    if low in ABBREVIATIONS:
        return True
    # A single letter is an initial ("J. Smith", "E. coli") - scientific text rarely ends
    # a sentence on one letter.
    if len(word) == 1 and word.isalpha():
        return True
    # Dotted acronyms and abbreviations such as "U.S." or "i.v." (the final period is the candidate).
    return bool(re.fullmatch(r"(?:[A-Za-z]{1,3}\.)+[A-Za-z]{1,3}", word))


def split_paragraph(text: str) -> list[str]:
    """Split one paragraph (no hard boundaries inside) into sentences."""
    text = " ".join(text.split())
    if not text:
        return []
    out: list[str] = []
    start = 0
    for m in _CANDIDATE.finditer(text):
        end_punct = m.start()
        if text[end_punct] == "." and _is_abbreviation(text[start:end_punct]):
            continue
        sentence = text[start : m.end()].strip()
        if sentence:
            out.append(sentence)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def paragraphs(text: str) -> list[str]:
    """Paragraphs of a plain-text or Markdown document: blank lines and headings separate them."""
    blocks: list[str] = []
    for block in _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        current: list[str] = []
        for line in block.split("\n"):
            if _HEADING.match(line):
                if current:
                    blocks.append(" ".join(current))
                    current = []
                heading = _HEADING.sub("", line).strip()
                if heading:
                    blocks.append(heading)
            else:
                current.append(line)
        if current:
            blocks.append(" ".join(current))
    return [b for b in (" ".join(b.split()) for b in blocks) if b]


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, in order. Blank lines and Markdown headings always end a sentence."""
    out: list[str] = []
    for para in paragraphs(text):
        out.extend(split_paragraph(para))
    return out


# The headings of a structured abstract that some corpora (SciFact among them) keep at the start
# of a section's first sentence: "RESULTS We found ...", "DESIGN, SETTING, AND PATIENTS A large ...".
_SECTION_WORD = (r"(?:BACKGROUND|INTRODUCTION|CONTEXT|IMPORTANCE|OBJECTIVES?|AIMS?|PURPOSE|HYPOTHESIS|METHODS?|"
                 r"METHODOLOGY|MATERIALS?|DESIGN|SETTINGS?|PARTICIPANTS|PATIENTS|SUBJECTS|POPULATION|INTERVENTIONS?|"
                 r"EXPOSURES?|MEASUREMENTS?|MAIN|PRIMARY|OUTCOMES?|MEASURES?|RESULTS?|FINDINGS|INTERPRETATION|"
                 r"CONCLUSIONS?|DISCUSSION|LIMITATIONS|SUMMARY|ABSTRACT|DATA|SOURCES?|STUDY|SELECTION|EXTRACTION|"
                 r"SYNTHESIS|ANALYSIS|ANALYSES|EVIDENCE|REVIEW|RELEVANCE|SIGNIFICANCE|IMPLICATIONS|RATIONALE|"
                 r"PRINCIPAL|OBSERVATIONS|TRIAL|REGISTRATION)")
_SECTION_LABEL = re.compile(r"^" + _SECTION_WORD + r"(?:(?:\s*[,/&]\s*|\s+)(?:AND\s+)?" + _SECTION_WORD + r"){0,5}"
                            r"(?:\s*[:.]\s+|\s+(?=[A-Z0-9(\"'\u201c]))")


def without_section_label(sentence: str) -> str:
    """`sentence` without a structured abstract's heading before it ("RESULTS We found ..." ->
    "We found ..."); unchanged when it has none or would be left empty."""
    rest = _SECTION_LABEL.sub("", sentence, count=1)
    return rest if rest.strip() else sentence


def section_headings(sentences: Sequence[str]) -> list[str]:
    """The structured-abstract heading each sentence falls under, upper case ("BACKGROUND",
    "METHODS", "DESIGN, SETTING, AND PATIENTS"): a heading is printed before a section's first
    sentence only, so it holds until the next one; "" before any heading."""
    out: list[str] = []
    current = ""
    for sentence in sentences:
        label = sentence[: len(sentence) - len(without_section_label(sentence))]
        if label.strip():
            current = " ".join(label.split()).rstrip(":. ").upper()
        out.append(current)
    return out


_LIST_ITEM = re.compile(r"[ \t]{0,3}(?:[-*+•]|\d{1,3}[.)])[ \t]+")


def _block_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the paragraphs of `text` as `paragraphs` finds them, plus one block per
    Markdown list item (a bullet in a press release is a statement of its own)."""
    blocks: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        line_start, offset = offset, offset + len(line)
        heading = _HEADING.match(body)
        item = _LIST_ITEM.match(body)
        if not body.strip() or heading or item:
            if current is not None:
                blocks.append(current)
                current = None
            marker = heading if heading is not None else item
            if marker is not None:
                skip = marker.end()
                content = body[skip:]
                lead = len(content) - len(content.lstrip())
                if content.strip():
                    start = line_start + skip + lead
                    current = (start, line_start + len(body.rstrip()))
                if heading:
                    if current is not None:
                        blocks.append(current)
                    current = None
            continue
        lead = len(body) - len(body.lstrip())
        end = line_start + len(body.rstrip())
        current = (line_start + lead, end) if current is None else (current[0], end)
    if current is not None:
        blocks.append(current)
    return blocks


def _paragraph_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans inside one block, by the boundaries `split_paragraph` uses."""
    block = text[start:end]
    out: list[tuple[int, int]] = []
    begin = 0
    for m in _CANDIDATE.finditer(block):
        if block[m.start()] == "." and _is_abbreviation(block[begin:m.start()]):
            continue
        piece = block[begin:m.end()]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            out.append((start + begin + lead, start + begin + len(piece.rstrip())))
        begin = m.end()
    tail = block[begin:]
    if tail.strip():
        lead = len(tail) - len(tail.lstrip())
        out.append((start + begin + lead, start + begin + len(tail.rstrip())))
    return out


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the sentences of `text`, into `text` exactly as given.

    The boundaries are those of `split_sentences` (`text[start:end]` with its whitespace collapsed
    is the sentence), except that a Markdown list item also starts a sentence; a heading's `#`
    marks and a list item's bullet are outside the span."""
    spans: list[tuple[int, int]] = []
    for start, end in _block_spans(text):
        spans.extend(_paragraph_spans(text, start, end))
    return spans
