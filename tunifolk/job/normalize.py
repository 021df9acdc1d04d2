"""Inputs in their API types, with defaults: one canonical form for checks, bodies and diffs.

Numbers reach a dynamic provider as floats (`32.0`) and may be typed `1` where `1.0` is meant;
a spec hash must not depend on either. The field table says which is which, so normalising is a
walk over it. Idempotent, never raises: a value of the wrong type stays as it is for `checks` to
report. Google-shaped messages (`validation_example`) pass through untouched.
"""

from __future__ import annotations

from typing import Any

from tunifolk.job import wire
from tunifolk.job.fields import DEFAULTS, INPUTS, Field, Kind


def normalize(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs, None-valued keys dropped, defaults applied, numbers in their API type."""
    out = _object(INPUTS, wire.drop_none(dict(inputs)))
    for name, default in DEFAULTS.items():
        if out.get(name) is None:
            out[name] = default
    return out


def _object(fields: tuple[Field, ...], value: dict[str, Any]) -> dict[str, Any]:
    by_name = {f.name: f for f in fields}
    return {k: _value(by_name[k], v) if k in by_name else v for k, v in value.items()}


def _value(field: Field, value: Any) -> Any:
    if wire.is_unknown(value):
        return value
    kind = field.kind
    if kind in (Kind.INT, Kind.INT64):
        return wire.to_int(value)
    if kind is Kind.FLOAT:
        return wire.to_float(value)
    if kind is Kind.OBJECT and isinstance(value, dict):
        return _object(field.children, value)
    if kind is Kind.LIST and isinstance(value, list):
        return [_object(field.children, v) if isinstance(v, dict) else v for v in value]
    if kind is Kind.STR and field.number_as_text and wire.is_number(value):
        return str(wire.to_int(value))  # an id typed as a number in YAML (a checkpoint id)
    return value
