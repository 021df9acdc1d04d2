"""The client's side of Google's documented contract where the pages disagree or are silent
(docs/google-contract.md): each test plays the hostile reading and fails on a client that assumed
the friendly one. Pure: no server (the engine tests run the same readings end to end)."""

from __future__ import annotations

import io
import json

import pytest
import yaml
from rich.console import Console

from discovery import validate
from scorer import ledger
from seed_inputs import PROMPT, base_inputs
from tunifolk import operations as ops
from tunifolk.errors import TunifolkError
from tunifolk.job import bodies, verdict
from tunifolk.job.checks import check_inputs
from tunifolk.job.judge import answer_tag
from tunifolk.paths import ROOT

RECORD_ARGS = ({"form": "malzuma"}, {"form": "malzuma"}, "poem", 0.5, {}, "ok")


@pytest.mark.parametrize(
    ("metadata", "job"),
    [
        ({"step": 3, "tuning_job_id": "123"}, "123"),  # the REST reference's spelling, int64 as text
        ({"step": 3, "tuningJobId": 123}, "123"),  # the reward-functions guide's, as a JSON number
        ({"step": 3, "tuningJobId": "9007199254740993"}, "9007199254740993"),  # past a double's 2**53
        ({"step": 3, "tuning_job_id": "", "tuningJobId": "77"}, "77"),  # an empty one is absent
        ({"step": 3}, ""),
    ],
)
def test_the_ledger_reads_the_job_id_in_either_spelling(metadata: dict, job: str) -> None:
    rec = ledger.record(metadata, *RECORD_ARGS)
    assert rec[ledger.JOB_ID] == job
    assert rec[ledger.STEP] == 3


@pytest.mark.parametrize("step", [1e400, float("nan"), "NaN", 2**70, "x", None])
def test_a_step_that_is_no_count_is_minus_one_or_kept_never_a_crash(step: object) -> None:
    rec = ledger.record({"step": step, "tuningJobId": 5}, *RECORD_ARGS)
    assert rec[ledger.JOB_ID] == "5"
    assert isinstance(rec[ledger.STEP], int) and -1 <= rec[ledger.STEP] < 2**63
    assert ledger.parse_line(ledger.log_line(rec)) is not None  # the record can be written


# ------------------------------------------------------------------ continuous tuning, names without @N

PARENT = {"tuned_model_name": "projects/p/locations/l/models/555"}


def test_a_bare_tuned_model_name_that_is_the_parent_is_never_the_whole_model() -> None:
    """The quick start's example answer names the tuned model without `@N`: when that name is the
    pre-tuned model's, the job made a version of it, and cleanup must not take the whole model."""
    assert ops.own_model("projects/p/locations/l/models/555", PARENT) == (
        "projects/p/locations/l/models/555",
        False,
    )
    assert ops.own_model(
        "projects/p/locations/l/models/555", {**PARENT, "tuned_model_name": PARENT["tuned_model_name"] + "@2"}
    ) == ("projects/p/locations/l/models/555", False)
    assert ops.own_model("projects/p/locations/l/models/777", PARENT) == (
        "projects/p/locations/l/models/777",
        True,
    )


def version(number: str, created: str | None) -> tuple[str, dict]:
    return number, {"versionId": number, **({"versionCreateTime": created} if created else {})}


JOB = {"createTime": "2026-12-01T10:00:00.123456789Z"}


def test_the_version_a_job_made_is_the_one_created_while_it_ran() -> None:
    versions = dict([version("1", "2026-11-01T00:00:00Z"), version("2", "2026-12-01T12:00:00Z")])
    assert ops._version_made_by(JOB, versions, "") == "2"
    assert ops._version_made_by(JOB, dict([version("1", "2026-11-01T00:00:00Z")]), "") == ""  # gone


@pytest.mark.parametrize(
    ("versions", "job"),
    [
        # two versions made since the job started: another run's is among them
        (dict([version("1", "2026-12-01T11:00:00Z"), version("2", "2026-12-01T12:00:00Z")]), JOB),
        (dict([version("1", "2026-11-01T00:00:00Z"), version("2", None)]), JOB),  # no time
        (dict([version("1", "2026-11-01T00:00:00Z"), version("2", "2026-12-01T12:00:00Z")]), {}),
    ],
)
def test_a_version_that_cannot_be_told_apart_is_never_guessed(versions: dict, job: dict) -> None:
    with pytest.raises(TunifolkError, match="without its version"):
        ops._version_made_by(job, versions, "")


# ------------------------------------------------------------------ a missing grant as a bare NaN

GRANT = frozenset({"structure"})


@pytest.mark.parametrize(
    ("entry", "retried"),
    [
        ({"reward": "NaN"}, True),  # the troubleshooting note's reading: NaN, no word of IAM
        ({"reward": "NaN", "errorStatus": {"code": 13, "message": "Internal error"}}, True),
        ({"reward": "NaN", "errorStatus": {"code": 2}}, True),
        ({"reward": "NaN", "errorStatus": {"code": 7, "message": "HTTP 403"}}, True),
        ({"reward": "NaN", "errorStatus": {"code": 16, "message": "HTTP 401"}}, False),  # a bad token
        ({"reward": "NaN", "errorStatus": {"code": 3, "message": "invalid response"}}, False),
        ({"reward": 0.4}, False),
    ],
)
def test_a_cloud_run_rewards_causeless_nan_is_waited_on_as_a_grant(entry: dict, retried: bool) -> None:
    response = {"overallReward": "NaN", "rewardInfoDetails": {"structure": entry, "judge": {"reward": 0.1}}}
    problems = verdict.validation_problems(response, ["structure", "judge"], GRANT)
    assert any(p.is_permission_error for p in problems) is retried
    if retried and entry.get("errorStatus", {}).get("code") != 7:
        assert any("run.invoker" in str(p) and "tunifolk doctor" in str(p) for p in problems)


def test_a_nan_from_a_judge_or_a_code_reward_is_not_a_grant() -> None:
    response = {"rewardInfoDetails": {"structure": {"reward": 0.5}, "judge": {"reward": "NaN"}}}
    problems = verdict.validation_problems(response, ["structure", "judge"], GRANT)
    assert problems and not any(p.is_permission_error for p in problems)


def test_the_cloud_run_rewards_are_named_from_the_inputs() -> None:
    rewards = [
        {"name": "structure", "cloud_run": {"uri": "https://s.run.app"}},
        {"name": "judge", "autorater": {"model": "gemini-2.5-pro", "prompt": "{{response}}"}},
    ]
    assert bodies.cloud_run_reward_names({"rewards": rewards}) == {"structure"}


# ------------------------------------------------------------------ the judge's answer is parsed


def judged(**autorater: object) -> dict:
    inputs = base_inputs()
    inputs["rewards"][1]["autorater"] = {"model": "gemini-2.5-pro", "prompt": PROMPT, **autorater}
    return inputs


def test_a_judge_asked_for_tags_without_a_parse_fails_at_preview_naming_the_regex() -> None:
    report = check_inputs(judged())
    assert [path for path, _ in report.failures] == ["rewards[1].autorater.parse"]
    assert "regex_extract, regex: '<answer>(.*?)</answer>'" in report.failures[0][1]
    assert check_inputs(judged(parse={"type": "regex_extract", "regex": "<answer>(.*?)</answer>"})).ok
    exact = judged(scorer={"exact_match": {"expression": "Yes"}})  # matched, not converted
    assert check_inputs(exact).ok


def test_a_judge_read_whole_warns() -> None:
    report = check_inputs(judged(prompt="Rate {{response}} from -1 to 1."))
    assert report.ok and any("whole answer is read as the number" in w for w in report.warnings)


def test_the_stacks_judges_parse_their_answer() -> None:
    for stack in ("dev", "local"):
        config = yaml.safe_load((ROOT / f"Pulumi.{stack}.yaml").read_text())["config"]
        judge = next(r["autorater"] for r in config["tunifolk:rewards"] if "autorater" in r)
        tag = answer_tag(judge["prompt"])
        assert tag and judge["parse"] == {"type": "regex_extract", "regex": f"<{tag}>(.*?)</{tag}>"}


# ------------------------------------------------------------------ epochs and thinking levels


def test_neither_epochs_nor_steps_is_googles_default_epoch_count() -> None:
    inputs = base_inputs()
    del inputs["hyper_parameters"]["epoch_count"]
    report = check_inputs(inputs)
    assert report.ok, report.failures
    # min(110 × 32 / 843, 10) = 4.18 epochs of 843 // 32 = 26 steps
    assert report.total_steps == int(26 * 110 * 32 / 843) == 108
    small = {**inputs, "training_example_count": 100}  # capped at 10 epochs of 3 steps
    assert check_inputs(small).total_steps == 30
    both = base_inputs()
    both["hyper_parameters"]["step_count"] = 10
    assert [p for p, _ in check_inputs(both).failures] == ["hyper_parameters.epoch_count"]


@pytest.mark.parametrize(
    ("level", "warned"), [("HIGH", False), ("MINIMAL", False), ("LOW", True), ("MEDIUM", True)]
)
def test_a_thinking_level_the_guide_does_not_list_warns(level: str, warned: bool) -> None:
    inputs = base_inputs()
    inputs["hyper_parameters"]["thinking_level"] = level
    report = check_inputs(inputs)
    assert report.ok
    assert any("RLFT hyperparameters guide" in w for w in report.warnings) is warned


def test_the_judges_generation_config_and_flip_reach_the_body_as_google_names_them() -> None:
    """Google's reward-functions page warns that a noisy judge is hard to learn from: its sampling is
    configurable (AutoraterConfig.generationConfig, flipEnabled in the discovery document)."""
    inputs = judged(
        parse={"type": "regex_extract", "regex": "<answer>(.*?)</answer>"},
        generation_config={
            "temperature": 0.2,
            "top_p": 0.9,
            "top_k": 20,
            "seed": 7,
            "max_output_tokens": 512,
        },
        flip_enabled=False,
    )
    report = check_inputs(inputs)
    assert report.ok, report.failures
    body = bodies.build_tuning_job(report.inputs)
    validate("TuningJob", body)
    judge = body["reinforcementTuningSpec"]["compositeRewardConfig"]["weightedRewardConfigs"][1]
    config = judge["rewardConfig"]["autoraterScorer"]["autoraterConfig"]
    assert config["generationConfig"] == {
        "temperature": 0.2,
        "topP": 0.9,
        "topK": 20,
        "seed": 7,
        "maxOutputTokens": 512,
    }
    assert config["flipEnabled"] is False
    hot = judged(parse={"type": "regex_extract", "regex": "(.*)"}, generation_config={"temperature": 3})
    assert [p for p, _ in check_inputs(hot).failures] == [
        "rewards[1].autorater.generation_config.temperature"
    ]


@pytest.mark.parametrize(
    ("model", "warned"),
    [
        ("gemini-3.5-flash", False),
        ("publishers/google/models/gemini-3.5-flash", False),
        ("gemini-2.0-flash", True),
    ],
)
def test_a_base_model_googles_rlft_pages_do_not_name_warns(model: str, warned: bool) -> None:
    inputs = base_inputs()
    inputs["base_model"] = model
    report = check_inputs(inputs)
    assert report.ok
    assert any("base models Google's RLFT pages name" in w for w in report.warnings) is warned


def test_europe_west4_is_accepted_and_warns_that_googles_overview_does_not_list_it() -> None:
    inputs = base_inputs()
    assert not any("RLFT overview lists" in w for w in check_inputs(inputs).warnings)
    inputs["location"] = "europe-west4"
    report = check_inputs(inputs)
    assert report.ok and any("RLFT overview lists only us-central1" in w for w in report.warnings)


def test_multimodal_data_caps_batch_times_samples_at_1024() -> None:
    inputs = base_inputs()
    inputs["hyper_parameters"].update(batch_size=128, samples_per_prompt=16)  # 2,048: text allows it
    assert check_inputs(inputs).ok
    image = {"fileData": {"mimeType": "image/png", "fileUri": "gs://b/a.png"}}
    inputs["validation_example"]["example"]["contents"][0]["parts"].append(image)
    (failure,) = check_inputs(inputs).failures
    assert (
        failure[0] == "hyper_parameters.samples_per_prompt" and "at most 1024 (multimodal data)" in failure[1]
    )


@pytest.mark.parametrize(
    ("labels", "ok"),
    [
        ({"team": "poetry"}, True),
        ({"فريق": "شعر"}, True),  # international lowercase letters are allowed
        ({"équipe": "poésie-1"}, True),
        ({"Team": "poetry"}, False),
        ({"team": "Poetry"}, False),
        ({"1team": "x"}, False),
        ({"team": "a" * 65}, False),
    ],
)
def test_labels_take_international_lowercase_letters_as_google_does(labels: dict, ok: bool) -> None:
    inputs = base_inputs()
    inputs["labels"] = labels
    assert check_inputs(inputs).ok is ok


def test_a_display_name_over_128_characters_fails_at_preview() -> None:
    inputs = base_inputs()
    inputs["tuned_model_display_name"] = "m" * 128
    assert check_inputs(inputs).ok
    inputs["tuned_model_display_name"] = "m" * 129
    assert [p for p, _ in check_inputs(inputs).failures] == ["tuned_model_display_name"]


def test_status_says_which_training_examples_the_service_dropped() -> None:
    """DatasetStats (the discovery document): a sample of dropped example indices, from 1, each with
    the service's reason; status shows them instead of leaving them in the job's JSON."""
    from tunifolk.cli import report

    job = {
        "name": "projects/1/locations/us-central1/tuningJobs/2",
        "state": "JOB_STATE_RUNNING",
        "tuningDataStats": {
            "reinforcementTuningDataStats": {
                "droppedExampleIndices": ["3", "17"],
                "droppedExampleReasons": ["the prompt is too long", "[/red] no contents"],
            }
        },
    }
    built = report.build_report(job, None)
    assert built.dropped == [
        {"index": 3, "reason": "the prompt is too long"},
        {"index": 17, "reason": "[/red] no contents"},
    ]
    assert "line 3: the prompt is too long" in report.render_markdown(built)
    assert json.loads(report.render_json(built))["dropped"][1]["index"] == 17
    out = Console(file=io.StringIO(), width=200)
    out.print(*report.render_terminal(built))  # a reason that looks like markup is text: no MarkupError
    assert "[/red] no contents" in out.file.getvalue()
    assert report.build_report({**job, "tuningDataStats": {}}, None).dropped == []
