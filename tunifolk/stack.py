"""The stack configuration, read and checked in one place, from the field table.

Pulumi config keys are camelCase (`tunifolk:hyperParameters.batchSize`); the job's inputs are
snake_case (`hyper_parameters.batch_size`). The field table (`providers/job/fields.py`) names both,
so this module is a walk over it: it maps each key, and refuses anything it does not know, naming
the key and the keys it accepts. A typo in `Pulumi.<stack>.yaml` fails the program at preview
instead of silently falling back to a default. Values are converted, not judged: the rules (ranges,
choices, the sharp edges) are the provider's check, which names the input's path.

It is pure (a mapping in, a `StackConfig` out): the Pulumi program feeds it from `pulumi.Config`,
the CLI straight from the YAML file, so both read the same thing. docs/config.md is the reference.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tunifolk import cloudrun_limits, image
from tunifolk.errors import ConfigError
from tunifolk.job import fields as F
from tunifolk.job.field_names import Example, Input, Stack
from tunifolk.job.fields import Field, Kind
from tunifolk.job.inputs import uses_scorer

__all__ = [
    "ConfigError",
    "DatasetConfig",
    "ScorerConfig",
    "Settings",
    "StackConfig",
    "load_stack_file",
    "load_validation_example",
    "parse",
]


def _settings_class(name: str, table: tuple[Field, ...], doc: str) -> type:
    """A frozen dataclass with one attribute per table row (so the names live only in the table)."""
    cls = dataclasses.make_dataclass(
        name,
        [
            (f.name, Any, dataclasses.field(default=f.default)) if not f.required else (f.name, Any)
            for f in sorted(table, key=lambda f: not f.required)
        ],
        frozen=True,
    )
    cls.__doc__ = doc
    return cls


DatasetConfig = _settings_class("DatasetConfig", F.DATASET, "`tunifolk:dataset`: local JSONL files.")
ScorerConfig = _settings_class("ScorerConfig", F.SCORER, "`tunifolk:scorer`: the Cloud Run service.")


Settings = _settings_class(
    "Settings",
    tuple(f for f in F.STACK_SETTINGS if f.name not in (Stack.DATASET, Stack.SCORER)),
    "The stack's own settings besides the dataset and the scorer.",
)


@dataclasses.dataclass(frozen=True)
class StackConfig:
    """Everything the program needs from config, already mapped: `job` holds the RlftTuningJob
    inputs that config decides (snake_case); `dataset`, `scorer` and `settings` are the stack's
    own. Each setting reads as an attribute too (`cfg.enable_apis`)."""

    job: dict[str, Any]
    dataset: Any  # DatasetConfig
    scorer: Any  # ScorerConfig | None
    settings: Any  # Settings

    def __getattr__(self, name: str) -> Any:
        if name == "settings":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.settings, name)

    @property
    def project(self) -> str:
        return str(self.job[Input.PROJECT])

    @property
    def region(self) -> str:
        return str(self.job.get(Input.LOCATION) or F.DEFAULTS[Input.LOCATION])

    @property
    def labels(self) -> dict[str, str]:
        return dict(self.job.get(Input.LABELS) or {})

    @property
    def uses_scorer(self) -> bool:
        return uses_scorer(self.job.get(Input.REWARDS) or [])


# --------------------------------------------------------------------------- conversion


def _convert(field: Field, value: Any, key: str) -> Any:
    """A config value as the input's value: keys to snake_case, numbers from strings, shorthands."""
    kind = field.kind
    if kind is Kind.OBJECT:
        if isinstance(value, str) and field.literal is not None and value == field.literal:
            return value
        if isinstance(value, str) and field.shorthand:
            return {field.shorthand: value}
        return _object(field.children, value, key)
    if kind is Kind.LIST:
        if not isinstance(value, list):
            raise ConfigError(f"{key} must be a list; got {value!r}")
        return [_object(field.children, item, f"{key}[{i}]") for i, item in enumerate(value)]
    if kind is Kind.LABELS:
        if not isinstance(value, dict):
            raise ConfigError(
                f"{key} must be a map of label to value, e.g. `pulumi config set --path {key}.team poetry`; "
                f"got {value!r}"
            )
        return {str(k): v if isinstance(v, str) else str(v) for k, v in value.items()}
    if kind is Kind.BOOL:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ConfigError(f"{key} must be true or false; got {value!r}")
    if kind in (Kind.INT, Kind.INT64, Kind.FLOAT):
        return _number(value, key, whole=kind is not Kind.FLOAT)
    if kind in (Kind.STR, Kind.ENUM) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


def _number(value: Any, key: str, *, whole: bool) -> int | float:
    if isinstance(value, bool):
        raise ConfigError(f"{key} must be a number; got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} must be a number; got {value!r}") from None
    if whole:
        if not number.is_integer():
            raise ConfigError(f"{key} must be a whole number; got {value!r}")
        return int(number)
    return number


def _object(table: tuple[Field, ...], value: Any, key: str) -> dict[str, Any]:
    accepted = [f.config_key for f in table if f.config_key]
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a map with keys {', '.join(accepted)}; got {value!r}")
    out: dict[str, Any] = {}
    for name, item in value.items():
        field = next((f for f in table if f.config_key == name), None)
        if field is None:
            raise ConfigError(f"{key}.{name} is not a known key: use one of {', '.join(accepted)}")
        if item is not None:
            out[field.name] = _convert(field, item, f"{key}.{name}")
    for field in table:
        if field.required and field.config_key and out.get(field.name) in (None, "", [], {}):
            raise ConfigError(f"{key}.{field.config_key} is missing: set {field.doc}")
    return out


_FIXES = {
    "gcp:project": "pulumi config set gcp:project YOUR_PROJECT_ID",
    "tunifolk:dataset": "set tunifolk:dataset to {train: data/train.jsonl, validation: ...}",
    "tunifolk:hyperParameters": "set tunifolk:hyperParameters (see Pulumi.dev.yaml and docs/config.md)",
    "tunifolk:rewards": "list at least one reward under tunifolk:rewards (see docs/config.md)",
}


def parse(raw: Mapping[str, Any]) -> StackConfig:
    """Check and convert a stack's config (keys like `tunifolk:region`, `gcp:project`)."""
    known = F.config_keys()
    for key in raw:
        if key.startswith(f"{F.NAMESPACE}:") and key not in known:
            names = ", ".join(sorted(k.split(":", 1)[1] for k in known if k.startswith(F.NAMESPACE)))
            raise ConfigError(f"{key} is not a tunifolk setting: use one of {names}")
    values: dict[str, dict[str, Any]] = {"job": {}, "stack": {}}
    for group, table in (("job", F.INPUTS), ("stack", F.STACK_SETTINGS)):
        for field in table:
            if not field.config_key:
                continue
            key = F.qualified(field)
            value = raw.get(key)
            if value is None or value == "":
                if field.required:
                    raise ConfigError(f"{key} is missing: {_FIXES.get(key, 'set ' + field.doc)}")
                continue
            values[group][field.name] = _convert(field, value, key)
    job, stack = values["job"], values["stack"]
    if not job.get(Input.BASE_MODEL) and not job.get(Input.PRE_TUNED_MODEL):
        raise ConfigError(
            f"{F.NAMESPACE}:baseModel is missing: pulumi config set tunifolk:baseModel gemini-3.5-flash "
            "(or set tunifolk:preTunedModel to continue from a tuned model)"
        )
    if job.get(Input.PRE_TUNED_MODEL):
        job.pop(Input.BASE_MODEL, None)  # the pre-tuned model decides the base
    dataset = stack.pop(Stack.DATASET)
    dataset_key = F.qualified(next(f for f in F.STACK_SETTINGS if f.name == Stack.DATASET))
    for split in (Stack.TRAIN, Stack.VALIDATION):
        if dataset.get(split) is not None:
            dataset[split] = _project_file(dataset[split], f"{dataset_key}.{split}")
    if dataset.get(Stack.PREFIX):
        dataset[Stack.PREFIX] = _object_prefix(dataset[Stack.PREFIX], f"{dataset_key}.{Stack.PREFIX}")
    config = StackConfig(
        job=job,
        dataset=DatasetConfig(**dataset),
        scorer=ScorerConfig(**stack.pop(Stack.SCORER)) if Stack.SCORER in stack else None,
        settings=Settings(**stack),
    )
    if config.uses_scorer and config.scorer is None:
        raise ConfigError(
            f"a reward uses `cloudRun: scorer` but {F.NAMESPACE}:scorer is not set: set it, e.g. "
            "pulumi config set --path tunifolk:scorer.maxInstances 20 (the stack builds the image)"
        )
    if config.scorer is not None:
        _check_scorer_limits(config.scorer)
        _check_base_images(config.scorer)
    return config


def _check_base_images(scorer: Any) -> None:
    """The build's bases, when pinned, are pinned by digest: a tag there would move under the build."""
    for role, ref in (getattr(scorer, "base_images", None) or {}).items():
        if not image.IMAGE_BY_DIGEST.match(str(ref)):
            raise ConfigError(
                f"{F.NAMESPACE}:scorer.baseImages.{role} {ref!r} is not an image by digest: give "
                "NAME@sha256:<64 hex digits>, e.g. python:3.11-slim@$(crane digest python:3.11-slim)"
            )


def _check_scorer_limits(scorer: Any) -> None:
    """Cloud Run's cpu/memory/concurrency limits (tunifolk/cloudrun_limits.py, the table the stand-in
    refuses by), checked at preview: Cloud Run would refuse the service only at `up`, after the bucket
    and the dataset were made. The scorer always runs with request-based billing (cpu_idle)."""
    found = cloudrun_limits.refusals(scorer.cpu, scorer.memory, int(scorer.concurrency))
    key = f"{F.NAMESPACE}:scorer"
    if found:
        raise ConfigError(
            f"{key} (cpu {scorer.cpu}, memory {scorer.memory}, concurrency {scorer.concurrency}): Cloud Run "
            f"would refuse it: {found[0].message} Set {key}.{found[0].fix}"
        )
    need, memory = (
        cloudrun_limits.scorer_memory_needed(int(scorer.concurrency)),
        cloudrun_limits.parse_memory(scorer.memory),
    )
    if memory is not None and memory < need:
        mib = cloudrun_limits.MI
        raise ConfigError(
            f"{key}.memory {scorer.memory} is too little for concurrency {scorer.concurrency}: the scorer "
            f"needs {need // mib} MiB with {scorer.concurrency} requests of up to 1 MiB in flight "
            f"(bench/bench_memory.py). Set {key}.memory to {-(-need // (256 * mib)) * 256}Mi, or lower "
            f"{key}.concurrency to {cloudrun_limits.scorer_concurrency_within(memory)}"
        )


def _project_file(value: Any, key: str) -> str:
    """A dataset file named relative to the project root and staying inside it (checked here by its
    text; the program resolves links too, `components.dataset.local_file`): an absolute path, `..`,
    `~` or an empty segment is refused, since whatever file it names would be uploaded."""
    text = str(value)
    segments = text.replace("\\", "/").split("/")
    if (
        not text.strip()
        or Path(text).is_absolute()
        or text.startswith(("/", "~"))
        or any(seg in ("", "..") for seg in segments)
        or "\0" in text
    ):
        raise ConfigError(
            f"{key} must name a file inside the project, relative to its root (like data/train.jsonl); "
            f"got {text!r}"
        )
    return text


def _object_prefix(value: Any, key: str) -> str:
    """The object prefix in the bucket, without its trailing `/`: segments of a plain folder path
    (no leading `/`, no empty, `.` or `..` segment, no CR/LF, backslash or NUL). GCS would take some
    of these as flat names, but they read as paths wherever objects become files (the stand-in, the
    emulator, `gcloud storage cp -r`), and `../..` once wrote outside the stand-in's folder."""
    text = str(value).rstrip("/")
    segments = text.split("/")
    if (
        text.startswith("/")
        or any(seg in ("", ".", "..") for seg in segments)
        or any(c in text for c in "\r\n\0\\")
        or len(text.encode("utf-8", "surrogatepass")) > 900
    ):
        raise ConfigError(
            f"{key} must be a folder path in the bucket like rlft/v1 (no leading '/', no empty, '.' or "
            f"'..' segment); got {value!r}"
        )
    return text


def load_stack_file(path: str | Path) -> StackConfig:
    """Read `Pulumi.<stack>.yaml` directly (the CLI needs no Pulumi CLI for this)."""
    import yaml  # pyyaml arrives with the pulumi SDK

    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{Path(path).name} is not valid YAML: {exc}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{Path(path).name} must be a YAML map with a `config:` section")
    return parse(document.get("config") or {})


def load_validation_example(path: Path) -> dict[str, Any]:
    """`{example, sample_response}` from a JSON file (Google's camelCase shapes inside)."""
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"tunifolk:validationExample {path}: {exc}") from None
    if not isinstance(data, dict) or set(data) != {Example.EXAMPLE, Example.SAMPLE_RESPONSE}:
        raise ConfigError(
            f"tunifolk:validationExample {path} must hold an object with exactly the keys example and "
            "sample_response"
        )
    return data
