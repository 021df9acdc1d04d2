"""Normalised inputs → the Vertex v1beta1 request bodies, and the spec hash that labels a job.

Bodies are camelCase exactly as the aiplatform v1beta1 discovery document spells them (tests hold
every body to it). Plain fields take their API name from the field table; the reward configs are
written out here, because Google's reward messages are shaped unlike our inputs (docs/vertex.md,
"Rewards").
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from tunifolk.job.field_names import Example, Input, Parse, Reward, Scorer
from tunifolk.job.fields import (
    INPUTS,
    JUDGE_GENERATION,
    MATCH_REWARDS,
    PARSE,
    REWARD,
    SCORERS,
    SPEC_LABEL,
    Field,
    Kind,
)
from tunifolk.job.normalize import normalize

_WEIGHT_DEFAULT = next(f.default for f in REWARD if f.name == Reward.WEIGHT)
_PARSE_DEFAULT = next(f.default for f in PARSE if f.name == Parse.TYPE)
_SCORER_DEFAULT = next(  # an autorater's scorer: "conversion"
    c.default for s in SCORERS if s.name == Reward.AUTORATER for c in s.children if c.name == Scorer.SCORER
)
_PARSE_TYPES = {"identity": "IDENTITY", "regex_extract": "REGEX_EXTRACT"}
_MATCH_OPERATIONS = {
    "regex_contains": "REGEX_CONTAINS",
    "partial_match": "PARTIAL_MATCH",
    "exact_match": "EXACT_MATCH",
}


def parent_of(inputs: dict[str, Any]) -> str:
    """`projects/{project}/locations/{location}`: where the job lives."""
    n = normalize(inputs)
    return f"projects/{n[Input.PROJECT]}/locations/{n[Input.LOCATION]}"


def expand_model(name: str, project: str, location: str) -> str:
    """A judge model's full resource name: a bare name fails at reward time (docs/vertex.md, edge 18)."""
    if name.startswith("projects/"):
        return name
    if name.startswith("publishers/"):
        return f"projects/{project}/locations/{location}/{name}"
    bare = name.removeprefix("models/")
    return f"projects/{project}/locations/{location}/publishers/google/models/{bare}"


def _plain(fields: tuple[Field, ...], values: dict[str, Any]) -> dict[str, Any]:
    """The fields that are set, at their API paths: int64 as decimal strings (ProtoJSON), maps of
    plain fields (hyperParameters, preTunedModel) recursively."""
    body: dict[str, Any] = {}
    for f in fields:
        value = values.get(f.name)
        if value is None or value == "" or f.api is None:
            continue
        if f.kind is Kind.OBJECT:
            value = _plain(f.children, value)
        elif f.kind is Kind.INT64:
            value = str(value)
        *parents, leaf = f.api.split(".")
        node = body
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return body


def value_at(document: dict[str, Any], path: str) -> Any:
    """The value at a dotted API path (`tunedModel.endpoint`) of a job read back, None where it is
    absent or empty: ProtoJSON leaves empty fields out, so the two mean the same."""
    node: Any = document
    for key in path.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return None if node == "" else node


def _parse_config(parse: dict[str, Any] | None) -> dict[str, Any] | None:
    if not parse:
        return None
    body: dict[str, Any] = {"parseType": _PARSE_TYPES[parse.get(Parse.TYPE, _PARSE_DEFAULT)]}
    if parse.get(Parse.REGEX):
        body["regexExtractExpression"] = parse[Parse.REGEX]
    return body


def _match_rewards(spec: dict[str, Any]) -> dict[str, float]:
    """Correct and wrong rewards, defaulting (from the table) to ±1: a bare match is full range."""
    return {str(f.api): float(spec.get(f.name, f.default)) for f in MATCH_REWARDS}


def _autorater_body(spec: dict[str, Any], project: str, location: str) -> dict[str, Any]:
    config: dict[str, Any] = {"autoraterModel": expand_model(spec[Scorer.MODEL], project, location)}
    if spec.get(Scorer.SAMPLING_COUNT) is not None:
        config["samplingCount"] = int(spec[Scorer.SAMPLING_COUNT])
    generation = spec.get(Scorer.GENERATION_CONFIG)
    if isinstance(generation, dict) and generation:
        config["generationConfig"] = {
            str(f.api): generation[f.name] for f in JUDGE_GENERATION if generation.get(f.name) is not None
        }
    if spec.get(Scorer.FLIP_ENABLED) is not None:
        config["flipEnabled"] = bool(spec[Scorer.FLIP_ENABLED])
    body: dict[str, Any] = {"autoraterConfig": config, "autoraterPrompt": spec[Scorer.PROMPT]}
    parse = _parse_config(spec.get(Reward.PARSE))
    if parse:
        body["autoraterResponseParseConfig"] = parse
    scorer = spec.get(Scorer.SCORER, _SCORER_DEFAULT)
    if isinstance(scorer, dict):
        exact = scorer[Scorer.EXACT_MATCH]
        body["exactMatchScorer"] = {"expression": exact[Scorer.EXPRESSION], **_match_rewards(exact)}
    else:
        body["parsedResponseConversionScorer"] = {}  # an empty message: send {}
    return body


def _string_match_body(spec: dict[str, Any]) -> dict[str, Any]:
    expression = {
        "matchOperation": _MATCH_OPERATIONS[spec[Scorer.MATCH]],
        "expression": spec[Scorer.EXPRESSION],
    }
    if spec.get(Scorer.JSON_KEY):
        body = {
            "jsonMatchExpression": {
                "keyName": spec[Scorer.JSON_KEY],
                "valueStringMatchExpression": expression,
            }
        }
    else:
        body = {"stringMatchExpression": expression}
    return {**body, **_match_rewards(spec)}


def single_reward_config(reward: dict[str, Any], project: str, location: str) -> dict[str, Any]:
    """One reward as a `SingleReinforcementTuningRewardConfig`."""
    body: dict[str, Any] = {"rewardName": reward[Reward.NAME]}
    parse = _parse_config(reward.get(Reward.PARSE))
    if parse:
        body["parseResponseConfig"] = parse
    if Reward.CLOUD_RUN in reward:
        body["cloudRunRewardScorer"] = {"cloudRunUri": reward[Reward.CLOUD_RUN][Scorer.URI]}
    elif Reward.AUTORATER in reward:
        body["autoraterScorer"] = _autorater_body(reward[Reward.AUTORATER], project, location)
    elif Reward.STRING_MATCH in reward:
        body["stringMatchRewardScorer"] = _string_match_body(reward[Reward.STRING_MATCH])
    elif Reward.CODE_EXECUTION in reward:
        python = reward[Reward.CODE_EXECUTION][Scorer.PYTHON]
        body["codeExecutionRewardScorer"] = {"pythonCodeSnippet": python}
    return body


def reward_config(inputs: dict[str, Any]) -> dict[str, Any]:
    """`{"singleRewardConfig": …}` for one reward, `{"compositeRewardConfig": …}` for several."""
    n = normalize(inputs)
    project, location, rewards = n[Input.PROJECT], n[Input.LOCATION], n[Input.REWARDS]
    singles = [single_reward_config(r, project, location) for r in rewards]
    if len(singles) == 1:
        return {"singleRewardConfig": singles[0]}
    weighted = [
        {"weight": float(r.get(Reward.WEIGHT, _WEIGHT_DEFAULT)), "rewardConfig": s}
        for r, s in zip(rewards, singles, strict=True)
    ]
    return {"compositeRewardConfig": {"weightedRewardConfigs": weighted}}


def reward_names(inputs: dict[str, Any]) -> list[str]:
    """The configured reward names, in order: what the validate verdict expects to see."""
    rewards = normalize(inputs).get(Input.REWARDS)
    if not isinstance(rewards, list):
        return []
    return [r[Reward.NAME] for r in rewards if isinstance(r, dict) and isinstance(r.get(Reward.NAME), str)]


def cloud_run_reward_names(inputs: dict[str, Any]) -> frozenset[str]:
    """The names of the rewards scored by a Cloud Run service (the verdict reads their NaN apart)."""
    rewards = normalize(inputs).get(Input.REWARDS)
    return frozenset(
        r[Reward.NAME]
        for r in (rewards if isinstance(rewards, list) else [])
        if isinstance(r, dict) and isinstance(r.get(Reward.NAME), str) and r.get(Reward.CLOUD_RUN)
    )


def spec_hash(body: dict[str, Any]) -> str:
    """First 16 hex digits of SHA-256 over the canonical body (sorted keys, compact, no labels).

    Labels are excluded because the hash is itself a label, and because labels do not change what
    Vertex trains: the same spec must always hash alike, so create can find a job it already made.
    """
    canonical = {k: v for k, v in body.items() if k != "labels"}
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def build_tuning_job(inputs: dict[str, Any]) -> dict[str, Any]:
    """The `TuningJob` create body, labelled with its own spec hash (`tunifolk-spec`)."""
    n = normalize(inputs)
    if n.get(Input.PRE_TUNED_MODEL):
        n.pop(Input.BASE_MODEL, None)  # the pre-tuned model's base is the base: preTunedModel is a sibling
    body = _plain(INPUTS, n)  # of reinforcementTuningSpec, never inside it (docs/vertex.md, edge 16)
    spec = body.setdefault("reinforcementTuningSpec", {})
    spec.setdefault("hyperParameters", {})
    spec.update(reward_config(n))
    body["labels"] = {**(n.get(Input.LABELS) or {}), SPEC_LABEL: spec_hash(body)}
    return body


def build_validate_request(inputs: dict[str, Any]) -> dict[str, Any]:
    """The validateReinforcementTuningReward body: the field is `example` (docs/vertex.md, edge 4)."""
    n = normalize(inputs)
    example = n[Input.VALIDATION_EXAMPLE]
    return {
        "example": copy.deepcopy(example[Example.EXAMPLE]),
        "sampleResponse": copy.deepcopy(example[Example.SAMPLE_RESPONSE]),
        **reward_config(n),
    }
