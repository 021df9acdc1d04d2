"""`tunifolk validate`: check the stack's job inputs and dry-run the reward through the API.

It runs the very steps the Pulumi provider's create runs (`providers/operations.py`): the static
checks, the judge probe, the validation request with the job's own reward config, and the same
refusal rules. `tunifolk launch` runs it first.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from tunifolk import operations as ops
from tunifolk.cli import context
from tunifolk.cli.context import PROBLEM
from tunifolk.job import bodies, checks


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "validate",
        help="dry-run the reward through the API (do not skip)",
        description="Check the stack's job inputs, probe each judge model in the tuning region, and "
        "send the validation example through validateReinforcementTuningReward with the job's own "
        "reward config. Prints a table per reward; exit 1 on any problem.",
    )
    context.add_run_options(p)
    p.set_defaults(func=run)


def validated_inputs(args: argparse.Namespace) -> dict[str, Any] | None:
    """Run every check and print the reward table; the inputs when all passed, else None."""
    out = context.console()
    report = checks.check_inputs(context.job_inputs(args))
    for warning in report.warnings:
        ops.say(f"warning: {warning}")
    for path, reason in report.failures:
        out.print(f"[red]check failed[/] {path}: {reason}")
    if report.failures:
        return None
    inputs = report.inputs
    with context.client() as client:
        judges = ops.judge_problems(client, inputs)
        for line in judges:
            out.print(f"[red]judge unavailable[/] {line}")
        response, problems = ops.validate_once(client, inputs)
    out.print(reward_table(response, bodies.reward_names(inputs)))
    for problem in problems:
        out.print(f"[red]problem[/] {problem}")
    if judges or problems:
        return None
    out.print("[green]reward validated: every reward present, finite, inside [-1, 1][/]")
    return inputs


def reward_table(response: dict[str, Any], names: list[str]) -> Table:
    table = Table(title=f"reward validation — overall {_number(response.get('overallReward', 0.0))}")
    for column in ("reward", "value", "error", "aux info"):
        table.add_column(column, overflow="fold")
    details = response.get("rewardInfoDetails") or {}
    for name in names:
        entry = details.get(name)
        if entry is None and len(names) == 1 and not details:
            entry = {"reward": response.get("overallReward", 0.0)}  # a single reward's own answer
        if entry is None:
            table.add_row(name, "[red]missing[/]", "", "")
            continue
        error = (entry.get("errorStatus") or {}).get("message", "")
        table.add_row(name, _number(entry.get("reward", 0.0)), error, entry.get("userRequestedAuxInfo", ""))
    top = (response.get("errorStatus") or {}).get("message") or response.get("error")
    if top:
        table.add_row("(call)", "", str(top), "")
    return table


def _number(value: Any) -> str:
    """A ProtoJSON float for people: 4 decimals, or Google's NaN/Infinity strings as they came."""
    return f"{value:.4f}" if isinstance(value, (int, float)) else f"[red]{value}[/]"


def run(args: argparse.Namespace) -> int:
    return 0 if validated_inputs(args) is not None else PROBLEM
