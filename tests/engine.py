"""Run the real Pulumi CLI on the project, offline, as a user of the local stack would.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from tunifolk import agents
from tunifolk.standin.store import Store

ROOT = Path(__file__).resolve().parent.parent
ENGINE_BIN = ROOT / "build" / "engine" / "bin"
STACK_FILE = ROOT / "Pulumi.local.yaml"
STEP_SECONDS = "0.02"


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
    return [
        f"engine: pulumi {cli_version or 'of unknown version'} ({cli}); "
        f"language host {host_version or 'of unknown version'} ({host}); {sdk}"
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

    # ------------------------------------------------------------------ the CLI

    def pulumi(self, *args: str, check: bool = True, timeout: float = 300) -> Result:
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

    def init(self) -> None:
        self.pulumi_plain("stack", "init", self.stack)

    def pulumi_plain(self, *args: str) -> Result:
        """A command without --stack/--non-interactive (stack init, stack rm)."""
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

    def config_file(self, name: str, replace: dict[str, str]) -> Path:
        """A copy of Pulumi.local.yaml with lines replaced (`key: old` → `key: new`), for --config-file."""
        text = STACK_FILE.read_text(encoding="utf-8")
        for old, new in replace.items():
            assert old in text, f"{old!r} not in {STACK_FILE.name}"
            text = text.replace(old, new)
        path = self.base / name
        path.write_text(text, encoding="utf-8")
        return path

    def preview_json(self, *args: str, check: bool = True) -> dict[str, Any]:
        result = self.pulumi("preview", "--json", *args, check=check)
        return json.loads(result.stdout)

    def export(self) -> dict[str, Any]:
        return json.loads(self.pulumi("stack", "export").stdout)["deployment"]

    def resources(self) -> list[dict[str, Any]]:
        return self.export().get("resources") or []

    def output(self, name: str) -> str:
        return self.pulumi("stack", "output", name).stdout.strip()

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


def _is_scorer(pid: int) -> bool:
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return b"scorer" in args or b"tunifolk.standin.front" in args
    except OSError:
        return False


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (the engine starts each plugin in its own process group), except
    the stand-in's Cloud Run scorers: they play a cloud service, which a dying laptop CLI leaves up."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if not _is_scorer(child):
                out.append(child)
                todo.append(child)
    return out


def kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the CLI and every plugin it started at once, as a crash would."""
    for pid in [proc.pid, *descendants(proc.pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)


def by_type(resources: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in resources:
        out.setdefault(r["type"], []).append(r)
    return out
