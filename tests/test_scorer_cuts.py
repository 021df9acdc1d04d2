"""Words cut in two (scorer.cuts): a poem whose words are written as pieces, by a space or a hyphen,
loses its language gate (round 17: r17-080 and r17-090 kept 0.75 and 0.66); honest poems, which
write a clitic apart now and then, keep it whole."""

from __future__ import annotations

import re

import pytest
from corpus import round_cases, samples, script_of

from scorer import cuts
from scorer.score import _ARABIC_WORDS, _ARABIZI_WORDS, score
from scorer.text import parse_poem

HONEST = samples() + round_cases("genuine", "harmless", "imperfect", "wrong_form")


def _table(refs: dict[str, str]):
    return _ARABIZI_WORDS if script_of(refs) == "arabizi" else _ARABIC_WORDS


def _cut(text: str, sep: str, at_least: int = 5) -> str:
    """``text`` with every word of ``at_least`` letters or more cut in two at its middle by ``sep``."""

    def half(m: re.Match[str]) -> str:
        w = m.group(0)
        return w[: len(w) // 2] + sep + w[len(w) // 2 :] if len(w) >= at_least else w

    return re.sub(r"[^\W\d_]+|\w+", half, text)


def test_no_honest_poem_of_the_rounds_or_sample_is_gated() -> None:
    gated = [name for name, text, refs in HONEST if cuts.cut_gate(parse_poem(text).lines, _table(refs)) < 1.0]
    assert gated == []


@pytest.mark.parametrize("case", samples(), ids=lambda c: c[0])
def test_a_poem_cut_into_pieces_scores_at_most_zero(case: tuple) -> None:
    _, text, refs = case
    assert score(text, refs).reward > 0.8
    sep = "-" if refs["script"] == "arabizi" else " "
    cut = _cut(text, sep)
    assert cuts.cut_gate(parse_poem(cut).lines, _table(refs)) < 1.0
    assert score(cut, refs).reward <= 0.0


def test_the_gate_falls_linearly_between_its_ends() -> None:
    """300 words in lines of two, k of them "a b" (one cut word: glued a word, apart none)."""
    table = {"ab": True, "a": False, "b": False, "x": True}
    free, zero = cuts.CUT_RAMP

    def gate(share: float) -> float:
        n = 300
        k = round(share * n)
        text = "\n".join(["a b"] * k + ["x x"] * ((n - 2 * k) // 2))
        return cuts.cut_gate(parse_poem(text).lines, table)

    assert gate(free - 0.02) == 1.0
    assert gate((free + zero) / 2) == pytest.approx(0.5, abs=0.05)  # a line may be read as a title
    assert gate(zero + 0.02) == 0.0
