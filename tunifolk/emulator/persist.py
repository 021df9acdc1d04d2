"""The emulator's state on disk: what it created survives a restart, as Google's resources do.

With `--state-file` (which `tunifolk local start` passes, under build/local/), the jobs, models,
endpoints, operations and metrics are read at start and written at stop (and atomically: a file is
either the old state or the new one). A job that had not ended resumes after its last finished
step; an operation still in flight is finished first, as it would have finished while the emulator
was down. What is not kept: request counts, reward-call records and the fault generator's position
(a test's view, not the service's). A process killed with SIGKILL keeps the state of its last stop.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import orjson

from .jobs import Job
from .limits import TERMINAL_STATES
from .metrics import MetricsStore, Series
from .serving import Endpoint, Model, Serving

VERSION = 1
_JOB_KEPT = [f.name for f in fields(Job) if f.name not in ("task", "series", "rewards")]


def snapshot(jobs: dict[str, Job], serving: Serving, metrics: MetricsStore) -> dict[str, Any]:
    """Everything the emulator created, as JSON-ready data (operations in flight are finished)."""
    serving.settle(force=True)
    return {
        "version": VERSION,
        "jobs": [
            {
                **{k: getattr(job, k) for k in _JOB_KEPT},
                "rewards": [[cfg, weight] for cfg, weight in job.rewards],
                "series": {display: s.name for display, s in job.series.items()},
            }
            for job in jobs.values()
        ],
        "models": [
            {**asdict(m), "versions": [[v, t] for v, t in m.versions.items()]}
            for m in serving.models.values()
        ],
        "endpoints": [asdict(e) for e in serving.endpoints.values()],
        "operations": list(serving.operations.values()),
        "metrics": {
            "contexts": metrics.contexts,
            "tensorboards": metrics.tensorboards,
            "experiments": metrics.experiments,
            "runs": metrics.runs,
            "run_series": metrics.run_series,
            "series": [
                {**asdict(s), "points": [[step, wall, _number(v)] for step, wall, v in s.points]}
                for s in metrics.series.values()
            ],
        },
    }


def restore(data: dict[str, Any], jobs: dict[str, Job], serving: Serving, metrics: MetricsStore) -> list[Job]:
    """Load a snapshot into empty stores; return the jobs to resume (those that had not ended)."""
    m = data.get("metrics") or {}
    metrics.contexts.update(m.get("contexts") or {})
    metrics.tensorboards.update(m.get("tensorboards") or {})
    metrics.experiments.update(m.get("experiments") or {})
    metrics.runs.update(m.get("runs") or {})
    metrics.run_series.update(m.get("run_series") or {})
    for s in m.get("series") or []:
        s["points"] = [(step, wall, float(v)) for step, wall, v in s.get("points") or []]
        metrics.series[s["name"]] = Series(**s)
    for raw in data.get("models") or []:
        raw["versions"] = {int(v): t for v, t in raw["versions"]}
        serving.models[raw["name"]] = Model(**raw)
    for raw in data.get("endpoints") or []:
        serving.endpoints[raw["name"]] = Endpoint(**raw)
    for op in data.get("operations") or []:
        serving.operations[op["name"]] = op
    resume = []
    for raw in data.get("jobs") or []:
        series = raw.pop("series", {}) or {}
        raw["rewards"] = [(cfg, weight) for cfg, weight in raw["rewards"]]
        job = Job(**{k: v for k, v in raw.items() if k in _JOB_KEPT or k == "rewards"})
        job.series = {
            display: metrics.series[name] for display, name in series.items() if name in metrics.series
        }
        jobs[job.id] = job
        if job.state not in TERMINAL_STATES:
            resume.append(job)
    return resume


def _number(value: float) -> float | str:
    """A metric value for JSON, which has no NaN: "nan" (float() reads it back)."""
    return value if math.isfinite(value) else str(value)


def load(path: Path) -> dict[str, Any] | None:
    """The snapshot in `path`, or None when there is none yet (or it is from another version)."""
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    return data if isinstance(data, dict) and data.get("version") == VERSION else None


def save(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file beside it, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(data))
    os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink()
