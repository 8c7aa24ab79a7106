"""The word lexicon claims are read with: word tokens, auxiliaries, the verbs claims are made
with (every base form with its 3rd-person and past forms), finding the main verb, and the text
normalisation the other modules share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

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


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
