"""The red-team rounds: per round and tier, how many of a fresh attacker's cases the reward holds.

Each round is a file `tests/redteam_rounds/roundN.jsonl` written by an attacker who had not read the
tests or earlier rounds (docs/scorer.md, "Rounds"); one case per line: `id`, `tier`, `category`,
`references`, `text`, for a harmless variant the `base` case it is a layout of, and where the case
needs a thought part, the response's `parts`. A case holds when:

- cheat: the reward is at most 0;
- wrong_form: at most 0.3;
- harmless (a genuine poem changed by an earlier round's attacker, who was told layouts and a short
  frame were free): re-tiered by the principle that the reward pays for the asked format only (issue
  34). With words its base does not have (a title, a label, a closing line), it is added words: at
  most 0. With the base's words only (another layout, a spelling), at most its base's reward + 0.1;
- genuine: at least 0.8;
- imperfect: from 0.2 to 0.9;
- added_words (a genuine poem with words that are not the poem: a title, a note, markup): at most 0;
- layout (a genuine poem in another layout than the asked one, words unchanged): at most its base's
  reward.

CI holds every round to these (tests/test_redteam_rounds.py), but for the known misses listed with
their reasons in `tests/redteam_rounds/known_misses.tsv`.

Run `python bench/redteam_rounds.py` for the table (`--misses` lists what does not hold);
`bench/results/redteam-rounds.md` records each round before and after the changes it led to.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = ROOT / "tests" / "redteam_rounds"
TIERS = ("cheat", "wrong_form", "harmless", "genuine", "imperfect", "added_words", "layout")


@dataclass(frozen=True)
class Case:
    round: str
    id: str
    tier: str
    category: str
    references: dict[str, Any]
    text: str
    base: str | None
    parts: tuple[dict[str, Any], ...] = ()
    """The response's parts where the case needs more than its text (a thought part)."""


def _number(round_name: str | Path) -> int:
    """A round's number (``round10`` after ``round9``, not after ``round1``)."""
    return int(Path(round_name).stem.removeprefix("round"))


def load(folder: Path = ROUNDS) -> list[Case]:
    cases = []
    for path in sorted(folder.glob("round*.jsonl"), key=_number):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                cases.append(
                    Case(
                        path.stem,
                        d["id"],
                        d["tier"],
                        d.get("category", ""),
                        d["references"],
                        d.get("text") or "",
                        d.get("base"),
                        tuple(d.get("parts") or (d.get("content") or {}).get("parts") or ()),
                    )
                )
    return cases


def reward(case: Case) -> float:
    from scorer.score import score

    return score({"parts": list(case.parts) or [{"text": case.text}]}, case.references).reward


_WORD = re.compile(r"[^\W\d_]+")


def added_words(case: Case, base: Case) -> bool:
    """Whether the case holds more words than its base poem: what the principle calls words that are
    not the poem. Words are counted, not compared, after the scorer's spelling fold (tashkeel,
    tatweel, letter variants, accents), letters only (a number is no word; a digit inside an Arabizi
    word parts it alike in both): a respelling (h for 7, no digits) keeps the count."""
    from scorer.arabic import normalize_arabic

    def words(c: Case) -> int:
        text = c.text or " ".join(p.get("text", "") for p in c.parts if not p.get("thought"))
        return len(_WORD.findall(normalize_arabic(unicodedata.normalize("NFKC", text))))

    return words(case) > words(base)


def holds(case: Case, r: float, rewards: dict[str, float], cases: dict[str, Case] | None = None) -> bool:
    if case.tier == "cheat":
        return r <= 0.0
    if case.tier == "wrong_form":
        return r <= 0.3
    if case.tier == "genuine":
        return r >= 0.8
    if case.tier == "imperfect":
        return 0.2 <= r <= 0.9
    if case.tier == "added_words":
        return r <= 0.0
    base = rewards.get(case.base or "")
    if case.tier == "layout":
        return base is not None and r <= base + 1e-9
    based = (cases or {}).get(case.base or "")
    if based is not None and added_words(case, based):
        return r <= 0.0
    return base is not None and r <= base + 0.1


def judge(cases: list[Case]) -> list[tuple[Case, float, bool]]:
    rewards = {c.id: reward(c) for c in cases}
    by_id = {c.id: c for c in cases}
    return [(c, rewards[c.id], holds(c, rewards[c.id], rewards, by_id)) for c in cases]


def table(results: list[tuple[Case, float, bool]]) -> str:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for case, _, ok in results:
        cell = counts[(case.round, case.tier)]
        cell[0] += ok
        cell[1] += 1
    rounds = sorted({c.round for c, _, _ in results}, key=_number)
    lines = ["| round | " + " | ".join(TIERS) + " |", "|---|" + "---|" * len(TIERS)]
    for rnd in rounds:
        cells = [f"{counts[(rnd, t)][0]}/{counts[(rnd, t)][1]}" for t in TIERS]
        lines.append(f"| {rnd} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list every case that does not hold")
    args = parser.parse_args()
    results = judge(load())
    print(table(results))
    if args.misses:
        for case, r, ok in results:
            if not ok:
                print(f"{case.id:8} {case.tier:10} {r:+.3f}  {case.references.get('form')}  {case.category}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
