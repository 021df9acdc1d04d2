"""Cloud Run services of the stand-in: each one is a real reward scorer (`python -m scorer`) behind
Cloud Run's front end (`front.py`: the invoker IAM check, then a proxy), the front on a loopback port
that the service keeps for its whole life, the scorer on a port of its own chosen at each start.

The Pulumi engine starts the plugin for one command and kills it afterwards, so the scorer and its
front are started in their own sessions (they outlive the plugin), with their pids in
`<state>/run/scorer-<key>.pid` and `front-<key>.pid` and their logs beside them (tunifolk/processes.py:
a pid counts only while it still runs what was started). The front's port is
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

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tunifolk import image as images
from tunifolk import processes
from tunifolk.standin import ROOT

SCORER_MODULE = "scorer"
FRONT_MODULE = "tunifolk.standin.front"
START_TIMEOUT_S = 30.0
CONTAINER_PREFIX = "tunifolk-run-"
"""The name of a service's container: this prefix and the key of its pid file."""
ROLES = ("front", "scorer")


def _key(service_id: str) -> str:
    """The service's short key, for file and container names (a service id holds slashes)."""
    return hashlib.sha1(service_id.encode()).hexdigest()[:16]


def container_name(service_id: str) -> str:
    """The name of the container that runs the service's local image (`podman ps --filter name=…`)."""
    return CONTAINER_PREFIX + _key(service_id)


def _files(state: Path, key: str, role: str = "scorer") -> tuple[Path, Path]:
    """The pid file and log of the service's scorer (`role` "scorer") or of its front ("front")."""
    run = state / "run"
    return run / f"{role}-{key}.pid", run / f"{role}-{key}.log"


def log_file(state: Path, service_id: str) -> Path:
    """The service's log: its scorer's stdout and stderr, as Cloud Run hands them to Cloud Logging."""
    return _files(state, _key(service_id))[1]


def _image_file(state: Path, key: str) -> Path:
    return state / "run" / f"image-{key}"


def _image(state: Path, service_id: str, image: str | None) -> str | None:
    """The service's image: `image` when given (then recorded), else the one recorded last."""
    record = _image_file(state, _key(service_id))
    if image is None:
        return record.read_text().strip() if record.exists() else None
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(image + "\n")
    return image


def _markers(state: Path, key: str, role: str) -> tuple[str, ...]:
    """What a process of the service runs (`processes.runs`): its front's module, its scorer's module,
    or, for a local image, the name of the container its `podman run` runs."""
    if role == "front":
        return ("-m", FRONT_MODULE)
    record = _image_file(state, key)
    image = record.read_text().strip() if record.exists() else ""
    return (CONTAINER_PREFIX + key,) if image and images.local(image) else ("-m", SCORER_MODULE)


def _pid(state: Path, service_id: str, role: str = "scorer") -> int | None:
    key = _key(service_id)
    return processes.read_pid(_files(state, key, role)[0], *_markers(state, key, role))


def serves(pid: int) -> bool:
    """Whether `pid` is a scorer, front or container that a stand-in's Cloud Run service runs (a cloud
    service, which outlives the engine's plugin and the command that started it)."""
    args = processes.command_line(pid) or []
    python = "-m" in args and (SCORER_MODULE in args or FRONT_MODULE in args)
    return python or any(arg.startswith(CONTAINER_PREFIX) for arg in args)


def _start(
    state: Path,
    service_id: str,
    role: str,
    command: list[str],
    env: dict[str, str],
    ready: Callable[[], bool],
) -> None:
    """Start one process of the service (`command`, a whole argv) in its own session and wait until
    `ready()` holds."""
    pid_file, log = _files(state, _key(service_id), role)
    proc = processes.start_detached(command, log=log, pid_file=pid_file, cwd=ROOT, env=env)
    what = f"the {role} for {service_id}"
    processes.wait_until(ready, what=what, timeout=START_TIMEOUT_S, proc=proc, log=log)


def ensure(state: Path, service_id: str, port: int, image: str | None = None) -> None:
    """Make the service answer on `port`: its scorer on a port of its own (the image, when it is a
    local one), its front on `port`, starting both if either is not running."""
    front_url = f"http://{processes.LOOPBACK}:{port}"
    running = _pid(state, service_id) is not None and _pid(state, service_id, "front") is not None
    if running and processes.answers(front_url) and image in (None, _image(state, service_id, None)):
        return
    stop(state, service_id)
    image = _image(state, service_id, image)
    pid_file, log = _files(state, _key(service_id), "scorer")

    def start_scorer(upstream: int) -> subprocess.Popen:
        if image and images.local(image):
            run = [*images.podman(), "run", "--rm", "--replace", "--name", container_name(service_id)]
            command, env = [*run, *images.run_options(upstream), image], {}
        else:
            command = [sys.executable, "-m", SCORER_MODULE]
            env = {"PORT": str(upstream), "HOST": processes.LOOPBACK}
        return processes.start_detached(command, log=log, pid_file=pid_file, cwd=ROOT, env=env)

    # the scorer's own port is any free one: a start that loses it before binding it starts again
    _, upstream = processes.serve_on_free_port(
        start_scorer, what=f"the scorer for {service_id}", timeout=START_TIMEOUT_S, log=log
    )
    front = [sys.executable, "-m", FRONT_MODULE, "--state", str(state), "--service", service_id]
    _start(
        state,
        service_id,
        "front",
        [*front, "--port", str(port), "--upstream", str(upstream)],
        {},
        lambda: processes.answers(front_url),
    )


def stop(state: Path, service_id: str) -> bool:
    """Stop the service's front and scorer if they run; True if one was stopped."""
    key = _key(service_id)
    stopped = False
    for role in ROLES:
        if processes.stop_pid_file(_files(state, key, role)[0], *_markers(state, key, role)) is not None:
            stopped = True
    image = _image(state, service_id, None)
    if image and images.local(image):  # a container that outlived its podman run (SIGKILLed)
        subprocess.run(
            [*images.podman(), "rm", "--force", "--ignore", container_name(service_id)], capture_output=True
        )
    return stopped


def _pid_files(state: Path) -> list[tuple[Path, tuple[str, ...]]]:
    """Every pid file `state` holds, with what its process must run to be ours."""
    found = []
    for role in ROLES:
        for pid_file in sorted((state / "run").glob(f"{role}-*.pid")):
            found.append((pid_file, _markers(state, pid_file.stem.split("-", 1)[1], role)))
    return found


def running(state: Path) -> list[int]:
    """Pids of every scorer and front this state directory has started that still runs."""
    pids = [processes.read_pid(pid_file, *markers) for pid_file, markers in _pid_files(state)]
    return [pid for pid in pids if pid is not None]


def stop_all(state: Path) -> list[int]:
    """Stop every scorer and front this state directory has started, recorded service or not (an
    interrupted run leaves some behind); the pids stopped."""
    pids = [processes.stop_pid_file(pid_file, *markers) for pid_file, markers in _pid_files(state)]
    return [pid for pid in pids if pid is not None]
