"""Start the project's real servers as processes for tests and benchmarks.

Tests talk to real local HTTP servers, never to mocks of our own code. These helpers start
`python -m emulator` and `python -m scorer` exactly as a user would, wait until they answer,
and always stop them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before answering {url}")
        try:
            if requests.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not answer /healthz within {timeout}s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def emulator(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run `python -m emulator --port 0 ARGS...`; yield its base URL (read from its first line)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "emulator", "--port", "0", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        if not first.startswith("listening on "):
            raise RuntimeError(f"emulator's first line was {first!r}")
        url = first.removeprefix("listening on ")
        _wait_healthy(url, proc)
        yield url
    finally:
        _stop(proc)


@contextlib.contextmanager
def scorer(env: dict[str, str] | None = None) -> Iterator[str]:
    """Run `python -m scorer` on a free loopback port; yield its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorer"],
        cwd=ROOT,
        env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1", **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        _stop(proc)
