"""The word-order gate (scorer/order.py, docs/scorer.md "Word order"): genuine poems keep it, their
words dealt out at random do not, and the expectation it compares with is exact."""

from __future__ import annotations

import itertools
import math
import random
import statistics
from pathlib import Path

import pytest
from batches import each
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.order_salad import GENERATORS, draws
from scorer.order import GLUE_PRIOR_LINES, GLUE_RAMP, START, Model, glue_gate, model
from scorer.score import ORDER_FLOOR, ORDER_RAMP, score
from tests.corpus import hemistichs, round_cases, samples, script_of

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


GENUINE = samples() + round_cases("genuine")


def _brute_expectation(words: list[str], script: str) -> float:
    """The mean score over every order of a line's movable words (the last word kept)."""
    m = model(script)
    cs = [m.cls(w) for w in words]
    head, last = cs[:-1], cs[-1]
    total = 0.0
    perms = list(itertools.permutations(head))
    for p in perms:
        seq = [*p, last]
        total += m.pmi(START, seq[0]) + sum(m.pmi(a, b) for a, b in itertools.pairwise(seq))
    return total / len(perms)


@pytest.mark.parametrize("script", ["arabic", "arabizi"])
def test_the_expectation_is_that_of_every_order(script: str) -> None:
    """measure() subtracts the exact mean over all orders of the movable words: checked against the
    brute-force mean on real lines of up to six words."""
    m = model(script)
    lines = [seg for _, text, refs in GENUINE if script_of(refs) == script for seg in hemistichs(text)]
    checked = 0
    for words in lines:
        if not 3 <= len(words) <= 6 or len({m.cls(w) for w in words[:-1]}) == 1:
            continue
        order = m.measure([words])
        g, moved = order.gain, order.moved
        cs = [m.cls(w) for w in words]
        actual = m.pmi(START, cs[0]) + sum(m.pmi(a, b) for a, b in itertools.pairwise(cs))
        assert moved == len(words) - 1
        assert g * moved == pytest.approx(actual - _brute_expectation(words, script), abs=1e-9)
        checked += 1
        if checked >= 40:
            break
    assert checked >= 20


def _shuffles(name: str, segs: list[list[str]], n: int) -> list[list[list[str]]]:
    """n shuffles of every line's words, the rhyme word kept, seeded by the poem's name."""
    rng = random.Random(name)
    out = []
    for _ in range(n):
        lines = []
        for seg in segs:
            head = seg[:-1]
            rng.shuffle(head)
            lines.append([*head, *seg[-1:]])
        out.append(lines)
    return out


def _shuffled_gains(name: str, segs: list[list[str]], script: str, n: int = 5) -> list[float]:
    return [model(script).measure(lines).gain for lines in _shuffles(name, segs, n)]


KNOWN_MISSES = {
    "r10-008": "Arabic msaddes of round 10 (reward 0.40): its lines stand 0.70 spreads above a random "
    "order (gain 0.093 a word), under the ramp's full 1.0: order 0.70 (docs/scorer.md, Word order: "
    "known limits)",
    "r11-004": "Arabic mukhammas of round 11: z 0.94, just under the ramp's full 1.0 (order 0.94, "
    "reward 0.85, still paid)",
    "r16-005": "Arabizi muthallath of round 16: z 0.94, just under the ramp's full 1.0 (order 0.94, "
    "reward 0.86, still paid)",
    "r19-017": "Arabic mukhammas of round 19: z 0.93, just under the ramp's full 1.0 (order 0.93, "
    "reward 0.82, still paid)",
    "r20-028": "Arabizi muthallath of round 20 (reward 0.63): z 0.82 on 43 movable words, short lines "
    "whose orders the class model tells apart little (order 0.82)",
    "r25-025": "Arabizi mugef of round 25: z 0.90 (order 0.90); its reward (-0.10) is the variety "
    "reading's (kthir read as Levantine; tests/redteam_rounds/known_misses.tsv)",
    "r26-037": "Arabic qasida of round 26 (reward 0.65): its lines stand 0.83 spreads above a random "
    "order, under the ramp's full 1.0 (order 0.83); one line dropped and it stands above it",
    "r4-020": "Arabizi qasida of round 4: z 0.91, just under the ramp's full 1.0 (order 0.91, reward "
    "0.81, still paid)",
    "r19-011": "Arabic mugef of round 19 (a wedding, reward -0.07): its lines stand below a random "
    "order (z -0.38): the order factor sits at its floor (docs/scorer.md, Word order: known limits)",
    "r20-016": "Arabic qasida of round 20 (Carthage): plain Derja whose order stands 0.07 spreads above "
    "a random order (docs/scorer.md, Word order: known limits)",
    "r20-026": "Arabic muthallath of round 20 (Ain Draham): z 0.37 under the ramp's zero 0.5 (it gained "
    "0.057 a word, shrunk to 0.97 by the per-word gate)",
    "r8-008": "Arabizi muthallath of round 8: word pairs TArC never saw in that order (w 3la, ya denya) "
    "keep it under a random order (z -0.13; docs/scorer.md, Word order: known limits)",
    "r8-007": "Arabic msaddes of round 8 (reward 0.12): z 0.60 (gain 0.115 a word on 68 words), near "
    "the ramp's zero: order 0.60 (docs/scorer.md, Word order: known limits)",
    "r27-006": "Arabic qasida of round 27 (reward 0.26): z 0.63 on 37 movable words, under the ramp's "
    "full 1.0 (order 0.63; docs/scorer.md, Word order: known limits)",
    "r27-007": "Arabic mukhammas of round 27 (reward -0.08): z 0.01, no more ordered than a random order "
    "for the class bigram model; the factor sits at its floor (docs/scorer.md, Word order: known limits)",
    "r27-013": "Arabic muthallath of round 27 (reward 0.51): z 0.76 on 31 movable words (order 0.76)",
    "r27-017": "Arabic mugef of round 27 (reward 0.62, its near closing rhymes the rest): z 0.86, under "
    "the ramp's full 1.0 (order 0.86)",
    "r27-028": "Arabizi mugef of round 27 (reward -0.16, lines set aside for spellings the lexicon lacks "
    "the rest): z 0.24 on 71 movable words, the assimilated articles (fen-nhar, wes-sbi) TArC never "
    "spells so (docs/scorer.md, Word order: known limits)",
    "r28-001": "Arabic malzuma of round 28 (reward 0.70): z 0.86 on 50 movable words, under the ramp's "
    "full 1.0 (order 0.86)",
    "r28-009": "Arabic gsim of round 28: z 0.95, just under the ramp's full 1.0 (order 0.95, still paid)",
    "r29-015": "Arabic mugef of round 29 (reward 0.31): z 0.68, under the ramp's full 1.0 (order 0.68)",
    "r29-021": "Arabic mukhammas of round 29 (reward -0.51, marker-free too): z 0.26, near a random "
    "order for the class bigram model (order at its floor)",
    "r29-038": "Arabic muthallath of round 29 (reward 0.52, its stanza rhymes the rest): z 0.82 (order 0.82)",
    "r30-007": "Arabic qasida of round 30 (reward 0.18): z 0.59 read as half-lines, 1.40 read as whole "
    "lines (order 0.59)",
    "r31-023": "Arabic muthallath of round 31: z 0.94, under the ramp's full 1.0 (order 0.94, still paid)",
    "r31-033": "Arabic msaddes of round 31 with short lines (reward 0.07): z 0.55 (order 0.55)",
    "r32-003": "Arabic malzuma of round 32 (reward 0.44): z 0.72 (order 0.72)",
    "r32-011": "Arabic muthallath of round 32 (reward 0.29): z 0.65 (order 0.65)",
}
"""Genuine poems the gate still misreads, each with why: strict, so a fix that passes one is told to
remove it from here."""


@each("name, text, refs", GENUINE, misses=KNOWN_MISSES)
def test_a_genuine_poem_keeps_the_gate_and_beats_its_shuffles(
    name: str, text: str, refs: dict[str, str]
) -> None:
    """Every genuine poem stands at least the ramp's `full` above a random order (no cost), and
    above the mean of twenty shuffles of its lines' words (rhyme word kept)."""
    script = script_of(refs)
    segs = hemistichs(text)
    z = model(script).measure(segs).z
    assert z >= ORDER_RAMP[1], (name, z)
    assert score(text, refs).subscores["order"] == 1.0
    shuffled = [model(script).measure(lines).z for lines in _shuffles(name, segs, 20)]
    assert sum(shuffled) / len(shuffled) < z, (name, z, shuffled)


def test_a_shuffle_stands_about_one_spread_from_nothing() -> None:
    """`line_spread` scales the gain so that a random order's z has a spread of about 1 and a
    median of about 0 whatever the poem's length, while genuine poems stand well above it: the
    gate's ramp can then be one for short and long poems and both scripts."""
    for script in ("arabic", "arabizi"):
        own, shuffled = [], []
        for name, text, refs in GENUINE:
            if script_of(refs) != script:
                continue
            segs = hemistichs(text)
            own.append(model(script).measure(segs).z)
            shuffled += [model(script).measure(lines).z for lines in _shuffles(name, segs, 3)]
        shuffled.sort()
        mid = shuffled[len(shuffled) // 2]
        spread = statistics.pstdev(shuffled)
        assert abs(mid) <= 0.3, (script, mid)
        assert 0.5 <= spread <= 1.5, (script, spread)
        assert statistics.median(own) >= 2 * ORDER_RAMP[1], (script, statistics.median(own))


def test_a_shuffle_gains_nothing_on_the_median() -> None:
    """By construction a random order of a line's words gains 0 in expectation: over every genuine
    poem's shuffles the median gain is within 0.05 of 0, while the poems' own median is over 0.3."""
    own, shuffled = [], []
    for name, text, refs in GENUINE:
        segs = hemistichs(text)
        own.append(model(script_of(refs)).measure(segs).gain)
        shuffled += _shuffled_gains(name, segs, script_of(refs), 3)
    own.sort()
    shuffled.sort()
    assert abs(shuffled[len(shuffled) // 2]) <= 0.05, shuffled[len(shuffled) // 2]
    assert own[len(own) // 2] >= 0.3, own[len(own) // 2]


def test_most_shuffled_poems_score_at_most_zero() -> None:
    """The gate's purpose: of the genuine poems with every line's words shuffled, most are paid
    nothing, and at most a quarter of those the scorer pays (0.8 or more) keep their reward: a poem
    already paid little keeps it shuffled whatever the gate does."""
    rng = random.Random(7)
    paid_nothing = kept = paid = 0
    for _, text, refs in GENUINE:
        plain = score(text, refs).reward
        lines = []
        for ln in text.split("\n"):
            halves = ln.split(" ** ")
            out = []
            for h in halves:
                w = h.split()
                head = w[:-1]
                rng.shuffle(head)
                out.append(" ".join([*head, *w[-1:]]))
            lines.append(" ** ".join(out))
        got = score("\n".join(lines), refs).reward
        paid_nothing += got <= 0.0
        if plain >= 0.8:
            paid += 1
            kept += got >= plain - 0.1
    assert paid_nothing >= 0.4 * len(GENUINE), paid_nothing
    assert kept <= 0.25 * paid, (kept, paid)


def test_a_repeated_word_is_no_evidence_of_order() -> None:
    """A line whose movable words are one class (babble: يا يا يا) has one order: it is skipped,
    so babble is p_babble's to charge, not the order gate's twice."""
    m = model("arabic")
    babble = m.measure([["نحكيلك", "نحكيلك", "نحكيلك", "الدار"]])
    assert (babble.gain, babble.moved) == (0.0, 0)
    both = m.measure([["نحكيلك", "نحكيلك", "نحكيلك", "الدار"], ["يا", "قلبي", "علاش", "الدار"]])
    assert both.moved == 3 and both.gain == m.measure([["يا", "قلبي", "علاش", "الدار"]]).gain


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["يا", "في", "قلبي", "الدار", "ونمشي", "على", "ما", "كي"]), max_size=8),
        max_size=6,
    )
)
def test_gain_is_finite_and_pure(lines: list[list[str]]) -> None:
    first = model("arabic").measure(lines)
    assert first == model("arabic").measure([list(x) for x in lines])
    for value in (first.gain, first.z):
        assert math.isfinite(value) and abs(value) < 50


SALAD_DRAWS = 60
"""Salads drawn per generator of bench/order_salad.py (9 generators, both scripts): the bench draws
thousands for the figures in docs/scorer.md; the property needs enough that a 1 % pass rate shows."""


def test_word_salad_is_rarely_paid() -> None:
    """Issue 18: salads of common Derja words (or place names, dishes, French loanwords mixed with
    markers), k per line plus a rhyme word in the form's pattern, drawn as an RL policy would draw
    them: at most 1 % of the draws are paid at all (score > 0), the median is -1, and most are
    charged in full by the glue gate. Before the glue gate about 55 % were paid."""
    rewards, glue = [], []
    for name in GENERATORS:
        for text, refs in draws(name, SALAD_DRAWS, seed=1):
            s = score(text, refs)
            assert -1.0 <= s.reward <= 1.0 and s.reward == s.reward
            rewards.append(s.reward)
            glue.append(s.subscores.get("glue", 1.0))
    assert sum(r > 0 for r in rewards) <= 0.01 * len(rewards), sorted(rewards)[-10:]
    assert sorted(rewards)[len(rewards) // 2] == -1.0
    assert sum(g == 0.0 for g in glue) >= 0.5 * len(glue)


@each("name, text, refs", GENUINE)
def test_a_genuine_poem_has_its_glue(name: str, text: str, refs: dict[str, str]) -> None:
    """Every genuine poem keeps the glue gate whole (no sub-score, no cost), and so does every
    order of its lines' words: glue is what a line holds, not where."""
    segs = hemistichs(text)
    assert glue_gate(segs, script_of(refs)) == 1.0, name
    assert score(text, refs).subscores["glue"] == 1.0
    rng = random.Random(name)
    for seg in segs:
        head = seg[:-1]
        rng.shuffle(head)
        seg[:-1] = head
    assert glue_gate(segs, script_of(refs)) == glue_gate(hemistichs(text), script_of(refs))


def test_glue_is_counted_per_line() -> None:
    """The gate reads the share of lines with glue (a preposition, conjunction, particle, the
    article or the و- prefix among the movable words; the rhyme word does not count), as if
    GLUE_PRIOR_LINES more lines had glue, through GLUE_RAMP: one bare line is no evidence, twenty
    are; babble lines are p_babble's and not counted."""
    bare = ["خويا", "ياسر", "نجري", "الدار"]
    glued = ["خويا", "في", "نجري", "الدار"]
    clitic = ["خويا", "والليل", "نجري", "نار"]
    assert glue_gate([bare] * 20, "arabic") == 0.0
    assert glue_gate([glued] * 20, "arabic") == 1.0
    assert glue_gate([clitic] * 20, "arabic") == 1.0
    assert glue_gate([bare], "arabic") == 1.0
    assert glue_gate([["نحكيلك"] * 3 + ["الدار"]] * 20 + [glued] * 4, "arabic") == 1.0
    zero, full = GLUE_RAMP
    mixed = [glued] * 9 + [bare] * 11
    share = (9 + GLUE_PRIOR_LINES) / (20 + GLUE_PRIOR_LINES)
    assert 0.0 < (share - zero) / (full - zero) < 1.0
    assert glue_gate(mixed, "arabic") == pytest.approx((share - zero) / (full - zero))
    assert glue_gate([["khouya", "barcha", "nemchi", "dar"]] * 20, "arabizi") == 0.0
    assert glue_gate([["khouya", "fi", "nemchi", "dar"]] * 20, "arabizi") == 1.0


def test_coda_plural_spelling_reads_as_the_poems() -> None:
    """Issue 18: CODA (TArC's Arabic column) spells the plural verb ending -وا where poems write -و.
    Both spellings are one class, and the table counts TArC's plural verbs in it (394 of them; with
    CODA's alif the class kept 11 tokens and scored pairs down to -8.9)."""
    from scorer.order import shape

    assert shape("نلعبوا", True) == shape("نلعبو", True) == "#vu"
    assert shape("ونلعبوا", True) == shape("ونلعبو", True) == "#wvu"
    assert shape("نلعب", True) == "#v"
    assert model("arabic").left["#vu"] >= 300


def test_a_rare_class_cannot_swamp_a_line(tmp_path: Path) -> None:
    """Issue 18: a pair's PMI is trusted by its rarer class's corpus count (EVIDENCE). In a table
    where a listed word was seen 5 times (the Arabic table's rarest word now has over 300 tokens,
    Arabizi's the slow test below), every pair with it scores above -7 though none was seen; a
    table's raw PMI gave about log(KAPPA / count), -8.9 in Arabic."""
    rows = ["w\tفي\t1", "w\tقلبي\t0", "w\tنادرة\t0"]
    common = {("<s>", "في"): 4000, ("في", "قلبي"): 3000, ("قلبي", "#al"): 2500, ("#al", "في"): 3500}
    rows += [f"b\t{a}\t{b}\t{c}" for (a, b), c in common.items()]
    rows += ["b\t<s>\tنادرة\t2", "b\tنادرة\t#v\t3"]
    table = tmp_path / "arabic.tsv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    m = Model(table, arabic=True)
    low = min((m.pmi(a, b), a, b) for a in m.names for b in m.names[1:] if "نادرة" in (a, b))
    assert low[0] > -7.0, low
    assert m.pmi("في", "قلبي") > 0  # the evidence weight does not flatten what was seen


@pytest.mark.slow  # Arabizi's 837 classes make 1.1 M pairs: 3 s of pmi()
def test_a_rare_arabizi_class_cannot_swamp_a_line() -> None:
    """The same over the Arabizi table itself: every pair whose rarer class has at most 20 tokens
    scores above -7 (-8.7 before EVIDENCE)."""
    m = model("arabizi")
    rare_a = [a for a in m.names if m.left.get(a, 0) <= 20]
    rare_b = [b for b in m.names[1:] if m.right.get(b, 0) <= 20]
    pairs = [(a, b) for a in rare_a for b in m.names[1:]] + [(a, b) for a in m.names for b in rare_b]
    assert len(pairs) > 1000
    low = min((m.pmi(a, b), a, b) for a, b in pairs)
    assert low[0] > -7.0, low


def test_a_common_pair_never_seen_stays_strongly_negative() -> None:
    """Issue 18, the other side: pairs of listed Arabic words expected more than 10 times and never
    seen (في then يا, 140 expected) stay strongly negative: smoothing does not make them likely."""
    m = model("arabic")
    unseen = [
        (a, b)
        for a in m.words
        for b in m.words
        if not m.big.get((a, b)) and m.left.get(a, 0) * m.right.get(b, 0) / m.n > 10
    ]
    assert len(unseen) >= 100
    assert max(m.pmi(a, b) for a, b in unseen) < -4.0
    assert ("في", "يا") in unseen and m.pmi("في", "يا") < -10.0


def _backwards(words: list[str]) -> list[str]:
    """A hemistich's words read backwards, the rhyme word kept last."""
    return [*words[-2::-1], words[-1]] if len(words) >= 2 else words


def test_a_reversed_line_trails_as_far_as_the_line_leads() -> None:
    """The lead over the reversal is antisymmetric: the same words read backwards (the rhyme word
    kept) trail by exactly what the lines as written lead by; and genuine poems lead."""
    leads = []
    for _, text, refs in GENUINE:
        segs = hemistichs(text)
        m = model(script_of(refs))
        lead, moved = m.measure(segs)[1:3]
        back = [_backwards(s) for s in segs]
        trail, moved_back = m.measure(back)[1:3]
        assert moved_back == moved and abs(lead + trail) < 1e-9, (lead, trail)
        leads.append(lead)
    leads.sort()
    assert leads[len(leads) // 2] >= 0.3, leads[len(leads) // 2]
    assert sum(x >= -0.05 for x in leads) >= 0.95 * len(leads)


def test_reversed_genuine_poems_lose_the_direction_gate() -> None:
    """Of the genuine poems the scorer pays, read backwards line by line (the rhyme word kept last),
    most lose part of the direction gate, and the strongly directional ones all of it."""
    cut = floored = strong = 0
    for _, text, refs in GENUINE:
        if score(text, refs).reward < 0.8:
            continue
        back = "\n".join(
            " ** ".join(" ".join(_backwards(h.split())) for h in ln.split(" ** ")) for ln in text.split("\n")
        )
        lead = model(script_of(refs)).measure(hemistichs(text))[1]
        d = score(back, refs).subscores["direction"]
        cut += d < 1.0
        if lead >= 0.5:
            strong += 1
            floored += d == ORDER_FLOOR
    assert cut >= 0.6 * len(GENUINE), cut
    assert floored >= 0.9 * strong, (floored, strong)
