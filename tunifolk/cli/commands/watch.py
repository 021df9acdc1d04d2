"""`tunifolk watch`: a progress bar until the job ends; exit 1 if it failed, was cancelled or expired,
and 3 if `--timeout` ran out while the job is still live (neither success nor failure).

The job reports no step, so progress comes from the metric series: the last logged step, and the
live step after it while running.
"""

from __future__ import annotations

import argparse
import math
import time

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from tunifolk import metrics as job_metrics
from tunifolk import operations as ops
from tunifolk import tripwires
from tunifolk.cli import context, untrusted
from tunifolk.cli.context import PROBLEM
from tunifolk.errors import STILL_RUNNING
from tunifolk.health import FAIL, OK
from tunifolk.job.limits import FAILED_STATES, TERMINAL_STATES
from tunifolk.ledger.watching import LedgerWatch


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "watch",
        help="poll until the job ends, with a progress bar (exit 1 if it failed or was cancelled, "
        "3 if --timeout ran out first)",
    )
    context.add_job_options(p)
    context.add_ledger_option(p)
    p.add_argument(
        "--interval",
        type=context.positive_seconds("--interval"),
        default=30.0,
        help="seconds between polls (default 30)",
    )
    p.add_argument(
        "--timeout",
        type=context.positive_seconds("--timeout", zero=True),
        default=0.0,
        help="give up after this many seconds (0: never); giving up on a live job exits 3",
    )
    p.add_argument(
        "--cancel-on",
        choices=[tripwires.HACKING],
        help="cancel the job when this verdict fails (hacking: the rollout ledger's trip wires)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = context.job_name(args)
    dataset = context.ledger_dataset(args)
    out = context.console()
    deadline = time.monotonic() + args.timeout if args.timeout else None
    columns = (
        TextColumn("[bold]{task.fields[state]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta {task.fields[eta]}"),
        TextColumn("{task.fields[rewards]}"),
    )
    with context.client() as client, Progress(*columns, console=out, transient=False) as bar:
        task = bar.add_task("run", total=None, state="…", eta="?", rewards="")
        started, first_step = time.monotonic(), None
        ledger = LedgerWatch(client, name, dataset) if args.cancel_on else None
        while True:
            job = client.get_tuning_job(name)
            metrics = ops.try_metrics(client, job)
            if (
                ledger is not None
                and job.get("state") not in TERMINAL_STATES
                and _tripped(ledger, job, metrics)
            ):
                hacking = next(v for v in ledger.verdicts(job, metrics) if v.rule == tripwires.HACKING)
                client.cancel_tuning_job(name)
                out.print(Text("HACKING ", style="red") + untrusted.text(hacking.message))
                out.print(f"cancelled {name} (--cancel-on {args.cancel_on})")
                return PROBLEM
            total, step = ops.total_steps({}, job), job_metrics.completed_steps(job, metrics)
            first_step = step if first_step is None else first_step
            rate = (step - first_step) / max(time.monotonic() - started, 1e-9)
            eta = f"{(total - step) / rate:.0f}s" if total and rate > 0 else "?"
            bar.update(
                task,
                total=total,
                completed=step,
                state=escape(untrusted.visible(job.get("state", "?"))),
                eta=eta,
                rewards=_latest_rewards(metrics),
            )
            if job.get("state") in TERMINAL_STATES:
                break
            if deadline is not None and time.monotonic() > deadline:
                out.print(
                    f"stopped watching after {args.timeout:g}s; {name} is still {job.get('state')} "
                    f"(exit {STILL_RUNNING}): watch again, or raise --timeout"
                )
                return STILL_RUNNING
            time.sleep(args.interval)
    out.print(untrusted.text(f"{name} ended {job.get('state')}"))
    with context.client() as client:
        ledger = ledger or LedgerWatch(client, name, dataset)
        ledger.reader.client = client
        ledger.update()
        for v in ledger.verdicts(job, metrics):  # the trip wires, once, over the whole run
            if v.level != OK or v.rule == tripwires.HACKING:
                colour = "red" if v.level == FAIL else "yellow" if v.level != OK else "green"
                out.print(Text(f"{v.rule}: {v.level} ", style=colour) + untrusted.text(v.message))
    if job.get("state") in FAILED_STATES:
        error = (job.get("error") or {}).get("message")
        out.print(untrusted.text(error or "no error message", style="red"))
        return PROBLEM
    return 0


def _tripped(ledger: LedgerWatch, job: dict, metrics: job_metrics.Metrics | None) -> bool:
    """Whether the rollout ledger's HACKING verdict fails now (reading the new steps first)."""
    ledger.update()
    return any(v.rule == tripwires.HACKING and v.level == FAIL for v in ledger.verdicts(job, metrics))


def _latest_rewards(metrics: job_metrics.Metrics | None) -> str:
    if metrics is None:
        return ""
    parts = []
    for name in ["/train_mean_reward", *(f"{r}/train_mean_reward" for r in metrics.reward_names())]:
        value = metrics.latest(name)
        if value is not None and math.isfinite(value):
            parts.append(f"{name.split('/')[0] or 'reward'} {value:+.2f}")
    return " · ".join(parts)
