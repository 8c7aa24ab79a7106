"""Which language a claim is written in, well enough to refuse what the English models would misread.

Dependency-free: letters of a non-Latin script (Chinese, Cyrillic, Arabic, ...) name the language
outright; a Latin-script claim is told apart by its function words, which every sentence has and
which, unlike content words, are few and distinct per language. Only words that are not also
English words are listed, so an English claim (however technical) is never taken for another
language; a claim with no function words at all (e.g. "Coffee causes cancer") counts as English.
"""

from __future__ import annotations

import unicodedata

from pydantic import BaseModel

from claimscope.tools.text.text_guard import words

# Scripts that name a language (or a group) on their own.
_SCRIPT_LANGUAGE = {
    "CJK": "Chinese", "HIRAGANA": "Japanese", "KATAKANA": "Japanese", "HANGUL": "Korean",
    "CYRILLIC": "Russian (or another Cyrillic-script language)", "ARABIC": "Arabic", "HEBREW": "Hebrew",
    "GREEK": "Greek", "THAI": "Thai", "DEVANAGARI": "Hindi (or another Devanagari-script language)",
    "BENGALI": "Bengali", "TAMIL": "Tamil", "TELUGU": "Telugu", "GUJARATI": "Gujarati",
    "GURMUKHI": "Punjabi", "KANNADA": "Kannada", "MALAYALAM": "Malayalam", "GEORGIAN": "Georgian",
    "ARMENIAN": "Armenian", "ETHIOPIC": "Amharic", "LAO": "Lao", "KHMER": "Khmer", "MYANMAR": "Burmese",
    "SINHALA": "Sinhala",
}

_ENGLISH = frozenset("""the of and to in is are was were be been that this these those with for from by on at as
    it its not no does do did than more less has have had can may might will would should must which who
    whom whose what when where why how an a or but if into about between among after before during""".split())
# English verbs a claim often uses; also spelt so in Spanish ("reduce"), so they count for neither.
_SHARED = frozenset("reduce reduces increase causes cause prevents prevent improves improve risk".split())

# Function words of other Latin-script languages that are not English words.
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "German": frozenset("""der die das den dem des ein eine einer eines einem einen und ist sind nicht von
        mit bei zu zur zum auf für über unter durch gegen ohne oder aber wird werden wurde kann können
        verringert erhöht senkt verursacht verhindert das dass wie auch nur noch sehr""".split()),
    "French": frozenset("""le la les un une des du et est sont pas ne de dans sur avec pour par chez sans
        ou mais qui que dont cette ces aux au plus moins réduit augmente provoque empêche diminue""".split()),
    "Spanish": frozenset("""el la los las un una unos unas y es son no del en con para por sin sobre o
        pero que cual este esta estos estas más menos reducen aumenta causa previene disminuye""".split()),
    "Italian": frozenset("""il lo la gli le un una uno e è sono non del della dei delle di in con per
        su senza o ma che questo questa più meno riduce aumenta causa previene""".split()),
    "Portuguese": frozenset("""o a os as um uma e é são não do da dos das de em com para por sem sobre ou
        mas que este esta mais menos reduz aumenta causa previne""".split()),
    "Dutch": frozenset("""de het een en is zijn niet van met bij voor over onder door tegen zonder of maar
        wordt worden kan verlaagt verhoogt veroorzaakt voorkomt""".split()),
}
# Words shared with English (or too short to tell) never count for another language.
_AMBIGUOUS = _ENGLISH | _SHARED | frozenset("a e o i in is die son on no de la le me era per con via pro et al sin".split())
# Word endings (of words of six letters or more) that English words do not have.
_ENDINGS: dict[str, tuple[str, ...]] = {
    "German": ("ung", "ungen", "heit", "keit", "ität", "lich", "isch"),
    "Spanish": ("ción", "ciones", "idad", "mente"),
    "Italian": ("zione", "zioni", "ità", "mente"),
    "Portuguese": ("ção", "ções", "dade"),
    "French": ("ité", "ment", "eux", "euse"),
}

SUPPORTED = ("English",)


def _english_ending(word: str) -> bool:
    # "-ment", "-mente"-like endings shared with English words (treatment, government, supplement).
    return word.endswith(("ment", "ments", "ity"))


class LanguageGuess(BaseModel):
    language: str
    english: bool
    evidence: str = ""


def detect_language(text: str) -> LanguageGuess:
    """The claim's language: English unless its script or function words say otherwise."""
    letters = [ch for ch in text if ch.isalpha()]
    if letters:
        counts: dict[str, int] = {}
        for ch in letters:
            try:
                script = unicodedata.name(ch).split(" ", 1)[0]
            except ValueError:
                continue
            counts[script] = counts.get(script, 0) + 1
        script, n = max(counts.items(), key=lambda kv: kv[1]) if counts else ("LATIN", 0)
        # Greek letters are at home in English science (alpha, beta): only a mostly-Greek text is Greek.
        if script != "LATIN" and script in _SCRIPT_LANGUAGE and n / len(letters) >= 0.5:
            return LanguageGuess(language=_SCRIPT_LANGUAGE[script], english=False,
                                 evidence=f"{n} of {len(letters)} letters are {script.lower()}")
    tokens = words(text)
    english = sum(1 for w in tokens if w in _ENGLISH)
    best, hits = "", 0
    for language, vocab in _FUNCTION_WORDS.items():
        found = sum(1 for w in tokens if w in vocab and w not in _AMBIGUOUS)
        found += sum(1 for w in tokens if len(w) >= 6 and w not in _SHARED
                     and w.endswith(_ENDINGS.get(language, ())) and not _english_ending(w))
        if found > hits:
            best, hits = language, found
    if hits >= 2 and hits > english:
        return LanguageGuess(language=best, english=False,
                             evidence=f"{hits} {best} function words, {english} English")
    return LanguageGuess(language="English", english=True)
