"""What every operator command needs: the stack's config, the job's name, a client, a console.

Configuration comes from the stack file (`--stack dev` reads `Pulumi.dev.yaml` directly: no Pulumi
CLI needed) and from flags, which win. Without `--stack`, the stack is the one `pulumi stack select`
chose, where a Pulumi CLI and a selected stack exist (as every `pulumi` command does), else `dev`;
the CLI says so on stderr when it is not `dev`. Values only a deployed stack knows — the scorer's
URI and the dataset URIs — come from flags, or from the stack's outputs where a Pulumi CLI exists.

The two reads of the engine (the selected stack, the outputs) go through Pulumi's Automation API
(`pulumi.automation`: a `LocalWorkspace` on the project folder, `stack()` and `stack_outputs()`), the
way Pulumi users drive a stack from Python; `pulumi_command` says which CLI it runs. The config is not
read through it: a stack file needs no engine, no backend login and no passphrase to be read.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from tunifolk import stack
from tunifolk.errors import PROBLEM, USAGE, ConfigError, ResourceNameError, UsageError
from tunifolk.job import inputs as job_model_inputs
from tunifolk.job.field_names import Input
from tunifolk.ledger import names as ledger_names
from tunifolk.operations import say
from tunifolk.paths import BUILD, ROOT
from tunifolk.vertex import VertexClient, location_of
from tunifolk.vertex_hosts import checked_name

if TYPE_CHECKING:  # imported where a read runs: a command that reads no stack does not pay for it
    from pulumi.automation import LocalWorkspace, PulumiCommand

__all__ = ["PROBLEM", "ROOT", "USAGE", "UsageError"]


def console() -> Console:
    """stdout, wide enough for resource names when it is not a terminal (tests, pipes, CI logs)."""
    return Console(width=None if sys.stdout.isatty() else 160, highlight=False)


def client() -> VertexClient:
    return VertexClient(on_retry=say)


# --------------------------------------------------------------------------- options


def add_stack_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("stack")
    group.add_argument(
        "--stack",
        help="read Pulumi.STACK.yaml for the config (default: the stack `pulumi stack select` chose, "
        f"else {DEFAULT_STACK})",
    )
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
    """The flags that complete a stack's config into the job's inputs (validate, launch, estimate)."""
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

DEFAULT_STACK = "dev"
"""The stack read when no --stack is given and Pulumi has no selected stack (or no CLI)."""


def stack_name(args: argparse.Namespace) -> str:
    """`--stack`, else the stack Pulumi selected (the current one of `LocalWorkspace.stack()`, as
    `pulumi stack --show-name` says it), else `dev`: resolved once per command, so `tunifolk list`
    after `pulumi stack select local` lists the local stack's jobs, not the dev stack's. A stack other
    than the default is said on stderr; the default is not (no Pulumi CLI, no backend login or no
    selected stack), which keeps an expected failure one line."""
    if getattr(args, "stack", None):
        return args.stack
    name = _selected_stack()
    if name and name != DEFAULT_STACK:
        if (ROOT / f"Pulumi.{name}.yaml").is_file():
            say(f"stack {name} (the one `pulumi stack select` chose; --stack to read another)")
        else:
            say(f"stack {DEFAULT_STACK}: the selected stack {name} has no Pulumi.{name}.yaml here")
            name = DEFAULT_STACK
    args.stack = name or DEFAULT_STACK
    return args.stack


def stack_config(args: argparse.Namespace) -> stack.StackConfig:
    name = stack_name(args)
    path = ROOT / f"Pulumi.{name}.yaml"
    if not path.is_file():
        raise UsageError(f"--stack {name}: {path.name} not found in {ROOT}")
    try:
        return stack.load_stack_file(path)
    except ConfigError as exc:
        raise ConfigError(f"{path.name}: {exc}") from None


def project_and_location(args: argparse.Namespace) -> tuple[str, str]:
    if args.project and args.location:
        return args.project, args.location
    cfg = stack_config(args)
    return args.project or cfg.project, args.location or cfg.region


def job_name(args: argparse.Namespace) -> str:
    """`--job` as a full resource name; a bare id gets the project and location."""
    job = args.job.strip()
    if job.startswith("projects/"):
        return resource_name(job, "--job", "tuning job")
    if not job.isdigit():
        raise UsageError(f"--job {job!r}: give a numeric job id or projects/P/locations/L/tuningJobs/ID")
    project, location = project_and_location(args)
    return resource_name(f"projects/{project}/locations/{location}/tuningJobs/{job}", "--project/--location")


def resource_name(name: str, flag: str, kind: str | None = None) -> str:
    """A Vertex resource name given on the command line, checked segment by segment (of `kind`, when
    given) against `tunifolk.job.names`: a usage error names the flag."""
    try:
        checked_name(name, kind)
        location_of(name)
    except ResourceNameError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    return name


# --------------------------------------------------------------------------- the engine

ENGINE_ROOT = BUILD / "engine"
"""Where `make engine` installs the Pulumi CLI (`bin/pulumi`), as `PulumiCommand(root=…)` expects it."""


class EngineUnavailable(Exception):
    """No Pulumi CLI could be run: the one line says why (never shown as a traceback)."""


def pulumi_command() -> PulumiCommand:
    """The Pulumi CLI the reads run, as the Automation API's `PulumiCommand`: `make engine`'s
    (`PulumiCommand(root=build/engine)`, which runs `build/engine/bin/pulumi`) when it exists, else the
    `pulumi` on PATH (`PulumiCommand()`); `EngineUnavailable`, with the line to print, when there is
    neither or it does not run.

    The built one first: it is the CLI this checkout pins, builds and tests, the one `local env` puts
    first on PATH, and the CLI does not need that PATH to find it. Which one runs a read does not
    change the answer: both read the backend and the selected stack that `PULUMI_BACKEND_URL` and
    `PULUMI_HOME` name. A user without Go (no `make engine`) who installed Pulumi gets that one.

    The Automation API's version check is skipped: it holds `pulumi version` to the SDK's minimum and
    refuses a version it cannot parse, which a CLI built from source may print, while the reads use
    only `pulumi stack ls --json` and `pulumi stack output --json`, which every v3 CLI answers. One
    `PulumiCommand` per binary and process: making one runs `pulumi version`."""
    if os.access(ENGINE_ROOT / "bin" / "pulumi", os.X_OK):
        return _command(str(ENGINE_ROOT), str(ENGINE_ROOT / "bin" / "pulumi"))
    found = shutil.which("pulumi")
    if found is None:
        raise EngineUnavailable(
            "no Pulumi CLI: neither build/engine/bin/pulumi (make engine) nor a pulumi on PATH"
        )
    return _command(None, found)


@functools.cache
def _command(root: str | None, binary: str) -> PulumiCommand:
    """`PulumiCommand(root=…)`, or the one on PATH, cached by `binary`: another PATH, another CLI."""
    from pulumi.automation import PulumiCommand

    try:
        return PulumiCommand(root=root, skip_version_check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise EngineUnavailable(f"`{binary} version` failed: {exc}") from None


def workspace() -> LocalWorkspace:
    """The project's workspace for reads: the repository root (Pulumi.yaml, the stack files), with the
    environment as it is (`PULUMI_HOME`, `PULUMI_BACKEND_URL`, the passphrase): nothing is written."""
    from pulumi.automation import LocalWorkspace

    return LocalWorkspace(work_dir=str(ROOT), pulumi_command=pulumi_command())


def _said(exc: Exception) -> str:
    """The line that says why a Pulumi command failed: its first `error:` line, else its last line.
    (`CommandError` keeps only its text: `code: N`, `stdout: …`, `stderr: …`.)"""
    lines = [line.strip() for line in str(exc).splitlines()]
    lines = [line.removeprefix("stderr:").removeprefix("stdout:").strip() for line in lines]
    lines = [line for line in lines if line and not line.startswith("code:")]
    return next((line for line in lines if line.startswith("error:")), lines[-1] if lines else "no output")


def _selected_stack() -> str | None:
    """The stack `pulumi stack select` chose, or None (no CLI, no login, no stack selected)."""
    from pulumi.automation import CommandError

    try:
        current = workspace().stack()
    except (EngineUnavailable, CommandError, OSError, ValueError):
        return None
    return current.name.rsplit("/", 1)[-1] if current else None


def stack_outputs(stack_name: str) -> tuple[dict[str, str] | None, str]:
    """The stack's outputs as text: `pulumi stack output --json`, run by the Automation API's
    `PulumiCommand` (`pulumi_command`) in the project, masked as the plain command prints them, so a
    passphrase stack needs no passphrase to be read (the outputs tunifolk reads hold no secret;
    `LocalWorkspace.stack_outputs` would also read them with `--show-secrets`). (outputs, "") or
    (None, why there are none: no Pulumi CLI, no such stack, not logged in, ...). A value that is not
    a string is its JSON, as `pulumi stack output NAME` prints it."""
    from pulumi.automation import CommandError

    try:
        done = pulumi_command().run(
            ["stack", "output", "--json", "--stack", stack_name], str(ROOT), additional_env=dict(os.environ)
        )
        outputs = json.loads(done.stdout or "{}")
    except EngineUnavailable as exc:
        return None, str(exc)
    except (CommandError, OSError, ValueError) as exc:
        return None, f"`pulumi stack output --stack {stack_name}` said: {_said(exc)}"
    if not isinstance(outputs, dict):
        return None, f"`pulumi stack output --stack {stack_name}` printed no JSON object"
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in outputs.items()}, ""


def stack_output(name: str, stack_name: str) -> tuple[str | None, str]:
    """One output of the stack (`stack_outputs`): (the value, "") or (None, why there is none)."""
    return _output(stack_outputs(stack_name), name, stack_name)


def _output(read: tuple[dict[str, str] | None, str], name: str, stack_name: str) -> tuple[str | None, str]:
    """Output `name` of what `stack_outputs` read: a stack deployed before it existed (or never) lacks it."""
    outputs, why = read
    if outputs is None:
        return None, why
    if not outputs.get(name):
        return None, f"stack {stack_name} has no output {name} yet: pulumi up --stack {stack_name} makes it"
    return outputs[name], ""


class Deployed:
    """The values a deployed stack knows, for one command: each from its flag, else from the stack's
    outputs, read at most once (one read gives them all) and only when a flag is missing."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._read: tuple[dict[str, str] | None, str] | None = None

    def value(self, flag: str, output: str, *, required: bool = True) -> str | None:
        given = getattr(self.args, flag.lstrip("-").replace("-", "_"), None)
        if given:
            return given
        name = stack_name(self.args)
        if self._read is None:
            self._read = stack_outputs(name)
        value, why = _output(self._read, output, name)
        if not value and required:
            raise UsageError(f"{flag} is needed: no `pulumi stack output {output}` to read ({why})")
        return value


def add_ledger_option(parser: argparse.ArgumentParser) -> None:
    """--dataset: where the job's rollout ledger is, for the commands that read it."""
    parser.add_argument(
        "--dataset",
        help="the rollout ledger's BigQuery dataset (default: the stack's `ledger_dataset` output, else "
        f"{ledger_names.DATASET_PREFIX}<stack>)",
    )


def ledger_dataset(args: argparse.Namespace) -> str:
    """The rollout ledger's dataset: `--dataset`, else the selected stack's `ledger_dataset` output (the
    dataset its RolloutLedger made), else the stack's name through the same naming rule. The last is
    the emulator-only flow, where no stack is deployed and the stand-in answers for any dataset;
    on Google it names the dataset `pulumi up` made for this stack, whose output could not be read."""
    given = getattr(args, "dataset", None)
    if given:
        return given
    name = stack_name(args)
    value, _ = stack_output("ledger_dataset", name)
    return value or ledger_names.dataset_name(name)


def count_lines(path: Path) -> int:
    """Examples in a local JSONL file (non-empty lines)."""
    try:
        with path.open(encoding="utf-8") as f:
            return sum(1 for line in f if line.strip())
    except OSError as exc:
        raise ConfigError(
            f"tunifolk:dataset: cannot read {path} ({exc.strerror}); build it with "
            "`python -m tunifolk dataset build --out data`"
        ) from None


def job_inputs(
    args: argparse.Namespace,
    *,
    hyper_parameters: dict[str, Any] | None = None,
    example_count: int | None = None,
    require_deployed: bool = True,
) -> dict[str, Any]:
    """The RlftTuningJob inputs the Pulumi program builds for this stack, from the same builder
    (`tunifolk.job.inputs`): `tunifolk launch` creates the job with the same spec label, and a
    later `pulumi up` adopts it. `estimate` passes its overrides, and needs no deployed values."""
    cfg = stack_config(args)
    project, location = project_and_location(args)
    config_inputs = {**cfg.job, Input.PROJECT: project, Input.LOCATION: location}
    if hyper_parameters is not None:
        config_inputs[Input.HYPER_PARAMETERS] = hyper_parameters
    need = require_deployed
    deployed = Deployed(args)
    scorer_uri = deployed.value("--scorer-uri", "scorer_uri", required=need) if cfg.uses_scorer else None
    example = getattr(args, "validation_example", None) or ROOT / cfg.validation_example
    return job_model_inputs.job_inputs(
        config_inputs,
        training_dataset_uri=deployed.value("--train-uri", "train_uri", required=need),
        validation_dataset_uri=(
            deployed.value("--validation-uri", "validation_uri", required=need)
            if cfg.dataset.validation
            else None
        ),
        training_example_count=example_count or count_lines(ROOT / cfg.dataset.train),
        scorer_uri=scorer_uri,
        validation_example=stack.load_validation_example(example),
    )


def positive_seconds(flag: str, *, zero: bool = False) -> Any:
    """An argparse type: a number of seconds above 0 (or 0 too, with `zero`), else a usage error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            floor = "0 or more" if zero else "more than 0"
            raise argparse.ArgumentTypeError(f"{text} must be {floor} seconds")
        return value

    parse.__name__ = flag
    return parse


def count(flag: str, limit: int | None = None) -> Any:
    """An argparse type: a whole number from 1 (to `limit`, if given), else a usage error."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if n < 1 or (limit is not None and n > limit):
            bound = f"1 to {limit:,}" if limit is not None else "at least 1"
            raise argparse.ArgumentTypeError(f"{n} must be {bound}")
        return n

    parse.__name__ = flag
    return parse


def help_for(parser: argparse.ArgumentParser) -> Any:
    """A command group called without a subcommand prints its help and is a usage error."""

    def show(_: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return USAGE

    return show


def vertex_name(flag: str) -> Any:
    """An argparse type: a Vertex resource name (`projects/P/locations/L/...`), else a usage error."""

    def parse(text: str) -> str:
        try:
            checked_name(text)
            location_of(text)
        except ResourceNameError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parse.__name__ = flag
    return parse
