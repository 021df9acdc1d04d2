"""The scorer does not depend on hash order (scorer/score.py's promise: the same input gives the same
float anywhere). Python salts str hashes per process, so a set of words iterated into a reason or
summed into a share gives another order, and can give another float, in another process: every case of
the red-team rounds is scored in two processes with different salts, and both answers must agree to
the bit, reason included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """
import json, sys
from pathlib import Path
from scorer.score import score
out = []
for path in sorted(Path("tests/redteam_rounds").glob("*.jsonl")):
    for line in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        s = score({"parts": case["parts"]} if case.get("parts") else case["text"], case["references"])
        out.append([case["id"], s.reward.hex(), s.reason])
json.dump(out, sys.stdout)
"""


def _run(seed: str, pure: str) -> list[list[str]]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "TUNIFOLK_SCORER_PURE": pure}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("pure", ["1", "0"], ids=["source", "compiled-or-source"])
def test_rewards_and_reasons_do_not_depend_on_the_hash_salt(pure: str) -> None:
    first, second = _run("1", pure), _run("2", pure)
    assert len(first) > 1000
    differ = [(a, b) for a, b in zip(first, second, strict=True) if a != b]
    assert not differ, differ[:3]
