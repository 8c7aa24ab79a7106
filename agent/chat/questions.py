"""Reading a follow-up question without the model: which way it points (the words readers use for
support and opposition, and the report's label names), which study it names, and which templated
kind it asks for."""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from claimscope.tools.models import Document
from claimscope.tools.read.hierarchy.terms import _terms
from claimscope.tools.weigh.verdict import LocalLabel

Direction = Literal["support", "oppose", "neutral"]

# Checked in this order: "does not support" and "disagree" are oppose words that contain support words.
_DIRECTION_WORDS: list[tuple[Direction, re.Pattern[str]]] = [
    ("neutral", re.compile(r"\b(neutral|no evidence|no stance|undecided|inconclusive|irrelevant|unrelated|"
                           r"not (?:about|on) the claim|either way)\b", re.I)),
    ("oppose", re.compile(r"\b(oppos(?:e|es|ed|ing|ition)|against|refut\w*|contradict\w*|disagree\w*|"
                          r"disput(?:e|es|ing)|counter(?:s|ed)?|challeng\w*|reject\w*|disprov\w*|undermin\w*|"
                          r"(?:mostly |somewhat )?false|(?:do|does|did)(?:n't| not) (?:support|back|agree)\w*)\b",
                          re.I)),
    ("support", re.compile(r"\b(support\w*|back(?:s|ed|ing)?|agree\w*|confirm\w*|in favou?r|favou?r(?:s|ed)?|"
                           r"endors\w*|corroborat\w*|(?:mostly |somewhat )?true|for (?:it|the claim|this claim)|"
                           r"(?:argue|argues|speak|speaks) for)\b", re.I)),
]
ALL_WORDS = frozenset({"", "all", "any", "every", "each", "both", "everything"})
STANCE_OF: dict[Direction, str] = {"support": "support", "oppose": "refute", "neutral": "neutral"}


def direction_in(text: str) -> Direction | Literal["all"] | None:
    """Which way a question (or a label, or a tool argument) points: "oppose" for oppose / against /
    refute / contradict / disagree / (Mostly) False / "does not support", "support" for support /
    back / agree / in favour / (Mostly) True, "neutral" for neutral / No Evidence; "all" when it names
    both support and opposition; None when it names no direction."""
    for direction, pattern in _DIRECTION_WORDS[:1]:
        if pattern.search(text):
            return direction
    opposed = _DIRECTION_WORDS[1][1].search(text)
    rest = _DIRECTION_WORDS[1][1].sub(" ", text)
    supported = _DIRECTION_WORDS[2][1].search(rest)
    if opposed and supported:
        return "all"
    return "oppose" if opposed else "support" if supported else None


def document_direction(view: dict[str, Any]) -> Direction:
    """Which way a report document points, from its direction (or local label); unlabelled is neutral."""
    direction = view.get("direction")
    if direction in ("supports", "opposes"):
        return "support" if direction == "supports" else "oppose"
    label = view.get("local_label")
    if label and direction is None:
        score = LocalLabel.parse(str(label)).score
        return "support" if score > 0 else "oppose" if score < 0 else "neutral"
    return "neutral"


def stance_direction(stance: str | None) -> Direction:
    return {"support": "support", "refute": "oppose"}.get(str(stance or ""), "neutral")  # type: ignore[return-value]


# Words of a question about a study that name no study.
_QUESTION_WORDS = frozenset("""say says said tell tells paper papers trial trials article articles source sources
    document documents report reports reported review reviews conclude concludes concluded conclusion claim
    claims investigation evidence know learn""".split())
_STUDY_WORD = r"(?:study|paper|trial|article|source|document|report|review|meta-analysis|cohort|analysis|abstract)"


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def question_terms(text: str) -> set[str]:
    """The words of a question that can name a study or a topic (stopwords and question words left out)."""
    return {_stem(w) for w in _terms(text) if w not in _QUESTION_WORDS}


def match_study(question: str, docs: dict[str, Document], views: dict[str, dict[str, Any]]
                ) -> tuple[Document, list[Document]] | None:
    """The document a question names, and the others that match it as well: an id named in the
    question wins; otherwise the rarest words shared with the title (twice) and the sentences
    decide, a document of the report first on a tie. None when no document shares a word."""
    tokens = set(re.findall(r"[A-Za-z0-9_.:/-]+", question))
    named = [d for d in docs.values() if d.id in tokens or d.id.lower() in question.lower().split()]
    if named:
        return named[0], named[1:3]
    terms = question_terms(question)
    if not terms:
        return None
    titles = {d: {_stem(w) for w in _terms(doc.title)} for d, doc in docs.items()}
    bodies = {d: {_stem(w) for w in _terms(" ".join(doc.sentences))} for d, doc in docs.items()}
    n = len(docs)
    idf = {t: math.log((n + 1) / (0.5 + sum(t in titles[d] or t in bodies[d] for d in docs))) for t in terms}
    scores = {d: sum(idf[t] * (2.0 if t in titles[d] else 1.0 if t in bodies[d] else 0.0) for t in terms)
              for d in docs}
    order = sorted(docs, key=lambda d: (-round(scores[d], 6), d not in views))
    best = order[0]
    if scores[best] <= 0:
        return None
    ties = [docs[d] for d in order[1:] if scores[d] >= 0.8 * scores[best]][:3]
    return docs[best], ties


def study_sentences(question: str, doc: Document, limit: int = 3) -> list[int]:
    """Indices of the document's sentences that share the most words with the question, best first."""
    terms = question_terms(question) - {_stem(w) for w in _terms(doc.title)} or question_terms(question)
    scored = []
    for i, sentence in enumerate(doc.sentences):
        shared = len(terms & {_stem(w) for w in _terms(sentence)})
        if shared:
            scored.append((-shared, i))
    return [i for _, i in sorted(scored)[:limit]]


_ROUTES: list[tuple[str, re.Pattern[str]]] = [
    ("go_deeper", re.compile(r"\b(deeper|drill|expand|more detail|break (?:it |\w+ )?down|sub-?aspects?)\b", re.I)),
    ("exclude_source", re.compile(r"\b(ignore|exclude|drop|remove|leave out|discard)\b|\bwithout (?:the )?"
                                  r"(?:source|document|paper|study|doc)\b", re.I)),
    ("anti_claim_contribution", re.compile(r"anti.?claim|opposite claim|counter.?claim", re.I)),
    ("study_findings", re.compile(rf"\bwhat (?:does|did|do|is|was) (?:the |this |that |a )?(?:[\w-]+ ){{0,6}}?"
                                  rf"{_STUDY_WORD}\b.*\b(?:say|says|find|found|report|show|conclude|claim|"
                                  rf"about|on)\b|\bwhat (?:does|did) (?:source |document |paper )?[\w.:/-]*\d[\w.:/-]* "
                                  rf"(?:say|find|report|show)\b|\b(?:in|from) (?:the |this )?{_STUDY_WORD} "
                                  rf"(?:on|about|of)\b", re.I)),
    ("explain_aspect", re.compile(r"\baspect\b|\b(disputed|controvers\w*|contested|divided)\b", re.I)),
    ("show_sources", re.compile(r"\b(which|what|list|show|who|how many)\b.*\b(sources?|papers?|stud(?:y|ies)|"
                                r"documents?|articles?|trials?|references?|evidence)\b|\b(sources?|papers?|"
                                r"stud(?:y|ies)|documents?)\b.*\b(list|show)\b", re.I)),
    ("verdict", re.compile(r"\b(verdict|conclusion|summary|summari[sz]e|overall|bottom line)\b", re.I)),
]


def keyword_route(text: str) -> tuple[str, dict[str, Any]]:
    """Deterministic routing of the question kinds the chat answers from templates (no model);
    everything else is ("ask_evidence", ...), which the model may route further."""
    for tool, pattern in _ROUTES:
        if not pattern.search(text):
            continue
        if tool == "exclude_source":
            m = re.search(r"(?:source|document|paper|doc|study)?\s*([A-Za-z0-9_.:/-]*\d[A-Za-z0-9_.:/-]*)", text)
            if m:
                return tool, {"doc_id": m.group(1).rstrip(".")}
            continue
        if tool == "explain_aspect" and re.search(r"\b(verdict|overall)\b", text, re.I) \
                and not re.search(r"\baspect\b", text, re.I):
            return "verdict", {}
        if tool in ("go_deeper", "explain_aspect"):
            m = re.search(r"aspect\s+['\"]?([^'\"?]+)", text, re.I) or re.search(r"\bon\s+['\"]?([^'\"?]+)", text, re.I)
            return tool, {"aspect": (m.group(1) if m else text).strip()}
        if tool == "study_findings":
            return tool, {"study": text}
        if tool == "show_sources":
            direction = direction_in(text)
            if direction is None and not re.search(r"\b(list|show|all|every)\b", text, re.I):
                continue
            return tool, {"stance": direction or "all"}
        return tool, {}
    return "ask_evidence", {"question": text}


def checked_arguments(tool: str, args: dict[str, Any], text: str) -> dict[str, Any]:
    """The model's arguments, with what the question itself says taking precedence: the direction
    it names for show_sources, the question for study_findings and ask_evidence."""
    if tool == "show_sources":
        direction = direction_in(text)
        if direction is not None:
            args["stance"] = direction
    elif tool == "study_findings":
        args["study"] = f"{args.get('study', '')} {text}".strip()
    elif tool == "ask_evidence":
        args["question"] = text
    return args
