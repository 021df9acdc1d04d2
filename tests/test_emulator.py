"""The emulator's API surface: shapes, sharp edges of validation and creation, serving, admin.

Every test drives `python -m emulator` as a real process over HTTP (the `emulator_world` fixture:
one emulator, a reward server and datasets for the module), and checks every body against the
discovery document. The helpers live in tests/emulator_api.py.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from discovery import validate
from emulator_api import (
    admin,
    api,
    autorater_reward,
    cloud_run_reward,
    create_job,
    emulator_help,
    example,
    get_job,
    google_error,
    job_body,
    ok,
    parent,
    sample_response,
    validate_reward,
    wait_for,
)


def test_cli_help_documents_every_option() -> None:
    out = emulator_help()
    for opt in (
        "--port", "--step-seconds", "--gcs-dir", "--fault-seed", "--scenario", "--reward-fail-rate",
        "--fail-at-step", "--cancel-ignored", "--report-progress", "--samples-per-step", "--judge-models",
        "--backoff-scale", "--fault-503-rate", "--fault-429-rate", "--retry-after", "--fault-latency-ms",
        "--fault-html-rate", "--create-fault", "--allow-code-execution", "--code-timeout",
    ):  # fmt: skip
        assert opt in out, opt


def test_healthz_and_unknown_paths(emulator_world: tuple) -> None:
    url = emulator_world[0]
    assert requests.get(url + "/healthz", timeout=5).status_code == 200
    r = requests.get(url + "/v1beta1/nothing/here", timeout=5)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")


def test_rlft_only_in_us_central1_and_europe_west4(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    body = job_body(train, val, rs.url + "/ok")
    for loc in ("us-east1", "global", "europe-west1"):
        r = requests.post(api(url, parent(loc) + "/tuningJobs"), json=body, timeout=10)
        assert "not available" in google_error(r, 400, "INVALID_ARGUMENT")
        r = validate_reward(
            url,
            {
                "example": example(),
                "sampleResponse": sample_response(),
                "singleRewardConfig": autorater_reward(),
            },
            location=loc,
        )
        google_error(r, 400, "INVALID_ARGUMENT")


def test_validate_lives_under_tuning_jobs_only(emulator_world: tuple) -> None:
    url = emulator_world[0]
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(),
    }
    validate("ValidateReinforcementTuningRewardRequest", body)
    r = requests.post(api(url, parent() + ":validateReinforcementTuningReward"), json=body, timeout=10)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "<html" in r.text.lower()
    ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")


def test_validate_field_must_be_example(emulator_world: tuple) -> None:
    url = emulator_world[0]
    body = {
        "reinforcementTuningExample": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(),
    }
    msg = google_error(validate_reward(url, body), 400, "INVALID_ARGUMENT")
    assert "reinforcementTuningExample" in msg


def test_autorater_without_model_is_an_error_and_nan(emulator_world: tuple) -> None:
    url = emulator_world[0]
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "compositeRewardConfig": {
            "weightedRewardConfigs": [{"weight": 1.0, "rewardConfig": autorater_reward(model=None)}]
        },
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    info = out["rewardInfoDetails"]["poetic_quality"]
    assert info["reward"] == "NaN"
    assert info["errorStatus"]["message"] == "Missing autorater model in the autorater_config"
    assert out["overallReward"] == "NaN"
    assert "Error for reward [poetic_quality]: Missing autorater model" in out["errorStatus"]["message"]


def test_autorater_bare_model_name_is_an_internal_error(emulator_world: tuple) -> None:
    url = emulator_world[0]
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(model="gemini-2.5-pro"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    info = out["rewardInfoDetails"]["poetic_quality"]
    assert info["reward"] == "NaN"
    assert "Internal error" in info["errorStatus"]["message"]


def test_autorater_full_name_gives_a_finite_reward(emulator_world: tuple) -> None:
    url = emulator_world[0]
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    r = out["rewardInfoDetails"]["poetic_quality"].get("reward", 0.0)
    assert isinstance(r, float) and -1 <= r <= 1
    assert "errorStatus" not in out
    again = ok(validate_reward(url, body))
    assert again == out  # the stand-in judge is deterministic


def test_unavailable_judge_in_region_is_not_found(emulator_world: tuple) -> None:
    url = emulator_world[0]
    model = "projects/proj/locations/us-central1/publishers/google/models/gemini-3-pro-preview"
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(model=model),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["poetic_quality"]["reward"] == "NaN"
    assert out["rewardInfoDetails"]["poetic_quality"]["errorStatus"]["code"] == 5


def test_judge_probe_per_region(emulator_world: tuple) -> None:
    url = emulator_world[0]
    probe = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    validate("GenerateContentRequest", probe)
    for loc in ("us-central1", "europe-west4"):
        # the judges, and the RLFT base model (`tunifolk eval` samples it as the reference: SRV-09)
        for model in ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-3.5-flash"):
            path = f"{parent(loc)}/publishers/google/models/{model}:generateContent"
            ok(requests.post(api(url, path), json=probe, timeout=10), "GenerateContentResponse")
        for model in ("gemini-3-pro-preview", "gemini-3.1-pro-preview", "gemini-2.0-flash"):
            path = f"{parent(loc)}/publishers/google/models/{model}:generateContent"
            google_error(requests.post(api(url, path), json=probe, timeout=10), 404, "NOT_FOUND")


def test_cloud_run_reward_is_a_real_call_with_the_contract_body(emulator_world: tuple) -> None:
    url, rs, _, _ = emulator_world
    before = len(rs.requests)
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", rs.url + "/ok"),
    }
    validate("ValidateReinforcementTuningRewardRequest", body)
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    call = rs.requests[before]
    assert set(call["body"]) == {"example", "response", "metadata"}
    assert call["body"]["example"] == example()
    assert call["body"]["response"] == sample_response()
    assert set(call["body"]["metadata"]) == {"step", "tuning_job_id"}
    assert call["authorization"].startswith("Bearer ")
    info = out["rewardInfoDetails"]["structure"]
    assert "userRequestedAuxInfo" in info and "errorStatus" not in info


def test_zero_reward_is_written_without_its_field(emulator_world: tuple) -> None:
    url, rs, _, _ = emulator_world
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", rs.url + "/zero"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert "structure" in out["rewardInfoDetails"]
    assert "reward" not in out["rewardInfoDetails"]["structure"]
    assert "overallReward" not in out
    assert "errorStatus" not in out


def test_failing_cloud_run_is_retried_then_nan(emulator_world: tuple) -> None:
    url, rs, _, _ = emulator_world
    before = len(rs.requests)
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", rs.url + "/fail-validate"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["structure"]["reward"] == "NaN"
    assert "errorStatus" in out
    assert len([r for r in rs.requests[before:] if r["path"] == "/fail-validate"]) == 6  # 1 + 5 retries
    calls = [c for c in admin(url, "requests")["rewardCalls"] if c["uri"].endswith("/fail-validate")]
    assert [c["attempt"] for c in calls] == [1, 2, 3, 4, 5, 6]


def test_invalid_reward_response_is_nan(emulator_world: tuple) -> None:
    url, rs, _, _ = emulator_world
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", rs.url + "/invalid"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["structure"]["reward"] == "NaN"


def test_string_match_rewards(emulator_world: tuple) -> None:
    """(Code-execution rewards, which need --allow-code-execution, are tests/test_security.py's.)"""
    url = emulator_world[0]
    sm = {
        "rewardName": "has_sea",
        "stringMatchRewardScorer": {
            "stringMatchExpression": {
                "matchOperation": "PARTIAL_MATCH",
                "expression": "{{references.theme}}",
            },
            "correctAnswerReward": 1.0,
            "wrongAnswerReward": -1.0,
        },
    }
    body = {"example": example(), "sampleResponse": sample_response("موج البحر"), "singleRewardConfig": sm}
    validate("ValidateReinforcementTuningRewardRequest", body)
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["has_sea"]["reward"] == 1.0
    assert out["overallReward"] == 1.0
    body["sampleResponse"] = sample_response("ريح الصحراء")
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["has_sea"]["reward"] == -1.0


def test_unknown_keys_are_rejected_naming_the_key(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    body = job_body(train, val, rs.url + "/ok")
    body["reinforcementTuningSpec"]["hyperParameters"]["epochs"] = "3"
    msg = google_error(requests.post(api(url, parent() + "/tuningJobs"), json=body, timeout=10), 400)
    assert '"epochs"' in msg and "hyper_parameters" in msg
    body = job_body(train, val, rs.url + "/ok")
    body["reinforcementTuningSpec"]["preTunedModel"] = {"tunedModelName": "projects/p/locations/l/models/m"}
    msg = google_error(requests.post(api(url, parent() + "/tuningJobs"), json=body, timeout=10), 400)
    assert '"preTunedModel"' in msg  # a sibling of reinforcementTuningSpec, not inside it
    wrapped = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(),
    }
    wrapped["singleRewardConfig"]["autoraterScorer"]["parsedResponseConversionScorer"] = {"x": 1}
    assert '"x"' in google_error(validate_reward(url, wrapped), 400)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"stepCount": "10"}, "mutually exclusive"),
        ({"batchSize": 3, "samplesPerPrompt": 5}, "divisible by 16"),
        ({"learningRateMultiplier": 8.0}, "learning_rate_multiplier"),
        ({"maxOutputTokens": 65536}, "max_output_tokens"),
        ({"thinkingBudget": 1024}, "thinking_budget"),
        ({"adapterSize": "ADAPTER_SIZE_SIXTY_FOUR"}, "adapter_size"),
    ],
)
def test_bad_hyper_parameters_are_400(emulator_world: tuple, change: dict[str, Any], needle: str) -> None:
    url, rs, train, val = emulator_world
    body = job_body(train, val, rs.url + "/ok", **change)
    msg = google_error(requests.post(api(url, parent() + "/tuningJobs"), json=body, timeout=10), 400)
    assert needle in msg


def test_v1_silently_drops_rlft_fields(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok"))
    v1 = requests.get(f"{url}/v1/{job['name']}", timeout=10).json()
    assert v1["name"] == job["name"]
    assert "reinforcementTuningSpec" not in v1
    assert "reinforcementTuningSpec" in get_job(url, job["name"])
    r = requests.post(
        f"{url}/v1/{parent()}/tuningJobs", json=job_body(train, val, rs.url + "/ok"), timeout=10
    )
    google_error(r, 400)
    r = requests.post(
        f"{url}/v1/{parent()}/tuningJobs:validateReinforcementTuningReward",
        json={
            "example": example(),
            "sampleResponse": sample_response(),
            "singleRewardConfig": autorater_reward(),
        },
        timeout=10,
    )
    assert r.status_code == 404
    wait_for(url, job["name"], {"JOB_STATE_SUCCEEDED"})


def test_tuning_jobs_cannot_be_deleted(emulator_world: tuple) -> None:
    url = emulator_world[0]
    r = requests.delete(api(url, parent() + "/tuningJobs/123"), timeout=10)
    assert google_error(r, 404, "NOT_FOUND") == "Method not found."
    google_error(requests.get(api(url, parent() + "/tuningJobs/123"), timeout=10), 404, "NOT_FOUND")


def test_list_filters_by_label_and_pages(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    names = []
    for i in range(3):
        job = create_job(
            url, job_body(train, val, rs.url + "/ok", labels={"tunifolk-spec": "feedbeef", "n": str(i)})
        )
        names.append(job["name"])
    create_job(url, job_body(train, val, rs.url + "/ok", labels={"tunifolk-spec": "other"}))
    seen: list[str] = []
    token = None
    while True:
        params = {"filter": 'labels.tunifolk-spec="feedbeef"', "pageSize": 2}
        if token:
            params["pageToken"] = token
        page = ok(
            requests.get(api(url, parent() + "/tuningJobs"), params=params, timeout=10),
            "ListTuningJobsResponse",
        )
        seen += [j["name"] for j in page.get("tuningJobs", [])]
        token = page.get("nextPageToken")
        if not token:
            break
    assert sorted(seen) == sorted(names)
    empty = ok(
        requests.get(api(url, parent() + "/tuningJobs"), params={"filter": 'labels.x="none"'}, timeout=10)
    )
    assert empty == {}
    google_error(
        requests.get(api(url, parent() + "/tuningJobs"), params={"filter": "bogus"}, timeout=10), 400
    )
    for name in names:
        wait_for(url, name, {"JOB_STATE_SUCCEEDED"})


def test_admin_endpoints(emulator_world: tuple) -> None:
    """The admin view counts the API's requests by method and path. The module's emulator is shared,
    but under xdist this test may be the first on its worker: it makes its own request first."""
    url = emulator_world[0]
    ok(requests.get(api(url, parent() + "/tuningJobs"), timeout=10))
    jobs = admin(url, "jobs")["jobs"]
    assert all({"id", "state", "totalSteps", "completedSteps", "job"} <= set(j) for j in jobs)
    reqs = admin(url, "requests")
    assert any(k.startswith("GET ") and k.endswith("/tuningJobs") for k in reqs["counts"]), reqs["counts"]
    assert isinstance(reqs["rewardCalls"], list)
    assert "endpoints" in admin(url, "resources")
