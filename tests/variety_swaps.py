"""Shared by the variety properties (tests/test_variety_foreign.py, tests/test_variety_msa.py): the
sample poems with their rewards, and another variety's words swapped into a poem's body without
touching its rhyme words or its Tunisian evidence, so that only the swapped words can move it."""

from __future__ import annotations

import random
import re
from pathlib import Path

from scorer.arabic import normalize_arabic
from scorer.score import score
from scorer.variety import DERJA, PRONOUN_I, Variety, detect, word_vote

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
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


def samples() -> list[tuple[str, str, dict[str, str], float]]:
    """(name, text, references, reward) of every sample poem, both scripts."""
    out = []
    for path in sorted(SAMPLES.glob("*.txt")) + sorted((SAMPLES / "arabizi").glob("*.txt")):
        script = "arabizi" if path.parent.name == "arabizi" else "arabic"
        refs = {"form": path.stem, "script": script}
        text = path.read_text(encoding="utf-8")
        out.append((f"{script}/{path.stem}", text, refs, reward(text, refs)))
    return out


def detect_text(text: str, script: str, raw: bool = False) -> Variety:
    """The variety of a text's words; ``raw``: with the text before folding (MSA's أ- first person)."""
    ws = WORD.findall(text if script == "arabizi" else normalize_arabic(text))
    return detect(ws, script, text) if raw else detect(ws, script)
