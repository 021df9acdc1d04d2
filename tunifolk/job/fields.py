"""The one table of the tuning job's fields: name, config key, API field, type, default, role.

Everything about an input is written here once, and the rest of the code derives from it:

* `tunifolk/stack.py` maps stack config (camelCase, `tunifolk:` keys) onto these names and
  refuses unknown keys, naming the accepted ones;
* `normalize` coerces numbers by `kind` and applies `default`s;
* `checks` checks kinds, choices, ranges, required fields and unknown keys from here, and adds only
  the rules that span fields;
* `diff` replaces the job only for fields whose `role` is `SHAPES`; the rest update in place;
* `bodies` writes the API names (`api`) of the plain fields;
* `OUTPUTS` are the resource's outputs (the provider reads each from the job at its `api` path, or
  computes it), and the provider types its args (`RlftTuningJobArgs`) from `INPUTS`.

Rows are named by the constants of `field_names`, and so is every lookup elsewhere. docs/config.md
is the reference for users, generated from here by `tunifolk.job.docs`; a test holds it to this table.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from tunifolk.job import limits
from tunifolk.job.field_names import (
    Example,
    Generation,
    Hyper,
    Input,
    Output,
    Parse,
    PreTuned,
    Reward,
    Scorer,
    Stack,
)

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
    MESSAGE = "a Google message"  # checked against tunifolk/job/shapes.py


class Role(enum.Enum):
    """What a change to the field means for a job that already exists."""

    SHAPES = "shapes the job"  # changes what Vertex trains: the job is replaced
    PROVIDER = "provider only"  # steers the provider (waiting, cleanup, budget): updated in place
    RECORDED = "recorded"  # sent at create, cannot change on a live job: recorded in place, said so
    OUTPUT = "output"


_DERIVE = "<camelCase of the name>"


@dataclass(frozen=True)
class Field:
    """One input (or output) of the job. Nested maps and lists of maps carry `children`.

    `config` and `api` default to the camelCase of the name, which is what they are but for a few
    rows that say otherwise; None says there is none.
    """

    name: str
    kind: Kind
    doc: str
    role: Role = Role.SHAPES
    config: str | None = _DERIVE  # the stack config key; None: the stack's resources supply it
    # Where the TuningJob carries the value (a dotted path): the create body for an input, the job
    # read back for an output. None: not sent (a provider-only input never is), or, for an output,
    # computed by the provider. Read where a table meets the API: `bodies`, the provider's outputs.
    api: str | None = _DERIVE
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    above: float | None = None  # an exclusive lower bound (weights, budgets)
    children: tuple[Field, ...] = ()
    shorthand: str | None = None  # in config, a plain string stands for {shorthand: value}
    literal: str | None = None  # a string accepted in place of the map (autorater scorer)
    message: str | None = None  # for Kind.MESSAGE: the shape's name in tunifolk/job/shapes.py
    number_as_text: bool = False  # a string YAML may type as a number (an id): read as its digits

    def __post_init__(self) -> None:
        if self.api == _DERIVE:
            api = None if self.role is Role.PROVIDER else camel(self.name)
            object.__setattr__(self, "api", api)

    @property
    def config_key(self) -> str | None:
        return camel(self.name) if self.config == _DERIVE else self.config

    def child(self, name: str) -> Field | None:
        return next((c for c in self.children if c.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.children)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


# --------------------------------------------------------------------------- nested maps

PARSE = (
    Field(
        Parse.TYPE,
        Kind.ENUM,
        "how to parse the response before scoring",
        choices=("identity", "regex_extract"),
        default="identity",
    ),
    Field(Parse.REGEX, Kind.STR, "the regex for regex_extract, e.g. '<answer>(.*?)</answer>'"),
)

MATCH_REWARDS = tuple(
    Field(name, Kind.FLOAT, doc, api=api, low=-1, high=1, default=default)
    for name, doc, api, default in (
        (Scorer.CORRECT_REWARD, "reward on a match", "correctAnswerReward", 1.0),
        (Scorer.WRONG_REWARD, "reward otherwise", "wrongAnswerReward", -1.0),
    )
)

JUDGE_GENERATION = (
    Field(Generation.TEMPERATURE, Kind.FLOAT, "sampling temperature", low=0, high=2),
    Field(Generation.TOP_P, Kind.FLOAT, "nucleus sampling mass", low=0, high=1),
    Field(Generation.TOP_K, Kind.INT, "top-k sampling", low=1),
    Field(Generation.SEED, Kind.INT, "a fixed seed"),
    Field(Generation.MAX_OUTPUT_TOKENS, Kind.INT, "the judge's token cap, thinking included", low=1),
)
"""The GenerationConfig fields a judge takes here (the discovery document's GenerationConfig)."""

HYPER_PARAMETERS = (
    Field(Hyper.BATCH_SIZE, Kind.INT, "prompts per step", low=1),
    Field(Hyper.SAMPLES_PER_PROMPT, Kind.INT, "responses sampled per prompt", low=1),
    Field(
        Hyper.EPOCH_COUNT,
        Kind.INT64,
        "epochs (or step_count; neither: Google's default, min(110 × batch_size / prompts, 10))",
        low=1,
    ),
    Field(Hyper.STEP_COUNT, Kind.INT64, "steps (or epoch_count)", low=1),
    Field(
        Hyper.LEARNING_RATE_MULTIPLIER,
        Kind.FLOAT,
        "learning rate multiplier",
        low=limits.LEARNING_RATE_RANGE[0],
        high=limits.LEARNING_RATE_RANGE[1],
    ),
    Field(
        Hyper.ADAPTER_SIZE,
        Kind.ENUM,
        "LoRA adapter size",
        choices=tuple(f"ADAPTER_SIZE_{n}" for n in ("ONE", "TWO", "FOUR", "EIGHT", "SIXTEEN", "THIRTY_TWO")),
    ),
    Field(
        Hyper.MAX_OUTPUT_TOKENS,
        Kind.INT,
        "token cap per sample, thinking included",
        low=1,
        high=limits.MAX_OUTPUT_TOKENS,
    ),
    Field(
        Hyper.THINKING_LEVEL,
        Kind.ENUM,
        "thinking level (Gemini 3 and later)",
        choices=("MINIMAL", "LOW", "MEDIUM", "HIGH"),
    ),
    Field(Hyper.EVALUATE_INTERVAL, Kind.INT, "steps between evaluations", low=1),
    Field(
        Hyper.CHECKPOINT_INTERVAL,
        Kind.INT,
        "steps between checkpoints, a multiple of evaluate_interval",
        low=1,
    ),
    Field(Hyper.THINKING_BUDGET, Kind.INT, "thinking tokens, -1 dynamic, 0 none (Gemini 2.5 only)", low=-1),
)

SCORERS = (
    Field(
        Reward.CLOUD_RUN,
        Kind.OBJECT,
        "a Cloud Run reward service; in stack config `scorer` means this stack's own",
        children=(Field(Scorer.URI, Kind.STR, "the service URL (https)", required=True),),
        shorthand=Scorer.URI,
    ),
    Field(
        Reward.AUTORATER,
        Kind.OBJECT,
        "a judge model",
        children=(
            Field(
                Scorer.MODEL,
                Kind.STR,
                "the judge, e.g. gemini-2.5-pro (without it each reward call errors: docs/vertex.md, edge 5)",
                required=True,
            ),
            Field(
                Scorer.PROMPT,
                Kind.STR,
                "the judge prompt: Google fills {{response}}, {{prompt}}, {{system_instruction}} and "
                "{{references.KEY}} (a dataset line's reference)",
                required=True,
            ),
            Field(
                Scorer.SAMPLING_COUNT,
                Kind.INT,
                "judge calls per response",
                low=limits.SAMPLING_COUNT_RANGE[0],
                high=limits.SAMPLING_COUNT_RANGE[1],
            ),
            Field(
                Scorer.SCORER,
                Kind.OBJECT,
                "'conversion' (the judge's number is the reward) or {exact_match: {...}}",
                children=(
                    Field(
                        Scorer.EXACT_MATCH,
                        Kind.OBJECT,
                        "reward by matching the judge's answer",
                        required=True,
                        children=(
                            Field(Scorer.EXPRESSION, Kind.STR, "the expected answer", required=True),
                            *MATCH_REWARDS,
                        ),
                    ),
                ),
                literal="conversion",
                default="conversion",
            ),
            Field(Reward.PARSE, Kind.OBJECT, "how to parse the judge's answer", children=PARSE),
            Field(
                Scorer.GENERATION_CONFIG,
                Kind.OBJECT,
                "the judge's sampling: a noisy judge is hard to learn from (a low temperature, a seed)",
                children=JUDGE_GENERATION,
            ),
            Field(Scorer.FLIP_ENABLED, Kind.BOOL, "flip candidate and baseline (pairwise judges only)"),
        ),
    ),
    Field(
        Reward.STRING_MATCH,
        Kind.OBJECT,
        "a string match on the response",
        children=(
            Field(Scorer.EXPRESSION, Kind.STR, "the expression to match", required=True),
            Field(
                Scorer.MATCH,
                Kind.ENUM,
                "how to match",
                required=True,
                choices=("regex_contains", "partial_match", "exact_match"),
            ),
            Field(Scorer.JSON_KEY, Kind.STR, "match this first-level JSON key's value"),
            *MATCH_REWARDS,
        ),
    ),
    Field(
        Reward.CODE_EXECUTION,
        Kind.OBJECT,
        "a Python snippet defining evaluate(example, response)",
        children=(Field(Scorer.PYTHON, Kind.STR, "the snippet", required=True),),
        shorthand=Scorer.PYTHON,
    ),
)
SCORER_KINDS = tuple(s.name for s in SCORERS)

REWARD = (
    Field(Reward.NAME, Kind.STR, "the reward's name, unique", required=True),
    Field(Reward.WEIGHT, Kind.FLOAT, "its weight in a composite reward", above=0, default=1.0),
    Field(Reward.PARSE, Kind.OBJECT, "how to parse the response before scoring", children=PARSE),
    *SCORERS,
)

PRE_TUNED_MODEL = (
    Field(
        PreTuned.TUNED_MODEL_NAME,
        Kind.STR,
        "projects/P/locations/L/models/M of an earlier tuned model",
        required=True,
    ),
    Field(PreTuned.CHECKPOINT_ID, Kind.STR, "continue from this checkpoint", number_as_text=True),
)

# --------------------------------------------------------------------------- the job's inputs

INPUTS: tuple[Field, ...] = (
    Field(
        Input.PROJECT, Kind.STR, "the Google Cloud project id", config="gcp:project", api=None, required=True
    ),
    Field(
        Input.LOCATION,
        Kind.ENUM,
        "the tuning region",
        config="region",
        api=None,  # the job's parent, in the URL
        default="us-central1",
        choices=limits.TUNING_LOCATIONS,
    ),
    Field(Input.BASE_MODEL, Kind.STR, "the model to tune, e.g. gemini-3.5-flash"),
    Field(
        Input.TUNED_MODEL_DISPLAY_NAME,
        Kind.STR,
        "the tuned model's name",
        high=limits.MAX_DISPLAY_NAME_LENGTH,
    ),
    Field(Input.DESCRIPTION, Kind.STR, "the job's description"),
    Field(
        Input.LABELS,
        Kind.LABELS,
        "labels for the job (and the stack's other resources)",
        role=Role.RECORDED,
        api=None,  # written by `bodies`, with the spec label
        default={},
    ),
    Field(Input.SERVICE_ACCOUNT, Kind.STR, "the identity the job runs as"),
    Field(
        Input.TRAINING_DATASET_URI,
        Kind.STR,
        "gs:// URI of the training JSONL",
        config=None,
        api="reinforcementTuningSpec.trainingDatasetUri",
        required=True,
    ),
    Field(
        Input.VALIDATION_DATASET_URI,
        Kind.STR,
        "gs:// URI of the validation JSONL",
        config=None,
        api="reinforcementTuningSpec.validationDatasetUri",
    ),
    Field(
        Input.TRAINING_EXAMPLE_COUNT,
        Kind.INT,
        "training examples, so check can count steps at preview",
        config=None,
        api=None,
        low=1,
        high=limits.MAX_TRAINING_EXAMPLES,
    ),
    Field(
        Input.HYPER_PARAMETERS,
        Kind.OBJECT,
        "hyperparameters",
        api="reinforcementTuningSpec.hyperParameters",
        required=True,
        children=HYPER_PARAMETERS,
    ),
    Field(  # written by `bodies`: Google's reward messages are shaped unlike these
        Input.REWARDS,
        Kind.LIST,
        "the rewards: one, or several weighted",
        api=None,
        required=True,
        children=REWARD,
    ),
    Field(
        Input.VALIDATION_EXAMPLE,
        Kind.OBJECT,
        "{example, sample_response} sent to reward validation before the job is created",
        role=Role.PROVIDER,
        config=None,  # the stack names a JSON file: tunifolk:validationExample
        required=True,
        children=(
            Field(
                Example.EXAMPLE,
                Kind.MESSAGE,
                "a ReinforcementTuningExample",
                required=True,
                message="ReinforcementTuningExample",
            ),
            Field(Example.SAMPLE_RESPONSE, Kind.MESSAGE, "a Content", required=True, message="Content"),
        ),
    ),
    Field(
        Input.PRE_TUNED_MODEL,
        Kind.OBJECT,
        "continuous tuning from an earlier tuned model",
        children=PRE_TUNED_MODEL,
    ),
    Field(
        Input.WAIT,
        Kind.ENUM,
        "what `up` waits for",
        role=Role.PROVIDER,
        default="none",
        choices=("none", "running", "succeeded"),
    ),
    Field(
        Input.WAIT_TIMEOUT_SECONDS,
        Kind.FLOAT,
        "how long `up` waits (7 days by default); the job stays in state if it is reached",
        role=Role.PROVIDER,
        default=7 * 24 * 3600.0,
        above=0,
    ),
    Field(
        Input.CLEANUP,
        Kind.ENUM,
        "on delete: cancel and remove endpoints and model (all), or only cancel",
        role=Role.PROVIDER,
        default="all",
        choices=("all", "cancel"),
    ),
    Field(Input.MAX_COST_USD, Kind.FLOAT, "preview fails above this estimate", role=Role.PROVIDER, above=0),
    Field(
        Input.SERVING_CHECKPOINT,
        Kind.STR,
        "serve this checkpoint: the `endpoint` output is its endpoint, and cleanup keeps it and its "
        "model (unset: the service's final endpoint); `tunifolk eval` names the best",
        role=Role.PROVIDER,
        number_as_text=True,
    ),
)

#: The job as one map field, so the generic walkers treat the top level like any nested map.
JOB = Field("job", Kind.OBJECT, "the RlftTuningJob inputs", children=INPUTS)
INPUT_NAMES = JOB.names
DEFAULTS = {f.name: f.default for f in INPUTS if f.default is not None}
IN_PLACE = frozenset(f.name for f in INPUTS if f.role is not Role.SHAPES)

# --------------------------------------------------------------------------- outputs


def _output(name: str, kind: Kind, doc: str, api: str | None = _DERIVE) -> Field:
    """An output: read from the job at `api` (the camelCase of its name unless given), or, with
    `api=None`, computed by the provider (`providers/tuning_job.py`, `_COMPUTED`)."""
    return Field(name, kind, doc, role=Role.OUTPUT, config=None, api=api)


OUTPUTS: tuple[Field, ...] = (
    _output(Output.NAME, Kind.STR, "the job's full name (also the resource id)"),
    _output(Output.STATE, Kind.STR, "the job state"),
    _output(Output.TUNING_JOB_STATE, Kind.STR, "detail while running"),
    _output(
        Output.TUNED_MODEL, Kind.STR, "the tuned model (a version for continuous tuning)", "tunedModel.model"
    ),
    _output(Output.ENDPOINT, Kind.STR, "the tuned model's endpoint", "tunedModel.endpoint"),
    _output(Output.SERVING_HOST, Kind.STR, "the host that serves the endpoint", None),
    _output(Output.CHECKPOINTS, Kind.LIST, "[{checkpoint_id, step, epoch, endpoint}] by step", None),
    _output(Output.BEST_CHECKPOINT, Kind.OBJECT, "the checkpoint with the highest eval reward", None),
    _output(Output.EXPERIMENT, Kind.STR, "the metadata context with the run's metrics"),
    _output(Output.TOTAL_STEPS, Kind.INT, "the steps the run takes", None),
    _output(Output.COMPLETED_STEPS, Kind.INT, "the last logged step", None),
    _output(Output.ERROR, Kind.OBJECT, "{code, message} of a failed job", None),
    _output(Output.CREATE_TIME, Kind.STR, "when the job was created"),
    _output(Output.START_TIME, Kind.STR, "when it started"),
    _output(Output.END_TIME, Kind.STR, "when it ended"),
    _output(Output.VALIDATION, Kind.OBJECT, "{overall_reward, rewards} from reward validation", None),
    _output(Output.CONSOLE_URL, Kind.STR, "the job's page in the Cloud console", None),
    _output(
        Output.SPEC_HASH,
        Kind.STR,
        f"the {SPEC_LABEL} label: the hash of the job's spec",
        f"labels.{SPEC_LABEL}",
    ),
)
OUTPUT_NAMES = tuple(f.name for f in OUTPUTS)

# --------------------------------------------------------------------------- stack-only settings

DATASET = (
    Field(Stack.TRAIN, Kind.STR, "local training JSONL, relative to the repository root", required=True),
    Field(Stack.VALIDATION, Kind.STR, "local validation JSONL"),
    Field(Stack.PREFIX, Kind.STR, "object prefix in the bucket", default="rlft/v1"),
)
SCORER = (
    Field(
        Stack.IMAGE,
        Kind.STR,
        "an image built elsewhere, by digest (a tag is warned); unset: the stack builds this checkout's",
    ),
    Field(Stack.MIN_INSTANCES, Kind.INT, "Cloud Run minimum instances", default=0, low=0),
    Field(Stack.MAX_INSTANCES, Kind.INT, "Cloud Run maximum instances", default=20, low=1),
    Field(Stack.CONCURRENCY, Kind.INT, "requests per instance", default=80, low=1),
    Field(Stack.CPU, Kind.STR, "vCPUs per instance", default="1"),
    Field(Stack.MEMORY, Kind.STR, "memory per instance", default="512Mi"),
    Field(Stack.TIMEOUT_SECONDS, Kind.INT, "request timeout", default=300, low=1),
    Field(
        Stack.BASE_IMAGES,
        Kind.OBJECT,
        "the base Cloud Build builds the scorer on, by digest (unset: the Dockerfile's tag, warned)",
        children=(
            Field(
                Stack.SERVE,
                Kind.STR,
                "the served image's base, e.g. python:3.11-slim@sha256:…",
                required=True,
            ),
        ),
    ),
)
STACK_SETTINGS: tuple[Field, ...] = (
    Field(Stack.DATASET, Kind.OBJECT, "the dataset files", required=True, children=DATASET),
    Field(Stack.SCORER, Kind.OBJECT, "the Cloud Run reward scorer", children=SCORER),
    Field(
        Stack.ENABLE_APIS,
        Kind.BOOL,
        "enable the APIs the stack uses and have Google create Vertex's service agents (a fresh project)",
        default=True,
    ),
    Field(
        Stack.FORCE_DESTROY_BUCKET,
        Kind.BOOL,
        "let destroy delete the bucket with old object versions (false: destroy stops, warned at preview)",
        default=True,
    ),
    Field(
        Stack.VALIDATION_EXAMPLE,
        Kind.STR,
        "JSON file with {example, sample_response}",
        default="data/validation_example.json",
    ),
    Field(
        Stack.POLL_SECONDS,
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
