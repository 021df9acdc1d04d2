"""`tunifolk rollouts`: the samples behind a step, each with its reward, sub-scores and reason.

Reads the rollout ledger (every rollout the scorer saw, tunifolk/ledger/) through BigQuery's
`jobs.query`: on Google from the stack's log-sink dataset, locally from the emulator's stand-in.
Without `--step` or `--last` it prints one line per step (how many samples, the reward's spread);
with one, the step's samples in a table, and the texts of the K worst or best with `--worst/--best`.
"""

from __future__ import annotations

import argparse
import statistics

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from scorer import ledger
from tunifolk.cli import context, untrusted
from tunifolk.errors import PROBLEM, TunifolkError
from tunifolk.ledger import names
from tunifolk.ledger.bigquery import LedgerReader, Rollout

SHOWN_SUBSCORES = 4
"""Sub-scores a table row shows: the weakest, which say why a reward is low."""


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "rollouts",
        help="the samples of a step from the rollout ledger: reward, sub-scores, reason, texts",
        description="Read the rollout ledger (BigQuery, the log sink's dataset). Without --step/--last: "
        "one line per step. With one: the step's samples with reward, sub-scores and reason, and the "
        "texts of the K worst or best (--worst/--best). --json prints one JSON object per rollout.",
    )
    add_ledger_options(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--step", type=int, help="the training step to show")
    which.add_argument("--last", action="store_true", help="the last step the ledger holds")
    p.add_argument("--form", help="only samples of this form (references.form)")
    rank = p.add_mutually_exclusive_group()
    rank.add_argument("--worst", type=context.count("--worst"), metavar="K", help="the K lowest rewards")
    rank.add_argument("--best", type=context.count("--best"), metavar="K", help="the K highest rewards")
    p.add_argument(
        "--eval",
        action="store_true",
        help="the samples `tunifolk eval` drew from checkpoints instead (their step is the checkpoint's; "
        "0 is the base model)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per rollout, one per line")
    p.set_defaults(func=run)


def add_ledger_options(p: argparse.ArgumentParser) -> None:
    """--job and the stack options, and where the ledger is."""
    context.add_job_options(p)
    context.add_ledger_option(p)


def open_ledger(args: argparse.Namespace) -> tuple[LedgerReader, str]:
    """(a reader of the job's project's ledger, the job's id as the scorer records it)."""
    name = context.job_name(args)
    project = args.project or name.split("/")[1]
    dataset = context.ledger_dataset(args)
    return LedgerReader(project, dataset, client=context.client()), name.rsplit("/", 1)[1]


def run(args: argparse.Namespace) -> int:
    reader, job = open_ledger(args)
    out = context.console()
    label = names.EVAL_LABEL if args.eval else ledger.LABEL_VALUE
    step = args.step
    if args.last:
        steps = reader.steps(job, label)
        if not steps:
            raise NoRecords(job, label=label)
        step = steps[-1][0]
    if step is None and not args.json and not (args.worst or args.best):
        return _per_step(reader, job, args.form, label)
    rows = reader.rollouts(job, step=step, form=args.form, label=label)
    if not rows:
        raise NoRecords(job, step, args.form, label)
    rows.sort(key=lambda r: r.reward)
    if args.worst:
        rows = rows[: args.worst]
    elif args.best:
        rows = rows[::-1][: args.best]
    if args.json:
        for r in rows:
            print(untrusted.json_line(r.as_json()))
        return 0
    title = f"job {job} · step {step}" + (f" · {args.form}" if args.form else "")
    out.print(samples_table(rows, title))
    if args.worst or args.best:
        for i, r in enumerate(rows, 1):
            head = untrusted.text(
                f"{'worst' if args.worst else 'best'} {i} · reward {r.reward:+.3f} · {r.form}"
            )
            reason = untrusted.text(r.reason[:100])
            out.print(Panel(untrusted.text(r.response), title=head, subtitle=reason, expand=False))
    return 0


def samples_table(rows: list[Rollout], title: str) -> Table:
    """One row per sample: reward, form, the weakest sub-scores and the reason."""
    table = Table(title=title, title_justify="left")
    for col, kw in (("#", {"justify": "right"}), ("reward", {"justify": "right"}), ("form", {}),
                    ("weakest sub-scores", {}), ("reason", {"overflow": "fold"})):  # fmt: skip
        table.add_column(col, **kw)
    for i, r in enumerate(rows, 1):
        weak = sorted((v, k) for k, v in r.subscores.items() if not k.startswith("p_") and k != "quality")
        pens = [f"{k}={v:.2f}" for k, v in r.subscores.items() if k.startswith("p_")]
        shown = [f"{k}={v:.2f}" for v, k in weak[:SHOWN_SUBSCORES]] + pens[:2]
        colour = "green" if r.reward > 0.3 else "red" if r.reward < -0.3 else "yellow"
        table.add_row(
            str(i),
            Text(f"{r.reward:+.3f}", style=colour),
            untrusted.text(r.form),
            untrusted.text(" ".join(shown)),
            untrusted.text(r.reason),
        )
    return table


def _per_step(reader: LedgerReader, job: str, form: str | None, label: str) -> int:
    rows = reader.rollouts(job, form=form, label=label)
    if not rows:
        raise NoRecords(job, None, form, label)
    by_step: dict[int, list[float]] = {}
    for r in rows:
        by_step.setdefault(r.step, []).append(r.reward)
    what = "evaluation samples" if label == names.EVAL_LABEL else "rollouts"
    table = Table(title=f"job {job}: {len(rows)} {what} in {len(by_step)} steps", title_justify="left")
    for col in ("step", "samples", "mean", "min", "max", "stdev"):
        table.add_column(col, justify="right")
    for step, rewards in sorted(by_step.items()):
        sd = statistics.pstdev(rewards) if len(rewards) > 1 else 0.0
        mean, low, high = statistics.fmean(rewards), min(rewards), max(rewards)
        table.add_row(
            str(step), str(len(rewards)), f"{mean:+.3f}", f"{low:+.3f}", f"{high:+.3f}", f"{sd:.3f}"
        )
    context.console().print(table)
    return 0


class NoRecords(TunifolkError):
    """The ledger holds nothing for what was asked."""

    def __init__(
        self, job: str, step: int | None = None, form: str | None = None, label: str = ledger.LABEL_VALUE
    ) -> None:
        what = (
            f"job {job}" + (f", step {step}" if step is not None else "") + (f", form {form}" if form else "")
        )
        fix = (
            "run `tunifolk eval --job JOB` first (it adds its samples under this label)"
            if label == names.EVAL_LABEL
            else "check --job/--project/--dataset, or that the job's reward is the stack's Cloud Run scorer "
            "(only it writes the ledger)"
        )
        super().__init__(
            f"the rollout ledger holds no {'evaluation ' if label == names.EVAL_LABEL else ''}records for "
            f"{what}: {fix}"
        )
        self.exit_code = PROBLEM


PAGE_SAMPLES = 2
"""Worst and best samples per step on the demo's rollouts page."""


def markdown_page(reader: LedgerReader, job: str, k: int = PAGE_SAMPLES) -> str:
    """The rollouts page of a report: the K worst and best samples of the first, middle and last
    steps, each with its reward, sub-scores, reason and text."""
    steps = [s for s, _ in reader.steps(job)]
    if not steps:
        raise NoRecords(job)
    picked = dict.fromkeys([steps[0], steps[len(steps) // 2], steps[-1]])
    lines = [f"# Rollouts of job {job}", "",
             f"The {k} worst and {k} best samples of the first, middle and last steps, from the rollout "
             "ledger (`tunifolk rollouts`).", ""]  # fmt: skip
    for where, step in zip(("first", "middle", "last"), picked, strict=False):
        rows = sorted(reader.rollouts(job, step=step), key=lambda r: r.reward)
        lines += [f"## Step {step} ({where}): {len(rows)} samples", ""]
        for label, chosen in (("worst", rows[:k]), ("best", rows[::-1][:k])):
            for i, r in enumerate(chosen, 1):
                subs = ", ".join(f"{name} {v:.2f}" for name, v in sorted(r.subscores.items()))
                head = f"### {label} {i}: reward {r.reward:+.3f} · {untrusted.inline(r.form)}"
                lines += [
                    head,
                    "",
                    f"*{untrusted.inline(r.reason)}*",
                    "",
                    f"sub-scores: {untrusted.inline(subs)}",
                    "",
                ]
                lines += [*untrusted.code_block(r.response), ""]
    return "\n".join(lines)
