"""The word-order gate (scorer/order.py, docs/scorer.md "Word order"): genuine poems keep it, their
words dealt out at random do not, and the expectation it compares with is exact."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from batches import each
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.order_salad import GENERATORS, draws
from scorer.order import GLUE_PRIOR_LINES, GLUE_RAMP, START, glue_gate, model
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
    """gain() subtracts the exact mean over all orders of the movable words: checked against the
    brute-force mean on real lines of up to six words."""
    m = model(script)
    lines = [seg for _, text, refs in GENUINE if script_of(refs) == script for seg in hemistichs(text)]
    checked = 0
    for words in lines:
        if not 3 <= len(words) <= 6 or len({m.cls(w) for w in words[:-1]}) == 1:
            continue
        g, moved = m.gain([words])
        cs = [m.cls(w) for w in words]
        actual = m.pmi(START, cs[0]) + sum(m.pmi(a, b) for a, b in itertools.pairwise(cs))
        assert moved == len(words) - 1
        assert g * moved == pytest.approx(actual - _brute_expectation(words, script), abs=1e-9)
        checked += 1
        if checked >= 40:
            break
    assert checked >= 20


def _shuffled_gains(name: str, segs: list[list[str]], script: str, n: int = 5) -> list[float]:
    rng = random.Random(name)
    gains = []
    for _ in range(n):
        out = []
        for seg in segs:
            head = seg[:-1]
            rng.shuffle(head)
            out.append([*head, *seg[-1:]])
        gains.append(model(script).gain(out)[0])
    return gains


KNOWN_MISSES = {
    "r14-006": "Arabic muthallath of round 14 (reward 0.14): short vocative lines "
    "(يا أمّي يا ضي عيني, "
    "يا اللي ديما تحميني) whose 28 movable words gain 0.017 against the "
    "ramp's 0.03..0.06. A class precedence model and zero-count pair violations drawn from the "
    "same corpus add nothing to the gain's separation (docs/scorer.md, Word order: round 14)",
    "r8-008": "Arabizi muthallath of round 8: word pairs TArC never saw in that order (w 3la, ya denya) "
    "keep its gain at -0.03 against the ramp's 0.11 (docs/scorer.md, Word order: known limits)",
    "r10-019": "Arabic muthallath of round 10 (reward -0.08): plain Derja whose word order gains -0.13 "
    "against the ramp's 0.03..0.06 (a fronted subject with و on every line, والفلاح خرج…, pairs TArC's "
    "comments rarely show). Clipping each line's gain (at 0.4..1.0 per word) or a floor on pair "
    "scores does not lift it without letting more shuffled cheats through (docs/scorer.md, Word order)",
    "r19-011": "Arabic mugef of round 19 (a wedding, reward -0.06): its lines' word order gains under "
    "the ramp's 0.03..0.06 and the order factor sits at its floor (docs/scorer.md, Word order: known "
    "limits)",
    "r20-016": "Arabic qasida of round 20 (Carthage): plain Derja whose word order gains -0.03 against "
    "the ramp's 0.03..0.06 (docs/scorer.md, Word order: known limits)",
    "r20-026": "Arabic muthallath of round 20 (Ain Draham): gain 0.057, just under the ramp's full 0.06 "
    "(order 0.97 once shrunk by ORDER_PRIOR_WORDS)",
    "r20-035": "Arabic msaddes of round 20 (the Beja harvest): gain 0.010 against the ramp's 0.03..0.06 "
    "(docs/scorer.md, Word order: known limits)",
    "r20-036": "Arabic msaddes of round 20 (Douz): gain 0.055, just under the ramp's full 0.06 (order 0.93)",
    "r24-009": "Arabic mugef of round 24 (rain, reward 0.00): its gain sits at the ramp's narrow edge "
    "(0.03..0.06) and one natural line (عام صابة فيه القمح والرمّان) moves the poem's mean across it "
    "(docs/scorer.md, Word order: known limits)",
    "r9-174": "Arabic mugef of round 9: gain -0.067 against the ramp's 0.03..0.06. The tables join a "
    "proclitic و to its word as TArC's CODA writes it apart, so the lone و of و الغربة, و نحلم has 36 "
    "tokens of evidence (و→#al -1.5, و→#v -2.0); نرجعلو (+ لو) reads as a plural verb (its line -4.6); "
    "a fronted عليك starts a line TArC never starts with it (-8.6). Reading a lone و joined and a "
    "verb + لو/لها/لك class (tables re-derived) lift it to 0.117, but let held cheats through (r1-112, "
    "r5-094, r8-131, r8-133, r8-137: 0 -> 0.2..0.9): not landed (docs/scorer.md, Word order: known limits)",
}
"""Genuine poems the gate still misreads, each with why: strict, so a fix that passes one is told to
remove it from here."""


@each("name, text, refs", GENUINE, misses=KNOWN_MISSES)
def test_a_genuine_poem_keeps_the_gate_and_beats_its_shuffles(
    name: str, text: str, refs: dict[str, str]
) -> None:
    """Every genuine poem gains at least the ramp's `full` (no cost), and more than the mean of twenty
    shuffles of its lines' words (rhyme word kept)."""
    script = script_of(refs)
    segs = hemistichs(text)
    g, _ = model(script).gain(segs)
    assert g >= ORDER_RAMP[script][1], (name, g)
    assert score(text, refs).subscores["order"] == 1.0
    shuffled = _shuffled_gains(name, segs, script, 20)
    assert sum(shuffled) / len(shuffled) < g, (name, g, shuffled)


def test_a_shuffle_gains_nothing_on_the_median() -> None:
    """By construction a random order of a line's words gains 0 in expectation: over every genuine
    poem's shuffles the median gain is within 0.05 of 0, while the poems' own median is over 0.3."""
    own, shuffled = [], []
    for name, text, refs in GENUINE:
        segs = hemistichs(text)
        own.append(model(script_of(refs)).gain(segs)[0])
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
    assert m.gain([["نحكيلك", "نحكيلك", "نحكيلك", "الدار"]]) == (0.0, 0)
    g, moved = m.gain([["نحكيلك", "نحكيلك", "نحكيلك", "الدار"], ["يا", "قلبي", "علاش", "الدار"]])
    assert moved == 3 and g == m.gain([["يا", "قلبي", "علاش", "الدار"]])[0]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["يا", "في", "قلبي", "الدار", "ونمشي", "على", "ما", "كي"]), max_size=8),
        max_size=6,
    )
)
def test_gain_is_finite_and_pure(lines: list[list[str]]) -> None:
    first = model("arabic").gain(lines)
    assert first == model("arabic").gain([list(x) for x in lines])
    assert first[0] == first[0] and abs(first[0]) < 50  # not NaN, bounded


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


@pytest.mark.parametrize(
    "script",
    # Arabizi's 837 classes make 1.1 M pairs: 3 s of pmi() even compiled
    ["arabic", pytest.param("arabizi", marks=pytest.mark.slow)],
)
def test_a_rare_class_cannot_swamp_a_line(script: str) -> None:
    """Issue 18: a pair's PMI is trusted by its rarer class's corpus count (EVIDENCE). Every pair
    whose rarer class has at most 20 tokens scores above -7 (-8.9 Arabic, -8.7 Arabizi before)."""
    m = model(script)
    rare_a = [a for a in m.names if m.left.get(a, 0) <= 20]
    rare_b = [b for b in m.names[1:] if m.right.get(b, 0) <= 20]
    pairs = [(a, b) for a in rare_a for b in m.names[1:]] + [(a, b) for a in m.names for b in rare_b]
    assert len(pairs) > 1000
    low = min((m.pmi(a, b), a, b) for a, b in pairs)
    assert low[0] > -7.0, (script, low)


def test_a_common_pair_never_seen_stays_strongly_negative() -> None:
    """Issue 18, the other side: a pair of common classes expected 11 times and never seen (ما then a
    clitic + article) stays strongly negative."""
    m = model("arabic")
    assert m.big.get(("ما", "#Pal"), 0) == 0 and m.left["ما"] * m.right["#Pal"] / m.n > 10
    assert m.pmi("ما", "#Pal") < -6.0


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
        _, lead, moved = m.measure(segs)
        back = [_backwards(s) for s in segs]
        _, trail, moved_back = m.measure(back)
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
