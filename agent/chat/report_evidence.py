"""What a free follow-up answer reads and writes: the report's documents split into evidence and the
others read, the sentences that state a study's size or outcome, and the answer's cited lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claimscope.agent.chat.questions import _stem, document_direction
from claimscope.agent.chat.wording import cite, count, source_text
from claimscope.tools.appraise.ico import not_about_this_study, stated_outcome
from claimscope.tools.appraise.sample_size import states_size
from claimscope.tools.models import Document, SentenceKey
from claimscope.tools.read.hierarchy.terms import _terms
from claimscope.tools.text.segmenter import without_section_label


class FreeAnswer:
    """The answer's lines and the sentence keys they cite."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.citations: list[str] = []

    def add(self, line: str, keys: list[str] | None = None) -> None:
        self.lines.append(line + cite(keys or []))
        self.citations += keys or []

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class ReportEvidence:
    """What a free answer reads: the report's documents split into those that give evidence on the
    claim and the others it read, their texts (loaded on demand), and the verdict."""

    def __init__(self, report: dict[str, Any], load: Callable[[list[str]], dict[str, Document]],
                 finding_keys: Callable[[dict[str, Any]], list[str]]) -> None:
        self.report = report
        self.views: list[dict[str, Any]] = list(report.get("documents") or [])
        self.evidence = [v for v in self.views if document_direction(v) != "neutral"]
        self.read = [v for v in self.views if document_direction(v) == "neutral"]
        self._load = load
        self._docs: dict[str, Document] | None = None
        self.finding_keys = finding_keys

    @property
    def docs(self) -> dict[str, Document]:
        if self._docs is None:
            self._docs = self._load([v["id"] for v in self.views])
        return self._docs

    @property
    def verdict_label(self) -> str:
        return str(((self.report.get("verdict") or {}).get("weighted") or {}).get("label") or "insufficient evidence")

    @property
    def its_documents(self) -> str:
        """'its one document', 'its 5 documents' (not 'its 1 document')."""
        return "its one document" if len(self.views) == 1 else f"its {len(self.views)} documents"

    def evidence_line(self, verdict: bool = True) -> str:
        """How many of the report's documents give evidence on the claim, in one sentence (with the
        verdict when none does, unless `verdict` is False)."""
        n, e = len(self.views), len(self.evidence)
        if not n:
            return "The report has no sources."
        if not e:
            head = ("The report's one document gives no evidence on the claim" if n == 1 else
                    f"None of the {n} documents in the report gives evidence on the claim")
            return head + (f" (the verdict is '{self.verdict_label}')." if verdict else ".")
        if e == n:
            return ("The report's one document gives evidence on the claim." if n == 1
                    else f"All {n} documents in the report give evidence on the claim.")
        return (f"{e} of the {count(n, 'document')} in the report {'gives' if e == 1 else 'give'} evidence on "
                f"the claim.")

    def labelled(self, v: dict[str, Any]) -> str:
        return f"{source_text(v)} ({v.get('local_label') or 'not labelled'})"

    def sentence_with(self, doc_id: str, phrase: str, *, this_study: bool = False) -> str | None:
        """The key of the first sentence of `doc_id` that states `phrase` (all its words), if any; with
        `this_study`, only a sentence about the study itself (never background on other work)."""
        doc = self.docs.get(doc_id)
        if doc is None or not phrase.strip():
            return None
        want = {_stem(w) for w in _terms(phrase)}
        low = phrase.lower()
        skip = not_about_this_study(doc.sentences) if this_study else set()
        for i, sentence in enumerate(doc.sentences):
            if i in skip:
                continue
            if low in sentence.lower() or (want and want <= {_stem(w) for w in _terms(sentence)}):
                return str(SentenceKey.sentence(doc_id, i))
        return None

    def size_key(self, v: dict[str, Any]) -> str | None:
        """The key of the first sentence about the study itself that states its sample size as a
        number of people (states_size: not the same digits counting years or doses), if any."""
        n, doc = v.get("sample_size"), self.docs.get(v["id"])
        if n is None or doc is None:
            return None
        skip = not_about_this_study(doc.sentences)
        return next((str(SentenceKey.sentence(v["id"], i)) for i, s in enumerate(doc.sentences)
                     if i not in skip and states_size(without_section_label(s), n)), None)

    def stated_size(self, v: dict[str, Any]) -> int | None:
        """The document's sample size where a sentence of it or its title states that number, else
        None: a number the answer could not cite is not said."""
        n = v.get("sample_size")
        if n is None:
            return None
        return n if self.size_key(v) or states_size(str(v.get("title") or ""), n) else None

    def outcome(self, v: dict[str, Any]) -> tuple[str, str] | None:
        """What the document's abstract states was measured and the key of the sentence that states it
        (stated_outcome, the reader the evidence table's outcome column uses too); None when no
        sentence does (a narrative review, an editorial, a background-only abstract)."""
        doc = self.docs.get(v["id"])
        found = stated_outcome(doc.sentences, population=v.get("population")) if doc is not None else None
        return (found.outcome, str(SentenceKey.sentence(v["id"], found.sentence))) if found else None
