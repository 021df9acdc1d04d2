"""MSA's own evidence, which Derja markers do not cancel (principle 3; docs/scorer.md, "MSA's own
evidence is not cancelled either").

MSA with برشا, ديما sprinkled in outweighs MSA's particles, which Derja poetry borrows (حين, اذا, قد)
and ``scorer.variety`` does not count against it; this module counts only what Derja does not say,
each distinct form once: ``msa_own.txt`` per script (MSA's function words, and content words Derja
says its own way: ينتظر for يستنى), the first person in ``أ-`` read from the raw text (``first_person_verbs``:
normalisation folds أ to ا, and اكتب is also the imperative), ``-ūn`` imperfects, and Latin ``a…u``
first persons and case-ended feminines (``_latin_form``). No honest poem nor real Tunisian sentence
of TArC carries two such forms. Pure: tables load at import.
"""

from __future__ import annotations

import re
from pathlib import Path

from scorer.arabic import normalize_arabic
from scorer.lexicon import ARABIC

DIR = Path(__file__).resolve().parent / "lexicon" / "varieties"


def _words(path: Path, fold: bool) -> frozenset[str]:
    text = "\n".join(line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(normalize_arabic(w) if fold else w.lower() for w in text.split())


_OWN_AR = _words(DIR / "arabic" / "msa_own.txt", fold=True)
OWN_ARABIC = _OWN_AR | {c + w for w in _OWN_AR for c in ("و", "ف") if not w.startswith("لد")}
"""MSA's own words, normalised, bare and after و/ف (not ولدي: Derja "my son")."""
OWN_LATIN = _words(DIR / "arabizi" / "msa_own.txt", fold=False)
_OWN_LATIN_W = OWN_LATIN | {"w" + w for w in OWN_LATIN} | {"wa" + w for w in OWN_LATIN}
_NOT_VERBS = frozenset(
    (DIR / "arabic" / "msa_not_verbs.txt").read_text(encoding="utf-8").split("\n", 2)[2].split()
)
"""أ-words shaped like a verb that are elatives or nouns (أحسن "better" is Derja too)."""
_DIACRITICS = re.compile("[\u064b-\u0652\u0640]")
_RAW_WORD = re.compile("[\u0621-\u0652\u0640]+")
"""A run of Arabic letters and marks: one greedy class, so linear in the text (``أ`` is looked for in
each run, not by the pattern: ``X*أX*`` backtracks over every start of a long run without it)."""


def _hamza_runs(raw: str) -> list[str]:
    """``[t for t in _RAW_WORD.findall(raw) if "أ" in t]``: each run found from an ``أ`` outwards, so
    the text is scanned by ``str.find``, not matched word by word (a poem holds a few such words)."""
    out: list[str] = []
    n = len(raw)
    i = raw.find("أ")
    while i >= 0:
        start, stop = i, i + 1
        while start > 0 and "\u0621" <= raw[start - 1] <= "\u0652":  # _RAW_WORD's class (U+0640 inside)
            start -= 1
        while stop < n and "\u0621" <= raw[stop] <= "\u0652":
            stop += 1
        out.append(raw[start:stop])
        i = raw.find("أ", stop)
    return out


def first_person_verbs(raw: str, words: set[str]) -> set[str]:
    """The folded forms of the MSA first person singular imperfects (and أن) in ``raw`` whose
    folded form is in ``words`` (the poem's: a prose preamble does not count). Without diacritics
    and a و/ف or سـ before it: أ + three letters (two with a final shadda: أحنّ), no ا and no final
    ة or ى (أيام, أمانة, أحلى), no noun of ``_NOT_VERBS``, and a Derja twin ن + the same letters
    the lexicon holds (نكتب; أهلي, أرضك have none)."""
    out: set[str] = set()
    for token in _hamza_runs(raw):
        w = _DIACRITICS.sub("", token)
        if w[0] in "وف" and len(w) > 3:
            w = w[1:]
        if w.startswith("سأ") and len(w) > 4:
            w = w[1:]
        if w == "أن":
            out.add("ان")
            continue
        rest = w[1:]
        if w[0] != "أ" or "ا" in rest or rest[-1:] in ("ة", "ى"):
            continue
        if len(rest) < 3 and not (len(rest) == 2 and token.endswith("ّ")):
            continue
        if w in _NOT_VERBS or normalize_arabic("ن" + rest) not in ARABIC:
            continue
        folded = normalize_arabic(token)
        if folded in words or folded.lstrip("وفس") in words:
            out.add(normalize_arabic(w))
    return out


def arabic_weight(words: list[str], verbs: set[str], un_verbs: int) -> tuple[float, tuple[str, ...]]:
    """MSA's own weight in an Arabic-script poem (each distinct form once) and the forms found:
    ``verbs`` are ``first_person_verbs``'s, ``un_verbs`` the number of distinct -ūn imperfects
    ``scorer.variety`` found."""
    found = OWN_ARABIC.intersection(words) | verbs
    return float(len(found) + un_verbs), tuple(sorted(found))


def _latin_form(low: str) -> bool:
    """A lower-cased Latin word shaped like MSA: a first person ``a…u``, a case-ended feminine, or a
    plural imperfect in ``-ūna`` (yal3abuna, yajtami3una: the Arabic script's -ون, which Derja does
    not say). Tunisian Arabizi writes its plural -ou and an object -na after it (y7ebbouna, they
    love us): of TArC's 15 y-/t- words in -una, every one is -ouna (tabouna, the oven, too)."""
    return (
        len(low) >= 6
        and low.isascii()
        and (
            (low[0] == "a" and low[-1] == "u" and low[-2] not in "aeiou")
            or (len(low) >= 7 and low.endswith(("atun", "atan")))
            or (low[0] in "yt" and low.endswith("una") and low[-4] != "o")
        )
    )


def latin_weight(words: list[str]) -> tuple[float, tuple[str, ...]]:
    """MSA's own weight in a Latin-script poem (each distinct form once) and the forms found."""
    lows = {w.lower() for w in words}
    found = (_OWN_LATIN_W & lows) | {w for w in lows if _latin_form(w)}
    return float(len(found)), tuple(sorted(found))


# --- case endings --------------------------------------------------------------------------------

CASE_MARKS = "\u064b\u064c\u064d\u064f\u0650"
"""Tanwīn (ً ٌ ٍ), ḍamma and kasra: the marks of MSA's case endings (الليلُ, قمرًا, سلامٌ, في بحرِ)."""
CASE_RAMP = (0.2, 0.3)
"""Share of a poem's words (rhyme words aside) written with a case ending (free, zero): Derja has lost
case, so a poem that writes it out on a fifth of its words and more is MSA, whatever Derja word is
sprinkled in (an MSA malzuma, gsim or mugef with one ديما or برشا and case endings on 29–61 % of its
words). Measured on the genuine, harmless, imperfect and wrong-form poems of
`tests/redteam_rounds/` and the samples: none writes one outside its rhyme words but two layouts
that scatter diacritics at random (0.11, 0.16); a poet marks the rhyme vowel (الظلامِ, السلامِ), so
the word before a line's end or a caesura mark is not counted. The gate is 1 up to `free`, 0 from `zero`."""
_CASE_WORD = re.compile("([\u0621-\u0652\u0640\u0670]+)([ \t]*)(?=(.?))")


def case_gate(raw: str) -> float:
    """The multiplier of MSA's case endings on the variety gate (CASE_RAMP); 1 for a text without
    any of CASE_MARKS (most poems: one C scan per mark). Linear: one pass of a regex with no
    nested quantifier, a look-ahead of one character."""
    if not any(c in raw for c in CASE_MARKS):
        return 1.0
    words = cased = 0
    for m in _CASE_WORD.finditer(raw):
        nxt = m.group(3)
        if not ("\u0621" <= nxt <= "\u0652" or nxt == "\u0640"):
            continue  # a rhyme word: before a line's end or a caesura mark, the poet may mark its vowel
        words += 1
        w = m.group(1).rstrip("\u0651\u0652")
        if w and (w[-1] in CASE_MARKS or (len(w) > 1 and w[-1] == "ا" and w[-2] == "\u064b")):
            cased += 1
    free, zero = CASE_RAMP
    share = cased / words if words else 0.0
    return min(1.0, max(0.0, (zero - share) / (zero - free)))
