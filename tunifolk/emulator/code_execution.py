"""Code-execution rewards (`codeExecutionRewardScorer.pythonCodeSnippet`): opt-in, and out of process.

A snippet is code from the request. Google runs it in its own sandbox; the emulator has none, so
it runs a snippet only when started with `--allow-code-execution` (`tunifolk local start` passes it
only when asked: `--emulator-arg=--allow-code-execution`). Without the flag, a request that holds a
code-execution reward (reward validation or a job's create) is refused with 400
FAILED_PRECONDITION naming the flag: an emulator limitation, not an answer Google gives.

With the flag, each call is a fresh `python -I` subprocess (no user site, no PYTHON* variables)
with an empty environment (no inherited credentials or tokens), its own temporary working
directory and session, a CPU limit, and a wall-clock time limit (`--code-timeout`) after which its
whole process group is killed. It is still not a sandbox: the code runs as the emulator's user.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import resource
import signal
import sys
import tempfile
from typing import Any

from .responses import ApiError

FLAG = "--allow-code-execution"
SCORER_KEY = "codeExecutionRewardScorer"
#: The child's whole environment: a search path and a UTF-8 locale, nothing inherited.
CHILD_ENV = {"PATH": os.defpath, "LC_ALL": "C.UTF-8"}
#: What runs in the child: `evaluate(example, response)` of the snippet, its float on stdout
#: (anything the snippet prints goes to stderr, so it cannot forge the result).
RUNNER = """\
import json, sys
data = json.loads(sys.stdin.buffer.read())
out, sys.stdout = sys.stdout, sys.stderr
namespace = {"__name__": "reward_snippet"}
exec(compile(data["snippet"], "<pythonCodeSnippet>", "exec"), namespace)
out.write(json.dumps(float(namespace["evaluate"](data["example"], data["response"]))))
"""


class CodeFailure(Exception):
    """The snippet did not give a number: it raised, printed nothing usable, or ran out of time."""


def refuse_unless_allowed(rewards: list[tuple[dict[str, Any], float]], allowed: bool) -> None:
    """Raise the 400 FAILED_PRECONDITION a code-execution reward gets when the flag is off."""
    if allowed:
        return
    for cfg, _ in rewards:
        if SCORER_KEY in cfg:
            raise ApiError(
                400,
                f"Reward [{cfg.get('rewardName', '')}] is a code execution reward: this emulator runs "
                f"request code only when started with {FLAG} (an emulator limitation, not the service's "
                "answer)",
                status="FAILED_PRECONDITION",
            )


def _limit_cpu(seconds: int) -> None:
    """In the child before exec: a CPU-time ceiling, so a loop dies even if the emulator does."""
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


async def run(snippet: str, example: dict[str, Any], response: dict[str, Any], timeout_s: float) -> float:
    """The snippet's `evaluate(example, response)`, run in a subprocess within `timeout_s` seconds."""
    payload = json.dumps({"snippet": snippet, "example": example, "response": response}).encode()
    cpu_s = max(1, math.ceil(timeout_s) + 1)
    with tempfile.TemporaryDirectory(prefix="emulator-code-") as cwd:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-c", RUNNER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=CHILD_ENV,
            start_new_session=True,  # its own process group: the kill below reaches its children too
            preexec_fn=lambda: _limit_cpu(cpu_s),
        )  # fmt: skip
        try:
            out, err = await asyncio.wait_for(proc.communicate(payload), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            raise CodeFailure(f"exceeded the time limit of {timeout_s:g} s") from None
        finally:
            if proc.returncode is None:  # cancelled (the job was): leave nothing running
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else f"exit status {proc.returncode}"
        if proc.returncode == -signal.SIGXCPU:
            reason = f"exceeded the CPU limit of {cpu_s} s"
        raise CodeFailure(reason[:500])
    try:
        return float(json.loads(out))
    except (ValueError, TypeError):
        raise CodeFailure(f"evaluate gave no number: {out[:200]!r}") from None
