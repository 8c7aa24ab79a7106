"""A whole text (a press release, an abstract, a draft answer) split into atomic claims, each tied
to the exact span of the text it came from and judged check-worthy or not, with the reason.

Rules carry the weight, because the embedded model is small:

1. Sentences and their offsets come from `tools.text.segmenter.sentence_spans`; a structured abstract's
   heading ("RESULTS", also one glued to the sentence before: "candidates.AIM: To ...") is split
   off and left out of every span, and two sentences glued without a space ("hospice.The") are two.
2. A sentence is split into atomic claims only at a clause boundary outside brackets where each
   piece has its own verb: ";", ", but", ", whereas", ", while", ", and" between two clauses with
   their own subjects, and "and"/"but" before a second verb of the same subject ("X occurred in 14%
   and was more common in females": the second claim gets the subject). A comment tail ("which
   warrants further study") is left out; an inference tail (", suggesting that X may Y") is a
   claim of its own. Each claim keeps its own sub-span.
3. Check-worthiness by rules: a question, an opinion or recommendation (evaluative words,
   "we believe", "should"), a plan ("will fund", "plans to"), a definition ("is defined as"), the
   study's own aim, method, design, setting or sample ("To compare ...", "We enrolled 300 adults",
   "Models were compared using ...", "A total of 3910 members received ...") and a fragment (a
   heading, no verb) are not check-worthy; counts that are findings ("169 of 321 patients had ...",
   "X occurred in 14%") are. Every other statement is a factual claim evidence could settle.
4. Wording: a quote's attribution ('", said Dr Lee') and a reporting frame ("We found that", "It
   was observed that", "This suggests that") are left out; a claim that starts with a reference to
   what came before ("It", "They", "The drug") gets the subject of the factual statement before it
   (rules), and, when an LLM is given, the model's rewrite (`prompts/resolve_claim.py`), kept only
   when it adds no word that is in neither the sentence nor its context and keeps the sentence's own
   words; "the two groups" becomes the two groups the text names ("Mosaic (n = 67) or Perimount (n
   = 72)"). A claim whose reference nothing resolves ("the sludge group", "these results", "its
   prognosis") is not checked as it stands: it is listed as needing context, for a person to edit.
   The model never decides a span.

Works without an LLM (llm=None): the rules are the documented fallback, not a separate mode.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import resolve_claim as rp
from claimscope.tools.errors import InputError
from claimscope.tools.find.sparse import tokenize
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.claim_worthiness import (
    MIN_CLAIM_WORDS,
    REASONS,
    Category,
    has_verb,
    is_aim,
    judge,
    subject_of,
)
from claimscope.tools.text.segmenter import sentence_spans, split_sentences, without_section_label

# Share of the sentence's own terms a model rewrite must keep.
MIN_KEPT_TERMS = 0.75


class ExtractedClaim(BaseModel):
    """One atomic claim of a text, where it is, and whether it is worth checking."""

    id: str = Field(description="'c1', 'c2', ... in text order.")
    text: str = Field(description="The claim as it reads alone (what is investigated).")
    start: int = Field(ge=0, description="Offset of the span it came from in the text.")
    end: int = Field(ge=0, description="End offset (exclusive) of that span.")
    quote: str = Field(description="The text's own words at [start, end).")
    check_worthy: bool
    category: Category
    reason: str = Field(description="Why it is (or is not) check-worthy, in plain words.")
    resolved_by: Literal["none", "rules", "model", "person"] = Field(
        "none", description="Who made the claim read alone: nobody needed to, the rules, the model, or a person's edit.")


class ClaimExtraction(BaseModel):
    """Every claim and non-claim of a text, in text order, with warnings for a reader."""

    claims: list[ExtractedClaim] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    @property
    def check_worthy(self) -> list[ExtractedClaim]:
        return [c for c in self.claims if c.check_worthy]


def validate_text(text: str, *, max_chars: int | None = None) -> str:
    """The text to check; a one-line InputError when there is nothing to check or it is longer
    than `max_chars` (the product's entry points pass the setting check.max_text_chars)."""
    if not isinstance(text, str):
        raise InputError(f"the text must be a string, got {type(text).__name__}.")
    if "\x00" in text:
        raise InputError("the text contains NUL bytes, as a binary file does: give plain text, Markdown or a PDF.")
    if not text.strip():
        raise InputError("the text is empty: give the text to check (a file, or '-' to read standard input).")
    if max_chars is not None and len(text) > max_chars:
        raise InputError(f"the text is too long ({len(text):,} characters, limit {max_chars:,}): check it "
                         "in parts, or ingest a whole paper as a corpus with `claimscope ingest`.")
    if not re.search(r"[A-Za-z]{2}", text):
        raise InputError("the text contains no words: give the text to check in English.")
    return text


# ----------------------------------------------------------------------------- atomic splitting

# Two sentences in one: a structured abstract's heading glued to the sentence before it
# ("candidates.AIM: To ...") or a missing space after a full stop ("hospice.The prescribing").
_GLUED = re.compile(r"(?<=[a-z0-9)\]'’\"”])\.(?=(?:[A-Z]{3,}(?:[ ,/&]+[A-Z]{3,})*\s*:)|[A-Z][a-z]+\s|"
                    r"[A-Z]{3,}/[A-Z/]*\s*$)")
# Two clauses with their own subjects.
_CLAUSE_JOIN = re.compile(
    r";\s+(?:however,?\s+|and\s+)?|,\s+(?:but|whereas|while|and|although)\s+|\s+whereas\s+|"
    r"\s+and\s+(?=there (?:was|were|is|are) )|"
    # "54.7% had serologic evidence of infection and 17.5% had hypertension"
    r"\s+and\s+(?=\d[\d.,]*\s*%\s+(?:of\s+\w+\s+)?(?:had|have|has|were|was|are|is|did|showed|developed|reported|"
    r"received|used)\b)|"
    # "... was not performed in our study and our long-term results demonstrate that ..."
    r"\s+and\s+(?=(?:we|our (?:[\w-]+ )?(?:results|findings|data|analysis|study)|the (?:results|findings|data))\s+"
    r"(?:\w+\s+)?(?:found|find|showed|show|shows|demonstrated|demonstrate|demonstrates|suggest|suggests|suggested|"
    r"indicate|indicates|indicated|confirm|confirms|confirmed|revealed|reveal|reveals)\b)", re.I)
# A sentence that opens with a subordinate clause of its own assertion ("Since warfarin requires regular
# monitoring, adherence to it is often poor"): two claims, the first without its conjunction.
_LEAD_CLAUSE = re.compile(r"^(?:since|although|though|even though|while|whereas)\s+", re.I)
# A list item before ", and" ("... length of hospital stay, and treatment duration differed"): the
# items share the predicate after the last one, so the comma is no clause boundary.
_LIST_JOIN = re.compile(r",\s+(?:and|or)\s+$", re.I)
# The opposite finding for another group, without a verb ("better for balance but not for memory",
# "benefit the patients with DFI>1 year, but not those with DFI <= 1 year").
_BUT_NOT = re.compile(r",?\s+but not\s+(?P<tail>(?:(?P<prep>for|in|on|with|among|at|after|during|from|of)|those)\b"
                      r"[^,;]*?)\.?$", re.I)
# A piece that opens with an adverb has no subject of its own ("more often had liver disease").
_NO_SUBJECT = re.compile(r"(?:more|less|most|also|then|often|still|frequently|usually|\w+ly)\b", re.I)
_AUXILIARY = re.compile(r"\b(?:was|were|is|are|could|can|may|might|would|will|did|does|do|has|have|had)\b", re.I)
_BEFORE_MAIN_VERB = re.compile(r"\b(?:who|which|that|when|if|after|before|because|since|while|whereas|where|not|no)\b",
                               re.I)
# "reduced X and increased Y" after a preposition is a list of noun phrases, not a second verb.
_PARTICIPLE_LIST = re.compile(r"\b(?:of|with|by|in|to|from|for|through|via|after|despite|without|and|or)\s+(?:\w+ly\s+)?(?:increased|decreased|reduced|"
                              r"improved|elevated|impaired|enhanced|lower|higher|greater)\s+[\w-]+(?:\s+[\w-]+)?$", re.I)
# A second verb of the same subject ("... occurred in 14% and was more common in females").
_SHARED_SUBJECT = re.compile(
    r",?\s+(?:and|but)\s+(?:(?:also|then|thereafter|not|still)\s+)?(?=(?:was|were|is|are|had|has|have|can|could|may|"
    r"might|did|does|do|remained|remains|showed|shows|increased|decreased|reduced|improved|caused|causes|led|leads|"
    r"resulted|results|occurred|occurs|appeared|appears|became|becomes|correlated|correlates|predicted|predicts)\b)",
    re.I)
# A comment on the finding, not part of it: left out of the claim.
_COMMENT_TAIL = re.compile(
    r",?\s+(?:which|this|and this|that)\s+(?:\w+\s+)?(?:warrants?|merits?|requires?|needs?|deserves?|calls? for|"
    r"should be|must be|is worth|needs to be)\b.*$|"
    # A recommendation drawn from the finding (", suggesting a need for closer observation ...").
    r",\s+(?:suggesting|indicating|highlighting|underscoring|emphasi[sz]ing)\s+(?:a|the)\s+(?:\w+\s+)?"
    r"(?:need|importance)\b.*$", re.I | re.S)
# An inference from the finding: a claim of its own.
_INFERENCE_TAIL = re.compile(r",?\s+(?:suggesting|indicating|implying|which suggests|which indicates|which implies|"
                             r"which demonstrates|which shows|demonstrating|showing)\s+that\s+", re.I)


def _depths(sentence: str) -> list[int]:
    """The bracket depth at each character of `sentence`."""
    depth, out = 0, []
    for ch in sentence:
        if ch in "([{":
            depth += 1
        out.append(depth)
        if ch in ")]}":
            depth = max(0, depth - 1)
    return out


def sentence_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentence at [start, end) cut where two sentences are glued together, each piece without
    a structured abstract's heading or the space around it."""
    out: list[tuple[int, int]] = []
    begin = start
    cuts = [start + m.end() for m in _GLUED.finditer(text[start:end])] + [end]
    for cut in cuts:
        raw = text[begin:cut]
        label = len(raw) - len(without_section_label(raw))
        a = begin + label + (len(raw[label:]) - len(raw[label:].lstrip()))
        b = begin + len(raw.rstrip())
        if b > a:
            out.append((a, b))
        begin = cut
    return out


# A piece that opens this way continues the clause before it.
_CONTINUATION = re.compile(r"(?:by|from|to|than|with|and|or|for)\b", re.I)


def _is_clause(piece: str, *, opening: bool = False) -> bool:
    """Whether `piece` holds a clause of its own: a subject before a verb (not the rest of a
    clause before it: "and by 44.2% of residents for patients discharged home"); an `opening`
    piece starts the sentence, so "For children with ..., X was lower" is a clause."""
    if not opening and _CONTINUATION.match(piece.strip()):
        return False
    return len(piece.split()) >= MIN_CLAIM_WORDS - 1 and has_verb(piece, with_subject=True)


def _own_subject(clause: str) -> str:
    """The subject of `clause` without a leading phrase ("From 191 articles, 43 studies met ..."
    -> "43 studies"), or "" when the grammar does not find a short one."""
    parts = claim_components(clause)
    subject = parts.subject.strip(" ,")
    if "," in subject:
        subject = subject.rsplit(",", 1)[1].strip()
    if not parts.relation or not subject or len(subject.split()) > 8 or has_verb(subject):
        return ""
    return subject


def _negated(claim: str, tail: str, prep: str | None) -> str | None:
    """The claim the elliptical "but not <tail>" after `claim` makes ("E was better for balance
    and mood" + "for memory" -> "E was not better for memory."), or None when the rules cannot
    build it without guessing (no auxiliary of the main clause, a negation already there)."""
    body = claim.rstrip(".")
    aux = _AUXILIARY.search(body)
    if aux is None or _BEFORE_MAIN_VERB.search(body, 0, aux.start()):
        return None
    if prep:
        at = [m.start() for m in re.finditer(rf"\s{re.escape(prep)}\s", body) if m.start() > aux.end()]
    else:  # "those with ..." stands for the noun phrase with the same preposition
        words = tail.split()
        link = words[1] if len(words) > 1 else ""
        found = list(re.finditer(rf"\s(?:the\s+)?(\w+)\s{re.escape(link)}\s", body)) if link else []
        found = [m for m in found if m.start() > aux.end()]
        if not found:
            return None
        at = [found[-1].start()]
        tail = f"the {found[-1].group(1)} {' '.join(words[1:])}"
    if not at:
        return None
    head = body[:at[-1]]
    return _finish(f"{head[:aux.end()]} not{head[aux.end():]} {tail}")


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int, str, str]]:
    """Sub-spans of the sentence at [start, end) that each hold a claim, with the subject a piece
    borrows from the clause before it ("" when it has its own) and the claim's wording where the
    rules build it (else ""); the whole sentence when a cut would leave a piece without its own
    verb. A comment tail is left out of every span."""
    sentence = text[start:end]
    tail = _COMMENT_TAIL.search(sentence)
    if tail and _is_clause(sentence[:tail.start()]):
        sentence = sentence[:tail.start()]
    depth = _depths(sentence)
    whole: list[tuple[int, int, str, str]] = [(start, start + len(sentence), "", "")]
    # The opposite finding at the end, a claim of its own when the rules can word it.
    opposite = _BUT_NOT.search(sentence)
    if opposite is not None and (depth[opposite.start()] or has_verb(opposite.group("tail"))
                                 or not _is_clause(sentence[:opposite.start()])):
        opposite = None
    if opposite is not None:
        sentence = sentence[:opposite.start()]
    cuts: list[tuple[int, int, str]] = []
    lead = _LEAD_CLAUSE.match(sentence)
    if lead is not None:
        for comma in (m.start() for m in re.finditer(r",\s", sentence) if depth[m.start()] == 0):
            if _is_clause(sentence[lead.end():comma]) and _is_clause(sentence[comma + 1:]):
                cuts.append((comma, comma + 2, "own"))
                break
        else:
            lead = None
    for m in _INFERENCE_TAIL.finditer(sentence):
        if depth[m.start()] == 0 and _is_clause(sentence[:m.start()]) and _is_clause(sentence[m.end():]):
            cuts.append((m.start(), m.end(), "own"))
            sentence_end = m.start()
            break
    else:
        sentence_end = len(sentence)
    head = sentence[:sentence_end]
    commas = [m.start() for m in re.finditer(r",", head) if depth[m.start()] == 0]
    for m in _CLAUSE_JOIN.finditer(head):
        # ", but did not improve ..." continues the subject before it: a shared-subject cut below.
        if m.group(0).strip(" ,").lower().startswith("but") and _SHARED_SUBJECT.match(head, m.start()):
            continue
        if depth[m.start()] == 0 and not any(a <= m.start() < b for a, b, _ in cuts):
            before = [c for c in commas if c < m.start()]
            item = head[before[-1] + 1:m.start()] if before else ""
            if _LIST_JOIN.match(head[m.start():m.end()]) and before and not has_verb(item):
                continue
            cuts.append((m.start(), m.end(), "own"))
    # Clauses in a series ("TT4 was reduced (p<0.05), free T3 was reduced ..., and TSH remained
    # unchanged"): the commas before a last ", and" that joins a clause join clauses too.
    ends = sorted([a for a, _, _ in cuts] + [len(head)])
    if any(_LIST_JOIN.match(head[a:b]) and _is_clause(head[b:next(e for e in ends if e > a)]) for a, b, _ in cuts):
        bounds = sorted({0, len(head), *commas, *(a for a, _, _ in cuts)})
        for c in commas:
            if any(a <= c < b for a, b, _ in cuts):
                continue
            i = bounds.index(c)
            left, right = head[bounds[i - 1]:c].strip(" ,;"), head[c + 1:bounds[i + 1]].strip(" ,;")
            if _is_clause(left) and _is_clause(right) and not _LEAD_CLAUSE.match(left) \
                    and not _NO_SUBJECT.match(right):
                cuts.append((c, c + 2 if head[c + 1:c + 2] == " " else c + 1, "own"))
    for m in _SHARED_SUBJECT.finditer(head):
        if depth[m.start()] == 0 and not any(a <= m.start() < b for a, b, _ in cuts) \
                and not _PARTICIPLE_LIST.search(head, 0, m.start()):
            # ", but did not ..." is a clause of its own even where the rules find no subject to lend it.
            cuts.append((m.start(), m.end(), "shared-but" if "but" in m.group(0).lower() else "shared"))
    if not cuts and opposite is None:
        return whole
    cuts.sort()
    pieces: list[tuple[int, int, str]] = []
    begin, borrowed = lead.end() if lead is not None else 0, ""
    for cut_start, cut_end, kind in cuts:
        pieces.append((begin, cut_start, borrowed))
        begin = cut_end
        borrowed = kind if kind.startswith("shared") else ""
    pieces.append((begin, len(sentence), borrowed))
    # A piece without its own verb ("and from 9.4 to 12.6 mmHg in the other group") stays with the
    # piece before it: the cut before it was not a clause boundary.
    merged: list[tuple[int, int, str]] = []
    for a, b, kind in pieces:
        piece = sentence[a:b].strip(" ,;")
        own = kind.startswith("shared") or _is_clause(piece, opening=not merged and a == 0)
        if merged and not own:
            merged[-1] = (merged[-1][0], b, merged[-1][2])
        elif not merged and not own:
            merged.append((a, b, "merge-next"))
        elif merged and merged[-1][2] == "merge-next":
            merged[-1] = (merged[-1][0], b, kind)
        else:
            merged.append((a, b, kind))
    if any(kind == "merge-next" for _, _, kind in merged):
        return whole
    out: list[tuple[int, int, str, str]] = []
    subject = ""
    for a, b, kind in merged:
        piece = sentence[a:b].strip(" ,;")
        if kind.startswith("shared"):
            if not subject or not claim_components(f"{subject} {piece}").relation:
                if kind == "shared":
                    return whole
                out.append((start + a, start + b, "", ""))
                continue
            out.append((start + a, start + b, subject, ""))
            continue
        subject = _own_subject(wording(piece))
        out.append((start + a, start + b, "", ""))
    if opposite is not None:
        a, b, borrowed, _ = out[-1]
        last = wording(text[a:b].rstrip(" ,;"))
        if borrowed:
            last = f"{borrowed} {last[:1].lower()}{last[1:]}"
        negated = _negated(last, opposite.group("tail"), opposite.group("prep"))
        if negated is None:
            return whole
        out.append((start + opposite.start() + len(opposite.group(0)) - len(opposite.group(0).lstrip(" ,")),
                    start + opposite.end(), "", negated))
    return out


# ------------------------------------------------------------------------------------ wording

_ATTRIBUTION = re.compile(r"^[\"“](.+?)[,.]?[\"”],?\s+(?:said|says|added|adds|explained|noted|notes|told)\b.*$", re.S)
_QUOTED = re.compile(r"^[\"“](.+?)[\"”]\.?$", re.S)
_REPORTING = re.compile(
    r"^(?:(?:we|the (?:authors|researchers|investigators)|our (?:[\w-]+ )?(?:results|findings|data|analysis)|"
    r"(?:these|the|this|our|present) (?:results|findings|data|study|trial|analysis|review|meta-analysis|"
    r"study's findings)|results|findings|data|researchers|"
    r"scientists|experts|this|these|which)\s+(?:\w+ )?(?:found|find|showed|show|shows|demonstrated|demonstrate|"
    r"demonstrates|suggested|suggest|suggests|indicated|indicate|indicates|concluded|conclude|report|reported|reports|"
    r"revealed|reveal|reveals|confirmed|confirm|confirms|observed|implies|imply|means)\s+that\s+|"
    r"it (?:was|is|has been|had been|can be|could be) (?:\w+ly )?(?:observed|found|shown|noted|seen|demonstrated|"
    r"concluded|estimated|reported|suggested|known|clear|evident|apparent|confirmed) that\s+|"
    r"(?:the|this|our|present) (?:study|analysis|trial|review|survey) (?:also )?(?:allows|allowed) us to "
    r"(?:determine|conclude|say|state|confirm|show) that\s+)",
    re.I,
)
_REFERENCE = re.compile(
    # "It is not proven that ..." is no reference.
    r"^(?:it(?!\s+(?:is|was)\s+(?:not\s+)?(?:\w+\s+)?(?:that|to|whether)\b)|they|this|these|those|such|the same)"
    r"(?:\s+(?:drug|drugs|treatment|treatments|therapy|vaccine|vaccines|"
    r"compound|supplement|supplements|intervention|approach|method|effect|finding|findings|result|results|"
    r"medication|medicine|product|programme|program|policy|change|measure))?\b|"
    r"^the\s+(?:drug|treatment|therapy|vaccine|compound|supplement|intervention|medication|medicine|product|"
    r"programme|program|policy)\b",
    re.I,
)
_CONNECTIVE = re.compile(r"^(?:but|and|whereas|while|however|moreover|furthermore|also|in addition|additionally|"
                         r"overall|importantly|notably|in fact)\b,?\s*", re.I)


# References a claim cannot be read without, wherever they stand in it ("between the two groups",
# "in the sludge group", "these results", "its prognosis").
_CONTEXT = re.compile(
    r"\b(?:the two|both(?: the)?|the other two|the three|all three|either) (?:groups?|arms?|cohorts?|bioprosthes[ie]s|"
    r"treatments|drugs|interventions|conditions|procedures|methods|techniques|devices|valves|regimens|populations|"
    r"samples|strategies|approaches|tests|scores|periods|sexes|genders)\b|"
    r"\bthe (?!entire|overall|total|whole study|study)(?-i:[a-z][\w-]* ){0,2}?(?:group|arm|cohort)\b"
    r"(?!\s+(?:with|of|who|that|receiving|treated|given|taking|in which|where)\b|\s*\(n\s*=)|"
    r"\b(?:these|those|such) (?:[\d,]+ )?(?:results|findings|data|patients|subjects|participants|cases|groups|effects|changes|"
    r"differences|associations|observations|values|outcomes|models|children|women|men|individuals|animals|mice)\b|"
    # ("Our data showed no difference ..." reports a finding: a frame, not a reference.)
    r"\b(?:our|the present|the current|this) (?:findings|results|data|series|sample|cohort)\b(?!\s+(?:\w+\s+)?"
    r"(?:showed|show|shows|demonstrated|demonstrate|demonstrates|suggest|suggests|suggested|indicate|indicates|"
    r"indicated|revealed|reveal|reveals|confirm|confirms|confirmed)\b)|"
    # "The second goal", "this presumption", "The results were consistent across sexes", "after the
    # interventions", "no other complications", "In our experience this is ...".
    r"\bthe (?:first|second|third|former|latter) (?:goal|aim|objective|group|arm|cohort|approach|method|option|"
    r"procedure|strategy|one)\b|"
    r"\b(?:this|these) (?:presumption|assumption|hypothesis|notion|view|idea|mechanism|phenomenon|phenomena|approach|"
    r"strategy|technique|procedure|practice|pattern|trend)\b|"
    r"^the (?:results|findings|data|observations)\b(?!\s+(?:of|from|in|on)\b)|"
    r"\bthe interventions?\b(?!\s+(?:of|with|for|in|to|group|arm)\b)|"
    r"\b(?:no|any) other (?:complications?|adverse events?|side effects?|differences?|changes?)\b|"
    r"^(?:in|for|from|with|on) [^,]{1,40}?,?\s+(?:this|these|it|they)\s+(?:is|are|was|were|does|do|did|has|have|"
    r"had|can|may|might|could|would|will|remains?)\b|"
    # A pronoun after a preposition ("adherence to it"), the authors ("We observed ..."), a difference
    # between groups the claim does not name.
    r"\b(?:to|with|for|on|from|by|about|against|in) (?:it|them)\b|"
    r"^(?:(?:in|for|from|with|on|at|after|before|during|among|by|overall|here|thus|therefore|however|moreover|"
    r"finally|also)\b[^,.;]{0,80}?,?\s+)?we\b|"
    r"\bbetween (?:the )?groups\b|^there (?:was|were) no (?:[\w-]+ )?differences?\s*(?:\(|[.;]?$)|"
    r"\bthe (?:association|difference|relationship|correlation|effect|trend|increase|decrease|reduction|"
    r"same pattern|latter|former|rest|remaining \w+)\b(?!\s+(?:of|between|in|from|with|on|to|for)\b)|"
    r"^(?:its|their|both|the same|the other|the whole group|in the other|of these|of them|such)\b|"
    r"^in (?:the other|both|these|those|them|this group|each group)\b",
    re.I,
)
# Groups a text names with their size ("Mosaic (n = 67) or Perimount (n = 72)"), for "the two groups".
_NAMED_GROUP = re.compile(r"([A-Za-z][\w-]*)\s*\(n\s*=\s*[\d,]+\)")
_TWO_GROUPS = re.compile(r"\b(?:the two|both(?: the)?) (groups|arms|cohorts|bioprosthes[ie]s|treatments|drugs|devices|"
                         r"valves|sexes|genders)\b", re.I)


def context_reference(claim: str) -> str | None:
    """The words of `claim` that refer to something named elsewhere in the text, or None."""
    m = _REFERENCE.match(claim) or _CONTEXT.search(claim)
    return m.group(0) if m else None


def named_groups(claim: str, before: str) -> str | None:
    """`claim` with "the two groups" replaced by the two groups the text before it names with
    their sizes, or None when the text names no such pair."""
    m = _TWO_GROUPS.search(claim)
    if m is None:
        return None
    for sentence in reversed(split_sentences(before)):
        names = list(dict.fromkeys(n for n in _NAMED_GROUP.findall(sentence)
                                   if n.lower() not in ("cohort", "total", "all", "patients", "overall")))
        if len(names) == 2:
            return _finish(claim[:m.start()] + f"the {names[0]} and {names[1]} {m.group(1).lower()}" + claim[m.end():])
    return None


_THESE_NOUN = re.compile(r"\b(?:these|those|such) (?:[\d,]+ )?(patients|subjects|participants|children|women|men|individuals|"
                         r"cases|animals|mice)\b", re.I)
_THE_ASSOCIATION = re.compile(r"\b(?:the|this|that) association\b(?!\s+(?:of|between)\b)", re.I)
_ASSOCIATED = re.compile(r"(?:association between (?P<a>[^,(;]+?) and (?P<b>[^,(;]+?)(?=\s*(?:\(|,|;|\.|$|"
                         r"remained|was|is|were|are|in\b))|^(?:[^,]*,\s*)?(?P<c>[^,(;]+?) (?:was|is|were|are) "
                         r"(?:\w+ly )?associated with (?P<d>[^,(;]+?)(?=\s*(?:\(|,|;|\.|$|but\b|and\b)))", re.I)


def named_referent(claim: str, before: list[str]) -> str | None:
    """`claim` with "these patients" or "the association" replaced by what the statements
    `before` it name ("endomyocardial fibrosis patients", "the association between X and Y"), or
    None when they name nothing that fits."""
    m = _THESE_NOUN.search(claim)
    if m is not None:
        noun = m.group(1).lower()
        for statement in reversed(before[-3:]):
            subject = subject_of(statement)
            if subject.lower().endswith(" " + noun) and len(subject.split()) <= 6 and not _CONTEXT.search(subject):
                return _finish(claim[:m.start()] + subject[:1].lower() + subject[1:] + claim[m.end():]) \
                    if m.start() else _finish(subject + claim[m.end():])
        return None
    m = _THE_ASSOCIATION.search(claim)
    if m is not None:
        for statement in reversed(before[-4:]):
            found = _ASSOCIATED.search(statement.rstrip("."))
            if found:
                a, b = (found.group("a"), found.group("b")) if found.group("a") else (found.group("c"), found.group("d"))
                phrase = f"the association between {a.strip()} and {b.strip()}"
                return _finish(claim[:m.start()] + phrase + claim[m.end():])
    return None


# A piece that reports a finding after an aim in the same sentence ("We hypothesized X, and found Y").
_FINDING_VERB = re.compile(r"\b(?:found|find|finds|showed|shows|observed|demonstrated|revealed|confirmed)\b", re.I)
_LIST_MARK = re.compile(r"^\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})\)\s+")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _finish(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:")
    return _capitalised(text if text.endswith((".", "!", "?")) else text + ".")


def wording(quote: str) -> str:
    """A claim's wording from its words in the text: without quote marks and attribution, a
    reporting frame ("We found that") or a leading connective ("However,")."""
    text = " ".join(quote.split())
    m = _ATTRIBUTION.match(text) or _QUOTED.match(text)
    if m:
        text = m.group(1).strip()
    text = _LIST_MARK.sub("", text)
    text = _CONNECTIVE.sub("", text)
    text = _REPORTING.sub("", text)
    text = _CONNECTIVE.sub("", text)
    return _finish(text)


def needs_context(claim: str) -> bool:
    """Whether the claim starts with a reference to something named before it."""
    return bool(_REFERENCE.match(claim))


_STATEMENT_NOUNS = {"finding", "findings", "result", "results", "effect", "change", "measure", "approach", "method"}
# A possessive that opens the claim ("Their activation in neuronal death ...") and a pronoun after a
# preposition ("adherence to it is often poor").
_POSSESSIVE = re.compile(r"^(?P<pronoun>its|their)\s+(?P<noun>[a-z][\w-]*)\b", re.I)
_OBJECT_PRONOUN = re.compile(r"\b(?:to|with|for|on|from|by|about|against|in) (?P<pronoun>it|them)\b", re.I)
# A group the text names by a letter it defines ("supervised exercise (E)", "usual care (C)").
_LETTER = re.compile(r"(?-i:\b[A-Z]\b)(?![.\-'’])")
_NOT_IN_NAME = {"to", "the", "a", "an", "and", "or", "with", "of", "in", "on", "by", "for", "versus", "vs", "were",
                "was", "assigned", "received", "randomized", "randomised", "allocated", "group", "groups", "either"}


def pronoun_referent(claim: str, near: list[str]) -> str | None:
    """`claim` with an opening "Its"/"Their" + noun or a pronoun after a preposition replaced by
    the subject of the factual statement just before it ("Their activation" -> "The activation of
    FoxO transcription factors", "adherence to it" -> "adherence to warfarin"), when that subject
    is short and agrees in number; else None."""
    if not near:
        return None
    subject = subject_of(wording(near[-1]))
    if "," in subject:
        subject = subject.rsplit(",", 1)[1].strip()
    if not subject or len(subject.split()) > 8 or context_reference(subject) or \
            subject.split()[0].lower() in ("we", "i", "you", "our", "there", "here", "it", "they"):
        return None
    head = subject.split()[-1] if not subject.endswith(")") else subject.rsplit("(", 1)[0].split()[-1]
    plural = head.lower().endswith("s") and not head.lower().endswith(("ss", "us", "is"))
    lower = subject if any(ch.isupper() for ch in subject.split()[0][1:]) else subject[:1].lower() + subject[1:]
    m = _POSSESSIVE.match(claim)
    if m is not None:
        if plural != (m.group("pronoun").lower() == "their"):
            return None
        return _finish(f"The {m.group('noun')} of {lower}{claim[m.end():]}")
    found = list(_OBJECT_PRONOUN.finditer(claim))
    if len(found) != 1 or plural != (found[0].group("pronoun").lower() == "them"):
        return None
    m = found[0]
    return _finish(claim[:m.start("pronoun")] + lower + claim[m.end("pronoun"):])


def named_letters(claim: str, before: str) -> str | None:
    """`claim` with each group named by a letter replaced by what the text before it names with
    that letter in brackets ("Compared with C, E was better" -> "Compared with usual care,
    supervised exercise was better"), or None when it names no letter of the claim so (a letter
    it does not define, such as the gene T, stays)."""
    out, changed = claim, False
    for letter in dict.fromkeys(_LETTER.findall(claim)):
        defined = list(re.finditer(r"((?:[A-Za-z][\w'-]*\s+){1,4})\(" + letter + r"\)", before))
        if not defined:
            continue
        words = defined[-1].group(1).split()
        while words and (words[0].lower() in _NOT_IN_NAME or any(ch.isdigit() for ch in words[0])):
            words = words[1:]
        if not words:
            return None
        out = re.sub(r"(?-i:\b" + letter + r"\b)(?![.\-'’])", " ".join(words), out)
        changed = True
    return _finish(out) if changed else None


def rule_resolution(claim: str, previous: str | None) -> str | None:
    """The claim with its leading reference replaced by the subject of the previous statement, or
    None when that statement has no usable subject (no verb, or a subject that is itself a reference)."""
    if not previous:
        return None
    subject = subject_of(wording(previous))
    if "," in subject and subject.split()[0].lower() in ("in", "after", "before", "among", "for", "during", "of"):
        subject = subject.rsplit(",", 1)[1].strip()
    m = _REFERENCE.match(claim)
    if m is None or not subject or needs_context(subject) or len(subject.split()) > 15:
        return None
    # A bare "This" or "These" names the finding before it, not that finding's subject; so do "These
    # findings" and "This effect" ("These findings may inform ..." is not about the subject before).
    words = m.group(0).lower().split()
    if m.group(0).lower() in ("this", "these", "those", "such", "the same") or (
            words[0] in ("this", "these", "those", "such") and words[-1] in _STATEMENT_NOUNS):
        return None
    # Only a reference that is the whole subject ("It lowers ...", not "These models were ...").
    own = [w for w in subject_of(claim).lower().split()
           if not (w.endswith("ly") or w in ("also", "then", "still", "further", "again", "both", "all", "too"))]
    if own != m.group(0).lower().split():
        return None
    if subject.split()[0].lower() in ("we", "i", "you", "our", "there", "here"):
        return None
    return _finish(subject + claim[m.end():])


def _model_resolution(llm: StructuredLLM, claim: str, context: str) -> str | None:
    """The model's self-contained wording, or None when it fails, does not hold to the text or
    still needs context."""
    try:
        out = llm.run(rp.PROMPT, rp.ResolveClaimInput(context=context, sentence=claim))
    except LLMError:
        return None
    rewrite = accepted_rewrite(out.claim, claim, context)
    return rewrite if rewrite is not None and context_reference(rewrite) is None else None


def accepted_rewrite(rewrite: str, claim: str, context: str) -> str | None:
    """`rewrite` (finished as a sentence) when it holds to the text: each of its terms is in the
    claim or the context, it keeps most of the claim's own terms, and it no longer starts with a
    reference; else None."""
    rewrite = _finish(rewrite)
    allowed = set(tokenize(claim)) | set(tokenize(context))
    terms = tokenize(rewrite)
    if not terms or any(t not in allowed for t in terms) or needs_context(rewrite):
        return None
    m = _REFERENCE.match(claim)
    own = set(tokenize(claim[m.end():] if m else claim))
    if own and len(own & set(terms)) / len(own) < MIN_KEPT_TERMS:
        return None
    return rewrite


# ------------------------------------------------------------------------------------ entry point

def extract_claims(text: str, llm: StructuredLLM | None = None, *, max_chars: int | None = None) -> ClaimExtraction:
    """Every atomic claim of `text` with its span and check-worthiness (rules), resolved to read
    alone (rules, then the model when `llm` is given and its rewrite holds to the text); a text
    longer than `max_chars` is refused."""
    text = validate_text(text, max_chars=max_chars)
    claims: list[ExtractedClaim] = []
    warnings: list[str] = []
    facts: list[str] = []  # the factual statements so far, for resolving references
    context: list[str] = []  # the sentences before, for the model
    current: list[str] = []  # the factual statements of this sentence, then of the one before
    for sentence_start, sentence_end in sentence_spans(text):
        for s_start, s_end in sentence_pieces(text, sentence_start, sentence_end):
            raw = text[s_start:s_end]
            before_this, current = current, []
            for start, end, subject, built in _clauses(text, s_start, s_end):
                quote = text[start:end].rstrip(" ,;")
                end = start + len(quote)
                claim = built or wording(quote)
                resolved: Literal["none", "rules", "model", "person"] = "rules" if built else "none"
                if subject:
                    claim, resolved = _finish(f"{subject} {claim[:1].lower()}{claim[1:]}"), "rules"
                category, reason = judge(claim)
                # The items of an aim's list ("we investigated if: (a) ... (b) ...") are aims too, and so is
                # the rest of a hypothesis ("It was hypothesized that A would improve, and B would increase").
                if claims and claims[-1].category == "method" and (
                        _LIST_MARK.match(quote) or (claims[-1].start >= s_start and is_aim(claims[-1].text)
                                                    and not _FINDING_VERB.search(claim))):
                    category, reason = "method", REASONS["method"]
                lettered = named_letters(claim, text[:s_start]) if category == "factual" else None
                if lettered is not None:
                    claim, resolved = lettered, "rules"
                if category == "factual" and context_reference(claim):
                    claim, resolved, category, reason = _resolve(claim, resolved, facts, context, text[:s_start],
                                                                 llm, before_this + current)
                    if category == "context":
                        warnings.append(f"claim c{len(claims) + 1} ({claim!r}) refers to something named elsewhere "
                                        "in the text and could not be made to read alone: edit it if it should be "
                                        "checked.")
                claims.append(ExtractedClaim(
                    id=f"c{len(claims) + 1}", text=claim, start=start, end=end, quote=quote,
                    check_worthy=category == "factual", category=category, reason=reason, resolved_by=resolved,
                ))
                if category == "factual":
                    facts.append(claim)
                    current.append(claim)
            context.append(" ".join(raw.split()))
    if not any(c.check_worthy for c in claims):
        warnings.append("no check-worthy claim was found in the text: every sentence reads as an opinion, a plan, "
                        "a definition, a question, the study's own method or sample, a fragment, or needs context.")
    return ClaimExtraction(claims=claims, warnings=warnings)


def _resolve(claim: str, resolved: Literal["none", "rules", "model", "person"], facts: list[str],
             context: list[str], before: str, llm: StructuredLLM | None, near: list[str] | None = None
             ) -> tuple[str, Literal["none", "rules", "model", "person"], Category, str]:
    """A claim that refers to something named before it, made to read alone by the text's own
    words (the groups it names, the subject of the statement before, the model's rewrite), or
    marked as needing context. `near`: the factual statements of this sentence and the one before."""
    by_groups = named_groups(claim, before) or named_referent(claim, facts) or pronoun_referent(claim, near or [])
    if by_groups is not None and context_reference(by_groups) is None:
        return by_groups, "rules", "factual", REASONS["factual"]
    by_rule = rule_resolution(claim, facts[-1] if facts else None) if needs_context(claim) else None
    if by_rule is not None and context_reference(by_rule) is not None:
        by_rule = None
    by_model = _model_resolution(llm, claim, " ".join(context[-2:])) if llm and context else None
    if by_model is not None:
        return by_model, "model", "factual", REASONS["factual"]
    if by_rule is not None:
        return by_rule, "rules", "factual", REASONS["factual"]
    return claim, resolved, "context", REASONS["context"]
