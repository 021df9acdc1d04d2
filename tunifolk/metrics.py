"""A tuning job's metrics: experiment → context → tensorboard → runs → series → scalars.

GetTuningJob carries no step and no progress field (checkpoints advance only every
`checkpointInterval` steps), so the only honest view of a running job is its metric series. They are
reachable over REST through the job's experiment, whose metadata Context names the backing
Tensorboard. Two ProtoJSON rules matter when reading them: a 0.0 scalar is written without its
`value` (absent means zero, not missing), and the step you read is the last *finished* one — the
live step is that plus one.

`read_metrics` performs the chain in a handful of calls (context, runs, series list, then one
batchRead per 20 series: 5 for a two-reward job's 39 series); everything after the HTTP is pure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tunifolk.vertex import VertexClient, VertexError

TENSORBOARD_KEY = "backing_tensorboard_resource"


@dataclass(frozen=True)
class Point:
    step: int
    value: float
    wall_time: str = ""


@dataclass
class Metrics:
    """Every scalar series of one job, keyed by metric name (the series' displayName)."""

    tensorboard: str = ""
    series: dict[str, list[Point]] = field(default_factory=dict)
    calls: int = 0  # HTTP calls it took to read them

    def values(self, name: str) -> list[Point]:
        return self.series.get(name, [])

    def latest(self, name: str) -> float | None:
        points = self.values(name)
        return points[-1].value if points else None

    @property
    def last_step(self) -> int | None:
        """The last step any series logged: the last finished step (the live one is this + 1)."""
        steps = [points[-1].step for points in self.series.values() if points]
        return max(steps) if steps else None

    def reward_names(self) -> list[str]:
        """Per-reward prefixes present in the series (`structure/train_mean_reward` → `structure`)."""
        return sorted({name.split("/", 1)[0] for name in self.series if not name.startswith("/")})


def scalar(value: dict[str, Any]) -> float:
    """A TimeSeriesDataPoint's scalar; ProtoJSON omits 0.0, and writes NaN/Infinity as strings."""
    raw = (value.get("scalar") or {}).get("value", 0.0)
    return float(raw)


def parse_series(data: dict[str, Any]) -> list[Point]:
    points = [
        Point(int(v.get("step", 0)), scalar(v), str(v.get("wallTime", ""))) for v in data.get("values", [])
    ]
    return sorted(points, key=lambda p: p.step)


def read_metrics(client: VertexClient, experiment: str) -> Metrics:
    """Follow the chain from a job's `experiment` to every scalar series. Raises VertexError."""
    start = client.calls
    context = client.get_context(experiment)
    tensorboard = str((context.get("metadata") or {}).get(TENSORBOARD_KEY, ""))
    metrics = Metrics(tensorboard=tensorboard)
    if not tensorboard:
        metrics.calls = client.calls - start
        return metrics
    ids: dict[str, str] = {}  # series resource name → display name
    for run in _runs(client, tensorboard, experiment.rstrip("/").rsplit("/", 1)[-1]):
        for ts in client.list_time_series(run["name"]):
            if ts.get("valueType", "SCALAR") == "SCALAR":
                ids[ts["name"]] = ts.get("displayName") or ts["name"].rsplit("/", 1)[-1]
    by_id = {name.rsplit("/", 1)[-1]: name for name in ids}
    for data in client.batch_read(tensorboard, sorted(ids)):
        full = by_id.get(str(data.get("tensorboardTimeSeriesId", "")))
        if full is not None:
            metrics.series[ids[full]] = parse_series(data)
    metrics.calls = client.calls - start
    return metrics


def _runs(client: VertexClient, tensorboard: str, experiment_id: str) -> list[dict[str, Any]]:
    """The job's runs: straight under `{tensorboard}/experiments/{experiment id}` (one call, however
    many jobs share the project's tensorboard); if that experiment is not there, the experiment whose
    display name is the id. Never another job's experiment: its curves would pass for this job's."""
    try:
        return client.list_tensorboard_runs(f"{tensorboard}/experiments/{experiment_id}")
    except VertexError as exc:
        if not exc.not_found:
            raise
    for exp in client.list_tensorboard_experiments(tensorboard):
        if exp.get("displayName") == experiment_id:
            return client.list_tensorboard_runs(exp["name"])
    return []


# --------------------------------------------------------------------------- pure views


def completed_steps(job: dict[str, Any], metrics: Metrics | None) -> int:
    """`completedStepCount` when the service reports it, else the last step the metrics logged."""
    reported = (job.get("tuningJobMetadata") or {}).get("completedStepCount")
    if reported is not None:
        return int(reported)
    if metrics is not None and metrics.last_step is not None:
        return metrics.last_step
    return 0


def eval_reward_at(metrics: Metrics, step: int) -> float | None:
    """The eval reward logged at `step`, or at the latest evaluation before it."""
    best: float | None = None
    for point in metrics.values("/eval_mean_reward"):
        if point.step > step:
            break
        best = point.value
    return best


def checkpoints(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The job's checkpoints in snake_case, int64 strings made ints, sorted by step."""
    raw = ((job.get("tunedModel") or {}).get("checkpoints")) or []
    out = [
        {
            "checkpoint_id": str(c.get("checkpointId", "")),
            "step": int(c.get("step", 0)),
            "epoch": int(c.get("epoch", 0)),
            "endpoint": str(c.get("endpoint", "")),
        }
        for c in raw
    ]
    return sorted(out, key=lambda c: c["step"])


def best_checkpoint(job: dict[str, Any], metrics: Metrics | None) -> dict[str, Any] | None:
    """The checkpoint with the highest finite eval reward; None without metrics or checkpoints."""
    if metrics is None:
        return None
    scored = []
    for ckpt in checkpoints(job):
        reward = eval_reward_at(metrics, ckpt["step"])
        if reward is not None and math.isfinite(reward):
            scored.append({**ckpt, "eval_reward": reward})
    if not scored:
        return None
    return max(scored, key=lambda c: (c["eval_reward"], c["step"]))
