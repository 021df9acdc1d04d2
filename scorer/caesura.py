"""A caesura written with any mark, read as the caesura and, when it is not the ` ** ` the prompt
names, costed as another layout (docs/scorer.md, "Layout is not content"; principle 7).

Writers part half-lines with whatever their keyboard or source has (٭, a run of tatweel, ``//``,
``•``, ``:``, a dingbat), so the mark is read as a class, not a list: a *separator run* is a run of
characters neither letters, digits nor whitespace (brackets and quotes aside: they open or close
text) with a space on each side, or `TATWEEL_RUN` tatweels or more. The same run parting half-lines
of two words or more in `CONSISTENT` of the lines, the text holding none of the fixed marks, is the
poem's caesura (`mark_caesura`, on the text as written, before tatweel is folded away); anywhere
else it is a soft separator (``SOFT_RUN``), read only where two halves are expected. A tatweel run
between two words (after a letter that joins none after it, `NOT_JOINING`, or where the letters
around it make no word) is two spaces; else it is a kashida stretching one word and is folded away.
A sentence's own punctuation is glued to its word (``قال:``, ``وين؟``), so it is no separator run.
"""

from __future__ import annotations

import re

from scorer.arabic import normalize_arabic
from scorer.lexicon import is_arabic_word

CONSISTENT = 0.5
"""Share of the poem's non-blank lines that must carry one separator run, the same, once, for it to
be the poem's caesura mark: a poem that parts its bayts so carries it on every line, a malzuma whose
opening alone has a caesura (1 of 20) keeps the soft reading, and no honest poem's own punctuation
reaches it."""
TATWEEL_RUN = 3
"""A run of this many tatweels (U+0640) or more is a separator run: a kashida stretching a letter
inside a word is one or two, and when it is longer it stretches a word here and there, never the
same place once on most lines (that is the caesura of a justified printed bayt)."""
SOFT_ONLY = frozenset(("/", "-", "–", "—", ",", "،", "؛", ";"))
"""Marks that keep the soft reading only (``scorer.text._SOFT``), never promoted to a hard caesura."""

_QUOTES = "()[]{}<>«»“”„‟\"'‘’‹›"
SEPARATOR = rf"[^\w\s{re.escape(_QUOTES)}]"
"""One character of a separator run: neither letter, digit, ``_`` nor whitespace, nor a bracket or
quote (tatweel is a letter to ``\\w``: its runs are matched apart)."""
SOFT_RUN = rf"\s++{SEPARATOR}++\s++"
"""A separator run with spaces around it, for `SOFT` (which meets lines whose space runs
``scorer.linear.bound_spaces`` has cut to eight characters or fewer: linear)."""
_SP = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]"
"""Horizontal whitespace, spelled out: a class of literal characters is what lets the engine skip
to each candidate at C speed (``[^\\S\\n]`` tests every character's category and costs ten times more)."""
_SPACED = re.compile(rf"{_SP}(?<=\S.){_SP}*+({SEPARATOR}++){_SP}++(?=\S)")
"""A separator run spaced apart, after a non-space (the lookbehind sees the character before the
first space, so every other space of a run fails at once: linear)."""
_SPACE_THEN_SEPARATOR = re.compile(rf" {SEPARATOR}")
_SP_THEN_SEPARATOR = re.compile(rf"{_SP}{SEPARATOR}")
_OTHER_SP = "\t\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
"""`_SP` but the space."""
_TATWEEL = re.compile(rf"\u0640{{{TATWEEL_RUN},}}+")
_FIXED = ("*", "⁂", "…", "\t", "|", "\u3000", "...", "   ")
"""The fixed caesura marks (``scorer.text._SPLIT``): a poem that has one keeps its own reading."""
_SPACE = frozenset(" \t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f")


def _may_hold_a_run(text: str) -> bool:
    """Whether a separator character follows a space of `_SP` somewhere in ``text``, as the first of
    a run `_SPACED` matches does: after the usual space by a pattern led by that literal (found at C
    speed), after another only when the text holds one; a poem of words alone is not tried at every
    space."""
    if _SPACE_THEN_SEPARATOR.search(text):
        return True
    for c in _OTHER_SP:
        if c in text:
            return _SP_THEN_SEPARATOR.search(text) is not None
    return False


def _runs(text: str) -> list[tuple[str, int, int, bool]]:
    """The text's separator runs in order (none spans a line): (mark, start, end, glued: a tatweel run
    touching letters on both sides), each span with its spaces. The soft-only marks are left out."""
    runs: list[tuple[str, int, int, bool]] = []
    if _may_hold_a_run(text):
        runs = [(m.group(1), m.start(), m.end(), False) for m in _SPACED.finditer(text)]
        runs = [r for r in runs if r[0] not in SOFT_ONLY]
    if "\u0640\u0640\u0640" in text:
        for m in _TATWEEL.finditer(text):
            a, b = m.start(), m.end()
            while a > 0 and text[a - 1] in _SPACE:
                a -= 1
            while b < len(text) and text[b] in _SPACE:
                b += 1
            if a > 0 and b < len(text) and not text[a - 1].isspace() and not text[b].isspace():
                runs.append(("\u0640", a, b, (a, b) == m.span()))
        runs.sort(key=lambda r: r[1])
    return runs


def mark_caesura(text: str) -> str:
    """The text with the poem's consistent separator run (see the module doc) replaced, on each line
    that holds it once between half-lines of two words or more, by a tab (a fixed caesura mark).
    Substring scans and one pass of `_SPACED` (and `_TATWEEL`) over the text, then the lines that
    hold a run: linear."""
    if any(f in text for f in _FIXED):
        return text
    runs = _runs(text)
    if not runs:
        return text
    lines = text.split("\n")
    by_line: dict[int, list[tuple[str, int, int, bool]]] = {}
    i, start = 0, 0  # the line of the run, and where it starts in the text
    for mark, a, b, glued in runs:
        while start + len(lines[i]) < a:
            start += len(lines[i]) + 1
            i += 1
        by_line.setdefault(i, []).append((mark, a - start, b - start, glued))
    found: dict[str, list[tuple[int, int, int, bool]]] = {}
    for i, line_runs in by_line.items():
        line = lines[i]
        once: dict[str, int] = {}
        for r in line_runs:
            once[r[0]] = once.get(r[0], 0) + 1
        # the words between consecutive runs, counted once: words before and after each run
        ends = [0, *(x for r in line_runs for x in r[1:3]), len(line)]
        seg = [len(line[a:b].split()) for a, b in zip(ends[::2], ends[1::2], strict=True)]
        before, after = 0, sum(seg)
        for j, (mark, a, b, glued) in enumerate(line_runs):
            before += seg[j]
            after -= seg[j]
            if once[mark] == 1 and before >= 2 and after >= 2:
                found.setdefault(mark, []).append((i, a, b, glued))
    at = max(found.values(), key=len, default=[])
    if len(at) < 2 or len(at) < CONSISTENT * sum(1 for ln in lines if ln.strip()):
        # no caesura mark for the poem: a tatweel run glued between two words, read where two
        # halves are expected, is two spaces (a soft separator) rather than a letter stretched
        at = [r for r in found.get("\u0640", ()) if r[3] and _between_words(lines[r[0]], r[1], r[2])]
        if not at:
            return text
        sep = "  "
    else:
        sep = "\t"
    for i, a, b, _ in at:  # one run of the mark per line
        lines[i] = lines[i][:a] + sep + lines[i][b:]
    return "\n".join(lines)


SOFT = re.compile(
    rf"(?=[\s/،؛,;])(?:{SOFT_RUN}|\s+/\s*|\s*/\s+|\s+[-–—]+\s+|\s*[،؛]\s*|\s*[,;]\s+|(?<=\S) {{2}}(?=\S))"
)
"""A soft separator between two half-lines (``scorer.text``: `` / ``, `` - ``, ``—``, ``،``, ``؛``,
``, ``, two spaces, and any separator run). The separator run comes first: `` // `` is one run, not
two slashes."""
SOFT_TRIGGER = re.compile(rf"{SEPARATOR}| {{2}}")
"""A character a soft separator needs (a cheap test before `SOFT` runs)."""

NOT_JOINING = frozenset("اأإآٱدذرزوؤةء")
"""Letters that never join the letter after them: a tatweel after one stretches nothing."""


def _between_words(line: str, a: int, b: int) -> bool:
    """A tatweel run ``line[a:b]`` glued to letters on both sides stands between two words (is no
    kashida) when the letter before it joins no letter after it, or when the letters around it make
    no word."""
    if line[a - 1] in NOT_JOINING:
        return True
    left = line[:a].split()[-1]
    right = line[b:].split()[0]
    return not is_arabic_word(normalize_arabic(left + right))
