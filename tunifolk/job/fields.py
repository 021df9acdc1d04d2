"""The one table of the tuning job's fields: name, config key, API field, type, default, role.

Everything about an input is written here once, and the rest of the code derives from it:

* `providers/stack.py` maps stack config (camelCase, `tunifolk:` keys) onto these names and
  refuses unknown keys, naming the accepted ones;
* `normalize` coerces numbers by `kind` and applies `default`s;
* `checks` checks kinds, choices, ranges, required fields and unknown keys from here, and adds only
  the rules that span fields;
* `diff` replaces the job only for fields whose `role` is `SHAPES`; the rest update in place;
* `bodies` writes the API names (`api`) of the plain fields;
* `OUTPUTS` are the resource's outputs, and `RlftTuningJobArgs` the resource's typed args.

docs/config.md is the reference for users; a test holds it to this table.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, TypedDict

from tunifolk.job import limits

NAMESPACE = "tunifolk"
SPEC_LABEL = "tunifolk-spec"
SCORER_PLACEHOLDER = "scorer"
"""`cloudRun: scorer` in stack config means "the URI of this stack's RewardScorer"."""


class Kind(enum.Enum):
    """How a value is typed on input (the API's own type may differ: INT64 travels as a string)."""

    STR = "string"
    INT = "whole number"
    INT64 = "whole number (int64)"
    FLOAT = "number"
    BOOL = "true or false"
    ENUM = "one of a set"
    LABELS = "map of string to string"
    OBJECT = "map"
    LIST = "list"
    MESSAGE = "a Google message"  # checked against providers/job/shapes.py


class Role(enum.Enum):
    """What a change to the field means for a job that already exists."""

    SHAPES = "shapes the job"  # changes what Vertex trains: the job is replaced
    PROVIDER = "provider only"  # steers the provider (waiting, cleanup, budget): updated in place
    RECORDED = "recorded"  # sent at create, cannot change on a live job: recorded in place, said so
    OUTPUT = "output"


_DERIVE = "<camelCase of the name>"


@dataclass(frozen=True)
class Field:
    """One input (or output) of the job. Nested maps and lists of maps carry `children`."""

    name: str
    kind: Kind
    doc: str
    role: Role = Role.SHAPES
    config: str | None = _DERIVE  # the stack config key; None: the stack's resources supply it
    api: str | None = None  # where the TuningJob body carries the value (a dotted path), if it does
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    above: float | None = None  # an exclusive lower bound (weights, budgets)
    children: tuple[Field, ...] = ()
    shorthand: str | None = None  # in config, a plain string stands for {shorthand: value}
    literal: str | None = None  # a string accepted in place of the map (autorater scorer)
    message: str | None = None  # for Kind.MESSAGE: the shape's name in providers/job/shapes.py

    @property
    def config_key(self) -> str | None:
        return camel(self.name) if self.config == _DERIVE else self.config

    def child(self, name: str) -> Field | None:
        return next((c for c in self.children if c.name == name), None)

    def child_by_config(self, key: str) -> Field | None:
        return next((c for c in self.children if c.config_key == key), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.children)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# --------------------------------------------------------------------------- nested maps

PARSE = (
    Field(
        "type",
        Kind.ENUM,
        "how to parse the response before scoring",
        choices=("identity", "regex_extract"),
        default="identity",
    ),
    Field("regex", Kind.STR, "the regex for regex_extract, e.g. '<answer>(.*?)</answer>'"),
)

MATCH_REWARDS = (
    Field(
        "correct_reward",
        Kind.FLOAT,
        "reward on a match",
        api="correctAnswerReward",
        low=-1,
        high=1,
        default=1.0,
    ),
    Field(
        "wrong_reward", Kind.FLOAT, "reward otherwise", api="wrongAnswerReward", low=-1, high=1, default=-1.0
    ),
)

HYPER_PARAMETERS = (
    Field("batch_size", Kind.INT, "prompts per step", api="batchSize", low=1),
    Field("samples_per_prompt", Kind.INT, "responses sampled per prompt", api="samplesPerPrompt", low=1),
    Field("epoch_count", Kind.INT64, "epochs (or step_count)", api="epochCount", low=1),
    Field("step_count", Kind.INT64, "steps (or epoch_count)", api="stepCount", low=1),
    Field(
        "learning_rate_multiplier",
        Kind.FLOAT,
        "learning rate multiplier",
        api="learningRateMultiplier",
        low=limits.LEARNING_RATE_RANGE[0],
        high=limits.LEARNING_RATE_RANGE[1],
    ),
    Field(
        "adapter_size",
        Kind.ENUM,
        "LoRA adapter size",
        api="adapterSize",
        choices=tuple(f"ADAPTER_SIZE_{n}" for n in ("ONE", "TWO", "FOUR", "EIGHT", "SIXTEEN", "THIRTY_TWO")),
    ),
    Field(
        "max_output_tokens",
        Kind.INT,
        "token cap per sample, thinking included",
        api="maxOutputTokens",
        low=1,
        high=limits.MAX_OUTPUT_TOKENS,
    ),
    Field(
        "thinking_level",
        Kind.ENUM,
        "thinking level (Gemini 3 and later)",
        api="thinkingLevel",
        choices=("MINIMAL", "LOW", "MEDIUM", "HIGH"),
    ),
    Field("evaluate_interval", Kind.INT, "steps between evaluations", api="evaluateInterval", low=1),
    Field(
        "checkpoint_interval",
        Kind.INT,
        "steps between checkpoints, a multiple of evaluate_interval",
        api="checkpointInterval",
        low=1,
    ),
    Field(
        "thinking_budget",
        Kind.INT,
        "thinking tokens, -1 dynamic, 0 none (Gemini 2.5 only)",
        api="thinkingBudget",
        low=-1,
    ),
)

SCORERS = (
    Field(
        "cloud_run",
        Kind.OBJECT,
        "a Cloud Run reward service; in stack config `scorer` means this stack's own",
        children=(Field("uri", Kind.STR, "the service URL (https)", required=True),),
        shorthand="uri",
    ),
    Field(
        "autorater",
        Kind.OBJECT,
        "a judge model",
        children=(
            Field(
                "model",
                Kind.STR,
                "the judge, e.g. gemini-2.5-pro (without it each reward call errors: docs/vertex.md, edge 5)",
                required=True,
            ),
            Field("prompt", Kind.STR, "the judge prompt, with {{response}}", required=True),
            Field(
                "sampling_count",
                Kind.INT,
                "judge calls per response",
                low=limits.SAMPLING_COUNT_RANGE[0],
                high=limits.SAMPLING_COUNT_RANGE[1],
            ),
            Field(
                "scorer",
                Kind.OBJECT,
                "'conversion' (the judge's number is the reward) or {exact_match: {...}}",
                children=(
                    Field(
                        "exact_match",
                        Kind.OBJECT,
                        "reward by matching the judge's answer",
                        required=True,
                        children=(
                            Field("expression", Kind.STR, "the expected answer", required=True),
                            *MATCH_REWARDS,
                        ),
                    ),
                ),
                literal="conversion",
                default="conversion",
            ),
            Field("parse", Kind.OBJECT, "how to parse the judge's answer", children=PARSE),
        ),
    ),
    Field(
        "string_match",
        Kind.OBJECT,
        "a string match on the response",
        children=(
            Field("expression", Kind.STR, "the expression to match", required=True),
            Field(
                "match",
                Kind.ENUM,
                "how to match",
                required=True,
                choices=("regex_contains", "partial_match", "exact_match"),
            ),
            Field("json_key", Kind.STR, "match this first-level JSON key's value"),
            *MATCH_REWARDS,
        ),
    ),
    Field(
        "code_execution",
        Kind.OBJECT,
        "a Python snippet defining evaluate(example, response)",
        children=(Field("python", Kind.STR, "the snippet", required=True),),
        shorthand="python",
    ),
)
SCORER_KINDS = tuple(s.name for s in SCORERS)

REWARD = (
    Field("name", Kind.STR, "the reward's name, unique", required=True),
    Field("weight", Kind.FLOAT, "its weight in a composite reward", above=0, default=1.0),
    Field("parse", Kind.OBJECT, "how to parse the response before scoring", children=PARSE),
    *SCORERS,
)

PRE_TUNED_MODEL = (
    Field(
        "tuned_model_name",
        Kind.STR,
        "projects/P/locations/L/models/M of an earlier tuned model",
        api="tunedModelName",
        required=True,
    ),
    Field("checkpoint_id", Kind.STR, "continue from this checkpoint", api="checkpointId"),
)

# --------------------------------------------------------------------------- the job's inputs

INPUTS: tuple[Field, ...] = (
    Field("project", Kind.STR, "the Google Cloud project id", config="gcp:project", required=True),
    Field(
        "location",
        Kind.ENUM,
        "the tuning region",
        config="region",
        default="us-central1",
        choices=limits.TUNING_LOCATIONS,
    ),
    Field("base_model", Kind.STR, "the model to tune, e.g. gemini-3.5-flash", api="baseModel"),
    Field("tuned_model_display_name", Kind.STR, "the tuned model's name", api="tunedModelDisplayName"),
    Field("description", Kind.STR, "the job's description", api="description"),
    Field(
        "labels",
        Kind.LABELS,
        "labels for the job (and the stack's other resources)",
        role=Role.RECORDED,
        default={},
    ),
    Field("service_account", Kind.STR, "the identity the job runs as", api="serviceAccount"),
    Field(
        "training_dataset_uri",
        Kind.STR,
        "gs:// URI of the training JSONL",
        config=None,
        api="reinforcementTuningSpec.trainingDatasetUri",
        required=True,
    ),
    Field(
        "validation_dataset_uri",
        Kind.STR,
        "gs:// URI of the validation JSONL",
        config=None,
        api="reinforcementTuningSpec.validationDatasetUri",
    ),
    Field(
        "training_example_count",
        Kind.INT,
        "training examples, so check can count steps at preview",
        config=None,
        low=1,
        high=limits.MAX_TRAINING_EXAMPLES,
    ),
    Field(
        "hyper_parameters",
        Kind.OBJECT,
        "hyperparameters",
        api="reinforcementTuningSpec.hyperParameters",
        required=True,
        children=HYPER_PARAMETERS,
    ),
    Field("rewards", Kind.LIST, "the rewards: one, or several weighted", required=True, children=REWARD),
    Field(
        "validation_example",
        Kind.OBJECT,
        "{example, sample_response} sent to reward validation before the job is created",
        role=Role.PROVIDER,
        config=None,  # the stack names a JSON file: tunifolk:validationExample
        required=True,
        children=(
            Field(
                "example",
                Kind.MESSAGE,
                "a ReinforcementTuningExample",
                required=True,
                message="ReinforcementTuningExample",
            ),
            Field("sample_response", Kind.MESSAGE, "a Content", required=True, message="Content"),
        ),
    ),
    Field(
        "pre_tuned_model",
        Kind.OBJECT,
        "continuous tuning from an earlier tuned model",
        api="preTunedModel",
        children=PRE_TUNED_MODEL,
    ),
    Field(
        "wait",
        Kind.ENUM,
        "what `up` waits for",
        role=Role.PROVIDER,
        default="none",
        choices=("none", "running", "succeeded"),
    ),
    Field(
        "wait_timeout_seconds",
        Kind.FLOAT,
        "how long `up` waits",
        role=Role.PROVIDER,
        above=0,
    ),
    Field(
        "cleanup",
        Kind.ENUM,
        "on delete: cancel and remove endpoints and model (all), or only cancel",
        role=Role.PROVIDER,
        default="all",
        choices=("all", "cancel"),
    ),
    Field("max_cost_usd", Kind.FLOAT, "preview fails above this estimate", role=Role.PROVIDER, above=0),
)

#: The job as one map field, so the generic walkers treat the top level like any nested map.
JOB = Field("job", Kind.OBJECT, "the RlftTuningJob inputs", children=INPUTS)
INPUT_NAMES = JOB.names
DEFAULTS = {f.name: f.default for f in INPUTS if f.default is not None}
IN_PLACE = frozenset(f.name for f in INPUTS if f.role is not Role.SHAPES)

# --------------------------------------------------------------------------- outputs

OUTPUTS: tuple[Field, ...] = tuple(
    Field(name, kind, doc, role=Role.OUTPUT, config=None)
    for name, kind, doc in (
        ("name", Kind.STR, "the job's full name (also the resource id)"),
        ("state", Kind.STR, "the job state"),
        ("tuning_job_state", Kind.STR, "detail while running"),
        ("tuned_model", Kind.STR, "the tuned model (a version for continuous tuning)"),
        ("endpoint", Kind.STR, "the tuned model's endpoint"),
        ("serving_host", Kind.STR, "the host that serves the endpoint"),
        ("checkpoints", Kind.LIST, "[{checkpoint_id, step, epoch, endpoint}] by step"),
        ("best_checkpoint", Kind.OBJECT, "the checkpoint with the highest eval reward"),
        ("experiment", Kind.STR, "the metadata context with the run's metrics"),
        ("total_steps", Kind.INT, "the steps the run takes"),
        ("completed_steps", Kind.INT, "the last logged step"),
        ("error", Kind.OBJECT, "{code, message} of a failed job"),
        ("create_time", Kind.STR, "when the job was created"),
        ("start_time", Kind.STR, "when it started"),
        ("end_time", Kind.STR, "when it ended"),
        ("validation", Kind.OBJECT, "{overall_reward, rewards} from reward validation"),
        ("console_url", Kind.STR, "the job's page in the Cloud console"),
        ("spec_hash", Kind.STR, f"the {SPEC_LABEL} label: the hash of the job's spec"),
    )
)
OUTPUT_NAMES = tuple(f.name for f in OUTPUTS)

# --------------------------------------------------------------------------- stack-only settings

DATASET = (
    Field("train", Kind.STR, "local training JSONL, relative to the repository root", required=True),
    Field("validation", Kind.STR, "local validation JSONL"),
    Field("prefix", Kind.STR, "object prefix in the bucket", default="rlft/v1"),
)
SCORER = (
    Field("image", Kind.STR, "the pushed scorer image", required=True),
    Field("min_instances", Kind.INT, "Cloud Run minimum instances", default=0, low=0),
    Field("max_instances", Kind.INT, "Cloud Run maximum instances", default=20, low=1),
    Field("concurrency", Kind.INT, "requests per instance", default=80, low=1),
    Field("cpu", Kind.STR, "vCPUs per instance", default="1"),
    Field("memory", Kind.STR, "memory per instance", default="512Mi"),
    Field("timeout_seconds", Kind.INT, "request timeout", default=300, low=1),
)
STACK_SETTINGS: tuple[Field, ...] = (
    Field("dataset", Kind.OBJECT, "the dataset files", required=True, children=DATASET),
    Field("scorer", Kind.OBJECT, "the Cloud Run reward scorer", children=SCORER),
    Field("enable_apis", Kind.BOOL, "enable the APIs the stack uses", default=False),
    Field(
        "force_destroy_bucket",
        Kind.BOOL,
        "let destroy delete the bucket with old object versions",
        default=True,
    ),
    Field(
        "validation_example",
        Kind.STR,
        "JSON file with {example, sample_response}",
        default="data/validation_example.json",
    ),
    Field(
        "poll_seconds",
        Kind.FLOAT,
        "seconds between the job's first polls while `up` waits (then growing to 5 min)",
        default=15.0,
        above=0,
    ),
)
STACK = Field("stack", Kind.OBJECT, "the stack settings", children=STACK_SETTINGS)


def config_keys() -> tuple[str, ...]:
    """Every stack config key the program reads, fully qualified (`tunifolk:region`, `gcp:project`)."""
    keys = [qualified(f) for f in (*INPUTS, *STACK_SETTINGS) if f.config_key]
    return tuple(dict.fromkeys(keys))


def qualified(field: Field) -> str:
    key = field.config_key or ""
    return key if ":" in key else f"{NAMESPACE}:{key}"


# --------------------------------------------------------------------------- the resource's args

_PYTHON_TYPES: dict[Kind, Any] = {
    Kind.STR: str,
    Kind.INT: int,
    Kind.INT64: int,
    Kind.FLOAT: float,
    Kind.BOOL: bool,
    Kind.ENUM: str,
    Kind.LABELS: dict[str, str],
    Kind.OBJECT: dict[str, Any],
    Kind.LIST: list[dict[str, Any]],
    Kind.MESSAGE: dict[str, Any],
}


def args_type() -> Any:
    """A TypedDict of the inputs (snake_case, nested values plain dicts), built from the table.

    Values may be Pulumi Inputs; the TypedDict names the keys and their plain types.
    """
    return TypedDict("RlftTuningJobArgs", {f.name: _PYTHON_TYPES[f.kind] for f in INPUTS}, total=False)


# --------------------------------------------------------------------------- the reference, as Markdown


def _rule(f: Field) -> str:
    parts = []
    if f.choices:
        parts.append("one of " + ", ".join(f"`{c}`" for c in f.choices))
    if f.low is not None and f.high is not None:
        parts.append(f"in [{f.low:g}, {f.high:g}]")
    elif f.low is not None:
        parts.append(f"≥ {f.low:g}")
    elif f.high is not None:
        parts.append(f"≤ {f.high:g}")
    if f.above is not None:
        parts.append(f"> {f.above:g}")
    if f.shorthand:
        parts.append(f"a plain string means `{{{camel(f.shorthand)}: …}}`")
    if f.literal:
        parts.append(f"or `{f.literal}`")
    return "; ".join(parts)


def _default(f: Field) -> str:
    if f.required:
        return "required"
    if f.default is None or f.default == {}:
        return ""
    return f"`{str(f.default).lower() if isinstance(f.default, bool) else f.default}`"


def _config_rows(table: tuple[Field, ...], prefix: str) -> list[str]:
    rows = []
    for f in table:
        if not f.config_key:
            continue
        key = qualified(f) if not prefix else f.config_key
        kind = f.kind.value if f.kind is not Kind.MESSAGE else f"{f.message} (camelCase)"
        rows.append(f"| `{key}` | {kind} | {_default(f)} | {f.doc} | {_rule(f)} |")
    return rows


def _nested(table: tuple[Field, ...], prefix: str) -> list[str]:
    out = []
    for f in table:
        if not (f.children and f.config_key):
            continue
        title = qualified(f) if not prefix else f"{prefix}.{f.config_key}"
        title += "[]" if f.kind is Kind.LIST else ""
        out += ["", f"#### `{title}`", "", _HEAD, _LINE, *_config_rows(f.children, title)]
        out += _nested(f.children, title)
    return out


_HEAD = "| key | type | default | meaning | rule |"
_LINE = "|---|---|---|---|---|"


def markdown_reference() -> str:
    """The config keys, the job's inputs and its outputs as Markdown tables (docs/config.md)."""
    lines = ["### Stack config keys", "", _HEAD, _LINE]
    lines += _config_rows(INPUTS, "") + _config_rows(STACK_SETTINGS, "")
    lines += _nested(INPUTS, "") + _nested(STACK_SETTINGS, "")
    lines += [
        "",
        "### The job resource's inputs",
        "",
        "| input | type | a change | API field (TuningJob) |",
        "|---|---|---|---|",
    ]
    for f in INPUTS:
        api = f"`{f.api}`" if f.api else ""
        lines.append(f"| `{f.name}` | {f.kind.value} | {f.role.value} | {api} |")
    lines += ["", "### The job resource's outputs", "", "| output | meaning |", "|---|---|"]
    lines += [f"| `{f.name}` | {f.doc} |" for f in OUTPUTS]
    return "\n".join(lines) + "\n"


GENERATED_START = "<!-- generated by `python -m tunifolk.job.fields` -->\n"
GENERATED_END = "<!-- end generated -->"


def with_reference(document: str) -> str:
    """`document` with its generated block replaced by the current `markdown_reference()`."""
    head, _, rest = document.partition(GENERATED_START)
    _, _, tail = rest.partition(GENERATED_END)
    return f"{head}{GENERATED_START}{markdown_reference()}{GENERATED_END}{tail}"


if __name__ == "__main__":
    import sys
    from pathlib import Path

    if sys.argv[1:2] == ["--write"]:
        target = Path(sys.argv[2])
        target.write_text(with_reference(target.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(markdown_reference(), end="")
