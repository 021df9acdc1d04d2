"""The characters the prompt asks for: an allowlist per script, and the two ways out of it.

The prompt fixes the output (the poem alone, in Derja, in Arabic script or Arabizi, hemistichs joined
by ` ** `, stanzas parted by a blank line), so each character is one of three (docs/scorer.md,
principle 1): **the poem's** (the asked script's letters and diacritics, Arabizi's digits, a poet's
punctuation, spaces, newlines, the `*` of ` ** `); **layout** (numbering, bullets, `/`, `|`, tab, CR:
`score.LAYOUT_COST`); or **foreign**, everything else: markup, format and invisible characters, a
third script's letters (look-alikes included), emoji, symbols. Each foreign character is a channel to
another reader, so the `frame` factor holds the reward at or under 0. The other of the two scripts'
letters are the script gate's.

One pass over the text (`Counter`), then one step per distinct character: linear whatever the text
holds. It reads the text as sent, before normalisation, so no character disappears unseen.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass

ARABIC_BLOCKS = ((0x0621, 0x0655), (0x0670, 0x06D3), (0x06D5, 0x06D5))
"""Arabic letters, tatweel, the tashkeel (fathatan to hamza below, and the dagger alef U+0670), and the
extended letters (Maghrebi ڨ ڤ, Persian ک ی, which fold). Not the Quranic annotation marks and
symbols (U+0656–U+065F, U+06D6–U+06ED: small high letters, ۝ end of ayah, ۞, ۩ place of sajdah):
marks for reciting scripture, not for writing a poem, which normalisation would fold out of sight.
Not the presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFC): they are the letters' look-alikes, glyphs
a text shaper makes, which no keyboard types; normalisation folds them for reading, and they cost as
any look-alike does."""
POET_PUNCTUATION = frozenset(" \n.,;:!?'\"«»“”‘’…-–—،؛؟۔*")
"""What a poet's line may hold besides letters, and the caesura's `*`: the punctuation of the
red-team rounds' 461 genuine poems and the samples (. , ; : ! ? ' - and their Arabic and typographic
forms), and quotation marks for what a line reports someone saying. Not brackets: none of those
poems holds one (they are layout, below)."""
ARABIZI_DIGITS = frozenset("2356789")
"""The digits Tunisian Arabizi spells letters with (2 ء, 3 ع, 5 خ, 6 ط, 7 ح, 8 غ, 9 ق)."""
LAYOUT = frozenset(
    "\t\r/|•·▪◦‣●○-0123456789٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹()[]"
    "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)
"""Another layout's characters: numbering, bullets, brackets (a stanza number or a refrain set in
parentheses), other separators, CR line ends, wide spaces. What brackets hold beside a line's own
words is an aside, not the poem (``scorer.text``)."""


def _arabic(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in ARABIC_BLOCKS)


def _latin_letter(ch: str) -> bool:
    return (
        ("a" <= ch <= "z")
        or ("A" <= ch <= "Z")
        or (
            "\u00c0" <= ch <= "\u024f"
            and ch not in "\u00d7\u00f7"
            and unicodedata.category(ch).startswith("L")
        )
    )


@dataclass(frozen=True, slots=True)
class Chars:
    """How many characters of a text fall out of the poem's allowlist, by kind, and a few of the
    foreign ones (as code points, for the reason)."""

    foreign: int
    layout: int
    other_script: int
    examples: tuple[str, ...] = ()


def classify(text: str, script: str) -> Chars:
    """Count `text`'s characters outside the poem's allowlist for `script` ("arabic", "arabizi", or
    anything else for either)."""
    foreign = layout = other = 0
    examples: list[str] = []
    for ch, n in Counter(text).items():  # one pass over the text, then one step per distinct character
        if ch in POET_PUNCTUATION:
            continue
        arabic, latin = _arabic(ch), _latin_letter(ch)
        if script == "arabizi":
            mine = latin or ch in ARABIZI_DIGITS
            theirs = arabic
        elif script == "arabic":
            mine, theirs = arabic, latin
        else:
            mine, theirs = arabic or latin or ch in ARABIZI_DIGITS, False
        if mine:
            continue
        if theirs:
            other += n
        elif ch in LAYOUT:
            layout += n
        else:
            foreign += n
            examples.append(f"U+{ord(ch):04X}")
    return Chars(foreign, layout, other, tuple(sorted(examples)[:4]))
