"""`tunifolk local env | start | stop`: the whole stack on one machine, with the real Pulumi engine.

* `env` prints `export NAME=value` lines after which plain `pulumi` commands work offline: the engine
  built by `make engine` first on PATH (with the gcp stand-in's plugin beside it), a file backend
  under build/, an empty passphrase, no update check, no plugin downloads, and every Vertex call sent
  to the local emulator (`TUNIFOLK_VERTEX_ENDPOINT`).
* `start` runs the Vertex emulator in the background (fast emulated steps, so `wait: succeeded`
  returns in seconds) and wakes the reward scorers of the stand-in's Cloud Run services; `stop`
  stops them. Both are idempotent; pid files, logs and the emulator's URL live in build/local/, and
  so does the emulator's state (emulator-state.json), which a stop and a start keep. The emulator
  holds Google's default quota of concurrent tuning jobs (tunifolk.emulator.limits).
  `start --fresh-project` makes the stand-ins a project that has never been used: APIs off until
  enabled, no service agent (tunifolk/project_state.py).

The stand-in itself (`standin/`) needs no server: the engine starts it as a plugin per command.
Directories follow `TUNIFOLK_LOCAL_DIR`, `TUNIFOLK_STANDIN_DIR`, `TUNIFOLK_GCS_DIR` and
`TUNIFOLK_ENGINE_DIR` when set (the tests give each run its own), else live under the repository's
build/.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tunifolk import processes, standin
from tunifolk.cli.context import ROOT, help_for
from tunifolk.emulator.limits import CONCURRENT_TUNING_JOBS
from tunifolk.errors import PROBLEM, USAGE, ConfigError, TunifolkError
from tunifolk.invoker import LOCAL_TIME_SCALE, TIME_SCALE_ENV, time_scale
from tunifolk.project_state import DEFAULT_ENABLE_SECONDS, ProjectState
from tunifolk.standin import cloudrun
from tunifolk.standin.store import Store
from tunifolk.vertex import ENDPOINT_ENV
from tunifolk.vertex_hosts import checked_endpoint

ENGINE_ENV = "TUNIFOLK_ENGINE_DIR"
LOCAL_ENV = "TUNIFOLK_LOCAL_DIR"
DEFAULT_PORT = 8090
DEFAULT_STEP_SECONDS = 0.02
TIME_SCALE_FILE = "time-scale"
EMULATOR_STATE = "emulator-state.json"  # the emulator's jobs, models, endpoints: kept across stop/start
OFFLINE = {
    "PULUMI_CONFIG_PASSPHRASE": "",  # the local stack holds no secrets; an empty passphrase is accepted
    "PULUMI_SKIP_UPDATE_CHECK": "true",
    "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
}


class LocalError(TunifolkError):
    """An expected failure of the local stack: one line that names the fix, and its exit code."""

    def __init__(self, message: str, code: int = PROBLEM) -> None:
        super().__init__(message)
        self.exit_code = code


def local_dir() -> Path:
    return Path(os.environ.get(LOCAL_ENV) or ROOT / "build" / "local").resolve()


def backend_dir() -> Path:
    """The file backend's directory: beside the pid files, so one `TUNIFOLK_LOCAL_DIR` isolates a run."""
    return local_dir() / "state"


def register(subcommands: argparse._SubParsersAction) -> None:
    group = subcommands.add_parser(
        "local",
        help="run the whole stack locally with the real Pulumi engine (env, start, stop)",
        description="The local stack: the Pulumi engine from `make engine`, the gcp stand-in and the "
        "Vertex emulator. Typical use: make engine; python -m tunifolk local start; "
        'eval "$(python -m tunifolk local env)"; pulumi stack init local; pulumi up.',
    )
    actions = group.add_subparsers(title="local commands", metavar="ACTION")
    group.set_defaults(func=help_for(group))

    env = actions.add_parser(
        "env",
        help="print `export NAME=value` lines for offline `pulumi` commands",
        description="Print shell exports: PATH with the engine first, PULUMI_BACKEND_URL (a file backend "
        "under build/), PULUMI_CONFIG_PASSPHRASE, PULUMI_SKIP_UPDATE_CHECK, "
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION and TUNIFOLK_VERTEX_ENDPOINT (the emulator that "
        '`local start` runs). Use: eval "$(python -m tunifolk local env)"',
    )
    env.set_defaults(func=print_env)

    start = actions.add_parser(
        "start",
        help="start the Vertex emulator (and wake the stand-in's scorers) in the background",
        description="Start `python -m emulator` in the background with fast emulated steps, reading "
        "gs:// URIs where the gcp stand-in writes bucket objects; start again any stopped scorer of the "
        "stand-in's Cloud Run services. Does nothing for what already runs.",
    )
    start.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"the emulator's port on 127.0.0.1 (default {DEFAULT_PORT}, or a free one if another program "
        "holds it; 0 picks a free one)",
    )
    start.add_argument(
        "--step-seconds",
        type=float,
        default=DEFAULT_STEP_SECONDS,
        help=f"emulated seconds per training step (default {DEFAULT_STEP_SECONDS}: the local stack's "
        "156 steps take seconds)",
    )
    start.add_argument(
        "--time-scale",
        type=float,
        default=None,
        help=f"factor on Google's modelled delays (Vertex's reward retries, IAM propagation, the provider's "
        f"waits for them): 1 is Google's pace; default {TIME_SCALE_ENV} or {LOCAL_TIME_SCALE} (`local env` "
        "exports it for the engine's plugins)",
    )
    start.add_argument(
        "--emulator-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more option for `python -m emulator` (repeatable), e.g. --emulator-arg=--scenario=hacking "
        "or --emulator-arg=--lro-error-rate=0.5; see python -m emulator --help",
    )
    start.add_argument(
        "--hostile",
        action="store_true",
        help="play every hostile reading of Google's documents at once (docs/google-contract.md): the "
        "emulator's `--hostile` (the job id as the reward guide spells it, a missing grant as a bare NaN, "
        "model names without @N, no per-reward series, a judge that writes sentences) and, with "
        "--fresh-project, APIs that still refuse calls for a while after they are enabled",
    )
    start.add_argument(
        "--fresh-project",
        action="store_true",
        help="play a Google Cloud project that has never been used: every API the stack needs is off "
        "(calls get Google's 403 SERVICE_DISABLED) until enabled, and no service agent exists (a grant to "
        "the tuning agent gets Google's 400) until created; refused while the stand-in holds resources",
    )
    start.add_argument(
        "--api-enable-seconds",
        type=float,
        default=DEFAULT_ENABLE_SECONDS,
        help=f"with --fresh-project: seconds an API takes to be enabled (default {DEFAULT_ENABLE_SECONDS}, "
        "scaled down from Google's)",
    )
    start.set_defaults(func=start_servers)

    stop = actions.add_parser(
        "stop",
        help="stop what `local start` and the stand-in started",
        description="Stop the emulator and the stand-in's scorers. Resources stay recorded: "
        "`local start` or the next pulumi command brings the scorers back on their ports.",
    )
    stop.set_defaults(func=stop_servers)


# --------------------------------------------------------------------------- env


def engine_bin() -> Path:
    """The engine's directory (`TUNIFOLK_ENGINE_DIR`, default build/engine/bin), after checking that
    `make engine` has written what the stack needs there (a `pulumi` and a Python language host found
    on PATH instead are accepted)."""
    folder = Path(os.environ.get(ENGINE_ENV) or ROOT / "build" / "engine" / "bin").resolve()
    for tool in ("pulumi-resource-gcp", "pulumi", "pulumi-language-python"):
        found = os.access(folder / tool, os.X_OK) or (tool != "pulumi-resource-gcp" and shutil.which(tool))
        if not found:
            raise LocalError(f"{folder / tool} is missing: run make engine")
    return folder


def emulator_url() -> str:
    """The running emulator's URL as `local start` recorded it, else the default port's.

    The file is checked as the variable it becomes (`checked_endpoint`: loopback http only): `local
    env` must never export an endpoint that the client would refuse, or one that points off this
    machine because something else wrote the file."""
    path = local_dir() / "emulator.url"
    try:
        recorded = path.read_text().strip()
    except OSError:
        return f"http://127.0.0.1:{DEFAULT_PORT}"
    try:
        return checked_endpoint(recorded, str(path))
    except ConfigError:
        raise LocalError(
            f"{path} holds {recorded[:80]!r}, not the local emulator's http://127.0.0.1:PORT (the only "
            f"endpoint {ENDPOINT_ENV} may name): remove it and run python -m tunifolk local start",
            USAGE,
        ) from None


def recorded_time_scale() -> float:
    """The time scale `local start` recorded (else `TUNIFOLK_TIME_SCALE` or the local default)."""
    try:
        return time_scale({TIME_SCALE_ENV: (local_dir() / TIME_SCALE_FILE).read_text().strip()})
    except OSError:
        return time_scale()


def environment() -> dict[str, str]:
    """The variables `local env` prints, with their values."""
    path = os.environ.get("PATH", "")
    first = str(engine_bin())
    parts = [p for p in path.split(os.pathsep) if p and p != first]
    backend = backend_dir()
    backend.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.pathsep.join([first, *parts]),
        "PULUMI_BACKEND_URL": f"file://{backend}",
        **OFFLINE,
        ENDPOINT_ENV: emulator_url(),
        TIME_SCALE_ENV: f"{recorded_time_scale():g}",
    }


LOCAL_STACK_FILE = "Pulumi.local.yaml"


def restore_stack_file(root: Path = ROOT) -> None:
    """`pulumi stack rm local`, which Pulumi suggests after every destroy, deletes the committed
    Pulumi.local.yaml unless given --preserve-config, and the local stack with it: `local env` and
    `local start` put it back from git's HEAD, and say so (else one line naming the fix)."""
    path = root / LOCAL_STACK_FILE
    if path.exists():
        return
    try:
        done = subprocess.run(
            ["git", "show", f"HEAD:{LOCAL_STACK_FILE}"], cwd=root, capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):  # no git: the message names the fix
        done = None
    if done is None or done.returncode or not done.stdout:
        raise LocalError(
            f"{path} is missing (pulumi stack rm deletes it unless given --preserve-config): "
            "restore it from the project's sources",
            USAGE,
        )
    path.write_bytes(done.stdout)
    print(
        f"restored {LOCAL_STACK_FILE} from git: pulumi stack rm deleted it (add --preserve-config)",
        file=sys.stderr,
    )


def print_env(_args: argparse.Namespace) -> int:
    restore_stack_file()
    env = environment()
    for name, value in env.items():
        print(f"export {name}={shlex.quote(value) if value else ''}")
    if not processes.healthy(env[ENDPOINT_ENV]):  # stderr: not part of what `eval` runs
        print(
            f"note: no emulator answers at {env[ENDPOINT_ENV]}: run python -m tunifolk local start",
            file=sys.stderr,
        )
    return 0


# --------------------------------------------------------------------------- start and stop


EMULATOR = ("-m", "tunifolk.emulator")
"""What the emulator's pid file must still run (`processes.runs`): a stale pid is never stopped."""


def _listening(log: Path) -> str | None:
    """The URL the emulator's first stdout line gives in `log` (a warning on stderr may come first)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    said = [line for line in text.splitlines() if line.startswith("listening on ")]
    return said[0].removeprefix("listening on ").strip() if said else None


def start_emulator(port: int, step_seconds: float, extra: list[str] | None = None) -> tuple[str, bool]:
    """(URL, started now). Idempotent: a healthy emulator started earlier is left as it is."""
    folder = local_dir()
    pid_file, url_file, log = folder / "emulator.pid", folder / "emulator.url", folder / "emulator.log"
    if processes.read_pid(pid_file, *EMULATOR) is not None and processes.healthy(emulator_url()):
        return emulator_url(), False
    gcs = standin.gcs_dir()
    gcs.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    proc = processes.start_detached(
        [sys.executable, *EMULATOR, "--port", str(port),
         "--step-seconds", str(step_seconds), "--gcs-dir", str(gcs),
         "--project-dir", str(standin.state_dir()),
         "--state-file", str(folder / EMULATOR_STATE),
         f"--concurrent-tuning-jobs={CONCURRENT_TUNING_JOBS}", *(extra or [])],
        log=log,
        pid_file=pid_file,
        cwd=ROOT,
    )  # fmt: skip

    def answering() -> str | None:
        url = _listening(log)
        return url if url and processes.healthy(url) else None

    try:
        url = processes.wait_until(answering, what="the emulator", timeout=30, proc=proc, log=log)
    except processes.ProcessError as exc:
        processes.stop_pid_file(pid_file, *EMULATOR)
        if proc.returncode is not None and "Address already in use" in log.read_text(errors="replace"):
            raise LocalError(
                f"port {port} is in use by another program: run python -m tunifolk local start --port N "
                "(0 picks a free one)"
            ) from None
        raise LocalError(str(exc)) from None
    url_file.write_text(url + "\n")
    return url, True


def cloud_run_services() -> list[tuple[str, int]]:
    """(service id, port) of every Cloud Run service the stand-in holds."""
    from tunifolk.standin.run_service import CloudRunService  # here: the kind's server code is not light

    records = Store(standin.state_dir()).all(CloudRunService.token)
    return [(r.id, int(r.outputs["uri"].rsplit(":", 1)[1])) for r in records if r.outputs.get("uri")]


def start_servers(args: argparse.Namespace) -> int:
    engine_bin()
    restore_stack_file()
    if args.port is not None and not 0 <= args.port <= 65535:
        raise LocalError(f"--port {args.port}: give a port from 0 to 65535", USAGE)
    port = args.port if args.port is not None else (DEFAULT_PORT if processes.port_free(DEFAULT_PORT) else 0)
    if args.step_seconds < 0:
        raise LocalError(f"--step-seconds {args.step_seconds}: give a number of seconds >= 0", USAGE)
    if args.fresh_project:
        make_fresh(args.api_enable_seconds, HOSTILE_PROPAGATION_SECONDS if args.hostile else 0.0)
    scale = time_scale() if args.time_scale is None else args.time_scale
    if scale <= 0:
        raise LocalError(f"--time-scale {args.time_scale}: give a factor above 0 (1 is Google's pace)", USAGE)
    hostile = ["--hostile"] if args.hostile else []
    url, started = start_emulator(
        port, args.step_seconds, [f"--time-scale={scale:g}", *hostile, *args.emulator_arg]
    )
    if started:  # what `local env` exports to the engine's plugins: the emulator's own scale
        (local_dir() / TIME_SCALE_FILE).write_text(f"{scale:g}\n")
    elif args.time_scale is not None and f"{scale:g}" != f"{recorded_time_scale():g}":
        raise LocalError(
            f"the emulator already runs at time scale {recorded_time_scale():g}: run python -m tunifolk "
            f"local stop, then local start --time-scale {scale:g}"
        )
    print(f"emulator {'started' if started else 'already running'} at {url} (gs:// in {standin.gcs_dir()})")
    for service, port in cloud_run_services():
        try:
            cloudrun.ensure(standin.state_dir(), service, port)
        except processes.ProcessError as exc:
            raise LocalError(f"{exc}: free the port, or run pulumi destroy and pulumi up again") from None
        print(f"scorer of {service} at http://127.0.0.1:{port}")
    print(f'next: eval "$(python -m tunifolk local env)" and pulumi commands ({ENDPOINT_ENV}={url})')
    return 0


HOSTILE_PROPAGATION_SECONDS = 2.0
"""With --hostile --fresh-project: seconds an API still refuses calls after its enable applied (Google's
SERVICE_DISABLED text: "If you enabled this API recently, wait a few minutes", scaled down)."""


def make_fresh(enable_seconds: float, propagation_seconds: float = 0.0) -> None:
    """The stand-ins become a project never used (APIs off, no agent), unless they hold resources: a
    project with a deployed stack in it has been used."""
    if enable_seconds < 0:
        raise LocalError(f"--api-enable-seconds {enable_seconds}: give a number of seconds >= 0", USAGE)
    held = Store(standin.state_dir()).all()
    if held:
        raise LocalError(
            f"--fresh-project: the stand-in holds {len(held)} resources of a deployed stack "
            f"({standin.state_dir()}): run pulumi destroy first"
        )
    ProjectState(standin.state_dir()).make_fresh(enable_seconds, propagation_seconds)
    print(f"fresh project: APIs off and no service agent until created (enable takes {enable_seconds:g}s)")


def stop_servers(_args: argparse.Namespace) -> int:
    folder = local_dir()
    stopped = []
    pid = processes.stop_pid_file(folder / "emulator.pid", *EMULATOR)
    if pid is not None:
        stopped.append(f"emulator (pid {pid})")
    (folder / "emulator.url").unlink(missing_ok=True)
    state = standin.state_dir()
    for service, _port in cloud_run_services():
        if cloudrun.stop(state, service):
            stopped.append(f"scorer of {service}")
    for pid in cloudrun.stop_all(state):  # scorers of services no longer recorded (an interrupted run)
        stopped.append(f"scorer (pid {pid})")
    print("stopped " + ", ".join(stopped) if stopped else "nothing was running")
    return 0
