"""An interrupted `pulumi up` (issue 10, step 6): the CLI and its plugins are killed after the tuning
job exists but before `up` ends, as a crash or a closed laptop would. The next `pulumi up` must end
with exactly one job — the live one adopted by its spec label, not a second one created — and
`pulumi destroy` must clean everything up. The killed CLI leaves its lock on the file backend, which
the engine itself says to clear with `pulumi cancel`, as a user then does.

The emulator runs slow steps here (and the stack one epoch), so the window between the job's
creation and the end of `wait: succeeded` is seconds wide.

This is the engine test that runs the plain `pulumi` CLI, as docs/local-stack.md ("An interrupted
`pulumi up`") and the README show it: a process a test can kill with its plugins, then what a user
typing `pulumi up` and `pulumi cancel` sees. The others drive the engine through the Automation API.
"""

from __future__ import annotations

import pytest

from engine import LocalStack, kill_tree
from polling import poll

pytestmark = pytest.mark.slow


@pytest.mark.local_stack(step_seconds="0.25")
def test_interrupted_up_adopts_the_job_and_destroy_cleans_up(stack: LocalStack) -> None:
    one_epoch = stack.config_file("one-epoch.yaml", {"epochCount: 6": "epochCount: 1"})
    stack.pulumi("stack", "init")  # `pulumi stack init local`: --stack names it

    up = stack.popen_up("--config-file", str(one_epoch))
    try:
        poll(lambda: stack.jobs() or up.poll() is not None, timeout=180, what="the tuning job to exist")
    finally:
        kill_tree(up)
    out = up.stdout.read() if up.stdout else ""
    jobs = stack.jobs()
    assert len(jobs) == 1, f"expected the job to exist when the CLI was killed:\n{out}"
    assert jobs[0]["state"] not in ("JOB_STATE_SUCCEEDED",), "up finished before it could be interrupted"

    # The killed CLI left its lock on the file backend; the engine's own advice is `pulumi cancel`.
    locked = stack.pulumi("up", "--yes", "--skip-preview", "--config-file", str(one_epoch), check=False)
    assert locked.code != 0 and "pulumi cancel" in locked.output, locked.output
    stack.pulumi("cancel", "--yes")

    again = stack.pulumi("up", "--yes", "--skip-preview", "--config-file", str(one_epoch), check=False)
    assert again.code == 0, f"pulumi up after the interruption failed:\n{again.output}"
    assert "adopting" in again.output, f"the live job was not adopted:\n{again.output}"
    jobs = stack.jobs()
    assert len(jobs) == 1, f"{len(jobs)} jobs after the second up: {[j.get('name') for j in jobs]}"
    assert stack.pulumi("stack", "output", "job").stdout.strip() == jobs[0]["name"]
    assert stack.pulumi("stack", "output", "state").stdout.strip() == "JOB_STATE_SUCCEEDED"

    stack.pulumi("destroy", "--yes", "--skip-preview", "--config-file", str(one_epoch))
    assert stack.resources() == []
    held = stack.emulator("/emulator/resources")
    assert held["endpoints"] == [] and held["models"] == [], held
    assert stack.standin_records() == [] and stack.gcs_files() == [] and stack.scorer_pids() == []
