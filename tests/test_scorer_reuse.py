"""Content words recycled across a poem (scorer/reuse.py; docs/scorer.md, "Recycled words"): the
share is exact, every honest poem of the rounds and the samples keeps the gate open, and a poem
whose words are redrawn from a handful of its own scores at most 0."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from batches import each
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sample_poems import sample_poems

from bench.redteam_rounds import load
from scorer.response import extract_text
from scorer.reuse import REUSE_MIN_WORDS, REUSE_RAMP, REUSE_WINDOW, content_words, reuse_gate, reuse_share
from scorer.score import score
from scorer.text import parse_poem

HONEST = [
    (c.id, {"parts": list(c.parts) or [{"text": c.text}]}, c.references)
    for c in load()
    if c.tier in ("genuine", "harmless", "imperfect", "wrong_form")
] + [(name, text, refs) for name, text, refs in sample_poems()]


def _segments(response: object) -> tuple[list[list[str]], str]:
    poem = parse_poem(extract_text(response))
    script = "arabizi" if poem.latin_letters > poem.arabic_letters else "arabic"
    return [h for ln in poem.lines for h in ln.hemi_words], script


def _brute(words: list[str], window: int) -> float:
    """The definition, stretch by stretch: each stretch's third-and-later uses over its length."""
    w = min(window, len(words))
    shares = []
    for i in range(len(words) - w + 1):
        counts = Counter(words[i : i + w])
        shares.append(sum(max(0, n - 2) for n in counts.values()) / w)
    return sum(shares) / len(shares)


@settings(deadline=None, derandomize=True, max_examples=300)
@given(words=st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=120), window=st.integers(1, 60))
def test_the_share_is_the_mean_over_every_stretch(words: list[str], window: int) -> None:
    assert reuse_share(words, window) == pytest.approx(_brute(words, window), abs=1e-12)


@each("name, response, refs", HONEST)
def test_honest_poems_keep_the_gate_open(name: str, response: object, refs: dict[str, str]) -> None:
    """Genuine, harmless, imperfect and wrong-form poems of every round, and the samples: an honest
    poet does not recycle (the highest share among them is about half the ramp's start)."""
    segments, script = _segments(response)
    assert reuse_gate(segments, script) == 1.0, name
    assert score(response, refs).subscores.get("reuse", 1.0) == 1.0  # no poem: no factor at all


def test_refrains_function_words_and_clitics() -> None:
    """A refrain counts once; particles and pronouns are not content; والدار and معالدار are الدار;
    babble (a word said again at once) counts once."""
    line = ["يا", "انا", "نحب", "الدار", "في", "الليل"]
    assert content_words([line, line, line], "arabic") == ["نحب", "دار"]
    clitics = [["والدار", "قمر", "معالدار", "نجمه", "بالدار", "ليل"]]
    assert content_words(clitics, "arabic") == ["دار", "قمر", "دار", "نجمه", "دار"]
    # a word said again at once is babble's (score._babble), counted here once
    assert content_words([["نحكيو", "نحكيو", "نحكيو", "الدار"]], "arabic") == ["نحكيو"]
    latin = [["w", "el", "bab", "wel", "dar", "ena", "n7eb", "lbab"]]
    assert content_words(latin, "arabizi") == ["bab", "dar", "n7eb"]


@settings(deadline=None, derandomize=True, max_examples=60)
@given(poem=st.sampled_from(sample_poems()), pool=st.integers(3, 8), seed=st.integers(0, 10**6))
def test_words_redrawn_from_a_handful_score_at_most_zero(
    poem: tuple[str, str, dict[str, str]], pool: int, seed: int
) -> None:
    """Every content word of a sample (the rhyme words kept) redrawn from `pool` of its own content
    words: each comes back over and over, and the poem scores at most 0 whatever else it keeps."""
    name, text, refs = poem
    segments, script = _segments(text)
    own = sorted(set(content_words(segments, script)))
    rng = random.Random(seed)
    handful = rng.sample(own, min(pool, len(own)))
    lines = []
    for line in text.split("\n"):
        halves = []
        for half in line.split(" ** "):
            words = half.split()
            body = [rng.choice(handful) if len(w) > 3 else w for w in words[:-1]]
            halves.append(" ".join([*body, *words[-1:]]))
        lines.append(" ** ".join(halves))
    redrawn = "\n".join(lines)
    segments, _ = _segments(redrawn)
    # a short sample redrawn keeps too few content words to be evidence
    assume(len(content_words(segments, script)) >= 2 * REUSE_MIN_WORDS)
    assert score(redrawn, refs).reward <= 0.0, (name, pool)


def test_the_ramp() -> None:
    """Open up to the ramp's start, shut at its end, linear in between; a short poem is not judged."""
    full, zero = REUSE_RAMP
    assert 0.0 < full < zero < 1.0 and REUSE_MIN_WORDS < REUSE_WINDOW
    few = [["نحب", "نحب", "نحب", "الدار"]] * 1
    assert reuse_gate(few, "arabic") == 1.0
    words = [f"كلمة{i % 5}" for i in range(60)]  # five words, twelve times each
    assert reuse_gate([[*words, "الدار"]], "arabic") == 0.0
