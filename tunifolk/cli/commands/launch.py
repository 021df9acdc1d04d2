"""`tunifolk launch`: validate, then create the tuning job, or adopt the live one with its spec.

The job carries the same `tunifolk-spec` label the Pulumi provider sets, built from the same
inputs (`tunifolk.job.inputs`), so a later `pulumi up` adopts a run launched here.
"""

from __future__ import annotations

import argparse

from tunifolk import operations as ops
from tunifolk.cli import context
from tunifolk.cli.commands.validate import validated_inputs
from tunifolk.cli.context import PROBLEM
from tunifolk.job.fields import SPEC_LABEL
from tunifolk.vertex import console_url


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "launch",
        help="validate, then create the tuning job (or adopt the one with the same spec)",
        description="Validate as `tunifolk validate` does, then create the job with the same "
        "tunifolk-spec label the Pulumi provider uses, so a later `pulumi up` adopts it. A live job "
        "with the same spec is adopted, never duplicated.",
    )
    context.add_run_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    inputs = validated_inputs(args)
    out = context.console()
    if inputs is None:
        out.print("[red]not launched:[/] fix the problems above first")
        return PROBLEM
    with context.client() as client:
        job = ops.create_or_adopt(client, inputs)
    out.print(f"job      {job['name']}")
    out.print(f"state    {job.get('state')}")
    out.print(f"steps    {ops.total_steps(inputs, job)}")
    out.print(f"console  {console_url(job['name'])}")
    out.print(f"label    {SPEC_LABEL}={(job.get('labels') or {}).get(SPEC_LABEL)}")
    return 0
