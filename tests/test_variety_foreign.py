"""Another variety's evidence is not cancelled by Derja's (issue 18, round 7; docs/scorer.md,
"Varieties", "Foreign evidence"): a genuine poem that keeps every Tunisian marker but takes in a few
distinct function words of one other dialect reads as that dialect and scores at most 0 past a small
dose (FOREIGN_DOSE), for every variety the dose counts; one such word costs nothing."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from variety_swaps import WORD, detect_text, reward, samples, swap_in

from scorer.arabic import normalize_arabic
from scorer.variety import (
    ARABIC_TABLE,
    DERJA,
    FOREIGN_DOSE,
    FOREIGN_EXEMPT,
    LATIN_SPELLING,
    VARIETIES,
    detect,
    word_vote,
)

ROOT = Path(__file__).resolve().parent.parent
EPSILON = 1e-9


@functools.cache
def markers(script: str) -> dict[str, list[str]]:
    """Each counted variety's words that vote for it alone at full weight (clitic forms left out),
    as the tables of `scorer.variety` hold them: the words an attacker would swap in. Read on the
    first call, in a test, not at collection."""
    table = ARABIC_TABLE if script == "arabic" else LATIN_SPELLING
    clitics = ("و", "ف") if script == "arabic" else ("w", "ou")
    out: dict[str, list[str]] = {}
    for word, hit in sorted(table.items()):
        if not hit or len(hit[0]) != 1 or hit[0][0][1] != 1.0 or not WORD.fullmatch(word):
            continue
        variety = hit[0][0][0]
        if variety in FOREIGN_EXEMPT or any(
            word.startswith(c) and table.get(word[len(c) :], ()) == hit for c in clitics
        ):
            continue
        if word_vote(word, script) == hit[0]:  # the word reads back as itself (no fold, no case)
            out.setdefault(variety, []).append(word)
    return out


RIVALS = {script: tuple(v for v in VARIETIES[script] if v not in FOREIGN_EXEMPT) for script in VARIETIES}
"""Every variety FOREIGN_DOSE counts: the Arabic dialects, and Maltese in Latin script."""


@pytest.mark.parametrize("script", sorted(VARIETIES))
def test_every_counted_rival_has_markers(script: str) -> None:
    _, zero = FOREIGN_DOSE[script]
    assert all(len(markers(script).get(v, [])) > zero for v in RIVALS[script]), markers(script)


def test_samples_are_genuine_and_carry_no_foreign_dose() -> None:
    for name, text, refs, plain in samples():
        assert plain >= 0.8, (name, plain)
        got = detect(
            WORD.findall(text if refs["script"] == "arabizi" else normalize_arabic(text)), refs["script"]
        )
        assert got.foreign_gate == 1.0, (name, got)


@pytest.mark.parametrize("script", sorted(VARIETIES))
def test_detector_dose_per_rival(script: str) -> None:
    """On every sample of the script: up to `free` foreign weight (the sample's own stray word, as
    Arabizi's 7alwa, plus words swapped in) leaves the gate at 1; `zero` distinct words of one rival
    set it to 0 and name that rival (or a variety leading it), whatever the poem's Tunisian weight."""
    free, zero = FOREIGN_DOSE[script]
    for name, text, refs, _ in samples():
        if refs["script"] != script:
            continue
        stray = detect_text(text, script).foreign
        for rival in RIVALS[script]:
            pool = markers(script)[rival]
            for k, gate in ((int(free - stray), 1.0), (int(zero), 0.0)):
                got = detect_text(swap_in(text, script, pool[:k], seed=k), script)
                assert got.foreign_gate == gate, (name, rival, k, got)
                assert got.counts[DERJA] > 0.0, (name, got)  # the Derja evidence is all still there
                if gate == 0.0:
                    assert got.variety == rival or got.counts[got.variety] > got.counts[rival], got


@settings(max_examples=80, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 10_000))
def test_swapping_in_another_dialects_words_past_the_dose_scores_at_most_zero(
    data: st.DataObject, seed: int
) -> None:
    """Property: k distinct function words of one other dialect swapped into a genuine poem (its
    Tunisian markers all kept) never raise its reward, and from FOREIGN_DOSE's zero on the reward is
    at most 0, for each counted variety."""
    name, text, refs, plain = data.draw(st.sampled_from(samples()))
    script = refs["script"]
    rival = data.draw(st.sampled_from(RIVALS[script]))
    _, zero = FOREIGN_DOSE[script]
    k = data.draw(st.integers(1, int(zero) + 2))
    words = random.Random(seed).sample(markers(script)[rival], k)
    out = swap_in(text, script, words, seed)
    got = reward(out, refs)
    assert got <= plain + EPSILON, (name, rival, words, plain, got)
    if k >= zero:
        assert got <= 0.0, (name, rival, words, plain, got, out[:300])
