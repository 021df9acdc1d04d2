"""The per-form structure checks of the scorer: how a poem's lines are read as stanzas (strophic
forms) or bayts (the gsim and the qasida), and the sub-scores each form earns for its rhyme
topology, stanza count and size, refrain and isometry.

``score.py`` combines these sub-scores with the penalties and gates every form shares. Rhyme
agreement is counted pairwise: every pair of line ends that must rhyme and every pair that must
differ contributes, so one stray line costs a share proportional to what it breaks. Pure, like the
rest of the core: no I/O, no randomness, no dependence on hash order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from scorer.arabic import RhymeKey, contrast_similarity, rhyme, rhyme_similarity
from scorer.catalogue import FormSpec
from scorer.ramp import ramp
from scorer.refrain import OWN_REFRAIN, heads, is_copy, own_refrain, refrains_of, whole_bayt
from scorer.stanzas import half_lines, most_common, regroup
from scorer.text import Line, Poem, letters_only

# The form gate's rules (docs/scorer.md, principle 4: "A form is complete or it pays"): each multiplies
# `Shortfall.gate` by how far the poem falls short; half of what was asked scores <= 0.3.
SIZE_GATE_FIRST, SIZE_GATE_STEP = 0.6, 0.2
"""A stanza size outside the form's range: × 0.6 one line off, 0.4 two…"""
RHYME_GATE_FLOOR = 0.5
"""A rhyme the form is made of (the poem-wide rhyme; the gsim's first halves'): × min(1, FLOOR +
its agreement); a line or two off it already cost their share of the sub-score and pass."""
FLAW_RHYME = 0.7
"""A flaw of a kept form (``score.py`` charges it: FLAW_COST): a stanza off the asked size (the
malzuma's own), and a stanza line (a gsim's first half) under FLAW_RHYME with its group's rhyme."""
OPENING_LINES = 2
"""Lines of an opening (maṭlaʿ): one bayt, on one line or two. A form without one whose first stanza
is at most this long and rhymes on the stanza endings' rhyme opens as a malzuma: × FLOOR + 1 − that
agreement."""
REFRAIN_GATE_FLOOR = 0.5
"""An asked refrain: × FLOOR + (1 − FLOOR) × the share of stanzas that carry it; a refrain the prompt
says not to write, the mirror."""
STANZA_GATE_FLOOR = 0.5
"""A strophic form's own stanza rhymes: × min(1, FLOOR + the stanza sub-score), so one rhyme
throughout (a qasida's, sent for a mugef) is half the form."""
DISTINCT_GATE_FLOOR = 0.5
"""Where the prompt asks each stanza's rhyme to change (`FormSpec.rhymes_change`): × 1 − (1 − FLOOR) ×
ramp(the share of stanzas keeping the very rhyme of the stanza before, KEPT_RHYME_FREE, 1)."""
KEPT_RHYME_FREE = 0.5
"""Honest poems of the rounds keep the rhyme in one stanza change of three (round 23)."""
CONTRAST_GATE_FLOOR = 0.5
"""The gsim's two rhymes: × min(1, FLOOR + contrast), so one rhyme on both halves is half the form."""
EXCESS_GATE_FLOOR = 0.5
"""Stanzas (bayts) past the asked count are lines nobody asked for, as added words are: × FLOOR × asked
/ written (the reward ≤ 0, still ordered by how far past the count the poem runs)."""


@dataclass(slots=True)
class Shortfall:
    """How a poem falls short of the form it was asked for, beside its sub-scores: ``gate``, the
    product of every shortfall (the `form` factor of ``score.py``), and the honest flaws of a kept
    form (FLAW_RHYME) with what they took from each sub-score that sees them (``score.py`` tops that
    up to its floor per flaw)."""

    gate: float = 1.0
    complete: float = 1.0
    """The share of the asked stanzas (bayts) written, at most 1: one of the shortfalls in ``gate``,
    kept apart so that what is counted per poem can be read at the asked size."""
    flaws: int = 0
    lost: dict[str, float] = field(default_factory=dict)
    stray: int = 0
    """Characters of lines the form has no place for (a line on top of the opening bayt): text that
    is not the poem, which ``score.py``'s `frame` factor charges as the parser's set-aside text."""

    def gate_by(self, factor: float) -> None:
        """One way the poem falls short of the form: ``gate`` times ``factor`` (when under 1)."""
        if factor < 1.0:
            self.gate *= max(0.0, factor)

    def flaw(self, flaws: int, **lost: float) -> None:
        """``flaws`` more flaws, and what they took from each named sub-score."""
        if flaws:
            self.flaws += flaws
            for k, v in lost.items():
                self.lost[k] = self.lost.get(k, 0.0) + v


def _int_ref(v: str | None) -> int | None:
    if v is None:
        return None
    v = v.strip()
    if not v.isdigit() or len(v) > 4:
        return None
    n = int(v)
    return n if 1 <= n <= 200 else None


# --- rhyme helpers ---------------------------------------------------------------------------------


def _pair_mean(keys: list[RhymeKey], sim: Callable[[RhymeKey, RhymeKey], float] = rhyme_similarity) -> float:
    """Mean similarity over every pair of rhymes (from :func:`rhyme`), summed in pair order.
    One rhyme throughout (a stanza or a poem that keeps its rhyme) is exactly 1.0, or 0.0 for
    ends without a rhyme: a sum of equal ones and zeros is exact, so it needs no loop."""
    n = len(keys)
    if n < 2:
        return 0.0
    if keys.count(keys[0]) == n:
        return 1.0 if keys[0].rawi else 0.0
    total = 0.0
    for i in range(n):
        ki = keys[i]
        for j in range(i + 1, n):
            total += sim(ki, keys[j])
    return total / (n * (n - 1) / 2)


_DYADIC = frozenset((0.0, 0.25, 0.5, 1.0))


def _cross_mean(
    a: list[RhymeKey],
    b: list[RhymeKey],
    rows: dict[RhymeKey, list[float]],
    sim: Callable[[RhymeKey, RhymeKey], float] = rhyme_similarity,
) -> float:
    """Mean similarity of every rhyme of ``a`` with every rhyme of ``b``, summed in the order
    a × b. ``rows`` memoises one rhyme's similarities with all of ``b`` (the lines of a stanza share
    a rhyme, and ``b`` is the same for every stanza): pass one dict per ``b``."""
    if not a or not b:
        return 0.0
    if a.count(a[0]) == len(a) and b.count(b[0]) == len(b):
        # one rhyme against one rhyme: the sum of len(a) × len(b) equal similarities is exact
        # (and the mean is that similarity) when it is a dyadic 0, 0.25, 0.5 or 1; 0.7 is not
        v = sim(a[0], b[0])
        if v in _DYADIC:
            return v
    values: list[float] = []
    for x in a:
        row = rows.get(x)
        if row is None:
            row = rows[x] = [sim(x, y) for y in b]
        values += row
    return sum(values) / (len(a) * len(b))


def _rep(keys: list[RhymeKey]) -> RhymeKey:
    """The most common rhyme (rawī, ridf, waṣl) of a group: its representative."""
    if keys.count(keys[0]) == len(keys):
        return keys[0]
    return most_common(keys)


def _off_rhyme(keys: list[RhymeKey]) -> int:
    """How many rhymes of a group that should share one are off it: under FLAW_RHYME with the
    group's representative (:func:`_rep`)."""
    if len(keys) < 2:
        return 0
    rep = _rep(keys)
    if keys.count(rep) == len(keys):
        return 0
    return sum(1 for x in keys if x != rep and rhyme_similarity(x, rep) < FLAW_RHYME)


def _placeless(lines: list[Line], keys: list[RhymeKey], spec: FormSpec) -> int:
    """Characters of a stanza's lines the form has no place for: in a stanza longer than the form's
    fixed size, lines whose rhyme is neither the stanza's own nor the poem-wide one's, as many as
    the stanza runs over. A line over the size that keeps a rhyme is the poet's, a flaw; a stanza of
    the asked size with a line off its rhyme is imperfect; a line off every rhyme past the size is
    words that are not the poem, as a line on top of the opening is."""
    lo, hi = spec.lines_range
    over = len(keys) - hi
    if lo != hi or over <= 0:
        return 0
    own, closing = _rep(keys[:-1]), keys[-1]
    off = [
        ln
        for ln, key in zip(lines[:-1], keys[:-1], strict=True)
        if rhyme_similarity(key, own) < FLAW_RHYME and rhyme_similarity(key, closing) < FLAW_RHYME
    ]
    return sum(len(ln.text) for ln in off) if 0 < len(off) <= over else 0


def _count_score(n: int, target: int, lo: int, hi: int) -> float:
    """Peaked at the target; gentle inside the allowed range, steeper outside."""
    if n == target:
        return 1.0
    if lo <= n <= hi:
        return max(0.0, 1.0 - 0.1 * abs(n - target))
    dist = lo - n if n < lo else n - hi
    inside = max(0.0, 1.0 - 0.1 * abs((lo if n < lo else hi) - target))
    return max(0.0, inside * 0.75 - 0.2 * dist) if dist > 0 else inside


def _score_count(
    sub: dict[str, float],
    pen: dict[str, float],
    shortfall: Shortfall,
    n: int,
    spec: FormSpec,
    refs: dict[str, str],
    pad_rate: float,
) -> None:
    """Stanza (or bayt) count: partial credit peaked at the asked count (`references.stanzas`, else the
    form's default, within its range); each unit beyond the range is padding and costs `pad_rate`."""
    target = _int_ref(refs.get("stanzas"))
    lo, hi = spec.stanzas_range
    if target is not None:
        lo = hi = target
    else:
        target = spec.stanzas
    sub["count"] = _count_score(n, target, lo, hi)
    if n > hi:
        pen["pad"] = min(0.5, pad_rate * (n - hi))
        shortfall.gate_by(EXCESS_GATE_FLOOR * hi / n)
    # completeness: a poem pays for every stanza (bayt) it leaves out of the asked count (without
    # `references.stanzas`, the form's default), so half of the form can never score above 0.3 (and
    # dropping a stanza never raises the reward)
    shortfall.complete = min(1.0, n / target)
    shortfall.gate_by(n / target)


def _iso(lengths: list[int]) -> float:
    """Within-poem isometry: 1 − excess coefficient of variation of letters per segment."""
    if len(lengths) < 2:
        return 0.5
    mean = sum(lengths) / len(lengths)
    if mean <= 0:
        return 0.0
    var = sum([(x - mean) ** 2 for x in lengths]) / len(lengths)
    cv = math.sqrt(var) / mean
    return max(0.0, min(1.0, 1.0 - 2.0 * max(0.0, cv - 0.2)))


# --- strophic forms --------------------------------------------------------------------------------


@dataclass(slots=True)
class Ends:
    """Rhyme-position words in order (for īṭāʾ), all scored lines, refrain lines, and how the poem
    falls short of its form."""

    words: list[list[str]]
    lines: list[Line]
    segment_words: list[list[str]]
    shortfall: Shortfall


def score_strophic(
    spec: FormSpec, refs: dict[str, str], poem: Poem, sub: dict[str, float], pen: dict[str, float]
) -> Ends:
    blocks = [list(b) for b in poem.blocks]
    opening: list[list[str]] = []  # words of each opening segment
    opening_keys: list[str] = []  # their letters (`letters_only`)
    refrain_texts: list[str] = []
    refrain_heads: frozenset[str] = frozenset()
    paid_heads: frozenset[str] = frozenset()  # heads sung as the refrain asked (see below)
    stray = 0
    if spec.opening:
        b0 = blocks.pop(0)
        if len(b0) >= 2 and len(b0[0].halves) < 2 and len(b0[1].halves) >= 2:
            # a line on top of the opening bayt: the opening is one bayt, or two lines, never a line
            # and a bayt (three half-lines), so the line on top is no line of the poem (a title)
            stray = len(b0[0].text)
            b0 = b0[1:]
        first = b0[0]
        halves = first.halves
        if len(b0) == 1 or (len(halves) >= 2 and len(b0) > 2):
            opening = halves[:2] if len(halves) >= 2 else [first.words]
            # the opening is one bayt: hemistichs past its two are words the form has no place for
            stray += sum(len(" ".join(h)) for h in halves[2:])
            rest = b0[1:]
        else:
            second = b0[1]
            opening = [first.words, second.words]
            rest = b0[2:]
        # the first half-line, the first line, and the whole bayt (one line where it is two)
        opening_keys = [letters_only(" ".join(w)) for w in opening]
        bayt = "".join(opening_keys)
        refrain_texts = [letters_only(" ".join(halves[0])), first.key, bayt]
        refrain_heads = heads(first.words)
        if len(halves) < 2:  # the opening on two lines: its first line's first half is sung too
            paid_heads = refrain_heads
        if rest:
            blocks.insert(0, rest)

    k = spec.lines
    blocks = half_lines(blocks, k)
    # One long block where stanzas were not separated: cut it at refrains, else every k lines.
    if len(blocks) == 1 and len(blocks[0]) > k + 1:
        flat = blocks[0]
        cut: list[list[Line]] = []
        cur: list[Line] = []
        first_refrain = refrains_of(refrain_texts[:1])
        copies = [ln.key in refrain_heads or is_copy(ln.key, first_refrain) for ln in flat]
        refrain_cut = refrain_texts and any(copies)
        for ln, copy in zip(flat, copies, strict=True):
            cur.append(ln)
            is_ref = refrain_cut and copy
            if is_ref or (not refrain_cut and len(cur) == k):
                cut.append(cur)
                cur = []
        if cur:
            cut.append(cur)
        blocks = cut
    # blank lines that mark stanzas imperfectly (one forgotten, one too many, a return line set
    # apart); a refrain here is a copy of the opening (either half-line or line) or a line that
    # closes two blocks or more (the poet's own, :func:`own_refrain`)
    sung = refrains_of(refrain_texts + [t for t, w in zip(opening_keys, opening, strict=True) if w])
    ends: dict[str, int] = {}
    for b in blocks if refrain_texts else ():
        ends[b[-1].key] = ends.get(b[-1].key, 0) + 1
    closers = {key for key, count in ends.items() if count >= 2}
    # each key is asked once (regroup asks about a line several times, and is_copy is not cheap):
    # whether a line is a copy depends on its key alone
    asked: dict[str, bool] = {}
    for b in blocks if sung else ():
        for ln in b:
            key = ln.key
            if key not in asked:
                asked[key] = key in refrain_heads or key in closers or is_copy(key, sung)
    sung_keys = {key for key, copy in asked.items() if copy}
    blocks = regroup(blocks, spec.lines, spec.lines_range, [rhyme(w[-1]) for w in opening if w], sung_keys)
    blocks = whole_bayt(blocks, opening_keys)

    refrain_mode = refs.get("refrain", "").strip().lower()
    main_keys: list[RhymeKey] = [rhyme(w[-1]) for w in opening if w]
    stanza_groups: list[list[RhymeKey]] = []
    sizes: list[int] = []
    refrain_ok = 0
    refrain_paid = 0  # stanzas closing on the refrain the prompt asks, word for word
    refrain_extra = 0
    refrain_credit = 1.0
    end_words: list[str] = [w[-1] for w in opening[1:] if w]  # hemistich 1 is the refrain source
    segs_all: list[list[str]] = list(opening)
    lines_all: list[Line] = []
    refrains = refrains_of([r for r in refrain_texts if r])
    exact = {r for r, *_ in refrains}  # a near copy, or a head of a half-line, is read but not paid
    own = None
    head: tuple[int, list[RhymeKey]] | None = None  # the first stanza's lines and rhymes
    if refrain_mode != "no" and refrain_texts:
        own = own_refrain(blocks, refrain_heads, refrains, main_keys, 0.6 * len(refrain_texts[0]))
    if own is not None:
        refrain_heads, refrains = frozenset(), refrains_of([own])
        refrain_credit, exact = OWN_REFRAIN, {own}
    for block in blocks:
        lines = list(block)
        if refrain_texts:
            flags = [ln.key in refrain_heads or is_copy(ln.key, refrains) for ln in lines]
            if flags and flags[-1]:
                refrain_ok += 1
                closing = letters_only(lines[-1].key)  # ed-dar is eddar, as the refrain texts are read
                refrain_paid += closing in paid_heads or closing in exact
                flags[-1] = False
                lines = lines[:-1]
                flags = flags[:-1]
            refrain_extra += sum(flags)
            lines = [ln for ln, f in zip(lines, flags, strict=True) if not f]
        if not lines:
            continue
        lines_all.extend(lines)
        if k > 2 and any(len(ln.hemi_words) >= 2 for ln in lines):
            # every hemistich is a place of the form: a mugef unit may be two lines of two, and a
            # hemistich set before a line's own is one more segment, rhymed or not
            segs = [hw for ln in lines for hw in ln.hemi_words]
        else:
            segs = [ln.words for ln in lines]
        segs_all.extend(segs)
        keys = [rhyme(s[-1]) for s in segs]
        if head is None:
            head = (len(lines), keys)
        if len(lines) == len(segs):  # one rhyme a line: the lines are the segments
            stray += _placeless(lines, keys, spec)
        end_words += [s[-1] for s in segs]
        sizes.append(len(segs))
        main_keys.append(keys[-1])
        stanza_groups.append(keys[:-1])

    n = len(sizes)
    shortfall = Shortfall(stray=stray)
    _score_count(sub, pen, shortfall, n, spec, refs, pad_rate=0.08)

    sub["main"] = _pair_mean(main_keys) if len(main_keys) >= 2 else 0.0
    stanza_scores: list[float] = []
    contrasts: list[float] = []
    reps: list[RhymeKey] = []
    rows: dict[RhymeKey, list[float]] = {}
    rhyme_flaws = 0
    rhyme_lost = 0.0  # what the stanzas with a line off lost of the stanza (and contrast) sub-score
    for g in stanza_groups:
        if not g:
            stanza_scores.append(0.0)
            contrasts.append(0.0)
            continue
        internal = _pair_mean(g) if len(g) >= 2 else 0.5
        contrast = 1.0 - _cross_mean(g, main_keys, rows, contrast_similarity)
        stanza_scores.append(internal * contrast)
        contrasts.append(contrast * internal)  # differing from A counts for a stanza that rhymes
        rep = _rep(g)
        if rep.rawi:
            reps.append(rep)
        if off := _off_rhyme(g):
            rhyme_flaws += off
            rhyme_lost += 1.0 - stanza_scores[-1]
    sub["stanza"] = sum(stanza_scores) / len(stanza_scores) if stanza_scores else 0.0
    sub["contrast"] = sum(contrasts) / len(contrasts) if contrasts else 0.0
    if len(reps) >= 2:
        sub["distinct"] = 1.0 - _pair_mean(reps, contrast_similarity)
        if spec.rhymes_change:  # each stanza's rhyme another than the stanza's before
            kept = [contrast_similarity(a, b) >= 1.0 for a, b in itertools.pairwise(reps)]
            share = sum(kept) / len(kept)
            shortfall.gate_by(1.0 - (1.0 - DISTINCT_GATE_FLOOR) * ramp(share, KEPT_RHYME_FREE, 1.0))
    else:
        sub["distinct"] = 1.0 if reps else 0.0

    if sizes:
        mode = most_common(sizes)
        mode = max(mode, 2)
        consistency = sum([max(0.0, 1.0 - abs(s - mode) / mode) for s in sizes]) / len(sizes)
        klo, khi = spec.lines_range
        if mode == k:
            fit = 1.0
        elif klo <= mode <= khi:
            fit = 0.9
        else:
            off = klo - mode if mode < klo else mode - khi
            fit = max(0.0, 0.7 - 0.25 * off)
            shortfall.gate_by(SIZE_GATE_FIRST - SIZE_GATE_STEP * (off - 1))
        sub["size"] = consistency * fit
        # the size a stanza should have: the form's, which the prompt asks (the malzuma's range is
        # the tradition's; its prompt asks 3 lines and the closing, and each other size is a flaw)
        expected = k
        off_size = [s for s in sizes if s != expected]
        if len(sizes) >= 2 and sizes[-1] < mode:
            pen["trunc"] = 0.08  # a cut-off last stanza: its own penalty, not a flaw besides
            if sizes[-1] != expected:
                off_size.remove(sizes[-1])
        size_lost = sum([min(1.0, abs(s - mode) / mode) for s in off_size]) * fit / len(sizes)
        shortfall.flaw(len(off_size), size=size_lost)
    else:
        sub["size"] = 0.0

    if stanza_scores:
        share = rhyme_lost / len(stanza_scores)
        shortfall.flaw(rhyme_flaws, stanza=share, contrast=share)

    if spec.refrain != "none":
        share = refrain_credit * refrain_paid / n if n else 0.0
        if refrain_mode == "yes":
            sub["refrain"] = share
            shortfall.gate_by(REFRAIN_GATE_FLOOR + (1.0 - REFRAIN_GATE_FLOOR) * share)
        elif refrain_mode == "no":
            share = refrain_ok / n if n else 0.0  # any refrain sung is one the prompt did not ask
            sub["refrain"] = 1.0 - 0.5 * share
            shortfall.gate_by(1.0 - (1.0 - REFRAIN_GATE_FLOOR) * share)
        else:
            sub["refrain"] = 0.7 + 0.3 * share
        extra = refrain_extra + max(0, refrain_ok - n)
        if extra:
            pen["refrain"] = min(0.6, 0.15 * extra)
    if spec.opening and len(opening) < 2:
        sub["main"] *= 0.8
    shortfall.gate_by(RHYME_GATE_FLOOR + sub["main"])
    shortfall.gate_by(STANZA_GATE_FLOOR + sub["stanza"])
    n_open = len(main_keys) - n
    if n_open and n:
        # the opening is in the poem-wide rhyme: a stanza in its place (a mugef sent for a
        # malzuma) is half the form
        shortfall.gate_by(RHYME_GATE_FLOOR + _cross_mean(main_keys[:n_open], main_keys[n_open:], {}))

    if head is not None and not spec.opening and n >= 2 and head[0] <= OPENING_LINES:
        # a form without an opening that opens in its poem-wide rhyme: another form's maṭlaʿ (a
        # malzuma sent for a mugef), the mirror of the gate above
        shortfall.gate_by(RHYME_GATE_FLOOR + 1.0 - _cross_mean(head[1], main_keys[n_open + 1 :], {}))

    sub["iso"] = _iso([len("".join(s)) for s in segs_all])  # letters per segment
    return Ends([end_words], lines_all, [ln.words for ln in lines_all], shortfall)


# --- bayt forms --------------------------------------------------------------------------------------


def score_bayt(
    spec: FormSpec, refs: dict[str, str], poem: Poem, sub: dict[str, float], pen: dict[str, float]
) -> Ends:
    lines = poem.lines
    pairs: list[tuple[list[str], list[str]]] = []
    split_ok = 0
    if lines and not any(len(ln.halves) >= 2 for ln in lines) and len(lines) % 2 == 0 and len(lines) >= 4:
        # Hemistichs written on separate lines: pair them.
        for i in range(0, len(lines), 2):
            pairs.append((lines[i].words, lines[i + 1].words))
        split_ok = len(pairs)
        scored_lines = lines
    else:
        for ln in lines:
            halves = ln.halves
            if len(halves) >= 2:
                # a bayt is two hemistichs: more on one line are bayts whose line breaks are lost,
                # each read as the bayt it is (a lone last one as a line without its caesura)
                for i in range(0, len(halves) - 1, 2):
                    pairs.append((halves[i], halves[i + 1]))
                    split_ok += 1
                if len(halves) % 2:
                    w = halves[-1]
                    pairs.append((w[: len(w) // 2], w[len(w) // 2 :]) if len(w) >= 2 else (w, w))
            else:
                w = ln.words
                if len(w) >= 2:
                    half = len(w) // 2
                    pairs.append((w[:half], w[half:]))
                else:
                    pairs.append((w, w))
        scored_lines = lines
    n = len(pairs)
    shortfall = Shortfall()
    _score_count(sub, pen, shortfall, n, spec, refs, pad_rate=0.04)
    # a bayt whose caesura mark opens or closes it has an empty hemistich: half a bayt (a poem of
    # second halves only is half the form), so every bayt half written is half what was asked
    half = 0
    for ln in lines:
        t = ln.text.strip()
        half += len(ln.halves) < 2 and (t.startswith("*") or t.endswith("*"))
    if half:
        shortfall.gate_by(1.0 - 0.5 * half / n)
    firsts = [rhyme(a[-1]) for a, _ in pairs]
    seconds = [rhyme(b[-1]) for _, b in pairs]
    sub["main"] = _pair_mean(seconds) if n >= 2 else 0.0
    shortfall.gate_by(RHYME_GATE_FLOOR + sub["main"])
    sub["halves"] = split_ok / n if n else 0.0
    if spec.first_half == "shared":
        sub["first"] = _pair_mean(firsts) if n >= 2 else 0.0
        # the gsim's first halves are its stanza rhyme: one off it is a flaw
        shortfall.flaw(_off_rhyme(firsts), first=1.0 - sub["first"])
        shortfall.gate_by(RHYME_GATE_FLOOR + sub["first"])
        # first and second halves must differ; a pair without a rhyme (a one-letter end) earns nothing
        sub["contrast"] = sum(
            1.0 - contrast_similarity(a, b) for a, b in zip(firsts, seconds, strict=True) if a.rawi and b.rawi
        ) / max(n, 1)
        shortfall.gate_by(CONTRAST_GATE_FLOOR + sub["contrast"])
    segs = [p for pair in pairs for p in pair]
    sub["iso"] = _iso([len("".join(s)) for s in segs])  # letters per segment
    words = [[b[-1] for _, b in pairs]]
    if spec.first_half == "shared":
        words.append([a[-1] for a, _ in pairs])
    # A one-word hemistich is the bayt forms' "one-word line", a two-word one a stub.
    short_penalty([len(s) for s in segs], 1.2, pen)
    return Ends(words, scored_lines, [], shortfall)


def short_penalty(lengths: list[int], one_word_rate: float, pen: dict[str, float]) -> None:
    """One-word segments cost `one_word_rate` × their share; two-word segments (stubs) a quarter of
    their share, plus a steeper 0.45 × the share beyond 25 %: an honest poem's occasional terse line
    ("وتبخّرت أحلامي") costs little, a poem of stubs about as much as one of one-word lines."""
    n = len(lengths)
    if not n:
        return
    one = lengths.count(1) + lengths.count(0)  # k <= 1 (lengths are never negative)
    two = lengths.count(2)
    if one or two:
        s1, s2 = one / n, two / n
        pen["short"] = min(0.6, one_word_rate * s1 + 0.25 * s2 + 0.45 * max(0.0, s2 - 0.25))
