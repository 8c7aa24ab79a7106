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
own ("menopausal status"). The model only words the names (`name_facets`), and a name that does not
share a word with what defines the facet is replaced by the rule's name.

A segment belongs to a facet when it mentions one of the facet's terms (`mentions`) and states a
finding: a study's aim, method or background sentence (`is_finding`) is never shown under an aspect.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from claimscope.prompts import aspects as aspects_prompt
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.claim_extraction import judge
from claimscope.tools.read.hierarchy.terms import _STOPWORDS, _clip, _dedupe, _jaccard
from claimscope.tools.read.hierarchy.tree import DESCRIPTION_CHARS, NAME_CHARS, AspectDraft
from claimscope.tools.text.segmenter import without_section_label
from claimscope.tools.text.text_guard import copied_from, name_problems, tidy_name

log = logging.getLogger(__name__)

# Structured-abstract headings under which a sentence is background, aim or method, not a finding.
_NOT_FINDING_LABELS = frozenset(
    """background introduction context importance objective objectives aim aims purpose hypothesis
    method methods methodology materials design setting settings participants patients subjects
    population intervention interventions exposure exposures measurement measurements main primary
    outcome outcomes measure measures data sources source study selection extraction""".split()
)
# Sentences that say what a study set out to do ("Here we investigated", "We sought to").
_AIM = re.compile(
    r"^(?:here,? we|in this (?:study|paper|work|review),? we|we (?:aimed|sought|set out|wanted|investigated|"
    r"examined|explored|evaluated|assessed|hypothesi[sz]ed|tested whether|asked whether)|"
    r"(?:this|the present|the current|our) (?:study|paper|work|review|analysis) (?:aimed|aims|sought|seeks|"
    r"investigated|investigates|examined|examines|explored|explores|evaluates|evaluated|assessed|assesses)|"
    r"(?:little|less) is known|it is (?:unclear|unknown|not known)|whether .{0,80} (?:is|are|remains?) unclear)",
    re.I,
)


def is_finding(text: str) -> bool:
    """Whether a segment states a finding, not a study's aim, method or background: no aim,
    method, question or plan wording (`tools.read.claim_extraction.judge`), no "Here we ..." opening, and
    no background / objective / methods heading before it."""
    body = without_section_label(text)
    label = text[: len(text) - len(body)] if body != text else ""
    if label and set(re.findall(r"[a-z]+", label.lower())) & _NOT_FINDING_LABELS \
            and not re.search(r"\b(?:results?|findings|conclusions?|interpretation)\b", label.lower()):
        return False
    body = body.strip()
    if _AIM.search(body):
        return False
    return judge(body)[0] not in {"method", "question", "plan", "fragment"}


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

    kind: str = Field(description="population, contrast, exposure_measure, exposure_level, comparator, "
                                  "outcome_type, adjustment, time.")
    name: str = Field(description="The rule's name for it.")
    description: str
    terms: list[str] = Field(description="Defining terms the on-claim segments use, most frequent first.")
    segments: list[int] = Field(description="Indices of the on-claim segments that mention a term.")


class ClaimParts(BaseModel):
    """The claim's relation read for facets: who, what exposure or intervention, what outcome."""

    population: str = ""
    exposure: str
    outcome: str


_GROUP_SPLIT = re.compile(r"^(?P<who>[\w\s\-]+?)\s+(?:with|who|whose|taking|receiving|given|on|exposed to)\s+(?P<rest>.+)$", re.I)
_OUTCOME_LEAD = re.compile(
    r"^(?:(?:are|is|be)\s+)?(?:(?:more|less|much more|much less)\s+likely\s+to\s+(?:develop|have|get|experience|die of|"
    r"suffer from|be)\s+|(?:the\s+)?(?:risk|rates?|odds|incidence|chance|likelihood|occurrence)\s+of\s+|"
    r"(?:an?\s+)?(?:increased|decreased|higher|lower|reduced)\s+(?:risk|rates?|odds|incidence)\s+of\s+)", re.I)
_TIME_TAIL = re.compile(r"\s+(?:later in life|in later life|in adulthood|in childhood|over time|in the long term|"
                        r"in old age|at \w+ age|after \d+ \w+|within \d+ \w+)$", re.I)
_LEVEL = re.compile(r"^(?:an?\s+|the\s+)?(?:lower|higher|low|high|increased|decreased|reduced|greater|"
                    r"more|less|elevated)\s+", re.I)


def claim_parts(claim: str) -> ClaimParts:
    """The population, exposure (or intervention) and outcome of `claim`, by rules on its split
    into subject / relation / object."""
    parts = claim_components(claim)
    subject = parts.subject.strip()
    population = ""
    if m := _GROUP_SPLIT.match(subject):
        population, subject = m.group("who").strip(), m.group("rest").strip()
    exposure = _LEVEL.sub("", subject).strip() or subject
    outcome = parts.object.strip()
    for _ in range(2):
        outcome = _OUTCOME_LEAD.sub("", outcome).strip()
    outcome = _TIME_TAIL.sub("", outcome).strip() or parts.object.strip()
    outcome = re.sub(r"^(?:the|a|an)\s+", "", outcome, flags=re.I)
    return ClaimParts(population=population, exposure=exposure or parts.subject, outcome=outcome)


# Words of each kind a scientist looks for in the evidence (whole words, plurals allowed).
_LEXICON: dict[str, tuple[str, ...]] = {
    "population": ("children", "schoolchildren", "infants", "adolescents", "adults", "older adults", "elderly",
                   "young", "girls", "boys", "women", "men", "pregnant", "smokers", "nonsmokers", "never smokers",
                   "obese", "overweight", "healthy", "caucasian", "white", "black", "african", "asian", "hispanic",
                   "european", "chinese", "japanese", "twins", "siblings", "veterans", "nurses"),
    "exposure_measure": ("self-reported", "recall", "recalled", "questionnaire", "interview",
                         "records", "recorded", "registry", "register", "birth certificates", "medical records",
                         "measured", "biomarker", "serum", "plasma", "assay", "validated", "diary", "objectively"),
    "exposure_level": ("dose-response", "dose", "doses", "dosage", "quartile", "quintile",
                       "tertile", "decile", "linear", "nonlinear", "u-shaped", "j-shaped", "trend", "threshold",
                       "categories", "per unit", "daily", "weekly", "monthly", "high-dose", "low-dose", "bolus"),
    "comparator": ("placebo", "control group", "controls", "versus", "compared with", "compared to",
                   "reference group", "unexposed", "usual care", "no treatment"),
    "adjustment": ("adjusted", "adjustment", "adjusting", "confounding", "confounders", "confounder",
                   "covariates", "multivariable", "multivariate", "independent of", "controlling for",
                   "gestational age", "socioeconomic", "sensitivity analysis"),
    "time": ("follow-up", "followed up", "adulthood", "childhood", "long-term", "short-term", "duration",
             "early-onset", "late-onset", "age at diagnosis", "latency", "years later", "lifetime"),
}
_CONTRAST = re.compile(r"\b(pre|post|peri|non)[\s\-]?([a-z]{5,})\b")
_LEVEL_WORDS = r"(?:very\s+)?(?:high|low|higher|lower|highest|lowest|increasing|decreasing|elevated|reduced)"


def _rule_name(kind: str, parts: ClaimParts, terms: Sequence[str], root: str = "") -> tuple[str, str]:
    exposure, outcome = parts.exposure.lower(), parts.outcome.lower()
    shown = ", ".join(terms[:3])
    table = {
        "contrast": (f"{root} status", f"Whether the link between {exposure} and {outcome} differs by {root} "
                                        f"status ({shown})."),
        "population": ("population studied", f"In whom the link between {exposure} and {outcome} was studied "
                                             f"({shown})."),
        "exposure_measure": (f"how {exposure} was measured", f"How {exposure} was measured or reported "
                                                             f"({shown}), and whether that changes the result."),
        "exposure_level": (f"level of {exposure}", f"Which levels or doses of {exposure} were compared ({shown}) "
                                                   f"and the shape of the relation."),
        "comparator": ("comparison group", f"What {exposure} was compared against ({shown})."),
        "outcome_type": (f"type of {outcome}", f"Which forms of {outcome} were studied ({shown})."),
        "adjustment": ("adjustment for confounders", f"Which factors the link between {exposure} and {outcome} "
                                                     f"was adjusted for ({shown})."),
        "time": ("time course", f"When {outcome} was observed after {exposure} ({shown})."),
    }
    name, description = table[kind]
    return _clip(name, NAME_CHARS), _clip(description, DESCRIPTION_CHARS)


def find_facets(claim: str, segments: Sequence[str], *, k: int, min_segments: int = 1) -> list[Facet]:
    """Up to `k` facets of `claim` that the on-claim `segments` (texts that address the claim)
    speak to, most-mentioned first. Terms already in the claim define no facet (every on-claim
    segment uses them); siblings sharing most of their segments are merged."""
    parts = claim_parts(claim)
    claim_low = claim.lower()
    lows = [s.lower() for s in segments]
    candidates: list[tuple[str, list[str], str]] = []  # (kind, terms, contrast root)

    roots: dict[str, Counter[str]] = {}
    for low in lows:
        for prefix, root in _CONTRAST.findall(low):
            if root not in _STOPWORDS:
                roots.setdefault(root, Counter())[f"{prefix}{root}"] += 1
    for root, variants in roots.items():
        candidates.append(("contrast", [f for f, _ in variants.most_common()], root))

    for kind, words in _LEXICON.items():
        candidates.append((kind, [w for w in words if w not in claim_low], ""))

    # High vs low levels of the exposure, and forms of the outcome, as the evidence words them.
    exposure_head = [w for w in re.findall(r"[a-z][a-z\-]+", parts.exposure.lower()) if w not in _STOPWORDS]
    if exposure_head:
        pat = re.compile(_LEVEL_WORDS + r"\s+" + r"\s+".join(map(re.escape, exposure_head[:2])))
        levels = Counter(m.group(0) for low in lows for m in pat.finditer(low))
        candidates.append(("exposure_level", [t for t, _ in levels.most_common()], ""))
    outcome_head = [w for w in re.findall(r"[a-z][a-z\-]+", parts.outcome.lower()) if w not in _STOPWORDS]
    if outcome_head:
        head = re.escape(outcome_head[-1].rstrip("s"))
        pat = re.compile(r"\b([a-z][a-z\-]{2,}(?:\s+[a-z][a-z\-]{2,})?)\s+(?:" + "|".join(
            map(re.escape, outcome_head[:-1])) + (r"\s+" if len(outcome_head) > 1 else "") + r")?" + head)
        forms: Counter[str] = Counter()
        for low in lows:
            for m in pat.finditer(low):
                found = [w for w in m.group(1).split() if w not in _STOPWORDS and w not in claim_low
                         and not re.fullmatch(_LEVEL_WORDS, w)]
                if found:
                    forms[" ".join(found)] += 1
        candidates.append(("outcome_type", [t for t, _ in forms.most_common()], ""))

    facets: list[Facet] = []
    for kind, terms, root in candidates:
        used = [t for t in _dedupe(terms) if any(mentions(low, [t]) for low in lows)]
        # The claim's own wording ("lower birth weight") is used by every on-claim segment: it
        # defines a facet only beside a term the claim does not use ("high birth weight").
        if any(t not in claim_low for t in used):
            used = [t for t in used if t not in claim_low]
        else:
            used = []
        members = [i for i, low in enumerate(lows) if mentions(low, used)]
        if not used or len(members) < min_segments:
            continue
        name, description = _rule_name(kind, parts, used, root)
        facets.append(Facet(kind=kind, name=name, description=description, terms=used[:8], segments=members))
    return _merge(sorted(facets, key=lambda f: (-len(f.segments), f.name)))[:k]


def _merge(facets: Sequence[Facet], *, overlap: float = 0.6) -> list[Facet]:
    """Greedy: a facet sharing `overlap` of its segments (Jaccard) or its terms with an earlier one
    is folded into it (terms and segments unioned)."""
    kept: list[Facet] = []
    for f in facets:
        into = next((g for g in kept if _jaccard(set(f.segments), set(g.segments)) >= overlap
                     or set(f.terms) <= set(g.terms)), None)
        if into is None:
            kept.append(f.model_copy(deep=True))
            continue
        into.terms = _dedupe([*into.terms, *f.terms])[:8]
        into.segments = sorted(set(into.segments) | set(f.segments))
        log.info("merged facet %r into %r", f.name, into.name)
    return kept


def facet_drafts(claim: str, facets: Sequence[Facet], llm: StructuredLLM | None) -> list[AspectDraft]:
    """Aspect drafts for `facets`: the rule's names, or the model's wording where it passes the
    checks (`name_facets`). The defining terms travel with the draft."""
    named = name_facets(claim, facets, llm) if llm is not None and facets else [(f.name, f.description) for f in facets]
    return [AspectDraft(name=name, description=description, keywords=list(f.terms[:8]), terms=list(f.terms))
            for f, (name, description) in zip(facets, named, strict=True)]


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOPWORDS}


def name_facets(claim: str, facets: Sequence[Facet], llm: StructuredLLM) -> list[tuple[str, str]]:
    """(name, description) per facet, from one LLM call naming them all. A model name is kept only
    when it is a short noun phrase, not a repeat, and shares a word with the facet's rule name or
    terms; otherwise the rule's name (and description) stand."""
    listing = "\n".join(f"{i}. {f.name}: terms the evidence uses: {', '.join(f.terms[:5])}"
                        for i, f in enumerate(facets, start=1))
    try:
        out = llm.run(aspects_prompt.NAMING,
                      aspects_prompt.FacetNamesInput(claim=claim, facets=listing, k=min(8, len(facets))))
        items = list(out.aspects)
    except LLMError as exc:
        log.warning("name_facets: the LLM failed (%s); rule names kept", exc)
        items = []
    named: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, f in enumerate(facets):
        name, description = f.name, f.description
        if i < len(items):
            proposed = _clip(tidy_name(items[i].name), NAME_CHARS)
            grounded = _stems(proposed) & (_stems(f.name) | {s for t in f.terms for s in _stems(t)})
            if proposed and not name_problems(proposed) and proposed.lower() not in seen and grounded:
                name = proposed
                text = " ".join(items[i].description.split())
                if text and not copied_from(text, [proposed], min_words=1) and _stems(text) & _stems(claim):
                    description = _clip(text, DESCRIPTION_CHARS)
            else:
                log.info("facet %d: model name %r not kept; rule name %r", i + 1, proposed, f.name)
        seen.add(name.lower())
        named.append((name, description))
    return named


def sub_facets(parent_terms: Sequence[str], segments: Sequence[str], *, k: int,
               min_segments: int = 1) -> list[AspectDraft]:
    """The values a facet's evidence is split by: one draft per defining term that at least
    `min_segments` of `segments` mention ("premenopausal", "postmenopausal" under menopausal status),
    most-mentioned first; none when fewer than two values are found (nothing to split)."""
    counts = [(t, sum(1 for s in segments if mentions(s, [t]))) for t in _dedupe(parent_terms)]
    values = sorted([(t, c) for t, c in counts if c >= min_segments], key=lambda tc: -tc[1])[:k]
    if len(values) < 2:
        return []
    return [AspectDraft(name=_clip(t, NAME_CHARS), description=_clip(f"The evidence that concerns {t} ({c} "
                        f"excerpt{'s' if c != 1 else ''}).", DESCRIPTION_CHARS), keywords=[t], terms=[t])
            for t, c in values]
