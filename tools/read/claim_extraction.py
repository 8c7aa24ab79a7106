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
4. Wording (`tools.read.claim_wording`): a quote's attribution ('", said Dr Lee') and a reporting frame ("We found that", "It
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

from claimscope.tools.errors import InputError
from claimscope.tools.llm import StructuredLLM
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.claim_wording import (
    FINDING_VERB,
    LIST_MARK,
    context_reference,
    finished,
    model_resolution,
    named_groups,
    named_letters,
    named_referent,
    needs_context,
    pronoun_referent,
    rule_resolution,
    wording,
)
from claimscope.tools.read.claim_worthiness import (
    MIN_CLAIM_WORDS,
    REASONS,
    Category,
    has_verb,
    is_aim,
    judge,
    states_result,
)
from claimscope.tools.text.segmenter import sentence_spans, without_section_label


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
    # The grammar may read a leading phrase's adjective as the verb ("At lower concentrations, X can ...").
    lead = re.match(r"(?:at|in|on|for|from|with|by|after|before|during|among|under|over|within)\b[^,]{0,80},\s*(?=\S)",
                    clause, re.I)
    parts = claim_components(clause[lead.end():] if lead else clause)
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
    return finished(f"{head[:aux.end()]} not{head[aux.end():]} {tail}")


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
        # ", but did not improve ..." continues the subject before it: a shared-subject cut below; so does ", and
        # had ..." after a single clause ("X were older, and had longer ..."), not after a series of predicates.
        joined = m.group(0).strip(" ,").lower()
        if _SHARED_SUBJECT.match(head, m.start()) and (joined.startswith("but") or (
                joined.startswith("and") and not any(c < m.start() for c in commas))):
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
                    claim, resolved = finished(f"{subject} {claim[:1].lower()}{claim[1:]}"), "rules"
                category, reason = judge(claim)
                # The items of an aim's list ("we investigated if: (a) ... (b) ...") are aims too, and so is
                # the rest of a hypothesis ("It was hypothesized that A would improve, and B would increase").
                if claims and claims[-1].category == "method" and (
                        LIST_MARK.match(quote) or (claims[-1].start >= s_start and is_aim(claims[-1].text)
                                                    and not FINDING_VERB.search(claim))):
                    category, reason = "method", REASONS["method"]
                # The rest of a method or sample clause that lends it its subject ("Children were included if
                # ..., and were not on a gluten-free diet") is method or sample too, unless it words a result.
                if subject and claims and claims[-1].start >= s_start and claims[-1].category in ("method", "sample") \
                        and category == "factual" and not states_result(claim):
                    category, reason = claims[-1].category, claims[-1].reason
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
    by_model = model_resolution(llm, claim, " ".join(context[-2:])) if llm and context else None
    if by_model is not None:
        return by_model, "model", "factual", REASONS["factual"]
    if by_rule is not None:
        return by_rule, "rules", "factual", REASONS["factual"]
    return claim, resolved, "context", REASONS["context"]
