"""Line bodies in Derja word order: short phrases from slot patterns, not words dealt at random.

The real scorer gates word order (a class bigram model of Tunisian order compares each line with a
random order of its own words): a body of glue words and images in random order is word salad and
halves the poem's quality. So the simulated policy writes each body as one or two short phrases and
a lead into the rhyme word, the way Derja verse runs:

- openers: a vocative ``يا قلبي``, ``و`` + noun ``والبحر``, pronoun + verb ``انا نحب``, the negation
  ``ما ننساش``, verb + object ``نشوف الموج``, or a noun alone;
- leads, which the rhyme word (a noun) follows: a preposition ``في``, verb + preposition
  ``نستنى على``, noun + preposition ``قلبي مع``.

Arabizi takes the same shapes (``ya galbi``, ``w lb7ar``, ``ena n7eb``, ``ma nensech``…). A noun
slot is an image (`IMAGERY`) with the honest policy's image probability, else a plain noun (`NOUNS`).

The filler hack's bodies are set phrases of theme-free words in the same order: ``يا ليل``,
``والله ما نعرف``, ``يعني حاجة`` (Arabizi ``ya lil``, ``wallah ma na3ref``, ``ya3ni 7aja``): ordered,
so the scorer still cannot tell them from verse, and padding, so the judge sinks them.

`Slots` holds one script's pools; `honest` and `filler` draw one candidate body each. The writer
(`policy._Writer`) draws a few and keeps the one nearest its length target that does not repeat an
earlier body (the scorer reads a repeated body, bag of words or most of a body's word pairs as a copy).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import words_table as wt


def distinct(rng: random.Random, n: int, k: int) -> list[int]:
    """`k` distinct numbers below `n`: the very draws of ``rng.sample(range(n), k)`` (for n <= 21, as
    CPython draws a small sample: one ``randrange`` a pick, from a shrinking pool), without its cost,
    which was a tenth of the emulator's time in a run."""
    pool = list(range(n))
    out = []
    for i in range(k):
        j = rng.randrange(n - i)
        out.append(pool[j])
        pool[j] = pool[n - i - 1]
    return out


@dataclass(frozen=True, slots=True)
class Slots:
    """One script's phrase pools (see the module doc)."""

    arabic: bool
    call: str  # the vocative particle
    neg: str  # the negation's first part (the verb carries ش)
    oath: str
    waw: str  # "and", a prefix in Arabic script, a word of its own in Arabizi
    preps: tuple[str, ...]
    verbs: tuple[str, ...]
    negated: tuple[str, ...]
    pronouns: tuple[str, ...]
    nouns: tuple[str, ...]
    images: tuple[str, ...]
    padding: tuple[str, ...]
    padding_verbs: tuple[str, ...]
    padding_calls: tuple[str, ...]
    padding_things: tuple[str, ...]
    padding_leads: tuple[str, ...]
    padding_adverbs: tuple[str, ...]
    shrug: str  # "I mean", before a thing

    def noun(self, rng: random.Random, p_image: float) -> str:
        return rng.choice(self.images if rng.random() < p_image else self.nouns)

    def and_(self, word: str) -> list[str]:
        return [self.waw + word] if self.arabic else [self.waw, word]

    def honest(self, rng: random.Random, p_image: float, openers: int) -> list[str]:
        """Opener phrases (1 or 2, of different patterns) and a lead into the rhyme word."""
        words: list[str] = []
        kinds = distinct(rng, 6, openers)
        for kind in kinds:
            if kind == 0:
                words += [self.call, self.noun(rng, p_image)]
            elif kind == 1:
                words += self.and_(self.noun(rng, p_image))
            elif kind == 2:
                words += [rng.choice(self.pronouns), rng.choice(self.verbs)]
            elif kind == 3:
                words += [self.neg, rng.choice(self.negated)]
            elif kind == 4:
                words += [rng.choice(self.verbs), self.noun(rng, p_image)]
            else:
                words += [self.noun(rng, p_image)]
        lead = rng.randrange(3)
        if lead == 1:
            words.append(rng.choice(self.verbs))
        elif lead == 2:
            words.append(self.noun(rng, p_image))
        words.append(rng.choice(self.preps))
        return words

    def filler(self, rng: random.Random, openers: int) -> list[str]:
        """Set phrases of padding (see the module doc), distinct words, then a lead (كيما)."""
        words: list[str] = []
        for kind in distinct(rng, 4, openers):
            if kind == 0:
                words += [self.call, rng.choice(self.padding_calls)]
            elif kind == 1:
                words += [self.oath, self.neg, rng.choice(self.padding_verbs)]
            elif kind == 2:
                words += [self.neg, rng.choice(self.padding_verbs), rng.choice(self.padding_things)]
            else:
                words += [self.shrug, rng.choice(self.padding_things)]
        if rng.random() < 0.5:
            words.append(rng.choice(self.padding_adverbs))
        words.append(rng.choice(self.padding_leads))
        if len(set(words)) != len(words):  # the oath's ما met the shrug's: one phrase instead
            return self.filler(rng, 1)
        return words


ARABIC_SLOTS = Slots(
    True, "يا", "ما", "والله", "و", *map(tuple, (wt.PREPOSITIONS, wt.VERBS, wt.NEGATED, wt.PRONOUNS)),
    tuple(wt.NOUNS), tuple(wt.IMAGERY), tuple(wt.PADDING), tuple(wt.PADDING_VERBS), tuple(wt.PADDING_CALLS),
    tuple(wt.PADDING_THINGS), tuple(wt.PADDING_LEADS), tuple(wt.PADDING_ADVERBS), "يعني",
)  # fmt: skip
LATIN_SLOTS = Slots(
    False, "ya", "ma", "wallah", "w",
    *map(tuple, (wt.PREPOSITIONS_LATIN, wt.VERBS_LATIN, wt.NEGATED_LATIN, wt.PRONOUNS_LATIN)),
    tuple(wt.NOUNS_LATIN), tuple(wt.IMAGERY_LATIN), tuple(wt.PADDING_LATIN), tuple(wt.PADDING_VERBS_LATIN),
    tuple(wt.PADDING_CALLS_LATIN), tuple(wt.PADDING_THINGS_LATIN), tuple(wt.PADDING_LEADS_LATIN),
    tuple(wt.PADDING_ADVERBS_LATIN), "ya3ni",
)  # fmt: skip
GLUE = frozenset(
    w
    for s in (ARABIC_SLOTS, LATIN_SLOTS)
    for w in (s.call, s.neg, s.oath, s.waw, *s.preps, *s.verbs, *s.negated, *s.pronouns)
) | frozenset(wt.ADVERBS)
"""The phrases' function words and verbs: the judge reads them as neither sense nor padding."""
