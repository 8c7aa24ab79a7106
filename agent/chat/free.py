"""Free follow-up questions answered from the report's evidence, by rules (no model): the
question's facet (study design, population, sample size, outcome, intervention, consistency,
limitations, strength of the evidence) is answered from the report's evidence table and labels (an
outcome from the sentence of each abstract that states what was measured, a sample size only where
a sentence states that number), the sources that give evidence on the claim first; any other
question from the sentences of the report's documents that share its topic words, quoted and cited. When the report holds nothing on a
question the answer says so, and never lists sentences that do not bear on it.

Every line that states what a source says or is cites the sentence that says it; a line without a
citation only counts or names what the report itself shows (labels, the verdict, designs).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sized
from typing import Any, Literal

from claimscope.agent.chat.questions import _stem, document_direction, question_terms
from claimscope.agent.chat.report_evidence import FreeAnswer, ReportEvidence
from claimscope.agent.chat.wording import count, listed, top_aspects
from claimscope.agent.report.common import population_cell
from claimscope.agent.report.model import DocumentView
from claimscope.tools.appraise.sample_size import states_size
from claimscope.tools.appraise.study_design import Design, design_name, design_sentence
from claimscope.tools.models import SentenceKey
from claimscope.tools.read.hierarchy.terms import _terms

Facet = Literal["limitations", "consistency", "strength", "design", "sample_size", "outcome", "population",
                "intervention"]

# First match wins: the more specific facets before the words they share with broader ones
# ("outcome" before "patients", "how many participants" before "participants").
_FACETS: list[tuple[Facet, re.Pattern[str]]] = [
    ("limitations", re.compile(r"\b(limitations?|limits of|weakness(?:es)?|caveats?|shortcomings?|drawbacks?|"
                               r"gaps? in|what is missing|biase?s?)\b", re.I)),
    ("consistency", re.compile(r"\b(consistent\w*|inconsistent\w*|consistency|agree with (?:each|one) other|"
                               r"across (?:the |all )?(?:studies|sources|trials|papers|documents)|heterogene\w*|"
                               r"conflicting|contradictory|mixed)\b", re.I)),
    ("strength", re.compile(r"\b(how strong|strength of|how (?:good|reliable|solid|convincing|robust|certain|sure|"
                            r"weak)|quality of (?:the )?evidence|level of evidence|certainty of)\b", re.I)),
    ("design", re.compile(r"\b(randomi[sz]ed|rcts?|controlled trials?|study designs?|designs?|kinds? of (?:stud\w*|"
                          r"evidence|sources?)|types? of (?:stud\w*|evidence|sources?)|meta-?analys[ie]s|"
                          r"systematic reviews?|cohort stud\w*|observational|case-?control|cross-?sectional|"
                          r"in vitro|animal (?:stud\w*|models?|experiments?)|reviews?)\b", re.I)),
    ("sample_size", re.compile(r"\b(sample sizes?|how many (?:participants|patients|people|subjects|women|men|"
                               r"children|adults)|how (?:large|big) (?:were|was) (?:the )?(?:stud\w*|trials?|samples?)|"
                               r"number of (?:participants|patients|subjects|people))\b", re.I)),
    ("outcome", re.compile(r"\b(outcomes?|end-?points?|(?:was|were) measured|measured outcomes?|what (?:did|do) "
                           r"(?:they|the (?:studies|trials|sources|papers)) measure)\b", re.I)),
    ("population", re.compile(r"\b(populations?|participants?|patients?|subjects?|who (?:was|were) (?:studied|"
                              r"included|enrolled)|which people|study groups?|sample(?:s|d)? (?:of|from))\b", re.I)),
    ("intervention", re.compile(r"\b(interventions?|treatments?|exposures?|comparators?|compared (?:with|to|against)|"
                                r"control groups?|doses?|dosages?)\b", re.I)),
]

# The designs a question can name, with the words that name them.
_ASKED_DESIGNS: list[tuple[tuple[Design, ...], re.Pattern[str]]] = [
    ((Design.RCT,), re.compile(r"\b(randomi[sz]ed|rcts?|controlled trials?|clinical trials?)\b", re.I)),
    ((Design.META_ANALYSIS,), re.compile(r"\b(meta-?analys[ie]s|systematic reviews?)\b", re.I)),
    ((Design.COHORT,), re.compile(r"\bcohort", re.I)),
    ((Design.CASE_CONTROL,), re.compile(r"\bcase-?control", re.I)),
    ((Design.CROSS_SECTIONAL,), re.compile(r"\bcross-?sectional|\bsurveys?\b", re.I)),
    ((Design.COHORT, Design.CASE_CONTROL, Design.CROSS_SECTIONAL), re.compile(r"\bobservational\b", re.I)),
    ((Design.ANIMAL,), re.compile(r"\banimals?\b|\bmice\b|\bmouse\b|\brats?\b", re.I)),
    ((Design.IN_VITRO,), re.compile(r"\bin vitro\b|\bcell (?:lines?|cultures?)\b", re.I)),
    ((Design.NARRATIVE_REVIEW, Design.META_ANALYSIS), re.compile(r"\breviews?\b", re.I)),
]

# Words of a free question that name no topic of its own.
_GENERIC = frozenset(_stem(w) for w in """effect effects result results finding findings show shows shown seen see
    observe observed data study studies trial trials paper papers evidence source sources document documents
    research literature anything something mention mentions mentioned discuss discussed relate related relation
    relationship role impact association associated link linked significant outcome outcomes work works worked
    help helps happen happens true false people thing things way ways""".split())

_LIST_MAX = 6


# Words that go with a facet's question without naming a topic of their own.
_FACET_WORDS = frozenset(_stem(w) for w in """studied included enrolled measured used given compared assessed
    examined tested recruited main overall evidence among were any kind kinds type types level many""".split())


def free_facet(question: str) -> Facet | None:
    """The facet of the evidence a free question asks about; None for a question on a topic, also
    when a facet word comes with topic words of its own ("what about bolus doses?" asks about
    bolus doses, not for every source's intervention)."""
    for facet, pattern in _FACETS:
        found = [m.group(0) for m in pattern.finditer(question)]
        if not found:
            continue
        named = set().union(*(question_terms(f) for f in found))
        if topic_terms(question) - named - _FACET_WORDS:
            return None
        return facet
    return None


def answer_free(question: str, ev: ReportEvidence) -> FreeAnswer:
    """The answer to a free question: by its facet, else from the sentences that share its topic."""
    facet = free_facet(question)
    if not ev.views:
        out = FreeAnswer()
        out.add("The report has no sources, so the evidence says nothing on that.")
        return out
    if facet == "design":
        return _design(question, ev)
    if facet == "outcome":
        return _outcome(ev)
    if facet in ("population", "sample_size", "intervention"):
        return _field(facet, ev)
    if facet == "consistency":
        return _consistency(ev)
    if facet == "limitations":
        return _limitations(ev)
    if facet == "strength":
        return _strength(ev)
    return _topic(question, ev)


# ---------------------------------------------------------------------------------- facets
def _design_of(v: dict[str, Any]) -> Design | None:
    try:
        return Design(v["design"]) if v.get("design") else None
    except ValueError:
        return None


def _designs_said(views: list[dict[str, Any]]) -> str:
    """'2 RCTs, 1 cohort study and 1 of unknown design'."""
    counts = Counter(_design_of(v) for v in views)
    order = [d for d in Design if d in counts] + ([None] if None in counts else [])
    return listed([f"{counts[d]} {design_name(d, counts[d])}" if d else f"{counts[d]} of unknown design"
                   for d in order])


def _design_said(v: dict[str, Any]) -> str:
    """One source's design after "is": "an in vitro study", "of a design the report does not state"."""
    d = _design_of(v)
    return _article(design_name(d)) if d else "of a design the report does not state"


def _design_key(ev: ReportEvidence, v: dict[str, Any]) -> list[str]:
    """The sentence that states a document's design, when one does (its title may be all that does)."""
    design, doc = _design_of(v), ev.docs.get(v["id"])
    if design is None or doc is None:
        return []
    i = design_sentence(design, doc.sentences)
    return [] if i is None else [str(SentenceKey.sentence(v["id"], i))]


def _design_line(ev: ReportEvidence, v: dict[str, Any], said: str = "") -> tuple[str, list[str]]:
    """A source's line with the sentence naming its design cited, or "(its title)" when only its title
    names it."""
    keys = _design_key(ev, v)
    d = _design_of(v)
    where = ""
    if not keys and d is not None and design_sentence(d, [str(v.get("title") or "")]) is not None:
        where = ", named in its title" if said else ": named in its title"
    return f"- {ev.labelled(v)}{said}{where}", keys


def _design(question: str, ev: ReportEvidence) -> FreeAnswer:
    out = FreeAnswer()
    asked: tuple[Design, ...] = next((ds for ds, p in _ASKED_DESIGNS if p.search(question)), ())
    if not asked:
        if ev.evidence:
            out.add(("The one source that gives evidence on the claim is" if len(ev.evidence) == 1 else
                     f"The {len(ev.evidence)} sources that give evidence on the claim are")
                    + f": {_designs_said(ev.evidence)}.")
            for v in ev.evidence[:_LIST_MAX]:
                d = _design_of(v)
                out.add(*_design_line(ev, v, f": {design_name(d) if d else 'design not stated'}"))
            _and_more(out, ev.evidence)
        else:
            out.add(ev.evidence_line())
        if len(ev.read) == 1:
            out.add(f"The {'other' if ev.evidence else 'one'} document read (no evidence on the claim) is "
                    f"{_design_said(ev.read[0])}.")
        elif ev.read:
            out.add(f"The {'other ' if ev.evidence else ''}{len(ev.read)} documents read "
                    f"(no evidence on the claim): {_designs_said(ev.read)}.")
        return out
    # the name of what was asked, for one and for several ("observational study" is no design of its own)
    one, name = ((design_name(asked[0], 1), design_name(asked[0], 2)) if len(asked) == 1 else
                 ("observational study", "observational studies") if Design.COHORT in asked else ("review", "reviews"))
    hits = [v for v in ev.evidence if _design_of(v) in asked]
    if hits:
        out.add(f"Yes: the one source that gives evidence on the claim is {_article(one)}:" if len(ev.evidence) == 1
                else f"Yes: {len(hits)} of the {len(ev.evidence)} sources that give evidence on the claim "
                f"{'is' if len(hits) == 1 else 'are'} {_article(one) if len(hits) == 1 else name}:")
        for v in hits[:_LIST_MAX]:
            out.add(*_design_line(ev, v))
        _and_more(out, hits)
    elif len(ev.evidence) == 1:
        out.add(f"No: the one source that gives evidence on the claim is not {_article(one)} (it is "
                f"{_design_said(ev.evidence[0])}).")
    elif ev.evidence:
        out.add(f"No: none of the {len(ev.evidence)} sources that give evidence on the claim is "
                f"{_article(one)} (they are {_designs_said(ev.evidence)}).")
    else:
        out.add(f"No: {ev.evidence_line()[0].lower()}{ev.evidence_line()[1:]}")
    others = [v for v in ev.read if _design_of(v) in asked]
    where = "the documents read that give no evidence on the claim" if ev.evidence else "the documents it read"
    if others:
        out.add(f"Among {where}, {len(others)} "
                f"{'is' if len(others) == 1 else 'are'} {_article(one) if len(others) == 1 else name}:")
        for v in others[:_LIST_MAX]:
            out.add(*_design_line(ev, v))
        _and_more(out, others)
    elif ev.read:
        r = len(ev.read)
        lead = (("The other document read is not" if ev.evidence else "The one document it read is not") if r == 1
                else f"None of the other {r} documents read is" if ev.evidence else f"None of the {r} documents it read is")
        out.add(f"{lead} {_article(one)}" + (" either." if ev.evidence and not hits else "."))
    return out


def _and_more(out: FreeAnswer, listed: Sized) -> None:
    """'(and 3 more)' under a list cut at _LIST_MAX, so that its lines add up to the count above them."""
    if len(listed) > _LIST_MAX:
        out.add(f"(and {len(listed) - _LIST_MAX} more)")


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" or noun.startswith("RCT") else "a ") + noun


_FIELD_WORDS: dict[str, tuple[str, str]] = {
    "population": ("population", "who was studied"), "sample_size": ("sample size", "how many took part"),
    "intervention": ("intervention", "what was given or compared"),
}


def _field_value(ev: ReportEvidence, facet: str, v: dict[str, Any]) -> str | None:
    if facet == "sample_size":
        n = ev.stated_size(v)
        return f"n = {n}" if n is not None else None
    if facet == "intervention":
        parts = [p for p in (v.get("intervention"), v.get("comparator")) if p]
        return " compared with ".join(parts) if parts else None
    value = v.get(facet)
    if facet == "population" and value:
        # the evidence table's own cell, so that the answer and the table say the same; its "(n = N)"
        # only where a sentence or the title states that number
        return population_cell(DocumentView.model_construct(id=v["id"], population=value,
                                                          sample_size=ev.stated_size(v)))
    return str(value) if value else None


def _stated_heading(evidence: int, stated: int, plain: str) -> str:
    """The line that opens a facet answer: how many of the sources with evidence state the facet."""
    if evidence == 1:
        return f"The one source that gives evidence on the claim, and {plain}:"
    if stated == evidence:
        return f"All {evidence} sources that give evidence on the claim state {plain}:"
    return (f"Of the {evidence} sources that give evidence on the claim, {stated} "
            f"{'states' if stated == 1 else 'state'} {plain}:")


def _field_keys(ev: ReportEvidence, facet: str, v: dict[str, Any]) -> list[str]:
    if facet == "sample_size":
        return [k] if (k := ev.size_key(v)) else []
    if facet == "intervention":
        phrases = [p for p in (v.get("intervention"), v.get("comparator")) if p]
    else:
        phrases = [str(v.get(facet) or "")]
    # what the study did is cited to a sentence about it, not to background on other work
    keys = [k for p in phrases if (k := ev.sentence_with(v["id"], p, this_study=True))]
    if facet == "population" and (size := ev.size_key(v)):
        keys.append(size)  # the "(n = N)" of the cell is cited to the sentence that counts them
    return list(dict.fromkeys(keys))


def _field(facet: str, ev: ReportEvidence) -> FreeAnswer:
    """Population, sample size or intervention: the evidence table's cell of each source that gives
    evidence, then of the other documents read, each cited to the sentence that states it."""
    out = FreeAnswer()
    noun, plain = _FIELD_WORDS[facet]
    if ev.evidence:
        stated = [(v, val) for v in ev.evidence if (val := _field_value(ev, facet, v))]
        e = len(ev.evidence)
        if stated:
            out.add(_stated_heading(e, len(stated), plain))
        else:
            out.add(f"The report gives no {noun} for the {count(e, 'source')} that give evidence on the claim."
                    if e > 1 else f"The report gives no {noun} for the one source that gives evidence on the claim.")
        _field_lines(ev, facet, stated, out)
    else:
        out.add(ev.evidence_line())
    if ev.read:
        stated = [(v, val) for v in ev.read if (val := _field_value(ev, facet, v))]
        r = len(ev.read)
        which = (("the one other document read" if r == 1 else f"the {r} documents read that give no evidence on it")
                 if ev.evidence else ("the one document it read" if r == 1 else f"the {r} documents it read"))
        if stated and r == 1:
            out.add(f"For {which}, {plain}:")
            _field_lines(ev, facet, stated, out)
        elif stated:
            out.add(f"Of {which}, {len(stated)} {'states' if len(stated) == 1 else 'state'} {plain}:")
            _field_lines(ev, facet, stated, out)
        elif r == 1:
            out.add(f"The report gives no {noun} for {which}.")
        else:
            out.add(f"None of {which} has {_article(noun)} in the report.")
    return out


def _field_lines(ev: ReportEvidence, facet: str, stated: list[tuple[dict[str, Any], str]], out: FreeAnswer) -> None:
    for v, val in stated[:_LIST_MAX]:
        keys = _field_keys(ev, facet, v)
        in_title = (states_size(str(v.get("title") or ""), v["sample_size"]) if facet == "sample_size"
                    else _in_title(val, v))
        where = " (its title)" if not keys and in_title else ""
        out.add(f"- {ev.labelled(v)}: {val}{where}", keys)
    _and_more(out, stated)


_NO_OUTCOME = "no sentence of its abstract says what was measured"
_NO_OUTCOMES = "no sentence of their abstracts says what was measured"


def _outcome(ev: ReportEvidence) -> FreeAnswer:
    """What each source measured, as the sentence of its abstract that states it words it, cited to
    that sentence (the evidence table's cell is not enough: it may come from the title or the claim);
    the sources that give evidence first, then the other documents read. A source whose abstract
    states no outcome (a narrative review, an editorial) is said to state none."""
    out = FreeAnswer()
    plain = "what was measured"
    if ev.evidence:
        stated = [(v, found) for v in ev.evidence if (found := ev.outcome(v))]
        e = len(ev.evidence)
        if stated:
            out.add(_stated_heading(e, len(stated), plain))
            _outcome_lines(ev, stated, out)
            _stated_none(ev, _unstated(ev.evidence, stated), out)
        elif e == 1:
            out.add(f"The one source that gives evidence on the claim states no outcome: {_NO_OUTCOME}.")
        else:
            out.add(f"None of the {e} sources that give evidence on the claim states an outcome: {_NO_OUTCOMES}.")
    else:
        out.add(ev.evidence_line())
    if ev.read:
        stated = [(v, found) for v in ev.read if (found := ev.outcome(v))]
        r = len(ev.read)
        which = (("the one other document read" if r == 1 else f"the {r} documents read that give no evidence on it")
                 if ev.evidence else ("the one document it read" if r == 1 else f"the {r} documents it read"))
        if stated and r == 1:
            out.add(f"For {which}, {plain}:")
            _outcome_lines(ev, stated, out)
        elif stated:
            out.add(f"Of {which}, {len(stated)} {'states' if len(stated) == 1 else 'state'} {plain}:")
            _outcome_lines(ev, stated, out)
            _stated_none(ev, _unstated(ev.read, stated), out)
        elif r == 1:
            out.add(f"{which[0].upper()}{which[1:]} states no outcome: {_NO_OUTCOME}.")
        else:
            out.add(f"None of {which} states an outcome: {_NO_OUTCOMES}.")
    return out


def _outcome_lines(ev: ReportEvidence, stated: list[tuple[dict[str, Any], tuple[str, str]]],
                   out: FreeAnswer) -> None:
    for v, (outcome, key) in stated[:_LIST_MAX]:
        out.add(f"- {ev.labelled(v)}: {outcome}", [key])
    _and_more(out, stated)


def _unstated(views: list[dict[str, Any]], stated: list[tuple[dict[str, Any], Any]]) -> list[dict[str, Any]]:
    ids = {v["id"] for v, _ in stated}
    return [v for v in views if v["id"] not in ids]


def _stated_none(ev: ReportEvidence, rest: list[dict[str, Any]], out: FreeAnswer) -> None:
    """One line for the sources listed above that state no outcome: named when one, counted when more."""
    if len(rest) == 1:
        out.add(f"{ev.labelled(rest[0])} states no outcome: {_NO_OUTCOME}.")
    elif rest:
        out.add(f"The other {len(rest)} state no outcome: {_NO_OUTCOMES}.")


def _in_title(value: str, v: dict[str, Any]) -> bool:
    words = {_stem(w) for w in _terms(value)}
    return bool(words) and words <= {_stem(w) for w in _terms(str(v.get("title") or ""))}


def _finding_lines(ev: ReportEvidence, views: list[dict[str, Any]], out: FreeAnswer) -> None:
    for v in views[:_LIST_MAX]:
        finding = v.get("finding") or {}
        key = (str(SentenceKey.sentence(v["id"], finding["sentence"]))
               if finding.get("text") and finding.get("doc_id", v["id"]) == v["id"] and "sentence" in finding else None)
        keys = [key] if key else ev.finding_keys(v)
        said = f': "{finding["text"]}"' if key else ""
        out.add(f"- {ev.labelled(v)}{said}", keys)
    _and_more(out, views)


def _consistency(ev: ReportEvidence) -> FreeAnswer:
    out = FreeAnswer()
    n = len(ev.evidence)
    if not n:
        out.add(ev.evidence_line()[:-1] + ", so there is no effect to compare across studies.")
        return out
    if n == 1:
        out.add("Only one source of the report gives evidence on the claim, so there is nothing to compare it "
                "with:")
        _finding_lines(ev, ev.evidence, out)
        return out
    sup = [v for v in ev.evidence if document_direction(v) == "support"]
    opp = [v for v in ev.evidence if document_direction(v) == "oppose"]
    if sup and opp:
        out.add(f"No: of the {n} sources that give evidence on the claim, {len(sup)} "
                f"{'supports' if len(sup) == 1 else 'support'} it and {len(opp)} "
                f"{'opposes' if len(opp) == 1 else 'oppose'} it.")
    else:
        way = "support" if sup else "oppose"
        out.add(f"Yes: all {n} sources that give evidence on the claim {way} it.")
    _finding_lines(ev, sup + opp, out)
    split = [nd for nd in top_aspects(ev.report) if (nd.get("consensus") or {}).get("label") == "controversial"]
    if split:
        out.add("Aspects the report labels controversial: " + "; ".join(f"'{nd['name']}'" for nd in split) + ".")
    return out


def _strength(ev: ReportEvidence) -> FreeAnswer:
    out = FreeAnswer()
    v = ev.report.get("verdict") or {}
    conf = v.get("confidence")
    out.add(f"The verdict is '{ev.verdict_label}'" + (f" (confidence {conf:.2f})" if isinstance(conf, int | float)
                                                       else "") + ". " + ev.evidence_line(verdict=False))
    if ev.evidence:
        out.add(f"It is {_design_said(ev.evidence[0])}." if len(ev.evidence) == 1 else
                f"They are {_designs_said(ev.evidence)}.")
        _finding_lines(ev, ev.evidence, out)
    return out


def _limitations(ev: ReportEvidence) -> FreeAnswer:
    """What the report shows that limits the evidence: how little of it there is, designs that cannot
    show the claim on their own, small samples, aspects without enough evidence or divided, and the
    report's warnings."""
    out = FreeAnswer()
    out.add("What the report shows that limits the evidence:")
    n, e = len(ev.views), len(ev.evidence)
    if not e:
        out.add(("- The one document read gives no evidence on the claim" if n == 1 else
                 f"- None of the {n} documents read gives evidence on the claim")
                + f", so the verdict is '{ev.verdict_label}'.")
    elif e < 3 and e < n:
        out.add(f"- Only {e} of the {count(n, 'document')} read {'gives' if e == 1 else 'give'} evidence on the "
                f"claim.")
    weak = [v for v in ev.evidence if _design_of(v) in (Design.ANIMAL, Design.IN_VITRO, Design.NARRATIVE_REVIEW,
                                                         Design.MODELLING, Design.CASE_REPORT, None)]
    if ev.evidence and not any(_design_of(v) in (Design.RCT, Design.META_ANALYSIS) for v in ev.evidence):
        out.add(f"- No randomized trial or meta-analysis is among the evidence ({_designs_said(ev.evidence)}).")
    # every bullet of the list ends with a full stop (one that did among those that did not read as a slip)
    for v in weak[:_LIST_MAX]:
        line, keys = _design_line(ev, v, f" is {_design_said(v)}")
        out.add(line + ".", keys)
    # a small sample is said only where a sentence (or the title) states that number, and cited to it
    small = [(v, size) for v in ev.evidence if (size := ev.stated_size(v)) is not None and size < 100]
    for v, size in small[:_LIST_MAX]:
        out.add(f"- {ev.labelled(v)} had {count(size, 'participant')}" + ("" if ev.size_key(v) else " (its title)")
                + ".", _field_keys(ev, "sample_size", v))
    for v in ev.evidence:
        if v.get("retracted"):
            out.add(f"- {ev.labelled(v)} is retracted.")
        elif v.get("disagreement"):
            out.add(f"- {ev.labelled(v)}: two readings of it disagree.")
    thin = [nd["name"] for nd in top_aspects(ev.report)
            if (nd.get("consensus") or {}).get("label") in (None, "", "insufficient evidence")]
    split = [nd["name"] for nd in top_aspects(ev.report) if (nd.get("consensus") or {}).get("label") == "controversial"]
    if thin:
        out.add("- Aspects with insufficient evidence: " + "; ".join(f"'{x}'" for x in thin) + ".")
    if split:
        out.add("- Aspects the evidence is divided on: " + "; ".join(f"'{x}'" for x in split) + ".")
    if len(out.lines) == 1:
        out.lines = [f"The report shows no limitation of its evidence beyond what its verdict says "
                     f"('{ev.verdict_label}'): {ev.evidence_line()[0].lower()}{ev.evidence_line()[1:]}"]
    return out


# ---------------------------------------------------------------------------------- topics
def _key(word: str) -> str:
    """A word's match key: its stem cut to seven letters, so that 'epithelium' meets 'epithelial'."""
    return _stem(word)[:7]


def _keys(text: str) -> set[str]:
    return {_key(w) for w in _terms(text) | _terms(text.replace("-", " "))}


def topic_terms(question: str) -> set[str]:
    """The words of a free question that name its topic (question words and generic ones left out)."""
    return {t for t in question_terms(question) if t not in _GENERIC}


def _topic(question: str, ev: ReportEvidence, limit: int = 5) -> FreeAnswer:
    """The report's sentences that share the question's topic words (the rarer words weigh more, and
    a sentence must carry at least half of the weight of those the report mentions at all), best
    first, the evidence's first; the topic words no sentence mentions are named."""
    out = FreeAnswer()
    words = [w for w in dict.fromkeys(re.findall(r"[\w-]+", question)) if question_terms(w) & topic_terms(question)]
    if not words:
        out.add("The question names no topic the report's sources could be searched for; ask about a population, "
                "an outcome, a design or a study by its title.")
        return out
    by_key = {_key(t): w for w in words for t in question_terms(w)}
    order = [v["id"] for v in ev.evidence + ev.read]
    # (doc, index, sentence, the sentence's own keys, the keys only its document's title adds), each
    # sentence's and title's keys read once
    sentences: list[tuple[str, int, str, set[str], set[str]]] = []
    for d in order:
        if (doc := ev.docs.get(d)) is not None:
            title = _keys(doc.title)
            sentences += [(d, i, s, own, title - own) for i, s in enumerate(doc.sentences) for own in [_keys(s)]]
    n = max(1, len(sentences))
    df = {k: sum(k in own or k in title for *_, own, title in sentences) for k in by_key}
    idf = {k: math.log((n + 1) / (0.5 + df[k])) for k in by_key if df[k]}
    missing = [by_key[k] for k in by_key if not df[k]]
    said = " or ".join(f"'{w}'" for w in dict.fromkeys(missing))
    if not idf:
        out.add(f"The report's sources say nothing on that: no sentence of {ev.its_documents} "
                f"mentions {said}. " + ev.evidence_line())
        return out
    need = 0.5 * sum(idf.values())
    evidence_ids = {v["id"] for v in ev.evidence}
    scored = []
    for rank, (d, i, s, own, title) in enumerate(sentences):
        # a word the sentence itself names weighs fully, one only its document's title names half
        weight = sum(w for k, w in idf.items() if k in own) + 0.5 * sum(w for k, w in idf.items() if k in title)
        if weight > 0 and weight >= need - 1e-9:
            scored.append((d not in evidence_ids, -weight, rank, d, i, s))
    scored.sort()
    views = {v["id"]: v for v in ev.views}
    per_doc: dict[str, int] = {}
    picked: list[tuple[bool, float, int, str, int, str]] = []
    for row in scored:  # at most two sentences of one document, so that one title does not fill the answer
        per_doc[row[3]] = per_doc.get(row[3], 0) + 1
        if per_doc[row[3]] <= 2 and len(picked) < limit:
            picked.append(row)
    if not picked:
        named = " or ".join(f"'{w}'" for w in words)
        out.add(f"The report's sources say nothing on that: no sentence of {ev.its_documents} "
                f"is about {named}. " + ev.evidence_line())
        return out
    if not ev.evidence:
        out.add(ev.evidence_line()[:-1] + "; what the documents it read say on that:")
    else:
        out.add("What the report's sources say on that:")
    for *_, d, i, s in picked:
        out.add(f'- {ev.labelled(views[d])}: "{s}"', [str(SentenceKey.sentence(d, i))])
    if missing:
        out.add(f"No sentence of the report's documents mentions {said}.")
    return out
