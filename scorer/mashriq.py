"""The Mashriq's verb morphology and its qaf in Arabizi (principle 3; docs/scorer.md, "Derja, not
any Arabic"): words no marker table can list, found by their Tunisian twin.

A Tunisian poem turns Egyptian or Levantine in Arabizi by its verbs alone, the function words kept
(bafakkar, baghanni, bya3ref, 2albi, wa2t). Each rule here reads a word's shape and
asks the Tunisian Arabizi lexicon (``scorer.lexicon.ARABIZI``, in the phonetic fold) for the form a
Tunisian would write in its place, so that a Tunisian word of the same shape (barcha, bahi, bachar,
bnefsi) does not match:

- the ``b-`` indicative: ``b``/``bi``/``ba`` + a ``y-``/``t-`` imperfect the lexicon knows
  (bya3ref, bta3mel, bet2akkar; Tunisian has no b- imperfect, and b + a noun, byedi, bnefsi, is no
  y/t imperfect of five letters), and ``ba`` + a stem whose ``n-`` twin is a Tunisian first person
  (bakteb / nekteb, baghanni / nghanni, bamshi / nemchi), the word itself no lexicon word;
- the same inside the negation ``ma…sh`` (mabye3rafsh, mabta3rafsh: Tunisian ``ma…ch`` has no b-);
- qaf said as a glottal stop, ``2`` where Tunisian says and writes ``9``/``q``/``g``: a word with
  ``2`` whose spelling with ``9`` is a lexicon word, bare or inside ``ma…sh`` (2albi / 9albi,
  wa2t / wa9t, tri2 / tri9, mab2ash / b9a).
  This is no spelling habit but a sound: Tunisians pronounce the qaf; the ``2`` they write is a
  real hamza (nes2el, mas2oul), whose ``9`` spelling is no word.

All vote Egyptian and Levantine alike (both say them); no real Tunisian sentence of TArC nor honest
poem carries two such words (tests/test_variety_mashriq.py). Linear: two folds and at most five set
lookups a word.
"""

from __future__ import annotations

from scorer.arabic import arabizi_fold
from scorer.lexicon import ARABIZI

EAST = ("egyptian", "levantine")
"""The varieties these rules vote for, split evenly."""
MIN_IMPERFECT = 5
"""Letters of the folded y-/t- imperfect after b- (ia3raf, ta3mal): a noun after the preposition b-
is seldom this long and a verb form (byedi: idi, 3 letters)."""
MIN_STEM = 3
"""Letters of the folded stem after ba- (ktab, 8ani, mši): its n- twin must be a lexicon word."""


def _b_imperfect(f: str, ba: bool) -> bool:
    """A folded word that is b-/bi-/ba- + a y-/t- imperfect of the lexicon, or (``ba``: spelt ba +
    a single consonant) ba- + a stem whose n- twin is one (not itself a lexicon word)."""
    if f[:1] != "b" or f in ARABIZI:
        return False
    for p in ("bi", "ba", "b"):
        s = f[len(p) :]
        if f.startswith(p) and s[:1] in ("i", "t") and len(s) >= MIN_IMPERFECT and s in ARABIZI:
            return True
    s = f[2:]
    return ba and len(s) >= MIN_STEM and ("n" + s in ARABIZI or "na" + s in ARABIZI)


def east_form(low: str) -> bool:
    """A lower-cased ASCII Latin word is one of the Mashriq's forms above."""
    if "2" in low:
        f9 = arabizi_fold(low.replace("2", "9"))
        if f9 in ARABIZI or (f9.startswith("ma") and f9.endswith("š") and f9[2:-1] in ARABIZI):
            return True
    f = arabizi_fold(low)
    if f.startswith("mab") and f.endswith("š") and len(f) >= 8:
        return _b_imperfect(f[2:-1], False)
    return _b_imperfect(f, low[:2] == "ba" and low[2:3] != low[3:4])  # not b + el: bessalem, bassa7
