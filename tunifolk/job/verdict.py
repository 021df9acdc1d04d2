"""The verdict on a reward validation: refuse to create unless every reward is sound.

`validateReinforcementTuningReward` answers per reward; create must refuse unless every configured
reward is present, finite, inside [-1, 1] and free of `errorStatus`, there and at the top. The
answer is read structurally, key by key (docs/vertex.md, edge 15): a substring scan would miss an
error nested under an unexpected key and fire on a reward merely named `error_rate`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tunifolk.job.wire import is_int

PERMISSION_DENIED = 7
"""google.rpc.Code PERMISSION_DENIED (google/rpc/code.proto; HTTP 403)."""


@dataclass(frozen=True)
class Problem:
    """One reason to refuse create: which reward (None: the whole call), Google's words, aux info."""

    reward: str | None
    message: str
    aux_info: str | None = None
    code: int | None = None  # google.rpc.Code of the errorStatus, when there was one
    unexplained_nan: bool = False  # a Cloud Run reward's NaN whose status names no cause

    @property
    def is_permission_error(self) -> bool:
        """A refusal a fresh IAM grant still propagating can cause (docs/vertex.md, edge 19), which create
        retries, bounded. Decided on the google.rpc code alone, never on the message text (a reward's
        own words may say "permission": a code reward's PermissionError is INVALID_ARGUMENT):

        - 7 PERMISSION_DENIED: the validate call refused (HTTP 403), or, in a reward's `errorStatus`,
          the reward service answering 403, which is how Cloud Run refuses a caller whose run.invoker
          grant has not applied yet. validateReward carries the service's HTTP status only as that
          code (HTTP 403 → 7, 401 → 16: google/rpc/code.proto's mapping; that Vertex maps them so is
          UNCONFIRMED, the emulator does);
        - a Cloud Run reward's NaN whose status names no cause (none, 2 UNKNOWN or 13 INTERNAL): the
          reward-functions guide's troubleshooting note gives a missing run.invoker grant as the first
          cause of NaN rewards, and says nothing of a code (docs/google-contract.md, row REW-12);
        - 16 UNAUTHENTICATED is not retried: Cloud Run answers 401 for a token it cannot accept (a
          malformed one, another audience), which no grant changes.
        """
        return self.code == PERMISSION_DENIED or self.unexplained_nan

    def __str__(self) -> str:
        head = f"reward {self.reward!r}: " if self.reward else ""
        tail = f" (aux info: {self.aux_info})" if self.aux_info else ""
        return f"{head}{self.message}{tail}"


def _status_code(status: Any) -> int | None:
    code = status.get("code") if isinstance(status, dict) else None
    return code if is_int(code) else None


def _status_message(status: Any) -> str | None:
    """A google.rpc.Status as text; None when it carries no error (code 0 is omitted in ProtoJSON)."""
    if isinstance(status, dict):
        if not status.get("code") and not status.get("message") and not status.get("details"):
            return None
        return f"{status.get('message') or 'error'} (code {status.get('code', 'unknown')})"
    if isinstance(status, str) and status:
        return status
    return None


def _reward_value(raw: Any) -> float | None:
    """A ProtoJSON float (number or "NaN"/"Infinity"/"-Infinity"/"1.5") as float; None if not one."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw)
        except ValueError:
            return None
    return None


CAUSELESS = (None, 2, 13)
"""google.rpc codes that name no cause of an error (none; UNKNOWN; INTERNAL)."""


def _entry_problems(name: str, entry: Any, cloud_run: bool = False) -> list[Problem]:
    if not isinstance(entry, dict):
        return [Problem(name, f"unexpected reward info {entry!r}")]
    aux = entry.get("userRequestedAuxInfo")
    aux = aux if isinstance(aux, str) and aux else None
    problems: list[Problem] = []
    code = _status_code(entry.get("errorStatus"))
    error = _status_message(entry.get("errorStatus"))
    if error:
        problems.append(Problem(name, error, aux, code))
    value = _reward_value(entry.get("reward", 0.0))  # absent = 0.0: ProtoJSON omits zeros
    if value is None or not math.isfinite(value):
        unexplained = cloud_run and code in CAUSELESS
        message = f"reward is not a finite number: {entry.get('reward')!r}"
        if unexplained:
            message += f" (a Cloud Run reward's NaN: {GRANT_HINT})"
        problems.append(Problem(name, message, aux, unexplained_nan=unexplained))
    elif not -1.0 <= value <= 1.0:
        problems.append(Problem(name, f"reward {value} is outside [-1, 1]", aux))
    return problems


GRANT_HINT = (
    "Google's first cause is a roles/run.invoker grant to the tuning agent that is missing or still "
    "propagating; `tunifolk doctor` checks it"
)


def validation_problems(
    response: dict[str, Any], reward_names: list[str], cloud_run: frozenset[str] = frozenset()
) -> list[Problem]:
    """Why a validate response must stop create; empty when every reward is present, finite, in range.
    `cloud_run` names the Cloud Run rewards, whose causeless NaN may be a grant (`is_permission_error`)."""
    problems: list[Problem] = []
    top = _status_message(response.get("errorStatus"))
    if top:
        problems.append(Problem(None, top, code=_status_code(response.get("errorStatus"))))
    legacy = response.get("error")
    if isinstance(legacy, str) and legacy:
        problems.append(Problem(None, legacy))
    details = response.get("rewardInfoDetails")
    for name in reward_names:
        if isinstance(details, dict) and name in details:
            problems += _entry_problems(name, details[name], name in cloud_run)
        elif not isinstance(details, dict) and len(reward_names) == 1:
            # A single reward answers in `overallReward`; exactly 0.0 drops both fields (ProtoJSON
            # omits zeros), so an answer with neither is a valid 0.0, not a missing reward.
            entry = {"reward": response.get("overallReward", 0.0)}
            problems += _entry_problems(name, entry, name in cloud_run)
        else:
            problems.append(Problem(name, "the reward is missing from the validate response"))
    return problems


def validation_summary(response: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """`{overall_reward, rewards: {name: reward}}`; an entry without `reward` is 0.0 (ProtoJSON)."""
    details = response.get("rewardInfoDetails") or {}
    rewards = {n: float((details.get(n) or {}).get("reward", 0.0)) for n in names if n in details}
    if not rewards and len(names) == 1:
        rewards = {names[0]: float(response.get("overallReward", 0.0))}
    return {"overall_reward": float(response.get("overallReward", 0.0)), "rewards": rewards}
