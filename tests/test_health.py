"""The health rules and the metrics views, as pure functions over synthetic series."""

from __future__ import annotations

import math

import pytest

from tunifolk import health
from tunifolk.job import limits
from tunifolk.metrics import Metrics, Point, best_checkpoint, completed_steps, parse_series


def ramp(start: float, end: float, steps: int = 20) -> list[Point]:
    return [Point(i + 1, start + (end - start) * i / (steps - 1)) for i in range(steps)]


def make(series: dict[str, list[Point]]) -> Metrics:
    return Metrics(series=series)


def test_divergence_fires_on_the_hacking_signature() -> None:
    m = make(
        {"structure/train_mean_reward": ramp(0.1, 0.9), "poetic_quality/train_mean_reward": ramp(0.4, -0.3)}
    )
    verdict = health.divergence(m)
    assert verdict.level == health.FAIL
    assert "structure rising while poetic_quality falls" in verdict.message
    assert verdict.figures["structure_late"] > verdict.figures["structure_early"]


def test_divergence_is_quiet_when_rewards_rise_together() -> None:
    m = make(
        {"structure/train_mean_reward": ramp(0.1, 0.9), "poetic_quality/train_mean_reward": ramp(0.0, 0.4)}
    )
    assert health.divergence(m).level == health.OK


def test_generation_length_near_the_cap_fails_and_collapse_warns() -> None:
    near_cap = make({"/train_generation_length": ramp(20000, 32500)})
    assert health.generation_length(near_cap, 32768).level == health.FAIL
    collapse = make({"/train_generation_length": ramp(3000, 400)})
    verdict = health.generation_length(collapse, 32768)
    assert verdict.level == health.WARN and "collapsed" in verdict.message
    steady = make({"/train_generation_length": ramp(3000, 3500)})
    assert health.generation_length(steady, 32768).level == health.OK


def test_rpc_errors_against_the_abort_line() -> None:
    assert health.rpc_errors(make({"structure/train_rpc_error_ratio": ramp(0.85, 0.9)})).level == health.FAIL
    assert health.rpc_errors(make({"structure/train_rpc_error_ratio": ramp(0, 0.4)})).level == health.WARN
    verdict = health.rpc_errors(make({"structure/train_rpc_error_ratio": ramp(0, 0.05)}))
    assert verdict.level == health.OK and verdict.figures == {
        "structure": 0.05,
        "structure_run": pytest.approx(0.025),
    }


def steps(*shares: float) -> list[Point]:
    return [Point(i + 1, v) for i, v in enumerate(shares)]


def test_the_abort_line_is_the_emulators_and_one_step_over_it_warns_early() -> None:
    """A scorer killed at step 42 of 156: every later step errors. The run so far stays under 0.8 for
    a while (the emulator's rule: the job goes on); status warns from the first step over the line,
    and fails once the run so far is over it, the step the emulator stops the job."""
    history = [0.0] * 42 + [1.0] * 114
    for n in range(43, len(history) + 1):
        errored = sum(history[:n])
        verdict = health.rpc_errors(make({"structure/train_rpc_error_ratio": steps(*history[:n])}))
        stops = limits.over_error_limit(errored, n)
        assert verdict.level == (health.FAIL if stops else health.WARN), (n, verdict)
        assert ("UNCONFIRMED" in verdict.message) is not stops


def test_an_invalid_answer_counts_as_errored_and_no_series_is_not_ok() -> None:
    invalid = make(
        {
            "structure/train_rpc_error_ratio": steps(0.5, 0.5),
            "structure/train_invalid_rpc_response_ratio": steps(0.4, 0.4),
        }
    )
    assert health.rpc_errors(invalid).level == health.FAIL  # 0.9 of each step errored
    unseen = health.rpc_errors(make({"/train_mean_reward": steps(0.1, 0.2)}))
    assert unseen.level == health.WARN and unseen.message.startswith("cannot see")


def test_learnable_prompts_and_clipping() -> None:
    assert health.learnable_prompts(make({"/learnable_prompt_ratio": ramp(0.6, 0.1)})).level == health.WARN
    assert health.learnable_prompts(make({"/learnable_prompt_ratio": ramp(0.6, 0.7)})).level == health.OK
    assert (
        health.clipping(make({"structure/train_clipping_rewards_ratio": ramp(0, 0.5)})).level == health.WARN
    )


def test_unhealthy_means_any_failure() -> None:
    good = health.verdicts(make({"/train_mean_reward": ramp(0, 1)}), 32768)
    assert not health.unhealthy(good)
    bad = health.verdicts(make({"structure/train_rpc_error_ratio": ramp(0.7, 0.95)}), 32768)
    assert health.unhealthy(bad)


def test_protojson_scalars_absent_value_is_zero_and_nan_is_kept() -> None:
    points = parse_series(
        {
            "values": [
                {"step": "3", "scalar": {"value": 0.5}},
                {"step": "1", "scalar": {}},
                {"step": "2", "scalar": {"value": "NaN"}},
            ]
        }
    )
    assert [p.step for p in points] == [1, 2, 3]
    assert points[0].value == 0.0 and math.isnan(points[1].value)


def test_completed_steps_prefers_the_reported_count() -> None:
    m = make({"/train_mean_reward": ramp(0, 1, steps=12)})
    assert completed_steps({"tuningJobMetadata": {"completedStepCount": "15"}}, m) == 15
    assert completed_steps({}, m) == 12
    assert completed_steps({}, None) == 0


def test_best_checkpoint_by_eval_reward() -> None:
    job = {
        "tunedModel": {
            "checkpoints": [
                {"checkpointId": "1", "step": "10", "epoch": "1", "endpoint": "e1"},
                {"checkpointId": "2", "step": "20", "epoch": "2", "endpoint": "e2"},
                {"checkpointId": "3", "step": "30", "epoch": "3", "endpoint": "e3"},
            ]
        }
    }
    evals = make({"/eval_mean_reward": [Point(10, 0.2), Point(20, 0.7), Point(30, 0.5)]})
    best = best_checkpoint(job, evals)
    assert best is not None and best["checkpoint_id"] == "2" and best["eval_reward"] == 0.7
    assert best_checkpoint(job, None) is None
