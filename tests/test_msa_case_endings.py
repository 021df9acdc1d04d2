"""MSA's case endings written out (scorer.msa.case_gate; docs/scorer.md, "Case endings written out"):
Derja has lost case, so a poem that writes a final ḍamma, kasra or tanwīn on a fifth of its words and
more is MSA whatever Derja word it carries (round 16: seven such cheats at 0.05-0.996). The rhyme
word's vowel is the poet's to mark, and honest poems never reach the ramp."""

from __future__ import annotations

import re

import pytest
from corpus import round_cases, rounds, samples, script_of

from scorer import msa
from scorer.score import score

ARABIC = [c for c in samples() if c[2]["script"] == "arabic"]
_WORD = re.compile("[\u0621-\u064a]+")
DAMMA, KASRA, TANWIN = "\u064f", "\u0650", "\u064c"


def _mark(text: str, share: float, mark: str = DAMMA) -> str:
    """``text`` with ``mark`` on the last letter of one inner word (no line's last) in every 1/share."""
    out, k = [], 0
    for line in text.split("\n"):
        words = line.split(" ")
        for i in range(len(words) - 1):
            if _WORD.fullmatch(words[i]):
                k += 1
                if (k * share) % 1 < share:
                    words[i] += mark
        out.append(" ".join(words))
    return "\n".join(out)


@pytest.mark.parametrize("case", ARABIC, ids=lambda c: c[0])
def test_case_endings_on_a_third_of_the_words_zero_the_gate_and_the_reward(case: tuple) -> None:
    _, text, refs = case
    assert msa.case_gate(text) == 1.0
    for mark in (DAMMA, KASRA, TANWIN):
        marked = _mark(text, 0.4, mark)
        assert msa.case_gate(marked) == 0.0
        assert score(marked, refs).reward == -1.0


@pytest.mark.parametrize("case", ARABIC, ids=lambda c: c[0])
def test_the_rhyme_vowel_and_a_few_case_endings_are_free(case: tuple) -> None:
    """Every line's last word with its kasra (الظلامِ), a word in ten with a ḍamma: the gate stays 1
    and the reward does not move."""
    _, text, refs = case
    rhymed = "\n".join(ln + KASRA if ln.strip() and _WORD.search(ln[-1:]) else ln for ln in text.split("\n"))
    light = _mark(rhymed, 0.1)
    assert msa.case_gate(light) == 1.0
    assert score(light, refs).reward == score(text, refs).reward


def test_the_gate_falls_linearly_between_its_ends() -> None:
    free, zero = msa.CASE_RAMP
    text = ARABIC[0][1]
    gates = [msa.case_gate(_mark(text, s)) for s in (free - 0.05, (free + zero) / 2, zero + 0.05)]
    assert gates[0] == 1.0 and 0.0 < gates[1] < 1.0 and gates[2] == 0.0


def test_no_honest_case_of_the_rounds_is_gated() -> None:
    """Genuine, harmless and imperfect poems, and wrong forms that are not MSA: the gate is MSA's."""
    msa_poems = {c["id"] for c in rounds() if c["tier"] == "wrong_form" and "msa" in c.get("category", "")}
    honest = round_cases("genuine", "harmless", "imperfect", "wrong_form")
    gated = [n for n, t, r in honest if script_of(r) == "arabic" and msa.case_gate(t) < 1.0]
    assert set(gated) <= msa_poems, sorted(set(gated) - msa_poems)
