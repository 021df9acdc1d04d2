"""`RlftTuningJob` inputs → Vertex v1beta1 bodies, the static checks, and the validate verdict.

Pure Python: no I/O and no pulumi import, so every rule here is unit-tested in milliseconds and the
provider (`providers/tuning_job.py`) only translates. Inputs are the snake_case resource inputs of
contracts.md §4; bodies are camelCase exactly as the aiplatform v1beta1 discovery document spells
them (tests validate every body against it).

Why the checks live here: every sharp edge that can be caught without calling Google must fail at
`pulumi preview` (contracts.md §2), naming the property path and the fix, instead of at hour six.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from providers.estimate import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_SAMPLES_PER_PROMPT,
    MAX_TOTAL_STEPS,
    Estimate,
    estimate,
    total_steps,
)

__all__ = [
    "UNKNOWN",
    "CheckReport",
    "Problem",
    "build_tuning_job",
    "build_validate_request",
    "check_inputs",
    "console_url",
    "diff_decision",
    "expand_model",
    "is_unknown",
    "normalize",
    "reward_config",
    "reward_names",
    "spec_hash",
    "total_steps",
    "validation_problems",
]

#: Pulumi's marker for a value not known yet (first preview); it may stand for any value.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

SPEC_LABEL = "tunifolk-spec"
LOCATIONS = ("us-central1", "europe-west4")
DEFAULTS = {"location": "us-central1", "wait": "none", "cleanup": "all"}
WAITS = ("none", "running", "succeeded")
CLEANUPS = ("all", "cancel")
ADAPTER_SIZES = (
    "ADAPTER_SIZE_ONE",
    "ADAPTER_SIZE_TWO",
    "ADAPTER_SIZE_FOUR",
    "ADAPTER_SIZE_EIGHT",
    "ADAPTER_SIZE_SIXTEEN",
    "ADAPTER_SIZE_THIRTY_TWO",
)
THINKING_LEVELS = ("MINIMAL", "LOW", "MEDIUM", "HIGH")
PARSE_TYPES = {"identity": "IDENTITY", "regex_extract": "REGEX_EXTRACT"}
MATCH_OPERATIONS = {
    "regex_contains": "REGEX_CONTAINS",
    "partial_match": "PARTIAL_MATCH",
    "exact_match": "EXACT_MATCH",
}
SCORER_KINDS = ("cloud_run", "autorater", "string_match", "code_execution")
MAX_OUTPUT_TOKENS = 32768
MAX_BATCH_SAMPLES = 8192
MAX_TRAINING_EXAMPLES = 5000
MAX_REWARDS = 16

INPUT_KEYS = (
    "project",
    "location",
    "base_model",
    "tuned_model_display_name",
    "description",
    "labels",
    "service_account",
    "training_dataset_uri",
    "validation_dataset_uri",
    "training_example_count",
    "hyper_parameters",
    "rewards",
    "validation_example",
    "pre_tuned_model",
    "wait",
    "wait_timeout_seconds",
    "cleanup",
    "max_cost_usd",
)
#: Inputs that only steer the provider; changing them never needs a new job.
IN_PLACE_KEYS = frozenset({"wait", "wait_timeout_seconds", "cleanup", "max_cost_usd"})
#: Outputs (contracts.md §4) that sit next to the inputs in olds; they never count as a change.
OUTPUT_KEYS = frozenset(
    {
        "name",
        "state",
        "tuning_job_state",
        "tuned_model",
        "endpoint",
        "serving_host",
        "checkpoints",
        "best_checkpoint",
        "experiment",
        "total_steps",
        "completed_steps",
        "error",
        "create_time",
        "start_time",
        "end_time",
        "validation",
        "console_url",
        "spec_hash",
        "__provider",
    }
)

HYPER_PARAMETER_KEYS = {
    "batch_size": "batchSize",
    "samples_per_prompt": "samplesPerPrompt",
    "epoch_count": "epochCount",
    "step_count": "stepCount",
    "learning_rate_multiplier": "learningRateMultiplier",
    "adapter_size": "adapterSize",
    "max_output_tokens": "maxOutputTokens",
    "thinking_level": "thinkingLevel",
    "evaluate_interval": "evaluateInterval",
    "checkpoint_interval": "checkpointInterval",
    "thinking_budget": "thinkingBudget",
}
_HP_INTS = frozenset(
    {
        "batch_size",
        "samples_per_prompt",
        "epoch_count",
        "step_count",
        "max_output_tokens",
        "evaluate_interval",
        "checkpoint_interval",
        "thinking_budget",
    }
)
_INT64_AS_STRING = frozenset({"epoch_count", "step_count"})
REWARD_KEYS = ("name", "weight", "parse", *SCORER_KINDS)
PARSE_KEYS = ("type", "regex")
AUTORATER_KEYS = ("model", "prompt", "sampling_count", "scorer", "parse")
EXACT_MATCH_KEYS = ("expression", "correct_reward", "wrong_reward")
STRING_MATCH_KEYS = ("expression", "match", "json_key", "correct_reward", "wrong_reward")
PRE_TUNED_KEYS = ("tuned_model_name", "checkpoint_id")
VALIDATION_EXAMPLE_KEYS = ("example", "sample_response")
EXAMPLE_KEYS = ("contents", "references", "systemInstruction")
CONTENT_KEYS = ("role", "parts")
PART_KEYS = ("text", "thought", "thoughtSignature")

_TUNED_MODEL_RE = re.compile(r"^projects/[^/]+/locations/[^/]+/models/[^/]+$")
_LABEL_RE = re.compile(r"^[a-z0-9_-]*$")
_GEMINI_VERSION_RE = re.compile(r"gemini-(\d+)(?:\.(\d+))?")
_INT_STRING_RE = re.compile(r"^-?\d+$")

Failure = tuple[str, str]


# ---------------------------------------------------------------------------------------------
# Unknowns and normalisation


def is_unknown(value: Any) -> bool:
    """True for a value Pulumi does not know yet at preview.

    It arrives in two forms: the sentinel string on the wire, and — once the SDK's dynamic-provider
    host has deserialized `check`/`diff` properties with unknowns kept — an instance of
    `pulumi.output.Unknown`. Matched by class so this module stays free of the Pulumi SDK.
    """
    if isinstance(value, str):
        return value == UNKNOWN
    kind = type(value)
    return kind.__name__ == "Unknown" and kind.__module__.startswith("pulumi")


def contains_unknown(value: Any) -> bool:
    """True when the value, or anything nested in it, is still unknown."""
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return False


def _to_int(value: Any) -> Any:
    """32.0 → 32 and "32" → 32 (numbers reach a dynamic provider as floats); anything else as is."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_STRING_RE.match(value.strip()):
        return int(value.strip())
    return value


def _to_float(value: Any) -> Any:
    """1 → 1.0, so a spec hash never depends on how a number was typed."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _normalize_hp(hp: Any) -> Any:
    if not isinstance(hp, dict):
        return hp
    out = dict(hp)
    for key in _HP_INTS & out.keys():
        out[key] = _to_int(out[key])
    if "learning_rate_multiplier" in out:
        out["learning_rate_multiplier"] = _to_float(out["learning_rate_multiplier"])
    return out


def _normalize_match(scorer: Any) -> Any:
    if not isinstance(scorer, dict):
        return scorer
    out = dict(scorer)
    for key in ("correct_reward", "wrong_reward"):
        if key in out:
            out[key] = _to_float(out[key])
    return out


def _normalize_reward(reward: Any) -> Any:
    if not isinstance(reward, dict):
        return reward
    out = copy.deepcopy(reward)
    if "weight" in out:
        out["weight"] = _to_float(out["weight"])
    autorater = out.get("autorater")
    if isinstance(autorater, dict):
        if "sampling_count" in autorater:
            autorater["sampling_count"] = _to_int(autorater["sampling_count"])
        scorer = autorater.get("scorer")
        if isinstance(scorer, dict) and "exact_match" in scorer:
            scorer["exact_match"] = _normalize_match(scorer["exact_match"])
    if "string_match" in out:
        out["string_match"] = _normalize_match(out["string_match"])
    return out


def _drop_none(value: Any) -> Any:
    """A deep copy without None-valued keys: an input set to None is an input not set."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def normalize(inputs: dict[str, Any]) -> dict[str, Any]:
    """Inputs with defaults applied and numbers in their API type; idempotent, never raises.

    Keys set to None are dropped (not set). Defaults: location us-central1, wait none, cleanup all.
    Integers arrive as floats (32.0) and
    become ints; float fields become floats. Wrong types are left for `check_inputs` to report.
    """
    out = _drop_none(dict(inputs))
    for key, default in DEFAULTS.items():
        if out.get(key) is None:
            out[key] = default
    for key in ("training_example_count", "wait_timeout_seconds"):
        if key in out:
            out[key] = _to_int(out[key])
    if "max_cost_usd" in out:
        out["max_cost_usd"] = _to_float(out["max_cost_usd"])
    if "hyper_parameters" in out:
        out["hyper_parameters"] = _normalize_hp(out["hyper_parameters"])
    if isinstance(out.get("rewards"), list):
        out["rewards"] = [_normalize_reward(r) for r in out["rewards"]]
    pre = out.get("pre_tuned_model")
    if isinstance(pre, dict) and _is_number(pre.get("checkpoint_id")):
        pre["checkpoint_id"] = str(_to_int(pre["checkpoint_id"]))
    return out


# ---------------------------------------------------------------------------------------------
# check


@dataclass
class CheckReport:
    """What `check` found: normalised inputs, failures (property path, reason), warnings."""

    inputs: dict[str, Any]
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    total_steps: int | None = None
    estimate: Estimate | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


def _unknown_keys(value: dict[str, Any], accepted: tuple[str, ...], path: str) -> list[Failure]:
    """Fail each key we do not know: a typo would otherwise be silently dropped from the body."""
    prefix = f"{path}." if path else ""
    return [
        (f"{prefix}{key}", f"unknown input {key!r}; accepted: {', '.join(accepted)}")
        for key in value
        if key not in accepted
    ]


def _present(value: Any) -> bool:
    """Known and set (unknowns are checked later, once known)."""
    return value is not None and not is_unknown(value)


def _need_str(value: Any, path: str, what: str) -> list[Failure]:
    if not isinstance(value, str) or not value.strip():
        return [(path, f"{what} is required: set it to a non-empty string")]
    return []


def _check_basics(n: dict[str, Any]) -> list[Failure]:
    fails = _unknown_keys(n, INPUT_KEYS, "")
    if not is_unknown(n.get("project")):
        fails += _need_str(n.get("project"), "project", "the Google Cloud project id")
    loc = n.get("location")
    if _present(loc) and loc not in LOCATIONS:
        fails.append(
            ("location", f"RLFT tunes only in {' or '.join(LOCATIONS)} (never 'global'), got {loc!r}")
        )
    base, pre = n.get("base_model"), n.get("pre_tuned_model")
    if pre is None and not is_unknown(base):
        fails += _need_str(base, "base_model", "base_model (e.g. gemini-3.5-flash), unless pre_tuned_model")
    for key in ("tuned_model_display_name", "description", "service_account"):
        if _present(n.get(key)) and not isinstance(n[key], str):
            fails.append((key, f"{key} must be a string"))
    for key in ("training_dataset_uri", "validation_dataset_uri"):
        uri = n.get(key)
        if key == "training_dataset_uri" and uri is None:
            fails.append((key, "the training dataset is required: set a gs://bucket/path.jsonl URI"))
        elif _present(uri) and (not isinstance(uri, str) or not uri.startswith("gs://")):
            fails.append((key, f"must be a Cloud Storage URI gs://bucket/path.jsonl, got {uri!r}"))
    count = n.get("training_example_count")
    if _present(count) and (not _is_int(count) or not 0 < count <= MAX_TRAINING_EXAMPLES):
        fails.append(
            (
                "training_example_count",
                f"must be a whole number in 1..{MAX_TRAINING_EXAMPLES} (RLFT's limit), got {count!r}",
            )
        )
    return fails


def _check_provider_settings(n: dict[str, Any]) -> list[Failure]:
    fails: list[Failure] = []
    if _present(n.get("wait")) and n["wait"] not in WAITS:
        fails.append(("wait", f"must be one of {', '.join(WAITS)}, got {n['wait']!r}"))
    if _present(n.get("cleanup")) and n["cleanup"] not in CLEANUPS:
        fails.append(("cleanup", f"must be one of {', '.join(CLEANUPS)}, got {n['cleanup']!r}"))
    for key in ("wait_timeout_seconds", "max_cost_usd"):
        value = n.get(key)
        if _present(value) and not (_is_number(value) and value > 0):
            fails.append((key, f"must be a number greater than 0, got {value!r}"))
    return fails


def _check_labels(labels: Any) -> list[Failure]:
    if not _present(labels):
        return []
    if not isinstance(labels, dict):
        return [("labels", "must be a map of string to string")]
    fails: list[Failure] = []
    for key, value in labels.items():
        path = f"labels.{key}"
        if key == SPEC_LABEL:
            fails.append((path, f"the label {SPEC_LABEL!r} is reserved: tunifolk sets it to the spec hash"))
            continue
        if not isinstance(key, str) or not key or len(key) > 64 or not _LABEL_RE.match(key):
            fails.append((path, "label keys: 1-64 characters of lowercase letters, digits, '_' and '-'"))
        elif not key[0].islower():
            fails.append((path, "label keys must start with a lowercase letter"))
        if is_unknown(value):
            continue
        if not isinstance(value, str) or len(value) > 64 or not _LABEL_RE.match(value):
            fails.append(
                (path, "label values: at most 64 characters of lowercase letters, digits, '_' and '-'")
            )
    return fails


def _gemini_major(model: Any) -> int | None:
    """The major version of a Gemini model name (3 for gemini-3.5-flash), None if not Gemini."""
    if not isinstance(model, str):
        return None
    match = _GEMINI_VERSION_RE.search(model.rsplit("/", 1)[-1])
    return int(match.group(1)) if match else None


def _check_hp_types(hp: dict[str, Any]) -> list[Failure]:
    fails = _unknown_keys(hp, tuple(HYPER_PARAMETER_KEYS), "hyper_parameters")
    for key in sorted(_HP_INTS & hp.keys()):
        value = hp[key]
        if not _present(value):
            continue
        path = f"hyper_parameters.{key}"
        if not _is_int(value):
            fails.append((path, f"must be a whole number, got {value!r}"))
        elif key == "thinking_budget" and value < -1:
            fails.append((path, f"must be -1 (dynamic), 0 (none) or a token count, got {value}"))
        elif key != "thinking_budget" and value <= 0:
            fails.append((path, f"must be greater than 0, got {value}"))
    return fails


def _check_hyper_parameters(n: dict[str, Any]) -> list[Failure]:
    hp = n.get("hyper_parameters")
    if is_unknown(hp):
        return []
    if hp is None:
        return [("hyper_parameters", "hyper_parameters is required: set epoch_count or step_count at least")]
    if not isinstance(hp, dict):
        return [("hyper_parameters", "must be a map of hyperparameters")]
    fails = _check_hp_types(hp)
    known = {k: v for k, v in hp.items() if _present(v)}

    def ok_int(key: str) -> bool:
        return _is_int(known.get(key)) and known[key] > 0

    batch = known.get("batch_size", DEFAULT_BATCH_SIZE)
    samples = known.get("samples_per_prompt", DEFAULT_SAMPLES_PER_PROMPT)
    if not (is_unknown(hp.get("batch_size")) or is_unknown(hp.get("samples_per_prompt"))) and (
        _is_int(batch) and _is_int(samples) and batch > 0 and samples > 0
    ):
        product = batch * samples
        if product % 16 or product > MAX_BATCH_SAMPLES:
            path = (
                "hyper_parameters.samples_per_prompt"
                if "samples_per_prompt" in hp
                else "hyper_parameters.batch_size"
            )
            fails.append(
                (
                    path,
                    f"batch_size × samples_per_prompt = {product} must be divisible by 16 and at most "
                    f"{MAX_BATCH_SAMPLES}; e.g. batch_size 32 with samples_per_prompt 16",
                )
            )
    lr = known.get("learning_rate_multiplier")
    if lr is not None and not (_is_number(lr) and 0.25 <= lr <= 4):
        fails.append(("hyper_parameters.learning_rate_multiplier", f"must be in [0.25, 4], got {lr!r}"))
    epoch_set, step_set = "epoch_count" in hp, "step_count" in hp
    if epoch_set == step_set:
        what = "both are set" if epoch_set else "neither is set"
        fails.append(
            ("hyper_parameters.epoch_count", f"set exactly one of epoch_count or step_count ({what})")
        )
    size = known.get("adapter_size")
    if size is not None and size not in ADAPTER_SIZES:
        fails.append(
            ("hyper_parameters.adapter_size", f"must be one of {', '.join(ADAPTER_SIZES)}, got {size!r}")
        )
    level = known.get("thinking_level")
    if level is not None and level not in THINKING_LEVELS:
        fails.append(
            ("hyper_parameters.thinking_level", f"must be one of {', '.join(THINKING_LEVELS)}, got {level!r}")
        )
    tokens = known.get("max_output_tokens")
    if _is_int(tokens) and tokens > MAX_OUTPUT_TOKENS:
        fails.append(
            ("hyper_parameters.max_output_tokens", f"must be at most {MAX_OUTPUT_TOKENS}, got {tokens}")
        )
    if "thinking_budget" in known:
        major = _gemini_major(n.get("base_model"))
        if major is not None and major >= 3:
            fails.append(
                (
                    "hyper_parameters.thinking_budget",
                    f"thinking_budget is rejected on {n['base_model']} (Gemini 3 and later): "
                    "remove it and use thinking_level",
                )
            )
    if ok_int("evaluate_interval") and ok_int("checkpoint_interval"):
        ev, cp = known["evaluate_interval"], known["checkpoint_interval"]
        if cp % ev:
            fails.append(
                (
                    "hyper_parameters.checkpoint_interval",
                    f"must be a whole multiple of evaluate_interval ({ev}), got {cp}; "
                    f"e.g. {ev * max(1, cp // ev)}",
                )
            )
    return fails


def _hp_warnings(n: dict[str, Any]) -> list[str]:
    warnings: list[str] = []
    hp = n.get("hyper_parameters")
    if isinstance(hp, dict):
        tokens, level = hp.get("max_output_tokens"), hp.get("thinking_level", "HIGH")
        if _is_int(tokens) and tokens < MAX_OUTPUT_TOKENS and level == "HIGH":
            warnings.append(
                f"hyper_parameters.max_output_tokens is {tokens}, below {MAX_OUTPUT_TOKENS}, with HIGH "
                "thinking: the cap includes thinking tokens and can truncate answers; a lower cap saves "
                "nothing, since generations are billed by their real length"
            )
    if n.get("validation_dataset_uri") is None:
        warnings.append(
            "validation_dataset_uri is not set: the service will split off 25% of the training set "
            "(at least 50 examples) for evaluation"
        )
    return warnings


def _check_parse(parse: Any, path: str) -> list[Failure]:
    if not _present(parse):
        return []
    if not isinstance(parse, dict):
        return [(path, "must be a map {type: identity|regex_extract, regex?}")]
    fails = _unknown_keys(parse, PARSE_KEYS, path)
    kind, regex = parse.get("type"), parse.get("regex")
    if is_unknown(kind):
        return fails
    if kind not in PARSE_TYPES:
        fails.append((f"{path}.type", f"must be one of {', '.join(PARSE_TYPES)}, got {kind!r}"))
    elif kind == "regex_extract" and not is_unknown(regex):
        if not isinstance(regex, str) or not regex:
            fails.append((f"{path}.regex", "regex_extract needs a regex, e.g. '<answer>(.*?)</answer>'"))
        else:
            try:
                re.compile(regex)
            except re.error as exc:
                fails.append((f"{path}.regex", f"the regex does not compile: {exc}"))
    return fails


def _check_cloud_run(spec: dict[str, Any], path: str) -> list[Failure]:
    fails = _unknown_keys(spec, ("uri",), path)
    uri = spec.get("uri")
    if is_unknown(uri):
        return fails
    if not isinstance(uri, str) or not uri:
        return [*fails, (f"{path}.uri", "the scorer's URI is required (the Cloud Run service URL)")]
    parsed = urlparse(uri)
    local = parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "localhost")
    if not (parsed.scheme == "https" and parsed.hostname) and not local:
        fails.append(
            (f"{path}.uri", f"must be an https:// URL (http only for 127.0.0.1/localhost), got {uri!r}")
        )
    return fails


def _check_exact_match(spec: Any, path: str) -> list[Failure]:
    if not isinstance(spec, dict):
        return [(path, "must be a map {expression, correct_reward, wrong_reward}")]
    fails = _unknown_keys(spec, EXACT_MATCH_KEYS, path)
    if not is_unknown(spec.get("expression")):
        fails += _need_str(spec.get("expression"), f"{path}.expression", "the expression to match")
    fails += _check_match_rewards(spec, path)
    return fails


def _check_match_rewards(spec: dict[str, Any], path: str) -> list[Failure]:
    fails: list[Failure] = []
    for key in ("correct_reward", "wrong_reward"):
        value = spec.get(key)
        if _present(value) and not (_is_number(value) and -1 <= value <= 1):
            fails.append((f"{path}.{key}", f"must be a number in [-1, 1], got {value!r}"))
    return fails


def _check_autorater(spec: dict[str, Any], path: str) -> list[Failure]:
    fails = _unknown_keys(spec, AUTORATER_KEYS, path)
    if not is_unknown(spec.get("model")):
        fails += _need_str(
            spec.get("model"),
            f"{path}.model",
            "the judge model (e.g. gemini-2.5-pro); without it every reward call errors and returns NaN",
        )
    if not is_unknown(spec.get("prompt")):
        fails += _need_str(spec.get("prompt"), f"{path}.prompt", "the judge prompt (with {{response}})")
    count = spec.get("sampling_count")
    if _present(count) and not (_is_int(count) and 1 <= count <= 32):
        fails.append((f"{path}.sampling_count", f"must be a whole number in 1..32, got {count!r}"))
    scorer = spec.get("scorer")
    if _present(scorer) and scorer != "conversion":
        if isinstance(scorer, dict) and list(scorer) == ["exact_match"]:
            if not is_unknown(scorer["exact_match"]):
                fails += _check_exact_match(scorer["exact_match"], f"{path}.scorer.exact_match")
        else:
            fails.append(
                (
                    f"{path}.scorer",
                    "must be 'conversion' or {exact_match: {expression, correct_reward, wrong_reward}}",
                )
            )
    fails += _check_parse(spec.get("parse"), f"{path}.parse")
    return fails


def _check_string_match(spec: dict[str, Any], path: str) -> list[Failure]:
    fails = _unknown_keys(spec, STRING_MATCH_KEYS, path)
    if not is_unknown(spec.get("expression")):
        fails += _need_str(spec.get("expression"), f"{path}.expression", "the expression to match")
    match = spec.get("match")
    if not is_unknown(match) and match not in MATCH_OPERATIONS:
        fails.append((f"{path}.match", f"must be one of {', '.join(MATCH_OPERATIONS)}, got {match!r}"))
    key = spec.get("json_key")
    if _present(key) and (not isinstance(key, str) or not key):
        fails.append((f"{path}.json_key", "must be a non-empty string (a first-level JSON key)"))
    return fails + _check_match_rewards(spec, path)


def _check_code_execution(spec: dict[str, Any], path: str) -> list[Failure]:
    fails = _unknown_keys(spec, ("python",), path)
    code = spec.get("python")
    if is_unknown(code):
        return fails
    if not isinstance(code, str) or not code.strip():
        return [
            *fails,
            (f"{path}.python", "the Python snippet defining evaluate(example, response) is required"),
        ]
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [*fails, (f"{path}.python", f"the snippet does not parse: {exc.msg} (line {exc.lineno})")]
    if not any(isinstance(node, ast.FunctionDef) and node.name == "evaluate" for node in tree.body):
        fails.append((f"{path}.python", "the snippet must define def evaluate(example, response) -> float"))
    return fails


_SCORER_CHECKS = {
    "cloud_run": _check_cloud_run,
    "autorater": _check_autorater,
    "string_match": _check_string_match,
    "code_execution": _check_code_execution,
}


def _check_reward(reward: Any, path: str) -> list[Failure]:
    if not isinstance(reward, dict):
        return [(path, "each reward is a map {name, weight, <one scorer>}")]
    fails = _unknown_keys(reward, REWARD_KEYS, path)
    if not is_unknown(reward.get("name")):
        fails += _need_str(reward.get("name"), f"{path}.name", "a reward name")
    weight = reward.get("weight")
    if _present(weight) and not (_is_number(weight) and weight > 0):
        fails.append((f"{path}.weight", f"must be a number greater than 0, got {weight!r}"))
    kinds = [k for k in SCORER_KINDS if k in reward]
    if len(kinds) != 1:
        found = ", ".join(kinds) or "none"
        fails.append((path, f"set exactly one scorer of {', '.join(SCORER_KINDS)} (found: {found})"))
    for kind in kinds:
        spec = reward[kind]
        if is_unknown(spec):
            continue
        if not isinstance(spec, dict):
            fails.append((f"{path}.{kind}", f"{kind} must be a map"))
            continue
        fails += _SCORER_CHECKS[kind](spec, f"{path}.{kind}")
    fails += _check_parse(reward.get("parse"), f"{path}.parse")
    return fails


def _check_rewards(rewards: Any) -> list[Failure]:
    if is_unknown(rewards):
        return []
    if not isinstance(rewards, list) or not rewards:
        return [("rewards", "at least one reward is required: e.g. [{name, weight, cloud_run: {uri}}]")]
    fails: list[Failure] = []
    if len(rewards) > MAX_REWARDS:
        fails.append(("rewards", f"at most {MAX_REWARDS} rewards, got {len(rewards)}"))
    seen: set[str] = set()
    for i, reward in enumerate(rewards):
        if is_unknown(reward):
            continue
        fails += _check_reward(reward, f"rewards[{i}]")
        name = reward.get("name") if isinstance(reward, dict) else None
        if isinstance(name, str) and not is_unknown(name):
            if name in seen:
                fails.append((f"rewards[{i}].name", f"reward names must be unique; {name!r} repeats"))
            seen.add(name)
    return fails


def _check_content(content: Any, path: str) -> list[Failure]:
    if is_unknown(content):
        return []
    if not isinstance(content, dict):
        return [(path, "must be a Content {role?, parts: [...]}")]
    fails = _unknown_keys(content, CONTENT_KEYS, path)
    role = content.get("role")
    if _present(role) and (not isinstance(role, str) or not role):
        fails.append((f"{path}.role", f"must be a role such as 'user' or 'model', got {role!r}"))
    parts = content.get("parts")
    if is_unknown(parts):
        return fails
    if not isinstance(parts, list) or not parts:
        return [*fails, (f"{path}.parts", "must be a non-empty list of parts, e.g. [{text: ...}]")]
    for i, part in enumerate(parts):
        fails += _check_part(part, f"{path}.parts[{i}]")
    return fails


def _check_part(part: Any, path: str) -> list[Failure]:
    """The parts we send are text (maybe thought) parts; anything richer is out of scope here."""
    if is_unknown(part):
        return []
    if not isinstance(part, dict) or not part:
        return [(path, "must be a part such as {text: ...}")]
    fails = _unknown_keys(part, PART_KEYS, path)
    if _present(part.get("text")) and not isinstance(part["text"], str):
        fails.append((f"{path}.text", f"must be a string, got {part['text']!r}"))
    if _present(part.get("thought")) and not isinstance(part["thought"], bool):
        fails.append((f"{path}.thought", f"must be true or false, got {part['thought']!r}"))
    if "text" not in part:
        fails.append((f"{path}.text", "each part needs its text"))
    return fails


def _check_validation_example(value: Any) -> list[Failure]:
    path = "validation_example"
    if is_unknown(value):
        return []
    if value is None:
        return [
            (
                path,
                "required: {example: {contents: [...]}, sample_response: {parts: [...]}}; create validates "
                "the rewards with it before any job exists",
            )
        ]
    if not isinstance(value, dict):
        return [(path, "must be a map {example, sample_response}")]
    fails = _unknown_keys(value, VALIDATION_EXAMPLE_KEYS, path)
    example = value.get("example")
    if not is_unknown(example):
        if not isinstance(example, dict):
            fails.append((f"{path}.example", "required: {contents: [...], references?, systemInstruction?}"))
        else:
            fails += _unknown_keys(example, EXAMPLE_KEYS, f"{path}.example")
            contents = example.get("contents")
            if not is_unknown(contents):
                if not isinstance(contents, list) or not contents:
                    fails.append((f"{path}.example.contents", "must be a non-empty list of Content"))
                else:
                    for i, c in enumerate(contents):
                        fails += _check_content(c, f"{path}.example.contents[{i}]")
            refs = example.get("references")
            if _present(refs) and not (
                isinstance(refs, dict) and all(isinstance(v, str) or is_unknown(v) for v in refs.values())
            ):
                fails.append((f"{path}.example.references", "must be a map of string to string"))
            if _present(example.get("systemInstruction")):
                fails += _check_content(example["systemInstruction"], f"{path}.example.systemInstruction")
    sample = value.get("sample_response")
    if sample is None:
        fails.append((f"{path}.sample_response", "required: a Content {role: model, parts: [{text: ...}]}"))
    else:
        fails += _check_content(sample, f"{path}.sample_response")
    return fails


def _check_pre_tuned(pre: Any) -> list[Failure]:
    path = "pre_tuned_model"
    if not _present(pre):
        return []
    if not isinstance(pre, dict):
        return [(path, "must be a map {tuned_model_name, checkpoint_id?}")]
    fails = _unknown_keys(pre, PRE_TUNED_KEYS, path)
    name = pre.get("tuned_model_name")
    if not is_unknown(name) and not (isinstance(name, str) and _TUNED_MODEL_RE.match(name)):
        fails.append((f"{path}.tuned_model_name", f"must be projects/*/locations/*/models/*, got {name!r}"))
    checkpoint = pre.get("checkpoint_id")
    if _present(checkpoint) and not isinstance(checkpoint, str):
        fails.append((f"{path}.checkpoint_id", f"must be a checkpoint id string, got {checkpoint!r}"))
    return fails


def _check_steps(n: dict[str, Any]) -> tuple[int | None, list[Failure]]:
    hp = n.get("hyper_parameters")
    if not isinstance(hp, dict):
        return None, []
    steps = total_steps(hp, n.get("training_example_count"))
    if steps is None:
        return None, []
    path = "hyper_parameters.step_count" if _is_int(hp.get("step_count")) else "hyper_parameters.epoch_count"
    if steps > MAX_TOTAL_STEPS:
        return steps, [
            (
                path,
                f"the run would take {steps} steps; the service stops at {MAX_TOTAL_STEPS} whatever you ask: "
                "lower epoch_count or step_count",
            )
        ]
    if steps <= 0:
        return steps, [
            ("training_example_count", "fewer training examples than batch_size: the run would have 0 steps")
        ]
    return steps, []


def check_inputs(inputs: dict[str, Any]) -> CheckReport:
    """Every static rule of contracts.md §2, on normalised inputs; unknown values pass until known."""
    n = normalize(inputs)
    report = CheckReport(inputs=n)
    report.failures += _check_basics(n)
    report.failures += _check_provider_settings(n)
    report.failures += _check_labels(n.get("labels"))
    report.failures += _check_hyper_parameters(n)
    report.failures += _check_rewards(n.get("rewards"))
    report.failures += _check_validation_example(n.get("validation_example"))
    report.failures += _check_pre_tuned(n.get("pre_tuned_model"))
    report.total_steps, step_fails = _check_steps(n)
    report.failures += step_fails
    report.warnings += _hp_warnings(n)
    if not report.failures:
        report.estimate = estimate(n)
        budget = n.get("max_cost_usd")
        if report.estimate is not None and _is_number(budget):
            high = report.estimate.cost_usd.high
            if high > budget:
                report.failures.append(
                    (
                        "max_cost_usd",
                        f"the estimated cost is up to ${high:,.2f}, above max_cost_usd ${budget:,.2f} "
                        f"(prices as of {report.estimate.prices_as_of}, unconfirmed): raise the budget "
                        "or shrink the run",
                    )
                )
    return report


# ---------------------------------------------------------------------------------------------
# diff


def _comparable(inputs: dict[str, Any]) -> dict[str, Any]:
    n = normalize({k: v for k, v in inputs.items() if k in INPUT_KEYS})
    return {k: v for k, v in n.items() if v is not None}


def diff_decision(olds: dict[str, Any], news: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(changed input keys, those that force a new job), compared on normalised values.

    Output keys stored in olds never count. An unknown new value counts as a change: on a key that
    shapes the job that means a replacement at preview, which is the truth if it turns out new.
    """
    old, new = _comparable(olds), _comparable(news)
    changed = sorted(
        k for k in old.keys() | new.keys() if old.get(k) != new.get(k) or contains_unknown(new.get(k))
    )
    return changed, [k for k in changed if k not in IN_PLACE_KEYS]


# ---------------------------------------------------------------------------------------------
# bodies


def expand_model(name: str, project: str, location: str) -> str:
    """A judge model's full resource name: bare names fail at reward time (contracts §2 edge 18)."""
    if name.startswith("projects/"):
        return name
    if name.startswith("publishers/"):
        return f"projects/{project}/locations/{location}/{name}"
    bare = name.removeprefix("models/")
    return f"projects/{project}/locations/{location}/publishers/google/models/{bare}"


def _parse_config(parse: dict[str, Any] | None) -> dict[str, Any] | None:
    if not parse:
        return None
    body: dict[str, Any] = {"parseType": PARSE_TYPES[parse.get("type", "identity")]}
    if parse.get("regex"):
        body["regexExtractExpression"] = parse["regex"]
    return body


def _match_rewards(spec: dict[str, Any]) -> dict[str, float]:
    """Correct/wrong rewards; default ±1 so a bare match is a full-range signal."""
    return {
        "correctAnswerReward": float(spec.get("correct_reward", 1.0)),
        "wrongAnswerReward": float(spec.get("wrong_reward", -1.0)),
    }


def _autorater_body(spec: dict[str, Any], project: str, location: str) -> dict[str, Any]:
    config: dict[str, Any] = {"autoraterModel": expand_model(spec["model"], project, location)}
    if spec.get("sampling_count") is not None:
        config["samplingCount"] = int(spec["sampling_count"])
    body: dict[str, Any] = {"autoraterConfig": config, "autoraterPrompt": spec["prompt"]}
    parse = _parse_config(spec.get("parse"))
    if parse:
        body["autoraterResponseParseConfig"] = parse
    scorer = spec.get("scorer", "conversion")
    if isinstance(scorer, dict):
        exact = scorer["exact_match"]
        body["exactMatchScorer"] = {"expression": exact["expression"], **_match_rewards(exact)}
    else:
        body["parsedResponseConversionScorer"] = {}
    return body


def _string_match_body(spec: dict[str, Any]) -> dict[str, Any]:
    expression = {"matchOperation": MATCH_OPERATIONS[spec["match"]], "expression": spec["expression"]}
    body: dict[str, Any] = {}
    if spec.get("json_key"):
        body["jsonMatchExpression"] = {"keyName": spec["json_key"], "valueStringMatchExpression": expression}
    else:
        body["stringMatchExpression"] = expression
    return {**body, **_match_rewards(spec)}


def single_reward_config(reward: dict[str, Any], project: str, location: str) -> dict[str, Any]:
    """One reward as a `SingleReinforcementTuningRewardConfig`."""
    body: dict[str, Any] = {"rewardName": reward["name"]}
    parse = _parse_config(reward.get("parse"))
    if parse:
        body["parseResponseConfig"] = parse
    if "cloud_run" in reward:
        body["cloudRunRewardScorer"] = {"cloudRunUri": reward["cloud_run"]["uri"]}
    elif "autorater" in reward:
        body["autoraterScorer"] = _autorater_body(reward["autorater"], project, location)
    elif "string_match" in reward:
        body["stringMatchRewardScorer"] = _string_match_body(reward["string_match"])
    elif "code_execution" in reward:
        body["codeExecutionRewardScorer"] = {"pythonCodeSnippet": reward["code_execution"]["python"]}
    return body


def reward_config(inputs: dict[str, Any]) -> dict[str, Any]:
    """`{"singleRewardConfig": …}` for one reward, `{"compositeRewardConfig": …}` for several."""
    n = normalize(inputs)
    project, location, rewards = n["project"], n["location"], n["rewards"]
    singles = [single_reward_config(r, project, location) for r in rewards]
    if len(singles) == 1:
        return {"singleRewardConfig": singles[0]}
    weighted = [
        {"weight": float(r.get("weight", 1.0)), "rewardConfig": s}
        for r, s in zip(rewards, singles, strict=True)
    ]
    return {"compositeRewardConfig": {"weightedRewardConfigs": weighted}}


def _hyper_parameters_body(hp: dict[str, Any]) -> dict[str, Any]:
    """Only the keys that are set; int64 fields (epochCount, stepCount) as decimal strings."""
    body: dict[str, Any] = {}
    for key, api_key in HYPER_PARAMETER_KEYS.items():
        value = hp.get(key)
        if value is None:
            continue
        body[api_key] = str(value) if key in _INT64_AS_STRING else value
    return body


def spec_hash(body: dict[str, Any]) -> str:
    """First 16 hex digits of SHA-256 over the canonical body (sorted keys, compact, no labels).

    Labels are excluded because the hash is itself a label; the same spec must always hash alike,
    so create can find a job it already made after an ambiguous failure.
    """
    canonical = {k: v for k, v in body.items() if k != "labels"}
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def build_tuning_job(inputs: dict[str, Any]) -> dict[str, Any]:
    """The `TuningJob` create body, labelled with its own spec hash (`tunifolk-spec`)."""
    n = normalize(inputs)
    spec: dict[str, Any] = {"trainingDatasetUri": n["training_dataset_uri"]}
    if n.get("validation_dataset_uri"):
        spec["validationDatasetUri"] = n["validation_dataset_uri"]
    spec["hyperParameters"] = _hyper_parameters_body(n.get("hyper_parameters") or {})
    spec.update(reward_config(n))
    body: dict[str, Any] = {}
    pre = n.get("pre_tuned_model")
    if pre:
        body["preTunedModel"] = {"tunedModelName": pre["tuned_model_name"]}
        if pre.get("checkpoint_id") is not None:
            body["preTunedModel"]["checkpointId"] = str(pre["checkpoint_id"])
    else:
        body["baseModel"] = n["base_model"]
    for key, api_key in (
        ("tuned_model_display_name", "tunedModelDisplayName"),
        ("description", "description"),
        ("service_account", "serviceAccount"),
    ):
        if n.get(key):
            body[api_key] = n[key]
    body["reinforcementTuningSpec"] = spec
    body["labels"] = {**(n.get("labels") or {}), SPEC_LABEL: spec_hash(body)}
    return body


def build_validate_request(inputs: dict[str, Any]) -> dict[str, Any]:
    """The validateReinforcementTuningReward body: field `example` (edge 4), the job's reward config."""
    n = normalize(inputs)
    example = n["validation_example"]
    return {
        "example": copy.deepcopy(example["example"]),
        "sampleResponse": copy.deepcopy(example["sample_response"]),
        **reward_config(n),
    }


# ---------------------------------------------------------------------------------------------
# validate verdict


@dataclass(frozen=True)
class Problem:
    """One reason to refuse create: which reward (None: the whole call), Google's words, aux info."""

    reward: str | None
    message: str
    aux_info: str | None = None
    code: int | None = None  # google.rpc.Code of the errorStatus, when there was one

    @property
    def is_permission_error(self) -> bool:
        """A fresh IAM grant not yet applied (edge 19): create may retry validation, bounded."""
        return self.code == 7 or "permission" in self.message.lower()

    def __str__(self) -> str:
        head = f"reward {self.reward!r}: " if self.reward else ""
        tail = f" (aux info: {self.aux_info})" if self.aux_info else ""
        return f"{head}{self.message}{tail}"


def _status_code(status: Any) -> int | None:
    code = status.get("code") if isinstance(status, dict) else None
    return code if _is_int(code) else None


def _status_message(status: Any) -> str | None:
    """A google.rpc.Status as text; None when it carries no error (code 0 is omitted in ProtoJSON)."""
    if isinstance(status, dict):
        if not status.get("code") and not status.get("message") and not status.get("details"):
            return None
        return f"{status.get('message') or 'error'} (code {status.get('code', 'unknown')})"
    if isinstance(status, str) and status:
        return status
    return None


def _reward_value(raw: Any) -> float | None:
    """A ProtoJSON float (number or "NaN"/"Infinity"/"-Infinity"/"1.5") as float; None if not one."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw)
        except ValueError:
            return None
    return None


def _entry_problems(name: str, entry: Any) -> list[Problem]:
    if not isinstance(entry, dict):
        return [Problem(name, f"unexpected reward info {entry!r}")]
    aux = entry.get("userRequestedAuxInfo")
    aux = aux if isinstance(aux, str) and aux else None
    problems: list[Problem] = []
    error = _status_message(entry.get("errorStatus"))
    if error:
        problems.append(Problem(name, error, aux, _status_code(entry.get("errorStatus"))))
    value = _reward_value(entry.get("reward", 0.0))  # absent = 0.0: ProtoJSON omits zeros
    if value is None or not math.isfinite(value):
        problems.append(Problem(name, f"reward is not a finite number: {entry.get('reward')!r}", aux))
    elif not -1.0 <= value <= 1.0:
        problems.append(Problem(name, f"reward {value} is outside [-1, 1]", aux))
    return problems


def validation_problems(response: dict[str, Any], reward_names: list[str]) -> list[Problem]:
    """Why a validate response must stop create; empty when every reward is present, finite, in range.

    Judged structurally, key by key (contracts.md §2 row 15): a substring scan would miss errors
    nested under unexpected keys and fire on a reward merely named `error_rate`.
    """
    problems: list[Problem] = []
    top = _status_message(response.get("errorStatus"))
    if top:
        problems.append(Problem(None, top, code=_status_code(response.get("errorStatus"))))
    legacy = response.get("error")
    if isinstance(legacy, str) and legacy:
        problems.append(Problem(None, legacy))
    details = response.get("rewardInfoDetails")
    for name in reward_names:
        if isinstance(details, dict) and name in details:
            problems += _entry_problems(name, details[name])
        elif not isinstance(details, dict) and len(reward_names) == 1 and "overallReward" in response:
            problems += _entry_problems(name, {"reward": response["overallReward"]})
        else:
            problems.append(Problem(name, "the reward is missing from the validate response"))
    return problems


def reward_names(inputs: dict[str, Any]) -> list[str]:
    """The configured reward names, in order: what `validation_problems` expects to see."""
    rewards = normalize(inputs).get("rewards")
    if not isinstance(rewards, list):
        return []
    return [r["name"] for r in rewards if isinstance(r, dict) and isinstance(r.get("name"), str)]


def console_url(job_name: str) -> str:
    """The Cloud console page of a tuning job `projects/{p}/locations/{l}/tuningJobs/{id}`."""
    parts = job_name.strip("/").split("/")
    fields = dict(zip(parts[0::2], parts[1::2], strict=False))
    project, location, job = (
        fields.get("projects", ""),
        fields.get("locations", ""),
        fields.get("tuningJobs", ""),
    )
    return (
        "https://console.cloud.google.com/vertex-ai/generative/language/locations/"
        f"{location}/tuning/tuningJob/{job}?project={project}"
    )
