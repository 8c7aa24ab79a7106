"""Checks on text a language model wrote, before a reader sees it.

A small model degenerates in recognisable ways: it loops ("The recommended doses are insufficient."
four times), drifts into another script mid-word ("respiratory感染"), echoes its instructions
("List 3 distinct sub-aspects ..."), or runs on. `text_problems` names each of these in one text;
`output_problems` applies it to every string field of a prompt's structured answer. The LLM gateway
regenerates an answer that fails once and otherwise raises, so that each caller's extractive
fallback (built from the cited sentences) is what the reader gets.

Aspect names and descriptions have two more ways to fail, checked by `name_problems` and
`copied_from`: a name that is a slug ("vitamin-d-level") or a sentence, and a description that is a
source sentence copied out (token overlap >= 0.8).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator

from pydantic import BaseModel

from claimscope.tools.text.segmenter import split_sentences

# Scripts that are never mixed into a text unless the claim itself is written in them. Latin
# (gene names, units) and Greek (alpha, beta, kappa) letters are at home in any scientific text.
_FOREIGN_SCRIPTS = frozenset(
    """CJK HIRAGANA KATAKANA HANGUL CYRILLIC ARABIC HEBREW THAI DEVANAGARI BENGALI TAMIL TELUGU
    GUJARATI GURMUKHI KANNADA MALAYALAM GEORGIAN ARMENIAN ETHIOPIC LAO KHMER MYANMAR SINHALA TIBETAN
    MONGOLIAN SYRIAC THAANA ORIYA""".split()
)
# A field longer than this is a run-on, whatever its schema allows.
MAX_FIELD_CHARS = 1500
# Phrase repetition: the same run of this many words twice is a loop, not style.
REPEATED_PHRASE_WORDS = 6
# Instruction echo: this many consecutive words of the prompt's own instructions.
ECHO_WORDS = 8
# Copied text: this share of a text's words inside one source sentence.
COPIED_OVERLAP = 0.8
# Names longer than this are sentences, not aspect names.
NAME_MAX_WORDS = 8

_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits)."""
    return [w.lower() for w in _WORDS.findall(text)]


def scripts(text: str) -> set[str]:
    """The writing systems of the letters in `text` (first word of each letter's Unicode name)."""
    out = set()
    for ch in text:
        if ch.isalpha():
            try:
                out.add(unicodedata.name(ch).split(" ", 1)[0])
            except ValueError:  # unnamed code point
                out.add("UNKNOWN")
    return out


def foreign_scripts(text: str, reference: str) -> set[str]:
    """Scripts in `text` that `reference` (the claim) does not use and that do not belong in a text
    in the reference's script."""
    return (scripts(text) & _FOREIGN_SCRIPTS) - scripts(reference)


def repeated_sentence(text: str) -> str | None:
    """The first sentence (of three words or more) that occurs twice, if any."""
    seen: set[tuple[str, ...]] = set()
    for sentence in split_sentences(text):
        key = tuple(words(sentence))
        if len(key) < 3:
            continue
        if key in seen:
            return sentence
        seen.add(key)
    return None


def repeated_phrase(text: str, n: int = REPEATED_PHRASE_WORDS) -> str | None:
    """A run of `n` words that occurs twice, or one word four times in a row, if any."""
    toks = words(text)
    for i in range(len(toks) - 3):
        if len(set(toks[i:i + 4])) == 1:
            return " ".join(toks[i:i + 4])
    grams = Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    for gram, count in grams.items():
        if count > 1:
            return " ".join(gram)
    return None


def instruction_text(*parts: str) -> str:
    """A prompt's own wording (system text and template) without its placeholders."""
    return " ".join(_PLACEHOLDER.sub(" ", p) for p in parts)


def echoes(text: str, instructions: str, n: int = ECHO_WORDS) -> str | None:
    """A run of `n` words of `instructions` that `text` repeats, if any."""
    toks = words(text)
    if len(toks) < n:
        return None
    source = words(instructions)
    grams = {tuple(source[i:i + n]) for i in range(len(source) - n + 1)}
    for i in range(len(toks) - n + 1):
        if tuple(toks[i:i + n]) in grams:
            return " ".join(toks[i:i + n])
    return None


def text_problems(
    text: str,
    *,
    reference: str = "",
    instructions: str = "",
    max_chars: int = MAX_FIELD_CHARS,
) -> list[str]:
    """What is wrong with one model-written text: repetition, a script the `reference` (the claim)
    does not use, an echo of the prompt's `instructions`, or more than `max_chars` characters.
    Empty when nothing is."""
    problems = []
    if len(text) > max_chars:
        problems.append(f"longer than {max_chars} characters")
    if (s := repeated_sentence(text)) is not None:
        problems.append(f"repeats the sentence {_short(s)!r}")
    elif (p := repeated_phrase(text)) is not None:
        problems.append(f"repeats the phrase {p!r}")
    if foreign := foreign_scripts(text, reference):
        problems.append(f"contains {'/'.join(sorted(foreign)).lower()} characters the claim does not use")
    if instructions and (e := echoes(text, instructions)) is not None:
        problems.append(f"echoes the instructions ({e!r})")
    return problems


def string_fields(value: object, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) for every string inside a pydantic model, list or dict."""
    if isinstance(value, str):
        yield path or "answer", value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from string_fields(getattr(value, name), f"{path}.{name}" if path else name)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from string_fields(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from string_fields(v, f"{path}[{i}]")


def output_problems(output: BaseModel, *, reference: str = "", instructions: str = "") -> dict[str, list[str]]:
    """`text_problems` of every string field of a structured answer, by field path (fields without a
    problem map to an empty list, so the dict also says how many fields were checked)."""
    return {path: text_problems(text, reference=reference, instructions=instructions)
            for path, text in string_fields(output)}


# ---------------------------------------------------------------------------------------------
# Aspect names and descriptions


def copied_from(text: str, sources: Iterable[str], *, min_overlap: float = COPIED_OVERLAP,
                min_words: int = 5) -> str | None:
    """The source sentence `text` was copied from (at least `min_overlap` of its words occur in that
    one sentence), if any; texts under `min_words` words (short noun phrases) are never copies."""
    toks = words(text)
    if len(toks) < min_words:
        return None
    for source in sources:
        for sentence in split_sentences(source) or [source]:
            present = set(words(sentence))
            if sum(1 for t in toks if t in present) / len(toks) >= min_overlap:
                return sentence
    return None


def tidy_name(name: str) -> str:
    """An aspect name as a phrase: slugs ("vitamin-d-level", "dual_use_biotechnology") become words;
    whitespace and trailing punctuation are tidied."""
    name = " ".join(name.split()).strip(" .:;,-")
    if "_" in name:
        name = name.replace("_", " ")
    if " " not in name and name.count("-") >= 2:
        name = name.replace("-", " ")
    return " ".join(name.split())


def name_problems(name: str) -> list[str]:
    """Why a (tidied) aspect name is not a short noun phrase; empty when it is one."""
    problems = []
    toks = words(name)
    if not toks:
        problems.append("is empty")
    if len(toks) > NAME_MAX_WORDS:
        problems.append(f"has {len(toks)} words (a sentence, not a name)")
    if re.search(r"[=<>]|\bp\s*[=<]|\d+\s*%|[.;!?]\s+\S", name):
        problems.append("reads like a finding, not a name")
    return problems


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ANSI/VT escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ESC \", and two-byte escapes):
# removed whole, so no parameter bytes ("[31m") are left behind as text.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
# Bidirectional overrides and isolates reorder what a terminal or browser shows.
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


def strip_control(text: str, *, keep_newlines: bool = False) -> str:
    """`text` without terminal escape sequences, bidi overrides and control characters (NUL, BEL,
    DEL, C0 and C1). Tabs and line breaks become spaces unless `keep_newlines` (then line breaks stay)."""
    text = _ANSI.sub("", text).translate(_BIDI)
    out = []
    for ch in text:
        if ch in "\n\r" and keep_newlines:
            out.append("\n" if ch == "\n" else "")
        elif ch in "\t\n\r\v\f":
            out.append(" ")
        elif unicodedata.category(ch) == "Cc":
            continue
        else:
            out.append(ch)
    return "".join(out)
