"""The trip wires (tunifolk/tripwires.py): pure functions over a run's ledger records."""

from __future__ import annotations

import random

import pytest

from tunifolk import tripwires as tw
from tunifolk.health import FAIL, OK, WARN
from tunifolk.ledger.bigquery import Rollout

WORDS = [f"w{i}" for i in range(3000)]
FILLER = ["يا", "الدار", "النار", "الليل"]


def poem(rng: random.Random, words: list[str], lines: int = 8) -> str:
    return "\n".join(" ".join(rng.choice(words) for _ in range(5)) for _ in range(lines))


def run(
    steps: int = 40, hack_from: int | None = None, per_step: int = 16, seed: int = 1, **change
) -> list[Rollout]:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    out = []
    for step in range(steps):
        hacked = hack_from is not None and step >= hack_from
        for i in range(per_step):
            text = poem(rng, FILLER if hacked else WORDS)
            subs = {"language": 1.0, **(change.get("subs", {}) if hacked else {})}
            reward = (0.9 if hacked else rng.uniform(-0.5, 0.5)) if not change.get("flat") else 0.5
            if change.get("long") and hacked:
                text = text * 4
            out.append(Rollout("j", step, f"d{step}-{i // 4}", {"form": "malzuma"}, text, reward, subs))
    return out


def levels(verdicts: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {v.rule: v.level for v in verdicts}


def test_a_steady_run_fires_nothing() -> None:
    found = tw.verdicts(tw.per_step(run()), judge={s: 0.1 for s in range(40)})
    assert all(v.level == OK for v in found), [v.message for v in found if v.level != OK]


def test_template_filler_trips_diversity_and_the_judge_and_is_hacking() -> None:
    judge = {s: (0.3 if s < 10 else -0.4) for s in range(40)}
    found = tw.verdicts(tw.per_step(run(hack_from=10)), judge=judge)
    lv = levels(found)
    assert lv["tripwire:diversity_collapse"] == WARN and lv["tripwire:against_judge"] == WARN
    hacking = next(v for v in found if v.rule == tw.HACKING)
    assert hacking.level == FAIL and "caught at step" in hacking.message
    assert 10 <= hacking.figures["caught_at_step"] <= 10 + tw.PERSIST + 2  # early, not at the end
    assert "\n" not in hacking.message


def test_length_unknown_words_and_dropped_text() -> None:
    found = tw.verdicts(tw.per_step(run(hack_from=20, long=True, subs={"language": 0.5, "p_dropped": 0.3})))
    lv = levels(found)
    assert lv["tripwire:length_drift"] == WARN
    assert lv["tripwire:unknown_words"] == WARN and lv["tripwire:dropped_text"] == WARN
    assert lv[tw.HACKING] == FAIL  # several wires at once


def test_zero_spread_groups() -> None:
    found = tw.verdicts(tw.per_step(run(flat=True)))
    assert levels(found)["tripwire:zero_spread"] == WARN


def test_one_odd_step_is_not_a_finding() -> None:
    rows = [r for r in run() if r.step != 25] + [
        Rollout("j", 25, "x", {}, "يا يا يا", 0.9, {"language": 0.0}) for _ in range(16)
    ]
    assert levels(tw.verdicts(tw.per_step(rows)))[tw.HACKING] == OK


def test_too_short_a_ledger_says_so() -> None:
    (only,) = tw.verdicts(tw.per_step(run(steps=2)))
    assert only.rule == tw.HACKING and only.level == OK and "nothing to compare" in only.message


@pytest.mark.parametrize(
    ("steps", "text"),
    [([3, 4, 5, 9], "3-5, 9"), ([1], "1"), ([], ""), (list(range(0, 20, 2)), "0, 2, 4, 6, 8, 10 (+4 more)")],
)
def test_steps_text(steps: list[int], text: str) -> None:
    assert tw.steps_text(steps) == text


def test_judge_rewards_from_the_job() -> None:
    job = {"reinforcementTuningSpec": {"rewardConfig": {"compositeRewardConfig": {"rewardConfigs": [
        {"rewardName": "structure", "cloudRunRewardScorer": {"cloudRunUri": "https://x"}},
        {"rewardName": "poetic_quality", "autoraterScorer": {}},
    ]}}}}  # fmt: skip
    assert tw.judge_rewards(job) == ["poetic_quality"]
