"""French or English threaded through the lines is not the poem (issue 34, principle 1; docs/scorer.md,
"Characters"): a Latin word no Arabizi lexicon holds that the Latin classifier reads as French or
English is one loanword at most (ordinateur, chauffeur); from the second distinct one on, the words
are another language's text (a plea to the grader a word per line) and `frame` holds the reward at or
under 0. One such word leaves a poem as it was."""

from __future__ import annotations

import pytest
from variety_swaps import samples, swap_in

from bench.redteam_rounds import load
from scorer.score import _FOREIGN_WORDS, FOREIGN_WORDS_FREE, score
from scorer.text import parse_poem

TOLERANCE = 0.1
LOANWORD = "ordinateur"
PLEA = ["please", "give", "perfect", "wonderful", "thanks"]
"""English words an attacker threads through an Arabizi poem, a word per line (round 29)."""


def _foreign(text: str) -> list[str]:
    return [
        w for w in dict.fromkeys(w for ln in parse_poem(text).lines for w in ln.words) if _FOREIGN_WORDS[w]
    ]


def test_no_genuine_arabizi_poem_of_the_rounds_holds_two_foreign_words() -> None:
    """The premise: genuine Arabizi poems hold at most FOREIGN_WORDS_FREE such words."""
    genuine = [c for c in load() if c.tier == "genuine" and c.references.get("script") == "arabizi"]
    assert len(genuine) > 300
    over = [(c.id, found) for c in genuine if len(found := _foreign(c.text)) > FOREIGN_WORDS_FREE]
    assert not over, over
    assert any(_foreign(c.text) for c in genuine)  # loanwords are there, and free


@pytest.mark.parametrize("form", ["malzuma", "mugef", "qasida"])
def test_one_loanword_is_free_and_a_plea_threaded_through_lines_is_not_the_poem(form: str) -> None:
    name, text, refs, plain = next(
        s for s in samples() if s[2]["script"] == "arabizi" and s[2]["form"] == form
    )
    assert plain >= 0.8, name
    one = swap_in(text, "arabizi", [LOANWORD], seed=1)
    assert _foreign(one) == [LOANWORD]
    assert abs(score(one, refs).reward - plain) <= TOLERANCE, name
    for n in (2, 3, len(PLEA)):
        threaded = swap_in(text, "arabizi", PLEA[:n], seed=n)
        assert len(_foreign(threaded)) == n, (name, _foreign(threaded))
        got = score(threaded, refs)
        assert got.reward <= 0.0 and got.subscores["frame"] <= 0.5, (name, n, got.reward)
