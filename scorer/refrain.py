"""The malzuma's refrain: which lines sing it again, near-verbatim copies included, and the poet's own
refrain where the poem does not sing the opening's first half-line (docs/scorer.md, "Layout is not
content"). ``structure.score_strophic`` reads stanzas with these. Pure: no I/O, no randomness.
"""

from __future__ import annotations

import math

from scorer.arabic import RhymeKey, rhyme, rhyme_similarity
from scorer.text import Line, letters_only

OWN_REFRAIN = 0.0
"""A refrain line of the poet's own (the same line closing most stanzas, in the poem-wide rhyme, but
not the opening's first half-line the prompt asks for "word for word": the opening's second half, or
a new line) is read as a refrain, so its lines are no stanza lines, and earns this share of the
refrain's credit: none, as a refrain left out (the reward pays for the refrain asked)."""
HEAD_WORDS = 12
"""A refrain is a half-line: no head runs past this many words (nor costs more to list)."""


def same_line(a: str, b: str) -> bool:
    """Equal, or a near-verbatim copy: a refrain with a letter or two changed is still read as the
    refrain, so its lines are no stanza lines (``structure`` pays only the words as asked).
    Measured as common prefix + common suffix ≥ 90 % of the longer line (a cheap edit proxy; one
    substitution or insertion keeps it high)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if not la or not lb or abs(la - lb) > max(2, lb // 10):
        return False
    # p + q >= need implies max(p, q) >= h: when neither the first nor the last h letters agree,
    # the letter-by-letter walk below cannot succeed (most lines end here)
    need = 0.9 * max(la, lb)
    h = math.ceil(need / 2)
    if a[:h] != b[:h] and a[-h:] != b[-h:]:
        return False
    n = min(la, lb)
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    q = 0
    while q < n - p and a[la - 1 - q] == b[lb - 1 - q]:
        q += 1
    return p + q >= need


def refrains_of(texts: list[str]) -> list[tuple[str, int, str, str]]:
    """Distinct refrain texts (the opening's first half is often the whole first line), each with
    what ``_is_copy`` tests before ``_same_line``: the length tolerance, and the first and last
    h0 = ⌈0.9 × len / 2⌉ letters. A copy has p + q ≥ 0.9 × max(len(a), len(b)) ≥ 0.9 × len(r),
    so p ≥ h0 or q ≥ h0: it starts with the head or ends with the tail."""
    out = []
    for r in dict.fromkeys(texts):
        h0 = math.ceil(0.9 * len(r) / 2)
        out.append((r, max(2, len(r) // 10), r[:h0], r[len(r) - h0 :]))
    return out


def is_copy(key: str, refrains: list[tuple[str, int, str, str]]) -> bool:
    """``any(same_line(key, r) for r in refrains)`` with ``_same_line``'s cheap rejections
    inlined (another length, neither the refrain's head nor its tail): most lines fail them, and
    they cost less than the call."""
    la = len(key)
    for r, tol, head, tail in refrains:
        if key == r or (
            abs(la - len(r)) <= tol and (key.startswith(head) or key.endswith(tail)) and same_line(key, r)
        ):
            return True
    return False


def whole_bayt(blocks: list[list[Line]], halves: list[str]) -> list[list[Line]]:
    """The blocks with the refrain that sings the whole opening bayt on two lines read as one
    refrain: a block that ends on a copy of the opening's first half (``halves[0]``, its first line
    when the opening is two lines) and then of its second keeps the first as the refrain and drops
    the second, as the same bayt sung on one line is one refrain line (read otherwise, its two lines
    are a stanza line and a duplicate)."""
    if len(halves) != 2 or not all(halves):
        return blocks
    one, two = refrains_of(halves[:1]), refrains_of(halves[1:])
    out = []
    for b in blocks:
        if len(b) >= 3 and is_copy(b[-1].key, two) and is_copy(b[-2].key, one):
            b = b[:-1]
        out.append(b)
    return out


def heads(words: list[str]) -> frozenset[str]:
    """The letters of the opening line's first words, from two words and a third of its letters on:
    the refrain is the opening's first half-line, and where the opening is two lines a poet may
    still sing the first half of its first line (``يا بنت الحومة``) as the refrain."""
    total = sum(map(len, words))
    out = []
    acc = 0
    head = ""
    # a refrain is a half-line: no head runs past HEAD_WORDS words (nor costs more to list)
    for i, w in enumerate(words[: min(len(words) - 1, HEAD_WORDS)]):
        acc += len(w)
        head += letters_only(w)
        if i >= 1 and 3 * acc >= total:
            out.append(head)
    return frozenset(out)


def own_refrain(
    blocks: list[list[Line]],
    heads: frozenset[str],
    refrains: list[tuple[str, int, str, str]],
    main_keys: list[RhymeKey],
    min_letters: float,
) -> str | None:
    """The poet's own refrain: when no stanza ends on the opening's first half-line, the line that
    closes at least two thirds of the stanzas (two at least), in the poem-wide rhyme, and is a
    half-line at least (``min_letters``: a two-word stub like ``يا دار`` is no refrain); else None.
    A line of the opening sung as the refrain (its second half) is found here too."""
    lasts = [b[-1] for b in blocks if len(b) >= 2 and len(b[-1].key) >= min_letters]
    if len(lasts) < 2 or not main_keys or any(ln.key in heads or is_copy(ln.key, refrains) for ln in lasts):
        return None
    for cand in lasts[: len(lasts) - 1]:
        same = sum(same_line(cand.key, ln.key) for ln in lasts)
        if same >= 2 and 3 * same >= 2 * len(blocks):
            end = rhyme(cand.halves[-1][-1] if cand.halves else cand.last_word)
            return cand.key if rhyme_similarity(end, main_keys[0]) >= 0.5 else None
    return None
