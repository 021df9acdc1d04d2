"""Content words recycled across a poem: the repetition that no line shows on its own.

Principle 5 ("repetition is measured by overlap, not equality") reads a line against itself and
against the other lines. Between them lies a gap: lines drawn from a pool of fifteen nouns and
eight verbs in Derja order (``الوقت يحكي من الزيتون الشايب``, ``معالطريق نستنّى في الوقت صايب``),
each line new, the same few words in every one, pass both.
A poem says new things as it goes; a generator that cannot recycles its words. This module measures
how often a content word comes back a third time within a stretch of the poem, so a long poem is
held to the same standard as a short one (docs/scorer.md, "Recycled words").
"""

from __future__ import annotations

import functools

from scorer.lexicon import WordTable
from scorer.order import GLUE_WORDS
from scorer.wordshape import is_function_word

REUSE_WINDOW = 48
"""Content words per stretch (about eight lines): a word's third use inside one counts. A long poem
may come back to its themes; within eight lines, the honest poems of `tests/redteam_rounds/` do so little."""
REUSE_MIN_WORDS = 20
"""Fewer content words than this (about three lines) are too little evidence: the gate stays open."""
REUSE_RAMP = (0.10, 0.17)
"""The gate on the mean share of third-and-later uses per stretch: (full, zero). Over the genuine,
harmless, imperfect and wrong-form poems of `tests/redteam_rounds/` and the samples the share is
0.062 at most, its median 0 (measured on 1,035 long enough); pool babble is at 0.14–0.31."""

_AR_PREFIXES = ("معال", "عليال", "فيال", "وبال", "وال", "بال", "فال", "كال", "عال", "مال", "لل", "ال", "و")
"""Proclitics (as ``normalize_arabic`` writes them) that join a noun: a word counts without them, so
``الدار``, ``والدار`` and ``معالدار`` are one word used three times."""
_LATIN_PREFIXES = ("wel", "bel", "fel", "lel", "3al", "mel", "el", "w")


def _stem(word: str, arabic: bool) -> str:
    """A content word without the proclitics before it (at least three letters left)."""
    if not arabic:
        word = word.lower()
    for p in _AR_PREFIXES if arabic else _LATIN_PREFIXES:
        if word.startswith(p) and len(word) - len(p) >= 3:
            return word[len(p) :]
    return word


def _content(word: str, script: str) -> str:
    """The stem of a content word, "" for a glue or function word."""
    arabic = script == "arabic"
    w = word if arabic else word.lower()
    return "" if w in GLUE_WORDS[script] or is_function_word(w) else _stem(w, arabic)


_STEMS = {s: WordTable(functools.partial(_content, script=s)) for s in ("arabic", "arabizi")}
"""Each script's words judged so far, word → its stem: a run's vocabulary repeats."""


def content_words(segments: list[list[str]], script: str) -> list[str]:
    """The stems of the content words of each hemistich (its last, rhyme word left to the rhyme
    rules), in order, a word said again at once counted once (babble, which ``score._babble``
    charges smoothly); a hemistich met again word for word (a refrain) counts once; glue and
    function words (`scorer.wordshape`: pronouns, particles, برشا) are not content."""
    arabic = script == "arabic"
    stems = _STEMS[script]
    seen: set[str] = set()
    out: list[str] = []
    for seg in segments:
        key = " ".join(seg)
        if not arabic:
            key = key.lower()
        if key in seen:
            continue
        seen.add(key)
        prev = ""  # a word said again at once (يا يا, نحكيو نحكيو) is babble's (score._babble), not this
        for w in seg[:-1]:
            stem = stems[w]
            if stem and stem != prev:
                out.append(stem)
            prev = stem
    return out


def reuse_share(words: list[str], window: int = REUSE_WINDOW) -> float:
    """The mean, over every stretch of ``window`` consecutive words (the whole list when shorter),
    of the share of its words that are a third or later use of their word in that stretch. One
    pass: each step adds a word and drops one."""
    n = len(words)
    if n == 0:
        return 0.0
    w = min(window, n)
    counts: dict[str, int] = {}
    excess = 0
    for x in words[:w]:
        c = counts.get(x, 0) + 1
        counts[x] = c
        excess += c > 2
    total = excess
    for i in range(w, n):
        x = words[i]
        c = counts.get(x, 0) + 1
        counts[x] = c
        excess += c > 2
        y = words[i - w]
        c = counts[y]
        excess -= c > 2
        counts[y] = c - 1
        total += excess
    return total / (w * (n - w + 1))


def reuse_gate(segments: list[list[str]], script: str) -> float:
    """The multiplier of the recycled-words gate, from 1 at ``REUSE_RAMP[0]`` to 0 at its end."""
    words = content_words(segments, script)
    if len(words) < REUSE_MIN_WORDS:
        return 1.0
    full, zero = REUSE_RAMP
    return min(1.0, max(0.0, (zero - reuse_share(words)) / (zero - full)))
