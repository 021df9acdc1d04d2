"""Benchmark: the Pulumi program's run time under Pulumi's mocks (goal: under 3 s).

Each run is a fresh process, so the figure includes importing pulumi and pulumi_gcp, reading the
stack config and the dataset, building every component and resolving the stack outputs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPET = """
import sys, time
t0 = time.perf_counter()
sys.path[:0] = ["{root}", "{root}/tests"]
from mocked_program import run_program, stack_config
mocks, monitor, outputs, program_s = run_program(stack_config("dev"))
assert outputs["job"] and not mocks.check_failures
print(f"{{time.perf_counter() - t0:.3f}} {{program_s:.3f}} {{len(monitor.requests)}}")
"""


def main() -> None:
    totals, programs = [], []
    for _ in range(5):
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", SNIPPET.format(root=ROOT)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        wall = time.perf_counter() - started
        totals.append(wall)
        programs.append(float(out[1]))
        resources = int(out[2])
    print(f"pulumi program under mocks, dev stack ({resources} registrations), 5 fresh processes:")
    print(f"  process wall time   median {statistics.median(totals):.2f} s  max {max(totals):.2f} s")
    print(
        f"  program run (after imports) median {statistics.median(programs):.2f} s  max {max(programs):.2f} s"
    )


if __name__ == "__main__":
    main()
