"""The emulator's hostile readings (`--hostile`, tunifolk/emulator/hostile.py) and the GRPO shape of a
training step, as they go on the wire: to a real reward server, to the real scorer, through the
stand-in's Cloud Run front, and in the answers the emulator gives.

Google's pages are the contract; where they are silent or disagree, `--hostile` plays the reading a
client is least ready for. Each test names the reading it holds to its shape.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest
import requests
from test_standin import RUN, Provider, serving

from emulator_api import (
    FAST,
    RewardServer,
    admin,
    api,
    cloud_run_reward,
    create_job,
    emulator_help,
    example,
    get_job,
    job_body,
    ok,
    sample_response,
    validate_reward,
    wait_for,
    write_datasets,
)
from scorer.ledger import EXAMPLE_DIGEST, JOB_ID, STEP, parse_line
from servers import emulator, scorer
from tunifolk.emulator.hostile import READINGS, Hostile
from tunifolk.emulator.metrics import JOB_SERIES
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.local_gcs import write_object

pytestmark = pytest.mark.slow  # jobs run on emulators

GROUP = 16  # samplesPerPrompt of job_body


def datasets(gcs: Path) -> tuple[str, str]:
    """32 training prompts (example 0..31) and 4 validation prompts that are not among them."""
    train, val = write_datasets(gcs, train=32, val=4)
    lines = (json.dumps(example(100 + i), ensure_ascii=False) for i in range(4))
    write_object(gcs, "bucket", "rlft/val.jsonl", "\n".join(lines).encode())
    return train, val


def single(body: dict[str, Any], reward: dict[str, Any]) -> dict[str, Any]:
    """`body` with one reward (`singleRewardConfig`) instead of job_body's composite."""
    spec = body["reinforcementTuningSpec"]
    del spec["compositeRewardConfig"]
    spec["singleRewardConfig"] = reward
    return body


def series_names(url: str, job: dict[str, Any]) -> set[str]:
    """The display names of the job's time series (experiment → tensorboard → run → series)."""
    ctx = ok(requests.get(api(url, job["experiment"]), timeout=10), "Context")
    tb = ctx["metadata"]["backing_tensorboard_resource"]
    exps = ok(requests.get(api(url, tb + "/experiments"), timeout=10))["tensorboardExperiments"]
    exp = next(e["name"] for e in exps if e["name"].endswith(job["experiment"].rsplit("/", 1)[-1]))
    (run,) = ok(requests.get(api(url, exp + "/runs"), timeout=10))["tensorboardRuns"]
    listed = ok(requests.get(api(url, run["name"] + "/timeSeries"), timeout=10))["tensorboardTimeSeries"]
    return {s["displayName"] for s in listed}


def test_hostile_switch_turns_every_reading_on_and_help_names_them() -> None:
    assert all(getattr(Hostile.every(), f) for f in READINGS.values())
    assert not Hostile().any and Hostile.of(["invoker-nan"]) == Hostile(invoker_nan=True)
    out = emulator_help()
    assert "--hostile " in out and "--hostile-reading" in out
    assert all(name in out for name in READINGS), out


# --- 1: metadata.tuningJobId, a JSON number ------------------------------------------------------------


def test_reward_metadata_is_tuningJobId_a_json_number_under_hostile(tmp_path: Path) -> None:
    """Reading `tuning-job-id`: the guide's `tuningJobId`, as a JSON number (a 19-digit id, past 2**53),
    to the fixture's server, and to the real scorer, whose ledger records still name the job."""
    train, val = datasets(tmp_path / "gcs")
    ledger = tmp_path / "scorer.stdout"
    with (
        RewardServer() as rs,
        scorer(quiet=True, stdout=ledger) as scorer_url,
        emulator(*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--hostile") as url,
    ):
        r = validate_reward(
            url,
            {
                "example": example(),
                "sampleResponse": sample_response(),
                "singleRewardConfig": cloud_run_reward("structure", rs.url + "/ok"),
            },
        )
        ok(r, "ValidateReinforcementTuningRewardResponse")
        assert rs.requests[-1]["body"]["metadata"] == {"step": 0, "tuningJobId": 0}

        body = job_body(train, val, rs.url + "/ok", epochCount="1")
        fixture_job = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
        real = single(job_body(train, val, "", epochCount="1"), cloud_run_reward("s", scorer_url + "/score"))
        real_job = wait_for(url, create_job(url, real)["name"], TERMINAL_STATES)
        assert fixture_job["state"] == real_job["state"] == "JOB_STATE_SUCCEEDED"
        recorded = [c["body"]["metadata"] for c in admin(url, "requests")["rewardCalls"]]
        assert recorded and not any("tuning_job_id" in m for m in recorded)

    job_id = fixture_job["name"].rsplit("/", 1)[-1]
    metas = [c["body"]["metadata"] for c in rs.requests if c["body"]["metadata"].get("step")]
    assert metas and all(set(m) == {"step", "tuningJobId"} for m in metas), metas[:3]
    assert all(type(m["tuningJobId"]) is int and m["tuningJobId"] == int(job_id) for m in metas)
    assert int(job_id) > 2**53  # a double cannot hold it: a client must not read it as one

    real_id = real_job["name"].rsplit("/", 1)[-1]
    records = [rec for line in ledger.read_bytes().splitlines() if (rec := parse_line(line))]
    trained = [rec for rec in records if rec[STEP] >= 1]
    assert trained and {rec[JOB_ID] for rec in trained} == {real_id}, {rec[JOB_ID] for rec in trained}
    by_step: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for rec in trained:
        by_step[rec[STEP]][rec[EXAMPLE_DIGEST]] += 1
    groups = [sorted(c.values()) for c in by_step.values()]  # the scorer sees one GRPO group a step
    assert all(g[-1] == GROUP and GROUP not in g[:-1] for g in groups), groups


# --- 2: a missing run.invoker grant is a bare NaN ----------------------------------------------------------


@pytest.fixture
def ungranted(tmp_path: Path) -> Any:
    """A Cloud Run service of the stand-in (its front, then a real scorer) with no run.invoker grant:
    every call the emulator makes as the tuning agent is refused 403."""
    template = {"containers": [{"image": "us-central1-docker.pkg.dev/p/r/scorer:latest"}]}
    with serving(tmp_path / "standin", tmp_path / "gcs-standin") as gcp:
        provider: Provider = gcp
        yield provider.create(RUN, "scorer", {"location": "us-central1", "template": template})[1]["uri"]


def test_missing_invoker_grant_validates_to_a_bare_nan_under_hostile(tmp_path: Path, ungranted: str) -> None:
    """Reading `invoker-nan`: the 403 reaches validate as `"reward": "NaN"` and `"overallReward": "NaN"`
    with no errorStatus anywhere (no code 7 to retry on); without the reading, code 7 as before. In a
    job, every such rollout is errored and the job stops on the errored-reward rule."""
    train, val = datasets(tmp_path / "gcs")
    request = {
        "example": example(),
        "sampleResponse": sample_response(),
        "singleRewardConfig": cloud_run_reward("structure", ungranted),
    }
    common = (*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--time-scale", "0.005")
    with emulator(*common, "--hostile") as url, emulator(*common) as plain:
        answer = ok(validate_reward(url, request), "ValidateReinforcementTuningRewardResponse")
        assert answer == {"overallReward": "NaN", "rewardInfoDetails": {"structure": {"reward": "NaN"}}}, (
            answer
        )
        statuses = {c["status"] for c in admin(url, "requests")["rewardCalls"]}
        assert statuses == {403}, statuses  # it was the grant: Cloud Run's front refused every try

        before = ok(validate_reward(plain, request))
        assert before["errorStatus"]["code"] == 7
        assert before["rewardInfoDetails"]["structure"]["errorStatus"]["code"] == 7

        body = single(job_body(train, val, "", epochCount="1"), cloud_run_reward("structure", ungranted))
        job = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_FAILED" and job["error"]["code"] == 9, job.get("error")
        internal = next(j for j in admin(url, "jobs")["jobs"] if j["name"] == job["name"])
        assert internal["erroredInvocations"] == internal["rewardInvocations"] == GROUP


# --- 3: continuous tuning's model name without @N ----------------------------------------------------------


def test_continuous_tuning_model_comes_back_without_its_version_under_hostile(tmp_path: Path) -> None:
    """Reading `unversioned-model`: `tunedModel.model` is `…/models/M` for the fresh job and for the
    continuous-tuning job that made version 2 of M; the version exists all the same."""
    train, val = datasets(tmp_path / "gcs")
    with RewardServer() as rs, emulator(*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--hostile") as url:
        first = wait_for(
            url,
            create_job(url, job_body(train, val, rs.url + "/ok", epochCount="1"))["name"],
            TERMINAL_STATES,
        )
        model = first["tunedModel"]["model"]
        assert "@" not in model and "/models/" in model, model
        body = job_body(train, val, rs.url + "/ok", epochCount="1")
        del body["baseModel"]  # one of baseModel and preTunedModel
        body["preTunedModel"] = {"tunedModelName": model}
        second = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
        assert second["state"] == "JOB_STATE_SUCCEEDED"
        assert second["tunedModel"]["model"] == model  # no @2, though the job made version 2
        versions = ok(requests.get(api(url, model + ":listVersions"), timeout=10))["models"]
        assert sorted(v["versionId"] for v in versions) == ["1", "2"]
        assert ok(requests.get(api(url, model + "@2"), timeout=10))["versionId"] == "2"
        assert get_job(url, second["name"])["tunedModel"]["model"] == model


# --- 4: a single reward without per-reward series ----------------------------------------------------------


def test_single_reward_job_has_only_job_wide_series_under_hostile(tmp_path: Path) -> None:
    """Reading `single-reward-series`: a single-reward job's run holds the job-wide series only; a
    composite job's still holds each reward's."""
    train, val = datasets(tmp_path / "gcs")
    with RewardServer() as rs, emulator(*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--hostile") as url:
        one = single(job_body(train, val, "", epochCount="1"), cloud_run_reward("structure", rs.url + "/ok"))
        job = wait_for(url, create_job(url, one)["name"], TERMINAL_STATES)
        assert series_names(url, job) == set(JOB_SERIES)
        both = wait_for(
            url,
            create_job(url, job_body(train, val, rs.url + "/ok", epochCount="1"))["name"],
            TERMINAL_STATES,
        )
        names = series_names(url, both)
        assert {"structure/train_rpc_error_ratio", "poetic_quality/train_mean_reward"} <= names


# --- 5: GRPO groups (always) -------------------------------------------------------------------------------


@pytest.mark.parametrize(("budget", "prompts"), [(4, 1), (32, 2)])
def test_a_training_step_scores_whole_grpo_groups(tmp_path: Path, budget: int, prompts: int) -> None:
    """Every prompt a step samples gets all its samplesPerPrompt responses: `--samples-per-step` 4 with
    samplesPerPrompt 16 is one prompt of 16 responses; 32 is two prompts of 16, both from the step's
    batch (the epoch's next batchSize prompts, in order)."""
    train, val = datasets(tmp_path / "gcs")
    args = (*FAST, "--gcs-dir", str(tmp_path / "gcs"), "--samples-per-step", str(budget))
    with RewardServer() as rs, emulator(*args) as url:
        body = job_body(train, val, rs.url + "/ok", epochCount="1", batchSize=8)
        job = wait_for(url, create_job(url, body)["name"], TERMINAL_STATES)
        assert job["state"] == "JOB_STATE_SUCCEEDED"
    job_id = job["name"].rsplit("/", 1)[-1]
    groups: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for c in rs.requests:
        meta = c["body"]["metadata"]
        if meta.get("tuning_job_id") == job_id and meta["step"] >= 1:
            groups[meta["step"]][json.dumps(c["body"]["example"]["contents"], ensure_ascii=False)] += 1
    steps = sorted(groups)
    assert steps[0] == 1 and steps[-1] == 4  # 32 prompts, batch 8: 4 steps
    for step in steps:
        counts = groups[step]
        batch = {
            json.dumps(example(i)["contents"], ensure_ascii=False) for i in range((step - 1) * 8, step * 8)
        }
        trained = {k: n for k, n in counts.items() if k in batch}
        assert len(trained) == prompts and set(trained.values()) == {GROUP}, (step, counts)
        evals = step % 2 == 0  # evaluateInterval 2: one response for each of `budget` validation draws
        assert sum(counts.values()) - prompts * GROUP == (budget if evals else 0), (step, counts)
