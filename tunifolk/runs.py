"""`tunifolk validate | launch | list | cancel`: dry-run the reward, start a run, see runs, stop one.

`validate` and `launch` use the very functions the Pulumi provider's create uses
(`providers/operations.py`): the same judge probe, the same validation request, the same refusal
rules and the same `tunifolk-spec` label — so a run launched here is adopted by a later `pulumi up`.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from providers import operations as ops
from providers import spec
from tunifolk import context
from tunifolk.context import PROBLEM


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "validate",
        help="dry-run the reward through the API (do not skip)",
        description="Check the stack's job inputs, probe each judge model in the tuning region, and "
        "send the validation example through validateReinforcementTuningReward with the job's own "
        "reward config. Prints a table per reward; exit 1 on any problem.",
    )
    context.add_run_options(p)
    p.set_defaults(func=validate)

    p = subcommands.add_parser(
        "launch",
        help="validate, then create the tuning job (or adopt the one with the same spec)",
        description="Validate as `tunifolk validate` does, then create the job with the same "
        "tunifolk-spec label the Pulumi provider uses, so a later `pulumi up` adopts it. A live job "
        "with the same spec is adopted, never duplicated.",
    )
    context.add_run_options(p)
    p.set_defaults(func=launch)

    p = subcommands.add_parser("list", help="list tuning jobs in the project and region")
    context.add_stack_options(p)
    p.add_argument("--filter", help='a list filter, e.g. labels.tunifolk-spec="0123abcd…"')
    p.set_defaults(func=list_jobs)

    p = subcommands.add_parser(
        "cancel",
        help="cancel a tuning job (best-effort: a job may still finish)",
        description="Ask Vertex to cancel the job, then print its state. Cancel is best-effort.",
    )
    context.add_job_options(p)
    p.set_defaults(func=cancel)


def _checked_inputs(args: argparse.Namespace) -> tuple[dict[str, Any] | None, list[str]]:
    report = spec.check_inputs(context.job_inputs(args))
    for warning in report.warnings:
        ops.say(f"warning: {warning}")
    return report.inputs, [f"{path}: {reason}" for path, reason in report.failures]


def _validate(args: argparse.Namespace) -> tuple[dict[str, Any] | None, bool]:
    """Run every check and print the reward table; returns the inputs and whether all passed."""
    out = context.console()
    inputs, failures = _checked_inputs(args)
    for line in failures:
        out.print(f"[red]check failed[/] {line}")
    if failures or inputs is None:
        return None, False
    with context.client() as client:
        judges = ops.judge_problems(client, inputs)
        for line in judges:
            out.print(f"[red]judge unavailable[/] {line}")
        response, problems = ops.validate_once(client, inputs)
    out.print(reward_table(response, spec.reward_names(inputs)))
    for problem in problems:
        out.print(f"[red]problem[/] {problem}")
    ok = not judges and not problems
    out.print("[green]reward validated: every reward present, finite, inside [-1, 1][/]" if ok else "")
    return inputs, ok


def reward_table(response: dict[str, Any], names: list[str]) -> Table:
    table = Table(title=f"reward validation — overall {_number(response.get('overallReward', 0.0))}")
    for column in ("reward", "value", "error", "aux info"):
        table.add_column(column, overflow="fold")
    details = response.get("rewardInfoDetails") or {}
    for name in names:
        entry = details.get(name)
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


def validate(args: argparse.Namespace) -> int:
    _, ok = _validate(args)
    return 0 if ok else PROBLEM


def launch(args: argparse.Namespace) -> int:
    inputs, ok = _validate(args)
    if not ok or inputs is None:
        context.console().print("[red]not launched:[/] fix the problems above first")
        return PROBLEM
    with context.client() as client:
        job = ops.create_or_adopt(client, inputs)
    out = context.console()
    out.print(f"job      {job['name']}")
    out.print(f"state    {job.get('state')}")
    out.print(f"steps    {ops.total_steps(inputs, job)}")
    out.print(f"console  {spec.console_url(job['name'])}")
    out.print(f"label    {spec.SPEC_LABEL}={(job.get('labels') or {}).get(spec.SPEC_LABEL)}")
    return 0


def list_jobs(args: argparse.Namespace) -> int:
    project, location = context.project_and_location(args)
    with context.client() as client:
        jobs = client.list_tuning_jobs(f"projects/{project}/locations/{location}", filter=args.filter)
    table = Table(title=f"tuning jobs in {project}/{location}")
    for column in ("job id", "state", "created", "display name", "spec"):
        table.add_column(column, no_wrap=True)
    for job in jobs:
        table.add_row(
            job["name"].rsplit("/", 1)[-1],
            job.get("state", ""),
            job.get("createTime", ""),
            job.get("tunedModelDisplayName", ""),
            (job.get("labels") or {}).get(spec.SPEC_LABEL, ""),
        )
    context.console().print(table)
    return 0


def cancel(args: argparse.Namespace) -> int:
    name = context.job_name(args)
    with context.client() as client:
        client.cancel_tuning_job(name)
        job = client.get_tuning_job(name)
    context.console().print(f"cancel requested for {name}; state now {job.get('state')} (best-effort)")
    return 0
