"""What a page says when something goes wrong: one sentence in the web's own terms.

The engine's refusals are written for every front end, and some end with command-line advice; a
failed run keeps its exception's text; a warning may quote a model library's error. None of that
is shown raw: known command-line advice is reworded for the pages, a library's error becomes what
happened in plain words, and the original text goes to the server's log.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("claimscope.web")

# Text written for developers: a traceback, a library's exception name, a model library's name.
DEVELOPER_TEXT = re.compile(r"Traceback|\blitellm\b|\b\w+(Error|Exception|Timeout)\b|\bTimeout\b")
# Command-line syntax: a backticked command, an option flag, the program's name before a subcommand.
COMMAND_LINE = re.compile(r"`[^`]*`|(?<![\w-])--[a-z]|\bclaimscope (?:chat|corpus|ingest|investigate|llm|mcp|"
                          r"retractions|search|serve|sessions)\b")
# Engine advice that has a place in the app, reworded (the rest is cut, see plain()).
REWORDED = (
    ("ingest one with `claimscope ingest PATH --corpus NAME` and pass --corpus NAME",
     "choose a corpus for the investigation, or upload one on the Corpora page"),
    ("add one with `claimscope ingest PATH --corpus NAME`", "upload one on the Corpora page"),
    ("put background material into a corpus with `claimscope ingest`",
     "upload background material as a corpus on the Corpora page"),
)
# What happened, by the words of the error (first match wins).
CAUSES = (
    (re.compile(r"timed? ?out|Timeout", re.I), "the language model did not answer in time"),
    (re.compile(r"rate.?limit|\b429\b", re.I), "the language model refused more requests for now (rate limit)"),
    (re.compile(r"auth|api.?key|\b401\b", re.I), "the language model refused the configured API key"),
    (re.compile(r"connect|unreachable|name resolution", re.I), "the language model could not be reached"),
)


def cause(text: str) -> str:
    """What a developer's error text means, in a few plain words."""
    for pattern, words in CAUSES:
        if pattern.search(text):
            return words
    return "an internal error (the details are in the server's log)"


def plain(text: str) -> str:
    """`text` without developer or command-line text: a library's error from where it starts is
    replaced by its plain cause; known command-line advice is reworded; other advice is cut."""
    found = DEVELOPER_TEXT.search(text)
    if found:
        log.info("shown in plain words: %s", text)
        head = re.sub(r"[\s:(\-\u2014]+$", "", text[:found.start()])
        text = f"{head}: {cause(text)}" if head else cause(text)
    for advice, words in REWORDED:
        text = text.replace(advice, words)
    found = COMMAND_LINE.search(text)
    if found:
        head = text[:found.start()]
        cut = max(head.rfind("; "), head.rfind(": "), head.rfind(" ("), head.rfind(", "))
        text = re.sub(r"[\s,;:(]+$", "", head[:cut] if cut > 0 else head) + "."
    return text


# The report's own advice (written for the command line) as the app words it, in rendered HTML.
REPORT_ADVICE = (
    (re.compile(r"To go further, add a corpus that covers the question \(<code>[^<]*</code>\) or search scholarly "
                r"sources \(<code>[^<]*</code>\)\."),
     'To go further, upload a corpus that covers the question on the <a href="/corpora">Corpora</a> page, or '
     '<a href="/new">start a new investigation</a> with a scholarly source.'),
)


def report_for_web(body: str) -> str:
    """A rendered HTML report with its command-line advice worded for the app."""
    for pattern, words in REPORT_ADVICE:
        body = pattern.sub(words, body)
    return body


def run_error(text: str) -> str:
    """The sentence a session page shows for a run that stopped on `text`."""
    if DEVELOPER_TEXT.search(text):
        log.warning("run stopped: %s", text)
        return f"The run stopped: {cause(text)}; press Resume to continue from the last finished step."
    return plain(text)

