"""Derive the Arabizi lexicon's corpus words and the real-text measurement set from TArC.

TArC, the Tunisian Arabish Corpus (Gugliotta, Dinarelli and Kraif; github.com/eligugliotta/tarc,
licence CC BY 4.0), is about 43,000 tokens of Tunisian Arabizi from forums, social networks, blogs
and rap lyrics, each token classified by hand-checked annotation as ``arabizi``, ``foreign`` or
``emotag`` and part-of-speech tagged. This script reads its ``tarc.tsv`` and writes:

* ``bench/data/tarc/dev.tsv`` and ``heldout.tsv``: the corpus's sentences, split by author post
  (TYPE, date and the author's metadata, hashed: one post in five is held out), keeping three
  columns (token, class, part of speech). Only ``dev.tsv`` is read to choose lexicon words.
* ``scorer/lexicon/arabizi_tarc.txt``: the dev half's Arabizi words (foreign and emotag tokens,
  punctuation, numbers and proper nouns set aside; a hand-made drop list for French/English words
  the annotation left as arabizi, abbreviations and obscenities), each kept only if it does not
  let random strings through: a word a fresh random letter or consonant–vowel string would be read
  as (exactly, after clitic/suffix stripping, or by its loose form) is kept only when frequent.
  The negatives used here are drawn with seeds other than the bench's, so the bench's figures
  are not fitted to.

    python bench/derive_tarc.py PATH/TO/tarc.tsv

Run once when the corpus or the core changes; ``python bench/build_lexicon.py`` then merges the
word file into ``arabizi.txt`` (the build does not need the corpus).
"""

from __future__ import annotations

import collections
import random
import re
import string
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import build_lexicon  # noqa: E402
from bench.bench_lexicon import SYLLABLE_CONSONANTS, SYLLABLE_VOWELS, TARC, TARC_ASIDE_POS  # noqa: E402
from scorer import lexicon  # noqa: E402
from scorer.arabic import arabizi_fold  # noqa: E402

OUT_DATA = TARC
OUT_WORDS = lexicon.DIR / "arabizi_tarc.txt"
HELD_OUT_ONE_IN = 5
MIN_COUNT = 1
"""Dev occurrences a word needs when it lets no fresh random string through."""
MIN_COUNT_COSTLY = 6
"""Dev occurrences a word needs when it does let some through (short CV words: ``mara``, ``bara``)."""
MAX_COSTLY_SHARE = 0.002
"""A frequent word may admit at most this share of either fresh negative set on its own."""
FRESH = 40000
FRESH_SEEDS = (777, 778)
# French, English and Italian words the annotation left as arabizi, abbreviations, chat shorthand and
# obscenities: not words a Derja poem needs (read by hand over the candidates).
_DROP_WORDS = """
    ok okay video bac km kg dt ml mn wl kn fl gaz dog rap rapi rapek mei loud lol mdr svp stp bjr
    slt cv bb tv pc cd dj fb yt net top cool super bravo merci non oui nn ya3tik nik nayek zebi zeby
    zab zebbi kess kes 5ra 5raa nikomek miboun zok zokk zoks tiz sorm
"""
DROP = frozenset(_DROP_WORDS.split())
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def sentences(path: Path) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """(post key, [(token, class, pos)]) per sentence of tarc.tsv."""
    out: list[tuple[str, list[tuple[str, str, str]]]] = []
    cur: list[tuple[str, str, str]] = []
    key = ""
    with path.open(encoding="utf-8") as f:
        next(f)
        for ln in f:
            r = ln.rstrip("\n").split("\t")
            if len(r) < 7:
                continue
            if r[2] == "<eos>":
                if cur:
                    out.append((key, cur))
                cur = []
                continue
            key = "|".join(r[:2] + r[8:11])
            cur.append((r[2], r[3], r[6]))
    if cur:
        out.append((key, cur))
    return out


def held_out(key: str) -> bool:
    return zlib.crc32(key.encode()) % HELD_OUT_ONE_IN == 0


def write_split(name: str, sents: list[tuple[str, list[tuple[str, str, str]]]]) -> None:
    lines = [
        "# From TArC (Gugliotta, Dinarelli, Kraif; https://github.com/eligugliotta/tarc), CC BY 4.0.\n",
        "# Changed: columns token, class, pos only; one blank line between sentences; split by post\n",
        "# (bench/derive_tarc.py).\n",
    ]
    for _key, s in sents:
        lines += [f"{t}\t{c}\t{p}\n" for t, c, p in s]
        lines.append("\n")
    OUT_DATA.mkdir(parents=True, exist_ok=True)
    (OUT_DATA / f"{name}.tsv").write_text("".join(lines), encoding="utf-8")


def candidates(
    sents: list[tuple[str, list[tuple[str, str, str]]]],
) -> tuple[collections.Counter[str], dict[str, str]]:
    """Folded Arabizi words of the dev sentences with their counts, and each one's commonest
    spelling (the word file holds spellings: folding is not idempotent, š is no Latin letter)."""
    out: collections.Counter[str] = collections.Counter()
    spellings: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for _key, s in sents:
        for tok, cls, pos in s:
            if cls != "arabizi" or any(p in pos for p in TARC_ASIDE_POS):
                continue
            for w in _WORD.findall(tok.lower()):
                f = arabizi_fold(w)
                odd_digit = any(ch.isdigit() and ch not in "235789" for ch in f)
                if len(f) >= 2 and not odd_digit and w not in DROP and f not in DROP and not f.isdigit():
                    out[f] += 1
                    spellings[f][w] += 1
    return out, {f: min(c, key=lambda w: (-c[w], w)) for f, c in spellings.items()}


def fresh_negatives() -> list[list[str]]:
    """Two fresh negative sets (not the bench's seeds), as bench/bench_lexicon.py draws them."""
    rl = random.Random(FRESH_SEEDS[0])
    letters = ["".join(rl.choices(string.ascii_lowercase, k=rl.randint(3, 8))) for _ in range(FRESH)]
    rs = random.Random(FRESH_SEEDS[1])
    syl = [c + v for c in SYLLABLE_CONSONANTS for v in SYLLABLE_VOWELS]
    syllables = ["".join(rs.choices(syl, k=rs.randint(1, 3))) for _ in range(FRESH)]
    return [letters, syllables]


def keys(word: str) -> tuple[set[str], set[str]]:
    """The lexicon entries a lookup of ``word`` tries (exact and stems), and its loose keys."""
    L = lexicon
    w = L.arabizi_lookup_form(word)
    stems = [
        w,
        *L._stems(w, L.LATIN_PREFIXES, L.LATIN_SUFFIXES, L.LATIN_VERB_PREFIXES, L.LATIN_WEAK_SUFFIXES),
    ]
    stems += [s[:-2] + "a" for s in stems if s.endswith("at") and len(s) > L.MIN_STEM]
    floor = L.MIN_VARIANT if any(ch in L._ARABIZI_DIGITS for ch in word) else L.MIN_LOOSE
    loose = {v for v in map(L.loose_form, stems) if len(v) >= floor}
    return set(stems), loose


def select(cands: collections.Counter[str]) -> list[str]:
    """Candidates, most frequent first, that keep the fresh negatives out (see MIN_COUNT_COSTLY)."""
    exact_ix: list[dict[str, set[int]]] = []
    loose_ix: list[dict[str, set[int]]] = []
    passing: list[set[int]] = []
    for neg in fresh_negatives():
        ex: dict[str, set[int]] = collections.defaultdict(set)
        lo: dict[str, set[int]] = collections.defaultdict(set)
        passed = set()
        for i, x in enumerate(neg):
            if lexicon.is_arabizi_word(x):
                passed.add(i)
                continue
            e, lk = keys(x)
            for k in e:
                ex[k].add(i)
            for k in lk:
                lo[k].add(i)
        exact_ix.append(ex)
        loose_ix.append(lo)
        passing.append(passed)
    chosen = []
    for w, n in sorted(cands.items(), key=lambda kv: (-kv[1], kv[0])):
        if w in lexicon.ARABIZI:
            continue
        variants = lexicon._dropped(lexicon.loose_form(w))
        admitted = []
        for ex, lo, passed in zip(exact_ix, loose_ix, passing, strict=True):
            hit = set(ex.get(w, ()))
            for v in variants:
                hit |= lo.get(v, set())
            admitted.append(hit - passed)
        costly = any(admitted)
        if costly and (n < MIN_COUNT_COSTLY or max(map(len, admitted)) > MAX_COSTLY_SHARE * FRESH):
            continue
        if n < MIN_COUNT:
            continue
        chosen.append(w)
        for passed, hit in zip(passing, admitted, strict=True):
            passed |= hit
    for neg, passed in zip(fresh_negatives(), passing, strict=True):
        print(f"fresh negatives passing after selection: {len(passed) / len(neg):.2%}")
    return sorted(chosen)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python bench/derive_tarc.py PATH/TO/tarc.tsv", file=sys.stderr)
        return 2
    sents = sentences(Path(argv[0]))
    dev = [s for s in sents if not held_out(s[0])]
    write_split("dev", dev)
    write_split("heldout", [s for s in sents if held_out(s[0])])
    lexicon.ARABIZI = frozenset(build_lexicon.arabizi_words(corpus=False))  # choose against the core
    lexicon.is_arabizi_word.cache_clear()
    lexicon.loose_variants.cache_clear()
    counts, spelling = candidates(dev)
    words = sorted(spelling[w] for w in select(counts))
    header = (
        "# Tunisian Arabizi words of TArC, the Tunisian Arabish Corpus (Elisa Gugliotta, Marco Dinarelli,\n"
        "# Olivier Kraif; https://github.com/eligugliotta/tarc), licensed CC BY 4.0: the dev half's tokens\n"
        "# annotated arabizi (not foreign, punctuation, numbers or proper nouns), folded, less a hand-made\n"
        "# drop list and the rare words random strings would match. Written by bench/derive_tarc.py.\n"
    )
    OUT_WORDS.write_text(header + "".join(w + "\n" for w in words), encoding="utf-8")
    print(f"{OUT_WORDS}: {len(words)} words; {OUT_DATA}: {len(dev)} dev, {len(sents) - len(dev)} held-out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
