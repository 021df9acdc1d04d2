"""A line holds at most one bayt (docs/scorer.md, "Lines"): hemistichs past a line's two are read,
not skipped. Two bayts on one line are the same poem with its line breaks lost (a layout); a
hemistich set before each stanza line is verse the form has no place for."""

from __future__ import annotations

from batches import each

from scorer.catalogue import FORMS
from scorer.score import LAYOUT_COST, score
from tests.corpus import round_cases, samples

GENUINE = 0.8
PAID = [case for case in samples() + round_cases("genuine") if score(case[1], case[2]).reward >= GENUINE]
BAYTS = [
    case
    for case in PAID
    if FORMS[case[2]["form"]].kind == "bayt" and all(" ** " in ln for ln in case[1].split("\n"))
]
"""Bayt poems in the asked layout (a soft caesura, ` / `, is another layout: joined by ` ** ` it
would be a line of two soft-parted hemistichs)."""
STROPHIC = [
    case
    for case in PAID
    if FORMS[case[2]["form"]].kind == "strophic"
    and not any("**" in ln for block in case[1].split("\n\n")[1:] for ln in block.split("\n"))
]
DONORS = [ln.split(" ** ")[0] for _, text, refs in BAYTS for ln in text.split("\n") if " ** " in ln]
"""First hemistichs of the corpus's bayts: verse of other poems."""


def _reward(text: str, refs: dict[str, str]) -> float:
    return score(text, refs).reward


@each("name, text, refs", BAYTS)
def test_two_bayts_on_one_line_are_two_bayts_in_another_layout(
    name: str, text: str, refs: dict[str, str]
) -> None:
    """Each pair of bayts joined by ` ** ` on one line keeps the poem's bayt count and rhymes: it
    pays at most the poem and is charged as a layout (it paid the poem whole, every other bayt unread)."""
    lines = text.split("\n")
    joined = [" ** ".join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
    got = score("\n".join(joined), refs)
    assert got.subscores["layout"] == LAYOUT_COST, name
    assert got.reward <= _reward(text, refs), name
    assert got.reward >= GENUINE * LAYOUT_COST - 0.2, (name, got.reward)


def test_the_corpus_has_poems_of_both_kinds() -> None:
    assert len(BAYTS) >= 100 and len(STROPHIC) >= 200 and len(DONORS) >= 200


@each("name, text, refs", STROPHIC)
def test_a_hemistich_set_before_each_stanza_line_is_not_paid(
    name: str, text: str, refs: dict[str, str]
) -> None:
    """Every stanza line prefixed by another poem's hemistich and ` ** ` (the poem doubled): the
    prefixed hemistichs are segments of the stanza, off its rhyme and past its size, so the reward
    is at most 0 (it was the poem's, the first hemistichs unread)."""
    blocks = text.split("\n\n")
    start = 1 if FORMS[refs["form"]].opening else 0
    k = 0
    out = blocks[:start]
    for block in blocks[start:]:
        lines = []
        for ln in block.split("\n"):
            lines.append(f"{DONORS[(k + len(name)) % len(DONORS)]} ** {ln}")
            k += 1
        out.append("\n".join(lines))
    assert _reward("\n\n".join(out), refs) <= 0.0, name
