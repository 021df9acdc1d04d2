"""The emulator accepts what Google accepts (issue 12, items 8–12).

Google's own SDK (`google-genai`, `client.tunings`) sends snake_case field names and must work
against the emulator as it does against Vertex; ProtoJSON details the discovery document allows
(both name forms, `32.0` for an int32, `maxDataPoints=-1`, 64-character labels, `preTunedModel`
on v1, multimodal examples) are accepted, and unknown names are still refused in Google's words.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import requests
from google.oauth2.credentials import Credentials

import servers
from discovery import validate
from jobs import BUCKET, PROJECT, example, inputs, sample_poem, write_dataset
from polling import job_state
from tunifolk.job import bodies, checks
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.vertex import VertexClient

if TYPE_CHECKING:  # imported where used: 0.4 s in every pytest-xdist worker's collection otherwise
    from google import genai
    from google.genai import types

PARENT = f"projects/{PROJECT}/locations/us-central1"


def sdk(url: str) -> genai.Client:
    """Google's SDK, pointed at the emulator; a token is needed by the SDK, not by the emulator."""
    from google import genai
    from google.genai import types

    return genai.Client(
        vertexai=True,
        project=PROJECT,
        location="us-central1",
        credentials=Credentials(token="not-a-credential"),
        http_options=types.HttpOptions(base_url=url, api_version="v1beta1"),
    )


def reward(scorer_uri: str) -> types.SingleReinforcementTuningRewardConfig:
    from google.genai import types

    return types.SingleReinforcementTuningRewardConfig(
        reward_name="structure",
        cloud_run_reward_scorer=types.ReinforcementTuningCloudRunRewardScorer(cloud_run_uri=scorer_uri),
        parse_response_config=types.ReinforcementTuningParseResponseConfig(parse_type="IDENTITY"),
    )


def finished(client: VertexClient, name: str) -> dict[str, Any]:
    return job_state(lambda: client.get_tuning_job(name), TERMINAL_STATES, timeout=60)


def test_google_genai_validates_a_reward(emu: str, scorer_uri: str) -> None:
    client = sdk(emu)  # kept: the SDK closes its HTTP client when the Client object goes
    answer = client.tunings.validate_reward(
        parent=PARENT,
        example=example(),
        sample_response={"role": "model", "parts": [{"text": sample_poem()}]},
        single_reward_config=reward(scorer_uri),
    )
    assert answer.reward_info_details["structure"].reward > 0.5


@pytest.mark.filterwarnings("ignore::Warning")
def test_google_genai_runs_an_rlft_job(emu: str, scorer_uri: str) -> None:
    from google.genai import types

    client = sdk(emu)
    job = client.tunings.tune(
        base_model="gemini-3.5-flash",
        training_dataset=types.TuningDataset(gcs_uri=f"gs://{BUCKET}/rlft/train.jsonl"),
        config=types.CreateTuningJobConfig(
            method="REINFORCEMENT_TUNING",
            reward_config=reward(scorer_uri),
            batch_size=16,
            samples_per_prompt=2,
            epoch_count=1,
            labels={"team": "poetry"},
        ),
    )
    with VertexClient(endpoint=emu) as ours:
        done = finished(ours, job.name)
    assert done["state"] == "JOB_STATE_SUCCEEDED"
    read = client.tunings.get(name=job.name)
    assert read.tuned_model.endpoint == done["tunedModel"]["endpoint"]
    assert any(j.name == job.name for j in client.tunings.list())


def post(url: str, path: str, body: dict[str, Any]) -> requests.Response:
    return requests.post(f"{url}/v1beta1/{path}", json=body, timeout=30)


def snake_case(value: Any) -> Any:
    """A body with every field name in the original proto form (maps' keys are data: kept)."""
    maps = {"labels", "references"}
    if isinstance(value, dict):
        return {checks.shapes.snake(k): (v if k in maps else snake_case(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_case(v) for v in value]
    return value


def test_snake_case_bodies_are_accepted_and_answered_in_camel_case(emu: str, scorer_uri: str) -> None:
    body = bodies.build_tuning_job(checks.check_inputs(inputs(scorer_uri, labels={"team_name": "x"})).inputs)
    answer = post(emu, f"{PARENT}/tuningJobs", snake_case(body))
    assert answer.status_code == 200, answer.text
    job = answer.json()
    validate("TuningJob", job)
    assert job["reinforcementTuningSpec"]["hyperParameters"]["batchSize"] == 16
    assert job["labels"]["team_name"] == "x"  # a label's key is data, not a field name


@pytest.mark.parametrize("name", ["colour", "reinforcement_tuning_specs", "cloudRunURI"])
def test_unknown_names_are_refused_in_googles_words(emu: str, scorer_uri: str, name: str) -> None:
    body = bodies.build_tuning_job(checks.check_inputs(inputs(scorer_uri)).inputs)
    body[name] = {}
    answer = post(emu, f"{PARENT}/tuningJobs", body)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == (
        f"Invalid JSON payload received. Unknown name \"{name}\" at 'tuning_job': Cannot find field."
    )


def test_an_int32_written_as_a_float_is_accepted(emu: str, scorer_uri: str) -> None:
    body = bodies.build_tuning_job(checks.check_inputs(inputs(scorer_uri)).inputs)
    body["reinforcementTuningSpec"]["hyperParameters"]["batchSize"] = 16.0
    assert post(emu, f"{PARENT}/tuningJobs", body).status_code == 200


def test_labels_of_64_characters_are_accepted_and_65_refused(emu: str, scorer_uri: str) -> None:
    ok = {"k" * 64: "v" * 64}
    assert checks.check_inputs(inputs(scorer_uri, labels=ok)).failures == []
    body = bodies.build_tuning_job(checks.check_inputs(inputs(scorer_uri, labels=ok)).inputs)
    assert post(emu, f"{PARENT}/tuningJobs", body).status_code == 200
    too_long = copy.deepcopy(body)
    too_long["labels"] = {"k" * 65: "v"}
    assert post(emu, f"{PARENT}/tuningJobs", too_long).status_code == 400
    assert [p for p, _ in checks.check_inputs(inputs(scorer_uri, labels={"k" * 65: "v"})).failures] == [
        "labels." + "k" * 65
    ]


def test_pre_tuned_model_shows_on_v1(emu: str, scorer_uri: str) -> None:
    with VertexClient(endpoint=emu) as client:
        first = finished(
            client, client.create_tuning_job(PARENT, bodies.build_tuning_job(inputs(scorer_uri)))["name"]
        )
        model = first["tunedModel"]["model"].partition("@")[0]
        pre = {"tuned_model_name": model, "checkpoint_id": "1"}
        props = checks.check_inputs(inputs(scorer_uri, base_model=None, pre_tuned_model=pre)).inputs
        second = finished(client, client.create_tuning_job(PARENT, bodies.build_tuning_job(props))["name"])
    assert second["tunedModel"]["model"] == f"{model}@2"  # a new version of the parent
    v1 = requests.get(f"{emu}/v1/{second['name']}", timeout=10).json()
    assert v1["preTunedModel"] == {"tunedModelName": model, "checkpointId": "1"}
    assert "reinforcementTuningSpec" not in v1  # v1 still drops the RLFT fields


def test_time_series_read_with_minus_one_returns_every_point(emu: str, scorer_uri: str) -> None:
    with VertexClient(endpoint=emu) as client:
        body = bodies.build_tuning_job(
            inputs(scorer_uri, hyper_parameters={"batch_size": 4, "epoch_count": 10})
        )
        job = finished(client, client.create_tuning_job(PARENT, body)["name"])
        context = client.get_context(job["experiment"])
        tensorboard = context["metadata"]["backing_tensorboard_resource"]
        experiment_id = job["experiment"].rsplit("/", 1)[-1]
        run = client.list_tensorboard_runs(f"{tensorboard}/experiments/{experiment_id}")[0]
        series = next(
            s for s in client.list_time_series(run["name"]) if s["displayName"] == "/train_mean_reward"
        )
        every = client.read_time_series(series["name"], max_points=-1)["values"]
        some = client.read_time_series(series["name"], max_points=10)["values"]
    assert len(every) == 160 and len(some) == 10


MULTIMODAL = {
    "example": {
        "systemInstruction": {"parts": [{"text": "You are a Tunisian folk poet."}]},
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Write a malzuma about this picture."},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                    {"fileData": {"mimeType": "image/jpeg", "fileUri": f"gs://{BUCKET}/sea.jpg"}},
                ],
            }
        ],
        "tools": [{"googleSearch": {}}],
        "references": {"form": "malzuma", "stanzas": "5", "refrain": "yes", "script": "arabic"},
    },
    "sample_response": {"role": "model", "parts": [{"thought": True, "text": "…"}, {"text": sample_poem()}]},
}


def test_a_multimodal_validation_example_passes_check_and_validation(emu: str, scorer_uri: str) -> None:
    report = checks.check_inputs(inputs(scorer_uri, validation_example=MULTIMODAL))
    assert report.failures == []
    request = bodies.build_validate_request(report.inputs)
    validate("ValidateReinforcementTuningRewardRequest", request)
    answer = post(emu, f"{PARENT}/tuningJobs:validateReinforcementTuningReward", request)
    assert answer.status_code == 200, answer.text


def test_a_wrong_part_is_named_by_check() -> None:
    bad = copy.deepcopy(MULTIMODAL)
    bad["example"]["contents"][0]["parts"][1]["inlineData"]["size"] = 3
    paths = [p for p, _ in checks.check_inputs(inputs("https://s.run.app", validation_example=bad)).failures]
    assert paths == ["validation_example.example.contents[0].parts[1].inlineData.size"]


def test_long_running_operations_start_undone_and_a_seeded_fault_ends_one_in_error(
    tmp_path: Path, scorer_uri: str
) -> None:
    write_dataset(tmp_path, 64)
    with (
        servers.emulator(
            "--step-seconds",
            "0.02",
            "--gcs-dir",
            str(tmp_path),
            "--lro-error-rate",
            "1",
            "--lro-seconds",
            "0.2",
        ) as url,
        VertexClient(endpoint=url) as client,
    ):
        created = client.create_tuning_job(PARENT, bodies.build_tuning_job(inputs(scorer_uri)))
        job = finished(client, created["name"])
        endpoint = job["tunedModel"]["endpoint"]
        deployed = client.get_endpoint(endpoint)["deployedModels"][0]["id"]
        operation = client.undeploy_model(endpoint, deployed)
        assert operation["done"] is False
        with pytest.raises(Exception, match="INTERNAL") as info:
            client.wait_operation(operation)
        assert not info.value.not_found
        assert client.get_endpoint(endpoint)["deployedModels"]  # the failed undeploy left it
