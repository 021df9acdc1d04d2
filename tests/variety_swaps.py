"""Shared by the variety properties (tests/test_variety_foreign.py, tests/test_variety_msa.py): the
sample poems with their rewards, and another variety's words swapped into a poem's body without
touching its rhyme words or its Tunisian evidence, so that only the swapped words can move it."""

from __future__ import annotations

import functools
import random
import re

from corpus import samples as corpus_samples

from scorer.arabic import normalize_arabic
from scorer.mashriq import east_form
from scorer.score import score
from scorer.variety import DERJA, PRONOUN_I, Variety, detect, word_vote

WORD = re.compile(r"[^\W_]+")


def reward(text: str, refs: dict[str, str]) -> float:
    return score({"parts": [{"text": text}]}, refs).reward


def is_derja(word: str, script: str) -> bool:
    """A word that votes for Derja, or the pronoun of the pronoun + n- pair: kept, so the poem
    keeps all its Tunisian evidence."""
    low = normalize_arabic(word) if script == "arabic" else word.lower()
    return low in PRONOUN_I[script] or any(v == DERJA for v, _ in word_vote(word, script))


def swap_in(text: str, script: str, words: list[str], seed: int) -> str:
    """`words` put in place of as many body words (a hemistich's last word, the rhyme, stays; no
    Derja marker is touched), at places the seed picks."""
    lines = [ln.split(" ") for ln in text.split("\n")]
    places = [
        (i, j)
        for i, toks in enumerate(lines)
        for j, tok in enumerate(toks[:-1])
        if WORD.fullmatch(tok) and toks[j + 1] not in ("**", "/") and not is_derja(tok, script)
    ]
    for (i, j), w in zip(random.Random(seed).sample(places, len(words)), words, strict=True):
        lines[i][j] = w
    return "\n".join(" ".join(toks) for toks in lines)


@functools.cache
def samples() -> tuple[tuple[str, str, dict[str, str], float], ...]:
    """The sample poems (`corpus.samples`) with each one's reward: scored on the first call, in a
    test, not at collection (every pytest-xdist worker collects every module)."""
    return tuple((name, text, refs, reward(text, refs)) for name, text, refs in corpus_samples())


def detect_text(text: str, script: str, raw: bool = False) -> Variety:
    """The variety of a text's words; ``raw``: with the text before folding (MSA's أ- first person)."""
    ws = WORD.findall(text if script == "arabizi" else normalize_arabic(text))
    return detect(ws, script, text) if raw else detect(ws, script)


def east_rewrites(text: str) -> list[tuple[str, str]]:
    """Round 9's Egyptian and Levantine rewrite of a Tunisian Arabizi poem, one word at a time: a
    body word (not a hemistich's last, not a Derja marker) that is an n- first person (nekteb, nghanni)
    becomes its ba- form (bakteb, baghanni), and a word with the qaf as 9 or q (9albi, wa9t) its 2
    form (2albi, wa2t), where `scorer.mashriq` reads the result as the Mashriq's. (Tunisian word,
    rewrite) pairs, distinct, in text order."""
    out: dict[str, str] = {}
    for toks in (ln.split(" ") for ln in text.split("\n")):
        for j, tok in enumerate(toks[:-1]):
            if not WORD.fullmatch(tok) or toks[j + 1] in ("**", "/") or is_derja(tok, "arabizi"):
                continue
            low = tok.lower()
            if low[:1] == "n" and low[1:2] not in "aeiou":
                new = "ba" + low[1:]
            elif "9" in low or "q" in low:
                new = low.replace("9", "2").replace("q", "2")
            else:
                continue
            if low not in out and east_form(new) and not is_derja(new, "arabizi"):
                out[low] = new
    return list(out.items())


def rewrite(text: str, pairs: list[tuple[str, str]]) -> str:
    """Every body token spelt as a pair's first word replaced by its second (hemistich ends kept)."""
    swap = dict(pairs)
    lines = []
    for toks in (ln.split(" ") for ln in text.split("\n")):
        last = {len(toks) - 1} | {j for j in range(len(toks) - 1) if toks[j + 1] in ("**", "/")}
        lines.append(" ".join(t if j in last else swap.get(t.lower(), t) for j, t in enumerate(toks)))
    return "\n".join(lines)
