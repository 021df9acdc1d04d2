"""`tunifolk demo`: the whole flow offline, in one command.

Starts the Vertex emulator and the real reward scorer on free loopback ports, points every Vertex
call at the emulator (`TUNIFOLK_VERTEX_ENDPOINT`), then runs the operator's own commands in order —
validate → launch → watch → status (writing `build/demo/report.md` and `build/demo/curves.png`) →
rollouts → eval of every checkpoint (its table, and `build/demo/eval/report.md`) → sample on the
tuned endpoint — and stops both servers, whatever happens. Nothing reaches Google and
nothing is left running.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from tunifolk.cli import context, local
from tunifolk.cli.commands.rollouts import markdown_page
from tunifolk.cli.context import PROBLEM, ROOT
from tunifolk.errors import TunifolkError
from tunifolk.ledger import names
from tunifolk.ledger.bigquery import LedgerReader
from tunifolk.local_gcs import object_uri, write_object
from tunifolk.standin import LEDGER_ENV
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

BUCKET = "tunifolk-demo"
PROJECT = "tunifolk-demo"


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "demo",
        help="the offline end-to-end flow: emulator + scorer + validate, launch, watch, status, sample",
    )
    p.add_argument("--out", type=Path, default=ROOT / "build" / "demo", help="where the report goes")
    p.add_argument("--step-seconds", type=float, default=0.05, help="emulated seconds per training step")
    p.add_argument("--stack", default="dev", help="the stack file whose config the demo runs (default: dev)")
    p.set_defaults(func=run)


def stage_dataset(gcs: Path, stack_name: str) -> tuple[str, str]:
    """Copy the stack's dataset where the emulator reads `gs://tunifolk-demo/...`."""
    cfg = context.stack_config(argparse.Namespace(stack=stack_name))
    sources = {"train": cfg.dataset.train, "validation": cfg.dataset.validation or cfg.dataset.train}
    uris = []
    for split, source in sources.items():
        name = f"{cfg.dataset.prefix}/{split}.jsonl"
        write_object(gcs, BUCKET, name, (ROOT / source).read_bytes())
        uris.append(object_uri(BUCKET, name))
    return uris[0], uris[1]


def run(args: argparse.Namespace) -> int:
    from tunifolk.cli import main  # the demo drives the real CLI, as an operator would

    out = context.console()
    started = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    gcs = args.out / "gcs"
    shutil.rmtree(gcs, ignore_errors=True)
    train_uri, validation_uri = stage_dataset(gcs, args.stack)
    emulator_args = ("--step-seconds", str(args.step_seconds), "--gcs-dir", str(gcs))
    ledger_dir = args.out / "ledger"  # the scorer's stdout, as Cloud Run hands it to Cloud Logging
    shutil.rmtree(ledger_dir, ignore_errors=True)
    previous = os.environ.get(ENDPOINT_ENV)
    try:
        with (
            local.emulator(*emulator_args, quiet=True, env={LEDGER_ENV: str(ledger_dir)}) as vertex,
            local.scorer(quiet=True, stdout=ledger_dir / "scorer.stdout") as scorer_uri,
        ):
            os.environ[ENDPOINT_ENV] = vertex
            out.rule(f"emulator {vertex} · scorer {scorer_uri}")
            where = ["--stack", args.stack, "--project", PROJECT]
            deployed = [
                "--scorer-uri",
                scorer_uri,
                "--train-uri",
                train_uri,
                "--validation-uri",
                validation_uri,
            ]

            def step(title: str, argv: list[str], ok: Callable[[int], bool] = lambda code: code == 0) -> None:
                out.rule(f"tunifolk {title}")
                code = main(argv)
                if not ok(code):
                    raise DemoFailed(f"`tunifolk {' '.join(argv)}` exited {code}")

            step("validate", ["validate", *where, *deployed])
            step("launch", ["launch", *where, *deployed])
            job = _the_job(vertex)
            step("watch", ["watch", *where, "--job", job, "--interval", "0.5"])
            report, curves = args.out / "report.md", args.out / "curves.png"
            step(
                "status",
                ["status", *where, "--job", job, "--markdown", str(report), "--plot", str(curves)],
                ok=lambda code: code in (0, PROBLEM),  # a health warning is a finding, not a crash
            )
            rollouts = args.out / "rollouts.md"
            step("rollouts", ["rollouts", *where, "--job", job, "--last", "--worst", "2"])
            with VertexClient(endpoint=vertex) as client:
                reader = LedgerReader(PROJECT, names.dataset_name(args.stack), client=client)
                rollouts.write_text(markdown_page(reader, job.rsplit("/", 1)[1]), encoding="utf-8")
            evaluation = args.out / "eval"
            step(
                "eval",
                ["eval", *where, "--job", job, "--limit", "8", "--samples", "2", "--out", str(evaluation)],
            )
            endpoint = _tuned_endpoint(job)
            step("sample", ["sample", "--endpoint", endpoint, "--form", "malzuma", "--n", "2"])
    except DemoFailed as exc:
        out.print(f"[red]demo failed:[/] {exc}")
        return PROBLEM
    finally:
        if previous is None:
            os.environ.pop(ENDPOINT_ENV, None)
        else:
            os.environ[ENDPOINT_ENV] = previous
    out.rule("done")
    out.print(
        f"report  {report}\nrollouts {rollouts}\ncurves  {curves}\neval    {evaluation / 'report.md'}\n"
        f"wall time {time.monotonic() - started:.1f} s; servers stopped"
    )
    return 0


class DemoFailed(TunifolkError):
    """A step of the demo did not end as it should: the message names the command."""


def _the_job(vertex: str) -> str:
    with VertexClient(endpoint=vertex) as client:
        jobs = client.list_tuning_jobs(f"projects/{PROJECT}/locations/us-central1")
    if len(jobs) != 1:
        raise DemoFailed(f"expected one job after launch, found {len(jobs)}")
    return jobs[0]["name"]


def _tuned_endpoint(job: str) -> str:
    with VertexClient() as client:
        endpoint = (client.get_tuning_job(job).get("tunedModel") or {}).get("endpoint")
    if not endpoint:
        raise DemoFailed(f"{job} has no tuned endpoint")
    return endpoint
