"""Arabic normalisation, Tunisian Arabizi mapping and rhyme keys.

Rhyme in Arabic (and in Tunisian Derja written in Arabic letters) lives in the last letters of the
last word of a line: the rhyme consonant (rawī), the long vowel just before it (ridf) and the vowel
or ه after it (waṣl). Spelling in Derja is loose (ة/ه, أ/ا, ى/ي, decorative tatweel, partial
diacritics), so everything is folded first, then read from the end. Tunisian Arabizi (Latin letters
with digits 3=ع 5=خ 7=ح 9=ق …) gets the same treatment through a small phonetic folding.

Everything here is a pure function over short strings; the tables are built once at import so a
whole poem normalises with one ``str.translate`` call.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from typing import NamedTuple

# --- Arabic script -----------------------------------------------------------------------------

_DIACRITICS = [chr(c) for c in range(0x064B, 0x0660)] + ["\u0670"] + [chr(c) for c in range(0x06D6, 0x06EE)]
_FOLD: dict[int, str | None] = {ord(c): None for c in _DIACRITICS}
_FOLD.update(
    {
        0x0640: None,  # tatweel
        0x200C: None,  # ZWNJ
        0x200D: None,  # ZWJ
        0x200E: None,  # LRM
        0x200F: None,  # RLM
        0x061C: None,  # ALM
        0xFEFF: None,  # BOM
        ord("أ"): "ا",
        ord("إ"): "ا",
        ord("آ"): "ا",
        ord("ٱ"): "ا",
        ord("ى"): "ي",
        ord("ی"): "ي",
        ord("ې"): "ي",
        ord("ة"): "ه",
        ord("ۃ"): "ه",
        ord("ہ"): "ه",
        ord("ھ"): "ه",
        ord("ؤ"): "ء",
        ord("ئ"): "ء",
        ord("ک"): "ك",
        # /g/ letters: Tunisian ڨ is kept as its own letter; Persian/Moroccan spellings fold to it.
        ord("گ"): "ڨ",
        ord("ݣ"): "ڨ",
        ord("ڭ"): "ڨ",
        ord("ڤ"): "ف",  # /v/ in loanwords rhymes with ف
        # Arabic-Indic and Eastern Arabic-Indic digits are digits (a year under the poem: تونس، ٢٠٢٤)
        **{0x0660 + d: str(d) for d in range(10)},
        **{0x06F0 + d: str(d) for d in range(10)},
    }
)

ARABIC_LETTERS = frozenset("ءابتثجحخدذرزسشصضطظعغفقكلمنهويڨ")
PRESENTATION = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]")
NON_ARABIC_LETTER = re.compile("[^ءابتثجحخدذرزسشصضطظعغفقكلمنهويڨ]+")
LONG_VOWELS = frozenset("اوي")


# Layout, not content (docs/scorer.md): a text pasted from a web page writes its spaces as no-break
# or typographic spaces, and Arabizi typed on a French keyboard writes é, è, à… for the plain vowels
# (bléd, énti, él). Both fold here, in the same pass as the Arabic letter variants, so every later
# step (caesura marks, words, the lexicon, the Latin letter count) sees the plain spelling.
_SPACES = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f"
_FOLD.update(dict.fromkeys(map(ord, _SPACES), " "))
for _plain, _accented in (("e", "éèêë"), ("a", "àâä"), ("i", "îï"), ("o", "ôö"), ("u", "ûùü")):
    _FOLD.update(dict.fromkeys(map(ord, _accented), _plain))
    _FOLD.update(dict.fromkeys(map(ord, _accented.upper()), _plain.upper()))
_FOLD_STR = {chr(k): v or "" for k, v in _FOLD.items()}
_FOLDABLE = re.compile("[" + re.escape("".join(_FOLD_STR)) + "]")
# Folding never yields a foldable character, so one replace per character found is one pass.
assert not set("".join(_FOLD_STR.values())) & set(_FOLD_STR)


LATIN_ARTICLE_APART = (
    "(?i:[wbfl]?[ae](?:l[-‐‑]|"
    + "|".join(f"{c}[-‐‑](?={c})" for c in ("dh", "th", "ch", "sh", "d", "t", "s", "z", "j", "n", "r"))
    + "))"
)
"""An Arabizi article written with a hyphen (``ed-dar``, ``ech-chams``, ``wez-zghared``, ``el-bab``),
a proclitic w/b/f/l before it: the tokenizer (``scorer.text``) joins it to its word, which it is part
of (``eddar``), and the Arabizi lexicon looks up the word after it. Assimilated forms only before
their own letter; Latin letters only, so Arabic script is split as before; a fixed-length prefix, so
still linear."""


def normalize_arabic(text: str) -> str:
    """Fold presentation forms, diacritics, tatweel and letter variants so spelling noise never
    changes a rhyme, and fold no-break spaces to spaces and French-keyboard accents to the plain
    Latin vowels (see ``_FOLD_STR``). NFKC is applied only when presentation forms are present (it
    is the costly step and rarely needed).

    The fold is ``text.translate(_FOLD)``, done as one ``str.replace`` per distinct foldable
    character present: ``translate`` looks every character of a non-ASCII text up in the table
    one by one (~30 µs for a 27-line poem), while a poem holds a handful of distinct foldable
    characters (~6 µs).

    The last text and its fold are kept (`_LAST_FOLD`): a text folded again (a refrain, a parse read
    twice) is then one string comparison."""
    global _LAST_FOLD
    last = _LAST_FOLD
    if text == last[0]:
        return last[1]
    source = text
    # every presentation form lies in U+F000–U+FFFF, whose UTF-8 starts with the byte EF (and EF
    # is never a continuation byte): a quick encode rules most texts out (the regex tests every
    # character against the ranges, five times slower)
    if b"\xef" in text.encode("utf-8", "surrogatepass") and PRESENTATION.search(text):
        text = unicodedata.normalize("NFKC", text)
    if "اة" in text:
        # -āt: after a long ā the ta marbuta is heard as t (حياة rhymes with ساعات, not with -ah)
        text = text.replace("اة", "ات")
    for ch in set(_FOLDABLE.findall(text)):
        text = text.replace(ch, _FOLD_STR[ch])
    _LAST_FOLD = (source, text)
    return text


_LAST_FOLD: tuple[str, str] = ("", "")
"""The last (text, fold) of `normalize_arabic`, replaced whole: a reader in another thread sees one
pair or the other, never half of each."""


# --- Arabizi ------------------------------------------------------------------------------------

# Tunisian table (not the Gulf one: there 9 = ص and 8 = ق).
ARABIZI_DIGITS = {"2": "ء", "3": "ع", "5": "خ", "6": "ط", "7": "ح", "8": "غ", "9": "ق"}
# Phonetic folding to one symbol per sound so rhyme keys compare sounds, not spellings.
_LATIN_DIGRAPHS = [
    ("ch", "š"),
    ("sh", "š"),
    ("kh", "5"),
    ("gh", "8"),
    ("th", "t"),
    ("dh", "d"),
    # French qu is k before a vowel (marquini); q before ou or a consonant is ق (qoulilou, aqulu:
    # 9oulilou), which a bare qu -> k, after ou -> u, made klilu
    ("qua", "ka"),
    ("que", "ke"),
    ("qui", "ki"),
    ("ou", "u"),
    ("oo", "u"),
    ("ee", "i"),
    ("ei", "i"),
    ("ai", "a"),
    ("ay", "a"),
    ("ck", "k"),
    ("ph", "f"),
]
_LATIN_SINGLE = str.maketrans(
    {
        "é": "a",  # a French keyboard's e (bléd, énti): the plain e, as normalize_arabic folds it
        "è": "a",
        "ê": "a",
        "ë": "a",
        "à": "a",
        "â": "a",
        "î": "i",
        "ï": "i",
        "ô": "u",
        "û": "u",
        "ù": "u",
        "ü": "u",
        "ç": "s",
        "e": "a",  # Derja imala: 'e' and 'a' spell the same vowel at a line end
        "o": "u",
        "y": "i",
        "q": "9",
        "c": "k",
        "x": "5",
        "2": "",  # glottal stop: silent in Derja
    }
)
_LATIN_VOWELS = frozenset("aiu")
_NON_LATIN_WORD = re.compile(r"[^a-z0-9šéèêëàâîïôûùüç]+")


@functools.lru_cache(maxsize=65536)
def arabizi_fold(word: str) -> str:
    """Lower-case a Latin/Arabizi word and fold it to a small phonetic alphabet (a, i, u and
    consonants, digits standing for the Arabic letters of the Tunisian table). Cached: the language
    gate folds every word of an Arabizi poem, and a run's vocabulary repeats."""
    w = _NON_LATIN_WORD.sub("", word.lower())
    for a, b in _LATIN_DIGRAPHS:
        if a in w:
            w = w.replace(a, b)
    return single_letters(w.translate(_LATIN_SINGLE))


def single_letters(word: str) -> str:
    """A word with each run of one letter written once (Arabizi spells length and gemination by
    doubling)."""
    return "".join(ch for ch, _ in itertools.groupby(word))


# --- Rhyme keys ---------------------------------------------------------------------------------


class RhymeKey(NamedTuple):
    """The rhyme of one line end. ``rawi`` is the rhyme consonant, ``ridf`` the long-vowel class
    before it ('a', 'w' for و/ي, '' none), ``wasl`` the vowel after it ('', 'a', 'i', 'u'),
    ``word`` the folded last word (for īṭāʾ, the reuse of one rhyme word)."""

    rawi: str
    ridf: str
    wasl: str
    word: str


EMPTY_KEY = RhymeKey("", "", "", "")
MIN_RHYME_LETTERS = 2
"""A one-letter "word" (و, ر, w) carries no rhyme: its key is empty and rhymes with nothing."""

_PRONOUN_SUFFIXES = ("هما", "هم", "ها", "كم", "هن")
_AR_WASL = {"ا": "a", "ه": "a", "و": "u", "ي": "i"}
_AR_RIDF = {"ا": "a", "و": "w", "ي": "w"}


def arabic_key(word: str) -> RhymeKey:
    """Read the rhyme of a normalised Arabic-script word from its end (after ARBML qawafi's
    walk-back): strip a waṣl vowel letter or ه, skip a pronoun suffix so that '-hā' on different
    stems does not count as a rhyme, then take the rawī and the ridf before it."""
    w = "".join(ch for ch in word if ch in ARABIC_LETTERS)
    if len(w) < MIN_RHYME_LETTERS:
        return EMPTY_KEY
    whole = w
    wasl = ""
    if len(w) >= 4:
        for suf in _PRONOUN_SUFFIXES:
            if w.endswith(suf) and w[-len(suf) - 1] not in LONG_VOWELS:
                wasl = "h" + suf[-1]
                w = w[: -len(suf)]
                break
    if not wasl and len(w) >= 2:
        last = w[-1]
        if last in "يه" and w[-2] == "ي":
            # -iyya / -iya: the ي is the rawī (qawafi rule)
            w = w[:-1]
            wasl = "a"
        elif last in "اه" and w[-2] in "يو" and len(w) >= 3:
            # -ya, -wa, -ouwa (دنيا, قهوة, دوا, قوّة): before a vowel the glide is a consonant and
            # the rawī, as the Arabizi reading has it (dounya, 9ahwa, dwa, 9ouwa)
            w = w[:-1]
            wasl = "a"
        elif last in _AR_WASL and w[-2] not in LONG_VOWELS:
            wasl = _AR_WASL[last]
            w = w[:-1]
    rawi = w[-1]
    ridf = _AR_RIDF.get(w[-2], "") if len(w) >= 2 else ""
    return RhymeKey(rawi, ridf, wasl, whole)


_GLIDE_Y = re.compile(r"(?<=[aeiou])y++(?=[aeiou])|y(?=[aeiou]$)|(?<=[aeiou])y$")
"""A y between vowels is the consonant /j/ (m3aya, 7kaya, 3liya): the rawī of -aya, as ي is in
معايا and حكاية; so is a y before the word's last vowel after a consonant (dnya, 3inya: دنيا and
عينيا, whose ي ``arabic_key`` reads as the rawī), and a final y after a vowel (tay, chay: تاي, شاي).
``arabizi_fold`` reads y as the vowel i (ay as a) for the lexicon's spelling, which would leave -aya
rhyming on the letter before it (m3a, 7ka) and -nya on a vowel; the rhyme reading keeps it."""


def _rhyme_fold(word: str) -> str:
    """:func:`arabizi_fold` with a y between vowels kept as the consonant y (see ``_GLIDE_Y``).
    ``w`` needs no such care: the fold never turns it into a vowel."""
    low = word.lower()
    if "y" not in low:
        return arabizi_fold(word)
    # 1 (no letter of the Tunisian table) survives the fold untouched; doubled, it collapses to one
    return arabizi_fold(_GLIDE_Y.sub("1", low)).replace("1", "y")


def latin_key(word: str) -> RhymeKey:
    """Rhyme of a Latin/Arabizi word: the last consonant is the rawī, the vowel before it the
    ridf class, a trailing vowel the waṣl. Spelling variants are folded first by
    :func:`arabizi_fold`, a y between vowels kept as the consonant it is there. A glide after its own
    vowel (-iya, -ouwa) is a doubled glide, as in عليّا and قوّة: the rawī without a ridf, the reading
    of the Arabic script. A final h is a consonant and the rawī (see ``LATIN_H``); -ia after a
    consonant is -ya (``LATIN_IA``); a vowel before a doubled rawī is short, no ridf (:func:`_doubled`)."""
    w = _rhyme_fold(word)
    if len(w) < MIN_RHYME_LETTERS:
        return EMPTY_KEY
    whole = w
    wasl = ""
    if w[-1] in _LATIN_VOWELS and len(w) >= 2:
        wasl = w[-1]
        w = w[:-1]
    if not w:
        return RhymeKey(whole[-1], "", "", whole)
    if wasl == "a" and len(w) >= 2 and w[-1] == "i" and w[-2] not in _LATIN_VOWELS:
        w = w[:-1] + "y"  # -ia after a consonant is -ya (see LATIN_IA)
    rawi = LATIN_H.get(w[-1], w[-1])
    ridf = ""
    if len(w) >= 2 and w[-2] in _LATIN_VOWELS and _OWN_VOWEL.get(rawi) != w[-2] and not _doubled(word, wasl):
        ridf = "a" if w[-2] == "a" else "w"
    return RhymeKey(rawi, ridf, wasl, whole)


def _doubled(word: str, wasl: str) -> bool:
    """Whether the rawī is written doubled (7add, tmedd, 7abb, marra: حدّ, تمدّ, حبّ, مرّة). A vowel
    before a doubled consonant is short, so it is no ridf: the Arabic script writes none there, and
    read as one it would split a stanza of حدّ, درب (7add, darb) into two rhymes that the Arabic
    script keeps as one."""
    low = word.lower()
    if wasl and low and low[-1] in "aeiouy":
        low = low[:-1]
    return len(low) >= 2 and low[-1] == low[-2] and low[-1] not in "aeiouy"


_OWN_VOWEL = {"y": "i", "w": "u"}
LATIN_IA = "ia"
"""Arabizi writes ية/يا after a consonant -ia as often as -ya (ghalia and ghalya, sa9ia, 3afia, lia:
غالية, ساقية, عافية, ليا): the i is the glide, the rawī y, as ``arabic_key`` reads ي. Read as a vowel
rawī, ghalia and jeya (جاية) would not rhyme at all where the Arabic script half-agrees them."""
LATIN_H = {"7": "h"}
"""Arabizi's h is a consonant at a word's end: the pronoun ه (m3ah, ydah, hwah: معاه, يداه, هواه)
or ح for writers who spell it h (rouh, sbeh: روح, صباح; 7 and h are both common in Tunisian
Arabizi). Read as a spelling of the vowel before it, -ah would rhyme on the letter before (m3ah on
ع, ydah on د) where the Arabic script rhymes on ه with the ridf ا, and a poem's Latin spelling would
score below its Arabic one. As the rawī, 7 is read as h: one letter spells both ح and ه, so a rhyme
cannot tell what the spelling does not, and rou7 and rouh are one rhyme."""


@functools.lru_cache(maxsize=65536)
def rhyme_key(word: str) -> RhymeKey:
    """Rhyme key of a (normalised) last word in either script (cached: vocabulary repeats across
    the poems of a run, and the key depends on the word only)."""
    if not word:
        return EMPTY_KEY
    if any(ch in ARABIC_LETTERS for ch in word):
        return arabic_key(word)
    return latin_key(word)


# Clitic prefixes of Arabic-script words, longest first: the same word with or without them is the
# same rhyme word (and the lexicon looks a word up without them too).
AR_CLITICS = (
    "وبال",
    "وال",
    "بال",
    "فال",
    "كال",
    "ولل",
    "لل",
    "ال",
    "وب",
    "ول",
    "وف",
    "وك",
    "و",
    "ب",
    "ف",
    "ل",
    "ك",
)
# Near-articulation rawī pairs (ikfāʾ): a weak, partial rhyme. Arabizi symbols share the sets.
_NEAR_GROUPS = [
    "حخ75h",  # h: ح spelled h (LATIN_H)
    "خغ58",
    "سص",
    "تط6",
    "دض",
    "ذظ",
    "قڨك9g",
    "عء32",
    "نم",
    "šش",
]
NEAR: frozenset[tuple[str, str]] = frozenset(
    (a, b) for grp in _NEAR_GROUPS for a in grp for b in grp if a != b and a != " " and b != " "
)


def similarity(a: RhymeKey, b: RhymeKey) -> float:
    """Graded rhyme similarity in [0, 1]: same key 1.0; same rawī with one of ridf/waṣl off 0.7;
    same rawī only 0.5 (the sinād defect); near-articulation rawī 0.25 (ikfāʾ); else 0."""
    if not a.rawi or not b.rawi:
        return 0.0
    if a.rawi == b.rawi:
        diff = (a.ridf != b.ridf) + (a.wasl != b.wasl)
        return 1.0 if diff == 0 else (0.7 if diff == 1 else 0.5)
    if (a.rawi, b.rawi) in NEAR:
        return 0.25
    return 0.0


@functools.lru_cache(maxsize=65536)
def rhyme(word: str) -> RhymeKey:
    """The rhyme of a (normalised) last word without the word itself (``word`` is ""): equal for
    every word of one rhyme, so comparisons of rhymes memoise across poems (see
    :func:`rhyme_similarity`). Cached like :func:`rhyme_key`."""
    k = rhyme_key(word)
    return RhymeKey(k.rawi, k.ridf, k.wasl, "")


@functools.lru_cache(maxsize=16384)
def rhyme_similarity(a: RhymeKey, b: RhymeKey) -> float:
    """:func:`similarity` of two rhymes from :func:`rhyme`, memoised by the pair: a reward compares
    ~150 pairs of line ends drawn from a few hundred distinct rhymes (rawī × ridf × waṣl), so
    nearly every pair was seen before, and a cache hit costs a third of the comparison."""
    return similarity(a, b)


@functools.lru_cache(maxsize=16384)
def contrast_similarity(a: RhymeKey, b: RhymeKey) -> float:
    """:func:`rhyme_similarity` where two rhymes must differ (a stanza's own rhyme and the poem-wide
    one, two stanzas' rhymes, a gsim's two halves): on one rawī and one waṣl, two ridfs (none, ā, or
    ī/ū, which a rhyme may alternate) are two rhymes (see ``OTHER_RIDF``), though as a poem's one
    rhyme they still half-agree (0.7)."""
    if a.rawi == b.rawi and a.wasl == b.wasl and a.ridf != b.ridf:
        return OTHER_RIDF
    return similarity(a, b)


OTHER_RIDF = 0.0
"""How far two rhymes on one rawī that differ in their ridf alone (-Car, -ār, -īr; -āb, -īb) are one
where they must differ. The ridf is part of the qāfiya: as one rhyme they commit sinād al-ridf (0.7),
and in a stanza poem they are two rhymes a poet sets against each other (الباب / الأحباب stanzas
under a mugef on -īb)."""
