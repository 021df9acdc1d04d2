"""ProtoJSON writing rules the real service follows, so clients meet them offline too.

Google's JSON mapping of protobuf omits a float field whose value is 0.0 (proto3 default), writes
NaN and the infinities as the strings "NaN", "Infinity", "-Infinity", writes int64 as decimal
strings, and timestamps as RFC 3339 in UTC with a trailing Z. Clients that forget any of these
break in production; the emulator makes them break here.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import orjson


def number(value: float) -> float | str:
    """A float as ProtoJSON writes it: NaN and infinities become strings."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def put_float(obj: dict[str, Any], key: str, value: float | None) -> None:
    """Set `key` unless the value is exactly 0.0 (or None), as ProtoJSON does for proto3 floats."""
    if value is None:
        return
    if not math.isnan(value) and value == 0.0:
        return
    obj[key] = number(value)


def int64(value: int) -> str:
    """int64/uint64 travel as decimal strings in ProtoJSON."""
    return str(int(value))


def timestamp(epoch_seconds: float) -> str:
    """RFC 3339 UTC with microseconds and a Z, the shape Google's timestamps take."""
    t = dt.datetime.fromtimestamp(epoch_seconds, tz=dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(body: Any) -> bytes:
    """Serialise a body already shaped by the helpers above (no NaN floats left in it)."""
    return orjson.dumps(body)


def parse_float(value: Any) -> float | None:
    """Read a float the way a ProtoJSON parser would: numbers, or the special strings."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if value in special:
            return special[value]
        try:
            return float(value)
        except ValueError:
            return None
    return None


def parse_int(value: Any) -> int | None:
    """Read an integer field that may arrive as a JSON number or a decimal string (int64)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None
