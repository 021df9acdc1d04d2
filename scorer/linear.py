"""Linear-time rewrites of model output, for ``text.py``: bounding whitespace runs, dropping
thinking blocks, and removing inner bold/italics markup.

Every pattern here meets model output, which a policy can drive anywhere. Python's `re` backtracks,
so a pattern is used only where it runs in time linear in its input: whitespace runs bounded before
the line patterns see them, and the two searches that scan ahead for a closing marker (a thinking
block, inner bold/italics) written as one forward pass each instead of a lazy `.*?` per opener
(tests/test_scorer_linear.py holds each to the backtracking pattern it replaces).
"""

from __future__ import annotations

import re

MARKUP_OPENS = re.compile(r"[*_][^\s*_]")
"""Found wherever inner markup opens (its marker is followed by such a character); a line without it
(a `` ** `` caesura between spaces) needs no substitution (see `strip_inner_markup`)."""
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
_LONG_SPACE = re.compile(r"[^\S\n]{9,}")
"""A run of horizontal whitespace longer than any layout needs (see `bound_spaces`)."""


def _space_run(m: re.Match[str]) -> str:
    """The shortest run that reads as ``m``'s run does. A run holding a caesura (a tab, three spaces,
    an ideographic space) is one caesura: that mark between the run's first and last characters (a
    ``|`` beside the run still finds a space next to it). Any other run is its first character."""
    run = m.group()
    for mark in ("\t", "   ", "\u3000"):
        if mark in run:
            return run[0] + mark + run[-1]
    return run[0]


def bound_spaces(text: str) -> str:
    """Cut every run of more than eight horizontal whitespace characters to the shortest run with the
    same meaning. No layout needs a longer run, and the caesura and soft-split patterns, which must
    look into a run to find a tab or three spaces, then see at most eight characters at a time."""
    if _SPACES_9 not in text and text.replace("\n", "").isprintable():
        # the only whitespace but newlines is the space (`isprintable` is false for every other
        # whitespace character): no run without nine spaces in a row, found by C scans, where the
        # regex tests its character class at every position
        return text
    return _LONG_SPACE.sub(_space_run, text) if _LONG_SPACE.search(text) else text


_SPACES_9 = " " * 9


def drop_thinking(text: str) -> str:
    """Replace each ``<think>…</think>`` block (also ``thinking``, ``reasoning``; any case) by a newline,
    as ``re.sub(r"<(think|thinking|reasoning)>.*?</\\1>", "\\n", text, flags=re.S | re.I)`` would,
    in one pass: once a tag's closer is missing after some point, it is missing after every later
    opener too, so no stretch of text is searched twice for the same closer."""
    out: list[str] = []
    pos = 0
    no_closer_after: dict[str, int] = {}
    for m in _THINK_OPEN.finditer(text):
        if m.start() < pos:
            continue
        tag = m.group(1).lower()
        if m.end() >= no_closer_after.get(tag, len(text) + 1):
            continue
        close = _THINK_CLOSE[tag].search(text, m.end())
        if close is None:
            no_closer_after[tag] = m.end()
            continue
        out += (text[pos : m.start()], "\n")
        pos = close.end()
    return "".join(out) + text[pos:] if out else text


_THINK_CLOSE = {tag: re.compile(f"</{tag}>", re.I) for tag in ("think", "thinking", "reasoning")}
_MARKERS = ("**", "__", "*")
"""In the order the regex's alternation tries them at one position."""
_CLOSERS = {mk: re.compile(rf"(?<=[^\s*_])(?={re.escape(mk)})") for mk in _MARKERS}


def strip_inner_markup(s: str) -> str:
    """Remove paired ``**``, ``__`` and ``*`` markers inside a line, keeping what they enclose: the
    result of ``re.sub(r"(\\*\\*|__|\\*)(?=[^\\s*_])([^\\n]*?[^\\s*_])\\1", r"\\2", s)``,
    found in one pass. An opener is a marker followed by a character that is not a space, ``*`` or
    ``_`` (``MARKUP_OPENS`` finds those characters); its closer is the nearest same marker after at
    least one character, preceded by such a character. The candidate closers of each marker are
    listed once, and a pointer per marker only moves forward, as the openers do."""
    closers = {mk: [m.start() for m in pattern.finditer(s)] for mk, pattern in _CLOSERS.items()}
    nxt = dict.fromkeys(_MARKERS, 0)
    out: list[str] = []
    pos = 0
    for m in MARKUP_OPENS.finditer(s):
        body = m.end() - 1  # the opener's first enclosed character
        for mk in _MARKERS:
            i = body - len(mk)
            if i < pos or not s.startswith(mk, i):
                continue
            cands, k = closers[mk], nxt[mk]
            while k < len(cands) and cands[k] <= body:
                k += 1
            nxt[mk] = k
            if k < len(cands):
                close = cands[k]
                out += (s[pos:i], s[body:close])
                pos = close + len(mk)
                break
    return "".join(out) + s[pos:] if out else s
