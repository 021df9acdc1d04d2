"""The emulator's service limits are the job model's: the same numbers, and enforced at the same
boundaries.

The client checks a job against `tunifolk/job/limits.py` before it sends it; the emulator stands
in for the service that enforces them. If the two drifted, a job the client passes could be
refused by the emulator (or a bad one accepted), and the tests built on the emulator would no
longer say anything about Vertex. So each shared limit must be the job model's own object, and
the emulator's create-time rules (`tunifolk.emulator.checks.tuning_job`, the code its route runs)
must accept the limit itself and refuse the first value past it.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tunifolk import vertex
from tunifolk.emulator import checks
from tunifolk.emulator import limits as emulator_limits
from tunifolk.job import limits as job_limits

SHARED = [
    "BATCH_SAMPLES_MULTIPLE",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_SAMPLES_PER_PROMPT",
    "DEFAULT_SAMPLING_COUNT",
    "LEARNING_RATE_RANGE",
    "MAX_BATCH_SAMPLES",
    "MAX_LABEL_LENGTH",
    "MAX_OUTPUT_TOKENS",
    "MAX_TOTAL_STEPS",
    "MAX_TRAINING_EXAMPLES",
    "MAX_VALIDATION_EXAMPLES",
    "SAMPLING_COUNT_RANGE",
    "TERMINAL_STATES",
    "TUNING_LOCATIONS",
]


@pytest.mark.parametrize("name", SHARED)
def test_shared_limits_are_the_job_models(name: str) -> None:
    assert getattr(emulator_limits, name) is getattr(job_limits, name), (
        f"tunifolk/emulator/limits.py must import {name} from tunifolk/job/limits.py, not restate it"
    )


def test_emulator_only_limits_match_the_vertex_client() -> None:
    assert emulator_limits.MAX_BATCH_READ == vertex.BATCH_READ_LIMIT
    assert emulator_limits.PAGE_SIZE[1] == vertex.LIST_PAGE_SIZE


def body(hp: dict[str, Any] | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A tuning job the emulator accepts, with these hyperparameters and labels."""
    return {
        "baseModel": "gemini-2.5-flash",
        "labels": labels or {"team": "poets"},
        "reinforcementTuningSpec": {
            "trainingDatasetUri": "gs://bucket/train.jsonl",
            "hyperParameters": dict(hp or {}),
            "singleRewardConfig": {
                "rewardName": "structure",
                "cloudRunRewardScorer": {"cloudRunUri": "https://scorer.example/score"},
            },
        },
    }


def accepts(job: dict[str, Any], location: str = "us-central1") -> bool:
    try:
        checks.tuning_job(copy.deepcopy(job), location, v1=False)
    except checks.BodyError:
        return False
    return True


LOW, HIGH = job_limits.LEARNING_RATE_RANGE
MULTIPLE, MAX_PRODUCT = job_limits.BATCH_SAMPLES_MULTIPLE, job_limits.MAX_BATCH_SAMPLES
MAX_TOKENS = job_limits.MAX_OUTPUT_TOKENS
LABEL = job_limits.MAX_LABEL_LENGTH


@pytest.mark.parametrize(
    ("hp", "ok"),
    [
        ({"learningRateMultiplier": LOW}, True),
        ({"learningRateMultiplier": HIGH}, True),
        ({"learningRateMultiplier": LOW - 0.01}, False),
        ({"learningRateMultiplier": HIGH + 0.01}, False),
        ({"batchSize": MAX_PRODUCT // MULTIPLE, "samplesPerPrompt": MULTIPLE}, True),
        ({"batchSize": MAX_PRODUCT // MULTIPLE + 1, "samplesPerPrompt": MULTIPLE}, False),
        ({"batchSize": 1, "samplesPerPrompt": MULTIPLE + 1}, False),
        # the defaults are the job model's: a batch size alone is checked against its default samples
        ({"batchSize": MAX_PRODUCT // job_limits.DEFAULT_SAMPLES_PER_PROMPT}, True),
        ({"batchSize": MAX_PRODUCT // job_limits.DEFAULT_SAMPLES_PER_PROMPT + 1}, False),
        ({"samplesPerPrompt": MAX_PRODUCT // job_limits.DEFAULT_BATCH_SIZE}, True),
        ({"samplesPerPrompt": MAX_PRODUCT // job_limits.DEFAULT_BATCH_SIZE + 1}, False),
        ({"maxOutputTokens": MAX_TOKENS}, True),
        ({"maxOutputTokens": MAX_TOKENS + 1}, False),
    ],
    ids=repr,
)
def test_hyperparameter_limits_are_enforced_at_the_job_models_boundary(hp: dict[str, Any], ok: bool) -> None:
    assert accepts(body(hp)) is ok


def test_label_length_is_enforced_at_the_job_models_boundary() -> None:
    assert accepts(body(labels={"k" * LABEL: "v" * LABEL}))
    assert not accepts(body(labels={"k" * (LABEL + 1): "v"}))
    assert not accepts(body(labels={"k": "v" * (LABEL + 1)}))


def test_only_the_job_models_tuning_locations_tune() -> None:
    for location in job_limits.TUNING_LOCATIONS:
        assert accepts(body(), location)
    for location in ("global", "us-east1", "europe-west1"):
        assert not accepts(body(), location)
