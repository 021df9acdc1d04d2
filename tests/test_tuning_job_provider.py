"""RlftTuningJobProvider against real local servers: the emulator and the real scorer.

Only Google is replaced (by the emulator); the provider, the client, the scorer and the reward
calls are all real. Every test owns its emulator so job counts are exact.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

import servers
from discovery import validate
from jobs import FAST, PROJECT, SEEDED_FAULTS, checked, exists, fast_emulator, inputs, jobs_in
from providers.tuning_job import RlftTuningJobProvider
from tunifolk.errors import JobFailed, RewardRefused, TunifolkError
from tunifolk.job import bodies, diff
from tunifolk.job.names import local_project_number
from tunifolk.vertex import ENDPOINT_ENV


def gone(emulator: str, name: str) -> bool:
    return not exists(emulator, name)


def test_lifecycle_create_read_delete(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        props = checked(inputs(scorer_uri))
        validate("TuningJob", bodies.build_tuning_job(props))
        validate("ValidateReinforcementTuningRewardRequest", bodies.build_validate_request(props))

        created = provider.create(props)
        outs = created.outs
        assert outs["state"] == "JOB_STATE_SUCCEEDED"
        assert outs["name"] == created.id and created.id.startswith(
            f"projects/{local_project_number(PROJECT)}/locations/us-central1/"  # named by number, as Google's
        )
        assert outs["total_steps"] == 64 // 16 * 1
        assert outs["endpoint"].startswith(
            f"projects/{local_project_number(PROJECT)}/locations/us/endpoints/"
        )
        assert outs["serving_host"] == "aiplatform.us.rep.googleapis.com"
        assert len(outs["checkpoints"]) == 2 and outs["best_checkpoint"] is not None
        assert set(outs["validation"]["rewards"]) == {"structure", "poetic_quality"}
        assert outs["validation"]["rewards"]["structure"] > 0.5  # the sample poem is a correct malzuma
        assert len(outs["spec_hash"]) == 16

        read = provider.read(created.id, outs)
        assert read.id == created.id
        assert read.outs["completed_steps"] == 4
        assert read.outs["state"] == "JOB_STATE_SUCCEEDED"
        assert "name" not in read.inputs and read.inputs["project"] == PROJECT

        provider.delete(created.id, read.outs)
        assert len(jobs_in(emu)) == 1
        leftovers = [outs["endpoint"], outs["tuned_model"].split("@")[0]]
        leftovers += [c["endpoint"] for c in outs["checkpoints"]]
        assert all(gone(emu, name) for name in leftovers)


def test_faults_do_not_lose_or_double_a_job(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, *SEEDED_FAULTS, "--create-fault", "after") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        created = provider.create(checked(inputs(scorer_uri)))
        assert created.outs["state"] == "JOB_STATE_SUCCEEDED"
        provider.delete(created.id, provider.read(created.id, created.outs).outs)
        admin = requests.get(f"{emu}/emulator/jobs", timeout=10).json()["jobs"]  # no faults on /emulator/
        injected = requests.get(f"{emu}/emulator/requests", timeout=10).json()["faultsInjected"]
        resources = requests.get(f"{emu}/emulator/resources", timeout=10).json()
    assert [j["name"] for j in admin] == [created.id]
    assert sum(injected.values()) > 0  # the faults really happened
    assert resources["endpoints"] == [] and resources["models"] == []


def test_create_fault_after_store_adopts_the_stored_job(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--create-fault", "after") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        created = RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri, wait="none")))
        jobs = jobs_in(emu)
        assert [j["name"] for j in jobs] == [created.id]


def test_create_fault_before_store_creates_exactly_one(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--create-fault", "before") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        created = RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri, wait="none")))
        assert [j["name"] for j in jobs_in(emu)] == [created.id]


def test_an_existing_live_job_with_the_same_spec_is_adopted(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        props = checked(inputs(scorer_uri, wait="none"))
        first = RlftTuningJobProvider(**FAST).create(props)
        second = RlftTuningJobProvider(**FAST).create(props)
        assert second.id == first.id and len(jobs_in(emu)) == 1


@pytest.fixture
def fixed_reward() -> Iterator[tuple[str, dict[str, Any]]]:
    """A reward server answering whatever the test puts in `answer` (status, body)."""
    answer: dict[str, Any] = {"status": 200, "body": {"reward": 0.0}, "calls": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            answer["calls"] += 1
            status = answer["status"](answer["calls"]) if callable(answer["status"]) else answer["status"]
            data = json.dumps(answer["body"]).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits up to one poll interval: 0.5 s by default, for every test
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", answer
    finally:
        server.shutdown()
        server.server_close()


def test_a_failing_reward_stops_create_before_any_job(gcs: Path, fixed_reward, monkeypatch) -> None:
    uri, answer = fixed_reward
    answer["status"] = 500
    with fast_emulator(gcs, "--backoff-scale", "0.001") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST, permission_retry_seconds=0)
        with pytest.raises(RewardRefused, match="reward validation failed") as info:
            provider.create(checked(inputs(uri)))
        assert "structure" in str(info.value)
        assert jobs_in(emu) == []


def test_a_missing_reward_stops_create(gcs: Path, fixed_reward, monkeypatch) -> None:
    uri, answer = fixed_reward
    answer["body"] = {"score": 1.0}  # not the contract: no `reward`
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        with pytest.raises(RewardRefused, match="structure"):
            RlftTuningJobProvider(**FAST, permission_retry_seconds=0).create(checked(inputs(uri)))
        assert jobs_in(emu) == []


def test_a_zero_reward_passes(gcs: Path, fixed_reward, monkeypatch) -> None:
    uri, answer = fixed_reward
    answer["body"] = {"reward": 0.0, "user_requested_aux_info": "{}"}
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        created = RlftTuningJobProvider(**FAST).create(checked(inputs(uri, wait="none")))
        assert created.outs["validation"]["rewards"]["structure"] == 0.0
        assert len(jobs_in(emu)) == 1


def test_a_permission_error_is_retried_until_the_grant_applies(
    gcs: Path, fixed_reward, monkeypatch, capfd
) -> None:
    uri, answer = fixed_reward
    answer["status"] = lambda n: 403 if n <= 7 else 200
    answer["body"] = {"reward": 0.5}
    with fast_emulator(gcs, "--backoff-scale", "0.001") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        created = RlftTuningJobProvider(**FAST).create(checked(inputs(uri, wait="none")))
        assert created.outs["validation"]["rewards"]["structure"] == 0.5
        assert "permission" in capfd.readouterr().err


def test_an_unavailable_judge_is_named_with_the_ones_that_answer(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    props = inputs(scorer_uri)
    props["rewards"][1]["autorater"]["model"] = "gemini-3-pro-preview"
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        with pytest.raises(TunifolkError) as info:
            RlftTuningJobProvider(**FAST).create(checked(props))
        message = str(info.value)
        assert "gemini-3-pro-preview" in message and "us-central1" in message
        assert "gemini-2.5-pro" in message and "gemini-2.5-flash" in message
        assert jobs_in(emu) == []


def test_wait_none_returns_at_once_and_update_waits_in_place(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        olds = provider.create(checked(inputs(scorer_uri, wait="none")))
        assert olds.outs["state"] in ("JOB_STATE_PENDING", "JOB_STATE_QUEUED", "JOB_STATE_RUNNING")
        news = checked(inputs(scorer_uri, wait="succeeded"))
        changed, replaces = diff.diff_decision(olds.outs, news)
        assert changed == ["wait"] and replaces == []
        updated = provider.update(olds.id, olds.outs, news)
        assert updated.outs["state"] == "JOB_STATE_SUCCEEDED" and len(jobs_in(emu)) == 1


def test_a_job_that_fails_while_waited_for_fails_create(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--fail-at-step", "2") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        with pytest.raises(JobFailed, match="JOB_STATE_FAILED"):
            RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))
        assert jobs_in(emu)[0]["state"] == "JOB_STATE_FAILED"


def test_a_wait_timeout_returns_the_running_job(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with servers.emulator("--step-seconds", "5", "--gcs-dir", str(gcs)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST, delete_timeout_seconds=30)
        created = provider.create(checked(inputs(scorer_uri, wait_timeout_seconds=0.3)))
        assert created.outs["state"] in ("JOB_STATE_PENDING", "JOB_STATE_RUNNING")
        provider.delete(created.id, created.outs)  # cancels the running job and waits for its end
        assert jobs_in(emu)[0]["state"] == "JOB_STATE_CANCELLED"


def test_read_drops_a_job_that_no_longer_exists(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        result = RlftTuningJobProvider(**FAST).read(
            f"projects/{PROJECT}/locations/us-central1/tuningJobs/12345", {"project": PROJECT}
        )
        assert result.id == "" and result.outs == {}


def test_continuous_tuning_from_another_jobs_tuned_model(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        follow = inputs(
            scorer_uri, pre_tuned_model={"tuned_model_name": first.outs["tuned_model"].split("@")[0]}
        )
        follow.pop("base_model")
        body = bodies.build_tuning_job(checked(follow))
        validate("TuningJob", body)
        assert "preTunedModel" in body and "preTunedModel" not in body["reinforcementTuningSpec"]
        second = provider.create(checked(follow))
        assert second.id != first.id and second.outs["state"] == "JOB_STATE_SUCCEEDED"
