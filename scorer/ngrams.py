"""Which variety does each word of a poem come from? A character n-gram classifier that sees every word.

Marker lists (``scorer.variety``) only hear the words they list: a Gulf or Egyptian poem written in
other words reads as ``unknown``. Here each variety has a naive Bayes model of a word as a bag of
features: its character n-grams of orders 1 to 4 between two boundary spaces and, from three letters,
the whole word, counted in real text of each variety (``lexicon/varieties/model/<script>.tsv``, built
by ``bench/build_variety_model.py``; sources and licences in ``lexicon/varieties/model/NOTICE.md``;
docs/scorer.md, "Varieties"). Smoothed per order (``ALPHA``); tempered (``TEMPERATURE``), since a
word's features are far from independent.

A word's **vote** is its posterior above chance, rescaled to [0, 1]: a word as likely everywhere
(قلب) votes for nobody, one only one variety writes (برشا, دلوقتي) nearly 1 for it. Votes and
likelihood ratios are cached per word (`WordTable`: a run's vocabulary repeats). A script's table is
read on its first ``load`` (cached), never at import; no randomness.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from pathlib import Path

from scorer.lexicon import WordTable

MODEL_DIR = Path(__file__).resolve().parent / "lexicon" / "varieties" / "model"
ORDERS = (1, 2, 3, 4)
WHOLE = 0
"""The order label of the whole-word feature (a word of WHOLE_FROM letters or more)."""
WHOLE_FROM = 3
"""Shorter words are whole in their boundary n-grams already (`` مش `` is a 4-gram)."""
ALPHA = 0.5
"""Add-alpha smoothing of each feature count, per order."""
TEMPERATURE = 16.0
"""A word's log-likelihoods are divided by this before its posterior: its ~4·len features overlap
(each letter is in up to ten of them), so their sum overstates the evidence. A high temperature
quiets the words every variety says (their margins are a few nats: love and night words lean to
whichever corpus talks of them most) far more than the words one variety owns (margins of tens of
nats). Chosen with VOTE_FROM among 4, 8 and 16 on ``bench/data/varieties``'s development half."""
VOTE_FROM = 0.25
"""A word votes for a variety with the part of its posterior above this, rescaled so a certain word
votes 1: a word the model is unsure of (a poem's common words, posteriors of 0.2–0.3 spread over
the varieties) votes for nobody, so a long poem's many common words do not add up to a reading.
Chosen among 1/6, 0.3, 0.4 and 0.5 with TEMPERATURE."""

MARGIN_CLIP = 5.0
"""A word's log-likelihood ratio counts at most this many nats either way in a poem's margin: a
word only one corpus holds scores tens of nats (a love word only Levantine chat says), and one such
word must not decide a poem. Chosen among 2, 3, 5, 8 and no clip on the genuine poems and cheats of
``tests/redteam_rounds``."""


_LETTER_FOR_DIGIT = (("kh", "5"), ("gh", "8"), ("q", "9"), ("7", "h"))
"""Arabizi writes ح as 7 or h, ق as 9 or q, خ as 5 or kh, غ as 8 or gh, whatever the variety: the
Latin model reads (and is trained on) one spelling of each, so a spelling is never evidence of a
variety (ح and ه both become h: the model tells varieties, not letters)."""


def latin_spelling(word: str) -> str:
    """A lower-cased Latin word in the model's one spelling of the letters Arabizi writes either
    way (_LETTER_FOR_DIGIT)."""
    for letters, digit in _LETTER_FOR_DIGIT:
        word = word.replace(letters, digit)
    return word


def features(word: str) -> list[tuple[int, str]]:
    """(order, feature) pairs of one word (lower-cased Latin or normalised Arabic): its n-grams of
    orders 1–4 between boundary spaces (a boundary space alone is no feature) and, from WHOLE_FROM
    letters, the whole word. For a word of n letters: 4n + 4 features at most."""
    s = f" {word} "
    out = [(1, c) for c in word]
    for n in ORDERS[1:]:
        out += [(n, s[i : i + n]) for i in range(len(s) - n + 1)]
    if len(word) >= WHOLE_FROM:
        out.append((WHOLE, s))
    return out


class Model:
    """One script's naive Bayes tables: per feature, the smoothed log-probability under each
    variety minus the order's floor (so a feature the model lacks adds nothing and the floors are
    summed once per order count).

    Loading splits the file into lines only (~25–40 ms for ~50–80k features): a feature's counts are
    parsed into its log-ratios the first time a word asks for it, and kept (a run's vocabulary
    repeats, and each word's vote is cached as well)."""

    def __init__(self, path: Path, lower: bool = False) -> None:
        self.lower = lower
        """Latin script: a word is read lower-cased (its vote is cached under the spelling given)."""
        raw = dict(
            line.split("\t", 1)
            for line in path.read_text(encoding="utf-8").split("\n")
            if line and line[0] != "#"
        )
        self.varieties: tuple[str, ...] = tuple(raw.pop("variety").split("\t"))
        totals = {int(key[6:]): raw.pop(key) for key in [k for k in raw if k.startswith("@total")]}
        kinds = Counter(map(_order, raw))
        self.floor: dict[int, tuple[float, ...]] = {}
        self._denom: dict[int, tuple[float, ...]] = {}
        for order, cols in sorted(totals.items()):
            size = kinds.get(order, 0) + 1  # the kept features and one slot for every other
            denom = tuple(float(t) + ALPHA * size for t in cols.split("\t"))
            self._denom[order] = denom
            self.floor[order] = tuple(math.log(ALPHA / d) for d in denom)
        self.table: dict[str, str | tuple[float, ...]] = raw  # type: ignore[assignment]
        """feature → its counts as written (tab-separated), replaced by its log-ratios when first read."""
        self.zero = (0.0,) * len(self.varieties)
        self.votes = WordTable(self._vote)
        self.ratios = WordTable(self._ratio)

    def _row(self, feature: str) -> tuple[float, ...]:
        """A feature's log-ratios (``zero`` for a feature the model does not hold)."""
        row = self.table.get(feature)
        if row is None:
            return self.zero
        if isinstance(row, str):
            order = _order(feature)
            d, fl = self._denom[order], self.floor[order]
            cs = row.split("\t")
            row = self.table[feature] = tuple(
                math.log((float(c) + ALPHA) / d[i]) - fl[i] for i, c in enumerate(cs)
            )
        return row

    def loglik(self, word: str) -> list[float]:
        """The word's log-likelihood under each variety (naive Bayes over its features)."""
        feats = features(word)
        base = [0.0] * len(self.varieties)
        for order, _ in feats:
            fl = self.floor[order]
            base = [b + f for b, f in zip(base, fl, strict=True)]
        rows = [self._row(f) for _, f in feats]
        return [b + sum(col) for b, col in zip(base, zip(*rows, strict=True), strict=True)]

    def posterior(self, word: str) -> list[float]:
        """The word's posterior over the varieties (flat prior, TEMPERATURE applied)."""
        ll = [x / TEMPERATURE for x in self.loglik(word)]
        top = max(ll)
        ex = [math.exp(x - top) for x in ll]
        z = sum(ex)
        return [e / z for e in ex]

    def _vote(self, word: str) -> tuple[float, ...]:
        """The posterior above chance (1/k), rescaled so a certain word votes 1: each variety's
        share of the word's evidence, summing to at most 1."""
        if not word:
            return self.zero
        if self.lower:
            word = latin_spelling(word.lower())
        return tuple(max(0.0, (p - VOTE_FROM) / (1.0 - VOTE_FROM)) for p in self.posterior(word))

    def _ratio(self, word: str) -> tuple[float, ...]:
        """The word's log-likelihood under Tunisian (the first variety) less that under each variety,
        clipped to ±MARGIN_CLIP nats (``scorer.score.standard_margin`` reads the MSA column)."""
        ll = self.loglik(word)
        return tuple(max(-MARGIN_CLIP, min(MARGIN_CLIP, ll[0] - x)) for x in ll)

    def poem_votes(self, words: list[str]) -> list[float]:
        """Votes per variety (``varieties`` order) summed over the distinct words: a refrain or a
        word said again is one word. In the order first met (not a set's: the float sums must not
        depend on PYTHONHASHSEED)."""
        rows = list(map(self.votes.__getitem__, dict.fromkeys(words)))
        if not rows:
            return list(self.zero)
        return list(map(sum, zip(*rows, strict=True)))


def _order(key: str) -> int:
    """A feature's order: WHOLE for a whole word (spaces at both ends, longer than 4)."""
    return WHOLE if len(key) > 4 else len(key)


@functools.cache
def load(script: str) -> Model | None:
    """The model of ``arabic`` or ``arabizi``, None when its file is absent: read on the first call
    for that script (a process scoring Arabic script never reads the Latin model), then kept."""
    path = MODEL_DIR / f"{script}.tsv"
    return Model(path, lower=script == "arabizi") if path.exists() else None
