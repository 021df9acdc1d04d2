"""Strict checks of incoming bodies, so a client's mistakes fail here as they would at Google.

The real service rejects an unknown field with `Invalid JSON payload received. Unknown name "x"
at 'tuning_job.reinforcement_tuning_spec': Cannot find field.`; the emulator answers the same way
(400, naming the key and where it sits). The shapes are Google's, described once in
`providers/job/shapes.py` and held to the discovery document by the tests; the discovery document
itself is not read at runtime (it is a test dependency). Like Google's parser, the emulator takes
lowerCamelCase and the original snake_case names, and hands the app camelCase only.
"""

from __future__ import annotations

import re
from typing import Any

from tunifolk.job.shapes import (
    GENERATE_REQUEST,
    OTHER_SPECS,
    TUNING_JOB,
    UNDEPLOY_REQUEST,
    VALIDATE_REQUEST,
    ShapeError,
    conform,
    snake,
)

__all__ = [
    "GENERATE_REQUEST",
    "OTHER_SPECS",
    "TUNING_JOB",
    "UNDEPLOY_REQUEST",
    "VALIDATE_REQUEST",
    "BodyError",
    "check",
    "check_labels",
    "reward_configs",
    "snake",
]


class BodyError(ValueError):
    """A request body the real service would refuse with 400 INVALID_ARGUMENT."""


def check(schema: Any, value: Any, where: str) -> Any:
    """`value` with camelCase field names; BodyError, worded as Google words it, on a misfit."""
    try:
        return conform(schema, value, where, proto_names=True)
    except ShapeError as e:
        if e.kind == "unknown":
            raise BodyError(
                f"Invalid JSON payload received. Unknown name \"{e.key}\" at '{e.where}': Cannot find field."
            ) from None
        if e.kind == "enum":
            raise BodyError(
                f"Invalid value at '{e.where}' (TYPE_ENUM {e.where.rsplit('.', 1)[-1]}), \"{e.got}\""
            ) from None
        raise BodyError(f"Invalid value at '{e.where}' ({e.expected}), {_short(e.got)}") from None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,64}$")


def check_labels(labels: dict[str, str] | None) -> None:
    """Label keys and values: ≤ 64 chars of lowercase letters, digits, `_`, `-`; keys start with a letter."""
    for k, v in (labels or {}).items():
        if not LABEL_KEY.match(k):
            raise BodyError(f"Label key {k!r} is invalid: lowercase letters, digits, '_' and '-' only.")
        if not LABEL_VALUE.match(v):
            raise BodyError(f"Label value {v!r} for key {k!r} is invalid.")


def reward_configs(container: dict[str, Any], where: str) -> list[tuple[dict[str, Any], float]]:
    """The (single reward config, weight) pairs of a body holding exactly one reward config."""
    single = container.get("singleRewardConfig")
    composite = container.get("compositeRewardConfig")
    if single is not None and composite is not None:
        raise BodyError(
            f"Only one of single_reward_config or composite_reward_config may be set in '{where}'."
        )
    if single is None and composite is None:
        raise BodyError(f"One of single_reward_config or composite_reward_config is required in '{where}'.")
    if single is not None:
        pairs = [(single, 1.0)]
    else:
        wrc = composite.get("weightedRewardConfigs") or []
        if not wrc:
            raise BodyError(f"'{where}.composite_reward_config.weighted_reward_configs' must not be empty.")
        pairs = [(w.get("rewardConfig") or {}, float(w.get("weight", 0.0))) for w in wrc]
        if sum(w for _, w in pairs) <= 0:
            raise BodyError("The sum of reward weights must be positive.")
    names: set[str] = set()
    for cfg, _ in pairs:
        scorers = [
            k
            for k in (
                "cloudRunRewardScorer",
                "autoraterScorer",
                "codeExecutionRewardScorer",
                "stringMatchRewardScorer",
            )
            if k in cfg
        ]
        name = cfg.get("rewardName", "")
        if len(scorers) != 1:
            raise BodyError(f"Reward [{name}] must set exactly one reward scorer, got {len(scorers)}.")
        if composite is not None:
            if not name:
                raise BodyError("Every reward of a composite_reward_config needs a reward_name.")
            if name in names:
                raise BodyError(f"Duplicate reward_name [{name}].")
        names.add(name)
        parse = cfg.get("parseResponseConfig") or {}
        if parse.get("parseType") == "REGEX_EXTRACT":
            try:
                re.compile(parse.get("regexExtractExpression", ""))
            except re.error as e:
                raise BodyError(f"Reward [{name}]: invalid regex_extract_expression: {e}") from None
        if "cloudRunRewardScorer" in cfg and not cfg["cloudRunRewardScorer"].get("cloudRunUri"):
            raise BodyError(f"Reward [{name}]: cloud_run_uri is required.")
    return pairs
