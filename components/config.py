"""Read the stack's config once, through `pulumi.Config`, into a checked `StackConfig`.

Structured values (`tunifolk:dataset`, `tunifolk:rewards`, ...) arrive as JSON text; plain ones as
strings. Every key the stack sets under `tunifolk:` is read, so an unknown one (a typo) fails too.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
from pulumi.runtime.config import CONFIG

from providers import stack


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def raw_config() -> dict[str, Any]:
    """Every `tunifolk:` key the stack sets, plus `gcp:project`, decoded."""
    keys = {k for k in CONFIG.get() if k.startswith(f"{stack.NS}:")}
    keys |= set(stack.REQUIRED) | set(stack.OPTIONAL)
    raw: dict[str, Any] = {}
    for key in sorted(keys):
        namespace, name = key.split(":", 1)
        value = pulumi.Config(namespace).get(name)
        if value is not None:
            raw[key] = _value(value)
    return raw


def load() -> stack.StackConfig:
    """The stack config, checked; a wrong or missing key raises naming the key and the fix."""
    return stack.parse(raw_config())
