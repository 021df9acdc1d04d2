"""Every red-team round's cases hold at their tier's threshold (bench/redteam_rounds.py, `holds`:
cheats at most 0, genuine poems at least 0.8, ...), except the known misses listed with their reasons
in tests/redteam_rounds/known_misses.tsv. A cheat that reopens fails here; so does a listed case that
now holds, until it leaves the file: the file only shrinks by evidence."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from redteam_rounds import ROUNDS, Case, judge, load  # noqa: E402

KNOWN = ROUNDS / "known_misses.tsv"


def known_misses() -> dict[str, str]:
    """id: reason, from the known-misses file (comment lines start with #)."""
    out = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            case_id, _reward, reason = line.split("\t")
            out[case_id] = reason
    return out


@functools.cache
def _cases() -> dict[str, list[Case]]:
    by_round: dict[str, list[Case]] = {}
    for c in load():
        by_round.setdefault(c.round, []).append(c)
    return by_round


@pytest.mark.parametrize("round_name", sorted(_cases(), key=lambda r: int(r.removeprefix("round"))))
def test_a_rounds_cases_hold_but_its_known_misses(round_name: str) -> None:
    known = known_misses()
    results = judge(_cases()[round_name])
    missed = {c.id: (c, r) for c, r, ok in results if not ok}
    listed = {i for i in known if i.split("-")[0] == f"r{round_name.removeprefix('round')}"}
    reopened = [
        f"{i} {c.tier}/{c.category} {r:+.3f}" for i, (c, r) in sorted(missed.items()) if i not in known
    ]
    fixed = sorted(listed - set(missed))
    assert not reopened, f"{round_name}: cases that no longer hold (not in {KNOWN.name}): {reopened}"
    assert not fixed, f"{round_name}: these now hold, take them out of {KNOWN.name}: {fixed}"


def test_every_known_miss_is_a_case_with_a_reason() -> None:
    ids = {c.id for cases in _cases().values() for c in cases}
    known = known_misses()
    assert set(known) <= ids, sorted(set(known) - ids)
    assert all(len(reason) > 20 for reason in known.values())
