"""The emulator's API surface: shapes, sharp edges of validation and creation, serving, admin.

Every test drives `python -m emulator` as a real process over HTTP, with a small in-test Cloud Run
reward server standing in for the scorer, and checks every body against the discovery document.
Helpers here are shared with the other tests/test_emulator_*.py files.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from discovery import validate
from servers import ROOT, emulator

PROJECT = "proj"
LOC = "us-central1"
FAST = ("--step-seconds", "0.01")
JUDGE = "projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-pro"

# --- a fixture Cloud Run reward server ------------------------------------------------------------


def structure_reward(text: str) -> float:
    """A deliberately naive structure reward: share of line ends that keep the malzuma rhyme plan.

    It is easy to please by repeating one rhyme word, which is exactly what the hacking scenario
    exploits.
    """
    blocks = [[ln.split() for ln in b.splitlines() if ln.strip()] for b in text.split("\n\n") if b.strip()]
    if not blocks or not blocks[0]:
        return -1.0
    a = blocks[0][0][-1][-1]
    hits = total = 0
    for block in blocks[1:]:
        ends = [ln[-1][-1] for ln in block[:4] if ln]
        for x, y in itertools.pairwise(ends[:3]):
            hits += x == y
            total += 1
        if len(ends) == 4:
            hits += ends[3] == a
            total += 1
    return 2.0 * hits / total - 1.0 if total else -1.0


class RewardServer:
    """`/ok` scores the poem, `/zero` answers 0.0, `/fail` answers 500, `/invalid` a 200 without reward."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(
                    {"path": self.path, "body": body, "authorization": self.headers.get("Authorization")}
                )
                if self.path.startswith("/fail"):
                    self._send(500, {"error": "boom"})
                elif self.path.startswith("/invalid"):
                    self._send(200, {"score": 1})
                elif self.path.startswith("/zero"):
                    self._send(200, {"reward": 0.0, "user_requested_aux_info": "{}"})
                else:
                    parts = body["response"]["parts"]
                    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
                    reward = structure_reward(text)
                    self._send(200, {"reward": reward, "user_requested_aux_info": json.dumps({"s": reward})})

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> RewardServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- datasets and bodies ----------------------------------------------------------------------------


def example(i: int = 0) -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "أنت شاعر تونسي."}]},
        "contents": [{"role": "user", "parts": [{"text": f"اكتب ملزومة رقم {i} عن البحر."}]}],
        "references": {
            "form": "malzuma",
            "stanzas": "5",
            "refrain": "yes",
            "script": "arabic",
            "theme": "البحر",
        },
    }


def write_datasets(gcs_dir: Path, train: int = 64, val: int = 8) -> tuple[str, str]:
    d = gcs_dir / "bucket" / "rlft"
    d.mkdir(parents=True, exist_ok=True)
    (d / "train.jsonl").write_text(
        "\n".join(json.dumps(example(i), ensure_ascii=False) for i in range(train))
    )
    (d / "val.jsonl").write_text("\n".join(json.dumps(example(i), ensure_ascii=False) for i in range(val)))
    return "gs://bucket/rlft/train.jsonl", "gs://bucket/rlft/val.jsonl"


def cloud_run_reward(name: str, uri: str) -> dict[str, Any]:
    return {
        "rewardName": name,
        "parseResponseConfig": {"parseType": "IDENTITY"},
        "cloudRunRewardScorer": {"cloudRunUri": uri},
    }


def autorater_reward(name: str = "poetic_quality", model: str | None = JUDGE) -> dict[str, Any]:
    config: dict[str, Any] = {"samplingCount": 4}
    if model is not None:
        config["autoraterModel"] = model
    return {
        "rewardName": name,
        "autoraterScorer": {
            "autoraterConfig": config,
            "autoraterPrompt": "Rate the poem {{response}} from -1 to 1.",
            "parsedResponseConversionScorer": {},
        },
    }


def job_body(
    train: str,
    val: str | None,
    reward_uri: str,
    labels: dict[str, str] | None = None,
    **hp: Any,
) -> dict[str, Any]:
    hyper = {
        "batchSize": 8,
        "samplesPerPrompt": 16,
        "epochCount": "2",
        "learningRateMultiplier": 1.0,
        "adapterSize": "ADAPTER_SIZE_SIXTEEN",
        "maxOutputTokens": 32768,
        "thinkingLevel": "HIGH",
        "evaluateInterval": 2,
        "checkpointInterval": 4,
    }
    hyper.update(hp)
    for k, v in list(hyper.items()):
        if v is None:
            del hyper[k]
    spec: dict[str, Any] = {
        "trainingDatasetUri": train,
        "hyperParameters": hyper,
        "compositeRewardConfig": {
            "weightedRewardConfigs": [
                {"weight": 0.7, "rewardConfig": cloud_run_reward("structure", reward_uri)},
                {"weight": 0.3, "rewardConfig": autorater_reward()},
            ]
        },
    }
    if val:
        spec["validationDatasetUri"] = val
    body: dict[str, Any] = {
        "baseModel": "gemini-3.5-flash",
        "tunedModelDisplayName": "tunifolk-test",
        "labels": labels or {"tunifolk-spec": "0123456789abcdef"},
        "reinforcementTuningSpec": spec,
    }
    return body


# --- HTTP helpers -------------------------------------------------------------------------------------


def api(url: str, path: str) -> str:
    return f"{url}/v1beta1/{path}"


def parent(location: str = LOC, project: str = PROJECT) -> str:
    return f"projects/{project}/locations/{location}"


def ok(r: requests.Response, schema: str | None = None) -> Any:
    assert r.status_code == 200, (r.status_code, r.text[:500])
    body = r.json()
    if schema:
        validate(schema, body)
    return body


def google_error(r: requests.Response, code: int, status: str | None = None) -> str:
    """Assert Google's JSON error shape; return the message."""
    assert r.status_code == code, (r.status_code, r.text[:500])
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert set(err) == {"code", "message", "status"}
    assert err["code"] == code
    if status:
        assert err["status"] == status
    return err["message"]


def create_job(url: str, body: dict[str, Any], location: str = LOC) -> dict[str, Any]:
    validate("TuningJob", body)
    return ok(requests.post(api(url, parent(location) + "/tuningJobs"), json=body, timeout=10), "TuningJob")


def get_job(url: str, name: str) -> dict[str, Any]:
    return ok(requests.get(api(url, name), timeout=10), "TuningJob")


def wait_for(url: str, name: str, states: set[str], timeout: float = 40.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = get_job(url, name)
        if job["state"] in states:
            return job
        assert time.monotonic() < deadline, f"job stuck in {job['state']}"
        time.sleep(0.02)


def validate_reward(url: str, body: dict[str, Any], location: str = LOC) -> requests.Response:
    return requests.post(
        api(url, parent(location) + "/tuningJobs:validateReinforcementTuningReward"), json=body, timeout=30
    )


def admin(url: str, what: str) -> dict[str, Any]:
    r = requests.get(f"{url}/emulator/{what}", timeout=10)
    assert r.status_code == 200
    return r.json()


def sample_response(text: str = "يا بحر يا ساكن الدار\nنحكيلك على النار") -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": "thinking...", "thought": True}, {"text": text}]}


@contextlib.contextmanager
def world(tmp: Path, *args: str) -> Iterator[tuple[str, RewardServer, str, str]]:
    """An emulator (with ARGS) over a fresh gcs dir holding datasets, plus a reward server."""
    train, val = write_datasets(tmp / "gcs")
    with RewardServer() as rs, emulator(*FAST, "--gcs-dir", str(tmp / "gcs"), *args) as url:
        yield url, rs, train, val


# --- shared emulator for this module ------------------------------------------------------------------


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, RewardServer, str, str]]:
    with world(tmp_path_factory.mktemp("emu")) as w:
        yield w


def test_cli_help_documents_every_option() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tunifolk.emulator", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for opt in (
        "--port", "--step-seconds", "--gcs-dir", "--fault-seed", "--scenario", "--reward-fail-rate",
        "--fail-at-step", "--cancel-ignored", "--report-progress", "--samples-per-step", "--judge-models",
        "--backoff-scale", "--fault-503-rate", "--fault-429-rate", "--retry-after", "--fault-latency-ms",
        "--fault-html-rate", "--create-fault",
    ):  # fmt: skip
        assert opt in out, opt


def test_healthz_and_unknown_paths(env: tuple) -> None:
    url = env[0]
    assert requests.get(url + "/healthz", timeout=5).status_code == 200
    r = requests.get(url + "/v1beta1/nothing/here", timeout=5)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")


def test_rlft_only_in_us_central1_and_europe_west4(env: tuple) -> None:
    url, rs, train, val = env
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


def test_validate_lives_under_tuning_jobs_only(env: tuple) -> None:
    url = env[0]
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


def test_validate_field_must_be_example(env: tuple) -> None:
    url = env[0]
    body = {
        "reinforcementTuningExample": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(),
    }
    msg = google_error(validate_reward(url, body), 400, "INVALID_ARGUMENT")
    assert "reinforcementTuningExample" in msg


def test_autorater_without_model_is_an_error_and_nan(env: tuple) -> None:
    url = env[0]
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


def test_autorater_bare_model_name_is_an_internal_error(env: tuple) -> None:
    url = env[0]
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(model="gemini-2.5-pro"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    info = out["rewardInfoDetails"]["poetic_quality"]
    assert info["reward"] == "NaN"
    assert "Internal error" in info["errorStatus"]["message"]


def test_autorater_full_name_gives_a_finite_reward(env: tuple) -> None:
    url = env[0]
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


def test_unavailable_judge_in_region_is_not_found(env: tuple) -> None:
    url = env[0]
    model = "projects/proj/locations/us-central1/publishers/google/models/gemini-3-pro-preview"
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": autorater_reward(model=model),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["poetic_quality"]["reward"] == "NaN"
    assert out["rewardInfoDetails"]["poetic_quality"]["errorStatus"]["code"] == 5


def test_judge_probe_per_region(env: tuple) -> None:
    url = env[0]
    probe = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    validate("GenerateContentRequest", probe)
    for loc in ("us-central1", "europe-west4"):
        for model in ("gemini-2.5-pro", "gemini-2.5-flash"):
            path = f"{parent(loc)}/publishers/google/models/{model}:generateContent"
            ok(requests.post(api(url, path), json=probe, timeout=10), "GenerateContentResponse")
        for model in ("gemini-3-pro-preview", "gemini-3.1-pro-preview", "gemini-3.5-flash"):
            path = f"{parent(loc)}/publishers/google/models/{model}:generateContent"
            google_error(requests.post(api(url, path), json=probe, timeout=10), 404, "NOT_FOUND")


def test_cloud_run_reward_is_a_real_call_with_the_contract_body(env: tuple) -> None:
    url, rs, _, _ = env
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


def test_zero_reward_is_written_without_its_field(env: tuple) -> None:
    url, rs, _, _ = env
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


def test_failing_cloud_run_is_retried_then_nan(env: tuple) -> None:
    url, rs, _, _ = env
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


def test_invalid_reward_response_is_nan(env: tuple) -> None:
    url, rs, _, _ = env
    body = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", rs.url + "/invalid"),
    }
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["structure"]["reward"] == "NaN"


def test_string_match_and_code_execution_rewards(env: tuple) -> None:
    url = env[0]
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
    code = {
        "rewardName": "lines",
        "codeExecutionRewardScorer": {
            "pythonCodeSnippet": "def evaluate(example, response):\n    return 5.0\n"
        },
    }
    body = {
        "example": example(),
        "sampleResponse": sample_response("موج البحر"),
        "compositeRewardConfig": {
            "weightedRewardConfigs": [{"weight": 1, "rewardConfig": sm}, {"weight": 1, "rewardConfig": code}]
        },
    }
    validate("ValidateReinforcementTuningRewardRequest", body)
    out = ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["has_sea"]["reward"] == 1.0
    assert out["rewardInfoDetails"]["lines"]["reward"] == 1.0  # clipped to [-1, 1]
    assert out["overallReward"] == 1.0


def test_unknown_keys_are_rejected_naming_the_key(env: tuple) -> None:
    url, rs, train, val = env
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
def test_bad_hyper_parameters_are_400(env: tuple, change: dict[str, Any], needle: str) -> None:
    url, rs, train, val = env
    body = job_body(train, val, rs.url + "/ok", **change)
    msg = google_error(requests.post(api(url, parent() + "/tuningJobs"), json=body, timeout=10), 400)
    assert needle in msg


def test_v1_silently_drops_rlft_fields(env: tuple) -> None:
    url, rs, train, val = env
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


def test_tuning_jobs_cannot_be_deleted(env: tuple) -> None:
    url = env[0]
    r = requests.delete(api(url, parent() + "/tuningJobs/123"), timeout=10)
    assert google_error(r, 404, "NOT_FOUND") == "Method not found."
    google_error(requests.get(api(url, parent() + "/tuningJobs/123"), timeout=10), 404, "NOT_FOUND")


def test_list_filters_by_label_and_pages(env: tuple) -> None:
    url, rs, train, val = env
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


def test_admin_endpoints(env: tuple) -> None:
    url = env[0]
    jobs = admin(url, "jobs")["jobs"]
    assert all({"id", "state", "totalSteps", "completedSteps", "job"} <= set(j) for j in jobs)
    reqs = admin(url, "requests")
    assert reqs["counts"] and isinstance(reqs["rewardCalls"], list)
    assert "endpoints" in admin(url, "resources")
