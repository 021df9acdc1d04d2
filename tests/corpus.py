"""The honest poems the scorer's tests read: the sample poems of ``data/samples`` (both scripts)
and the red-team rounds' cases by tier, as (name, text, references), in one place so that every
test reads the same corpus in the same order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorer.response import extract_text
from scorer.text import parse_poem

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
ROUNDS = ROOT / "tests" / "redteam_rounds"
Case = tuple[str, str, dict[str, str]]


def samples() -> list[Case]:
    """Every sample poem, Arabic script first, named ``<script> <form>``, referenced by its form."""
    out = []
    for script, folder in (("arabic", SAMPLES), ("arabizi", SAMPLES / "arabizi")):
        for path in sorted(folder.glob("*.txt")):
            out.append(
                (
                    f"{script} {path.stem}",
                    path.read_text(encoding="utf-8"),
                    {"form": path.stem, "script": script},
                )
            )
    return out


def rounds() -> Iterator[dict[str, Any]]:
    """Every case of the red-team rounds as written, round file by round file. A case sent in text
    parts also carries ``text``: its answer as the scorer joins the parts (thought parts left out),
    so a test that rewrites a poem's text reads every honest poem, however it was sent."""
    for path in sorted(ROUNDS.glob("round*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if "text" not in case:
                    case["text"] = extract_text({"parts": case["parts"]})
                yield case


def round_cases(*tiers: str) -> list[Case]:
    """Every case of the red-team rounds in one of ``tiers``, round by round."""
    return [(case["id"], case["text"], case["references"]) for case in rounds() if case["tier"] in tiers]


def script_of(refs: dict[str, str]) -> str:
    return "arabizi" if refs.get("script") == "arabizi" else "arabic"


def hemistichs(text: str) -> list[list[str]]:
    """The poem's hemistichs (a line without a caesura is one), as the order gates read them."""
    return [h for ln in parse_poem(text).lines for h in ln.hemi_words]
