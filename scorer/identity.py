"""A rhyme word's identity: one word whatever its clitics, article and spelling, for īṭāʾ (one word
reused as a rhyme) and the copy tests. It reads the lexicon (an Arabizi clitic comes off only a word
the lexicon knows), so it sits above both `arabic` and `lexicon`, which import neither it nor each
other's callers."""

from __future__ import annotations

import functools

from scorer.arabic import AR_CLITICS, ARABIC_LETTERS, rhyme_key
from scorer.lexicon import ARABIZI

_LATIN_CLITICS = ("wal", "bal", "fal", "lal", "kal", "al", "w", "b", "f", "l", "k", "a")


@functools.lru_cache(maxsize=65536)
def rhyme_identity(word: str) -> str:
    """The rhyme word itself, for īṭāʾ (one word reused as rhyme): folded as the rhyme is (letters
    of the alphabet only, case and spelling for Arabizi) and without a clitic prefix (ال ب و ل ك ف
    and their chains; el- w- b- l- … in Arabizi), so الدار, دار, ودار, بالدار, Dar and DAR are one
    word. A one-letter Arabizi clitic comes off only when what is left is a known word and the
    whole is not one (wdar is dar; blad, wled and b3id stay words of their own). A stem must keep
    three letters after a one-letter clitic (باب is not ب + اب), two after a longer one; four after a
    bare preposition ب ل ك (alone or after و; :data:`PREPOSITION_STEM`)."""
    key = rhyme_key(_latin_article(word) if word[:1].isascii() else word)
    w = key.word
    if not w:
        return ""
    latin = w[0] not in ARABIC_LETTERS
    clitics = _LATIN_CLITICS if latin else AR_CLITICS
    for c in clitics:
        need = (3 if len(c) == 1 else 2) if latin else _AR_STEM[c]
        if w.startswith(c) and len(w) - len(c) >= need:
            if latin and len(c) == 1 and (not _latin_known(w[1:]) or _latin_known(w)):
                # Arabizi glues a one-letter clitic before a consonant only in a word it knows
                # (wdar); blad, wled, b3id (far, not b + 3id) and b7ar (sea) are words of their own
                continue
            return w[len(c) :]
    return w


PREPOSITION_STEM = 4
"""Letters a rhyme word must keep after a bare preposition (ب ل ك, alone or after و) to lose it.
Arabic words are mostly of three-letter roots, and many of four letters begin with one of these
(بعيد far, بلاد, كلام, لسان, كبير, بحار): read as ب + عيد they made بعيد and العيد one rhyme word.
A preposition on a longer noun (بتخريب, بكلمة) or with the article (بالعيد, للدار) still comes off,
so التخريب and بتخريب stay one word. The lexicon lists clitic forms too, so it cannot tell."""
_AR_STEM = {
    c: PREPOSITION_STEM if c.removeprefix("و") in ("ب", "ل", "ك") else 3 if len(c) == 1 else 2
    for c in AR_CLITICS
}


_SUN_LETTERS = frozenset(("t", "d", "r", "z", "s", "n", "l", "th", "dh", "ch", "sh"))
"""Arabizi spellings of the sun letters, the ones the article assimilates to (ed-dar, ech-chams);
the moon letters keep it (el-bab)."""


def _latin_article(word: str) -> str:
    """An Arabizi word without the article assimilated to a sun letter, which the fold would blur
    into the word (``ed-dar``, ``eddar``, ``wech-chams``, ``es-sma`` are ``dar``, ``chams``, ``sma``):
    an optional clitic (w f b l k), ``e``/``a``, then a sun letter written twice, with or without a
    hyphen between. Without the hyphen only when two letters are left after the copy."""
    s = word.lower()
    i = 1 if len(s) > 2 and s[0] in "wfblk" and s[1] in "ea" else 0
    if s[i : i + 1] not in ("e", "a"):
        return word
    rest = s[i + 1 :]
    for n in (2, 1):
        c = rest[:n]
        if c not in _SUN_LETTERS:
            continue
        if rest[n : n + 1] in ("-", "'") and rest[n + 1 :].startswith(c):
            return rest[n + 1 :]
        if rest[n:].startswith(c) and len(rest) - n >= n + 2:
            return rest[n:]
    return word


def _latin_known(stem: str) -> bool:
    """The folded stem is an Arabizi word of the lexicon."""
    return stem in ARABIZI
