"""Any mark between half-lines is a caesura (docs/scorer.md, "Layout is not content"; scorer/caesura.py).

The class property: a character drawn from Unicode's punctuation and symbol categories (brackets,
quotes and the marks already read otherwise aside), written between the half-lines of every bayt of
a genuine poem, keeps the reward within 0.1. The limits: a poem's own punctuation (glued to its word,
or one line's mark among fixed caesuras) splits nothing, and a stretched word stays one word.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

import pytest
from corpus import rounds
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.caesura import SOFT_ONLY
from scorer.score import score
from scorer.text import parse_poem

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
TOLERANCE = 0.1
_CAESURA = re.compile(r" \*\* | {3,}|\t| \| ")
_FIXED = set("*⁂…|.\u3000")
_QUOTES = set("()[]{}<>«»“”„‟\"'‘’‹›")


def _bayt_poems() -> list[tuple[str, str, dict[str, str]]]:
    """Every genuine poem with a caesura on every line: the bayt samples (both scripts) and the
    genuine and harmless-base bayt cases of the rounds."""
    out = []
    for script, folder in (("arabic", SAMPLES), ("arabizi", SAMPLES / "arabizi")):
        for form in ("gsim", "qasida"):
            out.append(
                (f"sample {script} {form}", (folder / f"{form}.txt").read_text("utf-8"), {"form": form})
            )
    for case in rounds():
        lines = [ln for ln in case["text"].split("\n") if ln.strip()]
        if case["tier"] == "genuine" and lines and all(_CAESURA.search(ln) for ln in lines):
            out.append((case["id"], case["text"], case["references"]))
    return out


POEMS = _bayt_poems()
BY_NAME = {p[0]: p for p in POEMS}


@functools.cache
def plain(name: str) -> float:
    """The poem's reward as written: scored when a test first needs it (not while collecting, in every
    pytest-xdist worker), once per process."""
    _, text, refs = BY_NAME[name]
    return score({"parts": [{"text": text}]}, refs).reward


def _separator_chars() -> list[str]:
    """Characters of the P* and S* categories of the Basic Multilingual Plane that a separator run
    may be made of (a sample every 7th code point keeps the strategy small)."""
    chars = []
    for c in range(0x21, 0xFFFF, 7):
        ch = chr(c)
        if unicodedata.category(ch)[0] in "PS" and ch not in _FIXED | _QUOTES | SOFT_ONLY:
            chars.append(ch)
    return chars


SEPARATORS = _separator_chars()


def _with(text: str, sep: str) -> str:
    return "\n".join(_CAESURA.sub(sep, ln, count=1) for ln in text.split("\n"))


def test_the_class_is_broad() -> None:
    assert len(SEPARATORS) > 300, len(SEPARATORS)
    assert len(POEMS) >= 8, [p[0] for p in POEMS]


@settings(deadline=None, derandomize=True, max_examples=120)
@given(poem=st.sampled_from(POEMS), mark=st.sampled_from(SEPARATORS), double=st.booleans())
def test_any_mark_between_the_half_lines_of_every_bayt_is_read_and_costs(
    poem: tuple[str, str, dict[str, str]], mark: str, double: bool
) -> None:
    """Another separator than the asked ` ** ` is another layout: the halves are still read (the
    reward never rises), and it costs something; a mark outside the allowlist (a symbol) is the
    allowlist's, at most 0."""
    name, text, refs = poem
    sep = f" {mark * (2 if double else 1)} "
    got = score({"parts": [{"text": _with(text, sep)}]}, refs).reward
    assert got <= plain(name) + 1e-9, (name, sep, plain(name), got)


ARABIC = [p for p in POEMS if p[2].get("script", "arabic") == "arabic"]


@pytest.mark.parametrize("poem", ARABIC, ids=[p[0] for p in ARABIC])
@pytest.mark.parametrize("sep", ["ـــــ", " ـــــ ", "ـــــ "])
def test_a_tatweel_run_between_the_half_lines_is_read_as_another_layout(
    poem: tuple[str, str, dict[str, str]], sep: str
) -> None:
    """Arabic script only: tatweel is its letter; as a separator it is another layout, which costs
    a little and is read as the caesura."""
    name, text, refs = poem
    got = score({"parts": [{"text": _with(text, sep)}]}, refs).reward
    assert plain(name) - 2 * TOLERANCE - 0.05 <= got <= plain(name) + 1e-9, (name, sep, plain(name), got)


def test_a_poems_own_punctuation_splits_nothing() -> None:
    qasida = (SAMPLES / "qasida.txt").read_text("utf-8")
    lines = qasida.strip().split("\n")
    # a question mark spaced apart inside the first half of every other line, among ** caesuras
    asked = [ln.replace(" ", " ؟ ", 1) if i % 2 else ln for i, ln in enumerate(lines)]
    poem = parse_poem("\n".join(asked))
    assert [len(ln.hemi_words) for ln in poem.lines] == [2] * len(lines)
    # a colon or question mark glued to its word, in a line without a caesura, is no separator
    line = parse_poem("قال: يا ولدي وين مشيت؟ و الدنيا ظلمة عليا").lines[0]
    assert len(line.hemi_words) == 1 and len(line.halves) == 1


def test_a_stretched_word_stays_one_word() -> None:
    malzuma = (SAMPLES / "malzuma.txt").read_text("utf-8")
    # a kashida of six tatweels inside a word mid-line (once in the poem: not its caesura mark), after
    # a letter that joins the next, and the letters around it make a word: طويل
    assert "والليل طويل علينا" in malzuma
    stretched = malzuma.replace("طويل", "طويــــــل", 1)
    assert parse_poem(stretched).lines[2].words == parse_poem(malzuma).lines[2].words
    refs = {"form": "malzuma", "refrain": "yes"}
    assert score(stretched, refs).reward == pytest.approx(score(malzuma, refs).reward)


def test_arabizi_soft_separators_keep_working() -> None:
    gsim = (SAMPLES / "arabizi" / "gsim.txt").read_text("utf-8")
    refs = {"form": "gsim", "script": "arabizi"}
    plain = score(gsim, refs).reward
    for sep in (" - ", " / ", ", ", " : "):  # another layout: read, and costing a little
        got = score(_with(gsim, sep), refs).reward
        assert plain - 2 * TOLERANCE - 0.05 <= got <= plain, sep
    assert score(_with(gsim, " ~ "), refs).reward <= 0.0  # ~ is no poet's mark: markup
