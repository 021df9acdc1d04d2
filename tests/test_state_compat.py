"""States written by earlier releases (tests/old_states.py: 7a72f39, and 37f17bf, the last commit
before the re-layout) still refresh, diff with no changes, and destroy.

Each `tests/fixtures/state-<commit>.json` is a real `pulumi stack export` of the one-job stack in
`tests/fixtures/job_stack` at that commit. Refresh and destroy run the provider object pickled in that
state (by reference to `providers.tuning_job`, so the code on disk), through the SDK's own
dynamic-provider host; diff runs the new provider against the old state. The job it names is recreated
in a fresh emulator first: the emulator keeps no state between runs, so the old id is swapped for the
new one.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import dill
import pytest
import requests
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2

import servers
from jobs import FAST, write_dataset
from old_states import COMMITS, old_job
from polling import job_state
from providers.tuning_job import RlftTuningJobProvider
from pulumi_host import URN, dynamic_host
from tunifolk.job import bodies, checks, fields
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.vertex import ENDPOINT_ENV, VertexClient


def struct(props: dict[str, Any]) -> Any:
    return asyncio.run(rpc.serialize_properties(props, {}))


def swap_id(value: Any, old: str, new: str) -> Any:
    """The state with the old job id replaced by the recreated job's (text-wise, everywhere)."""
    return json.loads(json.dumps(value).replace(old, new))


@pytest.mark.parametrize("commit", COMMITS)
def test_the_fixture_is_the_old_release_state(commit: str) -> None:
    job = old_job(commit)
    assert job["outputs"]["__provider"] == job["inputs"]["__provider"]
    written = set(job["outputs"]) - set(job["inputs"])  # state leaves out outputs that were null
    assert {"name", "state", "endpoint", "checkpoints", "spec_hash"} <= written <= set(fields.OUTPUT_NAMES)
    assert job["outputs"]["state"] == "JOB_STATE_SUCCEEDED" and job["outputs"]["endpoint"]
    blob = base64.b64decode(job["outputs"]["__provider"])
    assert b"providers.tuning_job" in blob and b"RlftTuningJobProvider" in blob  # pickled by reference
    restored = dill.loads(blob)  # the old instance, restored onto the class on disk
    assert isinstance(restored, RlftTuningJobProvider) and restored.poll_seconds == 15.0


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("commit", COMMITS)
def test_old_state_refreshes_diffs_clean_and_destroys(commit: str, tmp_path: Path) -> None:
    old = old_job(commit)
    old_id = old["id"]
    old_inputs = {k: v for k, v in old["inputs"].items() if k != "__provider"}
    write_dataset(tmp_path, 64)
    with (
        servers.scorer() as scorer_uri,
        servers.emulator("--step-seconds", "0.02", "--gcs-dir", str(tmp_path)) as emu,
        dynamic_host(RlftTuningJobProvider(**FAST), env={ENDPOINT_ENV: emu}) as host,
    ):
        # The same job, run against today's scorer (the one the old state names is long gone).
        live = {**old_inputs, "rewards": [dict(r) for r in old_inputs["rewards"]]}
        live["rewards"][0]["cloud_run"] = {"uri": scorer_uri}
        with VertexClient(endpoint=emu) as client:
            job = client.create_tuning_job(bodies.parent_of(live), bodies.build_tuning_job(live))
            done = job_state(lambda: client.get_tuning_job(job["name"]), TERMINAL_STATES, timeout=60)
            assert done["state"] == "JOB_STATE_SUCCEEDED"
        state = swap_id({"inputs": old["inputs"], "outputs": old["outputs"]}, old_id, job["name"])

        # refresh: the old pickled provider reads the job
        read = host.stub.Read(
            provider_pb2.ReadRequest(
                id=job["name"], urn=URN, properties=struct(state["outputs"]), inputs=struct(state["inputs"])
            )
        )
        refreshed = rpc.deserialize_properties(read.properties, True)
        assert read.id == job["name"] and refreshed["state"] == "JOB_STATE_SUCCEEDED"
        assert refreshed["completed_steps"] == 4 and refreshed["endpoint"]
        assert refreshed["__provider"] == old["outputs"]["__provider"]  # state keeps the old pickle

        # preview: the current program's inputs against the old state are no change
        news = checks.check_inputs(old_inputs).inputs
        diff = host.diff(job["name"], {**refreshed}, news)
        assert diff.changes == provider_pb2.DiffResponse.DIFF_NONE, list(diff.diffs)

        # destroy: the old pickled provider cleans up
        host.stub.Delete(provider_pb2.DeleteRequest(id=job["name"], urn=URN, properties=read.properties))
        leftovers = [refreshed["endpoint"], *(c["endpoint"] for c in refreshed["checkpoints"])]
        model = refreshed["tuned_model"].split("@", 1)[0]
        for name in (*leftovers, model):
            assert requests.get(f"{emu}/v1beta1/{name}", timeout=10).status_code == 404, name
