"""Instructions a Python process executes, counted by callgrind: the benches' machine-independent
figure (the same total for the same binary, inputs and environment, whatever else the machine runs).
A bench takes the difference between a run with N more calls and one without, over N."""

from __future__ import annotations

import os
import subprocess
import sys


def instructions(code: str, env: dict[str, str]) -> int:
    """Instructions executed by ``python -c code`` with ``env`` added (callgrind's ``Collected``)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    ).stderr
    for line in out.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise RuntimeError(f"no instruction count from callgrind:\n{out[-400:]}")
