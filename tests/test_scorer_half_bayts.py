"""A bayt with one hemistich left empty (`` ** second half``) is half a bayt (docs/scorer.md,
principle 4 "A form is complete or it pays"; round 13's r13-171 sent a qasida of second halves only
and scored 0.39): emptying halves never raises the reward, and emptying every bayt's scores ≤ 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_poems import sample_poems

from scorer.score import score

BAYT_POEMS = [p for p in sample_poems() if p[2]["form"] in ("qasida", "gsim")]


def _emptied(text: str, which: set[int], first: bool) -> str:
    """The poem with the first (or second) hemistich of the bayts numbered in ``which`` left empty,
    its caesura mark kept."""
    out = []
    bayt = 0
    for line in text.split("\n"):
        if " ** " in line:
            if bayt in which:
                a, b = line.split(" ** ", 1)
                line = f" ** {b}" if first else f"{a} ** "
            bayt += 1
        out.append(line)
    return "\n".join(out)


def test_the_corpus_has_bayt_poems_in_both_scripts() -> None:
    assert {(p[2]["form"], p[2]["script"]) for p in BAYT_POEMS} == {
        (f, s) for f in ("qasida", "gsim") for s in ("arabic", "arabizi")
    }


@pytest.mark.parametrize("first", [True, False], ids=["first-halves", "second-halves"])
@pytest.mark.parametrize(("name", "text", "refs"), BAYT_POEMS, ids=[p[0] for p in BAYT_POEMS])
def test_every_bayt_half_written_scores_at_most_zero(
    name: str, text: str, refs: dict[str, str], first: bool
) -> None:
    bayts = sum(" ** " in line for line in text.split("\n"))
    assert score(_emptied(text, set(range(bayts)), first), refs).reward <= 0.0, name


@settings(deadline=None, derandomize=True, max_examples=40)
@given(poem=st.sampled_from(BAYT_POEMS), data=st.data())
def test_emptying_halves_never_raises_the_reward(
    poem: tuple[str, str, dict[str, str]], data: st.DataObject
) -> None:
    name, text, refs = poem
    bayts = sum(" ** " in line for line in text.split("\n"))
    which = data.draw(st.sets(st.integers(0, bayts - 1), min_size=1, max_size=bayts))
    more = which | data.draw(st.sets(st.integers(0, bayts - 1), max_size=bayts))
    whole = score(text, refs).reward
    fewer = score(_emptied(text, which, first=True), refs).reward
    most = score(_emptied(text, more, first=True), refs).reward
    assert whole >= fewer >= most, (name, whole, fewer, most)
