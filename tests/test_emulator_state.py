"""The emulator's state as Google's (issue 19, section 5): random ids, a state that survives a restart,
404 for a job it does not know, the concurrent-tuning-job quota, and the model-version rules.

Every test talks to the real emulator over HTTP; bodies are checked against the discovery document.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from discovery import validate
from emulator_api import (
    FAST,
    PROJECT,
    RewardServer,
    api,
    create_job,
    get_job,
    google_error,
    job_body,
    ok,
    parent,
    wait_for,
    world,
    write_datasets,
)
from engine import LocalStack, require_engine
from servers import emulator
from tunifolk.emulator.limits import CONCURRENT_TUNING_JOBS, CONCURRENT_TUNING_JOBS_METRIC
from tunifolk.job import names
from tunifolk.job.limits import TERMINAL_STATES

pytestmark = pytest.mark.slow  # every test starts emulators (tests/conftest.py: servers are slow)

JOBS = parent() + "/tuningJobs"
SLOW = ("--step-seconds", "0.3")  # a job that stays RUNNING for seconds


def test_ids_are_random_not_seeded_and_an_unknown_job_is_404(tmp_path: Path) -> None:
    """Two emulators with the same fault seed name their first job differently; a job id one of them
    never made answers Google's NOT_FOUND, never the other's job."""
    made = []
    for i in range(2):
        with world(tmp_path / str(i), "--fault-seed", "7") as (url, rs, train, val):
            made.append((url, create_job(url, job_body(train, val, rs.url + "/ok"))["name"]))
            if i == 1:
                stranger = made[0][1]  # the first emulator's job, asked of the second
                message = google_error(requests.get(api(url, stranger), timeout=10), 404, "NOT_FOUND")
                assert stranger.rsplit("/", 1)[-1] in message
    assert made[0][1] != made[1][1]
    assert all(len(name.rsplit("/", 1)[-1]) == 19 for _, name in made)


def test_state_survives_a_restart_and_a_running_job_resumes(tmp_path: Path) -> None:
    """With --state-file, a restart keeps every job, model, endpoint and experiment, and a job that was
    RUNNING carries on to its end (as a Vertex job does while nobody watches)."""
    state = tmp_path / "local" / "emulator.json"
    train, val = write_datasets(tmp_path / "gcs")
    args = (*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--state-file", str(state))
    with RewardServer() as rs:  # the scorer outlives the emulator's restart, as Cloud Run would
        with emulator(*args, *SLOW) as url:
            body = job_body(train, val, rs.url + "/ok", stepCount="2", epochCount=None, labels={"k": "done"})
            done = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
            assert done["state"] == "JOB_STATE_SUCCEEDED"
            body = job_body(train, val, rs.url + "/ok", stepCount="6", epochCount=None, labels={"k": "run"})
            running = create_job(url, body)
            wait_for(url, running["name"], {"JOB_STATE_RUNNING"})
        assert state.is_file()
        with emulator(*args) as url:
            after = get_job(url, done["name"])
            assert after["state"] == "JOB_STATE_SUCCEEDED" and after["tunedModel"] == done["tunedModel"]
            ok(requests.get(api(url, done["tunedModel"]["model"]), timeout=10), "Model")
            ok(requests.get(api(url, done["tunedModel"]["endpoint"]), timeout=10), "Endpoint")
            ok(requests.get(api(url, done["experiment"]), timeout=10), "Context")
            listed = ok(requests.get(api(url, JOBS), timeout=10), "ListTuningJobsResponse")
            assert {j["name"] for j in listed["tuningJobs"]} == {done["name"], running["name"]}
            resumed = get_job(url, running["name"])
            assert resumed["createTime"] == running["createTime"]
            ended = wait_for(url, running["name"], TERMINAL_STATES)
            assert ended["state"] == "JOB_STATE_SUCCEEDED", ended.get("error")
            assert ended["tunedModel"]["checkpoints"] and ended["experiment"] == resumed["experiment"]


def test_the_concurrent_tuning_job_quota_answers_429_with_error_info(tmp_path: Path) -> None:
    with world(tmp_path, *SLOW, "--concurrent-tuning-jobs", "1") as (url, rs, train, val):
        first = create_job(
            url, job_body(train, val, rs.url + "/ok", stepCount="20", epochCount=None, labels={"k": "a"})
        )
        refused = requests.post(
            api(url, JOBS), json=job_body(train, val, rs.url + "/ok", labels={"k": "b"}), timeout=10
        )
        google_error(refused, 429, "RESOURCE_EXHAUSTED", "RESOURCE_QUOTA_EXCEEDED")
        info = refused.json()["error"]["details"][0]
        assert info["domain"] == "googleapis.com"
        assert info["metadata"]["quota_metric"] == CONCURRENT_TUNING_JOBS_METRIC
        number = names.project_of(first["name"])
        assert info["metadata"]["consumer"] == f"projects/{number}"
        # another location of the same project shares the quota (it is global)
        other = parent("europe-west4") + "/tuningJobs"
        body = job_body(train, val, rs.url + "/ok", labels={"k": "c"})
        refused = requests.post(api(url, other), json=body, timeout=10)
        google_error(refused, 429, "RESOURCE_EXHAUSTED", "RESOURCE_QUOTA_EXCEEDED")
        ok(requests.post(api(url, first["name"] + ":cancel"), json={}, timeout=10))
        wait_for(url, first["name"], TERMINAL_STATES)
        create_job(url, job_body(train, val, rs.url + "/ok", labels={"k": "b"}))  # a slot is free again


def _continuous(url: str, train: str, val: str, reward: str, model: str) -> dict:
    body = job_body(train, val, reward, stepCount="2", epochCount=None, labels={"k": "v2"})
    del body["baseModel"]
    body["preTunedModel"] = {"tunedModelName": names.base(model)}
    return wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)


def test_delete_version_refuses_the_only_and_the_default_version(tmp_path: Path) -> None:
    with world(tmp_path) as (url, rs, train, val):
        first = create_job(url, job_body(train, val, rs.url + "/ok", stepCount="2", epochCount=None))
        first = wait_for(url, first["name"], TERMINAL_STATES)
        model = first["tunedModel"]["model"]  # M@1, the only version
        base = names.base(model)
        refused = requests.delete(api(url, model + ":deleteVersion"), timeout=10)
        message = google_error(refused, 400, "FAILED_PRECONDITION")
        assert "only version" in message  # (refused before the check that it is still deployed)

        second = _continuous(url, train, val, rs.url + "/ok", model)
        assert second["tunedModel"]["model"] == base + "@2"
        versions = ok(requests.get(api(url, base + ":listVersions"), timeout=10), "ListModelVersionsResponse")
        assert [(v["versionId"], v["versionAliases"]) for v in versions["models"]] == [
            ("1", ["default"]),
            ("2", []),
        ]
        message = google_error(requests.delete(api(url, model + ":deleteVersion"), timeout=10), 400)
        assert "default version" in message  # M@1 is the default

        merged = requests.post(
            api(url, base + "@2:mergeVersionAliases"), json={"versionAliases": ["default"]}, timeout=10
        )
        validate("MergeVersionAliasesRequest", {"versionAliases": ["default"]})
        assert ok(merged, "Model")["versionAliases"] == ["default"]
        assert ok(requests.get(api(url, base), timeout=10), "Model")["versionId"] == "2"
        no_default = {"versionAliases": ["-default"]}
        google_error(
            requests.post(api(url, base + "@2:mergeVersionAliases"), json=no_default, timeout=10), 400
        )
        refused = requests.delete(api(url, model + ":deleteVersion"), timeout=10)
        assert "deployed" in google_error(refused, 400)  # no longer the default: only its endpoints hold it


@pytest.mark.slow  # `tunifolk local start|stop`, as a user runs them
def test_local_stop_and_start_keep_the_emulator_state_and_the_quota(tmp_path: Path) -> None:
    """`local start` runs the emulator with its state under the local dir and Google's default quota of
    concurrent tuning jobs; a `local stop` and `local start` keep the jobs it made."""
    require_engine()
    stack = LocalStack(tmp_path)
    train, val = write_datasets(stack.gcs)
    try:
        stack.tunifolk("local", "start", "--port", "0", "--step-seconds", "5")
        url = (stack.local / "emulator.url").read_text().strip()
        first = create_job(url, job_body(train, val, "http://127.0.0.1:9/ok", labels={"k": "a"}))
        for i in range(1, CONCURRENT_TUNING_JOBS):  # Google's default is 1: none here
            create_job(url, job_body(train, val, "http://127.0.0.1:9/ok", labels={"k": str(i)}))
        more = job_body(train, val, "http://127.0.0.1:9/ok", labels={"k": "more"})
        refused = requests.post(api(url, JOBS), json=more, timeout=10)
        google_error(refused, 429, "RESOURCE_EXHAUSTED", "RESOURCE_QUOTA_EXCEEDED")
        stack.tunifolk("local", "stop")
        assert (stack.local / "emulator-state.json").is_file()
        stack.tunifolk("local", "start", "--port", "0", "--step-seconds", "5")
        url = (stack.local / "emulator.url").read_text().strip()
        again = get_job(url, first["name"])
        assert again["createTime"] == first["createTime"] and again["labels"] == {"k": "a"}
        stranger = names.with_project(first["name"].rsplit("/", 1)[0] + "/1234567890123456789", PROJECT)
        google_error(requests.get(api(url, stranger), timeout=10), 404, "NOT_FOUND")
    finally:
        stack.tunifolk("local", "stop")
