"""State written by the previous release still refreshes and destroys (issue 10, step 7).

`tests/fixtures/state-7a72f39.json` is `pulumi stack export` of the one-job program
`tests/fixtures/job_stack` after a real `pulumi up` at commit 7a72f39 (see capture_state.py). Here a
fresh emulator gets a live job of the same spec — created by `pulumi up` of that program, so no test
code builds Vertex bodies by hand — and the old state is imported over it, with the new job's id in
place of the old one (emulator ids come from its seed). Then, as a user upgrading would:
`pulumi refresh`, `pulumi preview --expect-no-changes` with the old config, `pulumi destroy`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import ROOT, LocalStack
from jobs import write_dataset
from servers import scorer

pytestmark = pytest.mark.slow

FIXTURES = ROOT / "tests" / "fixtures"
PROGRAM = FIXTURES / "job_stack"
STATE = FIXTURES / "state-7a72f39.json"
JOB_TYPE = "pulumi-python:dynamic/tunifolk:RlftTuningJob"


def _job(deployment: dict) -> dict:
    return next(r for r in deployment["resources"] if r["type"] == JOB_TYPE)


@pytest.mark.local_stack(program=PROGRAM, stack="prev")
def test_previous_release_state_refreshes_and_destroys(stack: LocalStack, tmp_path: Path) -> None:
    blob = json.loads(STATE.read_text(encoding="utf-8"))
    old = _job(blob["deployment"])
    old_uri = old["inputs"]["rewards"][0]["cloud_run"]["uri"]
    config = (PROGRAM / "Pulumi.prev.yaml").read_text(encoding="utf-8")
    assert old_uri in config, "the fixture's config must hold the scorer URI its state was written with"
    write_dataset(stack.gcs, 64)
    stack.init()

    with scorer(quiet=True) as live_uri:
        # A live job of the same spec in this fresh emulator, scored by a live scorer.
        live = tmp_path / "Pulumi.live.yaml"
        live.write_text(config.replace(old_uri, live_uri), encoding="utf-8")
        stack.pulumi("up", "--yes", "--skip-preview", "--config-file", str(live))
        new_id = stack.output("job")
        assert len(stack.jobs()) == 1

        # The previous release's state, pointing at that job.
        text = STATE.read_text(encoding="utf-8").replace(old["id"], new_id)
        imported = tmp_path / "previous.json"
        imported.write_text(text, encoding="utf-8")
        stack.pulumi("stack", "import", "--file", str(imported))
        assert _job(stack.export())["inputs"]["rewards"][0]["cloud_run"]["uri"] == old_uri

        stack.pulumi("refresh", "--yes", "--skip-preview")
        refreshed = _job(stack.export())
        assert refreshed["id"] == new_id and refreshed["outputs"]["state"] == "JOB_STATE_SUCCEEDED"
        tuned = stack.emulator(f"/v1beta1/{new_id}")["tunedModel"]
        assert refreshed["outputs"]["endpoint"] == tuned["endpoint"], "refresh did not read the live job"

        no_changes = stack.pulumi("preview", "--expect-no-changes", check=False)
        assert no_changes.code == 0, f"the old state previews with changes:\n{no_changes.output}"

        stack.pulumi("destroy", "--yes", "--skip-preview")
    assert stack.resources() == []
    held = stack.emulator("/emulator/resources")
    assert held["endpoints"] == [] and held["models"] == [], f"destroy left {held}"
