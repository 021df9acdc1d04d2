"""The scorer does not depend on hash order (scorer/score.py's promise: the same input gives the same
float anywhere). Python salts str hashes per process, so a set of words iterated into a reason or
summed into a share gives another order, and can give another float, in another process: the cases
of the red-team rounds are scored in two processes with different salts, and both answers must agree
to the bit, reason included. `[sample]` scores a fixed, seeded sample of the cases; `[full]` (slow)
scores every case (tests/sweeps.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sweeps import sample

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = 120
"""Cases of the sample, of the rounds' 3,200: each process takes ~0.7 s to start and load its tables,
then ~2 ms a case, and the test stays under 2 s."""

SCRIPT = """
import json, sys
from pathlib import Path
from scorer.score import score
cases = []
for path in sorted(Path("tests/redteam_rounds").glob("*.jsonl")):
    cases += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
out = []
for i in json.loads(sys.stdin.read()):
    case = cases[i]
    s = score({"parts": case["parts"]} if case.get("parts") else case["text"], case["references"])
    out.append([case["id"], s.reward.hex(), s.reason])
json.dump(out, sys.stdout)
"""


def _count() -> int:
    return sum(
        len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "tests" / "redteam_rounds").glob("*.jsonl")
    )


def _run(seed: str, indices: list[int]) -> list[list[str]]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        input=json.dumps(indices),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "full", [pytest.param(False, id="sample"), pytest.param(True, id="full", marks=pytest.mark.slow)]
)
def test_rewards_and_reasons_do_not_depend_on_the_hash_salt(full: bool) -> None:
    n = _count()
    indices = sample(n, SAMPLE, full=full)
    first, second = _run("1", indices), _run("2", indices)
    assert len(first) == len(indices) == (n if full else SAMPLE) and n > 1000
    differ = [(a, b) for a, b in zip(first, second, strict=True) if a != b]
    assert not differ, differ[:3]
