"""The pure core of checkpoint evaluation (tunifolk/checkpoint_eval.py) and Google's judge arithmetic
(tunifolk/job/judge.py): intervals, the choice of a best checkpoint, the cost, the judge's prompt and
answers. No server."""

from __future__ import annotations

import math
import random

import pytest

from tunifolk import checkpoint_eval as ce
from tunifolk.job import estimate as est
from tunifolk.job import judge


def sample(
    target: str, step: int, prompt: int, combined: float, judge_score: float | None = None
) -> ce.Sample:
    return ce.Sample(
        target=target,
        step=step,
        prompt=prompt,
        example_digest=f"d{prompt}",
        references={"form": "malzuma"},
        text=f"line {prompt} of {target}\nand another line {step}",
        structure=combined,
        subscores={"language": 1.0},
        reason="",
        judge=judge_score,
        combined=combined,
    )


def test_the_bootstrap_interval_holds_the_mean_repeats_by_seed_and_narrows_with_prompts() -> None:
    rng = random.Random(1)
    few = [[rng.gauss(0.2, 0.3)] for _ in range(8)]
    many = [[rng.gauss(0.2, 0.3)] for _ in range(400)]
    a, b = ce.bootstrap(few, seed=3), ce.bootstrap(few, seed=3)
    assert a == b
    assert a is not None and a.low <= a.mean <= a.high
    wide = ce.bootstrap(many, seed=3)
    assert wide is not None and (wide.high - wide.low) < (a.high - a.low) / 3
    assert abs(wide.mean - 0.2) < 0.06
    assert ce.bootstrap([[math.nan], []], seed=0) is None


def test_a_prompts_samples_move_together_in_the_bootstrap() -> None:
    """Resampling prompts, not samples: ten identical samples of one prompt are one prompt's worth."""
    one_each = ce.bootstrap([[0.0], [1.0]], seed=0)
    ten_each = ce.bootstrap([[0.0] * 10, [1.0] * 10], seed=0)
    assert one_each is not None and ten_each is not None
    assert (one_each.low, one_each.high) == (ten_each.low, ten_each.high)


def result(
    label: str, step: int, mean: float, half: float, *, base: bool = False, hacking: bool = False
) -> ce.Result:
    target = ce.Target(label, step, f"endpoints/{step}", None if base else str(step))
    return ce.Result(target, 10, {ce.COMBINED: ce.Interval(mean, mean - half, mean + half)}, hacking=hacking)


def test_a_later_checkpoint_within_an_earlier_ones_interval_loses_to_it() -> None:
    rs = [result("base", 0, 0.9, 0.01, base=True), result("c1", 10, 0.50, 0.05), result("c2", 20, 0.53, 0.05)]
    assert ce.best(rs) is rs[1]  # c2's mean is inside c1's interval; the base model is never chosen
    rs[2] = result("c2", 20, 0.60, 0.05)
    assert ce.best(rs) is rs[2]


def test_a_hacking_checkpoint_is_never_the_best_and_none_may_qualify() -> None:
    rs = [result("c1", 10, 0.1, 0.05), result("c2", 20, 0.9, 0.05, hacking=True)]
    assert ce.best(rs) is rs[0]
    rs[0] = result("c1", 10, 0.1, 0.05, hacking=True)
    assert ce.best(rs) is None


def test_weights_combine_over_the_rewards_there_are_figures_for() -> None:
    w = ce.Weights(structure=0.5, judge=1.5)
    assert w.combined(1.0, -1.0) == pytest.approx((0.5 - 1.5) / 2.0)
    assert w.combined(0.4, None) == pytest.approx(0.4)
    assert ce.Weights(structure=0.0, judge=1.0).combined(0.4, 0.8) == pytest.approx(0.8)


def test_the_trip_wires_read_each_checkpoint_against_the_base_model() -> None:
    targets = [ce.Target("base", 0, "m"), ce.Target("c1", 10, "e1", "1"), ce.Target("c2", 20, "e2", "2")]
    samples = []
    for p in range(40):
        samples.append(sample("base", 0, p, 0.0, 0.5))
        samples.append(sample("c1", 10, p, 0.1, 0.55))
        samples.append(sample("c2", 20, p, 0.9, -0.8))  # structure up, the judge down: gamed
    results = ce.evaluate(targets, samples, seed=0, failed={})
    by = {r.target.label: r for r in results}
    assert not by["base"].hacking and not by["c1"].hacking
    assert by["c2"].hacking and "against_judge" in by["c2"].wires
    assert ce.best(results) is by["c1"]


def test_a_failed_target_is_reported_without_figures() -> None:
    targets = [ce.Target("c1", 10, "e1", "1"), ce.Target("c2", 20, "e2", "2")]
    results = ce.evaluate(targets, [sample("c2", 20, 0, 0.3)], seed=0, failed={"c1": "404 endpoint gone"})
    assert results[0].failed == "404 endpoint gone" and not results[0].figures
    assert results[1].figures[ce.COMBINED].mean == pytest.approx(0.3)


def test_the_cost_grows_with_the_calls_and_the_judge_is_priced_per_sampling() -> None:
    a = est.Assumptions(expected_length=1000)
    small = ce.plan(2, True, 10, 1, 4, "gemini-3.5-flash", "gemini-2.5-pro", a)
    double = ce.plan(2, True, 10, 2, 4, "gemini-3.5-flash", "gemini-2.5-pro", a)
    no_judge = ce.plan(2, True, 10, 1, 4, "gemini-3.5-flash", None, a)
    assert (small.tuned_calls, small.base_calls, small.judge_calls) == (20, 10, 120)
    assert double.cost.high == pytest.approx(2 * small.cost.high)
    assert no_judge.judge_calls == 0 and no_judge.cost.high < small.cost.high
    assert 0 < small.cost.low < small.cost.high


def test_the_report_names_the_best_and_marks_the_excluded() -> None:
    rs = [result("c1", 10, 0.5, 0.05), result("c2", 20, 0.9, 0.05, hacking=True)]
    page = ce.markdown(
        "projects/p/locations/l/tuningJobs/1",
        rs,
        rs[0],
        None,
        ce.plan(2, False, 1, 1, 1, None, None, est.Assumptions(expected_length=10)),
    )
    assert "**Best: checkpoint 10**" in page and "HACKING: excluded" in page
    assert "tunifolk:servingCheckpoint 10" in page


def test_the_judge_prompt_fills_googles_placeholders_once() -> None:
    example = {
        "systemInstruction": {"parts": [{"text": "You are a poet."}]},
        "contents": [{"role": "user", "parts": [{"text": "Write a malzuma."}]}],
        "references": {"form": "malzuma"},
    }
    filled = judge.fill_prompt(
        "S={{system_instruction}} P={{ prompt }} R={{response}} F={{references.form}} X={{references.none}}",
        example,
        "a poem that says {{prompt}}",
    )
    assert filled == "S=You are a poet. P=Write a malzuma. R=a poem that says {{prompt}} F=malzuma X="


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The imagery holds. <answer>0.5</answer>", 0.5),
        ("<answer>0.1</answer> then <answer>-0.25</answer>", -0.25),  # the last match is kept
        ("<answer>7</answer>", 1.0),  # clipped, as every reward is
    ],
)
def test_a_judge_answer_is_parsed_then_converted(answer: str, expected: float) -> None:
    scorer = {
        "autoraterResponseParseConfig": {
            "parseType": "REGEX_EXTRACT",
            "regexExtractExpression": "<answer>(.*?)</answer>",
        }
    }
    assert judge.answer_reward(scorer, answer, {}) == pytest.approx(expected)


@pytest.mark.parametrize("answer", ["I rate it highly.", "<answer>nan</answer>", "<answer>inf</answer>"])
def test_an_answer_that_is_no_finite_number_is_refused(answer: str) -> None:
    scorer = {
        "autoraterResponseParseConfig": {
            "parseType": "REGEX_EXTRACT",
            "regexExtractExpression": "<answer>(.*?)</answer>",
        }
    }
    with pytest.raises(ValueError):
        judge.answer_reward(scorer, answer, {})


def test_an_exact_match_judge_pays_its_correct_and_wrong_rewards() -> None:
    scorer = {
        "exactMatchScorer": {
            "expression": "{{references.verdict}}",
            "correctAnswerReward": 1,
            "wrongAnswerReward": -0.5,
        }
    }
    example = {"references": {"verdict": "Yes"}}
    assert judge.answer_reward(scorer, " Yes ", example) == 1.0
    assert judge.answer_reward(scorer, "No", example) == -0.5
