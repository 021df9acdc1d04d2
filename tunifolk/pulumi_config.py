"""Read the stack's config once, through `pulumi.Config`, into a checked `StackConfig`.

Every key the table knows is read (structured values with `get_object`), and every key the stack
sets under `tunifolk:` too, so an unknown one (a typo) fails. A wrong or missing key stops the
program with one line naming the key and the fix (a `pulumi.RunError`: no traceback).
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.runtime.config import CONFIG

from tunifolk import stack
from tunifolk.errors import ConfigError, TunifolkError
from tunifolk.job import fields
from tunifolk.paths import ROOT

_STRUCTURED = {
    fields.qualified(f)
    for f in (*fields.INPUTS, *fields.STACK_SETTINGS)
    if f.config_key and f.kind in (fields.Kind.OBJECT, fields.Kind.LIST, fields.Kind.LABELS)
}


def raw_config() -> dict[str, Any]:
    """Every config key the program reads, plus any other `tunifolk:` key the stack sets."""
    keys = {k for k in CONFIG.get() if k.startswith(f"{fields.NAMESPACE}:")} | set(fields.config_keys())
    raw: dict[str, Any] = {}
    for key in sorted(keys):
        namespace, name = key.split(":", 1)
        config = pulumi.Config(namespace)
        try:
            value = config.get_object(name) if key in _STRUCTURED else config.get(name)
        except pulumi.ConfigTypeError:
            text = config.get(name)
            raise ConfigError(f"{key} must be a map or list (YAML/JSON); got {text!r}") from None
        if value is not None:
            raw[key] = value
    return raw


def load() -> stack.StackConfig:
    """The stack config, checked; a wrong or missing key stops the program on one line."""
    try:
        return stack.parse(raw_config())
    except TunifolkError as exc:
        raise pulumi.RunError(str(exc)) from None


def validation_example(cfg: stack.StackConfig) -> dict[str, Any]:
    """The stack's `{example, sample_response}` file, read; a bad file stops the program on one line."""
    try:
        return stack.load_validation_example(ROOT / cfg.validation_example)
    except TunifolkError as exc:
        raise pulumi.RunError(str(exc)) from None
