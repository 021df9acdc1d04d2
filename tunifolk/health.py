"""Health rules for a running or finished RLFT job: pure functions over its metric series.

A run reports almost nothing by itself, and the signs that it is being gamed or about to abort are
spread over dozens of series. Each rule here reads the series that matter and returns a `Verdict`
with the numbers behind it, so an operator can check the call rather than trust it:

* **divergence** — one reward rising while another falls (structure up, poetic_quality down) is the
  reward-hacking signature: the policy found a way to please one scorer at the other's expense;
* **generation length** — collapsing toward the minimum is length gaming; drifting to the
  `max_output_tokens` cap means generations (thinking included) are about to be truncated;
* **reward rpc errors** — above 0.8 errored invocations the service aborts the job (run so far, or a
  window: UNCONFIRMED, so one step over the line already warns);
* **learnable prompts** — the share of samples that carry a learning signal after filtering;
* **clipping** — rewards hitting the [-1, 1] clip often means the reward's scale is wrong.

Thresholds are module constants, named and documented, so they are easy to tune and to test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tunifolk.job import limits
from tunifolk.metrics import Metrics, Point

OK, WARN, FAIL = "ok", "warn", "fail"
DIVERGENCE_DELTA = 0.15  # a reward "moved" when its window mean changed by this much
LENGTH_COLLAPSE_RATIO = 0.5  # late mean below half the early mean: the policy writes less and less
LENGTH_CAP_SHARE = 0.9  # late mean above 90 % of max_output_tokens: truncation is near
RPC_ERROR_ABORT = limits.ERRORED_REWARD_LIMIT  # the service aborts the job above this errored share
RPC_ERROR_WARN = 0.2
LEARNABLE_WARN = 0.25  # fewer learnable prompts than this: most groups carry no signal
CLIPPING_WARN = 0.2


@dataclass(frozen=True)
class Verdict:
    rule: str
    level: str
    message: str
    figures: dict[str, float] = field(default_factory=dict)


def window_means(points: list[Point], share: float = 0.25) -> tuple[float, float] | None:
    """Mean of the first and of the last `share` of the finite points (at least one point each)."""
    values = [p.value for p in points if math.isfinite(p.value)]
    if len(values) < 2:
        return None
    k = max(1, int(len(values) * share))
    return sum(values[:k]) / k, sum(values[-k:]) / k


def latest_by_reward(metrics: Metrics, series: str) -> dict[str, float]:
    """The latest value of `{reward}/{series}` for every reward that logged it."""
    found = {r: metrics.latest(f"{r}/{series}") for r in metrics.reward_names()}
    return {r: v for r, v in found.items() if v is not None}


def divergence(metrics: Metrics) -> Verdict:
    moves = {}
    for reward in metrics.reward_names():
        means = window_means(metrics.values(f"{reward}/train_mean_reward"))
        if means is not None:
            moves[reward] = means
    figures = {f"{r}_{edge}": v for r, (a, b) in moves.items() for edge, v in (("early", a), ("late", b))}
    if len(moves) < 2:
        return Verdict("divergence", OK, "fewer than two rewards logged: nothing to compare", figures)
    rising = sorted(r for r, (a, b) in moves.items() if b - a >= DIVERGENCE_DELTA)
    falling = sorted(r for r, (a, b) in moves.items() if a - b >= DIVERGENCE_DELTA)
    if rising and falling:
        detail = "; ".join(f"{r} {moves[r][0]:+.2f} → {moves[r][1]:+.2f}" for r in rising + falling)
        return Verdict(
            "divergence",
            FAIL,
            f"{', '.join(rising)} rising while {', '.join(falling)} falls ({detail}): the reward-hacking "
            "signature — sample the latest checkpoint and read what it writes",
            figures,
        )
    return Verdict("divergence", OK, "rewards move together", figures)


def generation_length(metrics: Metrics, max_output_tokens: int | None) -> Verdict:
    means = window_means(metrics.values("/train_generation_length"))
    if means is None:
        return Verdict("generation_length", OK, "not logged yet")
    early, late = means
    figures = {"early_tokens": early, "late_tokens": late}
    if max_output_tokens:
        figures["max_output_tokens"] = float(max_output_tokens)
        if late >= LENGTH_CAP_SHARE * max_output_tokens:
            return Verdict(
                "generation_length",
                FAIL,
                f"generations average {late:.0f} tokens, {late / max_output_tokens:.0%} of the "
                f"{max_output_tokens} cap (thinking included): poems are being truncated",
                figures,
            )
    if early > 0 and late < LENGTH_COLLAPSE_RATIO * early:
        return Verdict(
            "generation_length",
            WARN,
            f"generation length collapsed from {early:.0f} to {late:.0f} tokens: length gaming?",
            figures,
        )
    return Verdict("generation_length", OK, f"{early:.0f} → {late:.0f} tokens", figures)


ERRORED_SERIES = ("train_rpc_error_ratio", "train_invalid_rpc_response_ratio")
"""A reward's errored share of a step: its RPC errors and its invalid answers (a NaN), which the
service counts alike toward the abort line."""


def errored_shares(metrics: Metrics, reward: str) -> list[float]:
    """One errored share per logged step of `reward` (the sum of ERRORED_SERIES at that step)."""
    by_step: dict[int, float] = {}
    for series in ERRORED_SERIES:
        for p in metrics.values(f"{reward}/{series}"):
            if math.isfinite(p.value):
                by_step[p.step] = by_step.get(p.step, 0.0) + p.value
    return [by_step[step] for step in sorted(by_step)]


def rpc_errors(metrics: Metrics) -> Verdict:
    """Against the abort line (`limits.ERRORED_REWARD_LIMIT`, the emulator's rule too): FAIL once the run
    so far is over it; WARN as soon as one step is, since whether the service counts a window is
    UNCONFIRMED (better early than late); WARN, too, when no reward logged the series at all, since a
    job can then abort unseen."""
    shares = {r: errored_shares(metrics, r) for r in metrics.reward_names()}
    shares = {r: s for r, s in shares.items() if s}
    last = {r: s[-1] for r, s in shares.items()}
    if not shares:
        return Verdict(
            "rpc_errors",
            WARN,
            "cannot see: no reward logged its rpc error series (a single-reward job may not); watch "
            "/train_mean_reward for NaN and the job's error",
        )
    run = {r: sum(s) / len(s) for r, s in shares.items()}
    figures = {**last, **{f"{r}_run": v for r, v in run.items()}}
    line = RPC_ERROR_ABORT
    name = max(run, key=lambda r: (run[r], last[r]))
    late = max(last, key=lambda r: last[r])
    if limits.over_error_limit(run[name], 1.0):
        level, note = FAIL, f"{run[name]:.2f} of the run so far errored, over the {line} line: the job stops"
    elif last[late] > line:
        name, level = late, WARN
        note = (
            f"over the {line} line at the last step ({run[late]:.2f} of the run so far): the job stops now "
            "if the service counts a window (UNCONFIRMED); check the scorer and IAM"
        )
    elif max(last[name], run[name]) > RPC_ERROR_WARN:
        level, note = WARN, f"rising toward the {line} abort line: check the scorer's health and IAM"
    else:
        level, note = OK, f"well under the {line} abort line"
    return Verdict("rpc_errors", level, f"{name} reward errored share {last[name]:.2f}, {note}", figures)


def learnable_prompts(metrics: Metrics) -> Verdict:
    latest = metrics.latest("/learnable_prompt_ratio")
    if latest is None:
        return Verdict("learnable_prompts", OK, "not logged yet")
    figures = {"learnable_prompt_ratio": latest}
    if latest < LEARNABLE_WARN:
        return Verdict(
            "learnable_prompts",
            WARN,
            f"only {latest:.0%} of samples survive filtering: most groups score alike and teach nothing",
            figures,
        )
    return Verdict("learnable_prompts", OK, f"{latest:.0%} of samples are learnable", figures)


def clipping(metrics: Metrics) -> Verdict:
    figures = latest_by_reward(metrics, "train_clipping_rewards_ratio")
    clipped = sorted(r for r, v in figures.items() if v > CLIPPING_WARN)
    if clipped:
        return Verdict(
            "clipping",
            WARN,
            f"{', '.join(clipped)} hit the [-1, 1] clip in over {CLIPPING_WARN:.0%} of samples: "
            "rescale the reward",
            figures,
        )
    return Verdict("clipping", OK, "rewards stay inside [-1, 1]", figures)


def verdicts(metrics: Metrics, max_output_tokens: int | None = None) -> list[Verdict]:
    return [
        divergence(metrics),
        generation_length(metrics, max_output_tokens),
        rpc_errors(metrics),
        learnable_prompts(metrics),
        clipping(metrics),
    ]


def unhealthy(found: list[Verdict]) -> bool:
    return any(v.level == FAIL for v in found)
