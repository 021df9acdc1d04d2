"""The field table is the one definition: everything that names an input agrees with it.

These tests would fail if a key were added in one place and not derived in another: config
parsing, the API paths the bodies write, the resource's args and outputs, the diff roles, the
docs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from discovery import schemas
from jobs import inputs
from providers.tuning_job import RlftTuningJobArgs, RlftTuningJobProvider
from tunifolk import stack
from tunifolk.job import bodies, checks, diff, docs, field_names, fields, shapes
from tunifolk.job.fields import INPUTS, Kind, Role

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "GoogleCloudAiplatformV1beta1"


def _discovery_fields(message: str, path: str) -> dict[str, Any]:
    """The discovery document's property at a dotted path under a message."""
    schema = schemas()[PREFIX + message]
    prop: dict[str, Any] = {}
    for key in path.split("."):
        prop = schema["properties"][key]
        if "$ref" in prop:
            schema = schemas()[prop["$ref"]]
    return prop


@pytest.mark.parametrize("field", [f for f in INPUTS if f.api], ids=lambda f: f.name)
def test_every_api_path_of_the_table_exists_in_the_tuning_job_schema(field: fields.Field) -> None:
    assert _discovery_fields("TuningJob", field.api or "")
    for child in field.children:
        if child.api:
            assert _discovery_fields("TuningJob", f"{field.api}.{child.api}"), child.name


def test_the_resource_args_are_the_table_inputs() -> None:
    assert tuple(RlftTuningJobArgs.__annotations__) == fields.INPUT_NAMES


def test_the_provider_outputs_are_the_table_outputs() -> None:
    job = {
        "name": "projects/p/locations/us-central1/tuningJobs/1",
        "state": "JOB_STATE_SUCCEEDED",
        "tunedModel": {
            "model": "projects/p/locations/us-central1/models/2",
            "endpoint": "projects/p/locations/us/endpoints/3",
        },
    }
    outs = RlftTuningJobProvider()._outputs(inputs("https://s.run.app"), job, None, None)
    assert set(outs) - set(fields.INPUT_NAMES) == set(fields.OUTPUT_NAMES)


def test_only_fields_that_shape_the_job_replace_it() -> None:
    base = checks.check_inputs(inputs("https://s.run.app")).inputs
    for f in INPUTS:
        if f.name not in base or f.kind in (Kind.OBJECT, Kind.LIST, Kind.MESSAGE, Kind.LABELS):
            continue
        changed = {**base, f.name: _another(f, base[f.name])}
        _, replaces = diff.diff_decision(base, changed)
        assert (replaces == [f.name]) == (f.role is Role.SHAPES), f.name


def _another(f: fields.Field, value: Any) -> Any:
    if f.kind is Kind.ENUM:
        return next(c for c in f.choices if c != value)
    if f.kind in (Kind.INT, Kind.INT64):
        return value + 1
    if f.kind is Kind.FLOAT:
        return value + 0.5
    return f"{value}-changed"


def test_config_accepts_exactly_the_table_keys() -> None:
    with pytest.raises(stack.ConfigError) as info:
        stack.parse({"tunifolk:nope": 1})
    listed = set(re.findall(r"\w+", str(info.value).split("use one of", 1)[1]))
    expected = {k.split(":", 1)[1] for k in fields.config_keys() if k.startswith("tunifolk:")}
    assert listed == expected


def test_every_nested_config_key_maps_to_its_input() -> None:
    """The drift this table ended: the autorater's parse could not be set from config."""
    raw = {
        "gcp:project": "p",
        "tunifolk:baseModel": "gemini-3.5-flash",
        "tunifolk:dataset": {"train": "data/train.jsonl"},
        "tunifolk:hyperParameters": {"epochCount": 2, "learningRateMultiplier": 1, "thinkingLevel": "LOW"},
        "tunifolk:rewards": [
            {
                "name": "judge",
                "autorater": {
                    "model": "gemini-2.5-pro",
                    "prompt": "rate {{response}}",
                    "samplingCount": "4",
                    "parse": {"type": "regex_extract", "regex": "<a>(.*)</a>"},
                    "scorer": {"exactMatch": {"expression": "yes", "correctReward": 1, "wrongReward": -1}},
                },
            },
            {"name": "shape", "stringMatch": {"expression": "x", "match": "exact_match", "jsonKey": "k"}},
            {"name": "code", "codeExecution": "def evaluate(example, response):\n    return 1.0\n"},
        ],
        "tunifolk:tunedModelDisplayName": "folk",
        "tunifolk:labels": {"team": "poetry"},
    }
    job = stack.parse(raw).job
    judge = job["rewards"][0]["autorater"]
    assert judge["parse"] == {"type": "regex_extract", "regex": "<a>(.*)</a>"}
    assert judge["sampling_count"] == 4
    assert judge["scorer"] == {
        "exact_match": {"expression": "yes", "correct_reward": 1.0, "wrong_reward": -1.0}
    }
    assert job["rewards"][1]["string_match"]["json_key"] == "k"
    assert job["rewards"][2]["code_execution"]["python"].startswith("def evaluate")
    assert job["hyper_parameters"] == {
        "epoch_count": 2,
        "learning_rate_multiplier": 1.0,
        "thinking_level": "LOW",
    }
    assert job["tuned_model_display_name"] == "folk"


def test_the_config_reference_is_generated_from_the_table() -> None:
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    assert docs.GENERATED_START in text, "docs/config.md lost its generated block"
    assert text == docs.with_reference(text), "docs/config.md is stale: run `make docs`"
    for key in fields.config_keys():
        assert f"`{key}`" in text, key


@pytest.mark.parametrize("message", sorted(shapes.MESSAGES))
def test_every_shape_accepts_every_field_google_lists(message: str) -> None:
    """A valid message never fails our check: each field the discovery document lists is known."""
    ours = shapes.MESSAGES[message]
    google = schemas()[PREFIX + message]["properties"]
    missing = sorted(set(google) - set(ours) - _OUTPUT_ONLY.get(message, set()))
    assert missing == [], f"{message} lacks {missing}"
    for key, spec in ours.items():
        assert key in google, f"{message}.{key} is not Google's"
        kind = google[key].get("type")
        if spec == shapes.STR:
            assert kind == "string", key
        elif spec in (shapes.INT, shapes.INT64):
            assert (kind, google[key].get("format")) in (("integer", "int32"), ("string", "int64")), key


_OUTPUT_ONLY = {"TuningJob": set(schemas()[PREFIX + "TuningJob"]["properties"])}


def test_bodies_take_their_names_from_the_table() -> None:
    body = bodies.build_tuning_job(inputs("https://s.run.app"))
    hp_names = {f.api for f in fields.HYPER_PARAMETERS}
    assert set(body["reinforcementTuningSpec"]["hyperParameters"]) <= hp_names


def test_every_row_is_named_by_one_constant_of_field_names() -> None:
    """Code names fields by these constants: a row named otherwise could not be looked up so, and a
    constant no row uses would name nothing."""
    groups = (field_names.Input, field_names.Hyper, field_names.PreTuned, field_names.Reward)
    groups += (
        field_names.Parse,
        field_names.Scorer,
        field_names.Example,
        field_names.Output,
        field_names.Generation,
    )
    constants = {v for g in (*groups, field_names.Stack) for k, v in vars(g).items() if k.isupper()}
    rows: set[str] = set()

    def walk(table: tuple[fields.Field, ...]) -> None:
        for f in table:
            rows.add(f.name)
            walk(f.children)

    walk((*fields.INPUTS, *fields.OUTPUTS, *fields.STACK_SETTINGS))
    assert rows == constants


def test_api_names_are_the_camel_case_of_the_name_unless_a_row_says_otherwise() -> None:
    hp = {f.name: f.api for f in fields.HYPER_PARAMETERS}
    assert hp[field_names.Hyper.EPOCH_COUNT] == "epochCount"
    assert {f.name: f.api for f in fields.MATCH_REWARDS} == {
        "correct_reward": "correctAnswerReward",
        "wrong_reward": "wrongAnswerReward",
    }
    provider_only = [f.name for f in INPUTS if f.role is Role.PROVIDER]
    assert provider_only and all(next(f for f in INPUTS if f.name == n).api is None for n in provider_only)
