"""`tunifolk status`: one report on a run, from the job and its metric series.

GetTuningJob says almost nothing about progress, so the report (`tunifolk/report.py`) is built
from the job *and* its metrics: the live step, the curves as sparklines, the health verdicts with
their numbers, the checkpoints with their eval reward.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tunifolk.cli import context
from tunifolk.cli.context import PROBLEM
from tunifolk.cli.report import plot, read_report, render_json, render_markdown, render_terminal


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "status",
        help="one report: state, step/total, curves, health verdicts, checkpoints",
        description="Read the job and every metric series; print the state, the live step, the curves "
        "that matter as sparklines, health verdicts with the numbers behind them, and the checkpoints "
        "with their eval reward. Exit 1 when the job failed or a verdict fails.",
    )
    context.add_job_options(p)
    context.add_ledger_option(p)
    p.add_argument("--plot", type=Path, metavar="FILE.png", help="also draw the curves to a PNG")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead")
    p.add_argument("--markdown", type=Path, metavar="FILE.md", help="also write the report as Markdown")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = read_report(context.job_name(args), context.ledger_dataset(args))
    out = context.console()
    if args.json:
        print(render_json(report))
    else:
        for part in render_terminal(report):
            out.print(part)
        out.print(f"read with {report.http_calls} HTTP calls")
    if args.plot:
        plot(report, args.plot)
        if not args.json:
            out.print(f"curves drawn to {args.plot}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(render_markdown(report), encoding="utf-8")
    return PROBLEM if report.unhealthy else 0
