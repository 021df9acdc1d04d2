"""The whole stack under the real Pulumi engine, offline (issue 10, steps 1 to 5).

One local stack goes through the steps in order, as a user would: `pulumi stack init local`,
`preview`, `up`, `stack output`, `tunifolk status`, `preview --expect-no-changes`, `refresh`, a
hyperparameter change, a bad learning rate, `destroy`, each through Pulumi's Automation API
(tests/engine.py), which prints what the CLI prints. The steps are one test because each needs
the state the previous one left (a pytest-xdist worker could otherwise run them apart); every
assertion names its step. Google Cloud is the gcp stand-in, Vertex the emulator, both real processes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import LocalStack, by_type
from tunifolk.ledger import names

pytestmark = pytest.mark.slow

GCP_RESOURCES = {
    ("gcp:storage/bucket:Bucket", "dataset-bucket"),
    ("gcp:storage/bucketObject:BucketObject", "dataset-train"),
    ("gcp:storage/bucketObject:BucketObject", "dataset-validation"),
    ("gcp:storage/bucketIAMMember:BucketIAMMember", "dataset-reader"),
    ("gcp:serviceaccount/account:Account", "scorer-sa"),
    ("gcp:cloudrunv2/service:Service", "scorer"),
    ("gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "scorer-vertex-invoker"),
}
JOB = ("pulumi-python:dynamic/tunifolk:RlftTuningJob", "rlft")
COMPONENTS = {
    ("tunifolk:data:TuningDataset", "dataset"),
    ("tunifolk:scorer:RewardScorer", "scorer"),
    ("tunifolk:rlft:TuningPipeline", "rlft"),
}
FORBIDDEN_IN_STATE = ("Bearer ", "access_token", "private_key", "refresh_token", "client_secret")


def _type_and_name(urn: str) -> tuple[str, str]:
    parts = urn.split("::")
    return parts[2].split("$")[-1], parts[3]


def test_local_stack_from_init_to_destroy(stack: LocalStack) -> None:
    step_1_init_and_preview(stack)
    step_2_up(stack)
    step_3_no_changes_after_up_and_refresh(stack)
    step_4_changes_preview(stack)
    step_5_destroy_leaves_nothing(stack)


def step_1_init_and_preview(stack: LocalStack) -> None:
    stack.init()
    preview = stack.preview_json()
    planned = {_type_and_name(s["urn"]): s["op"] for s in preview["steps"]}
    expected = GCP_RESOURCES | COMPONENTS | {JOB}
    missing = expected - set(planned)
    assert not missing, f"step 1: preview does not list {sorted(missing)}"
    assert {planned[r] for r in expected} == {"create"}, f"step 1: not all creates: {planned}"


def step_2_up(stack: LocalStack) -> None:
    result = stack.up()
    assert "Traceback" not in result.output, f"step 2: up printed a traceback:\n{result.output}"
    resources = stack.resources()
    present = {_type_and_name(r["urn"]) for r in resources}
    assert GCP_RESOURCES | {JOB} <= present, f"step 2: missing {sorted(GCP_RESOURCES | {JOB} - present)}"
    kinds = by_type(resources)
    job = kinds[JOB[0]][0]

    # The job is created after the invoker grant and the dataset read grant: the engine records when
    # each grant's create returned; the emulator, when the job was created.
    # (The build's own account has bucket grants of its own: the two are picked by name.)
    job_created = job["outputs"]["create_time"]
    grants = {_type_and_name(r["urn"]): r for r in resources}
    for token, name in (
        ("gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "scorer-vertex-invoker"),
        ("gcp:storage/bucketIAMMember:BucketIAMMember", "dataset-reader"),
    ):
        grant = grants[token, name]
        assert grant["created"] < job_created, (
            f"step 2: job created {job_created}, {token} at {grant['created']}"
        )
        assert grant["urn"] in job.get("dependencies", []), f"step 2: the job does not depend on {token}"

    # The scorer's Cloud Run service is a real scorer, and the job's reward calls it.
    service = kinds["gcp:cloudrunv2/service:Service"][0]["outputs"]
    assert service["uri"].startswith("http://127.0.0.1:"), service["uri"]
    assert stack.scorer_pids(), "step 2: no scorer runs for the Cloud Run service"
    assert job["outputs"]["rewards"][0]["cloud_run"]["uri"] == service["uri"]

    # Outputs: the endpoint is the tuned endpoint the emulator holds, and `tunifolk status` reads it.
    outputs = stack.outputs()
    name = outputs["job"]
    assert outputs["state"] == "JOB_STATE_SUCCEEDED"
    vertex_job = stack.emulator(f"/v1beta1/{name}")
    assert outputs["endpoint"] == vertex_job["tunedModel"]["endpoint"], "step 2: endpoint output"
    status = stack.tunifolk("status", "--job", name, "--json", check=False)
    assert status.code in (0, 1), status.output  # 1 only for a health verdict, never a usage error
    report = json.loads(status.stdout)
    assert name in json.dumps(report) and "JOB_STATE_SUCCEEDED" in json.dumps(report), status.stdout[:2000]

    # The rollout ledger is this stack's own: its dataset and sink are named after the stack (another
    # stack in the project has its own), and the output is the dataset the stand-in holds.
    dataset = kinds["gcp:bigquery/dataset:Dataset"][0]["outputs"]["datasetId"]
    sink = kinds["gcp:logging/projectSink:ProjectSink"][0]["outputs"]
    assert outputs["ledger_dataset"] == dataset == names.dataset_name(stack.stack), "step 2: ledger"
    assert sink["name"] == names.sink_name(stack.stack) and sink["destination"].endswith(f"/{dataset}")
    assert f'service_name="{service["name"]}"' in sink["filter"], sink["filter"]
    # `rollouts` reads that dataset: the job's records; a dataset the stack did not make (another
    # stack's) is BigQuery's 404, said on one line naming the fix.
    rows = [
        json.loads(line)
        for line in stack.tunifolk(
            "rollouts", "--job", name, "--stack", stack.stack, "--json"
        ).stdout.splitlines()
    ]
    assert rows and {r["job_id"] for r in rows} == {name.rsplit("/", 1)[1]}, "step 2: rollouts"
    other = stack.tunifolk(
        "rollouts",
        "--job",
        name,
        "--stack",
        stack.stack,
        "--dataset",
        names.dataset_name("other"),
        check=False,
    )
    said = [line for line in other.stderr.splitlines() if line.startswith("tunifolk: ")]
    assert other.code == 1 and len(said) == 1 and "Traceback" not in other.stderr, other.output
    assert "`pulumi up`" in said[0] and "--stack" in said[0], other.output

    # Dataset objects are where the emulator read them.
    train = outputs["train_uri"].removeprefix("gs://")
    assert (stack.gcs / train).read_bytes() == (
        Path(__file__).parent.parent / "data/train.jsonl"
    ).read_bytes()

    state_text = json.dumps(stack.export())
    leaked = [word for word in FORBIDDEN_IN_STATE if word in state_text]
    assert not leaked, f"step 2: state holds {leaked}"


def step_3_no_changes_after_up_and_refresh(stack: LocalStack) -> None:
    after_up = stack.preview(expect_no_changes=True, check=False)
    assert after_up.code == 0, f"step 3: changes right after up:\n{after_up.output}"
    stack.refresh()
    after_refresh = stack.preview(expect_no_changes=True, check=False)
    assert after_refresh.code == 0, f"step 3: changes after refresh:\n{after_refresh.output}"


def _op_of(preview: dict[str, Any], wanted: tuple[str, str]) -> set[str]:
    return {s["op"] for s in preview["steps"] if _type_and_name(s["urn"]) == wanted}


def step_4_changes_preview(stack: LocalStack) -> None:
    fewer_epochs = stack.config_file("epochs.yaml", {"epochCount: 6": "epochCount: 5"})
    preview = stack.preview_json(fewer_epochs)
    ops = _op_of(preview, JOB)
    assert ops & {"replace", "create-replacement", "delete-replaced"}, f"step 4: job ops {ops}, not a replace"
    others = {_type_and_name(s["urn"]): s["op"] for s in preview["steps"] if _type_and_name(s["urn"]) != JOB}
    assert set(others.values()) <= {"same"}, f"step 4: a hyperparameter change touches {others}"

    bad = stack.config_file("lr.yaml", {"learningRateMultiplier: 1.0": "learningRateMultiplier: 9"})
    result = stack.preview(bad, check=False)
    assert result.code != 0, f"step 4: learningRateMultiplier 9 previewed fine:\n{result.output}"
    assert "hyper_parameters.learning_rate_multiplier: " in result.output, result.output
    assert "<nil>" not in result.output, f"step 4: the engine could not show the value:\n{result.output}"
    assert "Traceback" not in result.output, f"step 4: a Python traceback:\n{result.output}"


def step_5_destroy_leaves_nothing(stack: LocalStack) -> None:
    outputs = {r["type"]: r.get("outputs", {}) for r in stack.resources()}
    job = outputs[JOB[0]]
    stack.destroy()
    assert stack.resources() == [], "step 5: state still holds resources"
    held = stack.emulator("/emulator/resources")
    assert held["endpoints"] == [] and held["models"] == [], f"step 5: emulator still holds {held}"
    assert job["endpoint"] and job["tuned_model"], "step 5: the job had no endpoint to clean up"
    assert stack.standin_records() == [], f"step 5: stand-in still holds {stack.standin_records()}"
    assert stack.gcs_files() == [], f"step 5: gs:// still holds {stack.gcs_files()}"
    assert stack.scorer_pids() == [], "step 5: a scorer still runs"
