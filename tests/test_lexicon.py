"""The scorer's lexicon (scorer/lexicon.py): reproducible files, digits are no words, random
strings rarely pass, and poems it was not built from are read as language."""

from __future__ import annotations

import random
import re
from pathlib import Path

from bench.bench_lexicon import corpus_tokens, random_letters, random_syllables
from bench.bench_lexicon import coverage as corpus_coverage
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


# Measured (bench/bench_lexicon.py): 96 % of the development half's tokens, 90 % of the held-out
# half's; random letters 1.3 %, random syllables 12 %. The floors sit a little under.
CORPUS_FLOOR = {"dev": 0.93, "heldout": 0.87}


def test_real_arabizi_as_typed_online_is_language() -> None:
    """Comments and chats of bench/data/arabizi (French/English set aside): the held-out half was
    not looked at while the core was grown."""
    for split, floor in CORPUS_FLOOR.items():
        tokens, _distinct = corpus_coverage(corpus_tokens(split))
        assert tokens >= floor, f"{split}: {tokens:.3f} < {floor}: grow scorer/lexicon/arabizi_core.txt"


def test_random_strings_stay_out_of_arabizi() -> None:
    """The bench's negative sets (seeded): random letters ≤ 2 %, random syllables ≤ 15 %."""
    for strings, ceiling in ((random_letters(), 0.02), (random_syllables(), 0.15)):
        assert sum(map(lexicon.is_arabizi_word, strings)) / len(strings) <= ceiling


def test_vowelless_and_digit_spellings_are_the_words_they_are() -> None:
    """Frequent unknowns of a real Tunisian Arabizi corpus, and spelling variants of one word."""
    real = "wlh haja feha 3lik 3lih mch tounsi mara flous akther s7i7 hata"
    assert all(lexicon.is_arabizi_word(w) for w in real.split()), real
    for group in (
        "wallah wallahi wlh",
        "mouch mch mech moch",
        "3lik alik 3alik",
        "s7i7 sahih sa7i7",
        "9ahwa kahwa gahwa qahwa",
        "sa7bi sahbi",
        "5ouya khouya",
        "nkhalsou n5alsou nkhallsou",
        "yetbaddel yetbadel ytbaddel",
    ):
        assert all(lexicon.is_arabizi_word(w) for w in group.split()), group


def test_a_loose_match_needs_length_or_a_digit() -> None:
    """The loose key (h for 7, k for 9, ...) is not tried on a short token without a digit: short
    loose matches are what random syllables make. ``hlib`` and ``hout`` have the loose form of
    listed words (7lib, 7out) and stay unknown; five letters (``sahbi``) or a digit pass."""
    for w in ("hlib", "hout"):
        assert lexicon.loose_form(lexicon.arabizi_lookup_form(w)) in lexicon.loose_variants(), w
        assert not lexicon.is_arabizi_word(w), w
    assert lexicon.is_arabizi_word("sahbi") and lexicon.is_arabizi_word("s7i7")
