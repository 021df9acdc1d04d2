"""Is a token a word of the asked language? The scorer's lexicon, for "non-language earns nothing".

A rhyme plan can be kept with any letters (random strings, syllables, an English poem all rhyme), so
a line counts as verse only when it is made of words of the asked script. The word lists, their
sources, licences and measured coverage are in docs/scorer.md, "Lexicon": ``lexicon/arabic.txt``
(wordfreq's Arabic list and the project's Derja words, common words first) and ``lexicon/arabizi.txt``
(the project's core, the samples' and TArC's words, in the scorer's phonetic fold), both written by
``bench/build_lexicon.py``.

A lookup strips clitics and suffixes before it gives up, so inflected forms need not be listed, but a
stem must keep three letters (four before a one-vowel suffix), and in Arabic script the pieces that
come off must be ones the stem can carry (``_arabic_splits``, ``_arabic_stem_ok``): a stem that is not
a word stays not a word. An Arabizi word the fold misses is looked up once more by its loose form
(ح as 7 or h, ق as 9, q, k or g, ع as 3 or left out, a vowel or two dropped), only from five letters
or with a digit, because short loose matches are what random syllables make. Digits are never words
(in Arabizi a digit inside a word is a letter: ``3la``). At run time only the two text files are read
(once, into frozensets; lookups are cached per word).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scorer.arabic import AR_CLITICS, ARABIC_LETTERS, LATIN_ARTICLE_APART, arabizi_fold, single_letters

DIR = Path(__file__).resolve().parent / "lexicon"
ARABIC_FILE = DIR / "arabic.txt"
ARABIZI_FILE = DIR / "arabizi.txt"

MIN_STEM = 3
"""Letters a stem must keep after a clitic or suffix is stripped (random 2-letter strings are words
too often); in Arabic script, the letters after the article too."""

# The rhyme's clitics and two more chains (فب, فل) that prefix words but not rhyme words, longest
# first. Arabic-script words are split into clitic + verb prefix + stem + suffixes by the rules of
# _arabic_splits.
AR_PREFIXES = (*AR_CLITICS, "فب", "فل")
AR_ARTICLES = ("وبال", "وال", "بال", "فال", "كال", "ولل", "لل", "ال")
"""Clitic chains that end in the article: what follows is a noun."""
AR_VERB_CLITICS = frozenset(("", "و", "ف", "ل", "وف", "ول", "فل"))
"""Clitic chains an imperfect verb takes (and, so, ل of purpose); a preposition (ب, ك) or the article
takes a noun, never a verb prefix."""
AR_SUFFIX_SLOTS: dict[str, frozenset[int]] = {
    s: frozenset(slots)
    for s, slots in {
        "ي": (0, 2, 3),  # nisba; 2nd person feminine; my
        "ه": (1, 3),  # ة (written ه once normalised); his
        "ت": (1, 2),  # ة before a pronoun (ريحتو); the verb's subject
        "ات": (2,),
        "ين": (2,),
        "ون": (2,),
        "وا": (2,),
        "و": (2, 3),  # they (verbs); his (Tunisian)
        "نا": (2, 3),  # we (subject); us, our
        "ها": (3,),
        "هم": (3,),
        "هن": (3,),
        "هما": (3,),
        "كم": (3,),
        "ني": (3,),
        "ك": (3,),
        "وه": (3,),
        "لي": (4,),  # to me, to you, to him (Tunisian dative)
        "لك": (4,),
        "لو": (4,),
        "ش": (5,),  # negation, always last
    }.items()
}
"""Where each suffix sits in the order Arabic stacks them, stem outwards: 0 nisba, 1 ة, 2 subject or
plural ending, 3 object or possessive pronoun, 4 dative, 5 negation ش. A suffix stripped after
another must sit further in (كتبتهاش: ش, ها, ت); the same suffix never twice."""
AR_SUFFIXES = tuple(sorted(AR_SUFFIX_SLOTS, key=len, reverse=True))  # longest first: هما, not ما
AR_NOUN_SUFFIXES = frozenset(("ات", "ين", "ون", "ه", "ي"))
"""The endings a word with the article takes (plural, ة, nisba): no pronoun, no verb ending."""
AR_VERB_PREFIXES = ("ن", "ت", "ي")
# Arabizi clitics and suffixes in the folded spelling (e→a, ou→u, ch→š, doubled letters single).
LATIN_PREFIXES = (
    "wal",
    "bal",
    "fal",
    "mal",
    "lal",
    "kal",
    "3al",
    "al",
    "wa",
    "w",
    "b",
    "f",
    "l",
    "m",
    "k",
    "a",
)
LATIN_SUFFIXES = (
    "hum",
    "lak",
    "lik",
    "ha",
    "na",
    "ni",
    "li",
    "ak",
    "ik",
    "uh",
    "in",
    "at",
    "u",
    "š",
    "a",
    "i",
    "k",
    "h",
)
LATIN_VERB_PREFIXES = ("na", "ta", "ia", "n", "t", "i")
LATIN_WEAK_SUFFIXES = frozenset("aiu")
"""One-vowel suffixes (-a, -i, -ou): on a three-letter stem they turn a third of random two-syllable
strings into words (dar+a, bid+a), so their stem keeps four letters; short forms are listed."""


def load_words(path: Path) -> frozenset[str]:
    """One word a line; '#' lines are comments (the licence header)."""
    if not path.exists():
        return frozenset()
    with path.open(encoding="utf-8") as f:
        return frozenset(w for w in (ln.strip() for ln in f) if w and not w.startswith("#"))


COMMON_END = "# end of the common words"
"""The line of ``arabic.txt`` that ends its first part, the common words (see COMMON_ZIPF)."""
COMMON_ZIPF = 3.0
"""Zipf (log10 of occurrences per billion words) a wordfreq word must reach to be *common*: a stem
reached by stripping a one-letter clitic other than و (ب ف ك ل and their chains) must be common or
one of the project's own words. Random three-consonant strings ending in ار start with one of
these letters one time in five, and a third of the rest are rare listed words (measured,
bench/bench_lexicon.py); genuine poems need a rare stem after such a clitic almost never."""


def load_arabic(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(every word, the common words): ``arabic.txt`` lists the common words first, up to the line
    COMMON_END, then the rest."""
    if not path.exists():
        return frozenset(), frozenset()
    common: list[str] = []
    words: list[str] = common
    rest: list[str] = []
    with path.open(encoding="utf-8") as f:
        for ln in f:
            w = ln.strip()
            if w == COMMON_END:
                words = rest
            elif w and not w.startswith("#"):
                words.append(w)
    return frozenset(common + rest), frozenset(common)


ARABIC, ARABIC_COMMON = load_arabic(ARABIC_FILE)
ARABIZI: frozenset[str] = load_words(ARABIZI_FILE)


def arabic_lookup_form(word: str) -> str:
    """The lexicon's spelling of a normalised Arabic-script word: Tunisian ڨ is looked up as ق
    (ڨلب is قلب), so the general Arabic list covers it."""
    return word.replace("ڨ", "ق")


def _stems(
    word: str,
    prefixes: tuple[str, ...],
    suffixes: tuple[str, ...],
    verb: tuple[str, ...],
    weak: frozenset[str] = frozenset(),
) -> list[str]:
    """The word, the word without one clitic prefix, and each of those without up to two suffixes,
    then without a verb prefix; stems shorter than MIN_STEM are dropped, and a ``weak`` suffix (one
    vowel letter) leaves a stem of MIN_STEM + 1 at least."""
    heads = [word]
    for p in prefixes:
        if word.startswith(p) and len(word) - len(p) >= MIN_STEM:
            heads.append(word[len(p) :])
    out = list(heads)
    for h in heads:
        x = h
        for _ in range(2):
            for s in suffixes:
                if x.endswith(s) and len(x) - len(s) >= MIN_STEM + (s in weak):
                    x = x[: -len(s)]
                    out.append(x)
                    break
            else:
                break
    for s in list(out):
        for v in verb:
            if s.startswith(v) and len(s) - len(v) >= MIN_STEM:
                out.append(s[len(v) :])
    return out


class WordTable(dict):
    """word → ``judge(word)``, filled on first use: a caller asking about every word of a poem (a
    poem's vocabulary repeats, and a run's too) maps ``table.__getitem__`` over the words and is
    answered from a dict in C instead of a Python call per word. Cleared when it grows past
    WORD_TABLE_MAX (adversarial vocabularies), like the lexicon's own bounded caches."""

    __slots__ = ("judge",)

    def __init__(self, judge: Callable[[str], Any]) -> None:
        super().__init__()
        self.judge = judge

    def __missing__(self, w: str) -> Any:
        if len(self) >= WORD_TABLE_MAX:
            self.clear()
        v = self[w] = self.judge(w)
        return v


WORD_TABLE_MAX = 1 << 16


def article_length(word: str) -> int:
    """Length of the article chain (AR_ARTICLES) ``word`` starts with, 0 if none."""
    return next((len(a) for a in AR_ARTICLES if word.startswith(a)), 0)


def _verb_stem(stem: str) -> bool:
    """``stem`` can follow an imperfect prefix (ن ت ي): a stem of four letters or more has ā before
    its last letter only in the forms that put t or n before or inside the root (تباع, نهار,
    ختار, ستطاع); no verb stem is CCāC otherwise, as random strings ending in ار are."""
    return len(stem) < 4 or stem[-2] != "ا" or stem[0] in "تن" or stem[1] in "تط"


def _arabic_splits(w: str) -> Iterator[tuple[str, str, str]]:
    """(clitic, verb prefix, stem) for each way to read ``w`` as clitic + verb prefix + stem +
    suffixes that Arabic allows: the stem keeps MIN_STEM letters (after the article too); after the
    article only the noun endings (AR_NOUN_SUFFIXES) and no verb prefix; suffixes stacked in their
    order (AR_SUFFIX_SLOTS), at most two; a verb prefix only after the clitics a verb takes
    (AR_VERB_CLITICS) and on a verb-shaped stem (_verb_stem)."""
    heads = [("", w)]
    heads += [(p, w[len(p) :]) for p in AR_PREFIXES if w.startswith(p) and len(w) - len(p) >= MIN_STEM]
    for p, h in heads:
        noun = p in AR_ARTICLES
        art = 0 if noun else article_length(h)
        noun = noun or art > 0
        stems = [h]
        x, last = h, None
        for _ in range(2):
            s = next((s for s in AR_SUFFIXES if x.endswith(s) and len(x) - len(s) >= MIN_STEM), None)
            if s is None or len(x) - len(s) - art < MIN_STEM or (noun and s not in AR_NOUN_SUFFIXES):
                break
            if last is not None and (s == last or max(AR_SUFFIX_SLOTS[last]) <= min(AR_SUFFIX_SLOTS[s])):
                break
            x, last = x[: -len(s)], s
            stems.append(x)
        for x in stems:
            if p or x != w:
                yield p, "", x
            if not noun and p in AR_VERB_CLITICS:
                for v in AR_VERB_PREFIXES:
                    if x.startswith(v) and len(x) - len(v) >= MIN_STEM and _verb_stem(x[len(v) :]):
                        yield p, v, x[len(v) :]


def _arabic_stem_ok(clitic: str, verb: str, stem: str) -> bool:
    """``stem`` is listed and may carry ``clitic`` and ``verb``: a preposition (ب, ك, ل, alone or
    after و or ف) only on a noun, a stem the list holds with the article or that has it; a one-letter
    clitic other than و only on a common word (COMMON_ZIPF) unless the stem has the article."""
    if stem not in ARABIC:
        return False
    if not clitic or clitic in AR_ARTICLES or clitic == "و" or stem.startswith("ال"):
        return True
    if not verb and clitic[-1] in "بكل" and "ال" + stem not in ARABIC:
        return False
    return stem in ARABIC_COMMON


def unstretched(word: str) -> str:
    """A normalised Arabic-script word that no common word spells, with each run of a letter once
    (فيين, واايد: a letter repeated stretches a word as tatweel does); common words keep theirs (اللي)."""
    if word in ARABIC_COMMON:
        return word
    single = single_letters(word)
    return single if len(single) < len(word) else word


@functools.lru_cache(maxsize=1 << 16)
def is_arabic_word(word: str) -> bool:
    """A normalised Arabic-script token is a word of Derja/MSA (see the module doc)."""
    if not word or any(ch not in ARABIC_LETTERS for ch in word):
        return False
    w = arabic_lookup_form(word)
    if w in ARABIC:
        return True
    return any(_arabic_stem_ok(*split) for split in _arabic_splits(w))


@functools.lru_cache(maxsize=1 << 16)
def is_attested_arabic(word: str) -> bool:
    """A normalised Arabic-script word is listed, or a split reaches a common stem (COMMON_ZIPF).
    Arabic's roots are dense: the splits reach a rare listed stem from invented words in Derja's
    shapes (تنكحش, يخطش) as from rare real ones; a poem of them is the lexicon gate's (ATTESTED_RAMP)."""
    w = arabic_lookup_form(word)
    if w in ARABIC:
        return True
    return any(s in ARABIC_COMMON and _arabic_stem_ok(c, v, s) for c, v, s in _arabic_splits(w))


# Spellings the fold keeps apart but writers of Tunisian Arabizi use for one sound: 7 or h (ح),
# 9, q, k or g (ق), and ع written 3, a vowel or nothing (3lik, alik: the loose key drops the 3 and
# the dropped-vowel spellings match the rest). Vowel quality is not merged (feha and fiha are both
# listed): merging it let a third of random syllable strings through (measured). The loose key is
# only compared with loose_variants().
_LOOSE = str.maketrans({"7": "h", "9": "k", "g": "k", "3": ""})
_VOWELS = frozenset("aiu")
MIN_LOOSE = 5
"""Letters a token's loose form must have to be looked up by it: short strings are what random
syllables make (every two-syllable string is one of about 2,000), so short words are listed."""
_ARABIZI_DIGITS = frozenset("35789")
MIN_VARIANT = 3
"""Letters a vowel-dropped spelling must keep to be looked up (``wlh`` for wallah, ``s7i7`` for
sahih): shorter skeletons match too many random strings (measured, bench/bench_lexicon.py)."""
MAX_DROPPED = 2
"""Vowels a spelling may drop from a listed word."""


def loose_form(folded: str) -> str:
    """A folded Arabizi word with the letters merged that writers interchange (see _LOOSE), doubled
    letters single."""
    return single_letters(folded.translate(_LOOSE))


def _dropped(word: str) -> set[str]:
    """``word`` and its spellings without one to MAX_DROPPED of its vowels that keep MIN_VARIANT
    letters: the vowelless ways a listed word is typed."""
    out = {word}
    frontier = {word}
    for _ in range(MAX_DROPPED):
        frontier = {
            v
            for w in frontier
            for i, ch in enumerate(w)
            if ch in _VOWELS and len(v := loose_form(w[:i] + w[i + 1 :])) >= MIN_VARIANT
        } - out
        out |= frontier
    return out


@functools.cache
def loose_variants() -> frozenset[str]:
    """The loose forms of every Arabizi lexicon word and their vowel-dropped spellings. Built once,
    on the first lookup that needs it (a few tens of milliseconds), not at import: Arabic-script
    scoring never pays for it."""
    out: set[str] = set()
    for w in ARABIZI:
        out |= _dropped(loose_form(w))
    return frozenset(out)


def arabizi_lookup_form(word: str) -> str:
    """The lexicon's spelling of a Latin token: the rhyme code's phonetic fold (case, ch/sh,
    ou/oo/u, e/a, doubled letters)."""
    return arabizi_fold(word)


_ARTICLE_APART = re.compile(LATIN_ARTICLE_APART)
_H_FOR_7 = re.compile("(?<![cskg])h")
"""An h that is no part of ch, sh, kh, gh: Tunisian Arabizi writes ح as 7 or as h (rouh, hbib, thki:
rou7, 7bib, t7ki), and the list spells it 7. A word unknown as written is looked up once more with
such h written 7, exactly (not loosely: ``MIN_LOOSE`` still bounds the loose lookup), so a poem
spelled with h, q and kh reads as its spelling with 7, 9 and 5 does. h stays h in the fold, being ه
too (m3ah)."""


def _listed_stems(w: str) -> list[str] | None:
    """None when the folded token ``w`` or one of its stems (clitics, suffixes, verb prefixes, the
    construct state) is listed, else the stems, for the loose lookup."""
    if w in ARABIZI:
        return None
    stems = _stems(w, LATIN_PREFIXES, LATIN_SUFFIXES, LATIN_VERB_PREFIXES, LATIN_WEAK_SUFFIXES)
    # construct state: a feminine noun's -a is written -et before its complement (chajret ezzin)
    stems += [s[:-2] + "a" for s in stems if s.endswith("at") and len(s) > MIN_STEM]
    if any(s in ARABIZI for s in stems):
        return None
    return stems


@functools.lru_cache(maxsize=1 << 16)
def is_attested_arabizi(word: str) -> bool:
    """A Latin token is listed, or one of its stems is, as folded or with h for ح (_H_FOR_7): known
    without the loose lookup, which reaches a listed skeleton from a third of invented words in
    Derja's shapes with a digit (ysut, wig7a); a poem of them is the lexicon gate's (ATTESTED_RAMP)."""
    if not word or word.isdigit() or not word.isascii():
        return False
    w = arabizi_lookup_form(word)
    if not w or w.isdigit():
        return False
    if _listed_stems(w) is None:
        return True
    if (article := _ARTICLE_APART.match(word)) and article.end() < len(word):
        return is_attested_arabizi(word[article.end() :])  # fen-nhar, bet-t3am: the word after it
    low = word.lower()
    spelled = _H_FOR_7.sub("7", low) if len(w) >= MIN_VARIANT else low
    return spelled != low and _listed_stems(arabizi_fold(spelled)) is None


@functools.lru_cache(maxsize=1 << 16)
def is_arabizi_word(word: str) -> bool:
    """A Latin token is a word of Tunisian Arabizi (see the module doc). Digits alone are not."""
    if is_attested_arabizi(word):
        return True
    w = arabizi_lookup_form(word)
    if not w or w.isdigit() or not word.isascii():
        return False
    if (article := _ARTICLE_APART.match(word)) and article.end() < len(word):
        return is_arabizi_word(word[article.end() :])
    low = word.lower()
    digit = any(ch in _ARABIZI_DIGITS for ch in low) or "kh" in low or "gh" in low
    floor = MIN_VARIANT if digit else MIN_LOOSE
    variants = loose_variants()
    stems = _listed_stems(w) or []
    return any(len(v) >= floor and v in variants for v in map(loose_form, (w, *stems)))


def is_word(word: str, arabizi: bool) -> bool:
    """A token of a poem is a word of the asked script's language."""
    return is_arabizi_word(word) if arabizi else is_arabic_word(word)
