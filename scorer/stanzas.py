"""Stanzas from blank lines that mark them imperfectly (docs/scorer.md, principle 7 "Another layout
is read, and costs a little" and principle 4 "A form is complete"): one blank line forgotten between
two stanzas, one too many inside a stanza, a stanza's return line or refrain set apart.

Where the blank lines mark stanzas (two blocks at least), a block is read as it stands when it is a
stanza: the form's size (the malzuma's free size: the commonest size among its blocks that are
stanzas, else the catalogue's) and its rhyme topology (the lines before the last nearer their own
rhyme than the poem-wide one, the last line in the poem-wide one; a refrain copy may close it). A
block that is not one is read as several when its lines split, in order, into stanzas of that
size; else it is joined to the blocks after it when together they make one; a refrain set apart
closes the stanza before it. Nothing else moves, so blocks that are no stanzas (a cheat of another
form's size, a stanza left without its return line) are scored as laid out.
``structure.score_strophic`` calls :func:`regroup`. Pure.
"""

from __future__ import annotations

from typing import TypeVar

from scorer.arabic import RhymeKey, contrast_similarity, rhyme, rhyme_similarity
from scorer.text import Line

RHYMES = 0.5
"""Two line ends rhyme at this similarity or more (the same rawī; ``arabic.similarity``)."""


def _key(ln: Line) -> RhymeKey:
    return rhyme(ln.words[-1] if ln.words else "")


T = TypeVar("T")


def most_common(keys: list[T]) -> T:
    """The commonest item (a rhyme, a size), the first seen among equally common ones (``Counter``'s
    answer without building one)."""
    counts: dict[T, int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return max(counts, key=counts.__getitem__)


def _body(unit: list[Line], sung: set[str]) -> list[Line] | None:
    """The stanza lines of a unit, without a refrain copy closing it; None when a refrain copy
    stands anywhere else (a refrain opens no stanza and sits in none)."""
    body = unit[:-1] if unit and unit[-1].key in sung else unit
    for ln in body:
        if ln.key in sung:
            return None
    return body


def _holds(unit: list[Line], size: int, main: RhymeKey, sung: set[str]) -> bool:
    """The unit is one stanza of ``size`` lines in the form's rhyme topology."""
    body = _body(unit, sung)
    if body is None or len(body) != size or size < 2:
        return False
    keys = [_key(ln) for ln in body]
    inner, last = keys[:-1], keys[-1]
    rep = most_common(inner)
    if not rep.rawi or not last.rawi:
        return False
    # nearer its own rhyme than the other: a stanza rhyme may share the rawī of the poem-wide one
    # (ـار in a poem on ـيرة), so the topology is relative
    if not rhyme_similarity(last, rep) < rhyme_similarity(last, main) >= RHYMES:
        return False
    for k in inner:
        to_main = rhyme_similarity(k, main)
        if to_main >= RHYMES and to_main >= rhyme_similarity(k, rep):
            return False  # a return line inside: two stanzas' worth of the wrong size, not one
    return 2 * sum(rhyme_similarity(k, rep) >= RHYMES for k in inner) > len(inner)


def _returns(unit: list[Line], size: int, main: RhymeKey, sung: set[str]) -> bool:
    """The unit has a stanza's frame without its inner rhyme: ``size`` lines, the last in the
    poem-wide rhyme and none before it, or every one (a stanza on the poem's own rhyme). A stanza
    whose own rhyme is off (العصا / نسا) or is the poem's is still a stanza, charged for its rhyme by
    the scoring; its frame alone says where it ends."""
    if _holds(unit, size, main, sung):
        return True
    body = _body(unit, sung)
    if body is None or len(body) != size or size < 2:
        return False
    keys = [_key(ln) for ln in body]
    if rhyme_similarity(keys[-1], main) < RHYMES:
        return False
    # none before it in the poem-wide rhyme: a must-differ reading (a ridf rhyme on a bare rawī differs);
    # or all of them in it: a stanza whose own rhyme is the poem's (aaa)
    inner = keys[:-1]
    return all(contrast_similarity(k, main) < RHYMES for k in inner) or all(
        rhyme_similarity(k, main) >= RHYMES for k in inner
    )


def _count(unit: list[Line], sung: set[str]) -> int:
    return sum([ln.key not in sung for ln in unit])


def _split(block: list[Line], size: int, main: RhymeKey, sung: set[str]) -> list[list[Line]]:
    """The block cut, in order, into stanzas of ``size`` lines (each keeping a refrain copy that
    closes it); [] unless it makes two or more that each hold."""
    pieces: list[list[Line]] = []
    cur: list[Line] = []
    n = 0  # stanza lines in cur
    for ln in block:
        copy = ln.key in sung
        if n == size and not copy:
            pieces.append(cur)
            cur, n = [], 0
        cur.append(ln)
        n += not copy
    pieces.append(cur)
    held = sum(_holds(p, size, main, sung) for p in pieces)
    if len(pieces) >= 2 and 2 * held >= len(pieces) and all(_returns(p, size, main, sung) for p in pieces):
        return pieces
    return []


def regroup(
    blocks: list[list[Line]],
    lines: int,
    lines_range: tuple[int, int],
    opening: list[RhymeKey],
    sung: set[str],
) -> list[list[Line]]:
    """The stanzas the blocks make (the module doc). ``lines``: the form's stanza size, the size
    where the form leaves it free and no block is a stanza; ``opening``: the rhymes of the malzuma's
    opening, in the poem-wide rhyme; ``sung``: the keys (``Line.key``) of the lines that are copies
    of the refrain."""
    if len(blocks) < 2:
        return blocks
    ends = [_key(b[-1]) for b in (_body(b, sung) for b in blocks) if b]
    main = most_common([k for k in opening + ends if k.rawi] or [rhyme("")])
    if not main.rawi:
        return blocks
    lo, hi = lines_range
    counts = {_count(b, sung) for b in blocks}
    if len(counts) == 1:
        # every block has the same size: when it is the stanza size, nothing below can move a line
        # (no block splits into two, none joins another), so the common case costs one pass
        (n,) = counts
        if n == lo == hi:
            return blocks
        if lo <= n <= hi and (n == lines or any(_holds(b, n, main, sung) for b in blocks)):
            return blocks
    if lo == hi:
        size = lo
    else:
        own = [n for b in blocks if lo <= (n := _count(b, sung)) <= hi and _holds(b, n, main, sung)]
        size = most_common(own) if own else lines
    out: list[list[Line]] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        i += 1
        if _holds(block, size, main, sung):
            out.append(block)
            continue
        if out and not _count(block, sung) and out[-1][-1].key not in sung:
            out[-1] = out[-1] + block  # a refrain set apart closes the stanza before it
            continue
        if pieces := _split(block, size, main, sung):
            out.extend(pieces)
            continue
        unit, j = list(block), i
        # a stanza is its lines and at most one refrain copy: no longer unit can make one
        while j < len(blocks) and len(unit) + len(blocks[j]) <= size + 1:
            unit += blocks[j]
            j += 1
            if _returns(unit, size, main, sung):
                block, i = unit, j
                break
        out.append(block)
    return out


def half_lines(blocks: list[list[Line]], size: int) -> list[list[Line]]:
    """Stanzas written as bayts, two half-lines to a line (a mugef stanza, aaaB, as two lines of
    two hemistichs), read as their half-lines when the blank lines mark them
    unevenly: :func:`regroup` counts lines, so a block of two stanzas (four bayts) or a stanza cut in
    two (one bayt and one, or every bayt apart) is read at the form's size only in half-lines. Blocks
    of one size that holds a stanza's half-lines, or lines that are not all bayts, are left as they
    are (``structure.score_strophic`` reads an even bayt layout block by block)."""
    if size <= 2 or len(blocks) < 2:
        return blocks
    sizes = [len(b) for b in blocks]
    n = most_common(sizes)
    if n * 2 > size + 1 or (len(set(sizes)) < 2 and n * 2 >= size):
        return blocks
    if not all(len(ln.hemi_words) == 2 for b in blocks for ln in b):
        return blocks
    return [[_half(h) for ln in b for h in ln.hemi_words] for b in blocks]


def _half(words: list[str]) -> Line:
    text = " ".join(words)
    return Line(text, [text], words, [words], "".join(words).lower())
