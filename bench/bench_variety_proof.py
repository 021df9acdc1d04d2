"""How far the Latin classifier's Tunisian reading goes on Arabizi with no Tunisian marker.

A marker-free Arabizi poem is proven Derja when the classifier's Tunisian reading reaches
``scorer.variety.PROVEN_SHARE`` of the other readings together. This prints that share's percentiles
for pseudo-poems of 80 words drawn (seeded) from the held-out lines of each Arabizi corpus
(``bench/build_variety_model.py``: one line in five, never trained on), keeping those without a
Tunisian marker: the foreign varieties' side of the threshold. The honest side is the rounds'
marker-free genuine poems (docs/scorer.md, "Varieties").

Needs the corpora's mirrors (``build_variety_model.MIRROR``); without them it says so and stops.
Figures only.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import build_variety_model  # noqa: E402

from scorer.variety import DERJA, PROVEN_SHARE, detect, word_vote  # noqa: E402

WORDS = 80
DRAWS = 5000
KEEP = 300
SEED = 5
_WORD = re.compile(r"[\w']+")


def _tunisian_marker(word: str) -> bool:
    return any(v == DERJA for v, _ in word_vote(word, "arabizi"))


def shares(lines: list[str], rng: random.Random) -> list[float]:
    """The Tunisian reading over the others' for marker-free pseudo-poems of WORDS words."""
    out: list[float] = []
    for _ in range(DRAWS):
        words: list[str] = []
        while len(words) < WORDS:
            words += _WORD.findall(rng.choice(lines).lower())
        if any(map(_tunisian_marker, words)):
            continue
        read = detect(words, "arabizi").read
        if read:
            others = sum(read.values()) - read[DERJA]
            out.append(read[DERJA] / others if others else float("inf"))
        if len(out) == KEEP:
            break
    return sorted(out)


def main() -> int:
    if not build_variety_model.MIRROR.exists():
        print(f"the corpora's mirrors are not at {build_variety_model.MIRROR}: nothing to measure")
        return 0
    held = build_variety_model.heldout("arabizi")
    rng = random.Random(SEED)
    print(
        f"Tunisian reading over the others, marker-free {WORDS}-word pseudo-poems"
        f" (PROVEN_SHARE {PROVEN_SHARE})"
    )
    for variety in ("algerian", "moroccan", "tunisian"):
        got = shares(held[variety], rng)
        if not got:
            print(f"  {variety:9s}: no marker-free draw in {DRAWS}")
            continue
        q = [got[int(p * (len(got) - 1))] for p in (0.05, 0.5, 0.95)]
        over = sum(s >= PROVEN_SHARE for s in got) / len(got)
        print(
            f"  {variety:9s}: {len(got):3d} drawn, p5 {q[0]:.2f}, median {q[1]:.2f}, p95 {q[2]:.2f};"
            f" proven {over:.1%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
