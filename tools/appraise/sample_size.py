"""The number of participants an abstract states.

The patterns propose: each reading of the text they support is a candidate number (the first
explicit total, the total with a comparison group named beside it, groups stated side by side or
one by one, the first or largest count of people, arms "(n = N)", "Of the N ...", one case).
sample_size_rules keeps the first of these in a fixed order of reliability. sample_size lets a
linear chooser (tools/appraise/sample_size_model.json, fitted on hand-read abstracts by
`python -m evals.train_sample_size`) score every candidate from which readings propose it and how
it compares with the other counts of people, and keeps the best; None when even the best scores
under the chooser's floor. Without the model file the fixed order decides.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

_I = re.IGNORECASE
_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
          "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000}
_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|" \
        r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)"
# "1,234", "1 234" (thin or plain space between thousands), "120", "Two hundred and seven", "sixty-two".
_NUMBER = (r"(\d{1,3}(?:,\d{3})+(?![\d.])|\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|\d+(?![\d.,]\d)|"
           + _WORD + r"(?:(?:[ -]|\s+and\s+)" + _WORD + r")*)")
_PEOPLE = (r"(?:patients|participants|subjects|individuals|adults|children|infants|women|men|persons|people|"
           r"volunteers|cases|pregnancies|smokers|students|residents|respondents|employees|workers|trainees|"
           r"newborns|neonates|adolescents|veterans|survivors|users|donors|mothers|girls|boys|couples|households|"
           r"nurses|physicians|doctors|surgeons|clinicians|athletes|outpatients|inpatients|recipients|controls|"
           r"twin pregnancies|elderly|managers|professionals|dentists|pharmacists|teachers|parents|caregivers|carers|"
           r"soldiers|servants|midwives|practitioners|educators|pupils|relatives|siblings|twins|humans|"
           r"experts|players|members|providers|stone-formers|runners|drivers|prisoners|inmates|refugees|migrants|immigrants)")
# Up to three words between a number and the people it counts ("62 consecutive elderly patients",
# "26 ASA I-III patients"), none of them a word that starts another phrase ("286 performed in 256
# patients" counts procedures, not people).
# Nor a number word: "From December 1990 through December 1998 thirty patients were studied" counts
# thirty, not 1998.
_FILLER = (r"(?:(?!(?:in|of|from|with|at|for|to|were|was|and|or|per|by|had|who|than|vs|" + _WORD[3:-1] + r")\b)"
           r"[\w'()-]+\s+){0,3}?")
# Not a number after a sign, a bound or a hyphen: "(+/-5 y) subjects" is a tolerance, "(\u226518 years) smokers"
# an age, "COVID-19 patients" a name; nor a decimal's tail ("4.4 million stroke survivors"), nor a
# reference glued to a full stop before the next sentence ("palliative care.12 Patients desire ...";
# "sleep.21 individuals with OSA" is a count).
_COUNTED = r"(?<![-+/\u00b1\u2264\u2265])(?<!\d\.)(?!(?<=\.)\d+\s+(?-i:[A-Z]))\b" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b"
_VERBS = (r"(?:randomi[sz]ed|enrolled|included|recruited|studied|assigned|allocated|followed|analy[sz]ed|evaluated|"
          r"examined|reviewed|identified|investigated|surveyed|interviewed|selected|treated|underwent|participated|"
          r"completed|took part)")
# The study's own size, in order of reliability: an explicit total; people counted with the verb
# that makes them the sample; "(n = N)" after the study population. The first of these in the text
# is the sample (a total is stated before its arms and subsets).
_TOTAL_PATTERNS = [
    re.compile(r"\b(?:a total of|total of|in total,?|overall,?|altogether,?)\s+" + _NUMBER + r"\s+" + _FILLER + _PEOPLE
               + r"\b", _I),
    re.compile(_COUNTED + r"(?!\s+(?:screened|assessed|invited|approached|excluded|declined|refused))[^.;\d]{0,60}?"
               r"\b(?:were|was|had been)\s+(?:\w+\s+)?" + _VERBS, _I),
    re.compile(_COUNTED + r"\s+(?:\w+\s+)?(?:underwent|participated|took part|completed|attended|answered|"
               r"responded)\b", _I),
    re.compile(r"\b(?:we|study)\s+(?:\w+\s+)?" + _VERBS + r"(?:\s+\w+ly)?\s+(?:a total of\s+)?(?:the\s+)?(?:(?:medical |case |clinical )?"
               r"records of\s+)?" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I),
    re.compile(r"\b(?:records|charts|data) (?:of|from|on)\s+" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I),
    re.compile(r"\b(?:sample|population|cohort|study group)\s+(?:\w+\s+){0,2}?(?:of|comprised|consisted of|included)\s+"
               + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I),
    re.compile(_COUNTED + r"\s*\(\s*[nN]\s*=\s*" + _NUMBER + r"\s*\)", _I),
    re.compile(r"\b" + _PEOPLE + r"[^.;()]{0,40}\(\s*[nN]\s*=\s*" + _NUMBER + r"\s*[;,)]", _I),
    # "There were 249 outpatients (178 men ...)", "... were enrolled (3527 patients)".
    re.compile(r"(?:^|[.;]\s+)There were\s+" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b"),
    re.compile(r"\b(?:were|was)\s+" + _VERBS + r"\s+\(\s*" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\s*\)", _I),
]
# A number of people that is not the sample: those screened or invited, or a subset.
_NOT_SAMPLE = re.compile(r"(?:screened|assessed for eligibility|invited|approached|eligible|of the|of these|"
                         r"among (?:them|these|the)|whom|\b(?:groups?|arms?|types?|grades?|stages?|phases?|days?|"
                         r"weeks?|months?|years?|class|level|visit|table|figure|fig\.|aged?))\s*$",
                         _I)
# Groups stated side by side when no total is: "100 hypertensive patients and 30 normotensive
# subjects", "tibial (n = 14) or peroneal (n = 12)", "12 normally sighted, 10 visually impaired,
# and 10 blind subjects".
_GROUP_LIST = re.compile(r"\b" + _NUMBER + r"\s+" + _FILLER + r"(?:" + _PEOPLE + r"\s+)?(?:[^.;,]{0,60}?)"
                         r"(?:,(?!\d)\s*|\s+and\s+|,\s+and\s+)" + r"(?:" + _NUMBER + r"\s+" + _FILLER + r"(?:" + _PEOPLE
                         + r"\s+)?[^.;,]{0,60}?(?:,(?!\d)\s*|\s+and\s+|,\s+and\s+))?" + _NUMBER + r"\s+" + _FILLER + _PEOPLE
                         + r"\b", _I)
_N_EQUALS = re.compile(r"\(\s*[nN]\s*=\s*" + _NUMBER + r"\s*[;,)]")
# Groups stated one by one, in sentences of their own: "Group 1 consisted of 357 women ...", "In
# group 2, there were 349 subjects from ...", "Group 3 women (n = 81)", "120 in the intervention
# group", "The control group comprised 118 patients".
_GROUP = r"(?:group|arm)(?:\s*(?:\d+|[A-Z])\b)?(?:\s*\([^()]{0,60}\))?"
_GROUP_STATEMENTS = [
    re.compile(r"\b" + _GROUP + r"\s+(?:consisted\s+of|comprised|included|contained|was\s+composed\s+of|was\s+made\s+up\s+of|"
               r"enrolled)\s+" + _NUMBER + r"(?:\s+" + _FILLER + _PEOPLE + r"\b|(?=\s*[.;,]))", _I),
    re.compile(r"\bin\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?" + _GROUP + r",?\s+there\s+were\s+" + _NUMBER + r"\s+" + _FILLER
               + _PEOPLE + r"(?=\s+(?:from|recruited|enrolled|included|aged)\b|\s*[.;,(])", _I),
    re.compile(r"\b" + _GROUP + r"\s+(?:[\w-]+\s+){0,2}?\(\s*[nN]\s*=\s*" + _NUMBER + r"\s*\)", _I),
    re.compile(r"\b" + _NUMBER + r"\s+(?:" + _FILLER + _PEOPLE + r"\s+)?(?:were\s+)?(?:in|into)\s+the\s+(?:[\w-]+\s+){1,3}?"
               r"(?:group|arm)\b", _I),
]


def _as_int(text: str) -> int | None:
    """'1,234', '1 234', '120', 'Two hundred and seven', 'sixty-two' -> the number; None otherwise."""
    t = re.sub(r"[,\u2009\u202f ]", "", text) if text[:1].isdigit() else text
    if t.isdigit():
        return int(t)
    total, current = 0, 0
    for word in re.split(r"[\s-]+", text.lower()):
        if word == "and":
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] == 1000:
                total, current = total + current, 0
        else:
            return None
    return total + current or None


def _counts(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """(position, number) of each match of `pattern` that counts the sample, in text order."""
    out = []
    for m in pattern.finditer(text):
        group = next(i for i in range(1, (pattern.groups or 0) + 1) if m.group(i) is not None)
        before = text[max(0, m.start() - 40): m.start()]
        after = text[m.end(group): m.end(group) + 2]
        if after.lstrip().startswith("%") or _NOT_SAMPLE.search(before):
            continue
        if _in_breakdown(text, m.start()):
            continue
        n = _as_int(m.group(group))
        if n is not None and 0 < n < 100_000_000:
            out.append((m.start(), n))
    return out


_COUNT_ENDS = re.compile(_COUNTED + r"[^()]{0,30}$", _I)


def _unclosed(span: str) -> bool:
    return span.count("(") > span.count(")")


def _in_breakdown(text: str, at: int) -> bool:
    """Whether the count at `at` breaks down a count of people just before it, in brackets:
    "100 patients (50 men and 50 women) were examined" (not "Seven trials (19,818 patients)")."""
    before = text[max(0, at - 120): at].rsplit(". ", 1)[-1]
    if not _unclosed(before):
        return False
    return _COUNT_ENDS.search(before[: before.rfind("(")]) is not None


def _is_year(n: int) -> bool:
    """'Between 1981 and 1995': years, not counts of people."""
    return 1900 <= n <= 2100


# Groups counted together before the noun they share: "In all, 35 and 26 patients were assessed for
# RALP and RRP, respectively", "5624 and 791 consecutive patients received 1 and 2 lines". Not a
# range ("between 20 and 30 patients", "from 10 to 20").
_JOINT = re.compile(r"(?<!between )(?<!from )(?<![\w,.-])" + _NUMBER + r"(?:,\s*" + _NUMBER + r")?,?\s+and\s+"
                    + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I)


# A comparison group named in the sample's own sentence: "862 older adults with cancer compared to
# 8,617 older adults without cancer", "42 patients receiving surgery were matched to 84 patients",
# "outcomes of 43 patients were compared with those of 49 patients", "182 patients ... and 182
# controls matched by age", "We enrolled 25 patients, following brain injury, and 20 healthy
# individuals", "Cases were 507 subjects ..., and controls were 478 patients".
_COMPARED = re.compile(r"\b(?:compared (?:with|to)|matched (?:to|with)|versus|vs\.?)\s+(?:the\s+|a\s+group\s+of\s+|"
                       r"(?:those|that) of\s+)?" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b|"
                       r"\band\s+" + _NUMBER + r"\s+(?:[\w-]+\s+){0,2}?(?:controls|healthy\s+(?:\w+\s+)?" + _PEOPLE + r")\b|"
                       r"\bcontrols\s+(?:were|included|comprised)\s+" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I)
# A control group stated in the sentence after the sample's: "483 patients with BPPV were included
# in the study group. The control group consisted of 461 healthy subjects."
_CONTROL_GROUP = re.compile(r"^(?:The\s+)?control\s+group\s+(?:consisted\s+of|comprised|included|was\s+composed\s+of)\s+"
                            + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b", _I)
_ONE_GROUP = re.compile(r"\b(?:study|patient|case|index|experimental|test|disease)\s+group\b", _I)
# A count called a total is taken as the whole sample: a group named after it ("A total of 100
# participants, 50 patients and 50 healthy controls") is read as part of it, not added.
_TOTAL_WORD = re.compile(r"\b(?:a total of|total of|in total)\b", _I)
_NUMBER_RE = re.compile(_NUMBER, _I)


def _stated_as_total(text: str, start: int) -> bool:
    """Whether the count that a match at `start` begins is called a total."""
    number = _NUMBER_RE.search(text, start)
    return number is not None and _TOTAL_WORD.search(text, max(0, start - 25), number.start()) is not None


def _with_comparison(text: str, start: int, n: int) -> int:
    """n plus a comparison group stated later in the sentence that counts n at `start`, or in the
    sentence after it as the control group; n alone where it is stated as a total."""
    if _stated_as_total(text, start):
        return n
    end = re.search(r"[.;](?:\s|$)", text[start:])
    stop = start + end.start() if end else len(text)
    m = _COMPARED.search(text[start:stop])
    # Only when n is itself one group: "We randomised 240 patients. The control group comprised 118"
    # counts the controls among the 240.
    if m is None and end is not None and _ONE_GROUP.search(text[start:stop]):
        m = _CONTROL_GROUP.search(text[start + end.end():])
    extra = _as_int(next(g for g in m.groups() if g is not None)) if m else None
    return n + extra if extra is not None and not _is_year(extra) else n


# "Of the 2170 infants who received surfactant, 1182 ...": the whole, then its parts.
_WHOLE = re.compile(r"(?:^|[.;]\s+)(?:Out\s+)?[Oo]f\s+(?:the|all|these)\s+" + _NUMBER + r"\s+" + _FILLER + _PEOPLE + r"\b")
# One person: "We present the case of a 45-year-old female", "A 12-year-old boy diagnosed with ...".
_ONE_CASE = re.compile(r"\b(?:the case of an?|we (?:present|report|describe) an?|(?:^|[.;]\s+)An?)\s+\d+-"
                       r"(?:year|month|week|day)-old\b")


def _joint_counts(text: str) -> list[tuple[int, int]]:
    """(position, sum) of each joint count of groups that counts the sample."""
    out = []
    for m in _JOINT.finditer(text):
        if _NOT_SAMPLE.search(text[max(0, m.start() - 40): m.start()]):
            continue
        values = [_as_int(g) for g in m.groups() if g is not None]
        if all(v is not None and 0 < v < 100_000_000 and not _is_year(v) for v in values):
            out.append((m.start(), sum(v for v in values if v is not None)))
    return out


def _group_sum(text: str) -> tuple[int, int] | None:
    """(position, sum) of the first groups stated side by side in one sentence."""
    offset = 0
    for sentence in re.split(r"(?<=[.;])\s+", text):
        offset = text.find(sentence, offset)
        m = _GROUP_LIST.search(sentence)
        if m and not _unclosed(sentence[m.end(1): next(m.start(i) for i in (2, 3) if m.start(i) >= 0)]):
            values = [_as_int(g) for g in m.groups() if g is not None]
            # "Between 1981 and 1995, 21 cases presented": years, not groups.
            if len(values) >= 2 and all(v is not None and not _is_year(v) for v in values):
                return offset + m.start(), sum(v for v in values if v is not None)
        arms = list(_N_EQUALS.finditer(sentence))
        values = [_as_int(a.group(1)) for a in arms]
        if len(values) >= 2 and all(v is not None for v in values):
            return offset + arms[0].start(), sum(v for v in values if v is not None)
    return None


def _groups_one_by_one(text: str) -> tuple[int, int] | None:
    """(position, sum) of groups each stated in its own sentence, where at least two sentences
    state one; None otherwise."""
    found: dict[int, tuple[int, int]] = {}
    sentences = set()
    offset = 0
    for i, sentence in enumerate(re.split(r"(?<=[.;])\s+", text)):
        offset = text.find(sentence, offset)
        for pattern in _GROUP_STATEMENTS:
            for m in pattern.finditer(sentence):
                group = next(g for g in range(1, (pattern.groups or 0) + 1) if m.group(g) is not None)
                n = _as_int(m.group(group))
                at = offset + m.start(group)
                if n is not None and not _is_year(n) and at not in found:
                    found[at] = (offset + m.start(), n)
                    sentences.add(i)
    if len(sentences) < 2:
        return None
    return min(p for p, _ in found.values()), sum(n for _, n in found.values())


def _groups_after(text: str, start: int) -> list[int] | None:
    """The groups listed from the count at `start` on ("100 hypertensive patients and 30
    normotensive subjects" -> [100, 30]); None where there are none, or where they break down that
    count in brackets ("thirty patients were studied (22 men and 8 women)")."""
    number = _NUMBER_RE.search(text, start)
    groups = _GROUP_LIST.match(text, number.start()) if number else None
    if groups is None or _unclosed(text[groups.end(1): next(groups.start(i) for i in (2, 3) if groups.start(i) >= 0)]):
        return None
    values = [_as_int(g) for g in groups.groups() if g is not None]
    return [v for v in values if v is not None] if len(values) >= 2 and None not in values else None


def _arms_after(text: str, start: int) -> list[int] | None:
    """The arms "(n = N)" of the sentence from `start` on, where it states two or more."""
    end = re.search(r"[.;](?:\s|$)", text[start:])
    arms = [_as_int(a) for a in _N_EQUALS.findall(text[start: start + end.start() if end else len(text)])]
    return [a for a in arms if a is not None] if len(arms) >= 2 and None not in arms else None


def sample_size_rules(text: str) -> int | None:
    """The number of participants a text states by the patterns' fixed order, or None: the first explicit total or enrolment
    ("a total of 1,234 patients", "Two hundred and seven patients were included", "we randomised
    120 participants", "(n = 240)" after the population); groups stated one by one in sentences of
    their own, before any total, are added; else the sum of groups stated side by side ("44 patients
    with PID and 44 healthy women"); else the first count of people."""
    return _fixed_order(text, [c for found in _totals(text) for c in found], _joint_counts(text),
                        _groups_one_by_one(text))


def _totals(text: str) -> list[list[tuple[int, int]]]:
    """Per total pattern, (position, number) of each count it reads as the sample."""
    return [_counts(pattern, text) for pattern in _TOTAL_PATTERNS]


def _fixed_order(text: str, found: list[tuple[int, int]], joint: list[tuple[int, int]],
                 one_by_one: tuple[int, int] | None) -> int | None:
    """sample_size_rules, given the totals, joint counts and one-by-one groups already read."""
    if joint and (not found or joint[0][0] <= min(found)[0]):
        return joint[0][1]
    # Groups stated one by one before any total: their sum ("Group 1 consisted of 357 women ...").
    if one_by_one is not None and (not found or min(found)[0] >= one_by_one[0]):
        return one_by_one[1]
    if found:
        start, n = min(found)
        # "We enrolled 100 hypertensive patients and 30 normotensive subjects": the groups, added.
        groups = _groups_after(text, start)
        if groups:
            # Not the parts of the count: "100 participants were enrolled, 50 patients and 50 controls".
            if len(groups) >= 3 and groups[0] == sum(groups[1:]):
                return n
            if groups[0] == n:
                return sum(groups)
        # "Patients were randomised to tibial (n = 14) or peroneal (n = 12) stimulation": arms.
        arms = _arms_after(text, start)
        if arms and arms[0] == n:
            return sum(arms)
        return _with_comparison(text, start, n)
    # No total: the first count of people, or the groups it begins ("72 patients with
    # endometriomas and 55 patients with ovarian cancer").
    summed = _group_sum(text)
    counted = _counts(re.compile(_COUNTED, _I), text)
    if summed is not None and (not counted or summed[0] <= counted[0][0]):
        return summed[1]
    if counted:
        return _with_comparison(text, *counted[0])
    bare = _counts(re.compile(r"\(\s*[nN]\s*=\s*" + _NUMBER + r"\s*\)"), text)
    if bare:
        return bare[0][1]
    whole = _WHOLE.search(text)
    if whole and (total := _as_int(whole.group(1))) is not None:
        return total
    if _ONE_CASE.search(text):
        return 1
    return None


MODEL_PATH = Path(__file__).resolve().parent / "sample_size_model.json"
_SENTENCE = re.compile(r"(?<=[.;])\s+")
_COUNTED_RE = re.compile(_COUNTED, _I)
# Words that make a sum of groups more likely to be the sample, and words that state a total.
_COMPARISON_WORDS = re.compile(r"\b(?:compared|versus|vs\.?|controls?|control group|healthy|matched|cases)\b", _I)
_TOTAL_WORDS = re.compile(r"\b(?:a total of|in total|overall|altogether|in all)\b", _I)
# A count of people named as those screened, invited or left out ("Of 5,000 patients screened").
_LEFT_OUT_AFTER = re.compile(r"\s+(?:[\w-]+\s+){0,3}?(?:were\s+)?(?:screened|assessed|invited|approached|excluded|"
                             r"declined|refused|eligible|contacted|identified|potentially)\b", _I)


def _written(text: str) -> tuple[set[int], set[int]]:
    """The numbers written in the text, and those of them every mention of which counts people left
    out of the sample."""
    kept: set[int] = set()
    left: set[int] = set()
    for m in _NUMBER_RE.finditer(text):
        value = _as_int(m.group(1))
        if value is None:
            continue
        out = bool(_LEFT_OUT_AFTER.match(text, m.end(1)) or _NOT_SAMPLE.search(text[max(0, m.start(1) - 40): m.start(1)]))
        (left if out else kept).add(value)
    return kept | left, left - kept


# The names readings() gives, and the other features candidate_features() computes: a chooser fitted
# on anything else was fitted on another version and is refused.
READING_NAMES = frozenset(
    ["total_first", "total_compared", "total_max", "total_groups", "total_arms", "total_and_arms", "joint",
     "one_by_one", "group_sum", "counted_first", "counted_compared", "counted_max", "counted_sentence_sum",
     "counted_first_two", "arms_first", "arms_first_two", "arms_max", "arms_sentence_sum", "whole", "one_case",
     "rules"] + [f"total_pattern_{k}" for k in range(len(_TOTAL_PATTERNS))])
FEATURE_NAMES = frozenset(
    {"readings", "in_text", "above_largest", "is_largest", "log_ratio_largest", "log_value", "left_out", "compares",
     "compares_and_sum", "states_total", "states_total_and_sum"} | {f"reading:{name}" for name in READING_NAMES})


def _arm_sizes(text: str) -> list[int]:
    """The sizes of the arms "(n = N)" a text states, years left out."""
    sizes = [_as_int(a) for a in _N_EQUALS.findall(text)]
    return [v for v in sizes if v is not None and not _is_year(v)]


def _first_sentence_sum(counts: list[list[int]]) -> int | None:
    """The sum of the counts of the first sentence that states two or more."""
    return next((sum(c) for c in counts if len(c) >= 2), None)


def readings(text: str) -> dict[int, list[str]]:
    """Every number the patterns can read as the sample, with the names of the readings that
    propose it: the first explicit total ('total_first'), each total pattern ('total_pattern_K'),
    the largest total, the total with a comparison group ('total_compared'), groups that follow the
    total ('total_groups', 'total_arms'), joint and one-by-one groups, groups side by side
    ('group_sum'), the first / largest count of people and those of the first sentence with two
    ('counted_*'), arms "(n = N)" ('arms_*'), "Of the N ..." ('whole'), one case, and the fixed
    order's answer ('rules')."""
    out: list[tuple[str, int | None]] = []
    per_pattern, joint, one_by_one = _totals(text), _joint_counts(text), _groups_one_by_one(text)
    found = [c for counts in per_pattern for c in counts]
    if found:
        start, n = min(found)
        out += [("total_first", n), ("total_compared", _with_comparison(text, start, n)),
                ("total_max", max(v for _, v in found))]
        out += [(f"total_pattern_{k}", counts[0][1]) for k, counts in enumerate(per_pattern) if counts]
        if groups := _groups_after(text, start):
            out.append(("total_groups", sum(groups)))
        if arms := _arms_after(text, start):
            out += [("total_arms", sum(arms)), ("total_and_arms", sum(arms) if arms[0] == n else n + sum(arms))]
    if joint:
        out.append(("joint", joint[0][1]))
    if one_by_one:
        out.append(("one_by_one", one_by_one[1]))
    if side_by_side := _group_sum(text):
        out.append(("group_sum", side_by_side[1]))
    sentences = _SENTENCE.split(text)
    counted = _counts(_COUNTED_RE, text)
    if counted:
        out += [("counted_first", counted[0][1]), ("counted_compared", _with_comparison(text, *counted[0])),
                ("counted_max", max(v for _, v in counted)),
                ("counted_sentence_sum", _first_sentence_sum(
                    [[v for _, v in _counts(_COUNTED_RE, s) if not _is_year(v)] for s in sentences]))]
        if len(counted) >= 2:
            out.append(("counted_first_two", counted[0][1] + counted[1][1]))
    sizes = _arm_sizes(text)
    if sizes:
        out.append(("arms_first", sizes[0]))
        if len(sizes) >= 2:
            out += [("arms_first_two", sizes[0] + sizes[1]), ("arms_max", max(sizes)),
                    ("arms_sentence_sum", _first_sentence_sum([_arm_sizes(s) for s in sentences]))]
    whole = _WHOLE.search(text)
    if whole:
        out.append(("whole", _as_int(whole.group(1))))
    if _ONE_CASE.search(text):
        out.append(("one_case", 1))
    out.append(("rules", _fixed_order(text, found, joint, one_by_one)))
    proposed: dict[int, list[str]] = {}
    for name, value in out:
        if value is not None and value > 0 and name not in proposed.get(value, []):
            proposed.setdefault(value, []).append(name)
    return proposed


def _people_counts(text: str) -> list[int]:
    """Counts of people and arms "(n = N)" in the text, years left out."""
    return [v for _, v in _counts(_COUNTED_RE, text) if not _is_year(v)] + _arm_sizes(text)


def candidate_features(text: str) -> dict[int, dict[str, float]]:
    """Each proposed number's features for the chooser: which readings propose it, whether it is
    written in the text or only a sum, how it compares with the largest count of people, and
    whether the text compares groups or states a total."""
    proposed = readings(text)
    written, left_out = _written(text)
    largest = max((v for v in _people_counts(text) if v not in left_out), default=0)
    compares, totals = bool(_COMPARISON_WORDS.search(text)), bool(_TOTAL_WORDS.search(text))
    out = {}
    for value, names in proposed.items():
        f = {f"reading:{name}": 1.0 for name in names}
        in_text = value in written
        f.update({"readings": len(names) / 5, "in_text": float(in_text), "above_largest": float(value > largest),
                  "is_largest": float(value == largest),
                  "log_ratio_largest": max(-3.0, min(3.0, math.log((value + 1) / (largest + 1)))),
                  "log_value": math.log10(value + 1) / 4, "left_out": float(value in left_out)})
        if compares:
            f.update({"compares": 1.0, "compares_and_sum": float(not in_text)})
        if totals:
            f.update({"states_total": 1.0, "states_total_and_sum": float(not in_text)})
        out[value] = f
    return out


class SizeChooser(BaseModel):
    """Logistic regression over candidate_features: the probability that a proposed number is the
    sample."""

    features: list[str] = Field(description="Feature names, in the order of coef.")
    coef: list[float]
    intercept: float
    floor: float = Field(description="The best candidate must score at least this, else no number is read.")
    _weights: dict[str, float] = PrivateAttr(default_factory=dict)

    def model_post_init(self, _context: object) -> None:
        unknown = set(self.features) - FEATURE_NAMES
        if unknown:
            raise ValueError(f"the sample-size chooser weighs features this version does not compute "
                             f"({', '.join(sorted(unknown))}); fit it again with `python -m evals.train_sample_size`.")
        if len(self.coef) != len(self.features):
            raise ValueError("the sample-size chooser needs one coefficient per feature.")
        self._weights = dict(zip(self.features, self.coef, strict=True))

    def score(self, features: dict[str, float]) -> float:
        z = self.intercept + sum(self._weights.get(k, 0.0) * v for k, v in features.items())
        return 1.0 / (1.0 + math.exp(-z))

    def best(self, candidates: dict[int, dict[str, float]]) -> tuple[int, float] | None:
        """The best-scoring candidate and its score (equal scores go to the smaller number); None
        when there is none."""
        if not candidates:
            return None
        score, _, value = max((self.score(f), -value, value) for value, f in candidates.items())
        return value, score

    def choose(self, text: str) -> int | None:
        best = self.best(candidate_features(text))
        return best[0] if best is not None and best[1] >= self.floor else None


@lru_cache(maxsize=1)
def packaged_chooser() -> SizeChooser | None:
    """The chooser shipped with the package (None if its file is missing)."""
    if not MODEL_PATH.is_file():
        return None
    return SizeChooser.model_validate(json.loads(MODEL_PATH.read_text()))


def sample_size(text: str, chooser: SizeChooser | bool = True) -> int | None:
    """The number of participants a text states, or None. `chooser`: True for the packaged one (the
    fixed order when its file is missing), False for the fixed order, or a SizeChooser."""
    model = packaged_chooser() if chooser is True else chooser or None
    return model.choose(text) if model is not None else sample_size_rules(text)


def states_size(text: str, n: int) -> bool:
    """Whether `text` (one sentence, or a title) states `n` as the number of people studied: a count
    of people, an arm "(n = N)", or a total its groups add up to, as readings() proposes it; a number
    that counts something else ("(≥18 years)") does not."""
    return n in readings(text) or n in _people_counts(text)
