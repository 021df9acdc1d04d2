"""Google's message shapes for the slice of aiplatform v1beta1 that tunifolk speaks, as data.

One description serves three readers: the provider's check of `validation_example` (Google's
`ReinforcementTuningExample` and `Content`, passed through verbatim), the dataset checker (every
JSONL line is a `ReinforcementTuningExample`), and the emulator, which must accept what Google
accepts and refuse what Google refuses. tests/test_shapes.py holds every message here to the
discovery document shipped in google-api-python-client: each field Google lists is accepted, with
its type. Where a nested message is not described in detail it is `ANY` (accepted as Google would).

Field names are lowerCamelCase, as ProtoJSON writes them; Google's parser also takes the original
proto (snake_case) names, which `conform(..., proto_names=True)` accepts and rewrites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

STR, INT, INT64, FLOAT, BOOL, BYTES, DURATION, MAP_STR, ANY = (
    "string",
    "int32",
    "int64",
    "double",
    "bool",
    "bytes",
    "duration",
    "map<string, string>",
    "any",
)


def enum(*values: str) -> frozenset[str]:
    return frozenset(values)


BLOB = {"mimeType": STR, "data": BYTES, "displayName": STR}
FILE_DATA = {"mimeType": STR, "fileUri": STR, "displayName": STR}
VIDEO_METADATA = {"startOffset": DURATION, "endOffset": DURATION, "fps": FLOAT}
PART: dict[str, Any] = {
    "text": STR,
    "thought": BOOL,
    "thoughtSignature": BYTES,
    "inlineData": BLOB,
    "fileData": FILE_DATA,
    "videoMetadata": VIDEO_METADATA,
    "functionCall": ANY,
    "functionResponse": ANY,
    "executableCode": ANY,
    "codeExecutionResult": ANY,
    "mediaResolution": ANY,
    "mediaProcessing": STR,
    "audioTranscription": ANY,
    "speechMetadata": ANY,
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
#: Output-only TuningJob fields: accepted and ignored on create, as the real service does.
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
    "continuationToken": BYTES,
    "modelArmorConfig": ANY,
    "outputConfig": ANY,
}
UNDEPLOY_REQUEST: dict[str, Any] = {"deployedModelId": STR, "trafficSplit": ANY}

#: The shapes by Google's message name (without the GoogleCloudAiplatformV1beta1 prefix).
MESSAGES: dict[str, Any] = {
    "Part": PART,
    "Content": CONTENT,
    "Blob": BLOB,
    "FileData": FILE_DATA,
    "VideoMetadata": VIDEO_METADATA,
    "ReinforcementTuningExample": EXAMPLE,
    "TuningJob": TUNING_JOB,
    "ReinforcementTuningSpec": RT_SPEC,
    "ReinforcementTuningHyperParameters": HYPER_PARAMETERS,
    "SingleReinforcementTuningRewardConfig": SINGLE_REWARD,
    "ValidateReinforcementTuningRewardRequest": VALIDATE_REQUEST,
    "GenerateContentRequest": GENERATE_REQUEST,
    "UndeployModelRequest": UNDEPLOY_REQUEST,
}


@dataclass
class ShapeError(ValueError):
    """A value that does not fit its shape. `where` is the proto-style path Google's messages use
    (`tuning_job.reinforcement_tuning_spec`), `path` the JSON path (`example.contents[0].parts`)."""

    kind: str  # "unknown" (no such field), "type" (wrong JSON type), "enum" (not a listed value)
    key: str
    where: str
    path: str
    expected: str = ""
    got: Any = None

    def __str__(self) -> str:
        if self.kind == "unknown":
            return f"unknown field {self.key!r}"
        if self.kind == "enum":
            return f"{self.got!r} is not one of {', '.join(sorted(self.expected))}"
        return f"expected {self.expected}, got {_short(self.got)}"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def conform(shape: Any, value: Any, where: str, *, path: str = "", proto_names: bool = False) -> Any:
    """`value` with every field name in lowerCamelCase; raises ShapeError at the first misfit.

    With `proto_names`, snake_case names are accepted too, as Google's ProtoJSON parser does.
    Integers written as `32.0` fit int32 and int64 fields (JSON has one number type).
    """
    if value is None or shape == ANY:
        return value
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ShapeError("type", "", where, path, "an object", value)
        out = {}
        for key, item in value.items():
            name = _camel(key) if proto_names and key not in shape else key
            if name not in shape:
                raise ShapeError("unknown", key, where, path)
            out[name] = conform(
                shape[name], item, f"{where}.{snake(name)}", path=_join(path, name), proto_names=proto_names
            )
        return out
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise ShapeError("type", "", where, path, "a list", value)
        return [
            conform(shape[0], item, f"{where}[{i}]", path=f"{path}[{i}]", proto_names=proto_names)
            for i, item in enumerate(value)
        ]
    if isinstance(shape, frozenset):
        if value not in shape:
            raise ShapeError("enum", "", where, path, shape, value)
        return value
    if not _FITS[shape](value):
        raise ShapeError("type", "", where, path, shape, value)
    return value


def problems(shape: Any, value: Any, path: str) -> list[tuple[str, str]]:
    """Every misfit as (JSON path, reason), for check failures that name the exact property."""
    found: list[tuple[str, str]] = []
    _collect(shape, value, path, found)
    return found


def _collect(shape: Any, value: Any, path: str, found: list[tuple[str, str]]) -> None:
    if isinstance(shape, dict) and isinstance(value, dict):
        for key, item in value.items():
            if key not in shape:
                found.append((_join(path, key), f"unknown field {key!r}; accepted: {', '.join(shape)}"))
            else:
                _collect(shape[key], item, _join(path, key), found)
        return
    if isinstance(shape, list) and isinstance(value, list):
        for i, item in enumerate(value):
            _collect(shape[0], item, f"{path}[{i}]", found)
        return
    try:
        conform(shape, value, path, path=path)
    except ShapeError as exc:
        found.append((path, str(exc)))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, str) and value.lstrip("-").isdigit()


def _is_float(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


_FITS = {
    STR: lambda v: isinstance(v, str),
    BYTES: lambda v: isinstance(v, str),
    DURATION: lambda v: isinstance(v, str) and v.endswith("s"),
    BOOL: lambda v: isinstance(v, bool),
    INT: _is_int,
    INT64: _is_int,
    FLOAT: _is_float,
    MAP_STR: lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
