"""Run the project's own servers locally: the Vertex emulator and the reward scorer.

Used by `tunifolk demo` and by the tests, so both start the servers exactly as a user would
(`python -m emulator`, `python -m scorer`), wait until they answer `/healthz`, and always stop them
(with the one process toolkit, tunifolk/processes.py).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tunifolk.paths import ROOT
from tunifolk.processes import ProcessError, serve_on_free_port, stop, wait_healthy


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
            raise ProcessError(f"the emulator's first line was {first!r}, not `listening on URL`")
        url = first.removeprefix("listening on ")
        wait_healthy(url, proc=proc, what="the emulator")
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
    with contextlib.ExitStack() as files:
        out: Any = subprocess.DEVNULL if quiet else None
        if stdout is not None:
            stdout.parent.mkdir(parents=True, exist_ok=True)
            out = files.enter_context(open(stdout, "ab"))

        def start(port: int) -> subprocess.Popen:
            return subprocess.Popen(
                [sys.executable, "-m", "scorer"],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.DEVNULL if quiet else None,
                env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1", **(env or {})},
            )

        proc, port = serve_on_free_port(start, what="the scorer")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)
