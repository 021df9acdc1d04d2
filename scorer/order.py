"""Word order: are a poem's lines in the order Derja speaks, or its words dealt out at random?

Rhyme, form and words do not change when a poem's words are shuffled inside its lines (or across
them, the rhyme words kept); sense is the judge's, but order is measurable without it. The method
and its figures are in docs/scorer.md, "Word order": a class bigram model of Tunisian word order per
script (``lexicon/order/README.md``); each hemistich of three words or more against the exact
expected score of a random order of its words, the rhyme word in place, so a shuffle gains 0 by
construction whatever its vocabulary; the gate reads ``z``, the summed gain over the spread a random
order's score has (:func:`line_spread`), so a few short lines are weak evidence. With it, two
order-free tests: Derja's glue words (:func:`glue_gate`) and lists of nouns (:func:`list_gate`).

The expectation is exact and cheap: for a line of m movable words with class counts c,
E[start] = Σ c·L(<s>, ·)/m, E[into the rhyme word] = Σ c·L(·, last)/m and E[pairs] =
Σ_{a,b} c_a (c_b − [a = b]) L(a, b)/m.

Pure: tables load once at import; a per-pair cache; no I/O, no randomness.
"""

from __future__ import annotations

import functools
import math
from array import array
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from scorer.arabic import normalize_arabic
from scorer.lexicon import WordTable
from scorer.text import APART_CLITICS

DIR = Path(__file__).resolve().parent / "lexicon" / "order"
KAPPA = 2.0
"""Weight of the shape-level model in a word pair's estimate (pseudo-counts)."""
EVIDENCE = 10.0
"""Corpus tokens at which a class pair's PMI is trusted half: the PMI of a pair whose rarer class has
n tokens is weighted n / (n + EVIDENCE), the rest is its shape pair's. Lower, genuine poems gain
less; higher, more shuffles are paid."""
START = "<s>"
MIN_WORDS = 3
"""A line (hemistich) is judged from this many words: two words have one order that matters."""
CACHE_WORDS = 1 << 16
"""Words whose class is remembered (a bound: the cache never grows past it)."""

_AR_CLITIC_ARTICLE = ("وال", "بال", "فال", "لل", "كال")
CODA_PLURAL = "وا"
"""The plural verb ending as CODA (TArC's Arabic column) and MSA spell it; Derja poems write -و."""
_AR_PLURAL = ("و", CODA_PLURAL)
"""Both spellings of the plural verb ending: one class."""


def shape(word: str, arabic: bool) -> str:
    """The class of a word the table does not list: what its letters say of its role (a clitic,
    the article, a verb's person prefix, a possessive or object suffix, the feminine ending)."""
    if arabic:
        if word.startswith(_AR_CLITIC_ARTICLE):
            return "#Pal"
        if word.startswith("ال"):
            return "#al"
        head = "#w" if len(word) > 3 and word[0] == "و" else "#"
        core = word[1:] if head == "#w" else word
        if len(core) > 3 and core[0] in "نتي":
            return head + ("vu" if core.endswith(_AR_PLURAL) else "v")
        for tail, name in _AR_TAILS:
            if len(core) > len(tail) + 1 and core.endswith(tail):
                return head + name
        return head + "o"
    if word.startswith(("wel", "bel", "fel", "lel", "3al", "mel")):
        return "#Pal"
    if len(word) > 3 and word.startswith(("el", "l")):
        return "#al"
    head = "#w" if len(word) > LATIN_W_WORD and word[0] == "w" else "#"
    core = word[1:] if head == "#w" else word
    if len(core) > 3 and core[0] in "nty":
        return head + ("vu" if core.endswith(("ou", "o", "u")) else "v")
    for tail, name in _LATIN_TAILS:
        if len(core) > len(tail) + 1 and core.endswith(tail):
            return head + name
    return head + "o"


LATIN_W_WORD = 4
"""Arabizi's one-letter w- (and) is read as a prefix only on a word longer than this: on four letters
or fewer the w is more often the root's own (wjah face, wled boys, w7ed one, wra behind) than "and"
before a three-letter word, and read as "and" it would cost a genuine line its order (3la wjah
7bibi netfarrej). In Arabic script و is the same letter either way, read as a prefix on any word of
four letters or more. The same length rule is not applied to l- (the article), nor to the article
assimilated to a sun letter (eddar): either would raise a whole-poem shuffle above 0."""
_AR_TAILS = (("ها", "ha"), ("هم", "hum"), ("نا", "na"), ("ك", "k"), ("ي", "i"), ("ه", "a"), ("ة", "a"))
_LATIN_TAILS = (("ha", "ha"), ("hom", "hum"), ("na", "na"), ("ek", "k"), ("ik", "k"), ("i", "i"), ("a", "a"))


_HEADS = ("#w", "#")
_SHAPES = (
    "#Pal",
    "#al",
    *(head + name for head in _HEADS for name in ("v", "vu", *dict(_AR_TAILS + _LATIN_TAILS).values(), "o")),
)
"""Every class :func:`shape` can answer, in a fixed order (a class's number is its place in the model)."""


class Model:
    """One script's table: the listed words, the function words (kept as themselves in the shape
    model), and the class bigram counts.

    Classes are numbered (``<s>``, the listed words, then every shape) so that :meth:`measure` reads a
    pair's score from a row of floats by index: the expectation sums every ordered pair of a line's
    words, and a dict of string pairs made that the scorer's heaviest loop (docs/scorer.md "Speed").
    A row is filled on its class's first use, whole, and kept."""

    def __init__(self, path: Path, arabic: bool) -> None:
        self.arabic = arabic
        self.words: set[str] = set()
        self.function: set[str] = set()
        self.big: dict[tuple[str, str], int] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line or line.startswith("#"):
                continue
            kind, *f = line.split("\t")
            if kind == "w":
                self.words.add(f[0])
                if f[1] == "1":
                    self.function.add(f[0])
            elif kind == "b":
                self.big[(f[0], f[1])] = int(f[2])
        self.left: Counter[str] = Counter()
        self.right: Counter[str] = Counter()
        s_big: Counter[tuple[str, str]] = Counter()
        for (a, b), c in self.big.items():
            self.left[a] += c
            self.right[b] += c
            s_big[(self._shape_of(a), self._shape_of(b))] += c
        self.s_big = s_big
        self.s_left: Counter[str] = Counter()
        self.s_right: Counter[str] = Counter()
        for (a, b), c in s_big.items():
            self.s_left[a] += c
            self.s_right[b] += c
        self.n = sum(self.big.values())
        self.s_classes = len(self.s_left) + 1
        self.names: list[str] = [START, *sorted(self.words), *_SHAPES]
        self.ids: dict[str, int] = {c: i for i, c in enumerate(self.names)}
        self.k = len(self.names)
        self.table = array("d", bytes(8 * self.k * self.k))  # pmi(a, b) at a * k + b
        self.filled = bytearray(self.k)  # whether a's row of the table is filled yet
        self._cid: dict[str, int] = {}

    def cls(self, word: str) -> str:
        """The word's class: itself when listed, else its shape."""
        w = word if self.arabic else word.lower()
        return w if w in self.words else shape(w, self.arabic)

    def cid(self, word: str) -> int:
        """The number of the word's class, cached per word as written: a run's vocabulary repeats."""
        c = self._cid.get(word)
        if c is None:
            c = self.ids[self.cls(word)]
            if len(self._cid) < CACHE_WORDS:
                self._cid[word] = c
        return c

    def _shape_of(self, c: str) -> str:
        if c == START or c.startswith("#") or c in self.function:
            return c
        return shape(c, self.arabic)

    def pmi(self, a: str, b: str) -> float:
        """log P(b | a) / P(b), each class estimated within its shape and the pair smoothed towards
        the shape pair by KAPPA pseudo-counts; then trusted as far as its rarer class's corpus count
        n allows, n / (n + EVIDENCE), the rest taken from the shape pair's PMI, itself trusted so by
        its rarer shape's count, the rest 0 (no association). Without this, a pair never seen after
        a common class scored about log(KAPPA / count) (-8) however rarely its other class occurs:
        one rare class swamped a line."""
        sa, sb = self._shape_of(a), self._shape_of(b)
        vs = self.s_classes
        p_shape = (self.s_big.get((sa, sb), 0) + 0.5) / (self.s_left.get(sa, 0) + 0.5 * vs)
        p_b_shape = (self.s_right.get(sb, 0) + 0.5) / (self.n + 0.5 * vs)
        within = (self.right.get(b, 0) + 0.5) / (self.s_right.get(sb, 0) + 0.5) if b != sb else 1.0
        p_ab = (self.big.get((a, b), 0) + KAPPA * p_shape * within) / (self.left.get(a, 0) + KAPPA)
        n_shape = min(self.s_left.get(sa, 0), self.s_right.get(sb, 0))
        shaped = math.log(p_shape / p_b_shape) * n_shape / (n_shape + EVIDENCE)
        n = min(self.left.get(a, 0), self.right.get(b, 0))
        trust = n / (n + EVIDENCE)
        return trust * math.log(p_ab / (p_b_shape * within)) + (1.0 - trust) * shaped

    def fill(self, a: int) -> None:
        """Fill class a's row of the table: pmi(a, b) for every class b, by b's number."""
        name, pmi, k = self.names[a], self.pmi, self.k
        self.table[a * k : (a + 1) * k] = array("d", [pmi(name, b) for b in self.names])
        self.filled[a] = 1

    def rows(self, lines: list[list[str]]) -> tuple[list[list[int]], int]:
        """(the classes' numbers of each line read, movable words): lines (hemistichs) of MIN_WORDS
        words or more, a line sung again (a refrain, the opening bayt) once, a line of one class
        repeated (babble, p_babble's) not at all; every row of the table they need filled."""
        cid, known, filled, fill = self.cid, self._cid.get, self.filled, self.fill
        if not filled[0]:
            fill(0)
        rows: list[list[int]] = []
        moved = 0
        seen: set[tuple[str, ...]] = set()
        for words in lines:
            if len(words) < MIN_WORDS or (line := tuple(words)) in seen:
                continue
            seen.add(line)
            cs = [known(w) or cid(w) for w in words]  # class 0 is <s>, never a word's
            m = len(cs) - 1
            if cs[:m].count(cs[0]) == m:
                continue
            for a in cs[:m]:
                if not filled[a]:
                    fill(a)
            rows.append(cs)
            moved += m
        return rows, moved

    def measure(self, lines: list[list[str]]) -> Order:
        """The order of a poem's lines (`Order`). Words as the scorer gives them (Arabic
        normalised; Arabizi any case)."""
        rows, moved = self.rows(lines)
        if not moved:
            return Order(0.0, 0.0, 0, 0.0)
        table, k = self.table, self.k
        gained = lead = spread = 0.0
        for cs in rows:
            gained += line_gain(cs, table, k)
            spread += line_spread(cs, table, k)
            back = cs[-2::-1]
            back.append(cs[-1])
            lead += _path(cs, table, k) - _path(back, table, k)
        z = gained / math.sqrt(spread) if spread > 0.0 else 0.0
        return Order(gained / moved, lead / moved, moved, z)


class Order(NamedTuple):
    """What `Model.measure` reads of a poem's lines."""

    gain: float
    """The order as written over a random order of the same words, per movable word (the module
    doc)."""
    lead: float
    """The order as written over the same words read backwards, the rhyme word kept last, per
    movable word. Derja is read one way, so its lines beat their reversal, a reversed line loses to
    it by as much, and a random order leads its reversal by about 0."""
    moved: int
    """Movable words: every read line's words but its rhyme word."""
    z: float
    """The summed gain over the square root of the summed `line_spread`: how many spreads of a
    random order the poem stands above it (0 when nothing could be read)."""


def _path(cs: list[int], table: array, k: int) -> float:
    """The score of one order: the line start into its first word, then each word into the next."""
    prev = cs[0]
    out = table[prev]
    for c in cs[1:]:
        out += table[prev * k + c]
        prev = c
    return out


def line_gain(cs: list[int], table: array, k: int) -> float:
    """The order as written less the expected order of a random order, summed over one line's
    movable words (all but the last): ``cs`` the classes' numbers, every row but the last word's
    filled. The expectation sums every ordered pair of positions, Σ_{i≠j} L(h_i, h_j): for each
    movable word, its row summed over every movable word, less its pair with itself.

    It runs for every line of every poem, over every pair of the line's words."""
    n = len(cs)
    m = n - 1
    first = cs[0]
    last = cs[m]
    actual = table[first]  # row 0 is the line start's
    prev = first
    for i in range(1, n):
        c = cs[i]
        actual += table[prev * k + c]
        prev = c
    expected = 0.0
    for i in range(m):
        a = cs[i]
        base = a * k
        pairs = 0.0
        for j in range(m):
            c = cs[j]
            pairs += table[base + c]
        expected += table[a] + table[base + last] + pairs - table[base + a]
    return actual - expected / m


def line_spread(cs: list[int], table: array, k: int) -> float:
    """The variance of a random order's score on one line, its terms taken as independent:
    Var_i L(<s>, h_i) + Var_i L(h_i, last) + (m − 1)·Var_{i≠j} L(h_i, h_j), over the line's m
    movable words h (the covariance of neighbouring pairs left out: a scale, not a test).

    One pass over the same pairs as `line_gain`, so its cost is about that of the expectation."""
    m = len(cs) - 1
    last = cs[m]
    s1 = s2 = e1 = e2 = p1 = p2 = 0.0
    for i in range(m):
        a = cs[i]
        base = a * k
        x = table[a]
        s1 += x
        s2 += x * x
        x = table[base + last]
        e1 += x
        e2 += x * x
        for j in range(m):
            x = table[base + cs[j]]
            p1 += x
            p2 += x * x
        x = table[base + a]  # a word with itself is no pair of the line
        p1 -= x
        p2 -= x * x
    pairs = m * (m - 1)
    spread = s2 / m - (s1 / m) ** 2 + e2 / m - (e1 / m) ** 2
    if pairs:
        spread += (m - 1) * (p2 / pairs - (p1 / pairs) ** 2)
    return max(spread, 0.0)


@functools.cache
def model(script: str) -> Model:
    """The table of ``"arabic"`` or ``"arabizi"``, read on first use (the derivation script imports
    this module before the tables exist)."""
    return Model(DIR / f"{script}.tsv", script == "arabic")


def measure(lines: list[list[str]], script: str) -> Order:
    """The order of a poem's lines in ``"arabic"`` or ``"arabizi"`` (`Model.measure`)."""
    return model(script).measure(lines)


GLUE_WORDS = {
    "arabic": frozenset(
        map(
            normalize_arabic,
            str.split(
                "و في من على علي عل مع يا ما لا كان كي كيما لو اللي الي حتى باش بش عند لين ولا وما وفي وكي "
                "ولي تحت فوق قدام قبل ورا بين فيك فيه فيها فيا فينا بيك بيه بيها بيا ليك ليه ليها ليا لينا "
                "عليك عليه عليها عليا علينا منك مني منو منها معاك معاه معاها معايا معانا"
            ),
        )
    ),
    "arabizi": frozenset(
        str.split(
            "w o fi fil fel f men mel mil min mn 3la 3al 3ala m3a ma3 ya ma la ken kan ki kima elli illi li "
            "b bel bil l lel 7atta bech bach 3and ala wala bla 9oddem 9odem 9bal fou9 wra bin fik fih fiha "
            "fia fina bik bih biha bia lik lih liha lia lina 3lik 3lih 3liha 3lia 3lina menni mennek mennou "
            "m3ak m3ah m3aha m3aya m3ana"
        )
    ),
}
"""Derja's glue, closed lists: prepositions (bare and with a pronoun), conjunctions, the vocative,
negation and the relative; with a clitic before the article (بال, فال, لل…) and the و-/w- prefix
(:func:`shape`) they join a line's words. The bare article does not: it marks a noun, and a list of
names has it (القيروان). Arabic as the scorer reads it (``normalize_arabic``)."""
GLUE_RAMP = (0.35, 0.6)
"""The glue gate on the share of lines with glue (zero, full): genuine poems stand far above it, word
salads under it (docs/scorer.md, "Word order")."""
GLUE_PRIOR_LINES = 2
"""The share is counted as if this many more lines had glue: a few lines are weak evidence (a short
poem, or one stanza left among babble, is not gated on a line or two without glue)."""


def _glue(w: str, script: str) -> bool:
    """Whether a word (as written) is glue: listed, a و-/w- prefix, or a clitic before the article."""
    arabic = script == "arabic"
    w = w if arabic else w.lower()
    return (
        w in GLUE_WORDS[script]
        or (len(w) > 3 and w[0] == ("و" if arabic else "w"))
        or shape(w, arabic) == "#Pal"
    )


_GLUE_SEEN = {s: WordTable(functools.partial(_glue, script=s)) for s in ("arabic", "arabizi")}
"""Each script's words judged so far (a run's vocabulary repeats)."""


def glue_gate(lines: list[list[str]], script: str) -> float:
    """The multiplier of the glue gate: the share of lines (hemistichs of MIN_WORDS words or more)
    whose movable words hold a glue word, mapped by GLUE_RAMP. Word salad strings content words
    side by side; Derja joins them, and a random order of the same words keeps its glue, so this
    complements :meth:`Model.measure`, which a lucky salad can pass. O(words)."""
    seen = _GLUE_SEEN[script]
    judged = held = 0
    for words in lines:
        if len(words) < MIN_WORDS or words.count(words[0]) == len(words) - 1:
            continue  # too short, or babble (one word repeated): p_babble's, as in `Model.rows`
        judged += 1
        if any(map(seen.__getitem__, words[:-1])):
            held += 1
    zero, full = GLUE_RAMP
    share = (held + GLUE_PRIOR_LINES) / (judged + GLUE_PRIOR_LINES)
    return min(1.0, max(0.0, (share - zero) / (full - zero)))


LIST_RAMP = (0.35, 0.5)
"""The list gate on the share of lines that are enumerations (full, zero): honest poems stand under it,
inventories of nouns, towns or months over it (docs/scorer.md, "Word order")."""
LIST_PRIOR_LINES = 2
"""The share is counted as if this many more lines were no list: one stanza is weak evidence."""
LIST_AND_SHARE = 0.6
"""A line is a list when at least this share of its words after the first, and two or more, are
"and" + a noun (:func:`_and_noun`)."""
_VERB_SHAPES = frozenset(("#wv", "#wvu"))


def _and_noun(unit: str, arabic: bool) -> bool:
    """ "And" + a noun or name: the و-/w- prefix (with or without the article) on a word that is no
    verb by its shape and no glue word (وفي, ولا: those join a sentence)."""
    if unit in GLUE_WORDS["arabic" if arabic else "arabizi"]:
        return False
    kind = shape(unit, arabic)
    if kind == "#Pal":
        return unit.startswith(("وال", "wel", "wil", "wl"))
    return kind.startswith("#w") and kind not in _VERB_SHAPES


_AND_NOUNS = {a: WordTable(functools.partial(_and_noun, arabic=a)) for a in (True, False)}
"""unit → `_and_noun` verdict per script (a run's vocabulary repeats)."""


def join_clitics(words: list[str], clitics: frozenset[str]) -> list[str]:
    """The words with each clitic written apart (``w``, ``el``; TArC's ``و``, ``ال``) joined to the
    word after it, a trailing one kept alone: the unit the tables and the list gate count."""
    out: list[str] = []
    pre = ""
    for w in words:
        if w in clitics:
            pre += w
            continue
        out.append(pre + w)
        pre = ""
    if pre:
        out.append(pre)
    return out


def _units(words: list[str], arabic: bool) -> list[str]:
    """A hemistich's words with Arabizi's "and" and article joined to the word after them."""
    return words if arabic else join_clitics([w.lower() for w in words], APART_CLITICS)


def list_gate(lines: list[list[str]], script: str) -> float:
    """The multiplier of the list gate: the share of lines (hemistichs of MIN_WORDS words or more)
    that are enumerations, "X and Y and Z" (الخبز والزيت والملح, months, towns) or calls and nothing
    else, "O X, O Y" (يا الليل يا الزين), by LIST_RAMP. The glue gate counts و-/w- and يا as glue, as
    in a sentence; a chain of "and" or "O" + noun with nothing else is an inventory, not verse (nouns,
    towns or rhyme words that keep the form would otherwise score up to 1.0). O(words)."""
    arabic = script == "arabic"
    verdicts = _AND_NOUNS[arabic]
    and_letter, voc = ("و", "يا") if arabic else ("w", "ya")
    judged = listed = 0
    for words in lines:
        units = _units(words, arabic)
        n = len(units)
        if n < MIN_WORDS:
            continue
        judged += 1
        ands = 0
        for i in range(1, n):
            u = units[i]
            # only a unit led by "and" can be one (the verdict, a shape, is asked once per word)
            if u[0] == and_letter and verdicts[u]:
                ands += 1
        calls = sum(units[i - 1] == voc != units[i] for i in range(1, n)) if voc in units else 0
        if (ands >= 2 and ands >= LIST_AND_SHARE * (n - 1)) or 2 * calls == n:
            listed += 1
    full, zero = LIST_RAMP
    share = listed / (judged + LIST_PRIOR_LINES)
    return min(1.0, max(0.0, (zero - share) / (zero - full)))
