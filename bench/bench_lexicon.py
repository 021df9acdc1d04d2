"""The Arabizi language gate's reach (scorer/lexicon.py) on text it was not built from.

Prints, for each half of ``bench/data/arabizi`` (``dev.txt``: the half the core vocabulary was
grown against; ``heldout.txt``: the half that was not looked at while growing it, see the README
there):

* token coverage (share of running words the lexicon knows) and distinct-word coverage, with the
  corpus's French and English words (``foreign.txt``, annotated by hand) and digit strings set aside;
* the same on TArC, the Tunisian Arabish Corpus (``bench/data/tarc/``, CC BY 4.0, real social-media
  Arabizi by other writers, see bench/derive_tarc.py): ``dev.tsv`` is the half the lexicon's corpus
  words were drawn from, ``heldout.tsv`` the posts held out; tokens annotated ``arabizi`` count,
  foreign and emotag tokens, punctuation, numbers, abbreviations and proper nouns are set aside;
* the pass rate of two negative sets, seeded: random letter strings (a–z, 3 to 8 letters) and
  random consonant–vowel syllable strings (1 to 3 syllables, as gibberish attacks write
  them);
* the lookup cost, nanoseconds per word: first lookups (the per-word cache empty) and cached ones.

``python bench/bench_lexicon.py`` (``make bench`` runs it). Figures only: tests/test_lexicon.py
holds the floors and ceilings with the same functions.
"""

from __future__ import annotations

import random
import re
import string
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_lexicon.py` from the repository root
    sys.path.insert(0, str(ROOT))

from scorer import lexicon  # noqa: E402
from scorer.arabic import normalize_arabic  # noqa: E402

CORPUS = ROOT / "bench" / "data" / "arabizi"
TARC = ROOT / "bench" / "data" / "tarc"
SPLITS = ("dev", "heldout")
TARC_ASIDE_POS = ("PUNC", "SYM", "NOUN_NUM", "NOUN_PROP", "ABBREV", "foreign")
"""TArC part-of-speech tags whose tokens are not counted (names are not lexicon words)."""
_WORD = re.compile(r"[^\W_]+")
SYLLABLE_CONSONANTS = "bdfghjklmnrstwz"
SYLLABLE_VOWELS = "aeiou"
NEGATIVES = 5000
SEED = 20250


def foreign() -> frozenset[str]:
    """The corpus's French and English words (``foreign.txt``; '#' lines are comments)."""
    text = (CORPUS / "foreign.txt").read_text(encoding="utf-8")
    lines = (ln for ln in text.splitlines() if not ln.startswith("#"))
    return frozenset(normalize_arabic(w).lower() for ln in lines for w in ln.split())  # as the tokens


def corpus_tokens(split: str = "all") -> list[str]:
    """The Arabizi tokens of one half (``dev``, ``heldout``) or of ``all``: split as the scorer
    splits a poem (normalised, ``[^\\W_]+`` runs), lower-cased, French/English and digits set aside."""
    names = SPLITS if split == "all" else (split,)
    aside = foreign()
    out: list[str] = []
    for name in names:
        text = normalize_arabic((CORPUS / f"{name}.txt").read_text(encoding="utf-8"))
        out += [w for w in (t.lower() for t in _WORD.findall(text)) if not w.isdigit() and w not in aside]
    return out


def tarc_tokens(split: str) -> list[str]:
    """The Arabizi tokens of one TArC half (``dev``, ``heldout``), split as the scorer splits a poem,
    lower-cased; tokens of the classes and tags in TARC_ASIDE_POS, and digits, set aside."""
    out: list[str] = []
    for ln in (TARC / f"{split}.tsv").read_text(encoding="utf-8").splitlines():
        cols = ln.split("\t")
        if len(cols) != 3 or cols[1] != "arabizi" or any(p in cols[2] for p in TARC_ASIDE_POS):
            continue
        out += [w for w in (t.lower() for t in _WORD.findall(normalize_arabic(cols[0]))) if not w.isdigit()]
    return out


def coverage(
    words: Iterable[str], known: Callable[[str], bool] = lexicon.is_arabizi_word
) -> tuple[float, float]:
    """(token coverage, distinct-word coverage) of ``words``."""
    words = list(words)
    distinct = set(words)
    hits = {w for w in distinct if known(w)}
    return sum(w in hits for w in words) / len(words), len(hits) / len(distinct)


def random_letters(n: int = NEGATIVES, seed: int = SEED) -> list[str]:
    """``n`` random strings of 3 to 8 letters a–z."""
    rng = random.Random(seed)
    return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 8))) for _ in range(n)]


def random_syllables(n: int = NEGATIVES, seed: int = SEED) -> list[str]:
    """``n`` random strings of 1 to 3 consonant–vowel syllables (ba, ki, ru, ...)."""
    rng = random.Random(seed)
    syl = [c + v for c in SYLLABLE_CONSONANTS for v in SYLLABLE_VOWELS]
    return ["".join(rng.choices(syl, k=rng.randint(1, 3))) for _ in range(n)]


def pass_rate(words: list[str]) -> float:
    return sum(map(lexicon.is_arabizi_word, words)) / len(words)


def lookup_cost() -> tuple[float, float]:
    """(ns per first lookup, ns per cached lookup) over the corpus and both negative sets."""
    words = list(dict.fromkeys([*corpus_tokens(), *random_letters(), *random_syllables()]))
    lexicon.is_arabizi_word("warm")  # the variant index is built on the first lookup
    lexicon.is_arabizi_word.cache_clear()
    t = time.perf_counter_ns()
    for w in words:
        lexicon.is_arabizi_word(w)
    first = (time.perf_counter_ns() - t) / len(words)
    t = time.perf_counter_ns()
    for _ in range(20):
        for w in words:
            lexicon.is_arabizi_word(w)
    return first, (time.perf_counter_ns() - t) / (20 * len(words))


def main() -> int:
    for split in (*SPLITS, "all"):
        toks = corpus_tokens(split)
        tok, dist = coverage(toks)
        print(
            f"arabizi corpus {split:8s}: {len(toks):5d} tokens, {len(set(toks)):4d} distinct;"
            f" known {tok:6.1%} of tokens, {dist:6.1%} of distinct words"
        )
    for split in SPLITS:
        toks = tarc_tokens(split)
        tok, dist = coverage(toks)
        print(
            f"TArC (real)    {split:8s}: {len(toks):5d} tokens, {len(set(toks)):4d} distinct;"
            f" known {tok:6.1%} of tokens, {dist:6.1%} of distinct words"
        )
    print(f"random letter strings (a-z, 3-8)   pass: {pass_rate(random_letters()):6.2%}")
    print(f"random CV syllable strings (1-3)   pass: {pass_rate(random_syllables()):6.2%}")
    first, cached = lookup_cost()
    print(f"is_arabizi_word: {first:,.0f} ns per first lookup, {cached:,.0f} ns cached")
    unknown = sorted({w for w in corpus_tokens("dev") if not lexicon.is_arabizi_word(w)})
    print(f"unknown in dev ({len(unknown)}): {' '.join(unknown)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
