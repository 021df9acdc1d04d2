"""The red-team suite (tests/redteam.py) against the real scorer: every attack at or under its
reward limit, every harmless layout within its drop limit, and the combined reward still
preferring honest work under the stack's default weights."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from poems import two_defects
from redteam import SCRIPTS, Case, all_cases, run, sample
from scorer.catalogue import FORMS
from scorer.score import score

ROOT = Path(__file__).resolve().parent.parent
CASES = all_cases()


def test_the_suite_is_broad() -> None:
    assert len(CASES) >= 150
    for kind in ("attack", "harmless"):
        assert {(c.form, c.script) for c in CASES if c.kind == kind} == {
            (f, s) for f in FORMS for s in SCRIPTS
        }


@pytest.mark.parametrize("case", [c for c in CASES if c.limit is not None], ids=lambda c: c.name)
def test_case_within_its_limit(case: Case) -> None:
    (o,) = run([case])
    assert o.ok, (case.name, o.reward, o.plain_reward, score(case.text, case.refs).reason)


def default_weights() -> dict[str, float]:
    cfg = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text(encoding="utf-8"))["config"]
    return {r["name"]: float(r["weight"]) for r in cfg["tunifolk:rewards"]}


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_combined_reward_prefers_an_honest_imperfect_poem_to_perfect_word_salad(
    form: str, script: str
) -> None:
    """Word salad of real words keeps the form perfectly (structure up to 1.0: sense is not the
    structure reward's to see) and is judged -1; an honest poem with two rhyme defects is judged
    +0.5. Under the stack's default weights the salad must get the lower combined reward."""
    w = default_weights()
    salad = max(
        score(c.text, c.refs).reward
        for c in CASES
        if c.category.startswith("word salad") and (c.form, c.script) == (form, script)
    )
    refs = {"form": form, "script": script}
    honest = score(two_defects(form, sample(form, script)), refs).reward
    total = w["structure"] + w["poetic_quality"]
    combined_salad = (w["structure"] * salad + w["poetic_quality"] * -1.0) / total
    combined_honest = (w["structure"] * honest + w["poetic_quality"] * 0.5) / total
    assert combined_salad < combined_honest, (salad, honest, combined_salad, combined_honest)
