"""Who may call the reward, and when (issue 19, item 4): the stand-in's Cloud Run checks every call
against the service's run.invoker grants, a new grant applies only after IAM's propagation delay, and
the emulator (as Vertex) retries a refused reward call 2, 4, 8, 16, 32 s apart; every delay is scaled
by one factor (`TUNIFOLK_TIME_SCALE`, the emulator's `--time-scale`), so the proportions are Google's.

The provider runs against the emulator and the stand-in over HTTP: a grant still propagating delays
the reward validation and does not fail it, where a client that waited only its own 60 s (here 60 s
times the scale) read-timed out before Vertex answered.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from test_standin import RUN, RUN_MEMBER, Provider, serving

from jobs import FAST, PROJECT, checked, fast_emulator, inputs, jobs_in
from providers.tuning_job import RlftTuningJobProvider
from tunifolk import invoker, operations
from tunifolk.errors import RewardRefused
from tunifolk.job import bodies
from tunifolk.job.names import local_project_number
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

pytestmark = pytest.mark.slow

SCALE = 0.05
"""Google's delays at 1/20: a 2-minute propagation takes 6 s, Vertex's 62 s of retries 3.1 s."""
AGENT = f"serviceAccount:{invoker.tune_agent(local_project_number(PROJECT))}"
TEMPLATE = {"containers": [{"image": "us-central1-docker.pkg.dev/p/r/scorer:latest"}]}


@pytest.fixture
def scaled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    """The stand-in (and this process, the provider's) at SCALE, with one Cloud Run service."""
    monkeypatch.setenv(invoker.TIME_SCALE_ENV, str(SCALE))
    with serving(tmp_path / "standin", tmp_path / "gcs-standin") as gcp:
        yield gcp


def service(gcp: Provider) -> dict:
    return gcp.create(RUN, "scorer", {"location": "us-central1", "template": TEMPLATE})[1]


def grant(gcp: Provider, name: str, member: str = AGENT) -> str:
    body = {"location": "us-central1", "name": name, "role": invoker.INVOKER_ROLE, "member": member}
    return gcp.create(RUN_MEMBER, "invoker", body)[0]


def bearer(email: str, uri: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {invoker.fake_id_token(email, uri)}"}


def test_cloud_run_refuses_callers_without_a_grant_until_it_propagates(scaled: Provider) -> None:
    svc = service(scaled)
    uri, agent = svc["uri"], AGENT.removeprefix("serviceAccount:")
    anonymous = requests.get(f"{uri}/healthz", timeout=5)
    assert anonymous.status_code == 403
    assert "Your client does not have permission to get URL <code>/healthz</code>" in anonymous.text
    assert requests.get(f"{uri}/healthz", headers=bearer(agent, uri), timeout=5).status_code == 403
    wrong_audience = bearer(agent, "http://127.0.0.1:9")
    assert requests.get(f"{uri}/healthz", headers=wrong_audience, timeout=5).status_code == 401

    granted = time.monotonic()
    grant(scaled, svc["name"])
    seen = []
    while True:
        status = requests.get(f"{uri}/healthz", headers=bearer(agent, uri), timeout=5).status_code
        seen.append(status)
        if status == 200 or time.monotonic() - granted > 30:
            break
        time.sleep(0.1)
    waited = time.monotonic() - granted
    assert seen[0] == 403 and seen[-1] == 200, seen
    assert waited >= invoker.IAM_PROPAGATION_S * SCALE - 0.5, waited  # 6 s: Google's 2 minutes, scaled
    other = bearer("someone@tunifolk-test.iam.gserviceaccount.com", uri)
    assert requests.get(f"{uri}/healthz", headers=other, timeout=5).status_code == 403
    # Through the front, the container answers as itself: a reward for a POST.
    body = {"example": {"contents": []}, "response": {"parts": [{"text": "x"}]}}
    assert "reward" in requests.post(uri, json=body, headers=bearer(agent, uri), timeout=10).json()


def test_a_client_that_waits_only_its_own_timeout_loses_the_permission_error(
    scaled: Provider, gcs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No grant at all: Vertex answers PERMISSION_DENIED after its retries (3.1 s here). A client whose
    timeout is 60 s at the same scale (3 s) reads a timeout instead; the client's validation waits for
    Vertex's whole schedule and gets the answer, and the provider refuses in one line."""
    svc = service(scaled)
    with fast_emulator(gcs, f"--time-scale={SCALE}") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = checked(inputs(svc["uri"]))
        url = f"{emu}/v1beta1/{bodies.parent_of(job)}/tuningJobs:validateReinforcementTuningReward"
        with pytest.raises(requests.ReadTimeout):
            requests.post(url, json=bodies.build_validate_request(job), timeout=60 * SCALE)
        provider = RlftTuningJobProvider(**FAST, permission_retry_seconds=0)
        with pytest.raises(RewardRefused, match=r"roles/run\.invoker"):
            provider.create(job)
        assert jobs_in(emu) == []


def test_a_propagating_grant_delays_validation_and_the_job_runs(
    scaled: Provider, gcs: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    svc = service(scaled)
    with fast_emulator(gcs, f"--time-scale={SCALE}") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        grant(scaled, svc["name"])
        granted = time.monotonic()
        provider = RlftTuningJobProvider(**{**FAST, "permission_retry_interval": 30.0})
        created = provider.create(checked(inputs(svc["uri"])))
        took = time.monotonic() - granted
        assert created.outs["state"] == "JOB_STATE_SUCCEEDED"
        assert took >= invoker.IAM_PROPAGATION_S * SCALE - 0.5, took
        assert "retrying in 1.5s" in capfd.readouterr().err  # the provider's 30 s wait, scaled
        calls = requests.get(f"{emu}/emulator/requests", timeout=10).json()
        statuses = [c.get("status") for c in calls["rewardCalls"]]
        assert 403 in statuses and statuses[-1] == 200, statuses
        assert len(jobs_in(emu)) == 1


def test_a_reward_whose_own_words_say_permission_is_refused_at_once(gcs: Path) -> None:
    """Only Google's code PERMISSION_DENIED is a grant still propagating: a code reward that raises
    PermissionError (INVALID_ARGUMENT, "Permission denied" in its message) is refused at the first
    validation, with the retry's whole budget still left."""
    snippet = "def evaluate(example, response):\n    raise PermissionError(13, 'Permission denied')\n"
    rewards = [{"name": "code", "weight": 1.0, "code_execution": {"python": snippet}}]
    with fast_emulator(gcs, "--allow-code-execution") as emu, VertexClient(endpoint=emu) as client:
        job = checked(inputs("https://unused.a.run.app", rewards=rewards))
        path = f"POST /v1beta1/{bodies.parent_of(job)}/tuningJobs:validateReinforcementTuningReward"
        began = time.monotonic()
        with pytest.raises(RewardRefused, match="PermissionError") as refused:
            operations.validate_until_granted(client, job, retry_seconds=60.0, interval=0.05)
        assert time.monotonic() - began < 30, "retried as if a grant were propagating"
        assert "code 3" in str(refused.value)
        counts = requests.get(f"{emu}/emulator/requests", timeout=10).json()["counts"]
        assert counts[path] == 1, counts
