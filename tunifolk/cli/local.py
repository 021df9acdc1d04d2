"""Run the project's own servers locally: the Vertex emulator and the reward scorer.

Used by `tunifolk demo` and by the tests, so both start the servers exactly as a user would
(`python -m emulator`, `python -m scorer`), wait until they answer `/healthz`, and always stop them.
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
from typing import Any

import requests

from tunifolk.paths import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before answering {url}")
        try:
            if requests.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):  # not up yet, or slow on a loaded machine
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not answer /healthz within {timeout}s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def emulator(*args: str, env: dict[str, str] | None = None, quiet: bool = False) -> Iterator[str]:
    """Run `python -m emulator --port 0 ARGS...`; yield its base URL (read from its first line)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tunifolk.emulator", "--port", "0", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if quiet else None,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        if not first.startswith("listening on "):
            raise RuntimeError(f"emulator's first line was {first!r}")
        url = first.removeprefix("listening on ")
        wait_healthy(url, proc)
        yield url
    finally:
        stop(proc)


@contextlib.contextmanager
def scorer(
    env: dict[str, str] | None = None, quiet: bool = False, stdout: Path | None = None
) -> Iterator[str]:
    """Run `python -m scorer` on a free loopback port; yield its base URL. `stdout` (appended to)
    keeps its standard output, the rollout ledger's records, as Cloud Run hands it to Cloud Logging
    (`tunifolk.ledger`); else it is dropped when `quiet`."""
    port = free_port()
    with contextlib.ExitStack() as files:
        out: Any = subprocess.DEVNULL if quiet else None
        if stdout is not None:
            stdout.parent.mkdir(parents=True, exist_ok=True)
            out = files.enter_context(open(stdout, "ab"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "scorer"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.DEVNULL if quiet else None,
            env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1", **(env or {})},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        stop(proc)
