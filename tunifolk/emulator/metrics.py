"""The experiment → tensorboard → run → time-series chain that carries a job's training curves.

The service exposes no progress on the job itself; the curves live in a Vertex TensorBoard that the
job's `experiment` context points to (`metadata.backing_tensorboard_resource`). Series ids are
opaque numbers; the metric name is the series' `displayName`. Series names follow docs/vertex.md, "Metrics":
15 job-wide series, 12 per reward, and for a code-execution reward two more
(`<reward>/train_executing_code_failure_ratio`, `<reward>/eval_executing_code_failure_ratio`); under
the hostile reading `single-reward-series` (hostile.py), a single-reward job has the job-wide ones only.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from . import protojson
from .ids import random_id
from .limits import MAX_SERIES_POINTS

JOB_SERIES = (
    "/train_mean_reward",
    "/eval_mean_reward",
    "/train_generation_length",
    "/eval_generation_length",
    "/train_thinking_token_length",
    "/eval_thinking_token_length",
    "/train_mean_reward_latency",
    "/eval_mean_reward_latency",
    "/train_p95_reward_latency",
    "/eval_p95_reward_latency",
    "/train_mean_sampling_latency",
    "/eval_mean_sampling_latency",
    "/train_p95_sampling_latency",
    "/eval_p95_sampling_latency",
    "/learnable_prompt_ratio",
)
REWARD_SERIES = (
    "train_mean_reward",
    "eval_mean_reward",
    "train_processing_time",
    "eval_processing_time",
    "train_p95_processing_time",
    "eval_p95_processing_time",
    "train_rpc_error_ratio",
    "eval_rpc_error_ratio",
    "train_invalid_rpc_response_ratio",
    "eval_invalid_rpc_response_ratio",
    "train_clipping_rewards_ratio",
    "eval_clipping_rewards_ratio",
)
CODE_SERIES = ("train_executing_code_failure_ratio", "eval_executing_code_failure_ratio")


def series_names(rewards: list[tuple[str, str]], per_reward: bool = True) -> list[str]:
    """Display names for a job with the given (reward name, reward kind) list; without `per_reward`,
    the job-wide series only (hostile reading `single-reward-series`, hostile.py)."""
    names = list(JOB_SERIES)
    for name, kind in rewards if per_reward else []:
        names += [f"{name}/{s}" for s in REWARD_SERIES]
        if kind == "code_execution":
            names += [f"{name}/{s}" for s in CODE_SERIES]
    return names


@dataclass
class Series:
    name: str
    ts_id: str
    display_name: str
    created: float
    points: list[tuple[int, float, float]] = field(default_factory=list)

    def resource(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "name": self.name,
            "displayName": self.display_name,
            "valueType": "SCALAR",
            "pluginName": "scalars",
            "createTime": protojson.timestamp(self.created),
            "updateTime": protojson.timestamp(self.points[-1][1] if self.points else self.created),
        }
        if self.points:
            body["metadata"] = {
                "maxStep": protojson.int64(max(p[0] for p in self.points)),
                "maxWallTime": protojson.timestamp(max(p[1] for p in self.points)),
            }
        return body

    def data(
        self, max_points: int | None = MAX_SERIES_POINTS, rng: random.Random | None = None
    ) -> dict[str, Any]:
        """TimeSeriesData; over `max_points` a random subset is returned, as the service does
        (None: every point)."""
        pts = self.points
        if max_points is not None and len(pts) > max_points:
            pick = sorted((rng or random.Random(0)).sample(range(len(pts)), max_points))
            pts = [pts[i] for i in pick]
        values = []
        for step, wall, value in pts:
            scalar: dict[str, Any] = {}
            protojson.put_float(scalar, "value", value)
            values.append(
                {"step": protojson.int64(step), "wallTime": protojson.timestamp(wall), "scalar": scalar}
            )
        return {"tensorboardTimeSeriesId": self.ts_id, "valueType": "SCALAR", "values": values}


@dataclass
class MetricsStore:
    """Every metadata context, tensorboard, experiment, run and series the emulator knows."""

    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    tensorboards: dict[str, dict[str, Any]] = field(default_factory=dict)
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)
    run_series: dict[str, list[str]] = field(default_factory=dict)

    def _id(self) -> str:
        return random_id()

    def tensorboard_for(self, project_number: str, location: str) -> str:
        """The project's default tensorboard in a region (created on first use)."""
        for name in self.tensorboards:
            if name.startswith(f"projects/{project_number}/locations/{location}/"):
                return name
        now = time.time()
        name = f"projects/{project_number}/locations/{location}/tensorboards/{self._id()}"
        self.tensorboards[name] = {
            "name": name,
            "displayName": "Default Tensorboard",
            "isDefault": True,
            "createTime": protojson.timestamp(now),
            "updateTime": protojson.timestamp(now),
        }
        return name

    def create_job_metrics(
        self,
        project_number: str,
        location: str,
        job_id: str,
        rewards: list[tuple[str, str]],
        per_reward: bool = True,
    ) -> tuple[str, dict[str, Series]]:
        """Create the context, experiment, run and all series of a job; return (context name, series)."""
        now = time.time()
        tb = self.tensorboard_for(project_number, location)
        exp_id = f"tuning-experiment-{job_id}"
        ctx = f"projects/{project_number}/locations/{location}/metadataStores/default/contexts/{exp_id}"
        self.contexts[ctx] = {
            "name": ctx,
            "displayName": exp_id,
            "schemaTitle": "system.Experiment",
            "schemaVersion": "0.0.1",
            "metadata": {"backing_tensorboard_resource": tb, "experiment_deleted": False},
            "createTime": protojson.timestamp(now),
            "updateTime": protojson.timestamp(now),
        }
        exp = f"{tb}/experiments/{exp_id}"
        self.experiments[exp] = {
            "name": exp,
            "displayName": exp_id,
            "source": "vertex_ai_tuning",
            "createTime": protojson.timestamp(now),
            "updateTime": protojson.timestamp(now),
        }
        run = f"{exp}/runs/tuning-job-{job_id}"
        self.runs[run] = {
            "name": run,
            "displayName": f"tuning-job-{job_id}",
            "createTime": protojson.timestamp(now),
            "updateTime": protojson.timestamp(now),
        }
        by_display: dict[str, Series] = {}
        names: list[str] = []
        for display in series_names(rewards, per_reward):
            ts_id = self._id()
            s = Series(name=f"{run}/timeSeries/{ts_id}", ts_id=ts_id, display_name=display, created=now)
            self.series[s.name] = s
            by_display[display] = s
            names.append(s.name)
        self.run_series[run] = names
        return ctx, by_display

    def runs_of(self, experiment: str) -> list[dict[str, Any]]:
        return [r for name, r in self.runs.items() if name.startswith(experiment + "/runs/")]

    def experiments_of(self, tensorboard: str) -> list[dict[str, Any]]:
        return [e for name, e in self.experiments.items() if name.startswith(tensorboard + "/experiments/")]
