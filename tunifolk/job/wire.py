"""How values arrive from Pulumi: unknowns at preview, every number a float.

Pulumi sends a dynamic provider's inputs as protobuf Structs, so `32` arrives as `32.0`, and a value
not known yet (the scorer's URI at the first preview) arrives as a sentinel. These helpers read
both without importing the Pulumi SDK, so the job model stays pure.
"""

from __future__ import annotations

import math
import re
from typing import Any

#: Pulumi's marker for a value not known yet (first preview); it may stand for any value.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

_INT_STRING_RE = re.compile(r"^-?\d+$")


def is_unknown(value: Any) -> bool:
    """True for a value Pulumi does not know yet.

    It comes in two forms: the sentinel string on the wire, and, once the SDK's dynamic-provider
    host has deserialized `check`/`diff` properties with unknowns kept, an instance of
    `pulumi.output.Unknown`. Matched by class name so this module needs no Pulumi import.
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


def present(value: Any) -> bool:
    """Known and set: unknowns are checked later, once known."""
    return value is not None and not is_unknown(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def to_int(value: Any) -> Any:
    """32.0 → 32 and "32" → 32 (an int64 arrives as a string); anything else unchanged."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_STRING_RE.match(value.strip()):
        return int(value.strip())
    return value


def to_float(value: Any) -> Any:
    """1 → 1.0, so a spec hash never depends on how a number was typed."""
    if is_int(value):
        return float(value)
    return value


def drop_none(value: Any) -> Any:
    """A deep copy without None-valued keys: an input set to None is an input not set."""
    if isinstance(value, dict):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value
