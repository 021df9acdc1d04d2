"""The scorer's lexicon (scorer/lexicon.py): reproducible files, digits are no words, random
strings rarely pass, and poems it was not built from are read as language."""

from __future__ import annotations

import random
import re
from pathlib import Path

from redteam import random_arabic, random_latin
from scorer import build_lexicon, lexicon
from scorer.arabic import normalize_arabic
from scorer.score import score

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"

# Written for this test after the lexicon (not one of its sources): the train to the south, a mugef
# in Tunisian Arabizi.
HELD_OUT_ARABIZI = """rkebt ettran m3a el fjer
w galbi ystanna fi sbar
w el ghorba tokwi kif el jamr
w ana nemchi lel jnoub

chouft ennakhl mel chebbak
w tfakkart ommi w bouk
w 9olt ya rabbi 9addak
tjma3na w tfarraj el 9loub

el wed yabes w ma fih ma
w essma sfar w zar9a
w ennas t5dem fel wa7a
w ta7t echams t7ell edhnoub
"""


def test_lexicon_files_are_reproducible(tmp_path: Path) -> None:
    assert build_lexicon.main(["--out", str(tmp_path)]) == 0
    for f in (lexicon.ARABIC_FILE, lexicon.ARABIZI_FILE):
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), (
            f"{f.name}: run python -m scorer.build_lexicon"
        )


def test_digits_are_not_words() -> None:
    for w in ("101", "2024", "٣٤", "0"):
        assert not lexicon.is_arabic_word(normalize_arabic(w)) and not lexicon.is_arabizi_word(w)
    assert lexicon.is_arabizi_word("3la") and lexicon.is_arabizi_word("7ob")  # digits as letters


def test_random_strings_rarely_pass() -> None:
    rng = random.Random(11)
    ar = [random_arabic(rng) for _ in range(2000)]
    lat = [random_latin(rng) for _ in range(2000)]
    assert sum(map(lexicon.is_arabic_word, ar)) / len(ar) < 0.2
    assert sum(map(lexicon.is_arabizi_word, lat)) / len(lat) < 0.2


def test_clitics_and_suffixes_are_stripped() -> None:
    for w in ("والبحر", "بالدار", "قلبي", "نحكيلك", "وخليتونا", "ڨلبي"):
        assert lexicon.is_arabic_word(normalize_arabic(w)), w
    for w in ("wel b7ar", "bel dar", "galbi", "chajret", "nektbou"):
        assert all(lexicon.is_arabizi_word(x) for x in w.split()), w


def coverage(text: str, arabizi: bool) -> float:
    words = re.findall(r"[^\W_]+", normalize_arabic(text))
    return sum(lexicon.is_word(w, arabizi) for w in words) / len(words)


def test_every_sample_poem_is_language() -> None:
    for path in sorted(SAMPLES.glob("*.txt")):
        assert coverage(path.read_text(encoding="utf-8"), False) == 1.0, path
    for path in sorted((SAMPLES / "arabizi").glob("*.txt")):
        assert coverage(path.read_text(encoding="utf-8"), True) == 1.0, path


def test_a_poem_the_lexicon_was_not_built_from_is_language() -> None:
    """Arabizi has no public lexicon: the curated core must still carry an unseen poem. Unknown
    words are tolerated (a line is full language from 75 % known words)."""
    assert coverage(HELD_OUT_ARABIZI, True) >= 0.8
    s = score(HELD_OUT_ARABIZI, {"form": "mugef", "script": "arabizi", "stanzas": "3"})
    assert s.subscores["language"] >= 0.9, s
