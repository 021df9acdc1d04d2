"""What an RLFT run will cost before a token is billed: steps, tokens, scorer and judge calls, USD.

Pure Python (no I/O, no pulumi), shared by the provider's `check` (the `max_cost_usd` budget) and
`tunifolk estimate`. It reads the *normalised* snake_case inputs of `RlftTuningJob`
(`tunifolk.job.normalize`).

Why a range and not a figure: Google has not published a per-token RLFT price, nor said whether
the sampling phase is billed (docs/vertex.md, "Prices": UNCONFIRMED). The low bound assumes short samples
and an unbilled sampling phase; the high bound assumes long samples and a sampling phase billed
like inference. Token counts come from an *expected* length per sample (which a thinking level
drives), never from the `max_output_tokens` cap: a generation that stops at 800 tokens costs 800.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from tunifolk.job.field_names import Hyper, Input, Reward, Scorer
from tunifolk.job.limits import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_EPOCH_CAP,
    DEFAULT_EPOCH_TARGET_STEPS,
    DEFAULT_SAMPLES_PER_PROMPT,
    DEFAULT_SAMPLING_COUNT,
)
from tunifolk.job.wire import is_int as _is_int

#: Expected tokens per sampled response (thinking + answer) by thinking level. Guesses for a short
#: poem: HIGH thinking dominates the count. Override with `expected_length=`.
EXPECTED_LENGTH_BY_THINKING = {"MINIMAL": 600, "LOW": 1500, "MEDIUM": 3000, "HIGH": 6000}


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens for one model: online input/output, and tuning (training) tokens."""

    input_per_m: float
    output_per_m: float
    training_per_m: float = 0.0


@dataclass(frozen=True)
class PriceTable:
    """Prices the estimate uses; an input, so a user with a real quote can pass their own.

    `source` and `as_of` travel with every estimate, so a figure is never shown without the date
    of the prices behind it.
    """

    source: str
    as_of: str
    models: dict[str, ModelPrice]
    #: used for a model the table does not list (priced like the dearest flash model we know)
    fallback: ModelPrice
    #: evaluation during tuning is billed as batch prediction: this share of the online price
    batch_discount: float = 0.5
    #: Cloud Run scorer: requests plus ~0.2 vCPU-second each, USD per million calls
    cloud_run_per_m_calls: float = 5.2
    #: tuned-model inference price relative to the base model (Gemini 3 onward; docs/vertex.md, "Prices")
    tuned_inference_multiplier: float = 1.5

    def model(self, name: str | None) -> ModelPrice:
        """The price of `name`, given bare or fully qualified (the last path segment decides)."""
        bare = (name or "").rsplit("/", 1)[-1]
        return self.models.get(bare, self.fallback)


#: The shipped default. UNCONFIRMED: the RLFT per-token price is not published. Training rates are
#: Vertex's supervised "Model tuning" rates per training token (Gemini 2.5 family) carried over to
#: RLFT; the Gemini 3.5 Flash rates are third-party figures (docs/vertex.md, "Prices").
DEFAULT_PRICES = PriceTable(
    source=(
        "UNCONFIRMED estimate: Vertex AI generative-AI pricing page (Gemini 2.5 inference and "
        "supervised 'Model tuning' per-token rates) and third-party Gemini 3.5 Flash figures "
        "(apidog.com, wowhow.cloud non-global $1.65/$9.90), see docs/vertex.md; "
        "no published RLFT per-token price"
    ),
    as_of="2026-11-30",
    models={
        "gemini-3.5-flash": ModelPrice(input_per_m=1.65, output_per_m=9.90, training_per_m=10.0),
        "gemini-2.5-pro": ModelPrice(input_per_m=1.25, output_per_m=10.0, training_per_m=25.0),
        "gemini-2.5-flash": ModelPrice(input_per_m=0.30, output_per_m=2.50, training_per_m=5.0),
        "gemini-2.5-flash-lite": ModelPrice(input_per_m=0.10, output_per_m=0.40, training_per_m=1.5),
    },
    fallback=ModelPrice(input_per_m=1.65, output_per_m=9.90, training_per_m=10.0),
)


@dataclass(frozen=True)
class Assumptions:
    """Everything the estimate guesses, in one place, so the CLI can print it and a user can override it."""

    expected_length: int  # tokens per sampled response (thinking included)
    prompt_tokens: int = 300  # system instruction + request, per example
    length_low_factor: float = 0.5
    length_high_factor: float = 2.0
    validation_example_count: int | None = None  # None: the service's default split size
    judge_input_tokens: int = 1500  # judge prompt template + request + poem, per judge call
    judge_output_tokens_low: int = 100
    judge_output_tokens_high: int = 1500  # a thinking judge


@dataclass(frozen=True)
class Range:
    """A low/high pair; low ≤ high by construction."""

    low: float
    high: float


@dataclass(frozen=True)
class Estimate:
    """The whole estimate. Token counts are totals over the run; calls are per run."""

    total_steps: int
    samples_per_step: int
    train_samples: int
    eval_count: int
    eval_samples: int
    sampled_tokens: Range  # training-phase sampling (generation) output tokens
    trained_tokens: Range  # tokens the training phase processes (prompt + response per sample)
    eval_tokens: Range  # evaluation sampling output tokens
    scorer_calls: int  # calls to each reward's scorer (train + eval samples)
    scorer_calls_by_reward: dict[str, int]
    judge_calls: int  # generateContent calls on judge models (× sampling_count)
    judge_calls_by_reward: dict[str, int]
    cost_usd: Range
    cost_breakdown: dict[str, Range]
    prices_source: str
    prices_as_of: str
    assumptions: Assumptions = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (for Pulumi outputs and the CLI's --json)."""
        return asdict(self)


def total_steps(hyper_parameters: dict[str, Any] | None, example_count: int | None) -> int | None:
    """Steps the service will run: `step_count`, else `example_count // batch_size × epoch_count`.

    None when it cannot be known yet (no count, or an epoch count still unknown). The 500-step
    ceiling is *not* applied here: check reports anything above it as a failure instead, because
    the service would silently stop there.
    """
    hp = hyper_parameters if isinstance(hyper_parameters, dict) else {}
    step_count = hp.get(Hyper.STEP_COUNT)
    if _is_int(step_count):
        return step_count
    epochs = hp.get(Hyper.EPOCH_COUNT)
    batch = hp.get(Hyper.BATCH_SIZE, DEFAULT_BATCH_SIZE)
    if not (_is_int(batch) and _is_int(example_count)) or batch <= 0:
        return None
    if _is_int(epochs):
        return example_count // batch * epochs
    if (
        epochs is None and step_count is None and example_count > 0
    ):  # neither set: Google's default (limits.DEFAULT_EPOCH_*)
        default = min(DEFAULT_EPOCH_TARGET_STEPS * batch / example_count, DEFAULT_EPOCH_CAP)
        return int(example_count // batch * default)
    return None


def default_validation_count(training_count: int) -> int:
    """The service's default split: 25 % of the training set or 50 examples, whichever is larger."""
    return min(500, max(50, training_count // 4))


def _eval_count(steps: int, hp: dict[str, Any], example_count: int) -> int:
    """How many evaluations run: every `evaluate_interval` steps, else once per epoch."""
    interval = hp.get(Hyper.EVALUATE_INTERVAL)
    if not _is_int(interval) or interval <= 0:
        batch = hp.get(Hyper.BATCH_SIZE, DEFAULT_BATCH_SIZE)
        interval = max(1, example_count // batch) if _is_int(batch) and batch > 0 else steps
    return steps // max(1, interval)


def _hyper_parameters(inputs: dict[str, Any]) -> dict[str, Any]:
    hp = inputs.get(Input.HYPER_PARAMETERS)
    return hp if isinstance(hp, dict) else {}


def _rewards(inputs: dict[str, Any]) -> list[dict[str, Any]]:
    rewards = inputs.get(Input.REWARDS)
    return [r for r in rewards if isinstance(r, dict)] if isinstance(rewards, list) else []


def _reward_name(reward: dict[str, Any], index: int) -> str:
    name = reward.get(Reward.NAME)
    return name if isinstance(name, str) else f"{Input.REWARDS}[{index}]"


def _sampling_count(reward: dict[str, Any]) -> int:
    autorater = reward.get(Reward.AUTORATER)
    count = autorater.get(Scorer.SAMPLING_COUNT) if isinstance(autorater, dict) else None
    return count if _is_int(count) else DEFAULT_SAMPLING_COUNT


def default_assumptions(inputs: dict[str, Any]) -> Assumptions:
    """Assumptions for these inputs: the expected length follows the thinking level (HIGH if unset)."""
    hp = _hyper_parameters(inputs)
    level = hp.get(Hyper.THINKING_LEVEL) if isinstance(hp.get(Hyper.THINKING_LEVEL), str) else "HIGH"
    return Assumptions(expected_length=EXPECTED_LENGTH_BY_THINKING.get(level, 6000))


def estimate(
    inputs: dict[str, Any],
    *,
    prices: PriceTable = DEFAULT_PRICES,
    assumptions: Assumptions | None = None,
) -> Estimate | None:
    """Estimate a run from normalised inputs; None while the step count cannot be known.

    Per training step the service samples `batch_size × samples_per_prompt` responses, every
    reward scores each one, and each autorater reward calls its judge `sampling_count` times.
    Evaluation samples `validation examples × samples_per_prompt` responses per evaluation.
    """
    hp = _hyper_parameters(inputs)
    count = inputs.get(Input.TRAINING_EXAMPLE_COUNT)
    steps = total_steps(hp, count)
    if steps is None:
        return None
    a = assumptions or default_assumptions(inputs)
    batch = hp.get(Hyper.BATCH_SIZE, DEFAULT_BATCH_SIZE)
    samples = hp.get(Hyper.SAMPLES_PER_PROMPT, DEFAULT_SAMPLES_PER_PROMPT)
    batch = batch if _is_int(batch) else DEFAULT_BATCH_SIZE
    samples = samples if _is_int(samples) else DEFAULT_SAMPLES_PER_PROMPT
    per_step = batch * samples
    train_samples = steps * per_step
    example_count = count if _is_int(count) else batch * max(1, steps)
    evals = _eval_count(steps, hp, example_count)
    val_count = a.validation_example_count
    if val_count is None:
        val_count = default_validation_count(example_count)
    eval_samples = evals * val_count * samples

    low_len = a.expected_length * a.length_low_factor
    high_len = a.expected_length * a.length_high_factor
    sampled = Range(train_samples * low_len, train_samples * high_len)
    trained = Range(train_samples * (a.prompt_tokens + low_len), train_samples * (a.prompt_tokens + high_len))
    eval_tokens = Range(eval_samples * low_len, eval_samples * high_len)

    scorer_calls = train_samples + eval_samples
    scorer_by_reward: dict[str, int] = {}
    judge_by_reward: dict[str, int] = {}
    for i, reward in enumerate(_rewards(inputs)):
        name = _reward_name(reward, i)
        scorer_by_reward[name] = scorer_calls
        if isinstance(reward.get(Reward.AUTORATER), dict):
            judge_by_reward[name] = scorer_calls * _sampling_count(reward)

    breakdown = _costs(inputs, prices, a, sampled, trained, eval_tokens, train_samples, eval_samples)
    breakdown["judge"] = _judge_cost(inputs, prices, a, judge_by_reward)
    cloud_run_calls = sum(
        scorer_by_reward[_reward_name(r, i)]
        for i, r in enumerate(_rewards(inputs))
        if isinstance(r.get(Reward.CLOUD_RUN), dict)
    )
    cloud_run = cloud_run_calls * prices.cloud_run_per_m_calls / 1e6
    breakdown["cloud_run"] = Range(cloud_run, cloud_run)
    cost = Range(sum(r.low for r in breakdown.values()), sum(r.high for r in breakdown.values()))
    return Estimate(
        total_steps=steps,
        samples_per_step=per_step,
        train_samples=train_samples,
        eval_count=evals,
        eval_samples=eval_samples,
        sampled_tokens=sampled,
        trained_tokens=trained,
        eval_tokens=eval_tokens,
        scorer_calls=scorer_calls,
        scorer_calls_by_reward=scorer_by_reward,
        judge_calls=sum(judge_by_reward.values()),
        judge_calls_by_reward=judge_by_reward,
        cost_usd=Range(round(cost.low, 2), round(cost.high, 2)),
        cost_breakdown=breakdown,
        prices_source=prices.source,
        prices_as_of=prices.as_of,
        assumptions=a,
    )


def _costs(
    inputs: dict[str, Any],
    prices: PriceTable,
    a: Assumptions,
    sampled: Range,
    trained: Range,
    eval_tokens: Range,
    train_samples: int,
    eval_samples: int,
) -> dict[str, Range]:
    """Training, sampling and evaluation cost. Sampling is free in the low bound (UNCONFIRMED)."""
    model = prices.model(_base_model(inputs))
    training = Range(trained.low * model.training_per_m / 1e6, trained.high * model.training_per_m / 1e6)
    sampling_high = (
        sampled.high * model.output_per_m + train_samples * a.prompt_tokens * model.input_per_m
    ) / 1e6
    batch = prices.batch_discount
    eval_in = eval_samples * a.prompt_tokens * model.input_per_m * batch / 1e6
    evaluation = Range(
        eval_in + eval_tokens.low * model.output_per_m * batch / 1e6,
        eval_in + eval_tokens.high * model.output_per_m * batch / 1e6,
    )
    return {"training": training, "sampling": Range(0.0, sampling_high), "evaluation": evaluation}


def _base_model(inputs: dict[str, Any]) -> str | None:
    model = inputs.get(Input.BASE_MODEL)
    return model if isinstance(model, str) else None


def _judge_cost(
    inputs: dict[str, Any], prices: PriceTable, a: Assumptions, judge_by_reward: dict[str, int]
) -> Range:
    """Judge calls are Gemini calls billed as ordinary inference on the judge model."""
    low = high = 0.0
    for i, reward in enumerate(_rewards(inputs)):
        calls = judge_by_reward.get(_reward_name(reward, i))
        if not calls:
            continue
        model_name = reward[Reward.AUTORATER].get(Scorer.MODEL)
        judge = prices.model(model_name if isinstance(model_name, str) else None)
        into = calls * a.judge_input_tokens * judge.input_per_m
        low += (into + calls * a.judge_output_tokens_low * judge.output_per_m) / 1e6
        high += (into + calls * a.judge_output_tokens_high * judge.output_per_m) / 1e6
    return Range(low, high)


def tuned_inference_price(base_model: str | None, prices: PriceTable = DEFAULT_PRICES) -> ModelPrice:
    """Serving price of the tuned model: the base model's price × 1.5 (Gemini 3 onward; see
    docs/vertex.md, "Prices")."""
    base = prices.model(base_model)
    m = prices.tuned_inference_multiplier
    return ModelPrice(input_per_m=base.input_per_m * m, output_per_m=base.output_per_m * m)


def over_budget(est: Estimate, max_cost_usd: float) -> bool:
    """True when the estimate's upper bound exceeds the budget (the conservative reading)."""
    return math.isfinite(max_cost_usd) and est.cost_usd.high > max_cost_usd
