"""What a line's hemistichs hold (docs/scorer.md, principles 5 and 7): hemistichs past a line's two
are read, not skipped (two bayts on one line are the same poem with its line breaks lost, a layout;
a hemistich set before each stanza line is verse the form has no place for), and a hemistich that
says its own words twice is a copy."""

from __future__ import annotations

from batches import each
from test_redteam_rounds import known_misses

from scorer.catalogue import FORMS
from scorer.score import LAYOUT_COST, SELF_RUN, score
from tests.corpus import round_cases, samples

GENUINE = 0.8
MISSED = known_misses()
PAID = samples() + [case for case in round_cases("genuine") if case[0] not in MISSED]
"""The genuine poems the scorer pays (>= GENUINE): every sample, and every round's genuine poem but
its known misses (tests/test_redteam_rounds.py holds the file to the rewards)."""
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


def _said_twice(line: str, tail: bool) -> str:
    """Each hemistich of a line followed by itself again, or by its words after the first (a tail
    echoed)."""
    halves = line.split(" ** ")
    return " ** ".join(f"{h} {' '.join(h.split()[1:]) if tail else h}" for h in halves)


LONG_HEMISTICHS = [
    case
    for case in PAID
    if not any(mark in case[1] for mark in ("   ", "\t", " / ", " - ", "،"))
    and all(len(h.split()) > SELF_RUN for ln in case[1].split("\n") if ln.strip() for h in ln.split(" ** "))
]
"""Poems in the asked layout (no other caesura mark) whose every hemistich has more than SELF_RUN
words: their tails, echoed, are runs of SELF_RUN."""


def test_the_corpus_has_poems_of_long_hemistichs() -> None:
    assert len(LONG_HEMISTICHS) >= 100


@each("name, text, refs", LONG_HEMISTICHS)
def test_a_hemistich_said_twice_on_itself_is_a_copy(name: str, text: str, refs: dict[str, str]) -> None:
    """Every hemistich followed by itself, or by its own words but the first: a run of SELF_RUN words
    comes twice inside it, so it is a copy of itself as a hemistich said again is, and the poem is
    paid at most 0 (it paid its base: repetition was read across hemistichs only)."""
    for tail in (False, True):
        doubled = "\n".join(_said_twice(ln, tail) if ln.strip() else ln for ln in text.split("\n"))
        assert _reward(doubled, refs) <= 0.0, (name, tail)


def test_no_genuine_hemistich_repeats_a_run_of_self_run_words() -> None:
    """The rule's premise, on the corpus it is held to: honest hemistichs repeat at most three
    words ("w fik el ... w fik el"), so none of them reads as a copy of itself."""
    runs = 0
    for _, text, _ in PAID:
        for ln in text.split("\n"):
            for h in ln.split(" ** "):
                words = h.split()
                grams = [tuple(words[i : i + SELF_RUN]) for i in range(len(words) - SELF_RUN + 1)]
                runs += len(grams) - len(set(grams))
    assert runs == 0
