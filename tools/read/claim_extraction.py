"""A whole text (a press release, an abstract, a draft answer) split into atomic claims, each tied
to the exact span of the text it came from and judged check-worthy or not, with the reason.

Rules carry the weight, because the embedded model is small:

1. Sentences and their offsets come from `tools.text.segmenter.sentence_spans`; a structured abstract's
   heading ("RESULTS") is left out of the span.
2. A sentence is split into atomic claims where two clauses with a verb each are joined by ";",
   ", but", ", whereas", ", while" or ", and"; each part keeps its own sub-span.
3. Check-worthiness by rules: a question, an opinion or recommendation (evaluative words,
   "we believe", "should"), a plan ("we will", "plans to"), a definition ("is defined as"), the
   study's own method or aim ("We enrolled 300 adults") and a fragment (a heading, no verb) are not
   check-worthy; every other statement is a factual claim about the world that evidence could settle.
4. Wording: a quote's attribution ('", said Dr Lee') and a reporting frame ("We found that") are
   left out; a claim that starts with a reference to what came before ("It", "They", "The drug")
   gets the subject of the sentence before it (rules), and, when an LLM is given, the model's
   rewrite (`prompts/resolve_claim.py`), kept only when it adds no word that is in neither the
   sentence nor its context and keeps the sentence's own words. The model never decides a span.

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
from claimscope.tools.text.segmenter import sentence_spans, without_section_label

# Words a statement needs to be a claim (fewer is a heading or a fragment).
MIN_CLAIM_WORDS = 4
# Share of the sentence's own terms a model rewrite must keep.
MIN_KEPT_TERMS = 0.75

Category = Literal["factual", "opinion", "plan", "definition", "question", "method", "fragment"]

REASONS: dict[str, str] = {
    "factual": "a factual statement about the world that published evidence could support or refute",
    "opinion": "an opinion, a judgement or a recommendation, which evidence cannot settle",
    "plan": "a plan or an intention, not a statement about the world as it is",
    "definition": "a definition of a word, true by convention rather than by evidence",
    "question": "a question, which asserts nothing",
    "method": "describes the study's own aim or method, not a finding about the world",
    "fragment": "not a statement (a heading or a fragment without a verb)",
}


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


# ------------------------------------------------------------------------------ check-worthiness

_OPINION = re.compile(
    r"\b(?:i|we) (?:(?:strongly |firmly )?(?:think|believe|feel|hope|expect)|(?:are|am) (?:delighted|excited|thrilled|"
    r"proud|pleased|happy|confident))\b|\bin (?:my|our) (?:view|opinion)\b|\b(?:should|ought to|must)\b|"
    r"\b(?:exciting|remarkable|amazing|wonderful|terrible|groundbreaking|ground-breaking|game[- ]changer|"
    r"incredible|fantastic|unacceptable|outrageous|disgraceful|shameful|brilliant|breakthrough|revolutionary|"
    r"best|worst)\b|\bit is (?:clear|obvious|time)\b",
    re.I,
)
_PLAN = re.compile(
    r"\b(?:we|i|our (?:team|group|lab)|the (?:team|company|university|government|ministry|researchers|authors))"
    r"(?: \w+)? (?:will|plans? to|intends? to|aims? to|(?:are|is) going to|hopes? to)\b|"
    r"\b(?:plans? to|intends? to|is going to|are going to)\b|"
    r"\bwill be (?:launched|started|conducted|recruiting|published|rolled out|tested|opened|presented)\b|"
    r"^(?:future|further|next) (?:studies|research|work|steps?|trials?)\b",
    re.I,
)
_DEFINITION = re.compile(
    r"\b(?:is|are) (?:defined|described) as\b|\brefers? to\b|\b(?:is|are) (?:also )?(?:known|called) as\b|"
    r"\bstands for\b|\bis (?:a|the) (?:term|name) (?:for|given to)\b|\bby definition\b",
    re.I,
)
_AIM = re.compile(
    r"^(?:the|our) (?:aim|objective|purpose|goal)s? (?:of|was|were|is)\b|"
    r"^(?:to|we aimed to|we sought to|this study aimed to|this study sought to) "
    r"(?:assess|determine|evaluate|investigate|examine|compare|explore|test|estimate|describe|quantify)\b",
    re.I,
)
_METHOD = re.compile(
    r"^(?:we|this (?:study|trial|review)|the (?:study|trial|review|authors|researchers|investigators))\b[^.]*?\b"
    r"(?:conducted|performed|recruited|enrolled|randomi[sz]ed|analy[sz]ed|collected|searched|surveyed|"
    r"interviewed|followed|included|measured|used|designed|carried out|reviewed|identified|screened)\b|"
    r"\b(?:were|was) (?:randomi[sz]ed|randomly assigned|assigned|enrolled|recruited|included|followed up|"
    r"measured|assessed|interviewed|surveyed|screened)\b",
    re.I,
)
# A method sentence that also states a result is a finding ("We enrolled 300 adults and found ...").
_RESULT = re.compile(
    r"\b(?:found|find|showed|shows|show|demonstrated|revealed|suggests?|indicated?|concluded?|reduced|"
    r"increased|decreased|lowered|improved|prevented|caused|associated|linked)\b",
    re.I,
)


def judge(text: str) -> tuple[Category, str]:
    """The category of one claim's wording and the reason it is (or is not) check-worthy."""
    words = re.findall(r"[A-Za-z0-9][\w'’\-]*", text)
    stripped = text.strip().strip("\"'“”‘’")
    if stripped.endswith("?"):
        return "question", REASONS["question"]
    if len(words) < MIN_CLAIM_WORDS:
        return "fragment", REASONS["fragment"]
    if _DEFINITION.search(text):
        return "definition", REASONS["definition"]
    if _PLAN.search(stripped):
        return "plan", REASONS["plan"]
    if _OPINION.search(text):
        return "opinion", REASONS["opinion"]
    if not claim_components(text).relation and (len(words) < 8 or not stripped.endswith((".", "!"))):
        return "fragment", REASONS["fragment"]
    if _AIM.search(stripped) or (_METHOD.search(stripped) and not _RESULT.search(stripped)):
        return "method", REASONS["method"]
    return "factual", REASONS["factual"]


# ----------------------------------------------------------------------------- atomic splitting

_CLAUSE_JOIN = re.compile(r";\s+(?:however,?\s+)?|,\s+(?:but|whereas|while|and)\s+|\s+whereas\s+", re.I)


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sub-spans of the sentence at [start, end) that each hold a clause with its own verb; the
    whole sentence when a part would have no verb or too few words."""
    sentence = text[start:end]
    cuts = [(m.start(), m.end()) for m in _CLAUSE_JOIN.finditer(sentence)]
    if not cuts:
        return [(start, end)]
    parts: list[tuple[int, int]] = []
    begin = 0
    for cut_start, cut_end in cuts:
        parts.append((begin, cut_start))
        begin = cut_end
    parts.append((begin, len(sentence)))

    def is_clause(a: int, b: int) -> bool:
        piece = sentence[a:b]
        return len(piece.split()) >= MIN_CLAIM_WORDS and bool(claim_components(piece).relation)

    if not all(is_clause(a, b) for a, b in parts):
        return [(start, end)]
    return [(start + a, start + b) for a, b in parts]


# ------------------------------------------------------------------------------------ wording

_ATTRIBUTION = re.compile(r"^[\"“](.+?)[,.]?[\"”],?\s+(?:said|says|added|adds|explained|noted|notes|told)\b.*$", re.S)
_QUOTED = re.compile(r"^[\"“](.+?)[\"”]\.?$", re.S)
_REPORTING = re.compile(
    r"^(?:(?:we|the (?:authors|researchers|investigators)|our (?:results|findings|data|analysis)|"
    r"(?:these|the|this) (?:results|findings|data|study|trial|analysis|review|meta-analysis)|researchers|"
    r"scientists|experts)\s+(?:\w+ )?(?:found|find|showed|show|shows|demonstrated|demonstrate|demonstrates|"
    r"suggested|suggest|suggests|indicated|indicate|indicates|concluded|conclude|report|reported|reports|"
    r"revealed|reveal|reveals|confirmed|confirm|confirms|observed)\s+that\s+)",
    re.I,
)
_REFERENCE = re.compile(
    r"^(?:it|they|this|these|those|such|the same)(?:\s+(?:drug|drugs|treatment|treatments|therapy|vaccine|vaccines|"
    r"compound|supplement|supplements|intervention|approach|method|effect|finding|findings|result|results|"
    r"medication|medicine|product|programme|program|policy|change|measure))?\b|"
    r"^the\s+(?:drug|treatment|therapy|vaccine|compound|supplement|intervention|medication|medicine|product|"
    r"programme|program|policy)\b",
    re.I,
)
_CONNECTIVE = re.compile(r"^(?:but|and|whereas|while|however|moreover|furthermore|also|in addition|additionally|"
                         r"overall|importantly|notably|in fact)\b,?\s*", re.I)


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
    text = _REPORTING.sub("", text)
    text = _CONNECTIVE.sub("", text)
    return _finish(text)


def needs_context(claim: str) -> bool:
    """Whether the claim starts with a reference to something named before it."""
    return bool(_REFERENCE.match(claim))


def rule_resolution(claim: str, previous: str | None) -> str | None:
    """The claim with its leading reference replaced by the subject of the previous statement, or
    None when that statement has no usable subject (no verb, or a subject that is itself a reference)."""
    if not previous:
        return None
    parts = claim_components(wording(previous))
    subject = parts.subject.strip(" ,")
    m = _REFERENCE.match(claim)
    if m is None or not parts.relation or not subject or needs_context(subject) or len(subject.split()) > 10:
        return None
    if subject.split()[0].lower() in ("we", "i", "you", "our"):
        return None
    return _finish(subject + claim[m.end():])


def _model_resolution(llm: StructuredLLM, claim: str, context: str) -> str | None:
    """The model's self-contained wording, or None when it fails or does not hold to the text."""
    try:
        out = llm.run(rp.PROMPT, rp.ResolveClaimInput(context=context, sentence=claim))
    except LLMError:
        return None
    return accepted_rewrite(out.claim, claim, context)


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
    previous: str | None = None  # the last statement, for resolving references
    context: list[str] = []  # the sentences before, for the model
    for s_start, s_end in sentence_spans(text):
        raw = text[s_start:s_end]
        label = len(raw) - len(without_section_label(raw))
        s_start += label + (len(raw[label:]) - len(raw[label:].lstrip()))
        for start, end in _clauses(text, s_start, s_end):
            quote = text[start:end]
            claim = wording(quote)
            category, reason = judge(claim)
            resolved: Literal["none", "rules", "model", "person"] = "none"
            if category == "factual" and needs_context(claim):
                by_rule = rule_resolution(claim, previous)
                by_model = _model_resolution(llm, claim, " ".join(context[-2:])) if llm and context else None
                if by_model is not None:
                    claim, resolved = by_model, "model"
                elif by_rule is not None:
                    claim, resolved = by_rule, "rules"
                else:
                    warnings.append(f"claim c{len(claims) + 1} ({claim!r}) refers to something named before it "
                                    "and could not be made to read alone: edit it before it is checked.")
            claims.append(ExtractedClaim(
                id=f"c{len(claims) + 1}", text=claim, start=start, end=end, quote=quote,
                check_worthy=category == "factual", category=category, reason=reason, resolved_by=resolved,
            ))
            if category not in ("fragment", "question"):
                previous = claim
        context.append(" ".join(raw.split()))
    if not any(c.check_worthy for c in claims):
        warnings.append("no check-worthy claim was found in the text: every sentence reads as an opinion, a plan, "
                        "a definition, a question, the study's own method or a fragment.")
    return ClaimExtraction(claims=claims, warnings=warnings)
