"""The stack configuration (contracts.md §6), read and checked in one place.

Pulumi config keys are camelCase under the `tunifolk:` namespace; the resource inputs are
snake_case. This module maps one to the other and refuses, naming the key and the fix, anything it
does not know — so a typo in `Pulumi.<stack>.yaml` fails the program at preview instead of silently
falling back to a default. It is pure (a mapping in, a `StackConfig` out): the Pulumi program feeds
it from `pulumi.Config`, the CLI straight from the YAML file, so both read the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NS = "tunifolk"
SCORER_PLACEHOLDER = "scorer"  # `cloudRun: scorer` means "the RewardScorer's URI"
REQUIRED = ("gcp:project", f"{NS}:dataset", f"{NS}:hyperParameters", f"{NS}:rewards")
OPTIONAL = (
    f"{NS}:region",
    f"{NS}:baseModel",
    f"{NS}:scorer",
    f"{NS}:wait",
    f"{NS}:waitTimeoutSeconds",
    f"{NS}:cleanup",
    f"{NS}:maxCostUsd",
    f"{NS}:enableApis",
    f"{NS}:forceDestroyBucket",
    f"{NS}:labels",
    f"{NS}:preTunedModel",
    f"{NS}:validationExample",
)
HYPER_PARAMETERS = (
    "batchSize",
    "samplesPerPrompt",
    "epochCount",
    "stepCount",
    "learningRateMultiplier",
    "adapterSize",
    "maxOutputTokens",
    "thinkingLevel",
    "thinkingBudget",
    "evaluateInterval",
    "checkpointInterval",
)
DATASET_KEYS = ("train", "validation", "prefix")
SCORER_KEYS = ("image", "minInstances", "maxInstances", "concurrency", "cpu", "memory", "timeoutSeconds")
REWARD_KEYS = ("name", "weight", "parse", "cloudRun", "autorater", "stringMatch", "codeExecution")
AUTORATER_KEYS = ("model", "prompt", "samplingCount", "scorer")
STRING_MATCH_KEYS = ("expression", "match", "jsonKey", "correctReward", "wrongReward")
EXACT_MATCH_KEYS = ("expression", "correctReward", "wrongReward")
PARSE_KEYS = ("type", "regex")
PRE_TUNED_KEYS = ("tunedModelName", "checkpointId")


class ConfigError(ValueError):
    """A stack config key is missing or wrong; the message names the key and the fix."""


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True)
class DatasetConfig:
    train: str
    validation: str | None
    prefix: str = "rlft/v1"


@dataclass(frozen=True)
class ScorerConfig:
    image: str
    min_instances: int = 0
    max_instances: int = 20
    concurrency: int = 80
    cpu: str = "1"
    memory: str = "512Mi"
    timeout_seconds: int = 300


@dataclass(frozen=True)
class StackConfig:
    """Everything the program needs, already checked. Rewards and hyperparameters are snake_case."""

    project: str
    region: str
    base_model: str
    dataset: DatasetConfig
    scorer: ScorerConfig | None
    hyper_parameters: dict[str, Any]
    rewards: list[dict[str, Any]]
    wait: str = "none"
    wait_timeout_seconds: float | None = None
    cleanup: str = "all"
    max_cost_usd: float | None = None
    enable_apis: bool = False
    force_destroy_bucket: bool = True  # the bucket only holds the dataset, which lives in git
    labels: dict[str, str] = field(default_factory=dict)
    pre_tuned_model: dict[str, str] | None = None
    validation_example: str = "data/validation_example.json"

    @property
    def uses_scorer(self) -> bool:
        return any((r.get("cloud_run") or {}).get("uri") == SCORER_PLACEHOLDER for r in self.rewards)

    def rewards_with(self, scorer_uri: Any) -> list[dict[str, Any]]:
        """Rewards with `cloudRun: scorer` replaced by the deployed scorer's URI (an Output is fine)."""
        out = []
        for reward in self.rewards:
            run = reward.get("cloud_run")
            if run and run.get("uri") == SCORER_PLACEHOLDER:
                reward = {**reward, "cloud_run": {"uri": scorer_uri}}
            out.append(reward)
        return out

    def job_inputs(self) -> dict[str, Any]:
        """The RlftTuningJob inputs that come from config alone (datasets and URIs come from resources)."""
        inputs: dict[str, Any] = {
            "project": self.project,
            "location": self.region,
            "hyper_parameters": self.hyper_parameters,
            "wait": self.wait,
            "cleanup": self.cleanup,
        }
        if self.pre_tuned_model:
            inputs["pre_tuned_model"] = self.pre_tuned_model
        else:
            inputs["base_model"] = self.base_model
        if self.labels:
            inputs["labels"] = self.labels
        if self.max_cost_usd is not None:
            inputs["max_cost_usd"] = self.max_cost_usd
        if self.wait_timeout_seconds is not None:
            inputs["wait_timeout_seconds"] = self.wait_timeout_seconds
        return inputs


# --------------------------------------------------------------------------- parsing


def _need(raw: Mapping[str, Any], key: str, fix: str) -> Any:
    value = raw.get(key)
    if value is None or value == "" or value == {} or value == []:
        raise ConfigError(f"{key} is missing: {fix}")
    return value


def _object(value: Any, key: str, accepted: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be an object with keys {', '.join(accepted)}; got {value!r}")
    unknown = sorted(set(value) - set(accepted))
    if unknown:
        raise ConfigError(f"{key}.{unknown[0]} is not a known key: use one of {', '.join(accepted)}")
    return value


def _bool(value: Any, key: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ConfigError(f"{key} must be true or false; got {value!r}")


def _number(value: Any, key: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} must be a number; got {value!r}") from None


def _int(value: Any, key: str) -> int:
    number = _number(value, key)
    if number != int(number):
        raise ConfigError(f"{key} must be a whole number; got {value!r}")
    return int(number)


def _reward(raw: Any, i: int) -> dict[str, Any]:
    key = f"{NS}:rewards[{i}]"
    reward = _object(raw, key, REWARD_KEYS)
    out: dict[str, Any] = {"name": _need(reward, "name", f"give {key} a name, e.g. name: structure")}
    out["weight"] = _number(reward.get("weight", 1.0), f"{key}.weight")
    if "parse" in reward:
        out["parse"] = dict(_object(reward["parse"], f"{key}.parse", PARSE_KEYS))
    kinds = [k for k in ("cloudRun", "autorater", "stringMatch", "codeExecution") if k in reward]
    if len(kinds) != 1:
        raise ConfigError(
            f"{key} needs exactly one scorer (cloudRun, autorater, stringMatch or codeExecution); "
            f"found {', '.join(kinds) or 'none'}"
        )
    kind, spec = kinds[0], reward[kinds[0]]
    if kind == "cloudRun":
        uri = spec.get("uri") if isinstance(spec, dict) else spec
        if not isinstance(uri, str) or not uri:
            raise ConfigError(f"{key}.cloudRun must be `scorer` (the stack's scorer) or an https:// URI")
        out["cloud_run"] = {"uri": uri}
    elif kind == "autorater":
        auto = _object(spec, f"{key}.autorater", AUTORATER_KEYS)
        _need(auto, "model", f"set {key}.autorater.model to a judge, e.g. gemini-2.5-pro")
        converted = {snake(k): v for k, v in auto.items() if k != "scorer"}
        scorer = auto.get("scorer", "conversion")
        if isinstance(scorer, dict):
            exact = _object(scorer.get("exactMatch"), f"{key}.autorater.scorer.exactMatch", EXACT_MATCH_KEYS)
            scorer = {"exact_match": {snake(k): v for k, v in exact.items()}}
        converted["scorer"] = scorer
        out["autorater"] = converted
    elif kind == "stringMatch":
        match = _object(spec, f"{key}.stringMatch", STRING_MATCH_KEYS)
        out["string_match"] = {snake(k): v for k, v in match.items()}
    else:
        python = spec.get("python") if isinstance(spec, dict) else spec
        out["code_execution"] = {"python": python}
    return out


def parse(raw: Mapping[str, Any]) -> StackConfig:
    """Check and convert a stack's config (keys like `tunifolk:region`, `gcp:project`)."""
    known = set(REQUIRED) | set(OPTIONAL)
    for key in raw:
        if key.startswith(f"{NS}:") and key not in known:
            names = ", ".join(sorted(k.split(":", 1)[1] for k in known if k.startswith(NS)))
            raise ConfigError(f"{key} is not a tunifolk setting: use one of {names}")
    project = _need(raw, "gcp:project", "pulumi config set gcp:project YOUR_PROJECT_ID")
    base_model = raw.get(f"{NS}:baseModel") or ""
    if not base_model and not raw.get(f"{NS}:preTunedModel"):
        raise ConfigError(
            f"{NS}:baseModel is missing: pulumi config set tunifolk:baseModel gemini-3.5-flash "
            "(or set tunifolk:preTunedModel to continue from a tuned model)"
        )
    ds = _object(
        _need(raw, f"{NS}:dataset", "set tunifolk:dataset to {train: data/train.jsonl, validation: ...}"),
        f"{NS}:dataset",
        DATASET_KEYS,
    )
    dataset = DatasetConfig(
        train=_need(ds, "train", "set tunifolk:dataset.train to a local JSONL file, e.g. data/train.jsonl"),
        validation=ds.get("validation"),
        prefix=str(ds.get("prefix", "rlft/v1")).strip("/"),
    )
    scorer = None
    if raw.get(f"{NS}:scorer") is not None:
        sc = _object(raw[f"{NS}:scorer"], f"{NS}:scorer", SCORER_KEYS)
        scorer = ScorerConfig(
            image=_need(sc, "image", "set tunifolk:scorer.image to the pushed scorer image"),
            min_instances=_int(sc.get("minInstances", 0), f"{NS}:scorer.minInstances"),
            max_instances=_int(sc.get("maxInstances", 20), f"{NS}:scorer.maxInstances"),
            concurrency=_int(sc.get("concurrency", 80), f"{NS}:scorer.concurrency"),
            cpu=str(sc.get("cpu", "1")),
            memory=str(sc.get("memory", "512Mi")),
            timeout_seconds=_int(sc.get("timeoutSeconds", 300), f"{NS}:scorer.timeoutSeconds"),
        )
    hp = _object(
        _need(raw, f"{NS}:hyperParameters", "set tunifolk:hyperParameters (see Pulumi.dev.yaml)"),
        f"{NS}:hyperParameters",
        HYPER_PARAMETERS,
    )
    rewards_raw = _need(raw, f"{NS}:rewards", "list at least one reward under tunifolk:rewards")
    if not isinstance(rewards_raw, list):
        raise ConfigError(f"{NS}:rewards must be a list of rewards")
    rewards = [_reward(r, i) for i, r in enumerate(rewards_raw)]
    config = StackConfig(
        project=str(project),
        region=str(raw.get(f"{NS}:region") or "us-central1"),
        base_model=str(base_model),
        dataset=dataset,
        scorer=scorer,
        hyper_parameters={snake(k): v for k, v in hp.items()},
        rewards=rewards,
        wait=str(raw.get(f"{NS}:wait") or "none"),
        wait_timeout_seconds=(
            _number(raw[f"{NS}:waitTimeoutSeconds"], f"{NS}:waitTimeoutSeconds")
            if raw.get(f"{NS}:waitTimeoutSeconds") is not None
            else None
        ),
        cleanup=str(raw.get(f"{NS}:cleanup") or "all"),
        max_cost_usd=(
            _number(raw[f"{NS}:maxCostUsd"], f"{NS}:maxCostUsd")
            if raw.get(f"{NS}:maxCostUsd") is not None
            else None
        ),
        enable_apis=_bool(raw.get(f"{NS}:enableApis", False), f"{NS}:enableApis"),
        force_destroy_bucket=_bool(raw.get(f"{NS}:forceDestroyBucket", True), f"{NS}:forceDestroyBucket"),
        labels=dict(raw.get(f"{NS}:labels") or {}),
        validation_example=str(raw.get(f"{NS}:validationExample") or "data/validation_example.json"),
        pre_tuned_model=(
            {
                snake(k): v
                for k, v in _object(raw[f"{NS}:preTunedModel"], f"{NS}:preTunedModel", PRE_TUNED_KEYS).items()
            }
            if raw.get(f"{NS}:preTunedModel")
            else None
        ),
    )
    if config.uses_scorer and config.scorer is None:
        raise ConfigError(
            f"a reward uses `cloudRun: scorer` but {NS}:scorer is not set: set tunifolk:scorer.image"
        )
    return config


def load_stack_file(path: str | Path) -> StackConfig:
    """Read `Pulumi.<stack>.yaml` directly (the CLI needs no Pulumi CLI for this)."""
    import yaml  # pyyaml arrives with the pulumi SDK

    text = Path(path).read_text(encoding="utf-8")
    document = yaml.safe_load(text) or {}
    return parse(document.get("config") or {})
