"""Cloud Run services of the stand-in: each one is a real reward scorer (`python -m scorer`) on a
loopback port that the service keeps for its whole life.

The Pulumi engine starts the plugin for one command and kills it afterwards, so a scorer is started
in its own session (it outlives the plugin) with its pid in `<state>/run/<service>.pid` and its log
beside it. The port is part of the service's record, because the service's `uri` is an output other
resources depend on (the tuning job's reward): a scorer that has stopped (a reboot, `tunifolk local
stop`) is started again on the same port by the next call that touches the service, or by
`tunifolk local start` — as Cloud Run scales a service up from zero at the same URL.
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

import requests

from tunifolk.standin import ROOT

SCORER_MODULE = "scorer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _files(state: Path, service_id: str) -> tuple[Path, Path]:
    key = hashlib.sha1(service_id.encode()).hexdigest()[:16]
    run = state / "run"
    return run / f"scorer-{key}.pid", run / f"scorer-{key}.log"


def _our_scorer(pid: int) -> bool:
    """The pid is alive and is a scorer (not a recycled pid of some other program)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"-m" in cmdline and SCORER_MODULE.encode() in cmdline


def _pid(state: Path, service_id: str) -> int | None:
    pid_file, _ = _files(state, service_id)
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _our_scorer(pid) else None


def healthy(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def ensure(state: Path, service_id: str, port: int, timeout: float = 30.0) -> None:
    """Make the service's scorer answer on `port`, starting it if it is not running."""
    if _pid(state, service_id) is not None and healthy(port):
        return
    stop(state, service_id)
    pid_file, log = _files(state, service_id)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", SCORER_MODULE],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1"},
            start_new_session=True,  # outlives the plugin, which the engine kills after each command
        )
    pid_file.write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            raise RuntimeError(
                f"the scorer for {service_id} exited with {proc.returncode} on port {port}"
                + (f": {tail[0]}" if tail else "")
            )
        if healthy(port):
            return
        time.sleep(0.1)
    raise RuntimeError(
        f"the scorer for {service_id} did not answer /healthz on port {port} in {timeout:.0f}s"
    )


def stop(state: Path, service_id: str) -> bool:
    """Stop the service's scorer if it runs; True if one was stopped."""
    pid = _pid(state, service_id)
    pid_file, _ = _files(state, service_id)
    if pid is None:
        pid_file.unlink(missing_ok=True)
        return False
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
    pid_file.unlink(missing_ok=True)
    return True


def running(state: Path) -> list[int]:
    """Pids of every scorer this state directory has started that still runs."""
    pids = []
    for pid_file in sorted((state / "run").glob("scorer-*.pid")):
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            continue
        if _our_scorer(pid):
            pids.append(pid)
    return pids
