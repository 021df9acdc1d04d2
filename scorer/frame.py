"""What frames the poem: its stanzas, and the title above it and the signature under it.

A title directly above the poem and a signature under it are not lines of it (docs/scorer.md,
"Layout is not content"); what is dropped is counted per kind in ``Poem.dropped``, and the reward holds
a poem with any of it at or under 0: it is words that are not the poem ("One text").
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from scorer.arabic import rhyme_key, similarity

if TYPE_CHECKING:
    from scorer.text import Line

TITLE_WORDS = 7
"""A title is a short line: at most this many words."""
TITLE_SHORT_WORDS = 4
"""A title directly above a stanza (no blank line between) that rhymes with none of its lines is
this short; a longer line there is the stanza's own first line, off its rhyme (a flaw)."""
TITLE_ABOVE_WORDS = 5
"""A title set directly above a bayt (no blank line between) is shorter still: a longer line there is
the bayt itself with its ` ** ` lost."""
SIGNATURE_WORDS = 12
"""A signature may say more than a title (``كلمات: محمد الصغير بن علي، صفاقس، ربيع 2023``): its
start, brackets or closing year already set it apart from a line of the poem."""


def count_dropped(dropped: dict[str, int], kind: str, chars: int) -> None:
    """Add ``chars`` removed characters of one kind to ``Poem.dropped`` (nothing for none)."""
    if chars > 0:
        dropped[kind] = dropped.get(kind, 0) + chars


def count_fence(dropped: dict[str, int], raw: str) -> None:
    """A code fence line: its marker and info string (```` ```text ````) are layout; the words after
    the info string are text a reader sees and the poem does not hold (a note to the judge after the
    marker, say), charged as ``fence_text``."""
    st = raw.strip()
    info = st.lstrip("`~").split(None, 1)  # the info string, and what follows it
    extra = len(info[1]) if len(info) > 1 else 0
    count_dropped(dropped, "fence", len(st) - extra)
    count_dropped(dropped, "fence_text", extra)


def blocks_of(lines: list[Line], gaps: list[int]) -> list[list[Line]]:
    """Stanzas from the blank-line gaps. When every line stands alone (a blank line after every
    line), single blank lines are line spacing: stanzas break only at wider gaps, else nowhere."""
    if not lines:
        return []
    cut = 1
    if len(lines) >= 4 and 0 not in gaps[1:]:  # every gap >= 1 (gaps are never negative)
        cut = min(gaps[1:]) + 1
    starts = [0, *(i for i in range(1, len(lines)) if gaps[i] >= cut), len(lines)]
    return [lines[a:b] for a, b in itertools.pairwise(starts)]


def drop_signature(blocks: list[list[Line]], dropped: dict[str, int], spaced: bool = False) -> None:
    """A signature under the poem (``— name``, ``by name``, ``بقلم: …``), or a closing line set apart
    below it (see `_closing`), is not a line of it: one line, the budget's signature line. ``spaced``:
    a blank line after every line (line spacing), so a closing line is as far apart as any line."""
    last = blocks[-1][-1]
    if spaced and len(blocks[-1]) > 1:
        above = [*blocks[:-1], blocks[-1][:-1]]  # the last line read as a stanza of its own
    else:
        above = blocks[:-1] if len(blocks[-1]) == 1 else []
    if ((last.signed and len(last.words) <= SIGNATURE_WORDS) or (above and _closing(above, last))) and (
        len(last.hemi_words) == 1
        and len(blocks) + len(blocks[-1]) > 2
        # a line of the poem sung again (a refrain, in brackets or not) is no credit
        and not any(ln.key == last.key and ln is not last for b in blocks for ln in b)
    ):
        count_dropped(dropped, "signature", len(blocks[-1].pop().text))
        if not blocks[-1]:
            blocks.pop()


CLOSING_WORDS = 5
"""A closing line under the poem (a wish, thanks, a slogan: ``نتمنى تعجبك.``, ``إن شاء الله
تعجبك!``, ``Hope you like it!``, ``ya3tik essa77a``, ``تحيا تونس``) has at most this many words."""


def _closing(above: list[list[Line]], last: Line) -> bool:
    """A closing line ``last`` under the stanzas ``above`` (alone after a blank line): below two
    stanzas or a stanza of three lines at least, short (`CLOSING_WORDS`, and no longer than the
    poem's longest line: a malzuma's or a msaddes's lines are as short as a wish, ``إن شاء الله
    تعجبك!``), and not on the poem's rhyme: its rhyme is not the full rhyme (rawī, ridf and waṣl
    alike) of the last line of any stanza, where strophic forms keep their main rhyme (under one
    stanza, of any of its lines). A poem's own last line keeps the rhyme; a wish may share only a
    letter with it (the suffix -ek of ``t3ejbek`` under a rhyme on -ik, ``تونس`` under one on -ās)."""
    if len(last.words) > CLOSING_WORDS:
        return False
    poem = [ln for b in above for ln in b]
    if len(above) < 2 and len(poem) < 3:
        return False
    if len(last.text) > max(len(ln.text) for ln in poem):
        return False
    k = rhyme_key(last.last_word)
    ends = {b[-1].last_word for b in above} if len(above) > 1 else {ln.last_word for ln in poem}
    return all(similarity(k, rhyme_key(e)) < 1.0 for e in ends)


def drop_title(blocks: list[list[Line]], marked: bool, dropped: dict[str, int]) -> None:
    """A leading title: one short line without a caesura (nor its mark), alone above the poem, marked
    up, or directly above a line with a caesura (a malzuma opening, a bayt)."""
    if not blocks:
        return
    b0 = blocks[0]
    first = b0[0]
    if len(first.hemis) != 1 or len(first.words) > TITLE_WORDS or len(first.halves) >= 2:
        return
    if "**" in first.text:  # it carries the caesura the prompt names: a bayt, though half of it is empty
        return
    if not marked and len(blocks) == 1 and _hemistich_pairs(b0):
        return
    if len(blocks) >= 2 and len(b0) == 1:
        count_dropped(dropped, "title", len(blocks.pop(0)[0].text))
        return
    if len(b0) < 2:
        return
    nxt = b0[1]
    # A title is words that are not the poem, which hold the reward at or under 0 (scorer/score.py), so
    # a line is not called one on a guess: not for rhyming with none below (a stanza may open off its
    # rhyme, a flaw the structure costs, unless it is as short as a title), and not above a bayt when it
    # is longer than TITLE_ABOVE_WORDS (a bayt whose ` ** ` was lost).
    above_a_bayt = len(nxt.halves) >= 2 and len(first.words) <= TITLE_ABOVE_WORDS
    # a line of three words at most, off the rhyme of the lines below: a poem's line is longer
    # (a two-word hemistich is the short penalty's), a stanza's first line off its rhyme is not this short
    short_and_apart = len(first.words) <= TITLE_SHORT_WORDS and _rhymes_with_none(first, b0[1:4])
    if marked or above_a_bayt or short_and_apart:
        count_dropped(dropped, "title", len(b0.pop(0).text))


def _hemistich_pairs(lines: list[Line]) -> bool:
    """Bayts written a hemistich per line: an even number of lines (four at least), none with a
    caesura, whose second, fourth, sixth … lines keep one rhyme (three in four agree with the
    second). The first line is a first hemistich, not a title, though it rhymes with none below."""
    if len(lines) < 4 or len(lines) % 2 or any(len(ln.halves) >= 2 for ln in lines):
        return False
    seconds = [rhyme_key(ln.last_word) for ln in lines[1::2]]
    agree = sum(similarity(seconds[0], k) >= 0.5 for k in seconds[1:])
    return 4 * agree >= 3 * (len(seconds) - 1)


def _rhymes_with_none(first: Line, others: list[Line]) -> bool:
    """The line's end rhymes with none of ``others`` (a title over a stanza; a stanza's first line
    rhymes with the lines after it). Needs three lines to compare with."""
    if len(others) < 3:
        return False
    k = rhyme_key(first.last_word)
    return all(similarity(k, rhyme_key(o.halves[-1][-1] if o.halves else o.last_word)) < 0.5 for o in others)
