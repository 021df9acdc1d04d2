"""Whole runs on the emulator: lifecycle, checkpoints, metrics, serving and cleanup, and scenarios.

Jobs run at 0.01 s a step; tests poll with generous deadlines and never depend on timing otherwise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from discovery import validate
from emulator_api import (
    FAST,
    admin,
    api,
    create_job,
    get_job,
    google_error,
    job_body,
    ok,
    wait_for,
    world,
)
from polling import poll
from scorer.catalogue import instruction
from scorer.score import score
from servers import ROOT, emulator, scorer
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.job.names import local_project_number
from tunifolk.local_gcs import object_uri, write_object

NUMBER = local_project_number("proj")  # the emulator names what it returns by number, as Google does

# every test runs jobs on an emulator; one worker runs them all, so its module fixtures run once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("emulator_runs")]


@pytest.fixture(scope="module")
def finished(emulator_world: tuple) -> dict[str, Any]:
    """One honest run: 64 examples, batch 8, 2 epochs → 16 steps; eval every 2, checkpoint every 4."""
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok"))
    assert job["state"] == "JOB_STATE_PENDING"
    return wait_for(url, job["name"], TERMINAL_STATES)


def series_of(url: str, job: dict[str, Any]) -> tuple[str, dict[str, dict[str, Any]]]:
    """Follow experiment → context → tensorboard → run → series; return (tensorboard, {name: series})."""
    ctx = ok(requests.get(api(url, job["experiment"]), timeout=10), "Context")
    tb = ctx["metadata"]["backing_tensorboard_resource"]
    exps = ok(requests.get(api(url, tb + "/experiments"), timeout=10), "ListTensorboardExperimentsResponse")
    exp = next(
        e["name"]
        for e in exps["tensorboardExperiments"]
        if e["name"].endswith(job["experiment"].split("/")[-1])
    )
    runs = ok(requests.get(api(url, exp + "/runs"), timeout=10), "ListTensorboardRunsResponse")
    (run,) = runs["tensorboardRuns"]
    series = ok(
        requests.get(api(url, run["name"] + "/timeSeries"), timeout=10), "ListTensorboardTimeSeriesResponse"
    )
    return tb, {s["displayName"]: s for s in series["tensorboardTimeSeries"]}


def read_all(url: str, tb: str, series: dict[str, dict[str, Any]]) -> dict[str, list[tuple[int, float]]]:
    """batchRead in chunks of 20; absent `value` means 0.0 (ProtoJSON)."""
    by_id = {s["name"].rsplit("/", 1)[-1]: d for d, s in series.items()}
    names = [s["name"] for s in series.values()]
    out: dict[str, list[tuple[int, float]]] = {}
    for i in range(0, len(names), 20):
        r = requests.get(
            api(url, tb + ":batchRead"), params=[("timeSeries", n) for n in names[i : i + 20]], timeout=10
        )
        data = ok(r, "BatchReadTensorboardTimeSeriesDataResponse")
        for ts in data["timeSeriesData"]:
            points = []
            for v in ts.get("values", []):
                assert isinstance(v["step"], str)
                value = v["scalar"].get("value", 0.0)
                points.append((int(v["step"]), float(value)))
            out[by_id[ts["tensorboardTimeSeriesId"]]] = points
    return out


def mean(values: list[float]) -> float:
    good = [v for v in values if not math.isnan(v)]
    return sum(good) / len(good)


def halves(points: list[tuple[int, float]]) -> tuple[float, float]:
    values = [v for _, v in sorted(points)]
    k = len(values) // 3
    return mean(values[:k]), mean(values[-k:])


def test_lifecycle_checkpoints_and_tuned_model(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url = emulator_world[0]
    job = finished
    assert job["state"] == "JOB_STATE_SUCCEEDED"
    assert {"createTime", "startTime", "endTime", "updateTime", "experiment"} <= set(job)
    assert "tuningJobMetadata" not in job  # no progress field by default
    stats = job["tuningDataStats"]["reinforcementTuningDataStats"]
    assert stats == {"tuningDatasetExampleCount": "64", "tuningStepCount": "16"}
    tuned = job["tunedModel"]
    assert tuned["model"].startswith(f"projects/{NUMBER}/locations/us-central1/models/") and tuned[
        "model"
    ].endswith("@1")
    assert tuned["endpoint"].startswith(f"projects/{NUMBER}/locations/us/endpoints/")
    cps = tuned["checkpoints"]
    assert [c["step"] for c in cps] == ["4", "8", "12", "16"]
    assert [c["epoch"] for c in cps] == ["1", "1", "2", "2"]
    assert all(c["endpoint"].startswith(f"projects/{NUMBER}/locations/us/endpoints/") for c in cps)
    internal = next(j for j in admin(url, "jobs")["jobs"] if j["name"] == job["name"])
    assert internal["completedSteps"] == 16 and internal["totalSteps"] == 16


def test_reward_calls_carry_step_and_job_id(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url, rs = emulator_world[0], emulator_world[1]
    job_id = finished["name"].rsplit("/", 1)[-1]
    calls = [r for r in rs.requests if r["body"]["metadata"].get("tuning_job_id") == job_id]
    steps = {c["body"]["metadata"]["step"] for c in calls}
    assert steps == set(range(1, 17))
    assert all(c["authorization"].startswith("Bearer ") for c in calls)
    assert all(c["body"]["example"]["references"]["form"] == "malzuma" for c in calls)
    assert all(any(p.get("thought") for p in c["body"]["response"]["parts"]) for c in calls)
    recorded = [
        c
        for c in admin(url, "requests")["rewardCalls"]
        if c["body"]["metadata"].get("tuning_job_id") == job_id
    ]
    assert len(recorded) == len(calls)


def test_metrics_series_shapes_and_values(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url = emulator_world[0]
    tb, series = series_of(url, finished)
    assert len(series) == 39
    assert {"/train_mean_reward", "/learnable_prompt_ratio", "structure/train_rpc_error_ratio"} <= set(series)
    assert "poetic_quality/eval_clipping_rewards_ratio" in series
    data = read_all(url, tb, series)
    assert [s for s, _ in data["/train_mean_reward"]] == list(range(1, 17))
    assert [s for s, _ in data["/eval_mean_reward"]] == [2, 4, 6, 8, 10, 12, 14, 16]
    early, late = halves(data["/train_mean_reward"])
    assert late > early  # an honest policy improves
    assert all(v == 0.0 for _, v in data["structure/train_rpc_error_ratio"])
    assert all(v > 100 for _, v in data["/train_generation_length"])
    assert all(0 <= v <= 1 for _, v in data["/learnable_prompt_ratio"])


def test_zero_scalars_are_written_without_value(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url = emulator_world[0]
    _, series = series_of(url, finished)
    name = series["structure/train_rpc_error_ratio"]["name"]
    out = ok(requests.get(api(url, name + ":read"), timeout=10), "ReadTensorboardTimeSeriesDataResponse")
    values = out["timeSeriesData"]["values"]
    assert len(values) == 16
    assert all(v["scalar"] == {} for v in values)
    assert all(isinstance(v["step"], str) for v in values)


def test_batch_read_allows_at_most_20_series(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url = emulator_world[0]
    tb, series = series_of(url, finished)
    names = [s["name"] for s in series.values()]
    r = requests.get(api(url, tb + ":batchRead"), params=[("timeSeries", n) for n in names[:21]], timeout=10)
    assert "20" in google_error(r, 400, "INVALID_ARGUMENT")
    r = requests.get(api(url, tb + ":batchRead"), params=[("timeSeries", n) for n in names[:20]], timeout=10)
    assert len(ok(r, "BatchReadTensorboardTimeSeriesDataResponse")["timeSeriesData"]) == 20


def test_serving_and_cleanup(emulator_world: tuple, finished: dict[str, Any]) -> None:
    url = emulator_world[0]
    tuned = finished["tunedModel"]
    prompt = {"contents": [{"role": "user", "parts": [{"text": "اكتب ملزومة عن البحر"}]}]}
    validate("GenerateContentRequest", prompt)
    for ep in [tuned["endpoint"], *(c["endpoint"] for c in tuned["checkpoints"])]:
        out = ok(
            requests.post(api(url, ep + ":generateContent"), json=prompt, timeout=10),
            "GenerateContentResponse",
        )
        text = out["candidates"][0]["content"]["parts"][-1]["text"]
        assert text.count("\n\n") >= 4  # opening couplet + stanzas
        endpoint = ok(requests.get(api(url, ep), timeout=10), "Endpoint")
        (deployed,) = endpoint["deployedModels"]
        assert deployed["model"].split("@")[0] == tuned["model"].split("@")[0]
        r = requests.delete(api(url, ep), timeout=10)
        google_error(r, 400, "FAILED_PRECONDITION")  # undeploy first
        body = {"deployedModelId": deployed["id"]}
        validate("UndeployModelRequest", body)
        op = ok(
            requests.post(api(url, ep + ":undeployModel"), json=body, timeout=10),
            "GoogleLongrunningOperation",
        )
        assert op["done"] is False  # long-running: it finishes later, as Vertex's do
        assert finish(url, op)["response"]["@type"].endswith("UndeployModelResponse")
        if ep == tuned["endpoint"]:
            r = requests.post(api(url, ep + ":generateContent"), json=prompt, timeout=10)
            google_error(r, 400)
        op = ok(requests.delete(api(url, ep), timeout=10), "GoogleLongrunningOperation")
        assert "/operations/" in op["name"] and "error" not in finish(url, op)
        google_error(requests.get(api(url, ep), timeout=10), 404, "NOT_FOUND")
        google_error(
            requests.post(api(url, ep + ":generateContent"), json=prompt, timeout=10), 404, "NOT_FOUND"
        )
    model = tuned["model"].partition("@")[0]
    google_error(requests.delete(api(url, tuned["model"]), timeout=10), 400)  # a version: deleteVersion
    op = ok(requests.delete(api(url, model), timeout=10), "GoogleLongrunningOperation")
    assert "error" not in finish(url, op)
    google_error(requests.delete(api(url, model), timeout=10), 404, "NOT_FOUND")
    google_error(requests.get(api(url, tuned["model"]), timeout=10), 404, "NOT_FOUND")


def finish(url: str, op: dict[str, Any]) -> dict[str, Any]:
    """Poll a long-running operation until it is done, as a client does."""
    if op.get("done"):
        return op
    return poll(
        lambda: ok(requests.get(api(url, op["name"]), timeout=10), "GoogleLongrunningOperation"),
        lambda read: read.get("done"),
        timeout=10,
        what=f"operation {op['name']} to be done",
    )


def test_model_cannot_be_deleted_while_deployed(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok", epochCount="1"))
    job = wait_for(url, job["name"], TERMINAL_STATES)
    model = job["tunedModel"]["model"]
    google_error(requests.delete(api(url, model.partition("@")[0]), timeout=10), 400, "FAILED_PRECONDITION")
    google_error(requests.delete(api(url, model + ":deleteVersion"), timeout=10), 400, "FAILED_PRECONDITION")


def test_europe_west4_serves_from_eu(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok", epochCount="1"), location="europe-west4")
    job = wait_for(url, job["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_SUCCEEDED"
    assert job["tunedModel"]["endpoint"].startswith(f"projects/{NUMBER}/locations/eu/endpoints/")
    assert job["tunedModel"]["model"].startswith(f"projects/{NUMBER}/locations/europe-west4/models/")


def test_missing_dataset_fails_the_job(emulator_world: tuple) -> None:
    url, rs, _, val = emulator_world
    job = create_job(url, job_body("gs://bucket/nope/train.jsonl", val, rs.url + "/ok"))
    job = wait_for(url, job["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_FAILED"
    assert "gs://bucket/nope/train.jsonl" in job["error"]["message"]
    assert "tunedModel" not in job


def test_no_validation_set_splits_the_training_set(emulator_world: tuple) -> None:
    url, rs, train, _ = emulator_world
    job = create_job(url, job_body(train, None, rs.url + "/ok", epochCount="1"))
    assert wait_for(url, job["name"], TERMINAL_STATES)["state"] == "JOB_STATE_SUCCEEDED"


def test_step_count_is_capped_at_500(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok", epochCount=None, stepCount="600"))
    job = wait_for(url, job["name"], {"JOB_STATE_RUNNING", *TERMINAL_STATES})
    assert job["tuningDataStats"]["reinforcementTuningDataStats"]["tuningStepCount"] == "500"
    assert ok(requests.post(api(url, job["name"] + ":cancel"), json={}, timeout=10)) == {}


def test_cancel_ends_cancelled_and_terminal_cancel_is_refused(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/ok", epochCount="50"))
    wait_for(url, job["name"], {"JOB_STATE_RUNNING"})
    assert ok(requests.post(api(url, job["name"] + ":cancel"), json={}, timeout=10)) == {}
    job = wait_for(url, job["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_CANCELLED"
    assert job["error"]["code"] == 1
    r = requests.post(api(url, job["name"] + ":cancel"), json={}, timeout=10)
    google_error(r, 400, "FAILED_PRECONDITION")


def test_too_many_errored_rewards_fail_the_job(emulator_world: tuple) -> None:
    url, rs, train, val = emulator_world
    job = create_job(url, job_body(train, val, rs.url + "/fail"))
    job = wait_for(url, job["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_FAILED"
    assert "80%" in job["error"]["message"]


def test_missing_autorater_model_aborts_the_run(emulator_world: tuple) -> None:
    """The seed's near miss: the judge reward is 30 % of the weight but all its calls error."""
    url, rs, train, val = emulator_world
    body = job_body(train, val, rs.url + "/ok")
    body["reinforcementTuningSpec"]["compositeRewardConfig"]["weightedRewardConfigs"][1]["rewardConfig"][
        "autoraterScorer"
    ]["autoraterConfig"].pop("autoraterModel")
    job = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_FAILED"
    assert "poetic_quality" in job["error"]["message"]


def test_hacking_scenario_diverges(tmp_path: Path) -> None:
    with world(tmp_path, "--scenario", "hacking") as (url, rs, train, val):
        job = create_job(url, job_body(train, val, rs.url + "/ok", batchSize=4, epochCount="3"))
        job = wait_for(url, job["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_SUCCEEDED"
        tb, series = series_of(url, job)
        data = read_all(url, tb, series)
        s0, s1 = halves(data["structure/train_mean_reward"])
        q0, q1 = halves(data["poetic_quality/train_mean_reward"])
        assert s1 > s0 and q1 < q0
        l0, l1 = halves(data["/learnable_prompt_ratio"])
        assert l1 < l0


def test_failing_reward_calls_show_in_rpc_error_ratio(tmp_path: Path) -> None:
    with world(tmp_path, "--reward-fail-rate", "0.5", "--samples-per-step", "8") as (url, rs, train, val):
        job = create_job(url, job_body(train, val, rs.url + "/ok"))
        job = wait_for(url, job["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_SUCCEEDED"
        tb, series = series_of(url, job)
        data = read_all(url, tb, series)
        ratio = mean([v for _, v in data["structure/train_rpc_error_ratio"]])
        assert 0.3 < ratio < 0.7
        assert all(v == 0.0 for _, v in data["poetic_quality/train_rpc_error_ratio"])


def test_fail_at_step_and_progress_field(tmp_path: Path) -> None:
    with world(tmp_path, "--fail-at-step", "5", "--report-progress") as (url, rs, train, val):
        job = create_job(url, job_body(train, val, rs.url + "/ok"))
        job = wait_for(url, job["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_FAILED"
        assert job["tuningJobMetadata"]["completedStepCount"] == "4"
        assert [c["step"] for c in job["tunedModel"]["checkpoints"]] == ["4"]
        tb, series = series_of(url, job)
        assert max(s for s, _ in read_all(url, tb, series)["/train_mean_reward"]) == 4


def test_cancel_may_be_ignored(tmp_path: Path) -> None:
    with world(tmp_path, "--cancel-ignored") as (url, rs, train, val):
        job = create_job(url, job_body(train, val, rs.url + "/ok"))
        ok(requests.post(api(url, job["name"] + ":cancel"), json={}, timeout=10))
        assert get_job(url, job["name"])["state"] == "JOB_STATE_CANCELLING"
        job = wait_for(url, job["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_SUCCEEDED"


def test_judge_models_are_configurable_per_region(tmp_path: Path) -> None:
    with world(tmp_path, "--judge-models", "us-central1=gemini-3-pro-preview") as (url, *_):
        probe = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}

        def status(loc: str, model: str) -> int:
            path = f"projects/proj/locations/{loc}/publishers/google/models/{model}:generateContent"
            return requests.post(api(url, path), json=probe, timeout=10).status_code

        assert status("us-central1", "gemini-3-pro-preview") == 200
        assert status("us-central1", "gemini-2.5-pro") == 404
        assert status("europe-west4", "gemini-3-pro-preview") == 404


# --- every form, both scripts, the real scorer -----------------------------------------------------


def mixed_datasets(gcs: Path, per_kind: int = 4) -> tuple[str, str]:
    """The first `per_kind` lines of data/train.jsonl for each (form, script): 7 × 2 × 4 = 56
    examples; the validation set takes the next line of each."""
    by_kind: dict[tuple[str, str], list[str]] = {}
    for line in (ROOT / "data" / "train.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)["references"]
            by_kind.setdefault((r["form"], r["script"]), []).append(line)
    assert len(by_kind) == 14
    train = "\n".join(v[i] for v in by_kind.values() for i in range(per_kind))
    write_object(gcs, "bucket", "mixed/train.jsonl", train.encode())
    write_object(gcs, "bucket", "mixed/val.jsonl", "\n".join(v[per_kind] for v in by_kind.values()).encode())
    return object_uri("bucket", "mixed/train.jsonl"), object_uri("bucket", "mixed/val.jsonl")


def quarters(points: list[tuple[int, float]]) -> tuple[float, float]:
    values = [v for _, v in sorted(points)]
    k = max(1, len(values) // 4)
    return mean(values[:k]), mean(values[-k:])


@pytest.fixture(scope="module")
def real_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str, str, str]]:
    """A real scorer plus two emulators (honest, hacking) over the mixed dataset."""
    tmp = tmp_path_factory.mktemp("real")
    train, val = mixed_datasets(tmp / "gcs")
    common = (*FAST, "--gcs-dir", str(tmp / "gcs"), "--samples-per-step", "16")
    with (
        scorer(quiet=True) as scorer_url,
        emulator(*common) as honest,
        emulator(*common, "--scenario", "hacking") as hacking,
    ):
        yield scorer_url, honest, hacking, train, val


def run_mixed(url: str, scorer_url: str, train: str, val: str) -> tuple[dict[str, Any], dict[str, Any]]:
    hp = {"epochCount": "4", "evaluateInterval": 4, "checkpointInterval": 7}
    body = job_body(train, val, scorer_url + "/score", **hp)
    job = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
    assert job["state"] == "JOB_STATE_SUCCEEDED"
    assert job["tuningDataStats"]["reinforcementTuningDataStats"]["tuningStepCount"] == "28"
    tb, series = series_of(url, job)
    return job, read_all(url, tb, series)


@pytest.fixture(scope="module")
def honest_mixed(real_world: tuple) -> tuple[dict[str, Any], dict[str, Any]]:
    scorer_url, honest, _, train, val = real_world
    return run_mixed(honest, scorer_url, train, val)


def test_every_form_and_script_learns_under_the_real_scorer(honest_mixed: tuple) -> None:
    _, data = honest_mixed
    s0, s1 = quarters(data["structure/train_mean_reward"])
    assert s1 - s0 >= 0.3 and s1 > 0.3, (s0, s1)
    e0, e1 = quarters(data["structure/eval_mean_reward"])
    assert e1 > e0
    q0, q1 = quarters(data["poetic_quality/train_mean_reward"])
    assert q1 > q0


def test_hacking_with_every_form_fools_the_real_scorer_not_the_judge(real_world: tuple) -> None:
    scorer_url, _, hacking, train, val = real_world
    _, data = run_mixed(hacking, scorer_url, train, val)
    s0, s1 = quarters(data["structure/train_mean_reward"])
    q0, q1 = quarters(data["poetic_quality/train_mean_reward"])
    assert s1 - s0 >= 0.3 and q0 - q1 >= 0.3, (s0, s1, q0, q1)


SAMPLES = 40
"""Seeded samples drawn from the final checkpoint per form."""


@pytest.mark.parametrize(
    ("form", "script", "language"),
    [
        ("malzuma", "arabic", "derja"),
        ("gsim", "arabizi", "fr"),
        ("mugef", "arabic", "msa"),
        ("muthallath", "arabizi", "en"),
        ("mukhammas", "arabic", "fr"),
        ("msaddes", "arabizi", "derja"),
        ("qasida", "arabic", "en"),
    ],
)
def test_endpoint_samples_vary_and_keep_the_asked_form(
    real_world: tuple, honest_mixed: tuple, form: str, script: str, language: str
) -> None:
    url = real_world[1]
    job, _ = honest_mixed
    endpoint = job["tunedModel"]["endpoint"]  # the final checkpoint
    """The final checkpoint writes the asked form: of 40 seeded samples (seeded so that what ran
    before on this worker's emulator does not change them) all differ and at most a quarter score
    under 0.3. Its rhyme keeps its group with probability 0.95 per line end, so a sample of a long
    form (a gsim's ten bayts, a mukhammas) misses two ends and falls under 0.3 about one time in ten
    (measured over 200 seeds: gsim 9.5 %, mukhammas 6.5 %, malzuma 1 %, qasida 0); more than ten of
    forty happens about one time in 500 at that rate, and is a policy that lost the form."""
    prompt = instruction(form, None, "yes", script, language, theme="the sea")
    texts = []
    for seed in range(SAMPLES):
        contents = [{"role": "user", "parts": [{"text": prompt}]}]
        body = {"contents": contents, "generationConfig": {"seed": seed}}
        out = ok(
            requests.post(api(url, endpoint + ":generateContent"), json=body, timeout=10),
            "GenerateContentResponse",
        )
        texts.append(out["candidates"][0]["content"]["parts"][-1]["text"])
    assert len(set(texts)) == len(texts)
    refs = {"form": form, "refrain": "yes", "script": script}
    low = [(round(r, 2), text) for text in texts if (r := score(text, refs).reward) < 0.3]
    assert len(low) <= SAMPLES // 4, (form, len(low), low[:2])


def test_a_seeded_sample_repeats_whatever_was_asked_before(real_world: tuple, honest_mixed: tuple) -> None:
    """`generationConfig.seed` makes a sample depend on the seed and the prompt only (Google: "the
    same response every time"); without it successive calls differ."""
    url = real_world[1]
    endpoint = honest_mixed[0]["tunedModel"]["endpoint"]
    prompt = instruction("gsim", None, "yes", "arabic", "en", theme="the sea")

    def sample(**config: Any) -> str:
        body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
        if config:
            body["generationConfig"] = config
        out = ok(
            requests.post(api(url, endpoint + ":generateContent"), json=body, timeout=10),
            "GenerateContentResponse",
        )
        return out["candidates"][0]["content"]["parts"][-1]["text"]

    first = sample(seed=41)
    assert sample() != sample()  # unseeded calls move the endpoint's counter on
    assert sample(seed=41) == first
    assert sample(seed=42) != first
