"""`tunifolk estimate`: what a run will cost, before it costs anything.

The figures come from `tunifolk/job/estimate.py`, the same estimate the Pulumi provider's `check`
compares with `max_cost_usd`, over inputs from the same builder `pulumi up` uses. Token counts
follow an expected length per sample (by thinking level, overridable), never the
`max_output_tokens` cap: a generation that stops at 800 tokens costs 800.

The inputs also go through the provider's own `check` (`tunifolk.job.checks`, whose limits live in
`tunifolk.job.limits`): a run it would refuse is priced as the service would run it (at most
`MAX_TOTAL_STEPS` steps), its refusals are printed, and the command exits 1, so an estimate never
quietly prices a run that `pulumi preview` and `tunifolk launch` stop.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from rich.table import Table

from tunifolk.cli import context
from tunifolk.cli.context import UsageError
from tunifolk.errors import PROBLEM
from tunifolk.job import estimate as est
from tunifolk.job import limits, wire
from tunifolk.job.bodies import build_tuning_job
from tunifolk.job.checks import check_inputs
from tunifolk.job.field_names import Hyper, Input, Output, Reward, Scorer
from tunifolk.job.fields import HYPER_PARAMETERS, SPEC_LABEL
from tunifolk.job.normalize import normalize


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "estimate",
        help="steps, tokens, reward calls and a cost range for the stack's run",
        description="Estimate the stack's run (or the run the flags describe): steps, sampled and "
        "trained tokens, scorer and judge calls, a cost range from a dated price table, and the tuned "
        "model's inference price (1.5x the base model's). The run goes through the same checks as "
        "`pulumi preview` (the same limits: at most 500 steps, ...): a run they refuse is priced at "
        "what the service would run, its problems are listed, and the exit code is 1.",
    )
    context.add_run_options(p)
    p.add_argument(
        "--examples",
        type=context.count("--examples"),
        help="training examples (default: lines in the stack's train file)",
    )
    p.add_argument("--batch-size", type=context.count("--batch-size"))
    p.add_argument("--samples-per-prompt", type=context.count("--samples-per-prompt"))
    p.add_argument("--epochs", type=context.count("--epochs"), help="epoch count (replaces a step count)")
    p.add_argument("--steps", type=context.count("--steps"), help="step count (replaces an epoch count)")
    p.add_argument(
        "--thinking-level",
        choices=next(f.choices for f in HYPER_PARAMETERS if f.name == Hyper.THINKING_LEVEL),
    )
    p.add_argument(
        "--expected-length",
        type=context.count("--expected-length"),
        help="expected tokens per sampled response, thinking included",
    )
    p.add_argument("--json", action="store_true", help="print the estimate as JSON")
    p.set_defaults(func=run)


def inputs_for(args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    """The stack's job inputs, from the builder `pulumi up` uses, with the flags applied, and the
    `tunifolk-spec` label the run will carry when every deployed value (URIs) is known."""
    hp = dict(context.stack_config(args).job[Input.HYPER_PARAMETERS])
    for name in (Hyper.BATCH_SIZE, Hyper.SAMPLES_PER_PROMPT):  # --batch-size, --samples-per-prompt
        if getattr(args, name) is not None:
            hp[name] = getattr(args, name)
    if args.epochs is not None:
        hp.pop(Hyper.STEP_COUNT, None)
        hp[Hyper.EPOCH_COUNT] = args.epochs
    if args.steps is not None:
        hp.pop(Hyper.EPOCH_COUNT, None)
        hp[Hyper.STEP_COUNT] = args.steps
    if args.thinking_level:
        hp[Hyper.THINKING_LEVEL] = args.thinking_level
    try:
        inputs = context.job_inputs(args, hyper_parameters=hp, example_count=args.examples)
    except UsageError:  # nothing deployed yet: an estimate needs no URI, only the label does
        inputs = context.job_inputs(
            args, hyper_parameters=hp, example_count=args.examples, require_deployed=False
        )
        return normalize(_unknown_where_undeployed(inputs)), None
    return normalize(inputs), build_tuning_job(inputs)["labels"][SPEC_LABEL]


def _unknown_where_undeployed(inputs: dict[str, Any]) -> dict[str, Any]:
    """Deployed values not known yet are unknown, as at a first `pulumi preview`: check passes them."""
    out = {**inputs, Input.TRAINING_DATASET_URI: inputs.get(Input.TRAINING_DATASET_URI) or wire.UNKNOWN}
    rewards = []
    for reward in inputs.get(Input.REWARDS) or []:
        run = reward.get(Reward.CLOUD_RUN)
        if isinstance(run, dict) and not run.get(Scorer.URI):
            reward = {**reward, Reward.CLOUD_RUN: {**run, Scorer.URI: wire.UNKNOWN}}
        rewards.append(reward)
    return {**out, Input.REWARDS: rewards} if rewards else out


def capped(inputs: dict[str, Any], steps: int) -> dict[str, Any]:
    """The inputs as the service would run them: past `MAX_TOTAL_STEPS` it stops there."""
    if steps <= limits.MAX_TOTAL_STEPS:
        return inputs
    hp = {k: v for k, v in inputs[Input.HYPER_PARAMETERS].items() if k != Hyper.EPOCH_COUNT}
    return {**inputs, Input.HYPER_PARAMETERS: {**hp, Hyper.STEP_COUNT: limits.MAX_TOTAL_STEPS}}


def _range(r: est.Range, money: bool = False) -> str:
    if money:
        return f"${r.low:,.0f} – ${r.high:,.0f}"
    return f"{r.low / 1e6:,.1f}M – {r.high / 1e6:,.1f}M"


def run(args: argparse.Namespace) -> int:
    inputs, label = inputs_for(args)
    checked = check_inputs(inputs)
    problems = [f"{path}: {reason}" for path, reason in checked.failures]
    asked = checked.total_steps
    assumptions = est.default_assumptions(inputs)
    if args.expected_length:
        assumptions = dataclasses.replace(assumptions, expected_length=args.expected_length)
    result = est.estimate(capped(inputs, asked or 0), assumptions=assumptions)
    if result is None:
        raise UsageError("the step count is unknown: set --epochs or --steps and --examples")
    code = PROBLEM if problems else 0
    base = inputs.get(Input.BASE_MODEL) or "gemini-3.5-flash"
    tuned = est.tuned_inference_price(base)
    if args.json:
        extra = {
            "tuned_inference_per_m": dataclasses.asdict(tuned),
            Output.SPEC_HASH: label,
            "asked_steps": asked,
            "check_problems": problems,
        }
        print(json.dumps({**result.as_dict(), **extra}, indent=2))
        return code
    table = Table(title=f"estimate for stack {context.stack_name(args)} ({base})", show_header=False)
    table.add_column("what", no_wrap=True)
    table.add_column("value")
    rows = [
        ("steps", _steps_text(result.total_steps, asked)),
        ("samples per step", f"{result.samples_per_step:,}"),
        ("training samples", f"{result.train_samples:,}"),
        ("evaluations / eval samples", f"{result.eval_count} / {result.eval_samples:,}"),
        ("sampled tokens (training phase)", _range(result.sampled_tokens)),
        ("trained tokens", _range(result.trained_tokens)),
        ("eval tokens", _range(result.eval_tokens)),
        ("scorer calls", ", ".join(f"{k} {v:,}" for k, v in result.scorer_calls_by_reward.items())),
        ("judge calls (× sampling count)", f"{result.judge_calls:,}"),
        ("cost range", _range(result.cost_usd, money=True)),
        *((f"  {part}", _range(r, money=True)) for part, r in result.cost_breakdown.items()),
        (
            "expected length per sample",
            f"{assumptions.expected_length:,} tokens (not the max_output_tokens cap)",
        ),
        (
            "tuned model inference",
            f"${tuned.input_per_m:.2f} in / ${tuned.output_per_m:.2f} out per 1M tokens",
        ),
        ("prices", f"{result.prices_source} (as of {result.prices_as_of})"),
        (f"{SPEC_LABEL} label", label or "(needs --scorer-uri, --train-uri, --validation-uri)"),
    ]
    for what, value in rows:
        table.add_row(what, value)
    out = context.console()
    out.print(table)
    for problem in problems:
        out.print(f"[red]check would refuse:[/] {problem}")
    if problems:
        out.print("[red]not runnable as it stands:[/] `pulumi preview` and `tunifolk launch` stop it")
    return code


def _steps_text(steps: int, asked: int | None) -> str:
    if asked is not None and asked > steps:
        return f"{steps} (the service stops at {limits.MAX_TOTAL_STEPS}; {asked} asked): priced at {steps}"
    return f"{steps}"
