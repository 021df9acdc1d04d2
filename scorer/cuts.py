"""Words cut in two: a word written as two pieces, by a space or a hyphen (docs/scorer.md, "Every
word counts").

The language gate asks whether each token is a word, and a word cut in two often leaves pieces the
lexicon knows (كب رنا, ال شباب, `3ec-hrin`): a genuine poem with every long word cut so would
otherwise keep most of its reward. Two neighbours of one hemistich are a cut word when glued they
make a word and apart they do not both (the test the text-parts joiner makes at a part boundary,
`scorer.response`). Honest
poems have at most 5 % of their words so (a clitic written apart, `mn bledi`, «و نا»); the cut poems
of `tests/redteam_rounds/` 11 % to 59 %. Pure: the caller's word verdicts, nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorer.text import Line

CUT_RAMP = (0.08, 0.16)
"""Share of a poem's words that are the first piece of a cut word (free, zero): the language gate
is multiplied by 1 up to `free`, falling linearly to 0 at `zero`."""


def cut_gate(lines: list[Line], word: dict[str, bool]) -> float:
    """The multiplier of cut words on the language gate (CUT_RAMP), over the hemistichs of ``lines``
    with the script's word verdicts ``word`` (a `scorer.lexicon.WordTable`, filled on first use).
    The glued pair is looked up only when a piece is no word, so an honest poem asks few. O(words)."""
    words = cut = 0
    for ln in lines:
        for ws in ln.hemi_words:
            n = len(ws)
            words += n
            if n < 2:
                continue
            a = ws[0]
            known_a = word[a]
            for i in range(1, n):
                b = ws[i]
                known_b = word[b]
                if not (known_a and known_b) and word[a + b]:
                    cut += 1
                a = b
                known_a = known_b
    if not words:
        return 1.0
    free, zero = CUT_RAMP
    return min(1.0, max(0.0, (zero - cut / words) / (zero - free)))
