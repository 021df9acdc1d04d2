"""`tunifolk cancel`: ask Vertex to cancel a tuning job (best effort: a job may still finish)."""

from __future__ import annotations

import argparse

from tunifolk.cli import context


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "cancel",
        help="cancel a tuning job (best-effort: a job may still finish)",
        description="Ask Vertex to cancel the job, then print its state. Cancel is best-effort.",
    )
    context.add_job_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = context.job_name(args)
    with context.client() as client:
        client.cancel_tuning_job(name)
        job = client.get_tuning_job(name)
    context.console().print(f"cancel requested for {name}; state now {job.get('state')} (best-effort)")
    return 0
