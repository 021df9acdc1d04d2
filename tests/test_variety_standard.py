"""MSA written around the markers is still MSA (issue 34, principle 4; docs/scorer.md, "Arabic
script: the words as a whole"): the `standard` factor reads every word of an Arabic-script poem
with the variety classifier (`scorer.score.standard_margin`: `scorer.ngrams.Model.ratios` against
MSA), so an MSA poem with one or two Derja words (باش, برشة) scores at most 0, while genuine Derja
poems keep the factor whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_redteam_rounds import known_misses

from bench.redteam_rounds import Case, load
from scorer import ngrams
from scorer.score import STANDARD_FLOOR, STANDARD_RAMP, Score, score, standard_margin
from scorer.text import parse_poem

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "data" / "varieties" / "arabic"
MODEL = ngrams.load("arabic")


def _words(text: str) -> list[str]:
    return [w for ln in parse_poem(text).lines for w in ln.words]


def _score(case: Case) -> Score:
    return score({"parts": list(case.parts) or [{"text": case.text}]}, case.references)


def _bench_margins(variety: str) -> list[float]:
    texts = [b for b in (BENCH / f"{variety}.txt").read_text(encoding="utf-8").split("\n\n") if b.strip()]
    return [standard_margin(_words(t)) for t in texts]


def test_margin_reads_each_distinct_word_once_and_clips_it() -> None:
    """A word said again is one word, no word counts more than MARGIN_CLIP nats, and nouns with the
    article are not read: برشا alone is at the clip, ten MSA words with it pull the mean under 0, and
    the same words with the article's nouns added read the same."""
    assert MODEL is not None
    msa_column = MODEL.varieties.index("msa")
    assert standard_margin([]) == 0.0
    assert standard_margin(["برشا"]) == ngrams.MARGIN_CLIP
    msa = _words("سوف يأتي الذي كان ينتظر وهو ليس هنا لكنه سيعود")
    once = standard_margin([*msa, "برشا"])
    assert once == standard_margin([*msa, "برشا", "برشا", *msa])
    assert once < 0.0
    distinct = list(dict.fromkeys(msa))
    terms = [MODEL.ratios[w][msa_column] for w in distinct]
    assert all(abs(t) <= ngrams.MARGIN_CLIP for t in terms)
    assert once == pytest.approx((sum(terms) + ngrams.MARGIN_CLIP) / (len(distinct) + 1))
    assert standard_margin([*msa, "برشا", "القمر", "والياسمين", "بالليل"]) == once


def test_written_msa_reads_as_msa_and_derja_as_derja() -> None:
    """The measurement corpus written for the project (bench/data/varieties, never trained on):
    most MSA texts are under the ramp's zero, nearly every Derja text at its full."""
    zero, full = STANDARD_RAMP
    msa = _bench_margins("msa")
    derja = _bench_margins("tunisian")
    assert sum(m < zero for m in msa) >= 4 * len(msa) // 5, sorted(msa)
    assert sum(m >= full for m in derja) >= len(derja) - 3, sorted(derja)


def test_genuine_arabic_poems_keep_the_factor_whole() -> None:
    """Every genuine Arabic-script poem of the rounds that holds its tier reads as Derja enough."""
    listed = known_misses()
    cases = [c for c in load() if c.tier == "genuine" and c.references.get("script") == "arabic"]
    assert len(cases) > 300
    low = [
        (c.id, s.subscores["standard"])
        for c in cases
        if c.id not in listed and (s := _score(c)).subscores["standard"] < 1.0
    ]
    assert not low, low


@pytest.mark.parametrize("case_id", ["r12-016", "r19-126", "r26-068", "r26-074"])
def test_msa_with_derja_words_pays_nothing(case_id: str) -> None:
    """MSA poems with one or two Derja words, which the marker votes read as Derja: held by the
    words as a whole (the factor at its floor), whatever their form."""
    case = next(c for c in load() if c.id == case_id)
    s = _score(case)
    assert s.subscores["variety"] >= 0.9, s.subscores
    assert s.subscores["standard"] == STANDARD_FLOOR, s.subscores
    assert s.reward <= 0.0


def test_arabizi_is_not_read_against_msa() -> None:
    """The Latin-script model holds no MSA: an Arabizi poem's factor is 1."""
    case = next(c for c in load() if c.tier == "genuine" and c.references.get("script") == "arabizi")
    assert _score(case).subscores["standard"] == 1.0
