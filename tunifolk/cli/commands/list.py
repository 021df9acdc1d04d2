"""`tunifolk list`: the tuning jobs in the project and region, with their spec labels."""

from __future__ import annotations

import argparse

from rich.table import Table

from tunifolk.cli import context
from tunifolk.job.fields import SPEC_LABEL


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser("list", help="list tuning jobs in the project and region")
    context.add_stack_options(p)
    p.add_argument("--filter", help=f'a list filter, e.g. labels.{SPEC_LABEL}="0123abcd…"')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
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
            (job.get("labels") or {}).get(SPEC_LABEL, ""),
        )
    context.console().print(table)
    return 0
