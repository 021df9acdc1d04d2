"""What every operator command needs: the stack's config, the job's name, a client, a console.

Configuration comes from the stack file (`--stack dev` reads `Pulumi.dev.yaml` directly: no Pulumi
CLI needed) and from flags, which win. Values only a deployed stack knows — the scorer's URI and the
dataset URIs — come from flags, or from `pulumi stack output` where a Pulumi CLI exists.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from providers import stack
from providers.operations import say
from providers.vertex import VertexClient

ROOT = Path(__file__).resolve().parent.parent
PROBLEM, USAGE_ERROR = 1, 2  # exit codes (architecture.md interface 7); 0 is fine


class UsageError(Exception):
    """A missing or wrong flag: exit code 2, with a message that names the flag and the fix."""


def console() -> Console:
    """stdout, wide enough for resource names when it is not a terminal (tests, pipes, CI logs)."""
    return Console(width=None if sys.stdout.isatty() else 160, highlight=False)


def client() -> VertexClient:
    return VertexClient(on_retry=say)


# --------------------------------------------------------------------------- options


def add_stack_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("stack")
    group.add_argument("--stack", default="dev", help="read Pulumi.STACK.yaml for the config (default: dev)")
    group.add_argument("--project", help="Google Cloud project (default: the stack's gcp:project)")
    group.add_argument("--location", help="tuning region (default: the stack's tunifolk:region)")


def add_job_options(parser: argparse.ArgumentParser) -> None:
    add_stack_options(parser)
    parser.add_argument(
        "--job",
        required=True,
        help="a full job name (projects/P/locations/L/tuningJobs/ID) or a numeric id; with an id, the "
        "project and location come from --project/--location or the stack",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The flags that complete a stack's config into the job's inputs (validate, launch)."""
    add_stack_options(parser)
    group = parser.add_argument_group("deployed values (else `pulumi stack output`)")
    group.add_argument("--scorer-uri", help="the reward scorer's URL, for rewards with `cloudRun: scorer`")
    group.add_argument("--train-uri", help="gs:// URI of the uploaded training JSONL")
    group.add_argument("--validation-uri", help="gs:// URI of the uploaded validation JSONL")
    group.add_argument(
        "--validation-example",
        type=Path,
        help="JSON file with {example, sample_response} (default: the stack's, data/validation_example.json)",
    )


# --------------------------------------------------------------------------- resolution


def stack_config(args: argparse.Namespace) -> stack.StackConfig:
    path = ROOT / f"Pulumi.{args.stack}.yaml"
    if not path.is_file():
        raise UsageError(f"--stack {args.stack}: {path.name} not found in {ROOT}")
    try:
        return stack.load_stack_file(path)
    except stack.ConfigError as exc:
        raise UsageError(f"{path.name}: {exc}") from None


def project_and_location(args: argparse.Namespace) -> tuple[str, str]:
    if args.project and args.location:
        return args.project, args.location
    cfg = stack_config(args)
    return args.project or cfg.project, args.location or cfg.region


def job_name(args: argparse.Namespace) -> str:
    """`--job` as a full resource name; a bare id gets the project and location."""
    job = args.job.strip()
    if job.startswith("projects/"):
        return job
    if not job.isdigit():
        raise UsageError(f"--job {job!r}: give a numeric job id or projects/P/locations/L/tuningJobs/ID")
    project, location = project_and_location(args)
    return f"projects/{project}/locations/{location}/tuningJobs/{job}"


def stack_output(name: str, stack_name: str) -> str | None:
    """`pulumi stack output NAME` when a Pulumi CLI is installed; None otherwise."""
    if shutil.which("pulumi") is None:
        return None
    done = subprocess.run(
        ["pulumi", "stack", "output", name, "--stack", stack_name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def _deployed(args: argparse.Namespace, flag: str, output: str) -> str:
    value = getattr(args, flag.lstrip("-").replace("-", "_")) or stack_output(output, args.stack)
    if not value:
        raise UsageError(f"{flag} is needed (no Pulumi CLI to read `pulumi stack output {output}`)")
    return value


def count_lines(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


def job_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The RlftTuningJob inputs the Pulumi program would build for this stack — so `tunifolk launch`
    creates the job with the same spec label, and a later `pulumi up` adopts it."""
    cfg = stack_config(args)
    project, location = project_and_location(args)
    scorer_uri = _deployed(args, "--scorer-uri", "scorer_uri") if cfg.uses_scorer else None
    example_path = args.validation_example or ROOT / cfg.validation_example
    try:
        validation_example = json.loads(Path(example_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"--validation-example {example_path}: {exc}") from None
    inputs = {
        **cfg.job_inputs(),
        "project": project,
        "location": location,
        "training_dataset_uri": _deployed(args, "--train-uri", "train_uri"),
        "training_example_count": count_lines(ROOT / cfg.dataset.train),
        "rewards": cfg.rewards_with(scorer_uri),
        "validation_example": validation_example,
    }
    if cfg.dataset.validation:
        inputs["validation_dataset_uri"] = _deployed(args, "--validation-uri", "validation_uri")
    return inputs
