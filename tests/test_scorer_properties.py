"""Property tests: any text, any references, gives a finite reward in [-1, 1], the same every time."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.catalogue import FORMS
from scorer.score import score

PROPS = settings(deadline=None, derandomize=True, max_examples=300)

_alphabet = st.sampled_from(
    list("ابتثجحخدذرزسشصضطظعغفقكلمنهويةىأإآؤئءڨـًٌٍَُِّْ")
    + list("abcdeghiklmnorstuwy3579 ")
    + ["\n", "\n\n", " ** ", "*", "…", "\t", "   ", "#", "```", ":", "\ufefb", "\u200f"]
)
poem_like = st.lists(_alphabet, max_size=400).map("".join)
refs = st.fixed_dictionaries(
    {"form": st.sampled_from([*FORMS, "nope", ""])},
    optional={
        "stanzas": st.sampled_from(["1", "3", "5", "0", "-2", "x", "99999", "200"]),
        "refrain": st.sampled_from(["yes", "no", "maybe"]),
        "script": st.sampled_from(["arabic", "arabizi", "klingon"]),
    },
)


def _ok(r: float) -> bool:
    return isinstance(r, float) and math.isfinite(r) and -1.0 <= r <= 1.0


@PROPS
@given(text=st.text(max_size=600), references=refs)
def test_any_text_gives_a_finite_bounded_deterministic_reward(text: str, references: dict[str, str]) -> None:
    a = score(text, references)
    assert _ok(a.reward)
    assert all(math.isfinite(v) for v in a.subscores.values())
    assert score(text, dict(references)).reward == a.reward


@PROPS
@given(text=poem_like, references=refs)
def test_poem_like_text_gives_a_finite_bounded_deterministic_reward(
    text: str, references: dict[str, str]
) -> None:
    a = score(text, references)
    assert _ok(a.reward)
    assert score(text, dict(references)) == a


@PROPS
@given(
    parts=st.lists(
        st.one_of(
            st.fixed_dictionaries({"text": poem_like}, optional={"thought": st.booleans()}),
            st.none(),
            st.integers(),
            st.text(max_size=20),
            st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
        ),
        max_size=5,
    ),
    references=st.one_of(
        refs, st.none(), st.integers(), st.dictionaries(st.text(max_size=5), st.text(max_size=5))
    ),
)
def test_any_content_shape_gives_a_finite_reward(parts: list, references: object) -> None:
    r = score({"role": "model", "parts": parts}, references).reward  # type: ignore[arg-type]
    assert _ok(r)
