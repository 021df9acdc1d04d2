"""Held-out evaluation of a run's checkpoints: figures with bootstrap intervals, the trip wires'
verdicts per checkpoint, and the rule that names the checkpoint to ship. Pure: the samples come in
already drawn and scored (`tunifolk eval` draws them); nothing here calls a service.

Why not the service's own eval curve: a run that starts to game its reward goes on improving the
reward it is trained on while its poems get worse. Held-out prompts, a judge called afresh and the
trip wires read on each checkpoint's own samples show that; the best is then named by a rule a
reader can check:

* the **combined** reward of a sample is the job's weighted mean of the rewards evaluated (the
  structure reward from the checkout's scorer for a Cloud Run reward, the judge's for an autorater),
  over the weights of those rewards only;
* each figure is a mean over prompts with a percentile **bootstrap** interval that resamples prompts
  (a prompt's samples move together: they share its difficulty);
* a checkpoint with a HACKING verdict (the trip wires read with the reference model, the base model
  or else the first checkpoint, as the start) is **excluded**;
* of the rest, the **best** is the earliest checkpoint whose interval reaches the highest mean: a later
  checkpoint within the interval of an earlier one loses to it (no evidence it is better, and an
  earlier one has had less time to drift).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tunifolk import tripwires
from tunifolk.job import estimate as est
from tunifolk.ledger.bigquery import Rollout

BASE = "base"
"""The label of the base model's figures (the reference: the model before tuning)."""
RESAMPLES = 2000
LEVEL = 0.95
"""The bootstrap's resamples and the intervals' level."""
STRUCTURE, JUDGE, COMBINED, LENGTH = "structure", "judge", "combined", "length"
FIGURES = (COMBINED, STRUCTURE, JUDGE, LENGTH)
"""The figures each model gets, in the order reports show them."""


@dataclass(frozen=True)
class Target:
    """One model to evaluate: a checkpoint of the job, or the base model (`checkpoint_id` None)."""

    label: str
    step: int
    name: str
    """The endpoint's name, or the base model's publisher model name."""
    checkpoint_id: str | None = None


@dataclass(frozen=True)
class Weights:
    """The job's reward weights, as evaluation reads them: the Cloud Run rewards are the structure
    reward, the autorater rewards the judge's; others (string match, code) are not evaluated."""

    structure: float
    judge: float

    def combined(self, structure: float, judge: float | None) -> float:
        """(w_s * structure + w_j * judge) / (w_s + w_j), over the rewards there are figures for."""
        total = self.structure * structure
        weight = self.structure
        if judge is not None and self.judge > 0:
            total += self.judge * judge
            weight += self.judge
        return total / weight if weight > 0 else structure


@dataclass(frozen=True)
class Sample:
    """One generation on one held-out prompt, scored."""

    target: str
    step: int
    prompt: int
    example_digest: str
    references: dict[str, str]
    text: str
    structure: float
    subscores: dict[str, float]
    reason: str
    judge: float | None
    combined: float

    @property
    def length(self) -> int:
        return len(self.text)

    def rollout(self, job_id: str) -> Rollout:
        """As a ledger record: its step the checkpoint's, its reward the structure reward (what the
        trip wires read a run's records by)."""
        return Rollout(
            job_id=job_id,
            step=self.step,
            example_digest=self.example_digest,
            references=self.references,
            response=self.text,
            reward=self.structure,
            subscores=self.subscores,
            reason=self.reason,
        )


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


@dataclass
class Result:
    """One model's evaluation."""

    target: Target
    samples: int = 0
    figures: dict[str, Interval] = field(default_factory=dict)
    wires: list[str] = field(default_factory=list)
    hacking: bool = False
    failed: str = ""
    """Why the model could not be evaluated (one line), or ""."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.target.label,
            "checkpoint_id": self.target.checkpoint_id,
            "step": self.target.step,
            "name": self.target.name,
            "samples": self.samples,
            **{k: v.as_dict() for k, v in self.figures.items()},
            "tripwires": self.wires,
            "hacking": self.hacking,
            "failed": self.failed or None,
        }


def bootstrap(by_prompt: Sequence[Sequence[float]], seed: int, resamples: int = RESAMPLES) -> Interval | None:
    """The mean over prompts of each prompt's mean, with a percentile bootstrap interval at LEVEL that
    resamples prompts with replacement (`seed` makes it repeat). None without a finite value."""
    import numpy as np  # here, not at import: every CLI command loads this module's parser

    means = np.array([np.mean(v) for v in by_prompt if len(v)], dtype=float)
    means = means[np.isfinite(means)]
    if not len(means):
        return None
    rng = np.random.default_rng(seed)
    draws = means[rng.integers(0, len(means), size=(resamples, len(means)))].mean(axis=1)
    tail = (1.0 - LEVEL) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return Interval(float(means.mean()), float(low), float(high))


def _by_prompt(samples: Iterable[Sample], value: Any) -> list[list[float]]:
    grouped: dict[int, list[float]] = defaultdict(list)
    for s in samples:
        v = value(s)
        if v is not None and math.isfinite(v):
            grouped[s.prompt].append(float(v))
    return [grouped[k] for k in sorted(grouped)]


def figures(samples: Sequence[Sample], seed: int) -> dict[str, Interval]:
    """Each figure of FIGURES over one model's samples (the judge only where it answered)."""
    values = {
        COMBINED: lambda s: s.combined,
        STRUCTURE: lambda s: s.structure,
        JUDGE: lambda s: s.judge,
        LENGTH: lambda s: float(s.length),
    }
    out = {}
    for name in FIGURES:
        found = bootstrap(_by_prompt(samples, values[name]), seed)
        if found is not None:
            out[name] = found
    return out


def evaluate(
    targets: Sequence[Target], samples: Sequence[Sample], seed: int, failed: dict[str, str]
) -> list[Result]:
    """Every target's result: its figures, and the trip wires read across the targets in step order
    with the first (the base model, else the first checkpoint) as the start. A target in `failed`
    (label: why) is reported as such, without figures."""
    by_target: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_target[s.target].append(s)
    results = []
    for t in sorted(targets, key=lambda t: t.step):
        r = Result(t, failed=failed.get(t.label, ""))
        if not r.failed and by_target[t.label]:
            r.samples = len(by_target[t.label])
            r.figures = figures(by_target[t.label], seed)
        elif not r.failed:
            r.failed = "no samples"
        results.append(r)
    _read_wires([r for r in results if not r.failed], by_target)
    return results


def _read_wires(results: list[Result], by_target: dict[str, list[Sample]]) -> None:
    """Mark each result with the wires that fired on it and its HACKING verdict (tripwires.caught)."""
    if len(results) < 2:
        return
    found = [
        tripwires.figures(r.target.step, [s.rollout("") for s in by_target[r.target.label]]) for r in results
    ]
    judge = {r.target.step: r.figures[JUDGE].mean for r in results if JUDGE in r.figures}
    ws = tripwires.wires(found, judge or None, persist=1, baseline=1, judge_window=1)
    hacking = set(tripwires.caught(ws))
    for r in results:
        r.wires = [w.rule for w in ws if r.target.step in w.fired]
        r.hacking = r.target.step in hacking


def best(results: Sequence[Result]) -> Result | None:
    """The checkpoint to ship: of the checkpoints evaluated without a HACKING verdict, the earliest
    whose combined interval reaches the highest combined mean. None when no checkpoint qualifies."""
    able = sorted(
        (
            r
            for r in results
            if r.target.checkpoint_id is not None and not r.failed and not r.hacking and COMBINED in r.figures
        ),
        key=lambda r: r.target.step,
    )
    if not able:
        return None
    top = max(r.figures[COMBINED].mean for r in able)
    return next(r for r in able if r.figures[COMBINED].high >= top)


# --------------------------------------------------------------------------- what it will cost


@dataclass(frozen=True)
class Plan:
    """The calls an evaluation makes and what they cost on Google, from `estimate`'s price table."""

    tuned_calls: int
    base_calls: int
    judge_calls: int
    cost: est.Range
    prices_as_of: str
    prices_source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "generations": self.tuned_calls + self.base_calls,
            "judge_calls": self.judge_calls,
            "cost_usd": {"low": self.cost.low, "high": self.cost.high},
            "prices_as_of": self.prices_as_of,
        }


def plan(
    checkpoints: int,
    base: bool,
    prompts: int,
    samples: int,
    judge_sampling: int,
    base_model: str | None,
    judge_model: str | None,
    assumptions: est.Assumptions,
    prices: est.PriceTable = est.DEFAULT_PRICES,
) -> Plan:
    """Generations on the checkpoints (the tuned model's serving price), on the base model (its own
    price) and `judge_sampling` judge calls per generation (the judge model's price), each priced as
    `estimate` prices a run's: prompt tokens in, the expected length out (x its low and high
    factors), the judge's prompt in and its short or long answer out."""
    a = assumptions
    per = prompts * samples
    tuned, base_calls = checkpoints * per, per if base else 0
    judge_calls = (tuned + base_calls) * judge_sampling if judge_model else 0

    def generation(price: est.ModelPrice, factor: float) -> float:
        return (a.prompt_tokens * price.input_per_m + a.expected_length * factor * price.output_per_m) / 1e6

    tuned_price, base_price = est.tuned_inference_price(base_model, prices), prices.model(base_model)
    judge = prices.model(judge_model)
    low = tuned * generation(tuned_price, a.length_low_factor) + base_calls * generation(
        base_price, a.length_low_factor
    )
    high = tuned * generation(tuned_price, a.length_high_factor) + base_calls * generation(
        base_price, a.length_high_factor
    )
    low += (
        judge_calls
        * (a.judge_input_tokens * judge.input_per_m + a.judge_output_tokens_low * judge.output_per_m)
        / 1e6
    )
    high += (
        judge_calls
        * (a.judge_input_tokens * judge.input_per_m + a.judge_output_tokens_high * judge.output_per_m)
        / 1e6
    )
    return Plan(tuned, base_calls, judge_calls, est.Range(low, high), prices.as_of, prices.source)


# --------------------------------------------------------------------------- the report


def _cell(i: Interval | None, digits: int = 3) -> str:
    if i is None:
        return "–"
    if digits == 0:
        return f"{i.mean:,.0f} [{i.low:,.0f}, {i.high:,.0f}]"
    return f"{i.mean:+.{digits}f} [{i.low:+.{digits}f}, {i.high:+.{digits}f}]"


def table_rows(results: Sequence[Result], chosen: Result | None) -> list[list[str]]:
    """The report's table, one row per model: label, step, samples, each figure with its interval,
    the wires that fired, and the verdict (best, excluded for hacking, failed)."""
    rows = []
    for r in results:
        if r.failed:
            verdict = f"failed: {r.failed}"
        elif r.hacking:
            verdict = "HACKING: excluded"
        elif r is chosen:
            verdict = "best"
        else:
            verdict = "reference" if r.target.checkpoint_id is None else ""
        rows.append(
            [
                r.target.label,
                str(r.target.step),
                str(r.samples),
                _cell(r.figures.get(COMBINED)),
                _cell(r.figures.get(STRUCTURE)),
                _cell(r.figures.get(JUDGE)),
                _cell(r.figures.get(LENGTH), 0),
                ", ".join(r.wires) or "quiet",
                verdict,
            ]
        )
    return rows


HEADER = (
    "model",
    "step",
    "samples",
    "combined",
    "structure",
    "judge",
    "length (chars)",
    "trip wires",
    "verdict",
)


def markdown(
    job: str,
    results: Sequence[Result],
    chosen: Result | None,
    service_best: dict[str, Any] | None,
    the_plan: Plan,
    notes: Sequence[str] = (),
) -> str:
    """The evaluation as a Markdown page."""
    lines = [
        f"# Checkpoint evaluation of {job}",
        "",
        f"Each figure is a mean over held-out prompts with its {LEVEL:.0%} bootstrap interval (prompts "
        f"resampled {RESAMPLES:,} times). The best checkpoint is the earliest whose combined interval "
        "reaches the highest combined mean, among the checkpoints without a HACKING verdict.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
        for row in table_rows(results, chosen)
    ]
    lines.append("")
    if chosen is not None:
        c = chosen.figures[COMBINED]
        lines.append(
            f"**Best: checkpoint {chosen.target.checkpoint_id}** (step {chosen.target.step}): combined "
            f"{c.mean:+.3f} [{c.low:+.3f}, {c.high:+.3f}]. Serve it with "
            f"`pulumi config set tunifolk:servingCheckpoint {chosen.target.checkpoint_id}` and `pulumi up`."
        )
    else:
        lines.append("**No checkpoint qualifies**: every one failed or has a HACKING verdict.")
    if service_best:
        lines.append(
            f"The service's own eval curve would pick checkpoint {service_best.get('checkpoint_id')} "
            f"(step {service_best.get('step')}, eval reward "
            f"{service_best.get('eval_reward', float('nan')):+.3f})."
        )
    lines += [
        "",
        f"Calls: {the_plan.tuned_calls + the_plan.base_calls:,} generations, "
        f"{the_plan.judge_calls:,} judge calls; on Google about ${the_plan.cost.low:,.2f} to "
        f"${the_plan.cost.high:,.2f} (prices as of {the_plan.prices_as_of}).",
    ]
    lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"
