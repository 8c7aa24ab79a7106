"""A claim's wording out of its words in the text: quote marks, attribution, reporting frames and
leading connectives left out, and references to what came before resolved (by rules, by the
embedded model's checked rewrite, or held back for a person) so that each claim reads alone; the
wording half of `tools.read.claim_extraction`."""

from __future__ import annotations

import re

from claimscope.prompts import resolve_claim as rp
from claimscope.tools.find.sparse import tokenize
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.read.claim_worthiness import (
    subject_of,
)
from claimscope.tools.text.segmenter import split_sentences

# Share of the sentence's own terms a model rewrite must keep.
MIN_KEPT_TERMS = 0.75


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
    # What a sentence before named, wherever it stands ("In women, this effect was stronger", "patients given
    # the drug", "Neither group", "Similar results were found in women").
    r"\b(?:this|these|those) (?:effects?|drugs?|treatments?|therapy|therapies|interventions?|agents?|compounds?|"
    r"medications?|vaccines?|differences?|associations?|relationships?|increases?|decreases?|reductions?|"
    r"improvements?|benefits?|number|rates?|ratios?|proportions?|levels|risks?|conditions?|diseases?|"
    r"disorders?|syndromes?|populations?|groups|methods?|tools?|tests?|devices?|models?)\b|"
    r"\bthe (?:drug|compound|vaccine|medication|agent|supplement)\b(?!\s+(?:of|with|for|in|to|group|arm|class)\b)|"
    r"\b(?:neither|either|each) (?:group|arm|cohort)\b|"
    r"\b(?:similar|the same) (?:results|findings|effects?|patterns?|trends?|associations?)\b|"
    # A comparison that does not name what it compares ("Final results were comparable at latest followup").
    r"^(?![^,]*\b(?:and|or|versus|vs)\b)[^,]*?\b(?:were|was)\s+(?:\w+ly\s+)?(?:comparable|similar|equivalent)\b"
    r"(?!\s+(?:to|with|between|among|across)\b)|"
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
            return finished(claim[:m.start()] + f"the {names[0]} and {names[1]} {m.group(1).lower()}" + claim[m.end():])
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
                return finished(claim[:m.start()] + subject[:1].lower() + subject[1:] + claim[m.end():]) \
                    if m.start() else finished(subject + claim[m.end():])
        return None
    m = _THE_ASSOCIATION.search(claim)
    if m is not None:
        for statement in reversed(before[-4:]):
            found = _ASSOCIATED.search(statement.rstrip("."))
            if found:
                a, b = (found.group("a"), found.group("b")) if found.group("a") else (found.group("c"), found.group("d"))
                phrase = f"the association between {a.strip()} and {b.strip()}"
                return finished(claim[:m.start()] + phrase + claim[m.end():])
    return None


# A piece that reports a finding after an aim in the same sentence ("We hypothesized X, and found Y").
FINDING_VERB = re.compile(r"\b(?:found|find|finds|showed|shows|observed|demonstrated|revealed|confirmed)\b", re.I)
LIST_MARK = re.compile(r"^\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})\)\s+")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def finished(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:")
    return _capitalised(text if text.endswith((".", "!", "?")) else text + ".")


def wording(quote: str) -> str:
    """A claim's wording from its words in the text: without quote marks and attribution, a
    reporting frame ("We found that") or a leading connective ("However,")."""
    text = " ".join(quote.split())
    m = _ATTRIBUTION.match(text) or _QUOTED.match(text)
    if m:
        text = m.group(1).strip()
    text = LIST_MARK.sub("", text)
    text = _CONNECTIVE.sub("", text)
    text = _REPORTING.sub("", text)
    text = _CONNECTIVE.sub("", text)
    return finished(text)


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
        return finished(f"The {m.group('noun')} of {lower}{claim[m.end():]}")
    found = list(_OBJECT_PRONOUN.finditer(claim))
    if len(found) != 1 or plural != (found[0].group("pronoun").lower() == "them"):
        return None
    m = found[0]
    return finished(claim[:m.start("pronoun")] + lower + claim[m.end("pronoun"):])


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
    return finished(out) if changed else None


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
    return finished(subject + claim[m.end():])


def model_resolution(llm: StructuredLLM, claim: str, context: str) -> str | None:
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
    claim or the context, it keeps most of the claim's own terms, it names something from the
    context the claim did not, and it no longer starts with a reference; else None."""
    rewrite = finished(rewrite)
    allowed = set(tokenize(claim)) | set(tokenize(context))
    terms = tokenize(rewrite)
    if not terms or any(t not in allowed for t in terms) or needs_context(rewrite):
        return None
    m = _REFERENCE.match(claim)
    own = set(tokenize(claim[m.end():] if m else claim))
    if own and len(own & set(terms)) / len(own) < MIN_KEPT_TERMS:
        return None
    # A rewrite that only drops the reference ("These patients had ..." -> "Patients had ...") names nothing.
    if not set(terms) - set(tokenize(claim)):
        return None
    return rewrite


# ------------------------------------------------------------------------------------ entry point
