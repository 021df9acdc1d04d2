"""Strict, hand-written checks of incoming bodies, so our own client's mistakes fail loudly here.

The real service rejects an unknown field with `Invalid JSON payload received. Unknown name "x"
at 'tuning_job.reinforcement_tuning_spec': Cannot find field.`; the emulator answers the same way
(400, naming the key and where it sits). Only the shapes the emulator accepts are described here;
the discovery document is deliberately not read at runtime (it is a test dependency).
Field names must be lowerCamelCase: the real parser also takes proto names, but our client never
should send them, so the emulator treats them as unknown.
"""

from __future__ import annotations

import re
from typing import Any

STR, INT, INT64, FLOAT, BOOL, MAP_STR, ANY = "str", "int", "int64", "float", "bool", "map_str", "any"


class BodyError(ValueError):
    """A request body the real service would refuse with 400 INVALID_ARGUMENT."""


def enum(*values: str) -> frozenset[str]:
    return frozenset(values)


PART: dict[str, Any] = {
    "text": STR,
    "thought": BOOL,
    "thoughtSignature": STR,
    "inlineData": {"mimeType": STR, "data": STR, "displayName": STR},
    "fileData": {"mimeType": STR, "fileUri": STR, "displayName": STR},
    "functionCall": ANY,
    "functionResponse": ANY,
    "executableCode": ANY,
    "codeExecutionResult": ANY,
    "videoMetadata": ANY,
    "mediaResolution": ANY,
}
CONTENT: dict[str, Any] = {"role": STR, "parts": [PART]}
EXAMPLE: dict[str, Any] = {
    "contents": [CONTENT],
    "references": MAP_STR,
    "systemInstruction": CONTENT,
    "tools": [ANY],
}
PARSE: dict[str, Any] = {
    "parseType": enum("RESPONSE_PARSE_TYPE_UNSPECIFIED", "IDENTITY", "REGEX_EXTRACT"),
    "regexExtractExpression": STR,
}
MATCH_EXPRESSION: dict[str, Any] = {
    "matchOperation": enum("MATCH_OPERATION_UNSPECIFIED", "REGEX_CONTAINS", "PARTIAL_MATCH", "EXACT_MATCH"),
    "expression": STR,
}
AUTORATER: dict[str, Any] = {
    "autoraterConfig": {
        "autoraterModel": STR,
        "flipEnabled": BOOL,
        "generationConfig": ANY,
        "samplingCount": INT,
    },
    "autoraterPrompt": STR,
    "autoraterResponseParseConfig": PARSE,
    "parsedResponseConversionScorer": {},
    "exactMatchScorer": {"correctAnswerReward": FLOAT, "wrongAnswerReward": FLOAT, "expression": STR},
}
SINGLE_REWARD: dict[str, Any] = {
    "rewardName": STR,
    "parseResponseConfig": PARSE,
    "cloudRunRewardScorer": {"cloudRunUri": STR},
    "autoraterScorer": AUTORATER,
    "codeExecutionRewardScorer": {"pythonCodeSnippet": STR},
    "stringMatchRewardScorer": {
        "correctAnswerReward": FLOAT,
        "wrongAnswerReward": FLOAT,
        "stringMatchExpression": MATCH_EXPRESSION,
        "jsonMatchExpression": {"keyName": STR, "valueStringMatchExpression": MATCH_EXPRESSION},
    },
}
COMPOSITE_REWARD: dict[str, Any] = {
    "weightedRewardConfigs": [{"rewardConfig": SINGLE_REWARD, "weight": FLOAT}]
}
HYPER_PARAMETERS: dict[str, Any] = {
    "adapterSize": enum(
        "ADAPTER_SIZE_UNSPECIFIED",
        "ADAPTER_SIZE_ONE",
        "ADAPTER_SIZE_TWO",
        "ADAPTER_SIZE_FOUR",
        "ADAPTER_SIZE_EIGHT",
        "ADAPTER_SIZE_SIXTEEN",
        "ADAPTER_SIZE_THIRTY_TWO",
    ),
    "batchSize": INT,
    "checkpointInterval": INT,
    "epochCount": INT64,
    "evaluateInterval": INT,
    "learningRateMultiplier": FLOAT,
    "maxOutputTokens": INT,
    "samplesPerPrompt": INT,
    "stepCount": INT64,
    "thinkingBudget": INT,
    "thinkingLevel": enum(
        "REINFORCEMENT_TUNING_THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"
    ),
}
RT_SPEC: dict[str, Any] = {
    "trainingDatasetUri": STR,
    "validationDatasetUri": STR,
    "hyperParameters": HYPER_PARAMETERS,
    "singleRewardConfig": SINGLE_REWARD,
    "compositeRewardConfig": COMPOSITE_REWARD,
}
# Output-only TuningJob fields are accepted and ignored on create, as the real service does.
OUTPUT_ONLY = {
    "name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "experiment",
    "tunedModel", "tuningDataStats", "tuningJobMetadata", "tuningJobState", "pipelineJob",
    "gcsMetricsUri", "satisfiesPzs", "satisfiesPzi", "evaluateDatasetRuns",
}  # fmt: skip
OTHER_SPECS = {
    "supervisedTuningSpec", "distillationSpec", "partnerModelTuningSpec", "veoTuningSpec",
    "veoLoraTuningSpec", "preferenceOptimizationSpec", "fullFineTuningSpec",
}  # fmt: skip
TUNING_JOB: dict[str, Any] = {
    "baseModel": STR,
    "tunedModelDisplayName": STR,
    "description": STR,
    "labels": MAP_STR,
    "serviceAccount": STR,
    "reinforcementTuningSpec": RT_SPEC,
    "preTunedModel": {"tunedModelName": STR, "checkpointId": STR, "baseModel": STR},
    "encryptionSpec": {"kmsKeyName": STR},
    "customBaseModel": STR,
    "outputUri": STR,
    **{k: ANY for k in OUTPUT_ONLY | OTHER_SPECS},
}
VALIDATE_REQUEST: dict[str, Any] = {
    "example": EXAMPLE,
    "sampleResponse": CONTENT,
    "singleRewardConfig": SINGLE_REWARD,
    "compositeRewardConfig": COMPOSITE_REWARD,
}
GENERATE_REQUEST: dict[str, Any] = {
    "contents": [CONTENT],
    "systemInstruction": CONTENT,
    "generationConfig": ANY,
    "safetySettings": [ANY],
    "tools": [ANY],
    "toolConfig": ANY,
    "labels": MAP_STR,
    "cachedContent": STR,
}
UNDEPLOY_REQUEST: dict[str, Any] = {"deployedModelId": STR, "trafficSplit": ANY}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def check(schema: Any, value: Any, where: str) -> None:
    """Raise BodyError when `value` does not fit `schema`; `where` is the proto-style path."""
    if value is None or schema == ANY:
        return
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise BodyError(f"Invalid value at '{where}': expected an object, got {_kind(value)}.")
        for key, sub in value.items():
            if key not in schema:
                raise BodyError(
                    f"Invalid JSON payload received. Unknown name \"{key}\" at '{where}': Cannot find field."
                )
            check(schema[key], sub, f"{where}.{snake(key)}")
        return
    if isinstance(schema, list):
        if not isinstance(value, list):
            raise BodyError(f"Invalid value at '{where}': expected a list, got {_kind(value)}.")
        for i, item in enumerate(value):
            check(schema[0], item, f"{where}[{i}]")
        return
    if isinstance(schema, frozenset):
        if value not in schema:
            raise BodyError(f"Invalid value at '{where}' ({_enum_name(where)}), \"{value}\"")
        return
    ok = {
        STR: isinstance(value, str),
        BOOL: isinstance(value, bool),
        INT: (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, str) and value.lstrip("-").isdigit()),
        INT64: (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, str) and value.lstrip("-").isdigit()),
        FLOAT: (isinstance(value, (int, float)) and not isinstance(value, bool))
        or value in ("NaN", "Infinity", "-Infinity")
        or (isinstance(value, str) and _is_float(value)),
        MAP_STR: isinstance(value, dict) and all(isinstance(v, str) for v in value.values()),
    }[schema]
    if not ok:
        raise BodyError(f"Invalid value at '{where}' ({schema}), {_short(value)}")


def _is_float(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _kind(value: Any) -> str:
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _enum_name(where: str) -> str:
    return "TYPE_ENUM " + where.rsplit(".", 1)[-1]


LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")


def check_labels(labels: dict[str, str] | None) -> None:
    """Label keys and values: ≤ 63 chars of lowercase letters, digits, `_`, `-`; keys start with a letter."""
    for k, v in (labels or {}).items():
        if not LABEL_KEY.match(k):
            raise BodyError(f"Label key {k!r} is invalid: lowercase letters, digits, '_' and '-' only.")
        if not LABEL_VALUE.match(v):
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
