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
* the pass rate (and the attested rate, no loose lookup) of three negative sets, seeded: random
  letter strings (a–z, 3 to 8 letters), invented Derja-shaped words with a digit and
  random consonant–vowel syllable strings (1 to 3 syllables, as gibberish attacks write
  them);
* in Arabic script, the pass rate of every three-consonant string ending in ار (18 consonants, the
  rhyme endings gibberish attacks write) and of seeded random 4–6-letter consonant strings, with the
  path that accepts them: the whole word listed, or a listed stem after a clitic, a suffix or a verb
  prefix came off (``scorer/lexicon.py``, ``_arabic_splits``);
* corrupted real words, both scripts: words of the sample poems (``data/samples``, four letters or
  more) with one letter changed at random, seeded; the share that passes, and the share that is a
  listed word itself (a change can make another real word, so the figure cannot reach 0);
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
SAMPLES = ROOT / "data" / "samples"
AR_CONSONANTS = "بتجحدرزسشصعفقكلمنه"
"""The 18 consonants of the three-consonant + ار set (18³ = 5,832 strings)."""
AR_ALL_CONSONANTS = "بتثجحخدذرزسشصضطظعغفقكلمنه"
AR_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"
LATIN_LETTERS = "abcdefghijklmnopqrstuvwxyz3579"


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


INVENTED_HEADS = ("", "", "n", "y", "t", "w", "b", "f", "el", "l", "ma", "m")
INVENTED_TAILS = ("", "", "a", "ou", "ha", "ek", "na", "hom", "et", "i", "ti")
INVENTED_CONSONANTS = "bdfghjklmnrstwz3579"


def invented_arabizi(n: int = NEGATIVES, seed: int = SEED) -> list[str]:
    """``n`` invented words in Derja's shapes that carry a digit, as rounds 25 and 31 wrote them: a
    prefix, two or three syllables of a consonant (digits for ع خ ح ق among them) and, three times
    in five, a vowel, and a suffix."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        stem = "".join(
            rng.choice(INVENTED_CONSONANTS) + (rng.choice(SYLLABLE_VOWELS) if rng.random() < 0.6 else "")
            for _ in range(rng.randint(2, 3))
        )
        w = rng.choice(INVENTED_HEADS) + stem + rng.choice(INVENTED_TAILS)
        if any(ch in "3579" for ch in w):
            out.append(w)
    return out


def pass_rate(words: list[str], known: Callable[[str], bool] = lexicon.is_arabizi_word) -> float:
    return sum(map(known, words)) / len(words)


def arabic_three_consonants_ar() -> list[str]:
    """Every three-consonant string of AR_CONSONANTS ending in ار (5,832)."""
    c = AR_CONSONANTS
    return [a + b + d + "ار" for a in c for b in c for d in c]


def arabic_consonants(n: int = NEGATIVES, seed: int = SEED) -> list[str]:
    """``n`` random strings of 4 to 6 letters of AR_ALL_CONSONANTS (no long-vowel letters)."""
    rng = random.Random(seed)
    return ["".join(rng.choices(AR_ALL_CONSONANTS, k=rng.randint(4, 6))) for _ in range(n)]


def arabic_path(word: str) -> str:
    """How ``is_arabic_word`` accepts ``word``: ``listed``, or the pieces that came off before a
    listed stem (``clitic``, ``suffix``, ``verb prefix``, joined by +), or ``unknown``."""
    w = lexicon.arabic_lookup_form(word)
    if not lexicon.is_arabic_word(word):
        return "unknown"
    if w in lexicon.ARABIC:
        return "listed"
    for clitic, verb, stem in lexicon._arabic_splits(w):
        if lexicon._arabic_stem_ok(clitic, verb, stem):
            parts = [clitic and "clitic", len(clitic) + len(verb) + len(stem) < len(w) and "suffix"]
            return "+".join(p for p in (*parts, verb and "verb prefix") if p)
    return "unknown"


def arabic_paths(words: list[str]) -> str:
    """``path n`` for each accepting path of ``words``, most frequent first."""
    counts: dict[str, int] = {}
    for w in words:
        p = arabic_path(w)
        if p != "unknown":
            counts[p] = counts.get(p, 0) + 1
    return ", ".join(f"{p} {n}" for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def sample_words(arabizi: bool) -> list[str]:
    """The distinct words of four letters or more of the sample poems of one script, sorted."""
    folder = SAMPLES / "arabizi" if arabizi else SAMPLES
    words: set[str] = set()
    for path in sorted(folder.glob("*.txt")):
        text = normalize_arabic(path.read_text(encoding="utf-8"))
        words |= {w.lower() for w in _WORD.findall(text) if len(w) >= 4 and not w.isdigit()}
    return sorted(words)


def corrupted(arabizi: bool, n: int = NEGATIVES, seed: int = SEED) -> list[str]:
    """``n`` sample-poem words (sample_words) with one letter replaced by another at random."""
    rng = random.Random(seed)
    words = sample_words(arabizi)
    letters = LATIN_LETTERS if arabizi else AR_LETTERS
    out = []
    for _ in range(n):
        w = rng.choice(words)
        i = rng.randrange(len(w))
        out.append(w[:i] + rng.choice([c for c in letters if c != w[i]]) + w[i + 1 :])
    return out


def listed(word: str, arabizi: bool) -> bool:
    """``word`` is a lexicon word as it stands (no stripping, no loose spelling)."""
    if arabizi:
        return lexicon.arabizi_lookup_form(word) in lexicon.ARABIZI
    return lexicon.arabic_lookup_form(word) in lexicon.ARABIC


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
        attested = coverage(toks, lexicon.is_attested_arabizi)[0]
        print(f"    attested (no loose lookup, the lexicon gate's ATTESTED_RAMP): {attested:6.1%} of tokens")
    for name, strings in (
        ("letter strings (a-z, 3-8)", random_letters()),
        ("CV syllable strings (1-3)", random_syllables()),
        ("Derja-shaped words, a digit", invented_arabizi()),
    ):
        attested = pass_rate(strings, lexicon.is_attested_arabizi)
        print(f"random {name:27s} pass: {pass_rate(strings):6.2%} (attested {attested:6.2%})")
    for name, strings in (
        ("three consonants + ار (5,832)", arabic_three_consonants_ar()),
        ("random consonants (4-6)", arabic_consonants()),
    ):
        rate = pass_rate(strings, lexicon.is_arabic_word)
        attested = pass_rate(strings, lexicon.is_attested_arabic)
        print(f"arabic {name:30s} pass: {rate:6.2%} ({arabic_paths(strings)}); attested {attested:6.2%}")
    for arabizi in (False, True):
        strings = corrupted(arabizi)
        known = lexicon.is_arabizi_word if arabizi else lexicon.is_arabic_word
        rate = pass_rate(strings, known)
        whole = sum(listed(w, arabizi) for w in strings) / len(strings)
        script = "arabizi" if arabizi else "arabic "
        print(f"corrupted real words ({script})    pass: {rate:6.2%} (listed words themselves: {whole:6.2%})")
    first, cached = lookup_cost()
    print(f"is_arabizi_word: {first:,.0f} ns per first lookup, {cached:,.0f} ns cached")
    unknown = sorted({w for w in corpus_tokens("dev") if not lexicon.is_arabizi_word(w)})
    print(f"unknown in dev ({len(unknown)}): {' '.join(unknown)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
