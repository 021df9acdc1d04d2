"""The job's lifecycle through the real engine (issue 12, items 1–5), on one local stack.

The emulator runs with a loose list filter (a job of another spec comes back from a label query)
and every delete operation ends NOT_FOUND. In order: `up` creates its own job beside the other
spec's; a labels change updates in place; a broken reward with a hyperparameter change fails `up`
and leaves the old job, its endpoints and its model as they were; a second stack continues tuning
from the first stack's model and its destroy removes only its own model version; destroy then
leaves nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

import servers
from engine import ROOT, LocalStack
from jobs import PARSED_JUDGE, inputs, write_dataset
from polling import job_state
from tunifolk.job import bodies
from tunifolk.job.limits import TERMINAL_STATES

pytestmark = pytest.mark.slow
JOB_URN_PART = "RlftTuningJob::rlft"


def exists(stack: LocalStack, name: str) -> bool:
    return requests.get(f"{stack.vertex}/v1beta1/{name}", timeout=10).status_code == 200


def job_outputs(stack: LocalStack) -> dict[str, Any]:
    (job,) = [r for r in stack.resources() if r["urn"].endswith(JOB_URN_PART)]
    return job["outputs"]


def serving(outputs: dict[str, Any]) -> list[str]:
    return [outputs["endpoint"], *(c["endpoint"] for c in outputs["checkpoints"]), outputs["tuned_model"]]


def other_spec_job(stack: LocalStack, scorer_uri: str) -> str:
    """A finished job of another spec in the local stack's project, as `tunifolk launch` could leave."""
    write_dataset(stack.gcs, 64)
    spec = {**inputs(scorer_uri), "project": "tunifolk-local"}
    spec["rewards"][1]["autorater"].update(PARSED_JUDGE)  # the local stack's emulator plays judge-prose
    body = bodies.build_tuning_job(spec)
    parent = "projects/tunifolk-local/locations/us-central1"
    job = requests.post(f"{stack.vertex}/v1beta1/{parent}/tuningJobs", json=body, timeout=30).json()

    def read() -> dict[str, Any]:
        return requests.get(f"{stack.vertex}/v1beta1/{job['name']}", timeout=10).json()

    done = job_state(read, TERMINAL_STATES, timeout=30)
    assert done["state"] == "JOB_STATE_SUCCEEDED", done["state"]
    return job["name"]


@pytest.mark.local_stack(emulator_args=("--loose-list-filter", "--lro-error-rate=1", "--lro-error-code=5"))
def test_the_lifecycle_never_destroys_more_than_asked(stack: LocalStack, tmp_path: Path) -> None:
    with servers.scorer() as scorer_uri:
        other = other_spec_job(stack, scorer_uri)
    stack.init()

    # 2: `up` creates its own job; the other spec's job is not adopted, whatever the filter did.
    stack.up()
    first = job_outputs(stack)
    assert first["name"] != other and len(stack.jobs()) == 2, "item 2: adopted another spec's job"

    # 4: a labels change updates the job in place and says so.
    labelled = stack.config_file(
        "labels.yaml",
        {"tunifolk:cleanup: all": "tunifolk:cleanup: all\n  tunifolk:labels:\n    team: poetry"},
    )
    planned = stack.preview_json(labelled)
    ops = {s["op"] for s in planned["steps"] if s["urn"].endswith(JOB_URN_PART)}
    assert ops == {"update"}, f"item 4: a labels change is {ops}"
    result = stack.up(labelled)
    assert "cannot relabel" in result.output and job_outputs(stack)["name"] == first["name"]

    # 3: a broken reward with a change that replaces the job: up fails, the old job stays whole.
    broken = stack.config_file(
        "broken.yaml",
        {
            "tunifolk:cleanup: all": "tunifolk:cleanup: all\n  tunifolk:labels:\n    team: poetry",
            "cloudRun: scorer": "cloudRun: http://127.0.0.1:9",
            "learningRateMultiplier: 1.0": "learningRateMultiplier: 2.0",
        },
    )
    failed = stack.up(broken, check=False)
    assert failed.code != 0 and "left as they are" in failed.output, failed.output
    assert "Traceback" not in failed.output, failed.output
    assert job_outputs(stack)["name"] == first["name"]
    states = {j["name"]: j["state"] for j in stack.jobs()}
    assert states[first["name"]] == "JOB_STATE_SUCCEEDED" and len(states) == 2, states
    assert all(exists(stack, name) for name in serving(first)), "item 3: the old job lost serving"

    # 1: another stack continues from this stack's model; its destroy takes only its version.
    model = first["tuned_model"].partition("@")[0]
    continued = LocalStack(tmp_path, stack="continued")
    continued.env, continued.vertex = stack.env, stack.vertex
    config = continued.config_file(
        "continued.yaml",
        {
            "tunifolk:baseModel: gemini-3.5-flash": (f"tunifolk:preTunedModel:\n    tunedModelName: {model}"),
            "tunifolk:cleanup: all": "tunifolk:cleanup: all\n  tunifolk:labels:\n    run: continued",
        },
    )
    # `stack init` writes Pulumi.continued.yaml (its passphrase salt) beside the program: this stack's
    # own, removed when done (and ignored by git, should a killed run leave it).
    try:
        continued.init()
        continued.up(config)
        second = job_outputs(continued)
        assert second["tuned_model"] == f"{model}@2", "item 1: not a new version of the parent"
        continued.destroy(config)
    finally:
        (ROOT / "Pulumi.continued.yaml").unlink(missing_ok=True)
    assert not exists(continued, second["tuned_model"])
    assert all(exists(stack, name) for name in serving(first)), "item 1: the parent's run was deleted"

    # 5: every delete operation ends NOT_FOUND: gone is done, destroy leaves nothing.
    stack.destroy(labelled)
    assert stack.resources() == []
    assert not any(exists(stack, name) for name in serving(first)), "item 5: a leftover"
