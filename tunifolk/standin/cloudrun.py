"""Cloud Run services of the stand-in: each one is a real reward scorer (`python -m scorer`) behind
Cloud Run's front end (`front.py`: the invoker IAM check, then a proxy), the front on a loopback port
that the service keeps for its whole life, the scorer on a port of its own chosen at each start.

The Pulumi engine starts the plugin for one command and kills it afterwards, so the scorer and its
front are started in their own sessions (they outlive the plugin), with their pids in
`<state>/run/scorer-<key>.pid` and `front-<key>.pid` and their logs beside them. The front's port is
part of the service's record, because the service's `uri` is an output other
resources depend on (the tuning job's reward): a scorer that has stopped (a reboot, `tunifolk local
stop`) is started again on the same port by the next call that touches the service, or by
`tunifolk local start` — as Cloud Run scales a service up from zero at the same URL.

A service whose image is in podman's local storage by digest (`make image` prints one:
`localhost/tunifolk-scorer@sha256:…`) runs that image instead, the way Cloud Run runs it
(`tunifolk.image.run_options`: its entrypoint and user, `$PORT` set, a read-only root, no access to the
working tree), in the foreground of a `podman run` that stands where the scorer's process stands; the
image is recorded beside the pid file, so that a later start (a read, `tunifolk local start`) runs it
again. Any other image runs this checkout's `python -m scorer`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

from tunifolk import image as images
from tunifolk.standin import ROOT

SCORER_MODULE = "scorer"
FRONT_MODULE = "tunifolk.standin.front"
START_TIMEOUT_S = 30.0
CONTAINER_PREFIX = "tunifolk-run-"
"""The name of a service's container: this prefix and the key of its pid file."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _files(state: Path, service_id: str, role: str = "scorer") -> tuple[Path, Path]:
    """The pid file and log of the service's scorer (`role` "scorer") or of its front ("front")."""
    key = hashlib.sha1(service_id.encode()).hexdigest()[:16]
    run = state / "run"
    return run / f"{role}-{key}.pid", run / f"{role}-{key}.log"


def log_file(state: Path, service_id: str) -> Path:
    """The service's log: its scorer's stdout and stderr, as Cloud Run hands them to Cloud Logging."""
    return _files(state, service_id)[1]


def _ours(pid: int, module: str = SCORER_MODULE) -> bool:
    """The pid is alive and runs `python -m module` (not a recycled pid of some other program)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if b"-m" in cmdline and module.encode() in cmdline:
        return True
    return module == SCORER_MODULE and any(arg.startswith(CONTAINER_PREFIX.encode()) for arg in cmdline)


def _our_scorer(pid: int) -> bool:
    return _ours(pid, SCORER_MODULE) or _ours(pid, FRONT_MODULE)


def _pid(state: Path, service_id: str, role: str = "scorer") -> int | None:
    pid_file, _ = _files(state, service_id, role)
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _ours(pid, FRONT_MODULE if role == "front" else SCORER_MODULE) else None


def healthy(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def answers(port: int) -> bool:
    """Something answers HTTP on the port (the front refuses an untokened /healthz: still an answer)."""
    try:
        requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
    except requests.RequestException:
        return False
    return True


def _start(
    state: Path, service_id: str, role: str, command: list[str], env: dict[str, str], ready: Any
) -> None:
    """Start one process of the service (`command`, a whole argv) in its own session and wait until
    `ready()` holds."""
    pid_file, log = _files(state, service_id, role)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            start_new_session=True,  # outlives the plugin, which the engine kills after each command
        )
    pid_file.write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            raise RuntimeError(
                f"the {role} for {service_id} exited with {proc.returncode}"
                + (f": {tail[0]}" if tail else "")
            )
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"the {role} for {service_id} did not answer in {START_TIMEOUT_S:.0f}s")


def _key(state: Path, service_id: str) -> str:
    return _files(state, service_id)[0].stem.split("-", 1)[1]


def _image(state: Path, service_id: str, image: str | None) -> str | None:
    """The service's image: `image` when given (then recorded), else the one recorded last."""
    record = state / "run" / f"image-{_key(state, service_id)}"
    if image is None:
        return record.read_text().strip() if record.exists() else None
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(image + "\n")
    return image


def ensure(state: Path, service_id: str, port: int, image: str | None = None) -> None:
    """Make the service answer on `port`: its scorer on a port of its own (the image, when it is a
    local one), its front on `port`, starting both if either is not running."""
    running = _pid(state, service_id) is not None and _pid(state, service_id, "front") is not None
    if running and answers(port) and image in (None, _image(state, service_id, None)):
        return
    stop(state, service_id)
    image = _image(state, service_id, image)
    upstream = free_port()
    if image and images.local(image):
        name = CONTAINER_PREFIX + _key(state, service_id)
        run = [*images.podman(), "run", "--rm", "--replace", "--name", name, *images.run_options(upstream)]
        _start(state, service_id, "scorer", [*run, image], {}, lambda: healthy(upstream))
    else:
        scorer = [sys.executable, "-m", SCORER_MODULE]
        scorer_env = {"PORT": str(upstream), "HOST": "127.0.0.1"}
        _start(state, service_id, "scorer", scorer, scorer_env, lambda: healthy(upstream))
    front = [sys.executable, "-m", FRONT_MODULE, "--state", str(state), "--service", service_id]
    _start(
        state,
        service_id,
        "front",
        [*front, "--port", str(port), "--upstream", str(upstream)],
        {},
        lambda: answers(port),
    )


def _stop_pid(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while _our_scorer(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    if _our_scorer(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def stop(state: Path, service_id: str) -> bool:
    """Stop the service's front and scorer if they run; True if one was stopped."""
    stopped = False
    for role in ("front", "scorer"):
        pid = _pid(state, service_id, role)
        if pid is not None:
            _stop_pid(pid)
            stopped = True
        _files(state, service_id, role)[0].unlink(missing_ok=True)
    image = _image(state, service_id, None)
    if image and images.local(image):  # a container that outlived its podman run (SIGKILLed)
        name = CONTAINER_PREFIX + _key(state, service_id)
        subprocess.run([*images.podman(), "rm", "--force", "--ignore", name], capture_output=True)
    return stopped


def running(state: Path) -> list[int]:
    """Pids of every scorer and front this state directory has started that still runs."""
    pids = []
    for pid_file in sorted([*(state / "run").glob("scorer-*.pid"), *(state / "run").glob("front-*.pid")]):
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            continue
        if _our_scorer(pid):
            pids.append(pid)
    return pids
