"""Other Arabic varieties in Arabizi (issue 18, principle 3, round 9; docs/scorer.md, "Derja, not any
Arabic"): the Mashriq's verb forms and its qaf (scorer/mashriq.py) and the foreign dose's count of a
word only rival dialects say. A Tunisian Arabizi poem rewritten the Egyptian way scores at most 0;
real Tunisian Arabizi (TArC, the rounds' honest poems, the samples) never carries two such forms."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from corpus import samples as poems
from hypothesis import given, settings
from hypothesis import strategies as st
from variety_swaps import WORD, east_rewrites, reward, rewrite, samples

from bench.redteam_rounds import load
from scorer.mashriq import EAST, east_form
from scorer.variety import DERJA, FOREIGN_DOSE, detect, word_vote

ROOT = Path(__file__).resolve().parent.parent
EPSILON = 1e-9
LATIN = [s for s in poems() if s[2]["script"] == "arabizi"]
REWRITABLE = [s for s in LATIN if len(east_rewrites(s[1])) >= FOREIGN_DOSE["arabizi"][1]]


def _tarc_sentences() -> list[list[str]]:
    out: list[list[str]] = []
    for name in ("dev", "heldout"):
        cur: list[str] = []
        path = ROOT / "bench" / "data" / "tarc" / f"{name}.tsv"
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    out.append(cur)
                cur = []
            else:
                cur.append(line.split("\t")[0])
        if cur:
            out.append(cur)
    return out


def _east(words: list[str]) -> set[str]:
    return {w.lower() for w in words if word_vote(w, "arabizi") == tuple((v, 0.5) for v in EAST)}


@pytest.mark.parametrize(
    "word",
    ["bakteb", "baghanni", "bamshi", "bya3ref", "bted7ak", "bet2akkar", "mabye3rafsh", "2albi", "wa2t"],
)
def test_mashriq_forms_vote_east(word: str) -> None:
    assert east_form(word.lower()), word
    assert word_vote(word, "arabizi") == (("egyptian", 0.5), ("levantine", 0.5)), word


@pytest.mark.parametrize(
    "word", ["barcha", "bahi", "bahr", "bnefsi", "byedi", "bessalem", "bel7a9", "nes2el", "mab9ach", "2eme"]
)
def test_tunisian_words_of_the_same_shape_do_not(word: str) -> None:
    """b + a noun, ba- nouns, a real hamza (nes2el: its 9 spelling is no word), Tunisian ma…ch."""
    assert all(v == DERJA for v, _ in word_vote(word, "arabizi")) or not word_vote(word, "arabizi"), word


def test_real_tunisian_arabizi_never_carries_two_forms() -> None:
    """TArC's real sentences (bench/data/tarc), every honest Arabizi poem of the rounds and the
    samples: at most one distinct Mashriq form each, so the foreign dose never moves on them."""
    for words in _tarc_sentences():
        assert len(_east(words)) <= 1, words
    for case in load():
        if case.tier in ("genuine", "harmless", "imperfect") and case.references.get("script") == "arabizi":
            assert len(_east(WORD.findall(case.text))) <= 1, case.id
    for name, text, _ in LATIN:
        assert len(_east(WORD.findall(text))) <= 1, name


def test_a_word_only_rival_dialects_say_counts_whole_for_each() -> None:
    """zouina, bezzaf, ndir are Moroccan and Algerian (split in the share): three of them past a
    poem's Derja markers zero the gate, as three Moroccan-only words would; French le (French and
    Maltese) stays half."""
    base = ["barcha", "tawa", "nestanna", "hedha", "mte3"]
    got = detect([*base, "zouina", "bezzaf", "ndir"], "arabizi")
    assert got.foreign == 3.0 and got.foreign_gate == 0.0, got
    assert detect([*base, "le"], "arabizi").foreign == 0.5


@pytest.mark.skipif(not REWRITABLE, reason="no Arabizi sample has three rewritable words")
@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 10_000))
def test_egyptian_rewrite_of_a_genuine_poem_scores_at_most_zero(data: st.DataObject, seed: int) -> None:
    """Property (round 9): k of a genuine Arabizi poem's own words rewritten the Mashriq's way (n- to
    ba-, 9 to 2), its Derja markers and rhyme words kept, never raise its reward; from FOREIGN_DOSE's
    zero on the reward is at most 0."""
    name, text, refs = data.draw(st.sampled_from(REWRITABLE))
    plain = next(r for n, _, _, r in samples() if n == name)
    pairs = east_rewrites(text)
    k = data.draw(st.integers(1, len(pairs)))
    out = rewrite(text, random.Random(seed).sample(pairs, k))
    got = reward(out, refs)
    assert got <= plain + EPSILON, (name, k, plain, got)
    if k >= FOREIGN_DOSE["arabizi"][1]:
        assert got <= 0.0, (name, k, plain, got, out[:300])


GULF_ARABIZI = (
    "ya 7abibi wainak al7in wesh 9ar feek ** shlon 5alaitni b roo7i ma tis2al 3anni\n"
    "3ind el dareesha anti6rik kil misa ** tara el shoog thaba7ni w inta b3eed 3anni\n"
    "kint abeek akthar min 3yooni ** wayed 9ibart w madri wesh asawi"
)
"""The Arabic-script Gulf poem of tests/test_variety.py, typed the Gulf way (r9-063's kind)."""


def test_gulf_arabizi_reads_as_gulf_past_the_dose() -> None:
    """Round 9's Gulf Arabizi (wayed, feech, ahebbech) read as Derja through its -ech words: Gulf
    has a Latin list now, and a Gulf poem is named Gulf with the foreign gate at 0."""
    got = detect(WORD.findall(GULF_ARABIZI), "arabizi")
    assert got.variety == "gulf" and got.foreign_gate == 0.0, got
    assert word_vote("ahebbech", "arabizi") == (("gulf", 1.0),)
