"""Pure scoring: a response and its dataset references in, a reward in [-1, 1] out.

The reward is ``2 q - 1`` where the quality ``q`` in [0, 1] is a weighted mean of named sub-scores
(rhyme topology with graded similarity, stanza count and size, refrain, isometry), minus
penalties for the known hacks (docs/scorer.md, plus babble: a line body of one word repeated, and
stubs: two-word lines or hemistichs), times a script gate. Every part is smooth, so
samples of one GRPO group differ by how much of the form they kept, not by pass/fail. Rhyme
agreement is counted pairwise: every pair of line ends that must rhyme and every pair that must
differ contributes, so one stray line costs a share proportional to what it breaks.

No I/O, no randomness, no dependence on hash order: the same input gives the same float anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scorer.arabic import RhymeKey, arabizi_fold, rhyme, rhyme_identity, rhyme_similarity
from scorer.catalogue import FormSpec, lookup
from scorer.lexicon import is_arabic_word, is_arabizi_word
from scorer.text import Line, Poem, extract_text, letters_only, parse_poem

ITA_WINDOW = 7
"""Classical tolerance: a rhyme word may come back after about seven lines (al-Hāshimī)."""
ITA_NEAR, ITA_FAR = 0.07, 0.015
"""Penalty per reused rhyme word, within the window and beyond it (tolerated, a token cost)."""

FUNCTION_WORD_LETTERS = 2
"""Words of at most this many letters (يا, في, ما, ya, fi, w, el) are function words."""
BABBLE_FROM, BABBLE_FULL = 0.25, 0.65
"""A line's repetition below BABBLE_FROM is free (anaphora: "يا أمي يا الحنينة", "وين الربيع
وين"); at BABBLE_FULL and above the line is all babble ("يا يا يا الدار")."""
BABBLE_RATE, BABBLE_MAX = 0.8, 0.7
"""p_babble = BABBLE_RATE × the mean babble degree of the lines, capped at BABBLE_MAX."""

LINE_ZERO, LINE_FULL = 0.4, 0.75
"""A line (hemistich) whose share of known words is LINE_FULL or more is language; LINE_ZERO or less
is not (random letters, syllables, digits, another language); linear in between, so a rare or
misspelt word costs nothing."""
LANG_FULL = 0.85
"""The language gate: the mean line worth over LANG_FULL, capped at 1. Linear, so each line of
non-language or template costs its share (smooth for GRPO), and a poem of them earns nothing."""
SIZE_GATE_FIRST, SIZE_GATE_STEP = 0.6, 0.2
"""A stanza size outside the form's range multiplies the quality by 0.6 (one line off), 0.4 (two)…:
a mugef sent for a mukhammas scores ≤ 0.3 however well it rhymes."""

WEIGHTS_STROPHIC = {
    "main": 0.26,
    "stanza": 0.24,
    "contrast": 0.08,
    "distinct": 0.05,
    "count": 0.12,
    "size": 0.10,
    "refrain": 0.07,
    "iso": 0.08,
}
WEIGHTS_GSIM = {"main": 0.33, "first": 0.25, "contrast": 0.07, "count": 0.15, "halves": 0.10, "iso": 0.10}
WEIGHTS_QASIDA = {"main": 0.55, "count": 0.15, "halves": 0.15, "iso": 0.15}


@dataclass(slots=True)
class Score:
    """A reward with its named sub-scores (each in [0, 1]) and a short human reason."""

    reward: float
    subscores: dict[str, float] = field(default_factory=dict)
    reason: str = ""


def _fail(reason: str) -> Score:
    return Score(-1.0, {}, reason)


def _clean_refs(references: Any) -> dict[str, str]:
    if not isinstance(references, dict):
        return {}
    out: dict[str, str] = {}
    for k, v in references.items():
        if isinstance(k, str) and isinstance(v, str | int | float | bool) and not isinstance(v, float | bool):
            out[k] = str(v)
        elif isinstance(k, str) and isinstance(v, bool):
            out[k] = "yes" if v else "no"
    return out


def _int_ref(v: str | None) -> int | None:
    if v is None:
        return None
    v = v.strip()
    if not v.isdigit() or len(v) > 4:
        return None
    n = int(v)
    return n if 1 <= n <= 200 else None


def score(response: Any, references: dict[str, str] | None = None) -> Score:
    """Score one response (text, Gemini ``Content`` or chat messages) against dataset references
    (docs/dataset.md). Never raises on content; returns reward −1 with a reason when there is no
    poem or no known form."""
    refs = _clean_refs(references)
    spec = lookup(refs.get("form"))
    if spec is None:
        if "form" not in refs:
            return _fail("no references.form")
        return _fail(f"unknown form {refs['form'][:40]!r}")
    poem = parse_poem(extract_text(response))
    if not poem.blocks:
        return _fail("no poem in the response" + (" (only prose)" if poem.prose_chars else ""))
    sub: dict[str, float] = {}
    pen: dict[str, float] = {}
    if spec.kind == "strophic":
        weights, weight_sum = _WEIGHTS_NO_REFRAIN if spec.refrain == "none" else _WEIGHTS_REFRAIN
        ends = _score_strophic(spec, refs, poem, sub, pen)
    else:
        weights, weight_sum = _WEIGHTS_GSIM if spec.first_half == "shared" else _WEIGHTS_QASIDA
        ends = _score_bayt(spec, refs, poem, sub, pen)

    _common_penalties(poem, ends, pen)
    gate = _script_gate(poem, refs.get("script"))
    sub["script"] = gate
    script = refs.get("script", "").strip().lower()
    arabizi = (
        script == "arabizi" if script in ("arabic", "arabizi") else poem.latin_letters > poem.arabic_letters
    )
    sub["language"] = _language_gate(poem, arabizi)
    form_gate = sub.pop("_size_gate", 1.0)
    if form_gate < 1.0:
        sub["form"] = form_gate
    base = sum([w * sub.get(k, 0.0) for k, w in weights]) / weight_sum
    q = (base - sum(pen.values())) * gate * sub["language"] * form_gate
    reward = max(-1.0, min(1.0, 2.0 * q - 1.0))
    if not math.isfinite(reward):
        reward = -1.0
    out = {k: _round4(v) for k, v in sub.items()}
    out.update({f"p_{k}": _round4(v) for k, v in pen.items() if v > 0})
    out["quality"] = _round4(max(0.0, min(1.0, q)))
    return Score(reward, out, _reason(spec, sub, pen))


def _weights(weights: dict[str, float]) -> tuple[tuple[tuple[str, float], ...], float]:
    """A form's weights in order, with their sum (the same float ``sum(weights.values())`` gives)."""
    return tuple(weights.items()), sum(weights.values())


_WEIGHTS_REFRAIN = _weights(WEIGHTS_STROPHIC)
_WEIGHTS_NO_REFRAIN = _weights({k: v for k, v in WEIGHTS_STROPHIC.items() if k != "refrain"})
_WEIGHTS_GSIM = _weights(WEIGHTS_GSIM)
_WEIGHTS_QASIDA = _weights(WEIGHTS_QASIDA)


def _round4(v: float) -> float:
    """``round(v, 4)``, which formats the float as decimal digits; 0 and 1, the commonest
    sub-scores, are already round."""
    return v if v == 1.0 or v == 0.0 else round(v, 4)


def _reason(spec: FormSpec, sub: dict[str, float], pen: dict[str, float]) -> str:
    weak = sorted((v, k) for k, v in sub.items() if v < 0.8)
    hurts = sorted(((v, k) for k, v in pen.items() if v > 0), reverse=True)
    bits = [f"{k}={v:.2f}" for v, k in weak[:3]] + [f"p_{k}={v:.2f}" for v, k in hurts[:3]]
    return f"{spec.id}: " + (", ".join(bits) if bits else "form kept")


# --- rhyme helpers ---------------------------------------------------------------------------------


def _pair_mean(keys: list[RhymeKey]) -> float:
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
            total += rhyme_similarity(ki, keys[j])
    return total / (n * (n - 1) / 2)


_DYADIC = frozenset((0.0, 0.25, 0.5, 1.0))


def _cross_mean(a: list[RhymeKey], b: list[RhymeKey], rows: dict[RhymeKey, list[float]]) -> float:
    """Mean similarity of every rhyme of ``a`` with every rhyme of ``b``, summed in the order
    a × b. ``rows`` memoises one rhyme's similarities with all of ``b`` (the lines of a stanza share
    a rhyme, and ``b`` is the same for every stanza): pass one dict per ``b``."""
    if not a or not b:
        return 0.0
    if a.count(a[0]) == len(a) and b.count(b[0]) == len(b):
        # one rhyme against one rhyme: the sum of len(a) × len(b) equal similarities is exact
        # (and the mean is that similarity) when it is a dyadic 0, 0.25, 0.5 or 1; 0.7 is not
        v = rhyme_similarity(a[0], b[0])
        if v in _DYADIC:
            return v
    values: list[float] = []
    for x in a:
        row = rows.get(x)
        if row is None:
            row = rows[x] = [rhyme_similarity(x, y) for y in b]
        values += row
    return sum(values) / (len(a) * len(b))


def _most_common(items: list[Any]) -> Any:
    """``Counter(items).most_common(1)[0][0]`` without building a Counter: the most common item,
    the first one seen among equally common ones."""
    counts: dict[Any, int] = {}
    for x in items:
        counts[x] = counts.get(x, 0) + 1
    return max(counts, key=counts.__getitem__)


def _rep(keys: list[RhymeKey]) -> RhymeKey:
    """The most common rhyme (rawī, ridf, waṣl) of a group: its representative."""
    if keys.count(keys[0]) == len(keys):
        return keys[0]
    return _most_common(keys)


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


def _same_line(a: str, b: str) -> bool:
    """Equal, or a near-verbatim copy: a refrain with a letter or two changed is still the
    refrain. Measured as common prefix + common suffix ≥ 90 % of the longer line (a cheap edit
    proxy; one substitution or insertion keeps it high)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if not la or not lb or abs(la - lb) > max(2, lb // 10):
        return False
    # p + q >= need implies max(p, q) >= h: when neither the first nor the last h letters agree,
    # the letter-by-letter walk below cannot succeed (most lines end here)
    need = 0.9 * max(la, lb)
    h = math.ceil(need / 2)
    if a[:h] != b[:h] and a[-h:] != b[-h:]:
        return False
    n = min(la, lb)
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    q = 0
    while q < n - p and a[la - 1 - q] == b[lb - 1 - q]:
        q += 1
    return p + q >= need


def _refrains(texts: list[str]) -> list[tuple[str, int, str, str]]:
    """Distinct refrain texts (the opening's first half is often the whole first line), each with
    what ``_is_copy`` tests before ``_same_line``: the length tolerance, and the first and last
    h0 = ⌈0.9 × len / 2⌉ letters. A copy has p + q ≥ 0.9 × max(len(a), len(b)) ≥ 0.9 × len(r),
    so p ≥ h0 or q ≥ h0: it starts with the head or ends with the tail."""
    out = []
    for r in dict.fromkeys(texts):
        h0 = math.ceil(0.9 * len(r) / 2)
        out.append((r, max(2, len(r) // 10), r[:h0], r[len(r) - h0 :]))
    return out


def _is_copy(key: str, refrains: list[tuple[str, int, str, str]]) -> bool:
    """``any(_same_line(key, r) for r in refrains)`` with ``_same_line``'s cheap rejections
    inlined (another length, neither the refrain's head nor its tail): most lines fail them, and
    they cost less than the call."""
    la = len(key)
    for r, tol, head, tail in refrains:
        if key == r or (
            abs(la - len(r)) <= tol and (key.startswith(head) or key.endswith(tail)) and _same_line(key, r)
        ):
            return True
    return False


@dataclass(slots=True)
class _Ends:
    """Rhyme-position words in order (for īṭāʾ), all scored lines, and refrain lines."""

    words: list[list[str]]
    lines: list[Line]
    segment_words: list[list[str]]


def _score_strophic(
    spec: FormSpec, refs: dict[str, str], poem: Poem, sub: dict[str, float], pen: dict[str, float]
) -> _Ends:
    blocks = [list(b) for b in poem.blocks]
    opening: list[list[str]] = []  # words of each opening segment
    refrain_texts: list[str] = []
    if spec.opening:
        b0 = blocks.pop(0)
        first = b0[0]
        halves = first.halves
        if len(b0) == 1 or (len(halves) >= 2 and len(b0) > 2):
            opening = [halves[0], halves[-1]] if len(halves) >= 2 else [first.words]
            rest = b0[1:]
        else:
            second = b0[1]
            opening = [first.words, second.words]
            rest = b0[2:]
        refrain_texts = [letters_only(" ".join(halves[0])), first.key]
        if rest:
            blocks.insert(0, rest)

    k = spec.lines
    # One long block where stanzas were not separated: cut it at refrains, else every k lines.
    if len(blocks) == 1 and len(blocks[0]) > k + 1:
        flat = blocks[0]
        cut: list[list[Line]] = []
        cur: list[Line] = []
        first_refrain = _refrains(refrain_texts[:1])
        copies = [_is_copy(ln.key, first_refrain) for ln in flat]
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

    refrain_mode = refs.get("refrain", "").strip().lower()
    main_keys: list[RhymeKey] = [rhyme(w[-1]) for w in opening if w]
    stanza_groups: list[list[RhymeKey]] = []
    sizes: list[int] = []
    refrain_ok = 0
    refrain_extra = 0
    end_words: list[str] = [w[-1] for w in opening[1:] if w]  # hemistich 1 is the refrain source
    segs_all: list[list[str]] = list(opening)
    lines_all: list[Line] = []
    refrains = _refrains([r for r in refrain_texts if r])
    for block in blocks:
        lines = list(block)
        if refrain_texts:
            flags = [_is_copy(ln.key, refrains) for ln in lines]
            if flags and flags[-1]:
                refrain_ok += 1
                flags[-1] = False
                lines = lines[:-1]
                flags = flags[:-1]
            refrain_extra += sum(flags)
            lines = [ln for ln, f in zip(lines, flags, strict=True) if not f]
        if not lines:
            continue
        lines_all.extend(lines)
        if len(lines) * 2 <= k + 1 and all(len(ln.hemi_words) >= 2 for ln in lines) and k > 2:
            segs = [hw for ln in lines for hw in ln.hemi_words]
        else:
            segs = [ln.words for ln in lines]
        segs_all.extend(segs)
        keys = [rhyme(s[-1]) for s in segs]
        end_words += [s[-1] for s in segs]
        sizes.append(len(segs))
        main_keys.append(keys[-1])
        stanza_groups.append(keys[:-1])

    n = len(sizes)
    _score_count(sub, pen, n, spec, refs, pad_rate=0.08)

    sub["main"] = _pair_mean(main_keys) if len(main_keys) >= 2 else 0.0
    stanza_scores: list[float] = []
    contrasts: list[float] = []
    reps: list[RhymeKey] = []
    rows: dict[RhymeKey, list[float]] = {}
    for g in stanza_groups:
        if not g:
            stanza_scores.append(0.0)
            contrasts.append(0.0)
            continue
        internal = _pair_mean(g) if len(g) >= 2 else 0.5
        contrast = 1.0 - _cross_mean(g, main_keys, rows)
        stanza_scores.append(internal * contrast)
        contrasts.append(contrast * internal)  # differing from A counts for a stanza that rhymes
        rep = _rep(g)
        if rep.rawi:
            reps.append(rep)
    sub["stanza"] = sum(stanza_scores) / len(stanza_scores) if stanza_scores else 0.0
    sub["contrast"] = sum(contrasts) / len(contrasts) if contrasts else 0.0
    if len(reps) >= 2:
        sub["distinct"] = 1.0 - _pair_mean(reps)
    else:
        sub["distinct"] = 1.0 if reps else 0.0

    if sizes:
        mode = _most_common(sizes)
        mode = max(mode, 2)
        consistency = sum(max(0.0, 1.0 - abs(s - mode) / mode) for s in sizes) / len(sizes)
        klo, khi = spec.lines_range
        if mode == k:
            fit = 1.0
        elif klo <= mode <= khi:
            fit = 0.9
        else:
            off = klo - mode if mode < klo else mode - khi
            fit = max(0.0, 0.7 - 0.25 * off)
            sub["_size_gate"] = max(0.0, SIZE_GATE_FIRST - SIZE_GATE_STEP * (off - 1))
        sub["size"] = consistency * fit
        if len(sizes) >= 2 and sizes[-1] < mode:
            pen["trunc"] = 0.08
    else:
        sub["size"] = 0.0

    if spec.refrain != "none":
        share = refrain_ok / n if n else 0.0
        if refrain_mode == "yes":
            sub["refrain"] = share
        elif refrain_mode == "no":
            sub["refrain"] = 1.0 - 0.5 * share
        else:
            sub["refrain"] = 0.7 + 0.3 * share
        extra = refrain_extra + max(0, refrain_ok - n)
        if extra:
            pen["refrain"] = min(0.6, 0.15 * extra)
    if spec.opening and len(opening) < 2:
        sub["main"] *= 0.8

    sub["iso"] = _iso([len("".join(s)) for s in segs_all])  # letters per segment
    return _Ends([end_words], lines_all, [ln.words for ln in lines_all])


# --- bayt forms --------------------------------------------------------------------------------------


def _score_bayt(
    spec: FormSpec, refs: dict[str, str], poem: Poem, sub: dict[str, float], pen: dict[str, float]
) -> _Ends:
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
                pairs.append((halves[0], halves[-1]))
                split_ok += 1
            else:
                w = ln.words
                if len(w) >= 2:
                    half = len(w) // 2
                    pairs.append((w[:half], w[half:]))
                else:
                    pairs.append((w, w))
        scored_lines = lines
    n = len(pairs)
    _score_count(sub, pen, n, spec, refs, pad_rate=0.04)
    firsts = [rhyme(a[-1]) for a, _ in pairs]
    seconds = [rhyme(b[-1]) for _, b in pairs]
    sub["main"] = _pair_mean(seconds) if n >= 2 else 0.0
    sub["halves"] = split_ok / n if n else 0.0
    if spec.first_half == "shared":
        sub["first"] = _pair_mean(firsts) if n >= 2 else 0.0
        # first and second halves must differ; a pair without a rhyme (a one-letter end) earns nothing
        sub["contrast"] = sum(
            1.0 - rhyme_similarity(a, b) for a, b in zip(firsts, seconds, strict=True) if a.rawi and b.rawi
        ) / max(n, 1)
    segs = [p for pair in pairs for p in pair]
    sub["iso"] = _iso([len("".join(s)) for s in segs])  # letters per segment
    words = [[b[-1] for _, b in pairs]]
    if spec.first_half == "shared":
        words.append([a[-1] for a, _ in pairs])
    # A one-word hemistich is the bayt forms' "one-word line", a two-word one a stub.
    _short_penalty([len(s) for s in segs], 1.2, pen)
    return _Ends(words, scored_lines, [])


# --- penalties and gate ------------------------------------------------------------------------------


def _common_penalties(poem: Poem, ends: _Ends, pen: dict[str, float]) -> None:
    near = far = 0
    for seq in ends.words:
        last_seen: dict[str, int] = {}
        for i, word in enumerate(seq):
            w = rhyme_identity(word)  # الدار = دار = بالدار, dar = Dar = DAR (one-letter words: "")
            if w:
                j = last_seen.get(w)
                if j is not None:
                    if i - j <= ITA_WINDOW:
                        near += 1
                    else:
                        far += 1
                last_seen[w] = i
    if near or far:
        pen["ita"] = min(0.6, ITA_NEAR * near + ITA_FAR * far)

    keys = [ln.key for ln in ends.lines]
    dups = len(keys) - len(set(keys))  # lines whose key came before
    if dups:
        pen["dup"] = min(0.7, 0.12 * dups)

    if ends.segment_words:
        _short_penalty([len(s) for s in ends.segment_words], 1.0, pen)

    babble = _babble(poem.lines)
    if babble:
        pen["babble"] = min(BABBLE_MAX, BABBLE_RATE * babble)

    if poem.prose_chars:
        frac = poem.prose_chars / (poem.prose_chars + poem.poem_chars)
        pen["prose"] = min(0.4, 0.05 + 0.6 * frac)
    if poem.overlong:
        pen["long"] = 0.3


def _short_penalty(lengths: list[int], one_word_rate: float, pen: dict[str, float]) -> None:
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


def _babble(lines: list[Line]) -> float:
    """Mean babble degree of the hemistichs (a line without a caesura is one), in [0, 1]: low
    lexical variety inside a segment.

    A hemistich's body is its words without its last (rhyme) word. Each word that comes back in the
    body is a repeat, weighted 1 right after itself ("يا يا", "nghanni nghanni"), else 0.5, or 0.25
    for a function word (the vocative "يا X يا Y" is style, not babble). The repetition is the
    weighted repeats over (body words − 1), so 1 for one word repeated; the degree ramps from 0 at
    BABBLE_FROM to 1 at BABBLE_FULL. Bodies under two words are the short penalty's business."""
    units = 0
    total = 0.0
    for ln in lines:
        hws = ln.hemi_words
        units += len(hws)
        for h in hws:
            n = len(h) - 1
            if n < 2:
                continue
            body = h[:-1]
            if body[0].isascii():  # Arabizi: "Ya ya" is one word twice (Arabic script has no case)
                body = [w.lower() for w in body]
            if len(set(body)) == n:
                continue
            seen: set[str] = set()
            prev = ""
            repeats = 0.0
            for w in body:
                if w in seen:
                    repeats += 1.0 if w == prev else (0.25 if len(w) <= FUNCTION_WORD_LETTERS else 0.5)
                else:
                    seen.add(w)
                prev = w
            rep = repeats / (n - 1)
            if rep > BABBLE_FROM:
                total += min(1.0, (rep - BABBLE_FROM) / (BABBLE_FULL - BABBLE_FROM))
    return total / units if units else 0.0


def _language_gate(poem: Poem, arabizi: bool) -> float:
    """Non-language and templates earn nothing: every hemistich (a line without a caesura is one)
    is worth the share of its words the lexicon knows for the asked script (scorer/lexicon.py),
    mapped by LINE_ZERO/LINE_FULL, and nothing when it repeats an earlier hemistich's body with only
    the last word changed (a template; a verbatim refrain is not one). The mean worth over LANG_FULL
    (capped at 1) multiplies the quality."""
    known = is_arabizi_word if arabizi else is_arabic_word
    seen: dict[tuple[str, ...], str] = {}
    total = 0.0
    units = 0
    span = LINE_FULL - LINE_ZERO
    for ln in poem.lines:
        for h in ln.hemi_words:
            units += 1
            n = len(h)
            # the body decides: a real rhyme word glued onto gibberish does not make it language
            body = h[:-1] if n >= 3 else h
            worth = (sum(map(known, body)) / len(body) - LINE_ZERO) / span
            if worth <= 0.0:
                continue
            if worth > 1.0:
                worth = 1.0
            if n >= 3:
                key = tuple(map(arabizi_fold, body)) if arabizi else tuple(body)
                # one word repeated is babble, the babble penalty's business, not a template
                if key.count(key[0]) != len(key):
                    end = rhyme_identity(h[-1])
                    if seen.setdefault(key, end) != end:
                        continue
            total += worth
    if not units:
        return 0.0
    return min(1.0, total / units / LANG_FULL)


def _script_gate(poem: Poem, script: str | None) -> float:
    """Share of letters in the asked script, mapped so ≥ 85 % is full credit and ≤ 50 % is zero.
    Without a script in the references either script is accepted, but mixing still costs."""
    ar, lat = poem.arabic_letters, poem.latin_letters
    total = ar + lat
    if total == 0:
        return 0.0
    s = (script or "").strip().lower()
    if s == "arabizi":
        ratio = lat / total
    elif s == "arabic":
        ratio = ar / total
    else:
        ratio = max(ar, lat) / total
    return max(0.0, min(1.0, (ratio - 0.5) / 0.35))
