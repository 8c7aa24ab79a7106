"""Claim analysis: what kind of claim it is, its existence sub-claims, its opposite, and the
sub-claim passage filter (RAG + NLI + sub-claims; Tan et al.'s anti-claim).

- Comparative / conjunctive / disjunctive claims are detected by rules and split into existence
  sub-claims ("There exists information about whether aspirin is effective for headache."), by the
  LLM when one is given, by rules otherwise or when it fails. Simple claims pass through unchanged.
- The anti-claim (the claim's opposite, a second query everywhere the claim is queried) comes from
  the LLM, with a rule-based negation when the LLM fails or returns something unusable.
- `filter_passages` keeps passages that the stance model says support (entail) at least one
  sub-claim, the union over sub-claims, and falls back to every passage when none does.

Everything here works without an LLM (llm=None): the rules are the documented fallback, not a
separate mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from claimscope.prompts import anti_claim as anti_claim_prompt
from claimscope.prompts import decompose as decompose_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import SegmentHit, StanceScorer

MIN_CLAIM_CHARS = 10
MIN_CLAIM_WORDS = 3
MAX_CLAIM_CHARS = 1000
# Share of the claim's content words an LLM anti-claim must keep to be accepted as its opposite.
MIN_ANTI_CLAIM_OVERLAP = 0.4
SUB_CLAIM_PREFIX = decompose_prompt.PREFIX


# ------------------------------------------------------------------------------------- claim kind


class ClaimKind(StrEnum):
    """What kind of evidence a claim calls for.

    EMPIRICAL claims state a relation that studies measure ("Coffee lowers the risk of type 2
    diabetes"): evidence names both ends of the relation (tools.coverage) and reports a finding.
    DEBATE claims say what ought to be done or how something should be judged ("Vaccination must
    be made compulsory"): they are argued from consequences and values, so evidence is an argument
    that bears on the claim without repeating it (tools.argument)."""

    EMPIRICAL = "empirical"
    DEBATE = "debate"


# Obligation, permission and recommendation: what a policy or value claim asserts.
_NORMATIVE = re.compile(
    r"\b(should|shouldn't|ought|must|mustn't|shall|needs? to|has to|have to|deserves?|obligation|"
    r"(is|are|was|were|would be|be) (not )?(morally |ethically |really |actually )?(justified|unjustified|justifiable|"
    r"unjustifiable|immoral|moral|unethical|ethical|fair|unfair|wrong|acceptable|unacceptable|desirable|"
    r"undesirable|legitimate|illegitimate|a scam|a waste|a violation|tantamount|"
    r"a (good|bad) idea|(a )?good for|(a )?bad for|a force for|better than|worse than|a human right|a right|"
    r"worth)|right to|better off|it is (good|bad|wrong|right|crucial|essential|important) to)\b",
    re.IGNORECASE,
)
# Base-form verbs that open a proposal ("Ban sunbeds", "Make all museums free of charge").
_PROPOSAL_VERBS = frozenset(
    """abolish adopt allow ban build cap close cut end enforce expand fund give grant impose institute introduce
    keep legalise legalize let limit lower make nationalise nationalize outlaw permit place privatise privatize
    prohibit protect provide put raise regulate reinstate remove replace require restrict scrap stop subsidise
    subsidize tax throw treat abandon boycott bring create establish extend increase leave reduce reform
    return withdraw""".split()
)
# A proposal verb followed by one of these is a noun ("Increase of p62 ...", "Return to work ...").
_NOUN_AFTER = frozenset("of in on at to is was are were for with by".split())


def detect_claim_kind(claim: str) -> ClaimKind:
    """DEBATE for a normative claim (an obligation or permission modal, a moral or value verdict,
    or a sentence opening with a proposal verb such as "Ban ..."), EMPIRICAL otherwise. Checked
    on PERSPECTRUM and SciFact TRAIN claims by `python -m evals.claim_kind`."""
    text = " ".join(claim.split())
    if _NORMATIVE.search(text):
        return ClaimKind.DEBATE
    words = _WORD.findall(text)
    if (len(words) > 1 and words[0].lower() in _PROPOSAL_VERBS and words[0][0].isupper()
            and words[1].lower() not in _NOUN_AFTER):
        return ClaimKind.DEBATE
    return ClaimKind.EMPIRICAL


class ClaimType(StrEnum):
    """How a claim is built; anything but SIMPLE is decomposed into sub-claims."""

    SIMPLE = "simple"
    COMPARATIVE = "comparative"
    CONJUNCTIVE = "conjunctive"
    DISJUNCTIVE = "disjunctive"


class ClaimAnalysis(BaseModel):
    """The analysed claim: its type, sub-claims, anti-claim and the queries to run."""

    claim: str = Field(description="The claim, whitespace-normalised.")
    claim_type: ClaimType
    claim_kind: ClaimKind = Field(
        ClaimKind.EMPIRICAL, description="empirical (evidence reports a finding on the claim's relation) or "
        "debate (evidence argues for or against it); detected unless the caller chose.")
    sub_claims: list[str] = Field(description="Existence sub-claims; [claim] for a simple claim.")
    anti_claim: str = Field(description="The claim's opposite, queried alongside the claim.")
    anti_claim_source: Literal["llm", "rule"]
    queries: list[str] = Field(description="Search queries: the claim and the anti-claim.")
    warnings: list[str] = Field(default_factory=list, description="Fallbacks taken, for the run's warnings.")


class FilterResult(BaseModel):
    """Which passages survived the sub-claim filter, and whether the filter fell back to all."""

    model_config = {"arbitrary_types_allowed": True}

    kept_indices: list[int] = Field(description="Indices (into the input passages) of the kept passages.")
    kept: list[SegmentHit | str] = Field(description="The kept passages, in input order.")
    fell_back: bool = Field(description="True when no passage entailed a sub-claim and all were kept.")
    support: list[float] = Field(description="Per input passage: its best support probability over sub-claims.")
    best_sub_claim: list[int] = Field(description="Per input passage: index of the sub-claim it supports most.")


# --------------------------------------------------------------------------------------- validation


def validate_claim(claim: str) -> str:
    """The claim with whitespace normalised; InputError when it cannot be investigated."""
    if not isinstance(claim, str):
        raise InputError(f"the claim must be text, got {type(claim).__name__}.")
    text = " ".join(claim.split())
    if not text:
        raise InputError('the claim is empty: give a statement to investigate, e.g. "Vitamin D reduces fracture risk".')
    if len(text) > MAX_CLAIM_CHARS:
        raise InputError(
            f"the claim is too long ({len(text)} characters, limit {MAX_CLAIM_CHARS}): state one claim in a "
            "sentence or two; put background material into a corpus with `claimscope ingest`."
        )
    if len(text) < MIN_CLAIM_CHARS or len(_WORD.findall(text)) < MIN_CLAIM_WORDS:
        raise InputError(
            f"the claim {text!r} is too short: state a full claim with a subject and what is asserted about "
            'it, e.g. "Vitamin D reduces fracture risk".'
        )
    if not re.search(r"[A-Za-z]", text):
        raise InputError(f"the claim {text!r} contains no words: state the claim in words.")
    return text


# ------------------------------------------------------------------------------------ word lexicon

_WORD = re.compile(r"[A-Za-z0-9][\w'’\-]*")

_BE = {"is", "are", "was", "were"}
_MODALS = {"can", "could", "may", "might", "will", "would", "should", "must", "shall"}
_DO = {"does", "do", "did"}
_HAVE = {"has": "does", "have": "do", "had": "did"}
_AUX = _BE | _MODALS | _DO | set(_HAVE)
# Words after which a verb-looking word is a noun ("an increase in", "the rise of", "to reduce").
_NOUN_CONTEXT = {
    "a", "an", "the", "of", "to", "this", "that", "these", "those", "its", "their", "his", "her", "our",
    "no", "any", "each", "every", "in", "on", "for", "with", "by", "from", "into", "which", "who",
}
_PARTICIPLES = {
    "been", "shown", "found", "seen", "known", "given", "made", "done", "led", "had", "grown", "become",
    "taken", "proven", "driven", "risen", "fallen", "begun",
}

# Verbs claims are made with; every base form below gets its 3rd-person and past forms.
_VERB_BASES = """reduce increase decrease cause improve prevent lower raise lead result affect predict
protect promote inhibit induce enhance impair correlate contribute require produce trigger worsen
alleviate cure treat outperform exceed boost slow accelerate block suppress activate regulate mediate
modulate drive reverse delay shorten extend prolong elevate limit harm benefit help hurt kill save
create destroy reflect depend play contain show explain support need make work occur exist associate
link relate remain become appear seem correspond confer attenuate amplify mitigate decline rise grow
fall drop cut spread transmit stimulate restore stabilize stabilise target bind express encode control
determine influence damage disrupt facilitate lengthen counteract offset undermine
strengthen weaken confer mimic predispose sensitize sensitise resist respond reach provide yield
violate comply threaten reflect rely win lose vote favor favour oppose create generate emit absorb
warm cool melt kill infect spread replicate mutate evolve cross enter leave enable allow stop commit
cost pay earn spend live die suffer experience receive develop use consume eat drink take report
perform achieve attain reveal demonstrate indicate suggest confirm fail succeed repress interact
encourage impede trap deactivate translate metabolize antagonize vary consist act form permit compete
involve transport speed reinvigorate provoke offer aid catalyze suppress supress direct exacerbate
rescue degrade deregulate alter halt rearrange give modify recruit localize localise occupy
puncture accumulate migrate proliferate differentiate secrete cleave phosphorylate methylate silence
upregulate downregulate overexpress mediate persist recur cooperate synergize detect identify
""".split()
# Base forms that usually are nouns when they follow another verb ("increases use of").
_NOUN_LIKE = set(
    """use cut drop rise need help work show control support cost report experience damage link limit
    target benefit harm fall increase decrease spread drink yield offset delay result play influence
    block stop lead win vote pay take exist""".split()
)
_IRREGULAR_PAST = {
    "lead": "led", "drive": "drove", "grow": "grew", "fall": "fell", "rise": "rose", "make": "made",
    "cut": "cut", "spread": "spread", "become": "became", "hurt": "hurt", "win": "won", "lose": "lost",
    "bind": "bound", "leave": "left", "show": "showed", "drop": "dropped", "stop": "stopped",
    "slow": "slowed", "rely": "relied", "commit": "committed", "permit": "permitted", "occur": "occurred",
    "recur": "recurred", "control": "controlled", "trap": "trapped", "give": "gave",
}


def _third_person(base: str) -> str:
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def _past(base: str) -> str:
    if base in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[base]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


_VERB_FORMS: dict[str, tuple[str, Literal["3s", "base", "past"]]] = {}
for _b in _VERB_BASES:
    _VERB_FORMS.setdefault(_b, (_b, "base"))
    _VERB_FORMS.setdefault(_third_person(_b), (_b, "3s"))
    _VERB_FORMS.setdefault(_past(_b), (_b, "past"))


@dataclass(frozen=True, slots=True)
class _Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower().replace("’", "'")


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(text=m.group(0), start=m.start(), end=m.end()) for m in _WORD.finditer(text)]


def _is_verb(toks: list[_Tok], i: int) -> bool:
    """True if token i reads as a finite verb or auxiliary (never the first word, never after a
    determiner or preposition, where "increase"/"rise" are nouns)."""
    if i == 0:
        return False
    w = toks[i].low
    if w in _AUX:
        return True
    if w in _VERB_FORMS:
        return toks[i - 1].low not in _NOUN_CONTEXT
    return False


def _first_verb(toks: list[_Tok]) -> int | None:
    first_aux = next((i for i in range(1, len(toks)) if toks[i].low in _AUX), None)
    for i in range(len(toks)):
        if first_aux is not None and i < first_aux and _VERB_FORMS.get(toks[i].low, ("", ""))[1] == "past":
            # "Sepsis related mortality has remained": an -ed form before an auxiliary is adjectival.
            continue
        if _is_verb(toks, i):
            # "Minimum wage increases cause ...": of two verb-looking words in a row, the first is
            # part of the subject noun phrase.
            nxt = toks[i + 1].low if i + 1 < len(toks) else ""
            if toks[i].low not in _AUX and (
                nxt in _AUX or (_VERB_FORMS.get(nxt, ("", ""))[1] == "base" and nxt not in _NOUN_LIKE)
            ):
                continue
            return i
    return None


# ----------------------------------------------------------------------------------- claim types

_COMPARATIVE = re.compile(
    r"\b(?:than|compared\s+(?:to|with)|in\s+comparison\s+(?:to|with)|relative\s+to|versus|vs\.?"
    r"|outperforms?|outperformed|superior\s+to|inferior\s+to|non-?inferior\s+to|differs?\s+from"
    r"|different\s+from|the\s+same\s+as|as\s+(?!well\b)\w+(?:\s+\w+)?\s+as)\b",
    re.IGNORECASE,
)
# "more than 50%", "other than", "rather than" compare a quantity or exclude; no second entity.
_NOT_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|greater|higher|lower)\s+than\s+(?:\d|(?:a\s+(?:third|quarter|half|decade|year)|half|twice|double)\b)"
    r"|\b(?:other|rather)\s+than\b|\bmore\s+harm\s+than\s+good\b"
    # "stronger than expected": a comparison with an expectation, not with a second entity.
    r"|\bthan\s+(?:expected|anticipated|predicted|previously\s+(?:thought|reported|believed)|thought|assumed|usual|before)\b",
    re.IGNORECASE,
)
_DISJUNCTIVE = re.compile(r"\bor\b(?!\s+not\b)", re.IGNORECASE)
_NOT_DISJUNCTIVE = re.compile(r"\b(?:with\s+or\s+without|whether\s+or\s+not|more\s+or\s+less|or\s+so)\b", re.IGNORECASE)
_AND_SPLIT = re.compile(r"\s*,?\s+(?:and|as\s+well\s+as)\s+", re.IGNORECASE)
_OR_SPLIT = re.compile(r"\s*,?\s+(?:or)\s+", re.IGNORECASE)


def _conjuncts(text: str, splitter: re.Pattern[str]) -> list[str]:
    parts = [p.strip(" ,;") for p in splitter.split(text)]
    return [p for p in parts if p]


def detect_claim_type(claim: str) -> ClaimType:
    """Rule-based claim type. Comparisons win over 'or', 'or' over 'and'. 'and' / 'or' count only
    when they join predicates ("X raises A and lowers B", "X is downregulated or mutated") or
    claim-initial subjects ("Both X and Y cause Z", "Either X or Y protects"), never nouns inside a
    phrase ("Ca2+ and cAMP signalling", "between X and Y", "regional or distant metastases"),
    because splitting a noun phrase loses what the claim says."""
    text = " ".join(claim.split())
    if _COMPARATIVE.search(text) and not (
        _NOT_COMPARATIVE.search(text) and len(_COMPARATIVE.findall(text)) <= len(_NOT_COMPARATIVE.findall(text))
    ):
        return ClaimType.COMPARATIVE
    if _coordinated(text, _OR_SPLIT, "either"):
        return ClaimType.DISJUNCTIVE
    if _coordinated(text, _AND_SPLIT, "both"):
        return ClaimType.CONJUNCTIVE
    return ClaimType.SIMPLE


def _coordinated(text: str, splitter: re.Pattern[str], opener: str) -> bool:
    protected = _NOT_DISJUNCTIVE.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    parts = _conjuncts(protected, splitter)
    if len(parts) < 2:
        return False
    if re.match(rf"{opener}\b", text, re.IGNORECASE):
        return _first_verb(_tokens(parts[-1])) is not None
    first = _tokens(parts[0])
    v0 = _first_verb(first)
    if v0 is None:
        return False
    return any(_continues_predicate(p, first[v0].low) for p in parts[1:])


def _continues_predicate(part: str, head_verb: str) -> bool:
    """True if `part` starts with a verb that continues a predicate: a finite verb ("increases"),
    or a participle / base form after an auxiliary ("is downregulated or mutated", "does not
    repress X or exert Y")."""
    toks = _tokens(part)
    if not toks:
        return False
    w = toks[0].low
    if w in _AUX:
        return True
    form = _VERB_FORMS.get(w, ("", ""))[1]
    if form == "3s" or (form == "past" and head_verb not in _AUX):
        return True
    if w in _NOUN_LIKE:  # "the ownership and use of data"
        return False
    # After "is"/"has" only a participle continues ("is downregulated or mutated"); after
    # "does"/"may" only a base form ("may complicate X and lead to Y"). "is a strategy to
    # justify X and influence Y" coordinates infinitives inside the object instead.
    if head_verb in _BE or head_verb in _HAVE:
        return form == "past"
    if head_verb in _DO or head_verb in _MODALS:
        return form == "base"
    return False


# ---------------------------------------------------------------------------------- decomposition


def _existence(statement: str) -> str:
    body = statement.strip().rstrip(".!?;, ")
    return f"{SUB_CLAIM_PREFIX} whether {_lower_first(body)}."


def _lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym or a name-like mixed-case token."""
    m = _WORD.match(text)
    if not m:
        return text
    word = m.group(0)
    if word[:1].isupper() and word[1:] == word[1:].lower() and word.lower() in _COMMON_STARTS:
        return text[:1].lower() + text[1:]
    return text


_COMMON_STARTS = {
    "the", "a", "an", "there", "it", "this", "that", "these", "those", "both", "either", "higher",
    "lower", "high", "low", "increased", "decreased", "regular", "daily", "long-term", "short-term",
    "most", "many", "some", "all", "people", "patients", "children", "adults", "women", "men",
    "exposure", "treatment", "use", "consumption", "smoking", "exercise", "drinking",
}


def _rule_comparative(claim: str) -> list[str]:
    text = claim.strip().rstrip(".!?")
    m = _COMPARATIVE.search(text)
    if m is None:
        return [claim]
    left, right = text[: m.start()].strip(" ,"), text[m.end():].strip(" ,")
    marker = m.group(0).lower()
    # The second entity ends where its qualifier starts ("ibuprofen | for tension headache").
    q = re.search(
        r",|\s(?:for|in|at|on|among|when|during|after|before|with|within|across|against|regarding|due\s+to"
        r"|because|over|by|from|since|while|whereas)\b",
        right,
    )
    b_part, qual = (right[: q.start()].strip(), right[q.start():].strip()) if q else (right, "")
    b_part = b_part.strip(" ,")
    qual = (" " + qual.strip(" ,")) if qual.strip(" ,") else ""
    rtoks = _tokens(b_part)
    rv = _first_verb(rtoks)
    if rv is not None and _first_verb(_tokens(left)) is None:
        # "X compared to Y may indicate Z": the predicate follows the second item and is shared.
        predicate = b_part[rtoks[rv].start:] + qual
        b_part = b_part[: rtoks[rv].start].strip(" ,")
        if left and b_part:
            return [_existence(f"{left} {predicate}"), _existence(f"{b_part} {predicate}")]
    if not left or not b_part:
        return [claim]
    # "Evidence suggests that X is more effective than Y": compare inside the that-clause.
    that = [m for m in re.finditer(r"\bthat\s+", left)
            if (w := _tokens(left[: m.start()])) and _VERB_FORMS.get(w[-1].low, ("", ""))[1] in ("3s", "past")]
    if that:
        left = left[that[-1].end():]
    toks = _tokens(left)
    v = _first_verb(toks)
    if v is None or marker.startswith(("outperform", "superior", "inferior", "non")):
        subject = left[: toks[v].start].strip() if v is not None else left
        return [
            f"{SUB_CLAIM_PREFIX} {_lower_first(subject)}{qual}.",
            f"{SUB_CLAIM_PREFIX} {_lower_first(b_part)}{qual}.",
        ]
    subject = left[: toks[v].start].strip()
    predicate = left[toks[v].start:]
    predicate = re.sub(r"\b(?:much|far|significantly|substantially|slightly)\s+(?=more|less|fewer)", "", predicate, flags=re.I)
    predicate = re.sub(r"\b(?:more|less|fewer)\b\s*", "", predicate, flags=re.I).strip()
    as_as = re.fullmatch(r"as\s+(.+?)\s+as", marker)
    if as_as:  # "is as effective as": the compared property sits inside the marker
        predicate = f"{predicate} {as_as.group(1)}"
    if not subject or not predicate:
        return [claim]
    return [_existence(f"{subject} {predicate}{qual}"), _existence(f"{b_part} {predicate}{qual}")]


def _rule_split(claim: str, splitter: re.Pattern[str]) -> list[str]:
    text = claim.strip().rstrip(".!?")
    text = re.sub(r"^(?:both|either)\s+", "", text, flags=re.I)
    protected = _NOT_DISJUNCTIVE.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    parts = [p.replace("\u00a0", " ") for p in _conjuncts(protected, splitter)]
    if len(parts) < 2:
        return [claim]
    first = _tokens(parts[0])
    v0 = _first_verb(first)
    out: list[str] = []
    if v0 is None:
        # Coordinated subjects ("both smoking and obesity raise risk"): the last part holds the predicate.
        last = _tokens(parts[-1])
        vl = _first_verb(last)
        if vl is None:
            return [claim]
        predicate = parts[-1][last[vl].start:]
        subjects = [*parts[:-1], parts[-1][: last[vl].start].strip()]
        out = [_existence(f"{s} {_singular_predicate(s, predicate)}") for s in subjects if s]
        return _dedupe(out) if len(out) >= 2 else [claim]
    subject = parts[0][: first[v0].start].strip()
    # The auxiliary group ("is", "does not", "has been") is shared by participles / base forms.
    g = v0
    while g + 1 < len(first) and (first[g + 1].low in _AUX or first[g + 1].low in {"not", "been", "also"}):
        g += 1
    aux_group = parts[0][first[v0].start: first[g].end] if first[v0].low in _AUX else ""
    if v0 == len(first) - 1 and _continues_predicate(parts[-1], first[v0].low):
        # "X increases or decreases the risk": the object after the last verb is shared.
        last = _tokens(parts[-1])
        shared = parts[-1][last[0].end:].strip()
        parts = [f"{p} {shared}" if len(_tokens(p)) == (v0 + 1 if k == 0 else 1) else p for k, p in enumerate(parts)]
    out.append(_existence(parts[0]))
    for p in parts[1:]:
        w = _tokens(p)[0].low if _tokens(p) else ""
        finite = w in _AUX or _VERB_FORMS.get(w, ("", ""))[1] == "3s" or (
            _VERB_FORMS.get(w, ("", ""))[1] == "past" and first[v0].low not in _AUX
        )
        if not _continues_predicate(p, first[v0].low):
            out.append(_existence(p))  # a clause with its own subject
        elif finite or not aux_group:
            out.append(_existence(f"{subject} {p}" if subject else p))  # "X raises A and lowers B"
        else:
            out.append(_existence(f"{subject} {aux_group} {p}" if subject else p))  # "X is A-ed or B-ed"
    return _dedupe(out) if len(out) >= 2 else [claim]


def _singular_predicate(subject: str, predicate: str) -> str:
    """Agree a plural verb with one coordinated subject ("smoking and obesity increase" ->
    "smoking increases"); subjects ending in -s are taken as plural and left alone."""
    toks = _tokens(subject)
    if not toks or toks[-1].low.endswith("s"):
        return predicate
    m = _WORD.match(predicate)
    if m is None:
        return predicate
    verb, rest = m.group(0), predicate[m.end():]
    low = verb.lower()
    swap = {"are": "is", "were": "was", "have": "has", "do": "does"}
    if low in swap:
        return swap[low] + rest
    if _VERB_FORMS.get(low, ("", ""))[1] == "base":
        return _third_person(low) + rest
    return predicate


def rule_decompose(claim: str, claim_type: ClaimType) -> list[str]:
    """Rule-based existence sub-claims: one per compared item, conjunct or alternative."""
    if claim_type == ClaimType.COMPARATIVE:
        return _rule_comparative(claim)
    if claim_type == ClaimType.CONJUNCTIVE:
        return _rule_split(claim, _AND_SPLIT)
    if claim_type == ClaimType.DISJUNCTIVE:
        return _rule_split(claim, _OR_SPLIT)
    return [claim]


def _dedupe(items: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for s in items:
        key = " ".join(s.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _decompose(claim: str, claim_type: ClaimType, llm: StructuredLLM | None) -> tuple[list[str], str | None]:
    if claim_type == ClaimType.SIMPLE:
        return [claim], None
    if llm is None:
        return rule_decompose(claim, claim_type), None
    try:
        out = llm.run(decompose_prompt.PROMPT, decompose_prompt.DecomposeInput.model_validate({"claim": claim, "claim_type": claim_type.value}))
    except LLMError as exc:
        return rule_decompose(claim, claim_type), f"the LLM could not decompose the claim ({exc}); used the rule-based split"
    subs = _dedupe([s for s in out.sub_claims if _norm(s) != _norm(claim)])
    if len(subs) < 2:
        return rule_decompose(claim, claim_type), (
            f"the LLM gave {len(subs)} usable sub-claim(s) for a {claim_type.value} claim; used the rule-based split"
        )
    return subs, None


def decompose(claim: str, claim_type: ClaimType, llm: StructuredLLM | None) -> list[str]:
    """Existence sub-claims of a comparative / conjunctive / disjunctive claim (LLM, rule-based
    fallback); a SIMPLE claim passes through as [claim]."""
    return _decompose(claim, claim_type, llm)[0]


# ------------------------------------------------------------------------------------- anti-claim

_CONTRACTIONS = {
    "doesn't": "does", "don't": "do", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "hasn't": "has", "haven't": "have", "hadn't": "had", "can't": "can", "cannot": "can",
    "couldn't": "could", "won't": "will", "wouldn't": "would", "shouldn't": "should", "mustn't": "must",
    "mightn't": "might",
}
_NEGATED_AUX = re.compile(r"\b(does|do|did|is|are|was|were|has|have|had|can|could|may|might|will|would|should|must|shall)\s+not\b", re.I)
_CONTRACTED = re.compile(r"\b(" + "|".join(re.escape(c) for c in _CONTRACTIONS) + r")(?=\W|$)", re.I)
_CAN_NOT = re.compile(r"\bcan\s+not\b", re.I)
_FAILS = re.compile(r"\b(fails|failed|fail)\s+to\b", re.I)
_NEVER = re.compile(r"\s*\bnever\b", re.I)
_NO = re.compile(r"\bno\b(?!\s+longer\b)", re.I)
_NOT = re.compile(r"\s*\bnot\b", re.I)


def _case_like(word: str, model: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


# A negation after one of these belongs to a subordinate or contrasted clause, not the main one.
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:that|which|who|whom|whose|but|although|though|while|whereas|because|if)\b", re.I)


def _remove_negation(text: str) -> str | None:
    """The positive form of a claim whose main clause is negated, or None if it is not: a
    negation after a comma or a clause word ("..., not Y", "that is not", "but not") belongs to
    another clause, so "X may trigger Y, suggesting Z not captured" is negated as a positive claim."""
    norm = text.replace("’", "'")
    found: list[tuple[int, re.Match[str], Callable[[re.Match[str]], str]]] = []
    for rx, repl in (
        (_CAN_NOT, lambda m: _case_like("can", m.group(0))),
        (_NEGATED_AUX, lambda m: m.group(1)),
        (_CONTRACTED, lambda m: _case_like(_CONTRACTIONS[m.group(1).lower()], m.group(1))),
        (_FAILS, lambda m: _case_like({"fails": "does", "failed": "did", "fail": "do"}[m.group(1).lower()], m.group(1))),
        (_NEVER, lambda m: ""),
        (_NO, lambda m: _case_like("some", m.group(0))),
        (_NOT, lambda m: ""),
    ):
        m = rx.search(norm)
        if m is not None:
            found.append((m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m, repl))
    if not found:
        return None
    start, m, repl = min(found, key=lambda f: f[0])
    if _CLAUSE_BREAK.search(norm[:start]):
        return None
    return (norm[: m.start()] + repl(m) + norm[m.end():]).strip()


def negate_claim(claim: str) -> str:
    """Rule-based opposite of a claim: a negated claim loses its negation ("does not reduce" ->
    "does reduce", "no association" -> "some association"); otherwise the first finite verb is
    negated ("is" -> "is not", "can" -> "cannot", "increases" -> "does not increase", "reduced" ->
    "did not reduce"); a claim without a recognisable verb becomes "It is not the case that ..."."""
    text = " ".join(claim.split())
    if not text:
        raise InputError("cannot negate an empty claim.")
    positive = _remove_negation(text)
    if positive is not None:
        return positive
    toks = _tokens(text)
    i = _first_verb(toks)
    if i is not None:
        tok = toks[i]
        w = tok.low
        head, tail = text[: tok.start], text[tok.end:]
        if i + 1 < len(toks) and toks[i + 1].low in ("not", "never"):
            # "X, however, does not reduce Y": the main verb is negated after all.
            return (text[: toks[i + 1].start].rstrip() + text[toks[i + 1].end:]).strip()
        if w == "can":
            return f"{head}{_case_like('cannot', tok.text)}{tail}"
        if w in _BE or w in _MODALS or w in _DO:
            return f"{head}{tok.text} not{tail}"
        if w in _HAVE:
            nxt = toks[i + 1].low if i + 1 < len(toks) else ""
            if nxt in _PARTICIPLES or nxt.endswith("ed"):
                return f"{head}{tok.text} not{tail}"
            return f"{head}{_HAVE[w]} not have{tail}"
        base, form = _VERB_FORMS[w]
        aux = {"3s": "does", "base": "do", "past": "did"}[form]
        return f"{head}{aux} not {base}{tail}"
    body = text.rstrip(".!?")
    end = text[len(body):] or "."
    return f"It is not the case that {_lower_first(body)}{end}"


class ClaimComponents(BaseModel):
    """What a claim relates: its subject (the intervention, exposure or entity), the relation (the
    verb group) and its object (the outcome or property). Evidence must speak to both ends."""

    subject: str = Field(description="Text before the main verb, e.g. 'Vitamin D supplementation'.")
    relation: str = Field(description="The verb group, e.g. 'prevents', 'is associated with'; '' if none.")
    object: str = Field(description="Text after the verb group, e.g. 'respiratory infections'; '' if none.")


# Words a verb group may continue with before its object starts ("is not significantly associated with").
_VERB_GROUP = {"not", "never", "no", "longer", "been", "be", "being", "also", "often", "usually", "generally",
               "significantly", "strongly", "directly", "indirectly", "independently", "positively",
               "negatively", "inversely", "causally", "to", "with", "by", "in", "of", "on", "for", "from",
               "into", "than", "as", "at", "against"} | _PARTICIPLES


def claim_components(claim: str) -> ClaimComponents:
    """Split a claim at its main verb into subject / relation / object (rules, no LLM).

    "Coffee consumption lowers the risk of type 2 diabetes" -> ("Coffee consumption", "lowers",
    "the risk of type 2 diabetes"). A that-clause after a reporting verb is split instead ("Studies
    show that X reduces Y" -> X / reduces / Y). Without a recognisable verb the whole claim is the
    subject and the object is empty."""
    text = " ".join(claim.split()).rstrip(".!?")
    toks = _tokens(text)
    v = _first_verb(toks)
    if v is None:
        return ClaimComponents(subject=text, relation="", object="")
    end = v + 1
    while end < len(toks) and (toks[end].low in _VERB_GROUP or toks[end].low in _AUX
                               or (toks[end].low in _VERB_FORMS and _VERB_FORMS[toks[end].low][1] != "base"
                                   and toks[end].low not in _NOUN_LIKE)
                               or toks[end].low.endswith("ly")):
        end += 1
    if end < len(toks) and toks[end].low == "that" and end + 1 < len(toks):
        inner = claim_components(text[toks[end + 1].start:])
        if inner.relation:
            return inner
    subject = text[: toks[v].start].strip(" ,")
    last = toks[end - 1]
    relation = text[toks[v].start: last.end]
    obj = text[last.end:].strip(" ,") if end < len(toks) else ""
    if not subject:
        return ClaimComponents(subject=text, relation="", object="")
    return ClaimComponents(subject=subject, relation=relation, object=obj)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _anti_claim(claim: str, llm: StructuredLLM | None) -> tuple[str, Literal["llm", "rule"], str | None]:
    if llm is None:
        return negate_claim(claim), "rule", None
    try:
        out = llm.run(anti_claim_prompt.PROMPT, anti_claim_prompt.AntiClaimInput(claim=claim))
    except LLMError as exc:
        return negate_claim(claim), "rule", f"the LLM could not write the anti-claim ({exc}); used the rule-based negation"
    text = " ".join(out.anti_claim.split())
    if _norm(text) == _norm(claim) or len(_WORD.findall(text)) < MIN_CLAIM_WORDS:
        return negate_claim(claim), "rule", "the LLM's anti-claim repeated the claim or was empty; used the rule-based negation"
    if _content_overlap(claim, text) < MIN_ANTI_CLAIM_OVERLAP:
        # An opposite keeps the claim's subject and outcome; a small model sometimes drifts off topic.
        return negate_claim(claim), "rule", (
            f"the LLM's anti-claim {text!r} does not keep the claim's terms; used the rule-based negation"
        )
    return text, "llm", None


_STOPWORDS = {
    "the", "and", "that", "with", "from", "this", "these", "those", "than", "there", "their", "which",
    "does", "have", "been", "were", "into", "more", "less", "also", "such", "when", "only", "some",
}


def _content_words(text: str) -> set[str]:
    return {w for w in _norm(text).split() if len(w) > 3 and w not in _STOPWORDS}


def _content_overlap(claim: str, other: str) -> float:
    """Share of the claim's content words that `other` also uses (1.0 for a claim without any)."""
    words = _content_words(claim)
    if not words:
        return 1.0
    other_words = _content_words(other)
    # Crude stemming: "reduce" in the opposite matches "reduces" in the claim.
    hits = sum(1 for w in words if w in other_words or any(o[:5] == w[:5] for o in other_words if len(o) >= 5 and len(w) >= 5))
    return hits / len(words)


def anti_claim(claim: str, llm: StructuredLLM | None) -> tuple[str, Literal["llm", "rule"]]:
    """The claim's opposite and where it came from: the LLM, or the rule-based negation when there
    is no LLM, it raises LLMError, or it returns the claim itself."""
    text, source, _ = _anti_claim(validate_claim(claim), llm)
    return text, source


# --------------------------------------------------------------------------------------- analysis


def analyse_claim(claim: str, llm: StructuredLLM | None, *, kind: ClaimKind | None = None) -> ClaimAnalysis:
    """Validate the claim, detect its type and kind (unless `kind` is given), decompose it, write its
    anti-claim, list the queries.

    Raises InputError for an empty, too short or too long claim; LLM failures become rule-based
    fallbacks recorded in `warnings`.
    """
    text = validate_claim(claim)
    claim_type = detect_claim_type(text)
    warnings: list[str] = []
    subs, warn = _decompose(text, claim_type, llm)
    if warn:
        warnings.append(warn)
    anti, source, warn = _anti_claim(text, llm)
    if warn:
        warnings.append(warn)
    return ClaimAnalysis(
        claim=text,
        claim_type=claim_type,
        claim_kind=kind or detect_claim_kind(text),
        sub_claims=subs,
        anti_claim=anti,
        anti_claim_source=source,
        queries=_dedupe([text, anti]),
        warnings=warnings,
    )


# ------------------------------------------------------------------------------------------ filter


def _passage_text(p: SegmentHit | str) -> str:
    return p.segment.text if isinstance(p, SegmentHit) else p


def filter_passages(
    sub_claims: list[str],
    passages: list[SegmentHit | str],
    scorer: StanceScorer,
    threshold: float = 0.5,
) -> FilterResult:
    """Keep the passages whose support (entailment) probability for at least one sub-claim is
    >= threshold (union over sub-claims). When none reaches it, keep every passage and say so
    (fell_back=True): the RAG+NLI method falls back to the retrieved passages rather than to nothing.
    """
    if not sub_claims or not any(s.strip() for s in sub_claims):
        raise InputError("filter_passages needs at least one sub-claim; pass [claim] for a simple claim.")
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the entailment threshold must be between 0 and 1, got {threshold}.")
    subs = [s for s in sub_claims if s.strip()]
    if not passages:
        return FilterResult(kept_indices=[], kept=[], fell_back=False, support=[], best_sub_claim=[])
    texts = [_passage_text(p) for p in passages]
    pairs = [(s, t) for t in texts for s in subs]
    results = scorer.predict(pairs)
    if len(results) != len(pairs):
        raise ValueError(f"the stance scorer returned {len(results)} results for {len(pairs)} pairs")
    support: list[float] = []
    best: list[int] = []
    for i in range(len(texts)):
        row = [r.support for r in results[i * len(subs): (i + 1) * len(subs)]]
        j = max(range(len(row)), key=row.__getitem__)
        support.append(float(row[j]))
        best.append(j)
    kept = [i for i, s in enumerate(support) if s >= threshold]
    fell_back = not kept
    if fell_back:
        kept = list(range(len(passages)))
    return FilterResult(
        kept_indices=kept,
        kept=[passages[i] for i in kept],
        fell_back=fell_back,
        support=support,
        best_sub_claim=best,
    )
