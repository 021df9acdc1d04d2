"""providers/spec.py: every check rule, bodies checked against the discovery document, diff, verdict."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from discovery import ShapeError, validate
from seed_inputs import PROMPT, base_inputs, with_change
from tunifolk import vertex
from tunifolk.job import bodies, diff, estimate, verdict, wire
from tunifolk.job.checks import check_inputs
from tunifolk.job.normalize import normalize
from tunifolk.job.wire import UNKNOWN


def _set_none(inputs: dict[str, Any], path: str) -> None:
    parts = path.replace("[", ".").replace("]", "").split(".")
    target: Any = inputs
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key: Any = int(parts[-1]) if isinstance(target, list) else parts[-1]
    target[key] = None


def failure_paths(inputs: dict[str, Any]) -> list[str]:
    return [path for path, _ in check_inputs(inputs).failures]


# ---------------------------------------------------------------------------------------------
# the base config


def test_base_config_passes_with_seed_step_count():
    report = check_inputs(base_inputs())
    assert report.failures == []
    assert report.warnings == []
    assert report.total_steps == 156
    assert report.estimate is not None and report.estimate.total_steps == 156


# ---------------------------------------------------------------------------------------------
# one failing variant per hard rule: (path to change, new value, failure path expected)

FAILING = [
    ("location", "global", "location"),
    ("location", "us-east1", "location"),
    ("project", None, "project"),
    ("project", "", "project"),
    ("base_model", None, "base_model"),
    ("training_dataset_uri", "https://storage.googleapis.com/b/train.jsonl", "training_dataset_uri"),
    ("training_dataset_uri", None, "training_dataset_uri"),
    ("validation_dataset_uri", "/tmp/validation.jsonl", "validation_dataset_uri"),
    ("training_example_count", 5001, "training_example_count"),
    ("training_example_count", 12.5, "training_example_count"),
    ("hyper_parameters.samples_per_prompt", 512, "hyper_parameters.samples_per_prompt"),
    ("hyper_parameters.learning_rate_multiplier", 0.2, "hyper_parameters.learning_rate_multiplier"),
    ("hyper_parameters.learning_rate_multiplier", 4.5, "hyper_parameters.learning_rate_multiplier"),
    ("hyper_parameters.step_count", 100, "hyper_parameters.epoch_count"),
    ("hyper_parameters.adapter_size", "ADAPTER_SIZE_SIXTY_FOUR", "hyper_parameters.adapter_size"),
    ("hyper_parameters.thinking_level", "EXTREME", "hyper_parameters.thinking_level"),
    ("hyper_parameters.max_output_tokens", 65536, "hyper_parameters.max_output_tokens"),
    ("hyper_parameters.max_output_tokens", 0, "hyper_parameters.max_output_tokens"),
    ("hyper_parameters.thinking_budget", 1024, "hyper_parameters.thinking_budget"),
    ("hyper_parameters", None, "hyper_parameters"),
    ("hyper_parameters.evaluate_interval", 0, "hyper_parameters.evaluate_interval"),
    ("hyper_parameters.evaluate_interval", 2.5, "hyper_parameters.evaluate_interval"),
    ("hyper_parameters.checkpoint_interval", -26, "hyper_parameters.checkpoint_interval"),
    ("hyper_parameters.checkpoint_interval", 20, "hyper_parameters.checkpoint_interval"),
    ("hyper_parameters.epoch_count", 20, "hyper_parameters.epoch_count"),  # 26 × 20 = 520 > 500
    ("hyper_parameters.bogus", 1, "hyper_parameters.bogus"),
    ("rewards", [], "rewards"),
    ("rewards[1].name", "structure", "rewards[1].name"),
    ("rewards[0].name", "", "rewards[0].name"),
    ("rewards[0].weight", 0, "rewards[0].weight"),
    ("rewards[1].weight", -0.3, "rewards[1].weight"),
    ("rewards[0].cloud_run", None, "rewards[0]"),  # no scorer at all
    ("rewards[0].code_execution", {"python": "def evaluate(e, r):\n    return 1.0\n"}, "rewards[0]"),
    ("rewards[0].cloud_run.uri", "http://scorer.example.com", "rewards[0].cloud_run.uri"),
    ("rewards[0].cloud_run.uri", "ftp://scorer", "rewards[0].cloud_run.uri"),
    ("rewards[0].cloud_run.extra", 1, "rewards[0].cloud_run.extra"),
    ("rewards[1].autorater.model", None, "rewards[1].autorater.model"),
    ("rewards[1].autorater.prompt", None, "rewards[1].autorater.prompt"),
    ("rewards[1].autorater.sampling_count", 0, "rewards[1].autorater.sampling_count"),
    ("rewards[1].autorater.sampling_count", 33, "rewards[1].autorater.sampling_count"),
    ("rewards[1].autorater.scorer", "regex", "rewards[1].autorater.scorer"),
    (
        "rewards[1].autorater.scorer",
        {"exact_match": {}},
        "rewards[1].autorater.scorer.exact_match.expression",
    ),
    ("rewards[1].autorater.parse", {"type": "regex_extract"}, "rewards[1].autorater.parse.regex"),
    ("rewards[1].parse", {"type": "json"}, "rewards[1].parse.type"),
    ("rewards[1].parse", {"type": "regex_extract"}, "rewards[1].parse.regex"),
    ("rewards[1].parse", {"type": "regex_extract", "regex": "(unclosed"}, "rewards[1].parse.regex"),
    ("rewards[1].colour", "red", "rewards[1].colour"),
    ("wait", "forever", "wait"),
    ("wait_timeout_seconds", 0, "wait_timeout_seconds"),
    ("cleanup", "delete", "cleanup"),
    ("max_cost_usd", -5, "max_cost_usd"),
    ("labels", {"Team": "poetry"}, "labels.Team"),
    ("labels", {"team": "Poetry"}, "labels.team"),
    ("labels", {"team": "x" * 65}, "labels.team"),
    ("labels", {"k" * 65: "x"}, "labels." + "k" * 65),
    ("labels", {"tunifolk-spec": "abc"}, "labels.tunifolk-spec"),
    ("validation_example", None, "validation_example"),
    ("validation_example.example", None, "validation_example.example"),
    ("validation_example.example.contents", [], "validation_example.example.contents"),
    ("validation_example.example.references", {"stanzas": 5}, "validation_example.example.references"),
    ("validation_example.example.extra", 1, "validation_example.example.extra"),
    ("validation_example.sample_response", None, "validation_example.sample_response"),
    ("validation_example.sample_response", {"parts": "text"}, "validation_example.sample_response.parts"),
    ("pre_tuned_model", {"tuned_model_name": "models/123"}, "pre_tuned_model.tuned_model_name"),
    ("pre_tuned_model", {"tuned_model_name": "projects/p/locations/l/models/1", "x": 1}, "pre_tuned_model.x"),
    ("colour", "red", "colour"),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), FAILING, ids=[f"{p}={v!r}"[:60] for p, v, _ in FAILING]
)
def test_each_rule_fails_naming_the_property(path: str, value: Any, expected: str):
    paths = failure_paths(with_change(path, value))
    assert expected in paths, paths


def test_batch_times_samples_must_be_divisible_by_16():
    inputs = base_inputs()
    inputs["hyper_parameters"].update(batch_size=33, samples_per_prompt=15)  # 495
    report = check_inputs(inputs)
    assert [p for p, _ in report.failures] == ["hyper_parameters.samples_per_prompt"]
    assert "495" in report.failures[0][1]
    inputs["hyper_parameters"].update(batch_size=33, samples_per_prompt=16)  # 528 = 16 × 33
    inputs["hyper_parameters"].update(evaluate_interval=5, checkpoint_interval=25)
    assert failure_paths(inputs) == []


def test_batch_times_samples_rule_uses_batch_path_when_samples_unset():
    inputs = with_change("hyper_parameters.samples_per_prompt", None)
    inputs["hyper_parameters"]["batch_size"] = 31  # 31 × 16 (service default) = 496 is fine
    assert failure_paths(inputs) == []
    inputs["hyper_parameters"]["batch_size"] = 1023  # 1023 × 16 = 16368 > 8192
    assert "hyper_parameters.batch_size" in failure_paths(inputs)


def test_unknown_input_lists_accepted_keys():
    report = check_inputs(with_change("colour", "red"))
    (reason,) = [r for p, r in report.failures if p == "colour"]
    assert "'colour'" in reason and "training_dataset_uri" in reason and "max_cost_usd" in reason


def test_failure_reasons_say_the_fix():
    reasons = dict(check_inputs(with_change("rewards[1].autorater.model", None)).failures)
    assert "gemini-2.5-pro" in reasons["rewards[1].autorater.model"]
    reasons = dict(check_inputs(with_change("hyper_parameters.checkpoint_interval", 20)).failures)
    assert "e.g. 13" in reasons["hyper_parameters.checkpoint_interval"]
    reasons = dict(check_inputs(with_change("hyper_parameters.epoch_count", 20)).failures)
    assert "520" in reasons["hyper_parameters.epoch_count"]


def test_step_count_over_500_names_step_count():
    inputs = with_change("hyper_parameters.epoch_count", None)
    inputs["hyper_parameters"]["step_count"] = 501
    assert failure_paths(inputs) == ["hyper_parameters.step_count"]
    inputs["hyper_parameters"]["step_count"] = 500
    inputs["hyper_parameters"]["checkpoint_interval"] = 26
    report = check_inputs(inputs)
    assert report.failures == [] and report.total_steps == 500


def test_fewer_examples_than_a_batch_fails():
    assert "training_example_count" in failure_paths(with_change("training_example_count", 20))


def test_total_steps_skipped_without_example_count():
    report = check_inputs(with_change("training_example_count", None))
    assert report.failures == [] and report.total_steps is None and report.estimate is None


@pytest.mark.parametrize(
    "model", ["gemini-3.5-flash", "gemini-3-pro-preview", "publishers/google/models/gemini-3.1-flash"]
)
def test_thinking_budget_rejected_on_gemini_3(model: str):
    inputs = with_change("hyper_parameters.thinking_budget", -1)
    inputs["base_model"] = model
    assert "hyper_parameters.thinking_budget" in failure_paths(inputs)


def test_thinking_budget_below_minus_one_fails_on_gemini_2_5():
    inputs = with_change("hyper_parameters.thinking_budget", -2)
    inputs["base_model"] = "gemini-2.5-flash"
    assert failure_paths(inputs) == ["hyper_parameters.thinking_budget"]
    inputs["hyper_parameters"]["thinking_budget"] = -1
    assert failure_paths(inputs) == []


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gemini-2.5-pro"])
def test_thinking_budget_allowed_on_gemini_2_5(model: str):
    inputs = with_change("hyper_parameters.thinking_budget", 1024)
    inputs["base_model"] = model
    assert failure_paths(inputs) == []


@pytest.mark.parametrize("uri", ["http://127.0.0.1:8080", "http://localhost:9000/score", "https://x.run.app"])
def test_cloud_run_uri_allows_https_and_local_emulator(uri: str):
    assert failure_paths(with_change("rewards[0].cloud_run.uri", uri)) == []


def test_europe_west4_passes():
    assert failure_paths(with_change("location", "europe-west4")) == []


def test_pre_tuned_model_replaces_base_model():
    inputs = with_change("base_model", None)
    inputs["pre_tuned_model"] = {"tuned_model_name": "projects/p/locations/us-central1/models/42"}
    assert failure_paths(inputs) == []


def test_too_many_rewards():
    inputs = base_inputs()
    inputs["rewards"] = [
        {"name": f"r{i}", "weight": 1, "cloud_run": {"uri": "https://s.run.app"}} for i in range(17)
    ]
    assert "rewards" in failure_paths(inputs)
    inputs["rewards"] = inputs["rewards"][:16]
    assert failure_paths(inputs) == []


def test_string_match_rules():
    reward = {"name": "m", "weight": 1, "string_match": {"expression": "x", "match": "fuzzy"}}
    inputs = base_inputs()
    inputs["rewards"] = [reward]
    assert failure_paths(inputs) == ["rewards[0].string_match.match"]
    reward["string_match"]["match"] = "exact_match"
    reward["string_match"]["correct_reward"] = 2
    assert failure_paths(inputs) == ["rewards[0].string_match.correct_reward"]
    del reward["string_match"]["correct_reward"]
    assert failure_paths(inputs) == []


def test_code_execution_rules():
    inputs = base_inputs()
    inputs["rewards"] = [{"name": "c", "code_execution": {"python": "def score(e, r):\n    return 1\n"}}]
    assert failure_paths(inputs) == ["rewards[0].code_execution.python"]
    inputs["rewards"][0]["code_execution"]["python"] = "def evaluate(e, r) return 1"
    assert failure_paths(inputs) == ["rewards[0].code_execution.python"]
    inputs["rewards"][0]["code_execution"]["python"] = "def evaluate(example, response):\n    return 1.0\n"
    assert failure_paths(inputs) == []


# ---------------------------------------------------------------------------------------------
# warnings


def test_low_max_output_tokens_with_high_thinking_warns():
    report = check_inputs(with_change("hyper_parameters.max_output_tokens", 4096))
    assert report.failures == []
    assert len(report.warnings) == 1 and "max_output_tokens" in report.warnings[0]


def test_low_max_output_tokens_with_minimal_thinking_does_not_warn():
    inputs = with_change("hyper_parameters.max_output_tokens", 4096)
    inputs["hyper_parameters"]["thinking_level"] = "MINIMAL"
    assert check_inputs(inputs).warnings == []


def test_missing_validation_dataset_warns():
    report = check_inputs(with_change("validation_dataset_uri", None))
    assert report.failures == []
    assert len(report.warnings) == 1 and "validation_dataset_uri" in report.warnings[0]


# ---------------------------------------------------------------------------------------------
# unknowns at the first preview

UNKNOWN_PATHS = [
    "project",
    "base_model",
    "training_dataset_uri",
    "validation_dataset_uri",
    "training_example_count",
    "hyper_parameters",
    "hyper_parameters.batch_size",
    "hyper_parameters.epoch_count",
    "hyper_parameters.checkpoint_interval",
    "rewards",
    "rewards[0]",
    "rewards[0].name",
    "rewards[0].cloud_run",
    "rewards[0].cloud_run.uri",
    "rewards[1].autorater.model",
    "rewards[1].autorater.prompt",
    "rewards[1].autorater.sampling_count",
    "labels",
    "validation_example",
    "validation_example.example",
    "validation_example.sample_response",
    "max_cost_usd",
]


@pytest.mark.parametrize("path", UNKNOWN_PATHS)
def test_unknown_values_are_accepted(path: str):
    report = check_inputs(with_change(path, UNKNOWN))
    assert report.failures == []


def test_unknown_values_do_not_hide_other_failures():
    inputs = with_change("rewards[0].cloud_run.uri", UNKNOWN)
    inputs["location"] = "global"
    assert failure_paths(inputs) == ["location"]


def test_unknown_validation_dataset_does_not_warn():
    assert check_inputs(with_change("validation_dataset_uri", UNKNOWN)).warnings == []


# ---------------------------------------------------------------------------------------------
# normalisation


def test_floats_become_ints_and_ints_floats():
    inputs = base_inputs()
    hp = inputs["hyper_parameters"]
    hp.update(batch_size=32.0, samples_per_prompt=16.0, epoch_count=6.0, learning_rate_multiplier=1)
    inputs["training_example_count"] = 843.0
    inputs["rewards"][1]["autorater"]["sampling_count"] = 4.0
    inputs["rewards"][0]["weight"] = 1
    n = normalize(inputs)
    assert n["hyper_parameters"]["batch_size"] == 32 and type(n["hyper_parameters"]["batch_size"]) is int
    assert type(n["hyper_parameters"]["epoch_count"]) is int
    assert type(n["training_example_count"]) is int
    assert type(n["rewards"][1]["autorater"]["sampling_count"]) is int
    assert type(n["hyper_parameters"]["learning_rate_multiplier"]) is float
    assert type(n["rewards"][0]["weight"]) is float
    assert check_inputs(inputs).failures == []
    body = bodies.build_tuning_job(inputs)
    assert body["reinforcementTuningSpec"]["hyperParameters"]["epochCount"] == "6"
    assert body["reinforcementTuningSpec"]["hyperParameters"]["batchSize"] == 32
    validate("TuningJob", body)


def test_none_means_not_set():
    inputs = base_inputs()
    inputs["hyper_parameters"]["step_count"] = None  # not "both epoch_count and step_count"
    inputs.update(description=None, pre_tuned_model=None, labels=None, location=None)
    assert check_inputs(inputs).failures == []
    assert normalize(inputs)["location"] == "us-central1"
    assert bodies.build_tuning_job(inputs) == bodies.build_tuning_job(base_inputs())


def test_normalize_applies_defaults_and_does_not_mutate():
    inputs = base_inputs()
    inputs.pop("location")
    before = copy.deepcopy(inputs)
    n = normalize(inputs)
    assert (n["location"], n["wait"], n["cleanup"]) == ("us-central1", "none", "all")
    assert inputs == before
    assert normalize(n) == n


def test_float_and_int_give_the_same_spec_hash():
    a = base_inputs()
    b = base_inputs()
    b["hyper_parameters"].update(batch_size=32.0, learning_rate_multiplier=1)
    assert bodies.build_tuning_job(a)["labels"] == bodies.build_tuning_job(b)["labels"]


# ---------------------------------------------------------------------------------------------
# diff


def test_diff_no_change_on_float_vs_int_and_outputs_ignored():
    olds = normalize(base_inputs())
    olds.update(
        name="projects/p/locations/us-central1/tuningJobs/1", state="JOB_STATE_RUNNING", __provider="x"
    )
    olds["checkpoints"] = [{"checkpoint_id": "1"}]
    news = base_inputs()
    news["hyper_parameters"]["batch_size"] = 32.0
    news.pop("location")  # default equals the old explicit value
    assert diff.diff_decision(olds, news) == ([], [])


IN_PLACE_CHANGES = {
    "wait": "succeeded",
    "wait_timeout_seconds": 600,
    "cleanup": "cancel",
    "max_cost_usd": 100.0,
    "labels": {"team": "poetry"},
    "validation_example.sample_response.parts": [{"text": "another poem"}],
}


@pytest.mark.parametrize("path", sorted(IN_PLACE_CHANGES))
def test_diff_inputs_that_do_not_shape_the_job_update_in_place(path: str):
    key = path.split(".")[0]
    changed, replace = diff.diff_decision(base_inputs(), with_change(path, IN_PLACE_CHANGES[path]))
    assert changed == [key] and replace == []


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ("hyper_parameters.epoch_count", 5, "hyper_parameters"),
        ("rewards[0].cloud_run.uri", "https://other.run.app", "rewards"),
        ("base_model", "gemini-2.5-flash", "base_model"),
        ("description", "new", "description"),
        ("hyper_parameters.learning_rate_multiplier", 2, "hyper_parameters"),
        ("training_dataset_uri", "gs://other/train.jsonl", "training_dataset_uri"),
    ],
)
def test_diff_job_shaping_keys_replace(path: str, value: Any, key: str):
    changed, replace = diff.diff_decision(base_inputs(), with_change(path, value))
    assert changed == [key] and replace == [key]


def test_diff_unknown_new_value_counts_as_change():
    changed, replace = diff.diff_decision(base_inputs(), with_change("rewards[0].cloud_run.uri", UNKNOWN))
    assert changed == ["rewards"] and replace == ["rewards"]
    changed, replace = diff.diff_decision(base_inputs(), with_change("training_dataset_uri", UNKNOWN))
    assert replace == ["training_dataset_uri"]


def test_diff_mixed_changes():
    news = with_change("cleanup", "cancel")
    news["location"] = "europe-west4"
    assert diff.diff_decision(base_inputs(), news) == (["cleanup", "location"], ["location"])


# ---------------------------------------------------------------------------------------------
# bodies, each validated against the discovery document


def test_expand_model():
    full = "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro"
    assert bodies.expand_model("gemini-2.5-pro", "p", "us-central1") == full
    assert bodies.expand_model("publishers/google/models/gemini-2.5-pro", "p", "us-central1") == full
    assert bodies.expand_model(full, "q", "europe-west4") == full
    endpoint = "projects/p/locations/us-central1/endpoints/7"
    assert bodies.expand_model(endpoint, "p", "us-central1") == endpoint


def test_tuning_job_body_for_the_seed_run():
    body = bodies.build_tuning_job(base_inputs())
    validate("TuningJob", body)
    assert body["baseModel"] == "gemini-3.5-flash"
    rt = body["reinforcementTuningSpec"]
    assert rt["trainingDatasetUri"] == "gs://bucket/rlft/v1/train.jsonl"
    assert rt["hyperParameters"] == {
        "batchSize": 32,
        "samplesPerPrompt": 16,
        "epochCount": "6",
        "learningRateMultiplier": 1.0,
        "adapterSize": "ADAPTER_SIZE_SIXTEEN",
        "maxOutputTokens": 32768,
        "thinkingLevel": "HIGH",
        "evaluateInterval": 13,
        "checkpointInterval": 26,
    }
    weighted = rt["compositeRewardConfig"]["weightedRewardConfigs"]
    assert "singleRewardConfig" not in rt
    assert [w["weight"] for w in weighted] == [0.7, 0.3]
    assert weighted[0]["rewardConfig"] == {
        "rewardName": "structure",
        "cloudRunRewardScorer": {"cloudRunUri": "https://scorer-abc-uc.a.run.app"},
    }
    judge = weighted[1]["rewardConfig"]["autoraterScorer"]
    assert judge["autoraterConfig"] == {
        "autoraterModel": "projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-pro",
        "samplingCount": 4,
    }
    assert judge["parsedResponseConversionScorer"] == {}
    assert body["labels"] == {"tunifolk-spec": bodies.spec_hash(body)}
    assert "preTunedModel" not in body


def test_spec_hash_is_stable_and_ignores_labels():
    body = bodies.build_tuning_job(base_inputs())
    h = body["labels"]["tunifolk-spec"]
    assert len(h) == 16 and int(h, 16) >= 0
    other = bodies.build_tuning_job(with_change("labels", {"team": "poetry"}))
    assert other["labels"] == {"team": "poetry", "tunifolk-spec": h}
    changed = bodies.build_tuning_job(with_change("hyper_parameters.epoch_count", 5))
    assert changed["labels"]["tunifolk-spec"] != h
    assert bodies.spec_hash({"b": 1, "a": [1, 2]}) == bodies.spec_hash(
        {"a": [1, 2], "b": 1, "labels": {"x": "y"}}
    )


def test_optional_job_fields_and_step_count():
    inputs = with_change("hyper_parameters.epoch_count", None)
    inputs["hyper_parameters"]["step_count"] = 120.0
    inputs.update(tuned_model_display_name="malzuma-v1", description="RLFT run", service_account="sa@p.iam")
    body = bodies.build_tuning_job(inputs)
    validate("TuningJob", body)
    assert body["reinforcementTuningSpec"]["hyperParameters"]["stepCount"] == "120"
    assert "epochCount" not in body["reinforcementTuningSpec"]["hyperParameters"]
    assert (body["tunedModelDisplayName"], body["description"], body["serviceAccount"]) == (
        "malzuma-v1",
        "RLFT run",
        "sa@p.iam",
    )


def test_tuning_job_with_pre_tuned_model_is_a_sibling_without_base_model():
    inputs = with_change("base_model", None)
    inputs["pre_tuned_model"] = {
        "tuned_model_name": "projects/p/locations/us-central1/models/42",
        "checkpoint_id": 3.0,
    }
    assert failure_paths(inputs) == []
    body = bodies.build_tuning_job(inputs)
    validate("TuningJob", body)
    assert "baseModel" not in body
    assert body["preTunedModel"] == {
        "tunedModelName": "projects/p/locations/us-central1/models/42",
        "checkpointId": "3",
    }
    assert "preTunedModel" not in body["reinforcementTuningSpec"]


SCORERS = {
    "cloud_run": {"cloud_run": {"uri": "https://s.run.app"}},
    "autorater_conversion": {
        "autorater": {
            "model": "publishers/google/models/gemini-2.5-flash",
            "prompt": PROMPT,
            "scorer": "conversion",
            "parse": {"type": "regex_extract", "regex": "<answer>(.*?)</answer>"},
        }
    },
    "autorater_exact": {
        "autorater": {
            "model": "gemini-2.5-pro",
            "prompt": PROMPT,
            "sampling_count": 8,
            "scorer": {"exact_match": {"expression": "Yes", "correct_reward": 1, "wrong_reward": -1}},
        }
    },
    "string_match": {"string_match": {"expression": "{{references.form}}", "match": "partial_match"}},
    "string_match_json": {
        "string_match": {
            "expression": ".*malzuma.*",
            "match": "regex_contains",
            "json_key": "form",
            "correct_reward": 1.0,
            "wrong_reward": 0,
        }
    },
    "code_execution": {"code_execution": {"python": "def evaluate(example, response):\n    return 0.5\n"}},
}


@pytest.mark.parametrize("kind", list(SCORERS))
def test_single_reward_bodies_for_each_scorer(kind: str):
    inputs = base_inputs()
    inputs["rewards"] = [{"name": "only", "parse": {"type": "identity"}, **copy.deepcopy(SCORERS[kind])}]
    assert failure_paths(inputs) == []
    body = bodies.build_tuning_job(inputs)
    validate("TuningJob", body)
    request = bodies.build_validate_request(inputs)
    validate("ValidateReinforcementTuningRewardRequest", request)
    single = body["reinforcementTuningSpec"]["singleRewardConfig"]
    assert "compositeRewardConfig" not in body["reinforcementTuningSpec"]
    assert request["singleRewardConfig"] == single
    assert single["rewardName"] == "only" and single["parseResponseConfig"] == {"parseType": "IDENTITY"}
    scorer_keys = {
        "cloudRunRewardScorer",
        "autoraterScorer",
        "stringMatchRewardScorer",
        "codeExecutionRewardScorer",
    }
    assert len(scorer_keys & single.keys()) == 1


def test_scorer_body_details():
    inputs = base_inputs()
    inputs["rewards"] = [
        {"name": f"r{i}", "weight": 1, **copy.deepcopy(s)} for i, s in enumerate(SCORERS.values())
    ]
    configs = [
        w["rewardConfig"]
        for w in bodies.reward_config(inputs)["compositeRewardConfig"]["weightedRewardConfigs"]
    ]
    validate(
        "ValidateReinforcementTuningRewardRequest",
        {"compositeRewardConfig": bodies.reward_config(inputs)["compositeRewardConfig"]},
    )
    conversion, exact = configs[1]["autoraterScorer"], configs[2]["autoraterScorer"]
    assert conversion["autoraterConfig"]["autoraterModel"] == (
        "projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash"
    )
    assert conversion["autoraterResponseParseConfig"] == {
        "parseType": "REGEX_EXTRACT",
        "regexExtractExpression": "<answer>(.*?)</answer>",
    }
    assert conversion["parsedResponseConversionScorer"] == {}
    assert exact["exactMatchScorer"] == {
        "expression": "Yes",
        "correctAnswerReward": 1.0,
        "wrongAnswerReward": -1.0,
    }
    assert "parsedResponseConversionScorer" not in exact
    assert configs[3]["stringMatchRewardScorer"] == {
        "stringMatchExpression": {"matchOperation": "PARTIAL_MATCH", "expression": "{{references.form}}"},
        "correctAnswerReward": 1.0,
        "wrongAnswerReward": -1.0,
    }
    assert configs[4]["stringMatchRewardScorer"]["jsonMatchExpression"] == {
        "keyName": "form",
        "valueStringMatchExpression": {"matchOperation": "REGEX_CONTAINS", "expression": ".*malzuma.*"},
    }
    assert configs[5]["codeExecutionRewardScorer"]["pythonCodeSnippet"].startswith("def evaluate")


def test_validate_request_composite_matches_the_job():
    inputs = base_inputs()
    request = bodies.build_validate_request(inputs)
    validate("ValidateReinforcementTuningRewardRequest", request)
    assert set(request) == {"example", "sampleResponse", "compositeRewardConfig"}
    assert request["example"] == inputs["validation_example"]["example"]
    assert request["sampleResponse"] == inputs["validation_example"]["sample_response"]
    job = bodies.build_tuning_job(inputs)
    assert request["compositeRewardConfig"] == job["reinforcementTuningSpec"]["compositeRewardConfig"]


def test_discovery_validation_would_catch_a_wrong_body():
    """Guards the guard: the schema check rejects the shapes we must never send."""
    body = bodies.build_tuning_job(base_inputs())
    body["reinforcementTuningSpec"]["hyperParameters"]["epochCount"] = 6
    with pytest.raises(ShapeError):
        validate("TuningJob", body)
    with pytest.raises(ShapeError):
        validate("ValidateReinforcementTuningRewardRequest", {"reinforcementTuningExample": {}})


def test_console_url():
    url = vertex.console_url("projects/my-project/locations/us-central1/tuningJobs/5782572726988308480")
    assert url.startswith("https://console.cloud.google.com/vertex-ai/")
    assert "us-central1" in url and "5782572726988308480" in url and url.endswith("?project=my-project")


def test_total_steps():
    hp = {"batch_size": 32, "epoch_count": 6}
    assert estimate.total_steps(hp, 843) == 156
    assert estimate.total_steps({"step_count": 120}, None) == 120
    assert estimate.total_steps(hp, None) is None
    assert estimate.total_steps({"epoch_count": 6}, 843) == 156  # batch size defaults to 32


# ---------------------------------------------------------------------------------------------
# validation_problems

NAMES = ["structure", "poetic_quality"]


def good_response() -> dict[str, Any]:
    return {
        "overallReward": 0.59,
        "rewardInfoDetails": {
            "structure": {"reward": 0.7, "userRequestedAuxInfo": '{"rhyme": 1}'},
            "poetic_quality": {"reward": 0.3},
        },
    }


def test_good_response_has_no_problem():
    assert verdict.validation_problems(good_response(), NAMES) == []


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", 1.5, -1.01, "abc", None, True])
def test_non_finite_or_out_of_range_reward(bad: Any):
    response = good_response()
    response["rewardInfoDetails"]["poetic_quality"]["reward"] = bad
    problems = verdict.validation_problems(response, NAMES)
    assert [p.reward for p in problems] == ["poetic_quality"]


@pytest.mark.parametrize("edge", [1, -1, "0.5", 1.0, -1.0])
def test_edge_rewards_pass(edge: Any):
    response = good_response()
    response["rewardInfoDetails"]["structure"]["reward"] = edge
    assert verdict.validation_problems(response, NAMES) == []


def test_missing_reward_name():
    response = good_response()
    del response["rewardInfoDetails"]["poetic_quality"]
    problems = verdict.validation_problems(response, NAMES)
    assert [p.reward for p in problems] == ["poetic_quality"] and "missing" in problems[0].message


def test_entry_without_reward_is_zero_and_passes():
    response = good_response()
    response["rewardInfoDetails"]["structure"] = {"userRequestedAuxInfo": "{}"}
    assert verdict.validation_problems(response, NAMES) == []


def test_top_level_error_status():
    response = good_response()
    response["errorStatus"] = {"code": 7, "message": "Permission denied on the Cloud Run service"}
    problems = verdict.validation_problems(response, NAMES)
    assert len(problems) == 1 and problems[0].reward is None
    assert "Permission denied" in problems[0].message
    assert problems[0].code == 7 and problems[0].is_permission_error


@pytest.mark.parametrize(
    ("status", "retried"),
    [
        # the reward service answered 403 (Cloud Run, a grant not applied yet): Vertex's code 7
        ({"code": 7, "message": "Error for reward [structure]: HTTP 403"}, True),
        # a 401 (a token no grant fixes) is UNAUTHENTICATED
        ({"code": 16, "message": "Error for reward [structure]: permission? HTTP 401"}, False),
        # the reward's own words mention permission: a code reward's PermissionError, a reason text
        (
            {"code": 3, "message": "Code execution failed: PermissionError: [Errno 13] Permission denied"},
            False,
        ),
        ({"code": 13, "message": "the scorer says: no permission to rhyme on ر"}, False),
        ({"message": "Permission denied (no code)"}, False),
    ],
)
def test_a_permission_error_is_decided_by_googles_code_not_the_words(status: dict, retried: bool):
    response = good_response()
    response["rewardInfoDetails"]["structure"] = {"reward": "NaN", "errorStatus": status}
    problems = verdict.validation_problems(response, NAMES)
    assert problems and problems[0].reward == "structure"
    assert any(p.is_permission_error for p in problems) is retried
    legacy = {**good_response(), "error": "Permission denied on the Cloud Run service"}
    assert not any(p.is_permission_error for p in verdict.validation_problems(legacy, NAMES))


def test_reward_names():
    assert bodies.reward_names(base_inputs()) == NAMES


def test_deprecated_error_string():
    response = good_response()
    response["error"] = "something broke"
    assert [p.message for p in verdict.validation_problems(response, NAMES)] == ["something broke"]


def test_empty_error_status_is_ok():
    response = good_response()
    response["errorStatus"] = {}
    assert verdict.validation_problems(response, NAMES) == []


def test_entry_error_status_carries_message_and_aux_info():
    response = good_response()
    response["rewardInfoDetails"]["poetic_quality"] = {
        "reward": "NaN",
        "userRequestedAuxInfo": "judge said nothing",
        "errorStatus": {"code": 3, "message": "Error for reward [poetic_quality]: Missing autorater model"},
    }
    problems = verdict.validation_problems(response, NAMES)
    assert {p.reward for p in problems} == {"poetic_quality"}
    assert any("Missing autorater model" in p.message for p in problems)
    assert all(p.aux_info == "judge said nothing" for p in problems)
    assert not any(p.is_permission_error for p in problems)
    assert "judge said nothing" in str(problems[0])


def test_single_config_overall_reward_stands_in():
    assert verdict.validation_problems({"overallReward": 0.4}, ["structure"]) == []
    assert [p.reward for p in verdict.validation_problems({"overallReward": "NaN"}, ["structure"])] == [
        "structure"
    ]
    # exactly 0.0 for a single reward: ProtoJSON omits both overallReward and rewardInfoDetails
    assert verdict.validation_problems({}, ["structure"]) == []
    failed = {"errorStatus": {"code": 13, "message": "boom"}}
    assert [p.reward for p in verdict.validation_problems(failed, ["structure"])] == [None]
    # composite: overallReward never stands in for a missing map
    assert len(verdict.validation_problems({"overallReward": 0.4}, NAMES)) == 2


def test_reward_named_error_rate_is_no_false_positive():
    response = {
        "overallReward": 0.2,
        "rewardInfoDetails": {
            "error_rate": {"reward": 0.2, "userRequestedAuxInfo": "error: none; errorStatus: ok"}
        },
    }
    assert verdict.validation_problems(response, ["error_rate"]) == []


# ---------------------------------------------------------------------------------------------
# robustness: check never raises, and whatever it passes builds valid bodies


def _paths(value: Any, prefix: str = "") -> list[str]:
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            out += [path, *_paths(item, path)]
    elif isinstance(value, list):
        for i, item in enumerate(value):
            path = f"{prefix}[{i}]"
            out += [path, *_paths(item, path)]
    return out


WEIRD = [None, "DELETE", 1.5, 0, -1, "x", "", [], {}, True, "NaN", UNKNOWN, [{"a": 1}], {"a": None}]


@pytest.mark.parametrize("path", _paths(base_inputs()))
def test_check_never_raises_and_passing_inputs_build_valid_bodies(path: str):
    for weird in WEIRD:
        inputs = with_change(path, None) if weird == "DELETE" else with_change(path, weird)
        if weird is None:  # an explicit None, as a provider may receive it
            inputs = base_inputs()
            _set_none(inputs, path)
        report = check_inputs(inputs)  # must not raise
        if report.failures or wire.contains_unknown(report.inputs):
            continue
        validate("TuningJob", bodies.build_tuning_job(inputs))
        validate("ValidateReinforcementTuningRewardRequest", bodies.build_validate_request(inputs))
