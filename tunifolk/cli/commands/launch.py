"""`tunifolk launch`: validate, then create the tuning job, or adopt the one with its spec.

The job carries the same `tunifolk-spec` label the Pulumi provider sets, built from the same
inputs (`tunifolk.job.inputs`), so a later `pulumi up` adopts a run launched here.

What a second `launch` of the same config does (the label is a hash of the request):
- a live job with that spec (pending, queued, running, paused) is adopted: it is the run already
  under way, and a second one would bill twice;
- a succeeded one whose tuned model still exists is reported, with its endpoint, and nothing is
  started: the run asked for is done. `--new` starts a fresh run anyway: it stamps the job's
  description, which makes it another spec (labels are not part of the hash);
- a failed, cancelled or expired one (or a success whose model was deleted) is left alone, and a new
  job is created.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tunifolk import operations as ops
from tunifolk.cli import context
from tunifolk.cli.commands.validate import validated_inputs
from tunifolk.cli.context import PROBLEM
from tunifolk.job import bodies
from tunifolk.job.field_names import Input
from tunifolk.job.fields import SPEC_LABEL
from tunifolk.job.limits import SUCCEEDED_STATES
from tunifolk.vertex import console_url


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "launch",
        help="validate, then create the tuning job (or adopt the live one with the same spec)",
        description="Validate as `tunifolk validate` does, then create the job with the same "
        "tunifolk-spec label the Pulumi provider uses, so a later `pulumi up` adopts it. A live job "
        "with the same spec is adopted, never duplicated; if one already succeeded, its endpoint is "
        "printed and nothing starts (--new starts a fresh run).",
    )
    context.add_run_options(p)
    p.add_argument(
        "--new",
        action="store_true",
        help="start a fresh run even if one with the same spec succeeded: stamps the job's "
        "description with the time, so the run has a spec of its own",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    inputs = validated_inputs(args)
    out = context.console()
    if inputs is None:
        out.print("[red]not launched:[/] fix the problems above first")
        return PROBLEM
    if args.new:
        inputs = _stamped(inputs)
    with context.client() as client:
        label = bodies.build_tuning_job(inputs)["labels"][SPEC_LABEL]
        existing = ops.adoptable(client, bodies.parent_of(inputs), label)
        job = existing or ops.create_or_adopt(client, inputs)
    state = job.get("state")
    if existing is None:
        out.print(f"started a new run: no live or succeeded job carries {SPEC_LABEL}={label}")
    elif state in SUCCEEDED_STATES:
        out.print(
            f"[yellow]not started:[/] this spec already ran and {state}; its endpoint is below. "
            "`tunifolk launch --new` starts a fresh run"
        )
    else:
        out.print(f"adopted the live run with the same spec ({state}): no second job started")
    out.print(f"job      {job['name']}")
    out.print(f"state    {state}")
    out.print(f"steps    {ops.total_steps(inputs, job)}")
    if state in SUCCEEDED_STATES:
        out.print(f"endpoint {(job.get('tunedModel') or {}).get('endpoint')}")
    out.print(f"console  {console_url(job['name'])}")
    out.print(f"label    {SPEC_LABEL}={(job.get('labels') or {}).get(SPEC_LABEL)}")
    if args.new:
        description = inputs[Input.DESCRIPTION]
        out.print(
            "a later `pulumi up` adopts this run only with the same description: "
            f"pulumi config set tunifolk:description '{description}'"
        )
    return 0


def _stamped(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs with the launch time in the description: another request, so another spec label."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    base = inputs.get(Input.DESCRIPTION)
    return {**inputs, Input.DESCRIPTION: f"{base} (fresh run {stamp})" if base else f"fresh run {stamp}"}
