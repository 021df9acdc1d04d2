"""Choosing and serving a checkpoint on the local stack, under the real engine: the run games its
reward after a sixth of its steps (the emulator's hacking scenario; the local stack's six epochs, so
the first checkpoint comes before it), `tunifolk eval` names a checkpoint from before, and
`servingCheckpoint` in the stack's config promotes it through `pulumi preview` and `pulumi up` as
docs/checkpoints.md says. One test: each step needs the state the previous one left."""

from __future__ import annotations

import json

import pytest
import requests

from engine import LocalStack
from tunifolk.emulator.policy import HACK_ONSET

pytestmark = pytest.mark.slow

SERVING = "tunifolk:servingCheckpoint"


@pytest.mark.local_stack(emulator_args=("--scenario=hacking",), epochs=6)
def test_eval_names_a_checkpoint_before_the_hack_and_up_serves_it(stack: LocalStack) -> None:
    stack.init()
    stack.up()
    job = stack.output("job")
    checkpoints = {c["checkpoint_id"]: c for c in stack.output("checkpoints")}
    final = stack.output("endpoint")

    # 1. eval, as a user runs it against the stack
    found = stack.tunifolk(
        "eval", "--stack", "local", "--job", job, "--limit", "6", "--samples", "2", "--json",
        "--out", str(stack.base / "eval"),
    )  # fmt: skip
    doc = json.loads(found.stdout)
    best = doc["best"]
    total = max(c["step"] for c in checkpoints.values())
    assert best is not None and best["step"] <= HACK_ONSET * total, f"1: best {best}"
    assert {r["checkpoint_id"] for r in doc["checkpoints"] if r["checkpoint_id"]} == set(checkpoints)
    assert "samples added to the rollout ledger" in doc["ledger"], doc["ledger"]

    # 2. a checkpoint the job does not have stops preview on one line naming those it has
    wrong = stack.config_file(
        "wrong.yaml", {"tunifolk:cleanup: all": f'tunifolk:cleanup: all\n  {SERVING}: "99"'}
    )
    refused = stack.preview(wrong, check=False)
    assert refused.code != 0, "2: preview passed a checkpoint the job lacks"
    line = next((x for x in refused.output.splitlines() if "servingCheckpoint 99" in x), "")
    assert f"it has {', '.join(sorted(checkpoints, key=int))}" in line, refused.output
    assert "Traceback" not in refused.output

    # 3. promotion: `pulumi config set` (the plain CLI) on the stack file, preview shows it, up serves it
    chosen = stack.config_file("chosen.yaml", {})
    stack.pulumi("config", "set", "--config-file", str(chosen), SERVING, best["checkpoint_id"])
    assert f'{SERVING}: "{best["checkpoint_id"]}"' in chosen.read_text(encoding="utf-8")
    shown = stack.preview(chosen)
    assert "serving_checkpoint" in shown.output or "servingCheckpoint" in shown.output, shown.output
    stack.up(chosen)
    served = checkpoints[best["checkpoint_id"]]["endpoint"]
    assert stack.output("endpoint") == served != final
    assert stack.pulumi("stack", "output", "endpoint").stdout.strip() == served  # as the README reads it

    # 4. destroy keeps the served checkpoint's endpoint (and says so), removes the others
    gone = stack.destroy(chosen)
    assert "kept checkpoint" in gone.output, gone.output
    assert _exists(stack, served), "4: the served checkpoint's endpoint was removed"
    others = [c["endpoint"] for i, c in checkpoints.items() if i != best["checkpoint_id"]]
    assert not any(_exists(stack, e) for e in [*others, final]), "4: an unserved endpoint is left"


def _exists(stack: LocalStack, name: str) -> bool:
    return requests.get(f"{stack.vertex}/v1beta1/{name}", timeout=10).status_code == 200
