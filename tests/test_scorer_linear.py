"""Every pattern the scorer applies to model output runs in time linear in its input (issue: a run of
spaces after a label word held one `score()` call for minutes).

Two kinds of test. Equivalence: each linear rewrite gives exactly what the backtracking pattern it
replaces gave, on generated lines (the old patterns are written out here): 100 derandomized lines each
in ``[sample]``, 500 in ``[full]`` (marked slow; tests/sweeps.py). Growth: generated
pathological strings (runs of every kind of space, punctuation and markup openers, up to the
20,000-character cap) cost `score()` no more per character than a small multiple of what a normal
poem costs per character, measured in CPU time in the same process. A quadratic path is thousands of
times over that bound at 20,000 characters; speed itself is measured by `make bench`.
"""

from __future__ import annotations

import re
import time
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sampled_given

from scorer import linear, text
from scorer.score import score
from scorer.text import MAX_CHARS

agreement = partial(sampled_given, sample=100, full=500)
MALZUMA = (Path(__file__).resolve().parent.parent / "data" / "samples" / "malzuma.txt").read_text("utf-8")

# The backtracking patterns as the scorer had them.
_LABEL_WORDS = text._LABEL_WORDS
OLD = {
    "_LABEL_PREFIX": re.compile(rf"^\s*\(?(?:{_LABEL_WORDS})\s*[\w٠-٩]{{0,12}}\s*\)?\s*[:：]\s*", re.I),
    "_LABEL_LINE": re.compile(rf"^\s*\(?(?:{_LABEL_WORDS})(?:\s+\S+){{0,2}}\s*\)?\s*[:：.]?\s*$", re.I),
    "_SIGNATURE": re.compile(
        r"^\s*(?:[-–—~]+\s*\S|(?:by|par|signé|بقلم|شعر|كلمات|توقيع)\s*[:：]?\s*\S)", re.I
    ),
    "_TAG": re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,15}(?:\s[^<>]{0,200})?/?>"),
    "_PROSE_LEAD": re.compile(rf"^\s*(?:{text._PROSE_LEAD_WORDS})\b", re.I),
}
OLD_INNER_MARKUP = re.compile(r"(\*\*|__|\*)(?=[^\s*_])([^\n]*?[^\s*_])\1")
OLD_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)

_pieces = [" ", "  ", "   ", "\t", "\u2003", "\u3000", "\u00a0", "*", "**", "_", "__", "(", ")", ":", "：",
           ".", "-", "—", "~", "a", "b", "1", "٣", "x y", "stanza", "Stanza", "by", "بقلم", "مقطع", "here",
           "<", ">", "/", "<a", "<b x='1'>", "</a>"]  # fmt: skip
line = st.lists(st.sampled_from(_pieces), max_size=40).map("".join)
_tags = ["<think>", "</think>", "<THINK>", "</Think>", "<thinking>", "</thinking>", "<reasoning>",
         "</reasoning>", "a", " ", "\n", "<", ">", "</", "İ", "ß"]  # fmt: skip
tagged = st.lists(st.sampled_from(_tags), max_size=30).map("".join)


@agreement(s=line)
def test_possessive_patterns_match_what_the_backtracking_ones_matched(s: str) -> None:
    for name, old in OLD.items():
        new = getattr(text, name)
        assert [m.span() for m in new.finditer(s)] == [m.span() for m in old.finditer(s)], name


@agreement(s=line)
def test_inner_markup_is_stripped_as_the_regex_stripped_it(s: str) -> None:
    assert linear.strip_inner_markup(s) == OLD_INNER_MARKUP.sub(r"\2", s)


@agreement(t=tagged)
def test_thinking_blocks_are_dropped_as_the_regex_dropped_them(t: str) -> None:
    assert linear.drop_thinking(t) == OLD_THINK.sub("\n", t)


_space = st.sampled_from([" ", "\t", "\u2003", "\u3000", "\u00a0"])
_run = st.tuples(_space, st.integers(1, 30)).map(lambda p: p[0] * p[1])
_words = st.sampled_from(["a", "bb", "*", "|", "/", ",", "-", "…", "..."])
spaced = st.lists(
    st.one_of(_run, _words, st.lists(_space, min_size=1, max_size=12).map("".join)), max_size=20
)


@agreement(parts=spaced)
def test_bounded_space_runs_split_a_line_into_the_same_words(parts: list[str]) -> None:
    s = "".join(parts)
    bounded = linear.bound_spaces(s)
    assert all(len(r) <= 8 for r in re.findall(r"[^\S\n]+", bounded))
    assert [text._hemi_words(p) for p in text._split(bounded)] == [
        text._hemi_words(p) for p in text._split(s)
    ]
    assert [h.split() for h in text.SOFT.split(bounded)] == [h.split() for h in text.SOFT.split(s)]


# --- growth -------------------------------------------------------------------------------------------

PER_CHAR_BOUND = 40
"""How many times a normal poem's CPU time per character a pathological string may cost. Linear paths
measure 1–8 here; a quadratic one at 20,000 characters measures in the thousands."""

_UNITS = [" ", "\t", "\u2003", "\u3000", "\u00a0", "\u200b", "*", "**", "_", "__", "…", ".", "|", "-", "/",
          ",", ":", "#", ">", "(", "`", "~", "<", "<think>", "<a ", "*a ", "**a ", "_a_ ", "a * b ",
          " | ", "stanza 1:\n", "a\n\n", "<br>", "⁂", " / ", "a...", "a… ", "(refrain ", "[a", "(", "- a\n",
          "اللازمه: ", "هاذي ", "بسم الله ", " ٭ ", "ـــــ", "يا دار ـــ ", "يا دارـــب ", "a b ~ c d\n",
          "a ✿ ", "ا ب ! "]  # fmt: skip
_PREFIXES = ["", "stanza", "by", "المطلع", "**a", "— ", "here is"]
_SUFFIXES = ["", "ab c:", "x", "*", "</think>"]


def _cpu(s: str, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        score(s, {"form": "malzuma"})
        best = min(best, time.process_time() - t0)
    return best


@settings(deadline=None, derandomize=True, max_examples=60)
@given(
    unit=st.sampled_from(_UNITS),
    prefix=st.sampled_from(_PREFIXES),
    suffix=st.sampled_from(_SUFFIXES),
    size=st.sampled_from([5_000, MAX_CHARS]),
)
def test_pathological_strings_cost_no_more_per_character_than_a_poem(
    unit: str, prefix: str, suffix: str, size: int
) -> None:
    per_char = _cpu(MALZUMA, repeat=5) / len(MALZUMA)
    s = prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix
    cost = _cpu(s, repeat=2) / len(s)
    assert cost <= PER_CHAR_BOUND * per_char, (
        f"{prefix!r} + {unit!r}×N + {suffix!r} ({len(s)} chars): {cost / per_char:.0f}× a poem's time "
        "per character; a pattern backtracks"
    )


@pytest.mark.parametrize(("head", "unit"), [("أ ", "ب"), ("أ ", "بَ"), ("", "بأ"), ("أ ", "ب ")])
def test_one_long_run_of_arabic_letters_costs_no_more_per_character_than_a_poem(head: str, unit: str) -> None:
    """A run of Arabic letters with no space in a text that holds an أ (the MSA first-person reading
    looks for it in each run of the raw text): ``X*أX*`` backtracks over every start of a run."""
    per_char = _cpu(MALZUMA, repeat=5) / len(MALZUMA)
    s = head + unit * ((MAX_CHARS - len(head)) // len(unit))
    cost = _cpu(s, repeat=2) / len(s)
    assert cost <= PER_CHAR_BOUND * per_char, f"{head!r} + {unit!r}×N: {cost / per_char:.0f}× a poem per char"


@pytest.mark.parametrize("run", ["\n", "\r", "\r\n", "\n\r", " \n", "\n\n\r", "\r\r\n"])
@pytest.mark.parametrize("size", [40_000, 400_000])
def test_newline_and_carriage_return_runs_cost_no_more_per_character_than_a_poem(run: str, size: int) -> None:
    """Every pass over the raw text, before the 20,000-character cap, is linear too: a letter, then a
    run of line breaks to the size of a request body (a quadratic pass took 7.5 s at 40 KB)."""
    per_char = _cpu(MALZUMA, repeat=5) / len(MALZUMA)
    for s in (
        "a" + run * (size // len(run)),
        "a" + run * (size // len(run)) + "b",
        run * (size // len(run)) + "ب",
    ):
        cost = _cpu(s, repeat=2) / len(s)
        assert cost <= PER_CHAR_BOUND * per_char, f"{run!r}×N ({len(s)} chars): {cost / per_char:.0f}× a poem"


DISTINCT_BOUND = 10
"""Times a poem's scoring cost per character that a text of 20,000 distinct characters may cost: about
4 is measured; counting each distinct character apart (as the allowlist once did) cost about 20."""


@pytest.mark.parametrize("start", [0x4E00, 0x1F300, 0xE000])
def test_a_text_of_distinct_characters_costs_no_more_per_character_than_a_poem(start: int) -> None:
    """The allowlist (scorer/allow.py) counts a text's characters in one pass: 20,000 distinct ones
    (CJK, emoji, private use) cost per character a small multiple of what a poem does."""
    per_char = _cpu(MALZUMA, repeat=5) / len(MALZUMA)
    s = "".join(chr(start + i) for i in range(20_000))
    cost = _cpu(s, repeat=2) / len(s)
    assert cost <= DISTINCT_BOUND * per_char, f"U+{start:04X}…: {cost / per_char:.1f}× a poem per char"
