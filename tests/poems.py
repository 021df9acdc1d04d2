"""Poem edits the scorer tests share: a poem's stanzas and back, and an honest imperfect poem (the
correct sample with two rhyme defects) that every hack must score below (tests/test_scorer_core.py,
tests/test_redteam.py)."""

from __future__ import annotations

from scorer.catalogue import FORMS


def stanzas_of(text: str) -> list[list[str]]:
    return [b.split("\n") for b in text.strip().split("\n\n")]


def join(blocks: list[list[str]]) -> str:
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"


def two_defects(form: str, text: str) -> str:
    """An honest imperfect poem: the correct sample with two rhyme defects."""
    if FORMS[form].kind == "bayt":
        lines = text.strip().split("\n")
        for i, end in ((3, "الصبر"), (6, "القمر")):
            first, _ = lines[i].split(" ** ")
            lines[i] = f"{first} ** وما بقى في الدنيا كان {end}"
        return "\n".join(lines) + "\n"
    b = stanzas_of(text)
    off = 1 if FORMS[form].opening else 0  # the malzuma's opening block; its stanzas end on the refrain
    close = -2 if FORMS[form].refrain != "none" else -1
    b[off + 1][0] = b[off + 1][0].rsplit(" ", 1)[0] + " برشا"  # a stanza line off its rhyme
    b[off + 2][close] = b[off + 2][close].rsplit(" ", 1)[0] + " الحطب"  # a closing line off the main rhyme
    return join(b)
