"""providers/estimate.py: step, token and call arithmetic, the price table, and the budget check."""

from __future__ import annotations

import dataclasses

import pytest

from seed_inputs import base_inputs, with_change
from tunifolk.job import checks, wire
from tunifolk.job import estimate as est
from tunifolk.job.normalize import normalize


def seed_estimate(**assumption_overrides) -> est.Estimate:
    inputs = normalize(base_inputs())
    assumptions = dataclasses.replace(est.default_assumptions(inputs), **assumption_overrides)
    result = est.estimate(inputs, assumptions=assumptions)
    assert result is not None
    return result


def test_seed_steps_and_samples():
    e = seed_estimate(validation_example_count=50)
    assert e.total_steps == 843 // 32 * 6 == 156
    assert e.samples_per_step == 32 * 16 == 512
    assert e.train_samples == 156 * 512


def test_eval_phase_counts_every_evaluate_interval():
    e = seed_estimate(validation_example_count=50)
    assert e.eval_count == 156 // 13 == 12
    assert e.eval_samples == 12 * 50 * 16


def test_eval_without_interval_runs_once_per_epoch():
    inputs = normalize(with_change("hyper_parameters.evaluate_interval", None))
    e = est.estimate(
        inputs, assumptions=dataclasses.replace(est.default_assumptions(inputs), validation_example_count=10)
    )
    assert e is not None and e.eval_count == 6 and e.eval_samples == 6 * 10 * 16


def test_default_validation_count_is_the_service_split():
    assert est.default_validation_count(843) == 210
    assert est.default_validation_count(100) == 50
    assert est.default_validation_count(5000) == 500
    assert seed_estimate().eval_samples == 12 * 210 * 16


def test_scorer_and_judge_calls():
    e = seed_estimate(validation_example_count=50)
    calls = 156 * 32 * 16 + 12 * 50 * 16
    assert e.scorer_calls == calls
    assert e.scorer_calls_by_reward == {"structure": calls, "poetic_quality": calls}
    assert e.judge_calls_by_reward == {"poetic_quality": calls * 4}
    assert e.judge_calls == calls * 4


def test_judge_calls_follow_sampling_count():
    inputs = normalize(with_change("rewards[1].autorater.sampling_count", 8))
    e = est.estimate(inputs)
    assert e is not None and e.judge_calls == e.scorer_calls * 8


def test_tokens_come_from_expected_length_not_the_cap():
    e = seed_estimate(expected_length=1000, prompt_tokens=200)
    samples = 156 * 512
    assert e.sampled_tokens == est.Range(samples * 500, samples * 2000)
    assert e.trained_tokens == est.Range(samples * 700, samples * 2200)
    capped = normalize(with_change("hyper_parameters.max_output_tokens", 4096))
    assert est.estimate(capped).sampled_tokens == est.estimate(normalize(base_inputs())).sampled_tokens


def test_expected_length_defaults_by_thinking_level():
    minimal = normalize(with_change("hyper_parameters.thinking_level", "MINIMAL"))
    assert est.default_assumptions(minimal).expected_length == est.EXPECTED_LENGTH_BY_THINKING["MINIMAL"]
    assert est.default_assumptions(normalize(base_inputs())).expected_length == 6000
    assert est.estimate(minimal).cost_usd.high < seed_estimate().cost_usd.high


def test_cost_range_low_le_high_and_sampling_only_in_high():
    e = seed_estimate()
    assert 0 < e.cost_usd.low <= e.cost_usd.high
    assert e.cost_breakdown["sampling"].low == 0 and e.cost_breakdown["sampling"].high > 0
    for part in e.cost_breakdown.values():
        assert part.low <= part.high
    total_high = sum(p.high for p in e.cost_breakdown.values())
    assert e.cost_usd.high == pytest.approx(total_high, abs=0.01)


def test_training_cost_arithmetic_with_a_custom_price_table():
    prices = est.PriceTable(
        source="test quote",
        as_of="2026-01-01",
        models={"gemini-3.5-flash": est.ModelPrice(input_per_m=0, output_per_m=0, training_per_m=1.0)},
        fallback=est.ModelPrice(0, 0, 0),
        cloud_run_per_m_calls=0,
    )
    inputs = normalize(base_inputs())
    a = dataclasses.replace(est.default_assumptions(inputs), expected_length=1000, prompt_tokens=0)
    e = est.estimate(inputs, prices=prices, assumptions=a)
    samples = 156 * 512
    assert e.cost_usd.low == pytest.approx(round(samples * 500 / 1e6, 2))
    assert e.cost_usd.high == pytest.approx(round(samples * 2000 / 1e6, 2))
    assert (e.prices_source, e.prices_as_of) == ("test quote", "2026-01-01")


def test_default_price_table_says_where_it_comes_from():
    assert "UNCONFIRMED" in est.DEFAULT_PRICES.source
    assert est.DEFAULT_PRICES.as_of
    assert (
        est.DEFAULT_PRICES.model("projects/p/locations/l/publishers/google/models/gemini-2.5-pro")
        == (est.DEFAULT_PRICES.models["gemini-2.5-pro"])
    )
    assert est.DEFAULT_PRICES.model("some-new-model") == est.DEFAULT_PRICES.fallback


def test_tuned_inference_is_one_and_a_half_times_base():
    base = est.DEFAULT_PRICES.models["gemini-3.5-flash"]
    tuned = est.tuned_inference_price("gemini-3.5-flash")
    assert tuned.input_per_m == pytest.approx(base.input_per_m * 1.5)
    assert tuned.output_per_m == pytest.approx(base.output_per_m * 1.5)


def test_no_estimate_without_an_example_count_or_with_unknown_epochs():
    assert est.estimate(normalize(with_change("training_example_count", None))) is None
    assert est.estimate(normalize(with_change("hyper_parameters.epoch_count", wire.UNKNOWN))) is None


def test_step_count_drives_the_estimate():
    inputs = with_change("hyper_parameters.epoch_count", None)
    inputs["hyper_parameters"]["step_count"] = 100
    e = est.estimate(normalize(inputs))
    assert e is not None and e.total_steps == 100 and e.train_samples == 100 * 512


def test_as_dict_is_plain():
    d = seed_estimate().as_dict()
    assert d["cost_usd"]["low"] <= d["cost_usd"]["high"] and d["total_steps"] == 156


# ---------------------------------------------------------------------------------------------
# the budget, through check


def test_budget_failure_names_both_figures():
    high = seed_estimate().cost_usd.high
    report = checks.check_inputs(with_change("max_cost_usd", 100))
    assert [p for p, _ in report.failures] == ["max_cost_usd"]
    reason = report.failures[0][1]
    assert f"${high:,.2f}" in reason and "$100.00" in reason


def test_budget_above_the_upper_bound_passes():
    high = seed_estimate().cost_usd.high
    report = checks.check_inputs(with_change("max_cost_usd", high + 1))
    assert report.failures == [] and report.estimate is not None


def test_budget_with_unknown_count_is_checked_later():
    inputs = with_change("max_cost_usd", 1)
    inputs["training_example_count"] = wire.UNKNOWN
    assert checks.check_inputs(inputs).failures == []
