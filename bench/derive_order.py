"""Derive the word-order tables (``scorer/lexicon/order/{arabic,arabizi}.tsv``) from TArC and Barcha.

TArC, the Tunisian Arabish Corpus (Gugliotta, Dinarelli and Kraif; github.com/eligugliotta/tarc,
licence CC BY 4.0), gives every token of its ~43,000 in Arabizi as written and in CODA Arabic
script, so one corpus yields both scripts' word order. Its Arabic column (26,000 words) is too
small a sample of Arabic-script Derja: Barcha (Waad Ben Kheder; github.com/wa3dbk/Barcha, MIT),
Tunisian social media, adds its Arabic-script sentences that the scorer's own variety reading
takes for Derja with no MSA weight (``barcha_sentences``): about 630,000 words.

This script reads TArC's ``tarc.tsv`` and keeps the tokens classified ``arabizi`` (not foreign
words, emoticons, punctuation or numbers), sentence by sentence. In Arabic script a proclitic the
CODA column writes apart (ال, و, ب, ل, ف, ك and their chains) is joined to the next word, as a poem
writes it, and CODA's plural verb ending -وا is written -و, as poems write it. Words are normalised
as the scorer reads them (``normalize_arabic``; Arabizi lower case).

The table lists the TOP most frequent words of each script (the FUNCTION most frequent marked: the
shape model keeps them as themselves) and the bigram counts of classes (``scorer.order``: a listed
word is its own class, any other word its shape), sentence start ``<s>`` and end ``</s>`` included.

    python bench/derive_order.py PATH/TO/tarc.tsv PATH/TO/Barcha/texts

Run once when the corpus or the classes change.
"""

from __future__ import annotations

import gzip
import itertools
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scorer.arabic import normalize_arabic  # noqa: E402
from scorer.order import CODA_PLURAL, DIR, START, join_clitics, shape  # noqa: E402
from scorer.variety import detect_arabic, is_derja  # noqa: E402

TOP = {"arabic": 200, "arabizi": 800}
FUNCTION = {"arabic": 60, "arabizi": 100}
"""Words listed per script, and of them the function words: chosen on the genuine poems of
`tests/redteam_rounds/` and data/samples against their own shuffles (docs/scorer.md, "Word order");
Arabizi spelling varies more, so it needs more words listed to see the same order."""
END = "</s>"
SKIP_POS = ("PUNC", "SYM", "NOUN_NUM", "EMOT")
PROCLITICS = frozenset("ال و ب ل ف ك وال بال فال لل كال ولل وب ول وف".split())  # noqa: SIM905


def sentences(path: Path, arabic: bool) -> list[list[str]]:
    """The corpus's sentences in one script, normalised as the scorer reads words."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split("\t")
        if len(f) < 7 or f[0] == "TYPE":
            continue
        if f[1] == "<eos>":
            if cur:
                out.append(cur)
            cur = []
            continue
        if f[3] != "arabizi" or f[6] in SKIP_POS:
            continue
        cur.extend((f[4] if arabic else f[2]).split())
    if cur:
        out.append(cur)
    if arabic:
        out = [join_clitics(s, PROCLITICS) for s in out]
        return [[_plural_as_poems_write(normalize_arabic(w)) for w in s] for s in out]
    return [[w.lower() for w in s] for s in out]


_ARABIC_WORD = re.compile(r"[\u0621-\u064a\u0671-\u06d3\u0640\u064b-\u0652\u06a4\u06a8\u06af]+")
_SENTENCE_BREAK = re.compile(r"[.!؟?،,:;«»\"()\[\]…]+|\s[-–]\s")


def barcha_sentences(texts: Path) -> list[list[str]]:
    """Barcha's Arabic-script sentences read as Derja (`derja_pieces`) from every ``*.txt.gz``
    under ``texts``, in name order."""
    lines: list[str] = []
    for path in sorted(texts.rglob("*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines += f.read().splitlines()
    return derja_pieces(lines)


def derja_pieces(lines: Iterable[str]) -> list[list[str]]:
    """Each line once, cut at punctuation; a piece of three words or more written wholly in Arabic
    letters is kept, as its normalised words, when ``scorer.variety``'s markers read it as Tunisian
    with no MSA weight. Social media mixes MSA and Derja line by line; MSA order in the table would
    pay MSA, and MSA words in the variety classifier's Tunisian counts would read MSA as Derja."""
    out: list[list[str]] = []
    seen: set[str] = set()
    for line in lines:
        line = line.strip()
        if not line or line in seen:
            continue
        seen.add(line)
        for piece in _SENTENCE_BREAK.split(line):
            tokens = piece.split()
            if len(tokens) < 3 or not all(map(_ARABIC_WORD.fullmatch, tokens)):
                continue
            words = [w for w in map(normalize_arabic, tokens) if w]
            if len(words) < 3:
                continue
            reading = detect_arabic(words, piece)
            if is_derja(reading) and reading.msa == 0:
                out.append([_plural_as_poems_write(w) for w in words])
    return out


def _plural_as_poems_write(word: str) -> str:
    """CODA spells the plural verb ending -وا (تشوفوا, قالوا: 394 imperfect verbs in TArC), as MSA
    does; Derja poems write it -و (نلعبو, قالو). Read with CODA's alif, every such verb fell out of
    the plural-verb class and the class kept 11 tokens, too few to estimate."""
    return word[:-1] if len(word) > 3 and word.endswith(CODA_PLURAL) else word


def table(sents: list[list[str]], arabic: bool) -> list[str]:
    script = "arabic" if arabic else "arabizi"
    freq = Counter(w for s in sents for w in s)
    ranked = [w for w, _ in freq.most_common(TOP[script])]
    words = set(ranked)
    function = set(ranked[: FUNCTION[script]])
    big: Counter[tuple[str, str]] = Counter()
    for s in sents:
        cs = [START, *(w if w in words else shape(w, arabic) for w in s), END]
        big.update(itertools.pairwise(cs))
    rows = [f"w\t{w}\t{int(w in function)}" for w in ranked]
    rows += [f"b\t{a}\t{b}\t{c}" for (a, b), c in sorted(big.items())]
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[-2].strip(), file=sys.stderr)
        return 2
    src, barcha = Path(argv[0]), Path(argv[1])
    DIR.mkdir(parents=True, exist_ok=True)
    for name, arabic in (("arabic", True), ("arabizi", False)):
        sents = sentences(src, arabic)
        sources = "TArC (CC BY 4.0)"
        if arabic:
            sents += barcha_sentences(barcha)
            sources = "TArC (CC BY 4.0) and Barcha (MIT)"
        head = [
            f"# Word-order table ({name}) derived by bench/derive_order.py from {sources};",
            "# lexicon/order/README.md: w<TAB>word<TAB>function(0/1), b<TAB>class<TAB>class<TAB>count.",
            f"# {len(sents)} sentences, {sum(map(len, sents))} words.",
        ]
        (DIR / f"{name}.tsv").write_text("\n".join([*head, *table(sents, arabic)]) + "\n", encoding="utf-8")
        print(f"{name}: {len(sents)} sentences")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
