"""The tuning jobs: each job's record, and the store that holds them and starts their runs.

A job keeps its create body as the service echoes it (`normalize_body`) and the state its run
(`lifecycle.Lifecycle`) moves it through; `Job.public` is the TuningJob the routes answer with.
Job ids are random (`ids.random_id`), never drawn from the fault seed: an id from an earlier run is
unknown here (404), never another run's job.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tunifolk.job.shapes import OUTPUT_ONLY

from . import protojson
from .ids import random_id
from .limits import ERRORED_REWARD_LIMIT, TERMINAL_STATES
from .metrics import Series
from .rewards import kind_of

V1_HIDDEN = (
    "reinforcementTuningSpec",
    "tuningJobMetadata",
    "tuningDataStats",
    "tuningJobState",
)


@dataclass
class JobSettings:
    """The scenario and pacing options that shape every job's run."""

    step_seconds: float = 1.0
    gcs_dir: Path = Path("build/gcs")
    #: Training: whole GRPO groups of `samplesPerPrompt` responses, for max(1, this // samplesPerPrompt)
    #: prompts of the step's batch (at most `batchSize`); evaluation: this many prompts, one response each.
    samples_per_step: int = 4
    scenario: str = "honest"
    reward_fail_rate: float = 0.0
    fail_at_step: int | None = None
    cancel_ignored: bool = False
    report_progress: bool = False
    error_threshold: float = ERRORED_REWARD_LIMIT
    end_state: str = "JOB_STATE_SUCCEEDED"  # or PARTIALLY_SUCCEEDED, EXPIRED: how a full run ends
    pause_at_step: int | None = None  # the job is PAUSED for three step times before this step
    loose_list_filter: bool = False  # list ignores label terms in `filter`, as a lax server might
    concurrent_jobs: int = 0  # the project's quota of jobs not yet ended (0: none; see limits.py)


@dataclass
class Job:
    id: str
    project: str
    location: str
    body: dict[str, Any]
    rewards: list[tuple[dict[str, Any], float]]
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    state: str = "JOB_STATE_PENDING"
    tuning_state: str | None = "TUNING_JOB_STATE_PROCESSING_DATASET"
    started: float | None = None
    ended: float | None = None
    error: dict[str, Any] | None = None
    total_steps: int = 0
    completed_steps: int = 0
    steps_per_epoch: int = 1
    example_count: int = 0
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    model: str | None = None
    #: Answer `tunedModel.model` without its `@N` (hostile reading `unversioned-model`, hostile.py).
    unversioned_model: bool = False
    endpoint: str | None = None
    experiment: str | None = None
    cancel_requested: bool = False
    invocations: int = 0
    errored: int = 0
    series: dict[str, Series] = field(default_factory=dict)
    reward_calls: list[int] = field(default_factory=list)
    reward_errors: list[int] = field(default_factory=list)
    task: asyncio.Task | None = None
    #: What the run's simulated samples are drawn from: the fault seed and the job's place in creation
    #: order, so a seeded run repeats exactly although its id is random.
    seed: str = ""

    @property
    def name(self) -> str:
        return f"projects/{self.project}/locations/{self.location}/tuningJobs/{self.id}"

    def touch(self) -> None:
        self.updated = time.time()

    def public(self, report_progress: bool, v1: bool = False) -> dict[str, Any]:
        """The TuningJob as the service returns it (v1 silently loses the RLFT fields)."""
        out: dict[str, Any] = {"name": self.name}
        out.update(self.body)
        out["state"] = self.state
        if self.tuning_state and self.state not in TERMINAL_STATES:
            out["tuningJobState"] = self.tuning_state
        out["createTime"] = protojson.timestamp(self.created)
        out["updateTime"] = protojson.timestamp(self.updated)
        if self.started is not None:
            out["startTime"] = protojson.timestamp(self.started)
        if self.ended is not None:
            out["endTime"] = protojson.timestamp(self.ended)
        if self.error is not None:
            out["error"] = dict(self.error)
        if self.experiment:
            out["experiment"] = self.experiment
        if self.example_count:
            out["tuningDataStats"] = {
                "reinforcementTuningDataStats": {
                    "tuningDatasetExampleCount": protojson.int64(self.example_count),
                    "tuningStepCount": protojson.int64(self.total_steps),
                }
            }
        tuned: dict[str, Any] = {}
        if self.model:
            tuned["model"] = self.model.partition("@")[0] if self.unversioned_model else self.model
        if self.endpoint:
            tuned["endpoint"] = self.endpoint
        if self.checkpoints:
            tuned["checkpoints"] = [dict(c) for c in self.checkpoints]
        if tuned:
            out["tunedModel"] = tuned
        if report_progress and self.started is not None:
            meta: dict[str, Any] = {}
            if self.completed_steps:
                meta["completedStepCount"] = protojson.int64(self.completed_steps)
            epochs = self.completed_steps // max(1, self.steps_per_epoch)
            if epochs:
                meta["completedEpochCount"] = protojson.int64(epochs)
            out["tuningJobMetadata"] = meta
        if v1:
            for key in V1_HIDDEN:
                out.pop(key, None)
        return out

    def internal(self, report_progress: bool) -> dict[str, Any]:
        """Everything, for the /emulator/jobs introspection endpoint."""
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "totalSteps": self.total_steps,
            "completedSteps": self.completed_steps,
            "stepsPerEpoch": self.steps_per_epoch,
            "exampleCount": self.example_count,
            "cancelRequested": self.cancel_requested,
            "rewardInvocations": self.invocations,
            "erroredInvocations": self.errored,
            "rewards": [
                {"name": c.get("rewardName", ""), "kind": kind_of(c), "weight": w} for c, w in self.rewards
            ],
            "job": self.public(report_progress),
        }


def normalize_body(body: dict[str, Any]) -> dict[str, Any]:
    """Echo the request as the service would: int64 as strings, output-only fields dropped."""
    out = {k: v for k, v in body.items() if k not in OUTPUT_ONLY}
    spec = out.get("reinforcementTuningSpec")
    if isinstance(spec, dict):
        spec = dict(spec)
        hp = dict(spec.get("hyperParameters") or {})
        for key in ("epochCount", "stepCount"):
            if key in hp:
                hp[key] = protojson.int64(protojson.parse_int(hp[key]) or 0)
        for key in (
            "batchSize",
            "samplesPerPrompt",
            "evaluateInterval",
            "checkpointInterval",
            "maxOutputTokens",
        ):
            if key in hp:
                hp[key] = protojson.parse_int(hp[key])
        if hp:
            spec["hyperParameters"] = hp
        out["reinforcementTuningSpec"] = spec
    return out


class JobStore:
    """All jobs, and the per-job lifecycle tasks (`run(job)`, started when the job is created)."""

    def __init__(self, run: Callable[[Job], Coroutine[Any, Any, None]], seed: int = 0) -> None:
        self.run = run
        self.seed = seed
        self.jobs: dict[str, Job] = {}

    def new_id(self) -> str:
        return random_id(self.jobs)

    def live(self, project: str) -> list[Job]:
        """The project's jobs that hold a slot of its concurrent-tuning-job quota (any location: the
        quota is global, `limits.CONCURRENT_TUNING_JOBS`)."""
        return [j for j in self.jobs.values() if j.project == project and j.state not in TERMINAL_STATES]

    def start(self, job: Job) -> None:
        """Run (or, for a job restored from disk, resume) the job's lifecycle on the running loop."""
        job.task = asyncio.get_running_loop().create_task(self.run(job))

    def create(
        self, project: str, location: str, body: dict[str, Any], rewards: list[tuple[dict, float]]
    ) -> Job:
        job = Job(
            id=self.new_id(),
            project=project,
            location=location,
            body=normalize_body(body),
            rewards=rewards,
            seed=f"{self.seed}:{len(self.jobs)}",
        )
        job.reward_calls = [0] * len(rewards)
        job.reward_errors = [0] * len(rewards)
        self.jobs[job.id] = job
        self.start(job)
        return job

    def cancel(self, job: Job) -> None:
        job.cancel_requested = True
        job.state = "JOB_STATE_CANCELLING"
        job.touch()
