"""The character n-gram classifier in scorer/variety.py (scorer/ngrams.py): Latin-script votes that
see every word, the clitic check that keeps a Derja word from being read as another variety's
marker behind و/ف, the shadda that keeps لمّ apart from MSA's لم, and the lazy load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.bench_varieties import texts, words
from scorer.score import score
from scorer.variety import DERJA, PROVEN_SHARE, detect, word_vote

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = (ROOT / "data" / "samples" / "malzuma.txt").read_text("utf-8")


def _round_case(case_id: str) -> dict:
    name = f"round{case_id.split('-')[0][1:]}.jsonl"
    for line in (ROOT / "tests" / "redteam_rounds" / name).read_text("utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return case
    raise KeyError(case_id)


def test_import_does_not_load_the_models() -> None:
    """Importing the scorer reads no model; the first Latin-script poem reads the Latin one only."""
    code = (
        "import scorer.variety, scorer.score\nfrom scorer import ngrams\n"
        "print(ngrams.load.cache_info().currsize)\n"
        "scorer.variety.detect(['tawa', 'nemchi', 'lel', 'b7ar'], 'arabizi')\n"
        "print(ngrams.load.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "0" and out[-1] == "1", out


def test_shadda_keeps_lamm_apart_from_msa_lam() -> None:
    """لمّ (gather) in a Derja poem is not MSA's negation لم: the poem reads as without the line's
    لمّ; the same letters without the shadda are MSA's marker."""
    line = "\nنلمّ العايلة ولمّ الشمل في الدار"
    base = detect(words(SAMPLE), "arabic", SAMPLE)
    text = SAMPLE + line
    got = detect(words(text), "arabic", text)
    assert got.variety == DERJA and got.counts["msa"] == base.counts["msa"], got
    assert got.derja >= base.derja - 1e-9
    bare = text.replace("\u0651", "")
    assert detect(words(bare), "arabic", bare).counts["msa"] > base.counts["msa"]


def test_a_derja_word_behind_wa_is_not_another_varietys_marker() -> None:
    """وجوه (faces) is not و + Egyptian جوه (inside): a Derja poem with it reads as without it."""
    base = detect(words(SAMPLE), "arabic", SAMPLE)
    text = SAMPLE + "\nوجوه الناس في الحومة تضحك"
    got = detect(words(text), "arabic", text)
    assert got.variety == DERJA and got.counts["egyptian"] == base.counts["egyptian"], got
    assert detect(["جوه", "الدار"], "arabic").counts["egyptian"] > 0.0  # the marker alone still counts


def test_a_marker_free_genuine_arabizi_poem_is_not_halved() -> None:
    """Round 11's genuine r11-016 has no marker of any variety: the classifier reads its words as
    Derja, so its variety gate stays whole (markers only: 0.5, the UNPROVEN_WORDS halving)."""
    case = _round_case("r11-016")
    got = detect(words(case["text"]), "arabizi", case["text"])
    assert all(m.startswith("~") for m in got.markers), got
    assert got.variety == DERJA and got.counts[DERJA] > 0.0, got
    result = score(case["text"], case["references"])
    assert result.subscores["variety"] >= 0.9 and result.reward >= 0.8, result


# Genuine marker-free Arabizi poems of the rounds whose Tunisian reading is 0.6 to 1 of the others'
# together: the Maghrebi neighbours share their words, so the vote splits.
SPLIT_VOTE = ("r20-030", "r28-040", "r29-020", "r32-031", "r32-033", "r33-043", "r34-032")


@pytest.mark.parametrize("case_id", SPLIT_VOTE)
def test_a_tunisian_reading_that_splits_with_its_neighbours_still_proves_derja(case_id: str) -> None:
    """From PROVEN_SHARE of the other readings together the reading proves the poem Derja: its
    variety gate stays whole and the poem is paid."""
    case = _round_case(case_id)
    got = detect(words(case["text"]), "arabizi", case["text"])
    share = got.read[DERJA] / (sum(got.read.values()) - got.read[DERJA])
    assert PROVEN_SHARE <= share < 1.0 and got.counts[DERJA] > 0.0, (share, got)
    assert score(case["text"], case["references"]).reward >= 0.8


@pytest.mark.parametrize("variety", ["algerian", "moroccan", "levantine"])
def test_neighbouring_arabizi_without_a_tunisian_marker_is_not_proven(variety: str) -> None:
    """bench/data/varieties' texts of the variety four by four (a poem's length): those without a
    Tunisian marker are not proven Derja by the reading (measured at most 0.43 of the others; on the
    corpora's held-out lines, 0.27 and 0.05 at the 95th percentile, bench/bench_variety_proof.py)."""
    blocks = texts("arabizi", variety, "all")
    checked = 0
    for i in range(0, len(blocks) - 3, 4):
        ws = words(" ".join(blocks[i : i + 4]))
        if any(v == DERJA for w in ws for v, _ in word_vote(w, "arabizi")):
            continue
        checked += 1
        assert detect(ws, "arabizi").counts[DERJA] == 0.0, (variety, i)
    assert checked, variety


@pytest.mark.parametrize(("variety", "ceiling"), [("algerian", 2), ("moroccan", 0)])
def test_maghrebi_arabizi_heldout_is_not_read_as_derja(variety: str, ceiling: int) -> None:
    """Held-out Algerian and Moroccan Arabizi texts (bench/data/varieties, 30 each): at most 2 and 0
    read as Derja (measured 2 and 0; on the corpora's held-out fifth, 30-word Algerian texts read
    as Derja fell from 0.42 to 0.00 with the classifier, bench/build_variety_model.py)."""
    got = [detect(words(t), "arabizi").variety for t in texts("arabizi", variety, "heldout")]
    assert got.count(DERJA) <= ceiling, got


def test_latin_reading_is_deterministic_in_word_order() -> None:
    """The reading sums each distinct word's vote once, whatever the order or repetition."""
    ws = words("ya b7ar ya mawjek ghaddar khdhit menni dhaw e-nhar wel galb y7ki bel asrar")
    a, b = detect(ws, "arabizi"), detect(list(reversed(ws)) + ws, "arabizi")
    assert a.read is not None and a.read == pytest.approx(b.read), (a.read, b.read)
