"""A reused rhyme word (īṭāʾ) costs ITA_NEAR within the window for the first two reuses and twice that
from the third (issue 18, round 10: a gsim whose first-half rhyme is one word in every bayt scored
0.30 as a "rhyme"): one word as every rhyme is no rhyme, and scores at most 0."""

from __future__ import annotations

import pytest
from corpus import SAMPLES
from sample_poems import sample_poems

from scorer.score import ITA_NEAR, score

CASES = sample_poems()
IDS = [name for name, _, _ in CASES]


def _reward(text: str, refs: dict[str, str]) -> float:
    return score({"parts": [{"text": text}]}, refs).reward


def _first_halves_one_word(text: str) -> str:
    """Every bayt's first half ends on the first bayt's first-half word (the gsim's inner rhyme)."""
    out, word = [], None
    for line in text.split("\n"):
        if "**" in line:
            head, tail = line.split("**", 1)
            words = head.split()
            word = word or words[-1]
            line = " ".join([*words[:-1], word]) + " **" + tail
        out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize(("name", "text", "refs"), CASES, ids=IDS)
def test_one_word_at_every_line_end_scores_at_most_zero(name: str, text: str, refs: dict[str, str]) -> None:
    lines = text.split("\n")
    ends = [ln.rstrip().split(" ")[-1] for ln in lines if ln.strip()]
    one = "\n".join(" ".join([*ln.rstrip().split(" ")[:-1], ends[0]]) if ln.strip() else ln for ln in lines)
    assert _reward(text, refs) >= 0.8
    assert _reward(one, refs) <= 0.0


@pytest.mark.parametrize("script", ["arabic", "arabizi"])
def test_a_gsim_whose_inner_rhyme_is_one_word_scores_at_most_zero(script: str) -> None:
    folder = SAMPLES / "arabizi" if script == "arabizi" else SAMPLES
    text = (folder / "gsim.txt").read_text(encoding="utf-8")
    refs = {"form": "gsim", "script": script}
    assert "**" in text and _reward(text, refs) >= 0.8
    assert _reward(_first_halves_one_word(text), refs) <= 0.0


def test_the_first_two_reuses_keep_their_price() -> None:
    """Two reuses within the window cost 2 × ITA_NEAR of q (4 × of the reward), a third three more."""
    refs = {"form": "gsim", "script": "arabic"}
    lines = (SAMPLES / "gsim.txt").read_text(encoding="utf-8").split("\n")
    body = [i for i, ln in enumerate(lines) if "**" in ln]
    first = lines[body[0]].split("**", 1)[0].split()[-1]

    def reused(k: int) -> float:
        out = list(lines)
        for i in body[1 : k + 1]:
            head, tail = out[i].split("**", 1)
            out[i] = " ".join([*head.split()[:-1], first]) + " **" + tail
        return score("\n".join(out), refs).subscores.get("p_ita", 0.0)

    assert reused(1) == pytest.approx(ITA_NEAR)
    assert reused(2) == pytest.approx(2 * ITA_NEAR)
    assert reused(3) == pytest.approx(4 * ITA_NEAR)
