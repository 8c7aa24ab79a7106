"""Facets of a claim found by rules, not by the model's world knowledge.

A small model asked for a claim's aspects names generic topics of the field ("genetic
predisposition", "statistical analysis"). A scientist examining "Women with a lower birth weight
are more likely to develop breast cancer later in life" asks how the claim's parts were studied:
in whom (menopausal status), how birth weight was measured (records or recall), at which levels
(high vs low, dose-response), against what comparison, adjusted for what, over what time. So a
facet here is a question about one part of the claim's relation (`claim_components`), and it is
kept only where the on-claim evidence speaks to it: its defining terms are the words of that kind
the on-claim segments actually use ("premenopausal", "self-reported"), and at least one on-claim
segment must use them. Contrasts the evidence draws (pre- / post- / peri-X) become facets of their
own ("menopausal status"). The rules name them too: readers found the small model's names circular
or at odds with the facet.

A segment belongs to a facet when it names the claim's exposure and uses one of the facet's terms
about it (`belongs`), and it is shown under the facet only when it states a finding: a study's aim,
method or background sentence (`tools.read.claim_worthiness.is_finding`) is never shown under an aspect.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.hierarchy.terms import (
    _STOPWORDS,
    _clip,
    _dedupe,
    _jaccard,
    _ordered_terms,
)
from claimscope.tools.read.hierarchy.tree import DESCRIPTION_CHARS, NAME_CHARS, AspectDraft

log = logging.getLogger(__name__)

def _pattern(term: str) -> re.Pattern[str]:
    # Whole words, with plural / hyphen variants ("records", "self reported").
    parts = [re.escape(p) for p in re.split(r"[\s\-]+", term.lower()) if p]
    return re.compile(r"\b" + r"[\s\-]?".join(parts) + r"(?:e?s)?\b")


def mentions(text: str, terms: Sequence[str]) -> bool:
    """Whether `text` uses one of a facet's defining `terms` (whole words; plural and hyphen
    variants count)."""
    low = text.lower()
    return any(_pattern(t).search(low) for t in terms if t.strip())


class Facet(BaseModel):
    """A facet of the claim the on-claim evidence speaks to."""

    kind: str = Field(description="One of FACET_KINDS.")
    name: str = Field(description="The rule's name for it.")
    description: str
    terms: list[str] = Field(description="Defining terms the on-claim segments use, most frequent first.")
    segments: list[int] = Field(description="Indices of the on-claim segments that belong to it (`belongs`).")


FACET_KINDS = ("contrast", "population", "exposure_measure", "exposure_level", "comparator", "outcome_type",
               "adjustment", "time", "mechanism")
# Kinds whose terms are values a finding is split by (premenopausal / postmenopausal, records / recall);
# the other kinds' terms are wordings of one thing ("adjusted", "confounders") and are not split.
VALUE_KINDS = frozenset({"contrast", "population", "exposure_measure", "exposure_level", "outcome_type"})
# A measurement or level word is about the claim's exposure only next to it ("self-reported birth
# weight", "birth weight from records"); elsewhere in the sentence it is about something else ("serum
# IgE ... and activated basophils", "most errors occurred when giving bolus doses").
NEAR_WORDS = 4
_NEAR_KINDS = frozenset({"exposure_measure", "exposure_level"})


class ClaimParts(BaseModel):
    """The claim's relation read for facets: who, what exposure or intervention, what outcome, and
    the mechanism the claim names ("... by regulating membrane raft functions")."""

    population: str = ""
    exposure: str
    outcome: str
    mechanism: str = ""


_GROUP_SPLIT = re.compile(r"^(?P<who>[\w\s\-]+?)\s+(?:with|who|whose|taking|receiving|given|on|exposed to)\s+(?P<rest>.+)$", re.I)
_LEADING_SETTING = re.compile(r"^(?:in|among|for)\s+(?P<who>[^,]{3,80}),\s*(?P<rest>.+)$", re.I)
_OUTCOME_LEAD = re.compile(
    r"^(?:(?:are|is|be)\s+)?(?:(?:more|less|much more|much less)\s+likely\s+to\s+(?:develop|have|get|experience|die of|"
    r"suffer from|be)\s+|(?:the\s+)?(?:risk|rates?|odds|incidence|chance|likelihood|occurrence)\s+of\s+|"
    r"(?:an?\s+)?(?:increased|decreased|higher|lower|reduced)\s+(?:risk|rates?|odds|incidence)\s+of\s+)", re.I)
_TIME_TAIL = re.compile(r"\s+(?:later in life|in later life|in adulthood|in childhood|over time|in the long term|"
                        r"in old age|at \w+ age|after \d+ \w+|within \d+ \w+)$", re.I)
_LEVEL = re.compile(r"^(?:an?\s+|the\s+)?(?:lower|higher|low|high|increased|decreased|reduced|greater|"
                    r"more|less|elevated)\s+", re.I)
_UNREAD = "the exposure"
# Words that cannot stand for a claim's exposure on their own (a parse that stopped too early).
_NOT_HEADS = frozenset("prior current remote recent previous new use uses usage".split())


def claim_parts(claim: str) -> ClaimParts:
    """The population, exposure (or intervention) and outcome of `claim`, by rules on its split
    into subject / relation / object. A leading setting ("In young adults, X ...") is the population."""
    text = " ".join(claim.split())
    population = ""
    if m := _LEADING_SETTING.match(text):
        population, text = m.group("who").strip(), m.group("rest").strip()
    parts = claim_components(text)
    subject = parts.subject.strip()
    if m := _GROUP_SPLIT.match(subject):
        population, subject = m.group("who").strip(), m.group("rest").strip()
    exposure = _LEVEL.sub("", subject).strip() or subject
    if not [w for w in _ordered_terms(exposure) if w not in _NOT_HEADS]:
        # The split stopped inside the exposure ("patients with prior | use of ..."): name it plainly.
        exposure = _UNREAD
    outcome = parts.object.strip()
    for _ in range(2):
        outcome = _OUTCOME_LEAD.sub("", outcome).strip()
    outcome = _TIME_TAIL.sub("", outcome).strip() or parts.object.strip()
    outcome = re.sub(r"^(?:the|a|an)\s+", "", outcome, flags=re.I)
    mechanism = ""
    if m := _MECHANISM.search(outcome):
        outcome, mechanism = outcome[: m.start()].strip(" ,"), m.group("how").strip(" ,.")
    return ClaimParts(population=population, exposure=exposure or parts.subject, outcome=outcome or parts.object,
                      mechanism=mechanism)


_MECHANISM = re.compile(r"\s*,?\s+(?:by|through|via|mediated by|by way of)\s+(?P<how>.{4,})$", re.I)
# Words of a mechanism clause that name no thing ("regulating membrane raft functions" -> membrane, raft).
_MECHANISM_FILLER = frozenset("function functions role roles activity activities level levels process processes "
                              "pathway pathways mechanism mechanisms".split())


def _mechanism_terms(mechanism: str) -> list[str]:
    return [w for w in _ordered_terms(mechanism)
            if w not in _MECHANISM_FILLER and not w.endswith("ing") and len(w) >= 4]


def _stem(word: str) -> str:
    return (word[:-1] if len(word) > 4 and word.endswith("s") else word)[:5]


def _anchors(parts: ClaimParts) -> tuple[set[str], set[str]]:
    """Stems of the exposure's and of the outcome's content words (none for an exposure not read)."""
    exposure = "" if parts.exposure == _UNREAD else parts.exposure
    return ({_stem(w) for w in _ordered_terms(exposure) if w not in _NOT_HEADS},
            {_stem(w) for w in _ordered_terms(parts.outcome)})


def belongs(text: str, kind: str, terms: Sequence[str], claim: str) -> bool:
    """Whether a finding `text` is about a facet of `claim`: it names the claim's exposure (two of its
    word stems, or its only one), uses one of the facet's `terms`, and for a measurement or level
    facet the term stands within NEAR_WORDS words of the exposure (or the outcome), so it qualifies the
    claim's relation and not some other thing the sentence names."""
    if not mentions(text, terms):
        return False
    exposure, outcome = _anchors(claim_parts(claim))
    low = text.lower()
    # The finding names the claim's exposure, not one word of it ("first birth" is not birth weight).
    if exposure and sum(1 for a in exposure if a in low) < min(2, len(exposure)):
        return False
    if kind not in _NEAR_KINDS:
        return True
    anchors = exposure | outcome
    words = re.findall(r"[a-z][a-z0-9\-]*", low)
    at = [i for i, w in enumerate(words) if _stem(w) in anchors]
    if not at:
        return False
    low = " ".join(words)
    for t in terms:
        for m in _pattern(t).finditer(low):
            i = len(low[: m.start()].split())
            j = i + len(m.group(0).split()) - 1
            # "high birth weight" names the exposure itself; "records" must stand next to it.
            if any(i - NEAR_WORDS <= a <= j + NEAR_WORDS for a in at):
                return True
    return False


# Words of each kind a scientist looks for in the evidence (whole words, plurals allowed).
_LEXICON: dict[str, tuple[str, ...]] = {
    "population": ("children", "schoolchildren", "infants", "adolescents", "adults", "older adults", "elderly",
                   "girls", "boys", "women", "men", "pregnant", "smokers", "nonsmokers", "never smokers",
                   "obese", "overweight", "caucasians", "african americans", "asians", "hispanics",
                   "european", "chinese", "japanese", "twins", "siblings", "veterans", "nurses", "mice", "rats"),
    "exposure_measure": ("self-reported", "recall", "recalled", "questionnaire", "interview",
                         "records", "recorded", "registry", "register", "birth certificates", "medical records",
                         "assay", "validated", "diary", "objectively"),
    "exposure_level": ("dose-response", "dose", "dosage", "quartile", "quintile",
                       "tertile", "decile", "nonlinear", "u-shaped", "j-shaped", "threshold",
                       "per unit", "high-dose", "low-dose"),
    "comparator": ("placebo", "control group", "controls", "versus", "compared with", "compared to",
                   "reference group", "unexposed", "usual care", "no treatment", "nonuse", "non-users"),
    "adjustment": ("adjusted", "adjustment", "adjusting", "confounding", "confounders", "confounder",
                   "covariates", "multivariable", "multivariate", "independent of", "controlling for",
                   "gestational age", "socioeconomic", "sensitivity analysis"),
    "time": ("follow-up", "followed up", "adulthood", "childhood", "long-term", "short-term", "duration",
             "early-onset", "late-onset", "age at diagnosis", "latency", "years later", "lifetime"),
}
_CONTRAST = re.compile(r"\b(pre|post|peri|non)[\s\-]?([a-z]{5,})\b")
_LEVEL_WORDS = r"(?:very\s+)?(?:high|low|higher|lower|highest|lowest|increasing|decreasing|elevated|reduced)"
# Modifiers that name no kind of the outcome ("common mental health", "complex inflammatory response").
_GENERIC = frozenset(
    """common complex important significant major minor new novel potential possible overall total general
    other various several many different specific such similar same certain main key further additional
    increased decreased reduced elevated high low higher lower greater overall previous prior current
    subsequent early late risk rate rates level levels incidence development""".split()
)
# A kind of an outcome is named by an adjective or a hyphenated qualifier ("invasive", "ductal",
# "er-positive", "fatal"), not by a verb or a noun the pattern happened to catch ("protects").
_ADJECTIVE = re.compile(r"^(?:[a-z]+-[a-z]+|[a-z]+(?:al|ic|ive|ous|ary|ar|ent|ant|ile|oid|less))$")


def _value_key(term: str) -> str:
    # One key for the wordings of one value: "high" / "higher" / "highest", "records" / "recorded".
    # "high birthweight" and "higher birth weight" too: the words are joined after their endings go.
    return "".join(re.sub(r"(?:est|er|ed|ing|s)$", "", w) for w in re.findall(r"[a-z0-9]+", term.lower()))


def _distinct_values(terms: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for t in _dedupe(terms):
        key = _value_key(t)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _clean(text: str, words: int = 5) -> str:
    """`text` lower-cased when it reads as a short phrase; "" for a long or unread part (a split that
    went wrong would write "the groups in whom ... and rise to cell types from all ... were studied")."""
    text = " ".join(text.split())
    return text.lower() if text and text != _UNREAD and len(text.split()) <= words else ""


def _rule_name(kind: str, parts: ClaimParts, terms: Sequence[str], root: str = "") -> tuple[str, str]:
    exposure, outcome = _clean(parts.exposure), _clean(parts.outcome)
    what = exposure or "the exposure"
    rel = f"{exposure} and {outcome}" if exposure and outcome else "the claim"
    shown = ", ".join(_distinct_values(terms)[:3])
    table = {
        "contrast": (f"{root} status", f"Whether the findings on {rel} differ by {root} status ({shown})."),
        "population": ("population studied", f"Who the findings on {rel} are about ({shown})."),
        "exposure_measure": (f"how {what} was measured", f"How {what} was measured or reported ({shown})."),
        "exposure_level": (f"level of {what}", f"Which levels or doses of {what} the findings compare ({shown})."),
        "comparator": ("comparison group", f"What {what} was compared with ({shown})."),
        "outcome_type": (f"type of {outcome or 'outcome'}",
                         f"Which forms of {outcome or 'the outcome'} the findings concern ({shown})."),
        "adjustment": ("adjustment for confounders", f"Whether the findings on {rel} were adjusted for other "
                                                     f"factors ({shown})."),
        "time": ("time course", f"Over what time the findings on {rel} were observed ({shown})."),
        "mechanism": (_clip(f"mechanism: {parts.mechanism.lower()}", NAME_CHARS),
                      f"Whether {what} acts through {parts.mechanism.lower()} ({shown})."),
    }
    name, description = table[kind]
    return _clip(name, NAME_CHARS), _clip(description, DESCRIPTION_CHARS)


_COMPARED = re.compile(r"\b(?:compared (?:with|to)|versus|vs\.?|relative to)\s+((?:[a-z0-9\-]+\s?){1,4})")


def _compared_with(lows: Sequence[str]) -> list[str]:
    """What the findings compare against, as they word it ("compared with nonuse or remote use" ->
    "nonuse or remote use"): a comparison group is shown by its groups, not by the words "compared with"."""
    out = []
    for low in lows:
        for m in _COMPARED.finditer(low):
            words = [w for w in m.group(1).split() if w]
            while words and words[-1] in _STOPWORDS:
                words.pop()
            if words:
                out.append(" ".join(words))
    return _dedupe(out)


def find_facets(claim: str, segments: Sequence[str], *, k: int) -> list[Facet]:
    """Up to `k` facets of `claim` that the on-claim `segments` (findings that address the claim)
    speak to, most-mentioned first. Terms already in the claim define no facet (every on-claim
    segment uses them); siblings sharing most of their segments are merged."""
    parts = claim_parts(claim)
    claim_low = claim.lower()
    claim_stems = {_stem(w) for w in _ordered_terms(claim)}
    lows = [s.lower() for s in segments]
    candidates: list[tuple[str, list[str], str]] = []  # (kind, terms, contrast root)

    # pre- / post- / peri- / non-X: a contrast when the evidence draws it (two sides, or the plain
    # word beside one side), not a word that merely starts with "pre" ("prevalence").
    roots: dict[str, Counter[str]] = {}
    for low in lows:
        for prefix, root in _CONTRAST.findall(low):
            if root not in _STOPWORDS and root not in _GENERIC:
                roots.setdefault(root, Counter())[f"{prefix}{root}"] += 1
    for root, variants in roots.items():
        plain = any(re.search(rf"(?<![a-z\-]){re.escape(root)}\b", low) for low in lows)
        if len(variants) >= 2 or plain:
            candidates.append(("contrast", [f for f, _ in variants.most_common()], root))

    for kind, words in _LEXICON.items():
        candidates.append((kind, [w for w in words if w not in claim_low], ""))

    # High vs low levels of the exposure, and forms of the outcome, as the evidence words them.
    exposure_head = ([] if parts.exposure == _UNREAD
                     else [w for w in _ordered_terms(parts.exposure) if w not in _NOT_HEADS])
    if exposure_head and len(exposure_head) <= 4:
        pat = re.compile(_LEVEL_WORDS + r"\s+" + r"[\s\-]?".join(map(re.escape, exposure_head[:2])))
        levels = Counter(m.group(0) for low in lows for m in pat.finditer(low))
        candidates.append(("exposure_level", [t for t, _ in levels.most_common()], ""))
    outcome_head = _ordered_terms(parts.outcome)
    if outcome_head and len(outcome_head) <= 4:
        pat = re.compile(r"\b([a-z][a-z\-]{2,})\s+" + r"\s+".join(map(re.escape, outcome_head[:-1]))
                         + (r"\s+" if len(outcome_head) > 1 else "") + re.escape(outcome_head[-1].rstrip("s")))
        forms: Counter[str] = Counter()
        for low in lows:
            for m in pat.finditer(low):
                word = m.group(1)
                if (word not in _STOPWORDS and word not in _GENERIC and word not in claim_low
                        and _ADJECTIVE.match(word) and not re.fullmatch(_LEVEL_WORDS, word)
                        and not _CONTRAST.fullmatch(word)):  # "postmenopausal" is a side of a contrast
                    forms[word] += 1
        candidates.append(("outcome_type", [t for t, _ in forms.most_common()], ""))

    if parts.mechanism:
        candidates.append(("mechanism", _mechanism_terms(parts.mechanism), ""))

    facets: list[Facet] = []
    for kind, terms, root in candidates:
        # A term that is a claim word in another form ("adulthood" for "adult") is the claim's own wording.
        terms = [t for t in terms if not (len(t.split()) == 1 and _stem(t) in claim_stems)]
        used = [t for t in _dedupe(terms) if any(belongs(low, kind, [t], claim) for low in lows)]
        # The claim's own wording ("lower birth weight") is used by every on-claim segment: it
        # defines a facet only beside a term the claim does not use ("high birth weight").
        if any(t not in claim_low for t in used):
            used = [t for t in used if t not in claim_low]
        else:
            used = []
        members = [i for i, low in enumerate(lows) if belongs(low, kind, used, claim)]
        if not used:
            continue
        shown = _compared_with([lows[i] for i in members]) if kind == "comparator" else []
        name, description = _rule_name(kind, parts, shown or used, root)
        facets.append(Facet(kind=kind, name=name, description=description, terms=used[:8], segments=members))
    return _merge(sorted(facets, key=lambda f: (-len(f.segments), f.name)))[:k]


def _merge(facets: Sequence[Facet], *, overlap: float = 0.8) -> list[Facet]:
    """Greedy: a facet whose terms are all an earlier (better-evidenced) one's, or that shares
    `overlap` of at least three segments (Jaccard) with it, is a near-duplicate sibling and is dropped."""
    kept: list[Facet] = []
    for f in facets:
        # Facets of different kinds are different questions even when one sentence answers both; so
        # shared evidence merges them only when there is enough of it to say they are one facet.
        into = next((g for g in kept if set(f.terms) <= set(g.terms)
                     or (min(len(f.segments), len(g.segments)) >= 3
                         and _jaccard(set(f.segments), set(g.segments)) >= overlap)), None)
        if into is None:
            kept.append(f.model_copy(deep=True))
            continue
        # Dropped, not unioned: a facet whose terms mix two kinds would take evidence about either.
        log.info("facet %r dropped: it shares its evidence with %r", f.name, into.name)
    return kept


def facet_drafts(facets: Sequence[Facet]) -> list[AspectDraft]:
    """Aspect drafts for `facets` under the rules' names; the defining terms and the kind travel with
    the draft."""
    return [AspectDraft(name=f.name, description=f.description, keywords=list(f.terms[:8]), terms=list(f.terms),
                        facet=f.kind)
            for f in facets]


def sub_facets(parent_terms: Sequence[str], segments: Sequence[str], *, k: int, kind: str,
               claim: str) -> list[AspectDraft]:
    """The values a facet (of `kind`, of `claim`) is split by: one draft per distinct value among the
    parent's defining terms that one of `segments` states about the claim (`belongs`: "premenopausal",
    "postmenopausal" under menopausal status), most-stated first; none when fewer than two values are found (nothing
    to split), and none for a facet whose terms are wordings of one thing (adjustment, comparison,
    time: "adjusted" and "confounders" are not two subgroups)."""
    if kind not in VALUE_KINDS:
        return []
    values_in = [t for t in _distinct_values(parent_terms) if t.lower() not in _GENERIC]
    counts = [(t, sum(1 for s in segments if belongs(s, kind, [t], claim))) for t in values_in]
    values = sorted([(t, c) for t, c in counts if c], key=lambda tc: -tc[1])[:k]
    if len(values) < 2:
        return []
    parts = claim_parts(claim)
    about = f" on {_clean(parts.exposure)} and {_clean(parts.outcome)}" if _clean(parts.exposure) \
        and _clean(parts.outcome) else ""
    return [AspectDraft(name=_clip(t, NAME_CHARS), description=_clip(f"The findings{about} that concern {t} ({c} "
                        f"excerpt{'s' if c != 1 else ''}).", DESCRIPTION_CHARS), keywords=[t], terms=[t], facet=kind)
            for t, c in values]
