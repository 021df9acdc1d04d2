"""A caesura written with any mark (docs/scorer.md, "Layout is not content"; principle 6).

Between the two half-lines of a bayt, writers put whatever their keyboard or their printed source
has: the traditional hemistich star ``٭`` (U+066D), a run of tatweel glued to both half-lines (a
printed verse justified to its column), ``//``, ``•``, ``:``, ``~``, a dingbat (``✿``)… The parser's
fixed marks (``*``, ``|``, a tab, ``…``, three spaces) cannot list them all, so the mark is read
as a class: a *separator run* is a run of characters that are neither letters, digits nor
whitespace (Unicode P* and S*, brackets and quotes aside: they open or close text, they part
nothing), written with a space on each side, or a run of `TATWEEL_RUN` tatweels or more. Where it
parts two half-lines of two words or more:

* the poem's lines carry the same one consistently (once in `CONSISTENT` of its lines or more, and
  the text has none of the fixed marks): it is the poem's caesura mark, read as ``*`` is
  (`mark_caesura`, on the text as written, before tatweel is folded away);
* anywhere else it is a soft separator (``SOFT_RUN``, in ``scorer.text``), read only where two
  halves are expected (a bayt, the malzuma opening) and only when the line has one.

The comma, ``/``, ``-`` and the dashes keep the soft reading alone (a comma in most lines is a
poem's own punctuation as often as a caesura), and a sentence's own punctuation is glued to its
word (``قال:``, ``وين؟``), so it is no separator run.
"""

from __future__ import annotations

import re
from collections import Counter

from scorer.arabic import normalize_arabic
from scorer.lexicon import is_arabic_word

CONSISTENT = 0.5
"""Share of the poem's non-blank lines that must carry one separator run, the same, once, for it to
be the poem's caesura mark. Round 9's separator cases carry theirs on every line (6 or 8 of 6 or 8);
a title and a signature line leave 8 of 10; a malzuma whose opening alone has a caesura (1 of 20)
keeps the soft reading. No genuine or harmless case of rounds 1-9 nor a sample reaches it with a
poem's own punctuation (a spaced ``!`` or ``؟`` in half the lines would; none does)."""
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
SOFT_RUN = rf"(?<=\S)\s++{SEPARATOR}++\s++(?=\S)"
"""A separator run between two words, spaces around it (for ``scorer.text._SOFT``)."""
_RUN = re.compile(
    rf"(?<=\S)(?:[^\S\n]++({SEPARATOR}++)[^\S\n]++|[^\S\n]*+(\u0640{{{TATWEEL_RUN},}}+)[^\S\n]*+)(?=\S)"
)
_FIXED = re.compile("[*⁂…\t|\u3000]|\\.\\.\\.|   ")
"""The fixed caesura marks (``scorer.text._SPLIT``): a poem that has one keeps its own reading."""


def mark_caesura(text: str) -> str:
    """The text with the poem's consistent separator run (see the module doc) replaced, on each line
    that holds it once between half-lines of two words or more, by a tab (a fixed caesura mark).
    One pass over the text with a regex whose runs are possessive and start after a non-space: linear."""
    if _FIXED.search(text) or not _RUN.search(text):
        return text
    lines = text.split("\n")
    found: dict[str, list[tuple[int, re.Match[str]]]] = {}
    nonblank = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        nonblank += 1
        runs = [(m.group(1) or "\u0640", m) for m in _RUN.finditer(line)]
        once = Counter(r for r, _ in runs)
        # the words between consecutive runs, counted once: words before and after each run
        ends = [0, *(x for _, m in runs for x in (m.start(), m.end())), len(line)]
        seg = [len(line[a:b].split()) for a, b in zip(ends[::2], ends[1::2], strict=True)]
        before, after = 0, sum(seg)
        for j, (mark, m) in enumerate(runs):
            before += seg[j]
            after -= seg[j]
            if once[mark] == 1 and mark not in SOFT_ONLY and before >= 2 and after >= 2:
                found.setdefault(mark, []).append((i, m))
    at = max(found.values(), key=len, default=[])
    if len(at) < 2 or len(at) < CONSISTENT * nonblank:
        # no caesura mark for the poem: a tatweel run glued between two words, read where two
        # halves are expected, is two spaces (a soft separator) rather than a letter stretched
        at = [(i, m) for i, m in found.get("\u0640", ()) if m.group() == m.group(2) and _between_words(m)]
        if not at:
            return text
        sep = "  "
    else:
        sep = "\t"
    for i, m in reversed(at):  # a line holds one run of a mark: its span is still where it was
        lines[i] = lines[i][: m.start()] + sep + lines[i][m.end() :]
    return "\n".join(lines)


NOT_JOINING = frozenset("اأإآٱدذرزوؤةء")
"""Letters that never join the letter after them: a tatweel after one stretches nothing."""


def _between_words(m: re.Match[str]) -> bool:
    """A tatweel run glued to letters on both sides stands between two words (is no kashida) when
    the letter before it joins no letter after it, or when the letters around it make no word."""
    line, a, b = m.string, m.start(), m.end()
    if line[a - 1] in NOT_JOINING:
        return True
    left = line[:a].split()[-1]
    right = line[b:].split()[0]
    return not is_arabic_word(normalize_arabic(left + right))


SOFT = re.compile(rf"(?=[\s/،؛,;])(?:{SOFT_RUN}|\s+/\s*|\s*/\s+|\s*[،؛]\s*|\s*[,;]\s+|(?<=\S) {{2}}(?=\S))")
"""A soft separator between two half-lines (``scorer.text``: `` / ``, `` - ``, ``—``, ``،``, ``؛``,
``, ``, two spaces, and any separator run). The separator run comes first: `` // `` is one run, not
two slashes."""
SOFT_TRIGGER = re.compile(rf"{SEPARATOR}| {{2}}")
"""A character a soft separator needs (a cheap test before `SOFT` runs)."""
