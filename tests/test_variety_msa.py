"""MSA is another variety, even with Derja sprinkled in (issue 18, principle 3; docs/scorer.md, "MSA's
own evidence"): a genuine poem that keeps every Tunisian marker but takes in k distinct forms Derja
does not say (the أ- first person أكتب, الذي, سوف, ليس; Latin aktubu, allathi, sawfa, laysa) scores
at most 0 from MSA_DOSE's zero on, in both scripts; one such form leaves the variety gate whole."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from variety_swaps import detect_text, reward, samples, swap_in

from bench.redteam_rounds import load
from scorer import msa
from scorer.text import parse_poem
from scorer.variety import DERJA, MSA_DOSE, detect

ROOT = Path(__file__).resolve().parent.parent
EPSILON = 1e-9
FORMS = {
    "arabic": [
        *("أكتب", "أسهر", "أمشي", "أسمع", "أقول", "أرجع", "الذي", "سوف", "ليس", "التي", "ذلك", "لن"),
        *("ينتظر", "يأتي", "جالس", "يمضي", "صارت", "الآن", "كثيرا", "بغير"),  # content words Derja replaces
    ],
    "arabizi": [
        "aktubu",
        "ajlisu",
        "aqoolu",
        "allathi",
        "sawfa",
        "laysa",
        "lan",
        "tilka",
        "lastu",
        "yal3abuna",
    ],
}
"""MSA forms an attacker (or a drifting model) would write."""


def test_samples_carry_no_msa_form() -> None:
    for name, text, refs, plain in samples():
        assert plain >= 0.8, (name, plain)
        assert detect_text(text, refs["script"], raw=True).msa == 0.0, name


@pytest.mark.parametrize("script", sorted(FORMS))
def test_each_form_counts_once_and_the_dose_ramps(script: str) -> None:
    """Every listed form weighs 1 alone (the أ- verbs read before folding); a form repeated is one;
    `free` forms leave the gate at 1, `zero` set it to 0 and name MSA in Arabic script."""
    free, zero = MSA_DOSE[script]
    for name, text, refs, _ in samples():
        if refs["script"] != script:
            continue
        for form in FORMS[script]:
            got = detect_text(swap_in(text, script, [form, form], seed=1), script, raw=True)
            assert got.msa == 1.0 and got.foreign_gate == 1.0, (name, form, got)
        for k, gate in ((int(free), 1.0), (int(zero), 0.0)):
            got = detect_text(swap_in(text, script, FORMS[script][:k], seed=k), script, raw=True)
            assert got.foreign_gate == gate, (name, k, got)
            assert got.counts[DERJA] > 0.0, name
            if gate == 0.0 and script == "arabic":
                assert got.variety == "msa", got


ELATIVE_MISSES = {
    "r18-010",
    "r20-027",
    "r23-018",
    "r23-130",
    "r27-015",
    "r27-248",
    "r28-012",
    "r28-019",
    "r30-018",
    "r34-004",
}
"""Round 18's genuine mukhammas r18-010 writes the elative أسرع (faster), which `msa.first_person_verbs`
reads as MSA's first person (I hurry): a Derja word read as MSA's, for the variety classifier that sees
every word in context (issue 34). Round 20's genuine muthallath r20-027 says في نفس الآن (at the same
moment), an idiom Derja keeps with MSA's الآن: one MSA word, the first of the dose, so it pays 1.0.
Round 23's genuine mukhammas r23-018 writes يتلوّن (changes colour), which folds to يتلون, MSA's (they
recite): one word, the first of the dose, so it pays 1.0; r23-130 is the same poem with a flaw. Round
27's genuine mugef r27-015 writes يعاون (helps), whose root ends in ن, so the -ūn rule reads it as
MSA's plural imperfect: one word, the first of the dose (r27-248 is the same poem with a flaw). Round
28's genuine r28-012 and r28-019 write أمري (my affair), read as MSA's first person أ + مري: one word,
the first. Round 30's genuine r30-018 writes تعاون (she helps), read as r27-015's يعاون is. Round 34's
genuine r34-004 writes يصعد (rises) of incense, MSA's word where Derja mostly says يطلع: one word, the
first of the dose, so it pays in full."""


def test_no_honest_poem_of_the_rounds_carries_a_free_dose() -> None:
    """Every MSA form listed (msa_own.txt, with the content words Derja replaces: ينتظر, يأتي,
    جالس, صارت, الآن) is absent from every genuine, harmless and imperfect poem of the red-team
    rounds: none carries any, so one such word in an honest poem is the first, and two (MSA_DOSE's
    zero) are never an honest poem's (bench/derja_density.py prints the figures)."""
    honest = [c for c in load() if c.tier in ("genuine", "harmless", "imperfect")]
    assert len(honest) > 700
    for case in honest:
        if case.id in ELATIVE_MISSES:
            continue
        script = (case.references.get("script") or "arabic").lower()
        poem = parse_poem(case.text)
        got = detect([w for ln in poem.lines for w in ln.words], script, case.text)
        assert got.msa == 0.0, (case.id, got.msa)


def test_folded_imperative_and_nouns_are_not_the_first_person() -> None:
    """اكتب (imperative, or any word once folded) and أ-nouns or elatives (أمّي, أيام, أحسن, أهلي,
    أمانة) are not MSA's first person; أكتب and سأرجع are."""
    words = {"اكتب", "امي", "ايام", "احسن", "اهلي", "امانة", "ارجع"}
    assert msa.first_person_verbs("اكتب أمّي أيام أحسن أهلي أمانة", words) == set()
    assert msa.first_person_verbs("أكتب سأرجع", words | {"سارجع"}) == {"اكتب", "ارجع"}
    assert msa.first_person_verbs("قال: أكتب", {"قال"}) == set()  # not a word of the poem


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 10_000))
def test_swapping_in_msa_forms_past_the_dose_scores_at_most_zero(data: st.DataObject, seed: int) -> None:
    """Property: k distinct MSA forms swapped into a genuine poem (its Tunisian markers all kept)
    never raise its reward, and from MSA_DOSE's zero on the reward is at most 0, both scripts."""
    name, text, refs, plain = data.draw(st.sampled_from(samples()))
    script = refs["script"]
    _, zero = MSA_DOSE[script]
    k = data.draw(st.integers(1, int(zero) + 3))
    words = random.Random(seed).sample(FORMS[script], k)
    got = reward(swap_in(text, script, words, seed), refs)
    assert got <= plain + EPSILON, (name, words, plain, got)
    if k >= zero:
        assert got <= 0.0, (name, words, plain, got)


def test_the_una_plural_is_msa_and_the_ouna_object_is_derja() -> None:
    """A y-/t- imperfect in -una (yajtami3una, tal3abuna) is MSA's -ūna; Derja's plural -ou with the
    object -na (y7ebbouna, they love us) and the oven (tabouna) are not, nor are short words."""
    assert msa.latin_weight(["yajtami3una", "tal3abuna", "yal3abuna"])[0] == 3.0
    assert msa.latin_weight(["y7ebbouna", "tabouna", "ta3rfouna", "yuna", "kuna", "bounaa"])[0] == 0.0
