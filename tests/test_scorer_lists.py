"""The list gate (scorer/order.py ``list_gate``, docs/scorer.md "Word order"): an inventory of nouns
joined by "and", or of calls ("O X, O Y"), laid out in a form is no poem, however well its ends
rhyme; a genuine poem's enumerations, its calls with their complements, and "and" joining verbs,
pay nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from batches import each
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorer.order import LIST_PRIOR_LINES, LIST_RAMP, list_gate, shape
from scorer.score import score
from tests.corpus import hemistichs, round_cases, samples, script_of

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
HONEST = ("genuine", "harmless", "imperfect", "wrong_form")


HONEST_POEMS = samples() + round_cases(*HONEST)


@each("poem", HONEST_POEMS)
def test_honest_poems_keep_the_list_gate(poem: tuple[str, str, dict[str, str]]) -> None:
    """No genuine, harmless, imperfect or wrong-form poem of the rounds nor a sample pays: a poem
    may enumerate in a line or two (r6-089: the palm, the dates and the sand)."""
    name, text, refs = poem
    assert list_gate(hemistichs(text), script_of(refs)) == 1.0, name


def _and_nouns(segs: list[list[str]], script: str) -> list[str]:
    """The poem's own nouns (not verbs by shape, which reads Arabizi in lower case as the gate does:
    r8-069 is in capitals), as "and" + noun the way its script writes it."""
    arabic = script == "arabic"
    nouns = sorted(
        {
            w
            for h in segs
            for w in h[:-1]
            if len(w) > 3 and not shape(w if arabic else w.lower(), arabic).endswith(("v", "vu"))
        }
    )
    return [("و" + w.removeprefix("و")) if arabic else f"w {w}" for w in nouns]


@settings(deadline=None, derandomize=True, max_examples=60)
@given(poem=st.integers(0, len(HONEST_POEMS) - 1), seed=st.integers(0, 1 << 16))
def test_lines_turned_into_inventories_close_the_gate(poem: int, seed: int) -> None:
    """Each hemistich of an honest poem rewritten, one after another, as its first word and three of
    the poem's own nouns joined by "and", its rhyme word kept: the gate never rises as more lines
    become inventories, and with every line one it is 0, so the reward is at most 0."""
    name, text, refs = HONEST_POEMS[poem]
    script = script_of(refs)
    segs = hemistichs(text)
    nouns = _and_nouns(segs, script)
    long = [i for i, h in enumerate(segs) if len(h) >= 3]
    assume(len(nouns) >= 3 and len(long) >= 4)
    rng = random.Random(seed)
    listed = [list(h) for h in segs]
    last = list_gate(listed, script)
    for i in long:
        picks = rng.sample(nouns, 3)
        listed[i] = [segs[i][0], *" ".join(picks).split(), segs[i][-1]]
        now = list_gate(listed, script)
        assert now <= last, (name, i)
        last = now
    assert last == 0.0, name


def test_the_ramp_reads_the_share_of_list_lines_with_its_prior() -> None:
    """Two list lines among eight: 2 / (8 + prior); the gate is linear between LIST_RAMP's ends."""
    full, zero = LIST_RAMP
    lst = ["الخبز", "والزيت", "والملح", "والحليب"]
    line = ["الولد", "مشى", "للسوق", "بكري"]
    for k in range(9):
        got = list_gate([lst] * k + [line] * (8 - k), "arabic")
        share = k / (8 + LIST_PRIOR_LINES)
        assert got == pytest.approx(min(1.0, max(0.0, (zero - share) / (zero - full)))), k


@pytest.mark.parametrize(
    ("line", "script", "is_list"),
    [
        ("الخبز والزيت والملح والحليب", "arabic", True),
        ("جانفي وفيفري ومارس وأفريل", "arabic", True),
        ("نمشي ونجي ونغني ونحكي", "arabic", False),  # "and" joining verbs is a sentence
        ("والبحر زرق وفيه الحوت", "arabic", False),  # وفيه is glue
        ("el khobz w el zit w el mel7 w el 7lib", "arabizi", True),
        ("khobz wel zit wel mel7 wel 7lib", "arabizi", True),
        ("w nemchi w nji w nghanni w n7ki", "arabizi", False),
        ("w erramla safra w 3alia tlou7", "arabizi", False),
        ("يا الليل يا الزين", "arabic", True),  # calls and nothing else (round 35)
        ("ya dar ya nhar", "arabizi", True),
        ("يا زيتونة يا عزّ البلاد", "arabic", False),  # a call with its complement: an opening
        ("ya lil ya 3in nestanna fik", "arabizi", False),
    ],
)
def test_a_line_is_a_list_when_and_or_o_joins_nouns_only(line: str, script: str, is_list: bool) -> None:
    """Eight lines of the same line: a list closes the gate, a sentence leaves it open."""
    got = list_gate([line.split()] * 8, script)
    assert (got == 0.0) if is_list else (got == 1.0), (line, got)


def test_an_inventory_in_a_form_scores_at_most_zero() -> None:
    """A muthallath whose lines are shopping, furniture and animal lists (round 12's r12-038 kind),
    every end on its rhyme: 1.0 before the gate."""
    text = (
        "الخبز والزيت والملح والحليب\nوالفلفل والتن والحوت والزبيب\nوالسكر والقهوة والشاي والتمر\n\n"
        "الكرسي والطاولة والبيبان والحيوط\nوالمخدة والزربية والكسوة والخيوط\n"
        "والمرايا والصحون والكاس والجرّ\n\n"
        "الكلب والقطوسة والحمام والجمال\nوالبقرة والعلوش والسردوك والبغال\nوالعصفور والحنش والذيب والنمر"
    )
    got = score({"parts": [{"text": text}]}, {"form": "muthallath", "script": "arabic", "stanzas": "3"})
    assert got.reward <= 0.0, got
    assert got.subscores["list"] == 0.0, got


def test_a_qasida_of_calls_to_its_rhyme_words_scores_at_most_zero() -> None:
    """Round 35's r35-188: every half-line "O X, O Y" on the two rhymes, 1.0 before calls counted."""
    firsts = ["الزين", "الحنين", "السنين", "العين", "الياسمين", "المسكين", "البنين", "الطين"]
    seconds = ["النهار", "الأسرار", "الأشجار", "الأخبار", "البحار", "الغبار", "الأمطار", "المشوار"]
    text = "\n".join(f"يا الليل يا {a} ** يا الدار يا {b}" for a, b in zip(firsts, seconds, strict=True))
    got = score(text, {"form": "gsim", "script": "arabic", "stanzas": "8"})
    assert got.reward <= 0.0 and got.subscores["list"] == 0.0, got
