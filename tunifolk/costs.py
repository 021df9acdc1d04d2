"""`tunifolk estimate`: what a run will cost, before it costs anything.

The figures come from `providers/estimate.py`, the same estimate the Pulumi provider's `check`
compares with `max_cost_usd`. Token counts follow an expected length per sample (by thinking level,
overridable), never the `max_output_tokens` cap: a generation that stops at 800 tokens costs 800.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from rich.table import Table

from providers import estimate as est
from providers import spec
from tunifolk import context
from tunifolk.context import ROOT, UsageError


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "estimate",
        help="steps, tokens, reward calls and a cost range for the stack's run",
        description="Estimate the stack's run (or the run the flags describe): steps, sampled and "
        "trained tokens, scorer and judge calls, a cost range from a dated price table, and the tuned "
        "model's inference price (1.5x the base model's).",
    )
    context.add_stack_options(p)
    p.add_argument(
        "--examples", type=int, help="training examples (default: lines in the stack's train file)"
    )
    p.add_argument("--batch-size", type=int)
    p.add_argument("--samples-per-prompt", type=int)
    p.add_argument("--epochs", type=int, help="epoch count (replaces a step count)")
    p.add_argument("--steps", type=int, help="step count (replaces an epoch count)")
    p.add_argument("--thinking-level", choices=("MINIMAL", "LOW", "MEDIUM", "HIGH"))
    p.add_argument(
        "--expected-length", type=int, help="expected tokens per sampled response, thinking included"
    )
    p.add_argument("--json", action="store_true", help="print the estimate as JSON")
    p.set_defaults(func=run)


def inputs_for(args: argparse.Namespace) -> dict[str, Any]:
    """The stack's job inputs as far as an estimate needs them, with the flags applied."""
    cfg = context.stack_config(args)
    hp = dict(cfg.hyper_parameters)
    for flag, key in (("batch_size", "batch_size"), ("samples_per_prompt", "samples_per_prompt")):
        if getattr(args, flag) is not None:
            hp[key] = getattr(args, flag)
    if args.epochs is not None:
        hp.pop("step_count", None)
        hp["epoch_count"] = args.epochs
    if args.steps is not None:
        hp.pop("epoch_count", None)
        hp["step_count"] = args.steps
    if args.thinking_level:
        hp["thinking_level"] = args.thinking_level
    examples = args.examples if args.examples is not None else context.count_lines(ROOT / cfg.dataset.train)
    return spec.normalize(
        {
            **cfg.job_inputs(),
            "rewards": cfg.rewards,
            "hyper_parameters": hp,
            "training_example_count": examples,
        }
    )


def _range(r: est.Range, money: bool = False) -> str:
    if money:
        return f"${r.low:,.0f} – ${r.high:,.0f}"
    return f"{r.low / 1e6:,.1f}M – {r.high / 1e6:,.1f}M"


def run(args: argparse.Namespace) -> int:
    inputs = inputs_for(args)
    assumptions = est.default_assumptions(inputs)
    if args.expected_length:
        assumptions = dataclasses.replace(assumptions, expected_length=args.expected_length)
    result = est.estimate(inputs, assumptions=assumptions)
    if result is None:
        raise UsageError("the step count is unknown: set --epochs or --steps and --examples")
    base = inputs.get("base_model") or "gemini-3.5-flash"
    tuned = est.tuned_inference_price(base)
    if args.json:
        print(json.dumps({**result.as_dict(), "tuned_inference_per_m": dataclasses.asdict(tuned)}, indent=2))
        return 0
    table = Table(title=f"estimate for stack {args.stack} ({base})", show_header=False)
    table.add_column("what", no_wrap=True)
    table.add_column("value")
    rows = [
        ("steps", f"{result.total_steps}"),
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
    ]
    for what, value in rows:
        table.add_row(what, value)
    context.console().print(table)
    return 0
