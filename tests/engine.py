"""Drive the real Pulumi engine on the project, offline, as a user of the local stack would.

A test drives its stack through Pulumi's Automation API (`pulumi.automation`: a `LocalWorkspace` on the
program's folder, `Stack.create`, `up`, `preview`, `refresh`, `destroy`, `outputs`, `export_stack`),
which runs the engine this repository builds (the CLI `tunifolk.cli.context.pulumi_command` picks, as
tunifolk's own reads of a stack do); what the engine prints comes back as the CLI prints it. One test,
tests/test_engine_interrupted.py, runs the plain `pulumi` CLI as the README and docs/local-stack.md
show it (`LocalStack.pulumi`, `popen_up`): it kills the CLI mid-`up` and types `pulumi cancel`.

Each `LocalStack` is isolated (pytest-xdist safe): its own file backend, PULUMI_HOME, stand-in state,
gs:// directory and emulator port, all under one temporary directory. It starts its servers with
`python -m tunifolk local start --port 0`, takes the engine's environment from `python -m tunifolk
local env`, and stops everything with `local stop` — the commands a user types. Where no engine can
be found (no Go to build it with `make engine`, no `pulumi` on PATH), `require_engine()` skips with
one line saying why, and fails instead under CI=true, where a skipped end-to-end suite would pass
unnoticed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from pulumi import automation

from tunifolk import agents
from tunifolk.cli.context import EngineUnavailable, pulumi_command
from tunifolk.standin.store import Store

ROOT = Path(__file__).resolve().parent.parent
ENGINE_BIN = ROOT / "build" / "engine" / "bin"
STACK_FILE = ROOT / "Pulumi.local.yaml"
STEP_SECONDS = "0.02"
EPOCHS = 1
"""The epochs of an engine scenario's run: the local stack's six, cut to one (26 steps, one
checkpoint). A scenario tests the lifecycle (create, read, checkpoints, promotion, destroy), which one
epoch exercises as six do; the README's own commands (tests/test_readme_commands.py) and the plain CLI
run the committed stack file as it is. Five epochs fewer save about 14 s of every `up`. A scenario
that needs more sets `epochs` (`@pytest.mark.local_stack(epochs=…)`)."""


def require_engine() -> None:
    """Skip (fail under CI=true) when neither the built engine nor a `pulumi` on PATH exists."""
    have_gcp = os.access(ENGINE_BIN / "pulumi-resource-gcp", os.X_OK)
    have_cli = os.access(ENGINE_BIN / "pulumi", os.X_OK) or shutil.which("pulumi") is not None
    if have_cli and have_gcp:
        return
    why = (
        "no Pulumi engine: neither build/engine/bin/pulumi (make engine, needs Go) nor a pulumi on PATH"
        if not have_cli
        else "no gcp stand-in launcher: run make standin"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"end-to-end engine tests cannot run: {why}")
    pytest.skip(f"end-to-end engine tests skipped: {why}")


def _first_line(command: list[str], env: dict[str, str]) -> str | None:
    """The first line a tool prints, or None when it cannot say (it failed, or is not ours)."""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else None


def engine_report() -> list[str]:
    """Which `pulumi` and which Python language host the engine tests run, and the Python SDK beside
    them: pytest prints it once per session after collection (conftest), so a failing run says which
    engine failed (the one `local env` puts first on PATH: build/engine/bin, or a `pulumi` on PATH)."""
    from importlib.metadata import version

    from tunifolk.cli.commands.local import OFFLINE, LocalError, engine_bin

    sdk = f"Python SDK pulumi {version('pulumi')}"
    try:
        folder = str(engine_bin())
    except LocalError as e:
        return [f"engine: none ({e}); {sdk}"]
    env = {**os.environ, **OFFLINE, "PATH": os.pathsep.join([folder, os.environ.get("PATH", "")])}
    cli = shutil.which("pulumi", path=env["PATH"])
    host = shutil.which("pulumi-language-python", path=env["PATH"])
    cli_version = _first_line([cli, "version"], env) if cli else None
    host_version = _first_line([host, "-version"], env) if host else None
    try:
        driven = pulumi_command().command
    except EngineUnavailable as e:
        driven = f"nothing ({e})"
    return [
        f"engine: pulumi {cli_version or 'of unknown version'} ({cli}); "
        f"language host {host_version or 'of unknown version'} ({host}); {sdk}",
        f"engine tests: pulumi.automation runs {driven}; the plain CLI, the pulumi on PATH above",
    ]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass
class LocalStack:
    """One isolated local stack of the project (or of another program directory)."""

    base: Path
    program: Path = ROOT
    stack: str = "local"
    env: dict[str, str] = field(default_factory=dict)
    epochs: int = EPOCHS
    _stack: automation.Stack | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.local = self.base / "local"
        self.standin = self.base / "standin"
        self.gcs = self.base / "gcs"
        home = self.base / "pulumi-home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "TUNIFOLK_LOCAL_DIR": str(self.local),
            "TUNIFOLK_STANDIN_DIR": str(self.standin),
            "TUNIFOLK_GCS_DIR": str(self.gcs),
            "PULUMI_HOME": str(home),
            **self.env,
        }
        if self.program != ROOT:
            # A fixture program (tests/fixtures/*) runs from its own folder: its dynamic provider finds
            # providers/ through PYTHONPATH. The project's own program finds it in its folder (the
            # plugin's cwd), as a user's does: no PYTHONPATH there, so the tests would see it missing.
            self.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

    # ------------------------------------------------------------------ servers

    def tunifolk(self, *args: str, check: bool = True) -> Result:
        done = subprocess.run(
            [sys.executable, "-m", "tunifolk", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        result = Result(done.returncode, done.stdout, done.stderr)
        if check and done.returncode:
            raise AssertionError(f"tunifolk {' '.join(args)} exited {done.returncode}:\n{result.output}")
        return result

    def start(self, step_seconds: str = STEP_SECONDS, *emulator_args: str, hostile: bool = True) -> None:
        """`local start` on a free port (with extra emulator options), then `local env`'s environment.
        `hostile` (the default): every hostile reading of Google's documents at once (`local start
        --hostile`, docs/google-contract.md), so the engine tests hold the client to the worst reading."""
        extra = [f"--emulator-arg={arg}" for arg in emulator_args] + (["--hostile"] if hostile else [])
        self.tunifolk("local", "start", "--port", "0", "--step-seconds", step_seconds, *extra)
        self.environment()

    def environment(self) -> None:
        """The engine's environment from `local env` alone (enough for a preview: no Vertex call)."""
        for line in self.tunifolk("local", "env").stdout.splitlines():
            name, _, value = line.removeprefix("export ").partition("=")
            words = shlex.split(value)
            self.env[name] = words[0] if words else ""
        self.vertex = self.env["TUNIFOLK_VERTEX_ENDPOINT"]

    def stop(self) -> None:
        self.tunifolk("local", "stop", check=False)

    # ------------------------------------------------------------------ the engine, through pulumi.automation

    def workspace(self) -> automation.LocalWorkspace:
        """The program's workspace (its Pulumi.yaml and stack files) with this stack's PULUMI_HOME and
        environment (`local env`'s file backend, passphrase and emulator; the test's own directories),
        run by the CLI that tunifolk's own reads use (`tunifolk.cli.context.pulumi_command`:
        build/engine/bin's, else the `pulumi` on PATH, as `local env` would put first on PATH)."""
        return automation.LocalWorkspace(
            work_dir=str(self.program),
            pulumi_home=self.env["PULUMI_HOME"],
            env_vars=self.env,
            pulumi_command=pulumi_command(),
        )

    def init(self) -> None:
        """`pulumi stack init` (`Stack.create`), which also selects the stack, as for a user: the
        tunifolk CLI then reads it. After `environment()`: the stack keeps the workspace it is made with."""
        self._stack = automation.Stack.create(self.stack, self.workspace())

    @property
    def auto_stack(self) -> automation.Stack:
        """The stack's Automation API handle: the one `init` made, else the stack selected (a stack
        made by the plain CLI, `pulumi stack init`)."""
        if self._stack is None:
            self._stack = automation.Stack.select(self.stack, self.workspace())
        return self._stack

    def up(self, config_file: Path | None = None, *, check: bool = True, timeout: float = 300) -> Result:
        """`Stack.up` (`pulumi up --yes --skip-preview`), with what the engine printed."""
        return self._run("up", self.auto_stack.up, check, timeout, config_file=self._config(config_file))

    def preview(
        self,
        config_file: Path | None = None,
        *,
        check: bool = True,
        expect_no_changes: bool = False,
        policy_packs: list[str] | None = None,
        on_event: Callable[[automation.EngineEvent], Any] | None = None,
    ) -> Result:
        """`Stack.preview`, with what the engine printed; `on_event` receives the engine's events."""
        return self._run(
            "preview",
            self.auto_stack.preview,
            check,
            300,
            config_file=self._config(config_file),
            expect_no_changes=expect_no_changes,
            policy_packs=policy_packs,
            on_event=on_event,
        )

    def preview_json(self, config_file: Path | None = None) -> dict[str, Any]:
        """`Stack.preview(json=True)`: the plan's steps, as `pulumi preview --json` prints them."""
        result = self._run(
            "preview", self.auto_stack.preview, True, 300, config_file=self._config(config_file), json=True
        )
        return json.loads(result.stdout)

    def refresh(self, config_file: Path | None = None, *, check: bool = True) -> Result:
        """`Stack.refresh` (`pulumi refresh --yes --skip-preview`)."""
        return self._run(
            "refresh", self.auto_stack.refresh, check, 300, config_file=self._config(config_file)
        )

    def destroy(self, config_file: Path | None = None, *, check: bool = True) -> Result:
        """`Stack.destroy` (`pulumi destroy --yes --skip-preview`)."""
        return self._run(
            "destroy", self.auto_stack.destroy, check, 300, config_file=self._config(config_file)
        )

    def import_state(self, state: dict[str, Any]) -> None:
        """`Stack.import_stack` of a `pulumi stack export` document (`pulumi stack import --file`)."""
        self.auto_stack.import_stack(
            automation.Deployment(version=state["version"], deployment=state["deployment"])
        )

    def export(self) -> dict[str, Any]:
        """`Stack.export_stack`: the deployment (`pulumi stack export`'s `deployment`)."""
        return self.auto_stack.export_stack().deployment or {}

    def resources(self) -> list[dict[str, Any]]:
        return self.export().get("resources") or []

    def outputs(self) -> dict[str, Any]:
        """`Stack.outputs`: every output's value (one read for all of them)."""
        return {name: output.value for name, output in self.auto_stack.outputs().items()}

    def output(self, name: str) -> Any:
        return self.outputs()[name]

    def _run(
        self, what: str, operation: Callable[..., Any], check: bool, timeout: float, **options: Any
    ) -> Result:
        """One Automation API operation, as a Result holding what the engine printed (the display a user
        of the CLI sees) and its exit code; with `check`, a failure is an AssertionError showing it.

        The Automation API waits for its `pulumi` whatever happens (pytest-timeout's exception included),
        so a hung engine would hang the session: after `timeout` seconds the engine's runs of this
        process (the CLI and its plugins) are killed, and the test fails saying so."""
        stdout: list[str] = []
        stderr: list[str] = []
        code = 0
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            _kill_engine_runs()

        timer = threading.Timer(timeout, expire)
        timer.start()
        try:
            operation(on_output=stdout.append, on_error=stderr.append, **options)
        except automation.CommandError as exc:
            found = re.search(r"^ code: (-?\d+)$", str(exc), flags=re.M)
            code = int(found.group(1)) if found else 1
        finally:
            timer.cancel()
        result = Result(code, "\n".join(stdout) + "\n", "\n".join(stderr) + "\n")
        if expired.is_set():
            raise AssertionError(f"pulumi {what} ran over {timeout:g} s and was killed:\n{result.output}")
        if check and code:
            raise AssertionError(f"pulumi {what} exited {code}:\n{result.output}")
        return result

    # ------------------------------------------------------------------ the plain CLI, as a user types it

    def pulumi(self, *args: str, check: bool = True, timeout: float = 300) -> Result:
        """`pulumi ARGS --stack STACK --non-interactive`: the plain CLI, for a test about what a user
        typing it sees (tests/test_engine_interrupted.py)."""
        done = subprocess.run(
            ["pulumi", *args, "--stack", self.stack, "--non-interactive"],
            cwd=self.program,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        result = Result(done.returncode, done.stdout, done.stderr)
        if check and done.returncode:
            raise AssertionError(f"pulumi {' '.join(args)} exited {done.returncode}:\n{result.output}")
        return result

    def pulumi_plain(self, *args: str) -> Result:
        """A command without --stack/--non-interactive (`pulumi version`)."""
        done = subprocess.run(
            ["pulumi", *args], cwd=self.program, env=self.env, capture_output=True, text=True, timeout=120
        )
        if done.returncode:
            raise AssertionError(
                f"pulumi {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
            )
        return Result(done.returncode, done.stdout, done.stderr)

    def popen_up(self, *args: str) -> subprocess.Popen:
        """`pulumi up` in its own process group, so a test can kill it and every plugin it started."""
        return subprocess.Popen(
            ["pulumi", "up", "--yes", "--skip-preview", "--stack", self.stack, "--non-interactive", *args],
            cwd=self.program,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def _config(self, path: Path | None) -> str:
        """The config file an operation runs with: the one given, else the scenario's run."""
        return str(path or self.config_file("run.yaml", {}))

    def config_file(self, name: str, replace: dict[str, str]) -> Path:
        """A copy of Pulumi.local.yaml with lines replaced (`key: old` → `key: new`), for --config-file:
        the scenario's run (`epochs`) first, then `replace`."""
        text = STACK_FILE.read_text(encoding="utf-8")
        for old, new in {"epochCount: 6": f"epochCount: {self.epochs}", **replace}.items():
            assert old in text, f"{old!r} not in {STACK_FILE.name}"
            text = text.replace(old, new)
        path = self.base / name
        path.write_text(text, encoding="utf-8")
        return path

    # ------------------------------------------------------------------ what the servers hold

    def create_tuning_agent(self, project: str) -> None:
        """What a user does when `up` says the tuning agent does not exist: the one throwaway tuning
        job that `agents.bootstrap_command` writes (its dataset does not exist; it fails at once)."""
        body = re.search(r"-d '(\{.*\})'", agents.bootstrap_command(project))
        assert body is not None
        url = f"{self.vertex}/v1beta1/projects/{project}/locations/{agents.BOOTSTRAP_REGION}/tuningJobs"
        headers = {"content-type": "application/json"}
        requests.post(url, data=body.group(1), headers=headers, timeout=30).raise_for_status()

    def emulator(self, path: str) -> Any:
        resp = requests.get(f"{self.vertex}{path}", timeout=10)
        resp.raise_for_status()
        return resp.json()

    def jobs(self) -> list[dict[str, Any]]:
        data = self.emulator("/emulator/jobs")
        return data.get("jobs", data) if isinstance(data, dict) else data

    def standin_records(self) -> list[Any]:
        return Store(self.standin).all()

    def scorer_pids(self) -> list[int]:
        from tunifolk.standin import cloudrun

        return cloudrun.running(self.standin)

    def gcs_files(self) -> list[Path]:
        return sorted(p for p in self.gcs.rglob("*") if p.is_file()) if self.gcs.exists() else []


def kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the CLI and every plugin it started at once, as a crash would (the engine starts each
    plugin in its own process group). The stand-in's Cloud Run scorers stay: they play a cloud
    service, which a dying laptop CLI leaves up."""
    from tunifolk.processes import descendants
    from tunifolk.standin import cloudrun

    for pid in [proc.pid, *descendants(proc.pid, skip=cloudrun.serves)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)


def stack_with_outputs(base: Path, stack: str, outputs: dict[str, Any]) -> dict[str, str]:
    """A stack of the project that holds `outputs` and no resource, in a file backend under `base`, and
    the variables under which a read from the project folder finds it (backend, PULUMI_HOME,
    passphrase): the real engine answers tunifolk's reads without a program run. Made with the
    Automation API, `Stack.create` then `import_stack` of a state whose one resource is the root stack,
    from a copy of Pulumi.yaml, so that no stack file is written beside the project's."""
    folder = base / "outputs-program"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    (base / "outputs-backend").mkdir()
    env = {
        "PULUMI_BACKEND_URL": f"file://{base / 'outputs-backend'}",
        "PULUMI_HOME": str(base / "outputs-home"),
        "PULUMI_CONFIG_PASSPHRASE": "",
        "PULUMI_SKIP_UPDATE_CHECK": "true",
    }
    made = automation.Stack.create(
        stack, automation.LocalWorkspace(work_dir=str(folder), env_vars=env, pulumi_command=pulumi_command())
    )
    state = made.export_stack()  # the new stack's manifest and secrets provider, no resource yet
    assert state.deployment is not None
    project = made.workspace.project_settings().name
    root = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    state.deployment["resources"] = [
        {"urn": root, "custom": False, "type": "pulumi:pulumi:Stack", "outputs": outputs}
    ]
    made.import_stack(state)
    return env


def _kill_engine_runs() -> None:
    """SIGKILL every `pulumi` this process runs (the Automation API's) and the plugins each started,
    as `kill_tree` does; the stand-in's Cloud Run scorers stay, and so do servers a test started."""
    from tunifolk.processes import descendants
    from tunifolk.standin import cloudrun

    for pid in descendants(os.getpid(), skip=cloudrun.serves):
        try:
            program = os.readlink(f"/proc/{pid}/exe")
        except OSError:  # gone meanwhile
            continue
        if os.path.basename(program) != "pulumi":
            continue
        for each in [pid, *descendants(pid, skip=cloudrun.serves)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(each, signal.SIGKILL)


def by_type(resources: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in resources:
        out.setdefault(r["type"], []).append(r)
    return out
