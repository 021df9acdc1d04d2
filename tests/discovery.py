"""Validate JSON bodies against the aiplatform v1beta1 discovery document.

The discovery document ships inside google-api-python-client (a test dependency), so the shapes
we send and the shapes the emulator answers are checked against Google's own published schema,
not against our reading of it. Unknown keys, wrong JSON types and bad enum values all fail.
ProtoJSON rules apply: int64/uint64 are decimal strings, floats may be the strings "NaN",
"Infinity" and "-Infinity".
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import googleapiclient

PREFIX = "GoogleCloudAiplatformV1beta1"
_DOC = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents" / "aiplatform.v1beta1.json"
_SPECIAL_FLOATS = {"NaN", "Infinity", "-Infinity"}


class ShapeError(AssertionError):
    """A body does not match the discovery document; the message names the JSON path."""


@functools.cache
def document() -> dict[str, Any]:
    return json.loads(_DOC.read_text())


def schemas() -> dict[str, Any]:
    return document()["schemas"]


def _schema_id(name: str) -> str:
    if name in schemas():
        return name
    if PREFIX + name in schemas():
        return PREFIX + name
    raise KeyError(f"no schema {name!r} in the discovery document")


def validate(name: str, body: Any) -> None:
    """Raise ShapeError unless `body` is a valid instance of schema `name` (prefix optional)."""
    _check({"$ref": _schema_id(name)}, body, "$")


@functools.cache
def other_schemas(api: str) -> dict[str, Any]:
    """The schemas of another discovery document shipped with the client, e.g. "bigquery.v2"."""
    return json.loads((_DOC.parent / f"{api}.json").read_text())["schemas"]


def validate_in(api: str, name: str, body: Any) -> None:
    """`validate` against another API's document (the rollout ledger's BigQuery requests)."""
    _check({"$ref": name}, body, "$", other_schemas(api))


def _check(spec: dict[str, Any], value: Any, path: str, table: dict[str, Any] | None = None) -> None:
    if "$ref" in spec:
        schema = (table or schemas())[spec["$ref"]]
        if value is None:
            return
        if not isinstance(value, dict):
            raise ShapeError(f"{path}: expected an object ({spec['$ref']}), got {type(value).__name__}")
        _check_object(schema, value, path, spec["$ref"], table)
        return
    kind = spec.get("type")
    fmt = spec.get("format")
    if value is None:
        return
    if kind == "string":
        if not isinstance(value, str):
            raise ShapeError(f"{path}: expected a string ({fmt or 'string'}), got {value!r}")
        if fmt in ("int64", "uint64") and not value.lstrip("-").isdigit():
            raise ShapeError(f"{path}: expected an int64 as a decimal string, got {value!r}")
        if "enum" in spec and value not in spec["enum"]:
            raise ShapeError(f"{path}: {value!r} is not one of {spec['enum']}")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ShapeError(f"{path}: expected an integer ({fmt}), got {value!r}")
    elif kind == "number":
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) or value in _SPECIAL_FLOATS
        if not ok:
            raise ShapeError(f"{path}: expected a number ({fmt}), got {value!r}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ShapeError(f"{path}: expected a boolean, got {value!r}")
    elif kind == "array":
        if not isinstance(value, list):
            raise ShapeError(f"{path}: expected an array, got {type(value).__name__}")
        for i, item in enumerate(value):
            _check(spec["items"], item, f"{path}[{i}]", table)
    elif kind == "object":
        if not isinstance(value, dict):
            raise ShapeError(f"{path}: expected an object, got {type(value).__name__}")
        if "properties" in spec:
            _check_object(spec, value, path, "inline", table)
        extra = spec.get("additionalProperties")
        if extra is not None:
            for key, item in value.items():
                _check(extra, item, f"{path}.{key}", table)
    elif kind == "any" or kind is None:
        return
    else:  # pragma: no cover - the document uses only the kinds above
        raise ShapeError(f"{path}: unsupported schema type {kind!r}")


def _check_object(
    schema: dict[str, Any], value: dict[str, Any], path: str, name: str, table: dict[str, Any] | None = None
) -> None:
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    for key, item in value.items():
        if key in props:
            _check(props[key], item, f"{path}.{key}", table)
        elif extra is not None:
            _check(extra, item, f"{path}.{key}", table)
        else:
            raise ShapeError(f"{path}: unknown key {key!r} for {name}")
