"""`tunifolk replay`: what this checkout's scorer would have said about a run's rollouts.

Re-scores the rollout ledger's records (tunifolk/ledger/replay.py) in N local processes, each a
shard of the steps, and reports per step and overall: the rank correlation with the recorded
rewards inside each prompt group (Spearman; 1.0 means GRPO would have learnt the same thing), how
many group winners change, and the largest moves with their texts.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from dataclasses import asdict

from rich.panel import Panel
from rich.table import Table

from tunifolk.cli import context, untrusted
from tunifolk.cli.commands.rollouts import NoRecords, add_ledger_options, open_ledger
from tunifolk.ledger.replay import StepReport, merge, replay


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "replay",
        help="re-score a run's rollouts with this checkout's scorer: rank agreement, winners, moves",
        description="Read the job's rollouts from the ledger and score them again with the scorer in "
        "this checkout, in --shards processes (a shard per share of the steps: the same code a Cloud "
        "Run job of N tasks runs). Reports per step and overall the Spearman rank correlation with "
        "the recorded rewards inside each prompt group, the group winners that change and the "
        "largest moves with their texts.",
    )
    add_ledger_options(p)
    p.add_argument("--steps", type=step_range, metavar="A-B", help="only steps A to B (inclusive)")
    p.add_argument(
        "--shards",
        type=context.count("--shards", 256),
        default=os.cpu_count() or 1,
        help="local processes (default: one per CPU)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def step_range(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a step range like 10-20 (or one step, 12)")
    low, high = int(m.group(1)), int(m.group(2) or m.group(1))
    if high < low:
        raise argparse.ArgumentTypeError(f"{text!r}: the range ends before it starts")
    return low, high


def run(args: argparse.Namespace) -> int:
    reader, job = open_ledger(args)
    started = time.perf_counter()
    results = replay(reader.project, reader.dataset, job, args.shards, args.steps, reader.client.endpoint)
    wall = time.perf_counter() - started
    steps, overall = merge(results)
    if not overall.rollouts:
        raise NoRecords(job)
    score_s = sum(r.score_s for r in results)
    timing = {
        "wall_s": round(wall, 3),
        "shards": args.shards,
        "rollouts_per_s": round(overall.rollouts / wall, 1),
        "score_s": round(score_s, 3),
        "read_s": round(sum(r.read_s for r in results), 3),
    }
    if args.json:
        doc = {"job": job, "overall": asdict(overall), "steps": [asdict(s) for s in steps], "timing": timing}
        print(untrusted.json_line(doc))
        return 0
    out = context.console()
    out.print(steps_table(job, steps, overall))
    for i, m in enumerate(overall.moves, 1):
        title = untrusted.text(
            f"move {i} · step {m['step']} · {m['form']} · {m['old']:+.3f} → {m['new']:+.3f}"
        )
        now = untrusted.text(f"now: {m['new_reason'][:90]}")
        out.print(Panel(untrusted.text(m["text"]), title=title, subtitle=now, expand=False))
    out.print(
        f"{overall.rollouts} rollouts re-scored in {wall:.1f} s on {args.shards} processes "
        f"({overall.rollouts / wall:.0f}/s; scoring {score_s:.1f} s, reading the ledger "
        f"{timing['read_s']:.1f} s, summed over shards)"
    )
    return 0


def steps_table(job: str, steps: list[StepReport], overall: StepReport) -> Table:
    table = Table(title=f"replay of job {job} with this checkout's scorer", title_justify="left")
    for col in (
        "step",
        "rollouts",
        "groups",
        "Spearman in group",
        "winners changed",
        "mean then",
        "mean now",
    ):
        table.add_column(col, justify="right")

    def row(s: StepReport, label: str) -> None:
        rho = "—" if s.rho is None else f"{s.rho:.3f}"
        colour = "green" if s.rho is None or s.rho > 0.9 else "yellow" if s.rho > 0.6 else "red"
        table.add_row(label, str(s.rollouts), str(s.groups), f"[{colour}]{rho}[/]", str(s.winners_changed),
                      f"{s.mean_old:+.3f}", f"{s.mean_new:+.3f}")  # fmt: skip

    for s in steps:
        row(s, str(s.step))
    table.add_section()
    row(overall, "all")
    return table
