"""Every rule that can be checked without calling Google, so it fails at `pulumi preview`.

Each failure names the property path (`hyper_parameters.checkpoint_interval`) and the fix. The
per-field rules (type, choices, range, required, unknown keys) come from the field table; the rules
here span fields: the sharp edges of docs/vertex.md. A value Pulumi does not know yet (the scorer's
URI at the first preview) passes until it is known.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from tunifolk.job import limits, names, shapes, wire
from tunifolk.job.estimate import Estimate, estimate, total_steps
from tunifolk.job.field_names import Example, Hyper, Input, Parse, PreTuned, Reward, Scorer
from tunifolk.job.fields import INPUTS, SCORER_KINDS, SPEC_LABEL, Field, Kind, qualified
from tunifolk.job.judge import answer_tag
from tunifolk.job.normalize import normalize

Failure = tuple[str, str]

_GEMINI_VERSION_RE = re.compile(r"gemini-(\d+)(?:\.(\d+))?")


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


def check_inputs(inputs: dict[str, Any]) -> CheckReport:
    """Every static rule, on normalised inputs; unknown values pass until known."""
    n = normalize(inputs)
    report = CheckReport(inputs=n)
    report.failures += check_fields(INPUTS, n, "")
    for rule in RULES:
        report.failures += rule(n)
    report.total_steps, step_failures = _steps(n)
    report.failures += step_failures
    report.warnings += warnings(n)
    if not report.failures:
        report.estimate = estimate(n)
        report.failures += _budget(n, report.estimate)
    return report


# --------------------------------------------------------------------------- from the table


def check_fields(fields: tuple[Field, ...], value: dict[str, Any], path: str) -> list[Failure]:
    """Unknown keys, required fields, and each field's own rule, recursively."""
    accepted = tuple(f.name for f in fields)
    fails = [
        (_join(path, key), f"unknown input {key!r}; accepted: {', '.join(accepted)}")
        for key in value
        if key not in accepted
    ]
    for f in fields:
        fails += check_field(f, value.get(f.name), _join(path, f.name))
    return fails


def check_field(f: Field, value: Any, path: str) -> list[Failure]:
    """One field's rule from its table row: required, type, choices, range, children."""
    if wire.is_unknown(value):
        return []
    if value is None:
        return [(path, f"{f.doc} is required")] if f.required else []
    kind = f.kind
    if kind is Kind.STR:
        if not isinstance(value, str) or (f.required and not value.strip()):
            return [(path, f"{f.doc}: must be a non-empty string, got {value!r}")]
        if f.high is not None and len(value) > f.high:
            return [(path, f"{f.doc}: at most {f.high:g} characters, got {len(value)}")]
    elif kind in (Kind.INT, Kind.INT64):
        if not wire.is_int(value):
            return [(path, f"must be a whole number, got {value!r}")]
        return _range(f, value, path)
    elif kind is Kind.FLOAT:
        if not wire.is_number(value):
            return [(path, f"must be a number, got {value!r}")]
        return _range(f, value, path)
    elif kind is Kind.BOOL:
        if not isinstance(value, bool):
            return [(path, f"must be true or false, got {value!r}")]
    elif kind is Kind.ENUM:
        if value not in f.choices:
            return [(path, f"must be one of {', '.join(f.choices)}, got {value!r}")]
    elif kind is Kind.LABELS:
        return _labels(value, path)
    elif kind is Kind.MESSAGE:
        return shapes.problems(shapes.MESSAGES[f.message or ""], value, path)
    elif kind is Kind.OBJECT:
        if f.literal is not None and value == f.literal:
            return []
        if not isinstance(value, dict):
            literal = f"'{f.literal}' or " if f.literal else ""
            return [(path, f"must be {literal}a map of {', '.join(f.names)}")]
        return check_fields(f.children, value, path)
    elif kind is Kind.LIST:
        if not isinstance(value, list):
            return [(path, f"must be a list of maps of {', '.join(f.names)}")]
        fails: list[Failure] = []
        for i, item in enumerate(value):
            if wire.is_unknown(item):
                continue
            if not isinstance(item, dict):
                fails.append((f"{path}[{i}]", f"must be a map of {', '.join(f.names)}"))
            else:
                fails += check_fields(f.children, item, f"{path}[{i}]")
        return fails
    return []


def _range(f: Field, value: float, path: str) -> list[Failure]:
    if f.above is not None and not value > f.above:
        return [(path, f"must be greater than {f.above:g}, got {value!r}")]
    if f.low is not None and f.high is not None and not f.low <= value <= f.high:
        return [(path, f"must be in [{f.low:g}, {f.high:g}], got {value!r}")]
    if f.low is not None and value < f.low:
        return [(path, f"must be at least {f.low:g}, got {value!r}")]
    if f.high is not None and value > f.high:
        return [(path, f"must be at most {f.high:g}, got {value!r}")]
    return []


def _labels(labels: Any, path: str) -> list[Failure]:
    if not isinstance(labels, dict):
        return [(path, "must be a map of string to string, e.g. {team: poetry}")]
    fails: list[Failure] = []
    size = limits.MAX_LABEL_LENGTH
    for key, value in labels.items():
        where = f"{path}.{key}"
        if key == SPEC_LABEL:
            fails.append((where, f"the label {SPEC_LABEL!r} is reserved: tunifolk sets it to the spec hash"))
            continue
        if not isinstance(key, str) or not limits.label_ok(key, key=False) or not key:
            fails.append(
                (where, f"label keys: 1-{size} characters of lowercase letters, digits, '_' and '-'")
            )
        elif not limits.label_ok(key, key=True):
            fails.append((where, "label keys must start with a lowercase letter"))
        if wire.is_unknown(value):
            continue
        if not isinstance(value, str) or not limits.label_ok(value, key=False):
            fails.append(
                (where, f"label values: at most {size} characters of lowercase letters, digits, '_' and '-'")
            )
    return fails


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _hp(name: str) -> str:
    """A hyperparameter's path: `hyper_parameters.<name>`."""
    return _join(Input.HYPER_PARAMETERS, name)


# --------------------------------------------------------------------------- rules across fields


def _base_or_pre_tuned(n: dict[str, Any]) -> list[Failure]:
    base = n.get(Input.BASE_MODEL)
    if n.get(Input.PRE_TUNED_MODEL) is None and base is None:
        return [
            (Input.BASE_MODEL, "set base_model (e.g. gemini-3.5-flash), or pre_tuned_model to continue a run")
        ]
    return []


def _dataset_uris(n: dict[str, Any]) -> list[Failure]:
    fails = []
    for key in (Input.TRAINING_DATASET_URI, Input.VALIDATION_DATASET_URI):
        uri = n.get(key)
        if isinstance(uri, str) and not wire.is_unknown(uri) and not uri.startswith("gs://"):
            fails.append((key, f"must be a Cloud Storage URI gs://bucket/path.jsonl, got {uri!r}"))
    return fails


def _hyper_parameters(n: dict[str, Any]) -> list[Failure]:
    hp = n.get(Input.HYPER_PARAMETERS)
    if not isinstance(hp, dict):
        return []
    known = {k: v for k, v in hp.items() if wire.present(v)}
    fails: list[Failure] = []
    batch = known.get(Hyper.BATCH_SIZE, limits.DEFAULT_BATCH_SIZE)
    samples = known.get(Hyper.SAMPLES_PER_PROMPT, limits.DEFAULT_SAMPLES_PER_PROMPT)
    unknown = wire.is_unknown(hp.get(Hyper.BATCH_SIZE)) or wire.is_unknown(hp.get(Hyper.SAMPLES_PER_PROMPT))
    if not unknown and wire.is_int(batch) and wire.is_int(samples) and batch > 0 and samples > 0:
        product = batch * samples
        cap = limits.MAX_MULTIMODAL_BATCH_SAMPLES if _multimodal(n) else limits.MAX_BATCH_SAMPLES
        if product % limits.BATCH_SAMPLES_MULTIPLE or product > cap:
            where = Hyper.SAMPLES_PER_PROMPT if Hyper.SAMPLES_PER_PROMPT in hp else Hyper.BATCH_SIZE
            fails.append(
                (
                    _hp(where),
                    f"batch_size × samples_per_prompt = {product} must be divisible by "
                    f"{limits.BATCH_SAMPLES_MULTIPLE} and at most {cap}"
                    f"{' (multimodal data)' if cap != limits.MAX_BATCH_SAMPLES else ''}; "
                    "e.g. batch_size 32 with samples_per_prompt 16",
                )
            )
    if Hyper.EPOCH_COUNT in hp and Hyper.STEP_COUNT in hp:  # neither: Google's default epoch count
        fails.append(
            (_hp(Hyper.EPOCH_COUNT), "set epoch_count or step_count, not both (they exclude each other)")
        )
    if Hyper.THINKING_BUDGET in known:
        major = _gemini_major(n.get(Input.BASE_MODEL))
        if major is not None and major >= 3:
            fails.append(
                (
                    _hp(Hyper.THINKING_BUDGET),
                    f"thinking_budget is rejected on {n[Input.BASE_MODEL]} (Gemini 3 and later): "
                    "remove it and use thinking_level",
                )
            )
    evaluate, checkpoint = known.get(Hyper.EVALUATE_INTERVAL), known.get(Hyper.CHECKPOINT_INTERVAL)
    both = wire.is_int(evaluate) and wire.is_int(checkpoint) and evaluate > 0 and checkpoint > 0
    if both and checkpoint % evaluate:
        fails.append(
            (
                _hp(Hyper.CHECKPOINT_INTERVAL),
                f"must be a whole multiple of evaluate_interval ({evaluate}), got {checkpoint}; "
                f"e.g. {evaluate * max(1, checkpoint // evaluate)}",
            )
        )
    return fails


def _multimodal(n: dict[str, Any]) -> bool:
    """Whether the validation example (the one line of the dataset a preview sees) has a part that is
    not text: image, audio or video data caps batch × samples at 1,024, not 8,192."""
    example = (
        (n.get(Input.VALIDATION_EXAMPLE) or {}).get(Example.EXAMPLE)
        if isinstance(n.get(Input.VALIDATION_EXAMPLE), dict)
        else None
    )
    contents = example.get("contents") if isinstance(example, dict) else None
    return any(
        isinstance(part, dict) and any(k in part for k in limits.MEDIA_PARTS)
        for content in (contents if isinstance(contents, list) else [])
        if isinstance(content, dict)
        for part in (content.get("parts") if isinstance(content.get("parts"), list) else [])
    )


def _gemini_major(model: Any) -> int | None:
    """The major version of a Gemini model name (3 for gemini-3.5-flash), None if not Gemini."""
    if not isinstance(model, str):
        return None
    match = _GEMINI_VERSION_RE.search(model.rsplit("/", 1)[-1])
    return int(match.group(1)) if match else None


def _rewards(n: dict[str, Any]) -> list[Failure]:
    rewards = n.get(Input.REWARDS)
    if wire.is_unknown(rewards) or not isinstance(rewards, list):
        return []
    if not rewards:
        return [(Input.REWARDS, "at least one reward is required: e.g. [{name, weight, cloud_run: {uri}}]")]
    fails: list[Failure] = []
    if len(rewards) > limits.MAX_REWARDS:
        fails.append((Input.REWARDS, f"at most {limits.MAX_REWARDS} rewards, got {len(rewards)}"))
    seen: set[str] = set()
    for i, reward in enumerate(rewards):
        if not isinstance(reward, dict):
            continue
        path = f"{Input.REWARDS}[{i}]"
        kinds = [k for k in SCORER_KINDS if k in reward]
        if len(kinds) != 1:
            found = ", ".join(kinds) or "none"
            fails.append((path, f"set exactly one scorer of {', '.join(SCORER_KINDS)} (found: {found})"))
        for kind in kinds:
            spec = reward[kind]
            if isinstance(spec, dict):
                fails += _SCORER_RULES.get(kind, _no_rule)(spec, f"{path}.{kind}")
        fails += _parse(reward.get(Reward.PARSE), _join(path, Reward.PARSE))
        name = reward.get(Reward.NAME)
        if isinstance(name, str) and not wire.is_unknown(name):
            if name in seen:
                fails.append((_join(path, Reward.NAME), f"reward names must be unique; {name!r} repeats"))
            seen.add(name)
    return fails


def _no_rule(_spec: dict[str, Any], _path: str) -> list[Failure]:
    return []


def _parse(parse: Any, path: str) -> list[Failure]:
    if not isinstance(parse, dict) or parse.get(Parse.TYPE) != "regex_extract":
        return []
    regex = parse.get(Parse.REGEX)
    if wire.is_unknown(regex):
        return []
    if not isinstance(regex, str) or not regex:
        return [(_join(path, Parse.REGEX), "regex_extract needs a regex, e.g. '<answer>(.*?)</answer>'")]
    try:
        re.compile(regex)
    except re.error as exc:
        return [(_join(path, Parse.REGEX), f"the regex does not compile: {exc}")]
    return []


def _cloud_run(spec: dict[str, Any], path: str) -> list[Failure]:
    uri = spec.get(Scorer.URI)
    if not isinstance(uri, str) or wire.is_unknown(uri):
        return []
    parsed = urlparse(uri)
    local = parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "localhost")
    if not (parsed.scheme == "https" and parsed.hostname) and not local:
        return [
            (
                _join(path, Scorer.URI),
                f"must be an https:// URL (http only for 127.0.0.1/localhost), got {uri!r}",
            )
        ]
    return []


def converts_whole_answer(spec: dict[str, Any]) -> bool:
    """The judge's number is the reward (`scorer: conversion`) and its answer is not parsed first:
    Google converts the autorater's whole (parsed) answer to a float, so words around it fail."""
    parse = spec.get(Reward.PARSE)
    regex = isinstance(parse, dict) and parse.get(Parse.TYPE) == "regex_extract"
    return spec.get(Scorer.SCORER, "conversion") == "conversion" and not regex


def _autorater(spec: dict[str, Any], path: str) -> list[Failure]:
    fails = _parse(spec.get(Reward.PARSE), _join(path, Reward.PARSE))
    tag = answer_tag(spec.get(Scorer.PROMPT))
    if tag and converts_whole_answer(spec):
        fails.append(
            (
                _join(path, Reward.PARSE),
                f"the prompt asks for the answer inside <{tag}></{tag}>, but the judge's whole answer "
                "would be read as the number and every call would error: set parse: {type: "
                f"regex_extract, regex: '<{tag}>(.*?)</{tag}>'}}",
            )
        )
    return fails


def _code_execution(spec: dict[str, Any], path: str) -> list[Failure]:
    code = spec.get(Scorer.PYTHON)
    if not isinstance(code, str) or not code.strip():
        return []
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [(_join(path, Scorer.PYTHON), f"the snippet does not parse: {exc.msg} (line {exc.lineno})")]
    if not any(isinstance(node, ast.FunctionDef) and node.name == "evaluate" for node in tree.body):
        return [
            (_join(path, Scorer.PYTHON), "the snippet must define def evaluate(example, response) -> float")
        ]
    return []


_SCORER_RULES: dict[str, Callable[[dict[str, Any], str], list[Failure]]] = {
    Reward.CLOUD_RUN: _cloud_run,
    Reward.AUTORATER: _autorater,
    Reward.CODE_EXECUTION: _code_execution,
}


def _pre_tuned(n: dict[str, Any]) -> list[Failure]:
    """The model to continue from goes into URLs (its cleanup deletes a version of it): it must be a
    model name by `names.name_problem`, segment by segment, so `models/M#@1` fails here at preview
    instead of reaching `DELETE …/models/M`, which takes every version."""
    pre = n.get(Input.PRE_TUNED_MODEL)
    name = pre.get(PreTuned.TUNED_MODEL_NAME) if isinstance(pre, dict) else None
    if not isinstance(name, str) or wire.is_unknown(name):
        return []
    problem = names.name_problem(name, "model")
    if problem is None:
        return []
    row = next(f for f in INPUTS if f.name == Input.PRE_TUNED_MODEL)
    child = next(f for f in row.children if f.name == PreTuned.TUNED_MODEL_NAME)
    key = f"{qualified(row)}.{child.config_key}"
    return [
        (
            _join(Input.PRE_TUNED_MODEL, PreTuned.TUNED_MODEL_NAME),
            f"must be projects/P/locations/L/models/M (optionally @version); set {key} to one: {problem}",
        )
    ]


def _validation_example(n: dict[str, Any]) -> list[Failure]:
    """The example must hold a prompt: Google answers an empty one with a bare 400 at create."""
    value = n.get(Input.VALIDATION_EXAMPLE)
    example = value.get(Example.EXAMPLE) if isinstance(value, dict) else None
    if not isinstance(example, dict) or wire.contains_unknown(example):
        return []
    contents = example.get("contents")
    if not isinstance(contents, list) or not contents:
        path = _join(_join(Input.VALIDATION_EXAMPLE, Example.EXAMPLE), "contents")
        return [(path, "must be a non-empty list of Content (the prompt)")]
    return []


RULES: tuple[Callable[[dict[str, Any]], list[Failure]], ...] = (
    _base_or_pre_tuned,
    _dataset_uris,
    _hyper_parameters,
    _rewards,
    _pre_tuned,
    _validation_example,
)


# --------------------------------------------------------------------------- steps, budget, warnings


def _steps(n: dict[str, Any]) -> tuple[int | None, list[Failure]]:
    hp = n.get(Input.HYPER_PARAMETERS)
    if not isinstance(hp, dict):
        return None, []
    steps = total_steps(hp, n.get(Input.TRAINING_EXAMPLE_COUNT))
    if steps is None:
        return None, []
    path = _hp(Hyper.STEP_COUNT if wire.is_int(hp.get(Hyper.STEP_COUNT)) else Hyper.EPOCH_COUNT)
    if steps > limits.MAX_TOTAL_STEPS:
        return steps, [
            (
                path,
                f"the run would take {steps} steps; the service stops at {limits.MAX_TOTAL_STEPS} "
                "whatever you ask: lower epoch_count or step_count",
            )
        ]
    if steps <= 0:
        return steps, [
            (
                Input.TRAINING_EXAMPLE_COUNT,
                "fewer training examples than batch_size: the run would have 0 steps",
            )
        ]
    return steps, []


def _budget(n: dict[str, Any], est: Estimate | None) -> list[Failure]:
    budget = n.get(Input.MAX_COST_USD)
    if est is None or not wire.is_number(budget) or est.cost_usd.high <= budget:
        return []
    return [
        (
            Input.MAX_COST_USD,
            f"the estimated cost is up to ${est.cost_usd.high:,.2f}, above max_cost_usd ${budget:,.2f} "
            f"(prices as of {est.prices_as_of}, unconfirmed): raise the budget or shrink the run",
        )
    ]


def warnings(n: dict[str, Any]) -> list[str]:
    """The rules that only warn: a low token cap with HIGH thinking, a base model or a thinking level
    Google's RLFT pages do not list, a judge read whole, and no validation set."""
    out: list[str] = []
    hp = n.get(Input.HYPER_PARAMETERS)
    if isinstance(hp, dict):
        tokens, level = hp.get(Hyper.MAX_OUTPUT_TOKENS), hp.get(Hyper.THINKING_LEVEL, "HIGH")
        if wire.is_int(tokens) and tokens < limits.MAX_OUTPUT_TOKENS and level == "HIGH":
            out.append(
                f"hyper_parameters.max_output_tokens is {tokens}, below {limits.MAX_OUTPUT_TOKENS}, with "
                "HIGH thinking: the cap includes thinking tokens and can truncate answers; a lower cap "
                "saves nothing, since generations are billed by their real length"
            )
    location, listed = n.get(Input.LOCATION), limits.GUIDE_TUNING_LOCATIONS
    if isinstance(location, str) and location in limits.TUNING_LOCATIONS and location not in listed:
        out.append(
            f"location {location}: Google's RLFT overview lists only {', '.join(listed)} for tuning; "
            "the notebook this project started from saw it work, but Vertex may refuse it at create"
        )
    base = n.get(Input.BASE_MODEL)
    if (
        isinstance(base, str)
        and not wire.is_unknown(base)
        and base.rsplit("/", 1)[-1] not in limits.RLFT_BASE_MODELS
    ):
        out.append(
            f"base_model {base} is not among the base models Google's RLFT pages name "
            f"({', '.join(limits.RLFT_BASE_MODELS)}): Vertex may refuse it when the job is created"
        )
    rewards = n.get(Input.REWARDS)
    for i, reward in enumerate(rewards if isinstance(rewards, list) else []):
        judge = reward.get(Reward.AUTORATER) if isinstance(reward, dict) else None
        if (
            isinstance(judge, dict)
            and converts_whole_answer(judge)
            and not answer_tag(judge.get(Scorer.PROMPT))
        ):
            out.append(
                f"{Input.REWARDS}[{i}].{Reward.AUTORATER}: the judge's whole answer is read as the number "
                "(no parse): a judge that writes a word besides it errors that call; ask for the number "
                "inside tags and set parse: {type: regex_extract, regex: '<answer>(.*?)</answer>'}"
            )
    level = hp.get(Hyper.THINKING_LEVEL) if isinstance(hp, dict) else None
    if isinstance(level, str) and not wire.is_unknown(level) and level not in limits.GUIDE_THINKING_LEVELS:
        out.append(
            f"hyper_parameters.thinking_level {level} is in the API's enum but not among the values the "
            f"RLFT hyperparameters guide lists ({', '.join(limits.GUIDE_THINKING_LEVELS)}): Vertex may "
            "refuse it when the job is created (a replacement then leaves the old job as it is)"
        )
    if n.get(Input.VALIDATION_DATASET_URI) is None:
        out.append(
            "validation_dataset_uri is not set: the service will split off 25% of the training set "
            "(at least 50 examples) for evaluation"
        )
    return out
