"""The job's lifecycle never destroys more than the user asked for (issue 12, items 1–7).

Each test drives the real provider against the real emulator (and the real scorer), with the
emulator set to behave as Vertex does where the old code went wrong: continuous tuning makes a new
version of the parent model, a list filter may be looser than ours, deletes are long-running
operations that may end NOT_FOUND, jobs may end EXPIRED or pause.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobs import FAST, PROJECT, checked, exists, fast_emulator, inputs, jobs_in
from providers.tuning_job import RlftTuningJobProvider
from tunifolk import operations as ops
from tunifolk.errors import JobFailed, LeftBehind, RewardRefused
from tunifolk.job import diff, names
from tunifolk.vertex import ENDPOINT_ENV


def serving(outs: dict[str, Any]) -> list[str]:
    """Everything a finished job left to clean up: its endpoints and its model (version)."""
    return [outs["endpoint"], *(c["endpoint"] for c in outs["checkpoints"]), outs["tuned_model"]]


# ------------------------------------------------------------------ 1. continuous tuning


def test_continuous_tuning_deletes_only_its_own_model_version(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        model = first.outs["tuned_model"]
        assert model.endswith("@1")
        pre = {"tuned_model_name": model.partition("@")[0], "checkpoint_id": "2"}
        second_props = checked(inputs(scorer_uri, base_model=None, pre_tuned_model=pre))
        second = provider.create(second_props)
        assert second.outs["tuned_model"] == model.partition("@")[0] + "@2"  # a version of the parent

        provider.delete(second.id, second.outs)
        assert not exists(emu, second.outs["tuned_model"]) and not exists(emu, second.outs["endpoint"])
        assert all(exists(emu, name) for name in serving(first.outs))  # the earlier run is intact

        provider.delete(first.id, first.outs)
        assert not any(exists(emu, name) for name in serving(first.outs))


@pytest.mark.parametrize("form", ["id", "number"])
def test_continuous_tuning_named_by_project_id_or_number_deletes_only_its_version(
    gcs: Path, scorer_uri: str, monkeypatch, form: str
) -> None:
    """The service names models with the project number; the config may name the parent with the ID
    (or the number): destroy still deletes only the job's own version."""
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        model = first.outs["tuned_model"]
        number = names.project_of(model)
        assert number and number.isdigit() and first.id.startswith(f"projects/{number}/")  # as Google
        configured = names.with_project(names.base(model), PROJECT if form == "id" else number)
        pre = {"tuned_model_name": configured, "checkpoint_id": "2"}
        second = provider.create(checked(inputs(scorer_uri, base_model=None, pre_tuned_model=pre)))
        assert second.outs["tuned_model"] == names.base(model) + "@2"

        provider.delete(second.id, second.outs)
        assert not exists(emu, second.outs["tuned_model"])
        assert all(exists(emu, name) for name in serving(first.outs)), "the parent model was deleted"


def test_a_job_owns_a_whole_model_only_when_it_made_it() -> None:
    parent = {"tuned_model_name": "projects/p/locations/l/models/555"}
    assert ops.own_model("projects/p/locations/l/models/555@3", parent) == (
        "projects/p/locations/l/models/555@3",
        False,
    )
    assert ops.own_model("projects/p/locations/l/models/777@1", parent) == (
        "projects/p/locations/l/models/777",
        True,
    )
    assert ops.own_model("projects/p/locations/l/models/555@1", None) == (
        "projects/p/locations/l/models/555",
        True,
    )


# ------------------------------------------------------------------ 2. adoption checks the label itself


def test_a_job_with_another_spec_is_never_adopted_whatever_the_filter(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs, "--loose-list-filter") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        running = provider.create(checked(inputs(scorer_uri, wait="none")))
        other = inputs(scorer_uri, wait="none")
        other["hyper_parameters"]["learning_rate_multiplier"] = 2.0
        created = provider.create(checked(other))
        assert created.id != running.id
        assert created.outs["spec_hash"] != running.outs["spec_hash"]
        assert len(jobs_in(emu)) == 2
        again = provider.create(checked(other))  # the same spec: adopted, not duplicated
        assert again.id == created.id and len(jobs_in(emu)) == 2


# ------------------------------------------------------------------ 3. a replacement is validated first


def test_a_broken_replacement_leaves_the_old_job_as_it_was(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--backoff-scale", "0.001") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        old = provider.create(checked(inputs(scorer_uri)))
        broken = inputs("http://127.0.0.1:9")  # nothing listens: every reward call errors
        broken["hyper_parameters"]["learning_rate_multiplier"] = 2.0
        with pytest.raises(RewardRefused, match="left as they are"):
            provider.diff(old.id, old.outs, checked(broken))
        assert [j["state"] for j in jobs_in(emu)] == ["JOB_STATE_SUCCEEDED"]
        assert all(exists(emu, name) for name in serving(old.outs))

        good = inputs(scorer_uri)
        good["hyper_parameters"]["learning_rate_multiplier"] = 2.0
        planned = provider.diff(old.id, old.outs, checked(good))
        assert planned.replaces == ["hyper_parameters"] and not planned.delete_before_replace


# ------------------------------------------------------------------ 4. what does not shape the job updates


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("labels", {"team": "poetry"}),
        ("validation_example", None),  # set below: another sample response
        ("wait", "none"),
        ("wait_timeout_seconds", 600),
        ("cleanup", "cancel"),
        ("max_cost_usd", 1e9),
    ],
)
def test_inputs_that_do_not_shape_the_job_update_it_in_place(
    gcs: Path, scorer_uri: str, monkeypatch, capfd, key: str, value: Any
) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        old = provider.create(checked(inputs(scorer_uri)))
        news = inputs(scorer_uri)
        if key == "validation_example":
            news[key]["sample_response"] = {"role": "model", "parts": [{"text": "another poem"}]}
        else:
            news[key] = value
        news = checked(news)
        planned = provider.diff(old.id, old.outs, news)
        assert planned.changes and planned.replaces == [], key
        updated = provider.update(old.id, old.outs, news)
        assert updated.outs["name"] == old.id and len(jobs_in(emu)) == 1
        assert updated.outs[key] == news[key]
        if key == "labels":
            assert "cannot relabel" in capfd.readouterr().err


# ------------------------------------------------------------------ 5. an operation that ends NOT_FOUND


def test_an_operation_that_ends_not_found_is_gone_not_left(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--lro-error-rate", "1", "--lro-error-code", "5") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        job = provider.create(checked(inputs(scorer_uri)))
        provider.delete(job.id, job.outs)  # every delete ends NOT_FOUND: done, nothing reported
        assert not any(exists(emu, name) for name in serving(job.outs))


def test_an_operation_that_ends_in_another_error_is_named_as_left(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs, "--lro-error-rate", "1", "--lro-error-code", "13") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        job = provider.create(checked(inputs(scorer_uri)))
        with pytest.raises(LeftBehind) as info:
            provider.delete(job.id, job.outs)
        message = str(info.value)
        assert "gcloud ai endpoints" in message and "gcloud ai models delete" in message
        assert all(exists(emu, name) for name in serving(job.outs))


# ------------------------------------------------------------------ 6. job states


def test_an_expired_job_fails_the_wait(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--end-state", "EXPIRED") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        with pytest.raises(JobFailed, match="JOB_STATE_EXPIRED"):
            RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))


def test_a_partial_success_ends_the_wait_with_an_endpoint(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    with fast_emulator(gcs, "--end-state", "PARTIALLY_SUCCEEDED") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))
        assert job.outs["state"] == "JOB_STATE_PARTIALLY_SUCCEEDED" and job.outs["endpoint"]


def test_a_paused_job_is_waited_for(gcs: Path, scorer_uri: str, monkeypatch, capfd) -> None:
    with fast_emulator(gcs, "--pause-at-step", "2", "--step-seconds", "0.2") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))
        assert job.outs["state"] == "JOB_STATE_SUCCEEDED"
        assert "JOB_STATE_PAUSED" in capfd.readouterr().err  # the wait saw the pause and went on


# ------------------------------------------------------------------ 7. a single reward of exactly 0.0


def test_a_single_zero_reward_is_valid(gcs: Path, monkeypatch) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        props = inputs("unused")
        props["rewards"] = [
            {
                "name": "exact",
                "string_match": {
                    "expression": "never in a poem",
                    "match": "exact_match",
                    "wrong_reward": 0.0,
                },
            }
        ]
        job = RlftTuningJobProvider(**FAST).create(checked({**props, "wait": "none"}))
        assert job.outs["validation"] == {"overall_reward": 0.0, "rewards": {"exact": 0.0}}


def test_diff_roles_cover_every_in_place_input() -> None:
    """Items 3 and 4 together: exactly the listed inputs update in place."""
    base = checked(inputs("https://s.run.app"))
    for key, value in [("labels", {"a": "b"}), ("cleanup", "cancel"), ("wait", "none")]:
        assert diff.diff_decision(base, {**base, key: value})[1] == []
    assert diff.diff_decision(base, {**base, "description": "x"})[1] == ["description"]
