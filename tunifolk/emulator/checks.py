"""Strict checks of incoming bodies and the create-time rules, so a client's mistakes fail here as
they would at Google.

The real service rejects an unknown field with `Invalid JSON payload received. Unknown name "x"
at 'tuning_job.reinforcement_tuning_spec': Cannot find field.`; the emulator answers the same way
(400, naming the key and where it sits). The shapes are Google's, described once in
`tunifolk/job/shapes.py` and held to the discovery document by the tests; the discovery document
itself is not read at runtime (it is a test dependency). Like Google's parser, the emulator takes
lowerCamelCase and the original snake_case names, and hands the routes camelCase only.

Beyond the shapes, `tuning_job` applies the rules the service enforces with a 400 when a job is
created (and `validate_request` those of reward validation), with the numbers of `limits`. Every
failure is a BodyError, which the routes answer as 400 INVALID_ARGUMENT.
"""

from __future__ import annotations

import re
from typing import Any

from tunifolk.job.limits import label_ok
from tunifolk.job.shapes import (
    GENERATE_REQUEST,
    OTHER_SPECS,
    TUNING_JOB,
    UNDEPLOY_REQUEST,
    VALIDATE_REQUEST,
    ShapeError,
    conform,
    snake,
)

from . import protojson
from .limits import (
    BATCH_SAMPLES_MULTIPLE,
    DEFAULT_BATCH_SIZE,
    DEFAULT_SAMPLES_PER_PROMPT,
    LEARNING_RATE_RANGE,
    MAX_BATCH_SAMPLES,
    MAX_OUTPUT_TOKENS,
    TUNING_LOCATIONS,
)

__all__ = [
    "GENERATE_REQUEST",
    "OTHER_SPECS",
    "TUNING_JOB",
    "UNDEPLOY_REQUEST",
    "VALIDATE_REQUEST",
    "BodyError",
    "check",
    "check_labels",
    "check_location",
    "job_rules",
    "reward_configs",
    "snake",
    "tuning_job",
    "validate_request",
]


class BodyError(ValueError):
    """A request body the real service would refuse with 400 INVALID_ARGUMENT."""


def check(schema: Any, value: Any, where: str) -> Any:
    """`value` with camelCase field names; BodyError, worded as Google words it, on a misfit."""
    try:
        return conform(schema, value, where, proto_names=True)
    except ShapeError as e:
        if e.kind == "unknown":
            raise BodyError(
                f"Invalid JSON payload received. Unknown name \"{e.key}\" at '{e.where}': Cannot find field."
            ) from None
        if e.kind == "enum":
            raise BodyError(
                f"Invalid value at '{e.where}' (TYPE_ENUM {e.where.rsplit('.', 1)[-1]}), \"{e.got}\""
            ) from None
        raise BodyError(f"Invalid value at '{e.where}' ({e.expected}), {_short(e.got)}") from None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def check_labels(labels: dict[str, str] | None) -> None:
    """Label keys and values as the discovery document allows them (`limits.label_ok`: lowercase letters
    of any script, digits, `_`, `-`, at most MAX_LABEL_LENGTH; keys start with a letter)."""
    for k, v in (labels or {}).items():
        if not label_ok(str(k), key=True):
            raise BodyError(f"Label key {k!r} is invalid: lowercase letters, digits, '_' and '-' only.")
        if not label_ok(str(v), key=False):
            raise BodyError(f"Label value {v!r} for key {k!r} is invalid.")


def reward_configs(container: dict[str, Any], where: str) -> list[tuple[dict[str, Any], float]]:
    """The (single reward config, weight) pairs of a body holding exactly one reward config."""
    single = container.get("singleRewardConfig")
    composite = container.get("compositeRewardConfig")
    if single is not None and composite is not None:
        raise BodyError(
            f"Only one of single_reward_config or composite_reward_config may be set in '{where}'."
        )
    if single is None and composite is None:
        raise BodyError(f"One of single_reward_config or composite_reward_config is required in '{where}'.")
    if single is not None:
        pairs = [(single, 1.0)]
    else:
        wrc = composite.get("weightedRewardConfigs") or []
        if not wrc:
            raise BodyError(f"'{where}.composite_reward_config.weighted_reward_configs' must not be empty.")
        pairs = [(w.get("rewardConfig") or {}, float(w.get("weight", 0.0))) for w in wrc]
        if sum(w for _, w in pairs) <= 0:
            raise BodyError("The sum of reward weights must be positive.")
    names: set[str] = set()
    for cfg, _ in pairs:
        scorers = [
            k
            for k in (
                "cloudRunRewardScorer",
                "autoraterScorer",
                "codeExecutionRewardScorer",
                "stringMatchRewardScorer",
            )
            if k in cfg
        ]
        name = cfg.get("rewardName", "")
        if len(scorers) != 1:
            raise BodyError(f"Reward [{name}] must set exactly one reward scorer, got {len(scorers)}.")
        if composite is not None:
            if not name:
                raise BodyError("Every reward of a composite_reward_config needs a reward_name.")
            if name in names:
                raise BodyError(f"Duplicate reward_name [{name}].")
        names.add(name)
        parse = cfg.get("parseResponseConfig") or {}
        if parse.get("parseType") == "REGEX_EXTRACT":
            try:
                re.compile(parse.get("regexExtractExpression", ""))
            except re.error as e:
                raise BodyError(f"Reward [{name}]: invalid regex_extract_expression: {e}") from None
        if "cloudRunRewardScorer" in cfg and not cfg["cloudRunRewardScorer"].get("cloudRunUri"):
            raise BodyError(f"Reward [{name}]: cloud_run_uri is required.")
    return pairs


def check_location(location: str) -> None:
    """RLFT runs in a few regions only; anywhere else (`global` too) is a 400."""
    if location not in TUNING_LOCATIONS:
        raise BodyError(
            f"Reinforcement tuning is not available for your project or region: {location}. "
            f"Supported regions: {', '.join(TUNING_LOCATIONS)}."
        )


def tuning_job(
    body: dict[str, Any], location: str, v1: bool
) -> tuple[dict[str, Any], list[tuple[dict[str, Any], float]]]:
    """A tuningJobs.create body in camelCase and its (reward config, weight) pairs, checked in the
    order the service checks them (so the first error a client sees is the service's)."""
    if v1 and "reinforcementTuningSpec" in body:
        raise BodyError(
            "Invalid JSON payload received. Unknown name \"reinforcementTuningSpec\" at 'tuning_job': "
            "Cannot find field."
        )
    check_location(location)
    body = check(TUNING_JOB, body, "tuning_job")
    other = sorted(k for k in body if k in OTHER_SPECS)
    if other:
        raise BodyError(f"The emulator serves reinforcement tuning only; got {other[0]}.")
    spec = body.get("reinforcementTuningSpec")
    if not isinstance(spec, dict):
        raise BodyError("reinforcement_tuning_spec is required.")
    check_labels(body.get("labels"))
    rewards = reward_configs(spec, "tuning_job.reinforcement_tuning_spec")
    job_rules(body, spec)
    return body, rewards


def job_rules(body: dict[str, Any], spec: dict[str, Any]) -> None:
    """The create-time rules the service enforces with a 400 (not the ones it silently ignores)."""
    base, pre = body.get("baseModel"), body.get("preTunedModel")
    if base and pre:
        raise BodyError("Only one of base_model or pre_tuned_model may be set.")
    if not base and not pre:
        raise BodyError("base_model is required.")
    if pre and not pre.get("tunedModelName"):
        raise BodyError("pre_tuned_model.tuned_model_name is required.")
    if not spec.get("trainingDatasetUri"):
        raise BodyError("reinforcement_tuning_spec.training_dataset_uri is required.")
    for key in ("trainingDatasetUri", "validationDatasetUri"):
        uri = spec.get(key)
        if uri and not uri.startswith("gs://"):
            raise BodyError(f"{snake(key)} must be a Cloud Storage URI starting with gs://, got {uri}.")
    hp = spec.get("hyperParameters") or {}
    if "epochCount" in hp and "stepCount" in hp:
        raise BodyError("epoch_count and step_count are mutually exclusive.")
    for key in ("epochCount", "stepCount", "batchSize", "samplesPerPrompt", "evaluateInterval"):
        if key in hp and (protojson.parse_int(hp[key]) or 0) <= 0:
            raise BodyError(f"hyper_parameters.{snake(key)} must be positive.")
    if "checkpointInterval" in hp and (protojson.parse_int(hp["checkpointInterval"]) or 0) <= 0:
        raise BodyError("hyper_parameters.checkpoint_interval must be positive.")
    low, high = LEARNING_RATE_RANGE
    lrm = protojson.parse_float(hp.get("learningRateMultiplier", 1.0))
    if lrm is None or not low <= lrm <= high:
        raise BodyError(f"hyper_parameters.learning_rate_multiplier must be in [{low:g}, {high:g}].")
    batch = protojson.parse_int(hp.get("batchSize", DEFAULT_BATCH_SIZE)) or DEFAULT_BATCH_SIZE
    spp = (
        protojson.parse_int(hp.get("samplesPerPrompt", DEFAULT_SAMPLES_PER_PROMPT))
        or DEFAULT_SAMPLES_PER_PROMPT
    )
    if (batch * spp) % BATCH_SAMPLES_MULTIPLE or batch * spp > MAX_BATCH_SAMPLES:
        raise BodyError(
            f"batch_size * samples_per_prompt ({batch * spp}) must be divisible by "
            f"{BATCH_SAMPLES_MULTIPLE} and at most {MAX_BATCH_SAMPLES}."
        )
    mot = hp.get("maxOutputTokens")
    if mot is not None and not 0 < (protojson.parse_int(mot) or 0) <= MAX_OUTPUT_TOKENS:
        raise BodyError(f"hyper_parameters.max_output_tokens must be in (0, {MAX_OUTPUT_TOKENS}].")
    if "thinkingBudget" in hp and not str(base or "").startswith("gemini-2.5"):
        raise BodyError(f"thinking_budget is not supported for {base}; use thinking_level.")


def validate_request(
    body: dict[str, Any], location: str
) -> tuple[dict[str, Any], list[tuple[dict[str, Any], float]]]:
    """A validateReinforcementTuningReward body in camelCase and its (reward config, weight) pairs."""
    check_location(location)
    where = "validate_reinforcement_tuning_reward_request"
    body = check(VALIDATE_REQUEST, body, where)
    if "example" not in body:
        raise BodyError("example is required.")
    if "sampleResponse" not in body:
        raise BodyError("sample_response is required.")
    return body, reward_configs(body, where)
