"""The scorer's lexicon (scorer/lexicon.py): reproducible files, digits are no words, random
strings rarely pass, and poems it was not built from are read as language."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bench import build_lexicon
from bench.bench_lexicon import (
    arabic_consonants,
    arabic_three_consonants_ar,
    corpus_tokens,
    corrupted,
    random_letters,
    random_syllables,
    tarc_tokens,
)
from bench.bench_lexicon import coverage as corpus_coverage
from redteam import random_arabic, random_latin
from scorer import lexicon
from scorer.arabic import normalize_arabic
from scorer.score import score
from scorer.text import parse_poem

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


@pytest.mark.slow  # builds both lexicons from wordfreq: over 2 s
def test_lexicon_files_are_reproducible(tmp_path: Path) -> None:
    assert build_lexicon.main(["--out", str(tmp_path)]) == 0
    for f in (lexicon.ARABIC_FILE, lexicon.ARABIZI_FILE):
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), (
            f"{f.name}: run python bench/build_lexicon.py"
        )


def test_digits_are_not_words() -> None:
    for w in ("101", "2024", "٣٤", "0"):
        assert not lexicon.is_arabic_word(normalize_arabic(w)) and not lexicon.is_arabizi_word(w)
    assert lexicon.is_arabizi_word("3la") and lexicon.is_arabizi_word("7ob")  # digits as letters


def test_random_strings_rarely_pass() -> None:
    rng = random.Random(11)
    ar = [random_arabic(rng) for _ in range(2000)]
    lat = [random_latin(rng) for _ in range(2000)]
    assert sum(map(lexicon.is_arabic_word, ar)) / len(ar) < 0.12
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


# Measured (bench/bench_lexicon.py): 97 % of the development half's tokens, 95 % of the held-out
# half's; on TArC (real Arabizi by other writers) 92 % of the dev half's tokens and 82.6 % of the
# held-out posts' (issue 18 asks for 80 %; 83.6 % with h for 7); random letters 1.8 %, random
# syllables 14.1 %. The floors sit a little under.
CORPUS_FLOOR = {"dev": 0.95, "heldout": 0.92}
TARC_FLOOR = {"dev": 0.90, "heldout": 0.80}


def test_real_arabizi_as_typed_online_is_language() -> None:
    """Comments and chats of bench/data/arabizi (French/English set aside): the held-out half was
    not looked at while the core was grown."""
    for split, floor in CORPUS_FLOOR.items():
        tokens, _distinct = corpus_coverage(corpus_tokens(split))
        assert tokens >= floor, f"{split}: {tokens:.3f} < {floor}: grow scorer/lexicon/arabizi_core.txt"


def test_real_arabizi_by_other_writers_is_language() -> None:
    """TArC (bench/data/tarc, real Tunisian Arabizi from forums, social networks, blogs and rap,
    CC BY 4.0): the held-out posts were not read when the corpus words were chosen."""
    for split, floor in TARC_FLOOR.items():
        tokens, _distinct = corpus_coverage(tarc_tokens(split))
        assert tokens >= floor, f"TArC {split}: {tokens:.3f} < {floor}: see bench/derive_tarc.py"


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
    loose matches are what random syllables make. ``klib`` and ``kamr`` have the loose form of
    listed words (9lib, 9amr) and stay unknown; five letters (``sahbi``) or a digit pass. ح spelled
    h is the one exact variant (``_H_FOR_7``): ``hlib`` and ``hout`` are 7lib and 7out."""
    for w in ("klib", "kamr", "hlib", "hout"):
        assert lexicon.loose_form(lexicon.arabizi_lookup_form(w)) in lexicon.loose_variants(), w
        assert lexicon.is_arabizi_word(w) == w.startswith("h"), w
    assert lexicon.is_arabizi_word("sahbi") and lexicon.is_arabizi_word("s7i7")


def test_common_derja_of_a_fresh_attackers_poems_is_language() -> None:
    """Everyday words a genuine Arabizi poem by another writer used, unknown to the first core."""
    words = (
        "nar lin bir sidi safi 7ali cafe 9amra chehi hamm sirr tkoun fet nfakker ommek 7ouch tfou7"
        " n9ollek 9otelha t3ajjen mnira kbert ma3rouf zor9 khadhra dhlam nsafer mahr michwar zghared"
    )
    assert [w for w in words.split() if not lexicon.is_arabizi_word(w)] == []


def test_a_hyphenated_article_is_part_of_its_word() -> None:
    """``ed-dar`` is one word (eddar), not a piece ``ed`` and a word; Arabic script is split as before."""
    poem = parse_poem("ed-dar w es-sghir fi ej-jbel ** en-nar wez-zghared wet-tabbal\nEch-Chams w el-bab")
    words = [w for line in poem.lines for w in line.words]
    assert words[:5] == ["ed-dar", "w", "es-sghir", "fi", "ej-jbel"], words
    assert "wez-zghared" in words and "Ech-Chams" in words and "el-bab" in words, words
    assert all(lexicon.is_arabizi_word(w) for w in words), words
    assert [w for line in parse_poem("ed-bar es-dar").lines for w in line.words] == ["ed", "bar", "es", "dar"]
    assert [w for line in parse_poem("القلب-الدار").lines for w in line.words] == ["القلب", "الدار"]


def test_the_word_after_a_proclitic_and_its_article_is_looked_up() -> None:
    """``fen-nhar`` (in the day), ``bet-t3am`` (with the food), ``bes-skina`` (in peace): a proclitic and
    the assimilated article before a listed word, which the fold alone turns into no listed stem
    (fanhar); the word after the hyphen is what is looked up, so an unknown one stays unknown."""
    for word in ("fen-nhar", "bet-t3am", "bes-skina", "fen-n7as"):
        assert not lexicon.is_arabizi_word(word.replace("-", "")), word  # the fold alone misses it
        assert lexicon.is_arabizi_word(word), word
    assert not lexicon.is_arabizi_word("fen-nxqz") and not lexicon.is_arabizi_word("wel-qrtzb")


# Measured (bench/bench_lexicon.py): 4.9 % of the 5,832 three-consonant strings ending in ار pass
# (283: clitic + listed common stem 138, listed whole 67, verb prefixes 78), 2.2 % of random
# 4–6-letter consonant strings; 33 % of Arabic-script and 30 % of Arabizi sample words with one letter
# changed (12 % and 6 % are listed words themselves). The ceilings sit a little over.
AR_RANDOM_CEILING = {"three consonants + ار": 0.06, "random consonants": 0.03}
CORRUPTED_CEILING = {False: 0.36, True: 0.32}


def test_random_arabic_consonant_strings_rarely_pass() -> None:
    """Gibberish rhyme words (three consonants + ار) and random consonant strings: a stem reached by
    stripping must be a word the clitic, suffix or verb prefix can carry, not any listed string."""
    for (name, ceiling), strings in zip(
        AR_RANDOM_CEILING.items(), (arabic_three_consonants_ar(), arabic_consonants()), strict=True
    ):
        rate = sum(map(lexicon.is_arabic_word, strings)) / len(strings)
        assert rate <= ceiling, f"{name}: {rate:.3f} > {ceiling}"


def test_corrupted_real_words_mostly_fail() -> None:
    """Sample-poem words with one letter changed (a change can make another real word)."""
    for arabizi, ceiling in CORRUPTED_CEILING.items():
        strings = corrupted(arabizi)
        rate = sum(lexicon.is_word(w, arabizi) for w in strings) / len(strings)
        assert rate <= ceiling, f"arabizi={arabizi}: {rate:.3f} > {ceiling}"


# Inflected words of the sample poems and, unseen by the lexicon, of genuine Derja poems by other
# writers: clitics (و, ال, لل, بال), suffixes (-ك, -نا, -ش, -لك, -ها, -و), verb prefixes.
INFLECTED_SAMPLES = (
    "الحومه الذكريات بلادي ترابك جاتنا بعدك نستناك ومشاو ونهديوها ونحرس ونزينو ويخضر تجيبلي نكتبو نفرحو نفديك"
)
INFLECTED_UNSEEN = "نرجعلك تعرفش ونقعد والموج يستناو نتفكرها ونعصرو للغربه وليداتي خطبوها بالحوت"


def test_inflected_forms_are_known_by_their_stems() -> None:
    """Each word is read as clitic + verb prefix + stem + suffixes with a listed stem, whether or not
    the word itself is listed (the sample poems' words are)."""
    for w in f"{INFLECTED_SAMPLES} {INFLECTED_UNSEEN}".split():
        assert lexicon.is_arabic_word(w), w
        assert any(lexicon._arabic_stem_ok(*split) for split in lexicon._arabic_splits(w)), w
    assert not any(w in lexicon.ARABIC for w in INFLECTED_UNSEEN.split())


def test_stripping_composes_only_legitimate_chains() -> None:
    """A listed stem is not enough: the pieces that come off must be ones that word can carry."""
    cases = {
        "النسكان": "سكان",  # the article takes no verb prefix
        "تجهار": "جهار",  # no verb stem is CCāC outside forms VII and VIII
        "بمشار": "مشار",  # a one-letter clitic other than و needs a common stem
        "فعرار": "عرار",
        "كبام": "بام",  # a preposition takes a noun: the list has no البام
        "حبييي": "حبي",  # the same suffix never twice
    }
    for word, stem in cases.items():
        assert stem in lexicon.ARABIC, stem
        assert not lexicon.is_arabic_word(word), word
    assert "مشار" not in lexicon.ARABIC_COMMON and "المشار" in lexicon.ARABIC
    # the article, و on any word, a verb stem with ā in form V passive (تباع), ش after ها after ت
    for w in ("بالمشار", "وجهار", "يتباع", "كتبتهاش"):
        assert w not in lexicon.ARABIC and lexicon.is_arabic_word(w), w
