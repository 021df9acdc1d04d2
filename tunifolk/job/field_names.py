"""The names of the field table's rows, one constant each, grouped by the map they sit in.

The table (`fields.py`) names each row with these constants, and code that reads or writes an
input or output names it the same way (`hp.get(Hyper.EPOCH_COUNT)`), never by a string: a
renamed or removed field then fails at import, where a quoted name would silently read None.
Groups keep apart the names that mean different things in different maps (a reward's `name` and
the job's `name` output; the `validation_example` input and the stack's file of that name).
"""

from __future__ import annotations

from typing import Final


class Input:
    """The job's inputs (`fields.INPUTS`)."""

    PROJECT: Final = "project"
    LOCATION: Final = "location"
    BASE_MODEL: Final = "base_model"
    TUNED_MODEL_DISPLAY_NAME: Final = "tuned_model_display_name"
    DESCRIPTION: Final = "description"
    LABELS: Final = "labels"
    SERVICE_ACCOUNT: Final = "service_account"
    TRAINING_DATASET_URI: Final = "training_dataset_uri"
    VALIDATION_DATASET_URI: Final = "validation_dataset_uri"
    TRAINING_EXAMPLE_COUNT: Final = "training_example_count"
    HYPER_PARAMETERS: Final = "hyper_parameters"
    REWARDS: Final = "rewards"
    VALIDATION_EXAMPLE: Final = "validation_example"
    PRE_TUNED_MODEL: Final = "pre_tuned_model"
    WAIT: Final = "wait"
    WAIT_TIMEOUT_SECONDS: Final = "wait_timeout_seconds"
    CLEANUP: Final = "cleanup"
    MAX_COST_USD: Final = "max_cost_usd"
    SERVING_CHECKPOINT: Final = "serving_checkpoint"


class Hyper:
    """`hyper_parameters`."""

    BATCH_SIZE: Final = "batch_size"
    SAMPLES_PER_PROMPT: Final = "samples_per_prompt"
    EPOCH_COUNT: Final = "epoch_count"
    STEP_COUNT: Final = "step_count"
    LEARNING_RATE_MULTIPLIER: Final = "learning_rate_multiplier"
    ADAPTER_SIZE: Final = "adapter_size"
    MAX_OUTPUT_TOKENS: Final = "max_output_tokens"
    THINKING_LEVEL: Final = "thinking_level"
    EVALUATE_INTERVAL: Final = "evaluate_interval"
    CHECKPOINT_INTERVAL: Final = "checkpoint_interval"
    THINKING_BUDGET: Final = "thinking_budget"


class PreTuned:
    """`pre_tuned_model`."""

    TUNED_MODEL_NAME: Final = "tuned_model_name"
    CHECKPOINT_ID: Final = "checkpoint_id"


class Reward:
    """One of `rewards`: its name, weight, parse, and its scorer (one of the four kinds)."""

    NAME: Final = "name"
    WEIGHT: Final = "weight"
    PARSE: Final = "parse"
    CLOUD_RUN: Final = "cloud_run"
    AUTORATER: Final = "autorater"
    STRING_MATCH: Final = "string_match"
    CODE_EXECUTION: Final = "code_execution"


class Parse:
    """A `parse` map (a reward's, an autorater's)."""

    TYPE: Final = "type"
    REGEX: Final = "regex"


class Scorer:
    """The settings inside a scorer's map (`cloud_run`, `autorater`, `string_match`, `code_execution`)."""

    URI: Final = "uri"
    MODEL: Final = "model"
    PROMPT: Final = "prompt"
    SAMPLING_COUNT: Final = "sampling_count"
    SCORER: Final = "scorer"
    EXACT_MATCH: Final = "exact_match"
    EXPRESSION: Final = "expression"
    MATCH: Final = "match"
    JSON_KEY: Final = "json_key"
    PYTHON: Final = "python"
    CORRECT_REWARD: Final = "correct_reward"
    WRONG_REWARD: Final = "wrong_reward"
    GENERATION_CONFIG: Final = "generation_config"
    FLIP_ENABLED: Final = "flip_enabled"


class Generation:
    """A judge's `generation_config` (Google's GenerationConfig, the settings a judge needs)."""

    TEMPERATURE: Final = "temperature"
    TOP_P: Final = "top_p"
    TOP_K: Final = "top_k"
    SEED: Final = "seed"
    MAX_OUTPUT_TOKENS: Final = "max_output_tokens"


class Example:
    """`validation_example`."""

    EXAMPLE: Final = "example"
    SAMPLE_RESPONSE: Final = "sample_response"


class Output:
    """The job resource's outputs (`fields.OUTPUTS`)."""

    NAME: Final = "name"
    STATE: Final = "state"
    TUNING_JOB_STATE: Final = "tuning_job_state"
    TUNED_MODEL: Final = "tuned_model"
    ENDPOINT: Final = "endpoint"
    SERVING_HOST: Final = "serving_host"
    CHECKPOINTS: Final = "checkpoints"
    BEST_CHECKPOINT: Final = "best_checkpoint"
    EXPERIMENT: Final = "experiment"
    TOTAL_STEPS: Final = "total_steps"
    COMPLETED_STEPS: Final = "completed_steps"
    ERROR: Final = "error"
    CREATE_TIME: Final = "create_time"
    START_TIME: Final = "start_time"
    END_TIME: Final = "end_time"
    VALIDATION: Final = "validation"
    CONSOLE_URL: Final = "console_url"
    SPEC_HASH: Final = "spec_hash"


class Stack:
    """The stack's own settings (`fields.STACK_SETTINGS`), and those of its dataset and scorer."""

    DATASET: Final = "dataset"
    SCORER: Final = "scorer"
    ENABLE_APIS: Final = "enable_apis"
    FORCE_DESTROY_BUCKET: Final = "force_destroy_bucket"
    VALIDATION_EXAMPLE: Final = "validation_example"
    POLL_SECONDS: Final = "poll_seconds"
    # tunifolk:dataset
    TRAIN: Final = "train"
    VALIDATION: Final = "validation"
    PREFIX: Final = "prefix"
    # tunifolk:scorer
    IMAGE: Final = "image"
    MIN_INSTANCES: Final = "min_instances"
    MAX_INSTANCES: Final = "max_instances"
    CONCURRENCY: Final = "concurrency"
    CPU: Final = "cpu"
    MEMORY: Final = "memory"
    TIMEOUT_SECONDS: Final = "timeout_seconds"
    BASE_IMAGES: Final = "base_images"
    # tunifolk:scorer.baseImages: the Dockerfile's base, by digest
    SERVE: Final = "serve"
