"""The tuning-job store and the lifecycle loop (one asyncio task per job).

PENDING → RUNNING → SUCCEEDED | FAILED | CANCELLED, one training step every `step_seconds`.
Each step samples a few responses from the simulated policy, scores them through the real reward
calls, writes the step's metrics, and every `checkpointInterval` steps adds a checkpoint with its
own endpoint. The job fails, as the real one does, when its dataset is missing, when more than 80 %
of reward invocations errored, or (scenario) at a chosen step. Cancel is best-effort.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import policy, protojson
from .metrics import MetricsStore, Series
from .rewards import Outcome, RewardCaller, kind_of
from .serving import Serving

TERMINAL = {
    "JOB_STATE_SUCCEEDED",
    "JOB_STATE_PARTIALLY_SUCCEEDED",
    "JOB_STATE_FAILED",
    "JOB_STATE_CANCELLED",
    "JOB_STATE_EXPIRED",
}
MAX_STEPS = 500
MAX_TRAIN_EXAMPLES = 5000
MAX_VALIDATION_EXAMPLES = 500
RLFT_LOCATIONS = ("us-central1", "europe-west4")
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
    samples_per_step: int = 4
    scenario: str = "honest"
    reward_fail_rate: float = 0.0
    fail_at_step: int | None = None
    cancel_ignored: bool = False
    report_progress: bool = False
    error_threshold: float = 0.8
    end_state: str = "JOB_STATE_SUCCEEDED"  # or PARTIALLY_SUCCEEDED, EXPIRED: how a full run ends
    pause_at_step: int | None = None  # the job is PAUSED for three step times before this step
    loose_list_filter: bool = False  # list ignores label terms in `filter`, as a lax server might


class DatasetError(Exception):
    """A dataset the service cannot read: the job fails with this message."""


def project_number(project: str) -> str:
    """The numeric project that experiments are named by (stable per project id)."""
    if project.isdigit():
        return project
    digest = int(hashlib.sha256(project.encode()).hexdigest(), 16)
    return str(100_000_000_000 + digest % 900_000_000_000)


def read_dataset(gcs_dir: Path, uri: str, limit: int) -> list[dict[str, Any]]:
    """Read `gs://BUCKET/PATH` from `gcs_dir/BUCKET/PATH` as JSONL."""
    if not uri.startswith("gs://"):
        raise DatasetError(f"Dataset URI {uri} must be a Cloud Storage URI (gs://).")
    path = gcs_dir / uri.removeprefix("gs://")
    if not path.is_file():
        raise DatasetError(f"Failed to read dataset {uri}: the object does not exist or is not accessible.")
    examples = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            ex = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise DatasetError(f"Dataset {uri}: line {i} is not valid JSON.") from None
        if not isinstance(ex, dict) or not isinstance(ex.get("contents"), list):
            raise DatasetError(f"Dataset {uri}: line {i} has no `contents` list.")
        examples.append(ex)
    if not examples:
        raise DatasetError(f"Dataset {uri} is empty.")
    if len(examples) > limit:
        raise DatasetError(f"Dataset {uri} has {len(examples)} examples; at most {limit} are allowed.")
    return examples


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
    endpoint: str | None = None
    experiment: str | None = None
    cancel_requested: bool = False
    invocations: int = 0
    errored: int = 0
    series: dict[str, Series] = field(default_factory=dict)
    reward_calls: list[int] = field(default_factory=list)
    reward_errors: list[int] = field(default_factory=list)
    task: asyncio.Task | None = None

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
        if self.tuning_state and self.state not in TERMINAL:
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
            tuned["model"] = self.model
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
    from tunifolk.job.shapes import OUTPUT_ONLY

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
    """All jobs, and the per-job lifecycle tasks."""

    def __init__(
        self,
        settings: JobSettings,
        caller: RewardCaller,
        metrics: MetricsStore,
        serving: Serving,
        seed: int,
    ) -> None:
        self.settings = settings
        self.caller = caller
        self.metrics = metrics
        self.serving = serving
        self.jobs: dict[str, Job] = {}
        self._ids = random.Random(seed ^ 0x5EED)

    def new_id(self) -> str:
        while True:
            jid = str(self._ids.randrange(10**18, 10**19))
            if jid not in self.jobs:
                return jid

    def create(
        self, project: str, location: str, body: dict[str, Any], rewards: list[tuple[dict, float]]
    ) -> Job:
        job = Job(
            id=self.new_id(), project=project, location=location, body=normalize_body(body), rewards=rewards
        )
        job.reward_calls = [0] * len(rewards)
        job.reward_errors = [0] * len(rewards)
        self.jobs[job.id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    def cancel(self, job: Job) -> None:
        job.cancel_requested = True
        job.state = "JOB_STATE_CANCELLING"
        job.touch()

    # --- lifecycle -------------------------------------------------------------------------

    async def _run(self, job: Job) -> None:
        try:
            await self._lifecycle(job)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # keep the server alive; surface as a failed job
            self._finish(job, "JOB_STATE_FAILED", {"code": 13, "message": f"Internal error: {e!r}"})

    def _finish(self, job: Job, state: str, error: dict[str, Any] | None = None) -> None:
        job.state = state
        job.error = error
        job.ended = time.time()
        job.tuning_state = None
        job.touch()

    def _cancelled(self, job: Job) -> bool:
        if job.cancel_requested and not self.settings.cancel_ignored:
            self._finish(job, "JOB_STATE_CANCELLED", {"code": 1, "message": "CANCELED"})
            return True
        return False

    async def _lifecycle(self, job: Job) -> None:
        s = self.settings
        await asyncio.sleep(s.step_seconds)
        if self._cancelled(job):
            return
        spec = job.body.get("reinforcementTuningSpec") or {}
        hp = spec.get("hyperParameters") or {}
        try:
            train = read_dataset(s.gcs_dir, spec.get("trainingDatasetUri", ""), MAX_TRAIN_EXAMPLES)
            if spec.get("validationDatasetUri"):
                evals = read_dataset(s.gcs_dir, spec["validationDatasetUri"], MAX_VALIDATION_EXAMPLES)
            else:  # the service splits 25 % or 50 examples, whichever is larger, off the training set
                n_val = min(len(train), max(50, math.ceil(len(train) * 0.25)))
                evals = train[-n_val:]
        except DatasetError as e:
            self._finish(job, "JOB_STATE_FAILED", {"code": 3, "message": str(e)})
            return
        parent = (job.body.get("preTunedModel") or {}).get("tunedModelName")
        if parent and self.serving.models.get(parent.partition("@")[0]) is None:
            self._finish(job, "JOB_STATE_FAILED", {"code": 5, "message": f"Model {parent} not found."})
            return
        batch = hp.get("batchSize") or 32
        job.example_count = len(train)
        job.steps_per_epoch = max(1, len(train) // batch)
        if hp.get("stepCount"):
            total = int(hp["stepCount"])
        else:
            epochs = int(hp.get("epochCount") or max(1, min(10, 110 * batch // len(train))))
            total = job.steps_per_epoch * epochs
        job.total_steps = max(1, min(MAX_STEPS, total))
        eval_every = hp.get("evaluateInterval") or job.steps_per_epoch
        ckpt_every = hp.get("checkpointInterval") or job.steps_per_epoch
        reward_kinds = [(c.get("rewardName", ""), kind_of(c)) for c, _ in job.rewards]
        job.experiment, job.series = self.metrics.create_job_metrics(
            project_number(job.project), job.location, job.id, reward_kinds
        )
        job.state = "JOB_STATE_RUNNING" if not job.cancel_requested else job.state
        job.tuning_state = "TUNING_JOB_STATE_TUNING"
        job.started = time.time()
        job.touch()
        t0 = time.monotonic()
        thinking = hp.get("thinkingLevel", "HIGH")
        for step in range(1, job.total_steps + 1):
            if s.pause_at_step == step:  # paused (by the service) for a while, then running again
                job.state = "JOB_STATE_PAUSED"
                job.touch()
                await asyncio.sleep(3 * s.step_seconds)
                t0 += 3 * s.step_seconds
                job.state = "JOB_STATE_RUNNING"
                job.touch()
            delay = t0 + step * s.step_seconds - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if self._cancelled(job):
                return
            if s.fail_at_step is not None and step == s.fail_at_step:
                self._finish(
                    job,
                    "JOB_STATE_FAILED",
                    {"code": 13, "message": f"Internal error occurred at step {step}. Please retry the job."},
                )
                return
            progress = step / job.total_steps
            outcomes = await self._phase(job, "train", step, progress, train, thinking)
            for i, per_reward in enumerate(outcomes):
                job.invocations += len(per_reward)
                job.errored += sum(o.errored for o in per_reward)
                job.reward_calls[i] += len(per_reward)
                job.reward_errors[i] += sum(o.errored for o in per_reward)
            # The service counts errored invocations per reward: one reward that always errors
            # aborts the run even when it carries only 30 % of the weight (the seed's near miss).
            worst = max(
                range(len(job.rewards)), key=lambda i: job.reward_errors[i] / max(1, job.reward_calls[i])
            )
            if job.reward_errors[worst] / max(1, job.reward_calls[worst]) > s.error_threshold:
                name = job.rewards[worst][0].get("rewardName", "")
                self._finish(
                    job,
                    "JOB_STATE_FAILED",
                    {
                        "code": 9,
                        "message": (
                            f"The tuning job was stopped because {job.reward_errors[worst]} of "
                            f"{job.reward_calls[worst]} invocations of reward [{name}] failed "
                            f"(more than {s.error_threshold:.0%} errored reward invocations)."
                        ),
                    },
                )
                return
            if step % eval_every == 0 or step == job.total_steps:
                await self._phase(job, "eval", step, progress, evals, thinking)
            job.completed_steps = step
            if step % ckpt_every == 0 or step == job.total_steps:
                self._checkpoint(job, step, progress)
            job.touch()
        if self._cancelled(job):
            return
        if s.end_state == "JOB_STATE_EXPIRED":
            self._finish(job, "JOB_STATE_EXPIRED", {"code": 4, "message": "The tuning job expired."})
            return
        self._succeed(job)

    def _checkpoint(self, job: Job, step: int, progress: float) -> None:
        if job.model is None:
            display = job.body.get("tunedModelDisplayName") or f"tuned-{job.id}"
            parent = (job.body.get("preTunedModel") or {}).get("tunedModelName")
            # Continuous tuning adds a version to the pre-tuned model, as Vertex does.
            labels = job.body.get("labels") or {}
            job.model = (self.serving.new_version(parent) if parent else None) or self.serving.create_model(
                job.project, job.location, display, labels
            )
        cid = str(len(job.checkpoints) + 1)
        endpoint = self.serving.create_endpoint(
            job.project,
            job.location,
            f"{job.body.get('tunedModelDisplayName') or job.id}-checkpoint-{cid}",
            job.model,
            cid,
            progress,
            self.settings.scenario,
            job.body.get("labels") or {},
        )
        epoch = math.ceil(step / job.steps_per_epoch)
        job.checkpoints.append(
            {
                "checkpointId": cid,
                "epoch": protojson.int64(epoch),
                "step": protojson.int64(step),
                "endpoint": endpoint,
            }
        )

    def _succeed(self, job: Job) -> None:
        assert job.model is not None
        last = job.checkpoints[-1]
        job.endpoint = self.serving.create_endpoint(
            job.project,
            job.location,
            job.body.get("tunedModelDisplayName") or f"tuned-{job.id}",
            job.model,
            last["checkpointId"],
            1.0,
            self.settings.scenario,
            job.body.get("labels") or {},
        )
        self._finish(job, self.settings.end_state)

    async def _phase(
        self,
        job: Job,
        phase: str,
        step: int,
        progress: float,
        examples: list[dict[str, Any]],
        thinking: str,
    ) -> list[list[Outcome]]:
        """Sample and score one batch; write the phase's metrics for `step`."""
        s = self.settings
        rng = random.Random(f"{job.id}:{phase}:{step}")
        fail_rng = random.Random(f"{job.id}:{phase}:{step}:fail")
        samples = []
        for _ in range(s.samples_per_step):
            ex = rng.choice(examples)
            samples.append((ex, policy.generate(rng, progress, s.scenario, ex.get("references"), thinking)))
        metadata = {"step": step, "tuning_job_id": job.id}
        coros = [
            self.caller.score(cfg, ex, poem.content(), metadata, job.location, fail_rng, s.reward_fail_rate)
            for cfg, _ in job.rewards
            for ex, poem in samples
        ]
        flat = await asyncio.gather(*coros)
        n = len(samples)
        per_reward = [list(flat[i * n : (i + 1) * n]) for i in range(len(job.rewards))]
        self._write_metrics(job, phase, step, progress, samples, per_reward, rng)
        return per_reward

    def _write_metrics(
        self,
        job: Job,
        phase: str,
        step: int,
        progress: float,
        samples: list[tuple[dict[str, Any], policy.Poem]],
        per_reward: list[list[Outcome]],
        rng: random.Random,
    ) -> None:
        now = time.time()

        def put(display: str, value: float) -> None:
            series = job.series.get(display)
            if series is not None:
                series.points.append((step, now, value))

        total_w = 0.0
        total = 0.0
        all_lat: list[float] = []
        for (cfg, weight), outs in zip(job.rewards, per_reward, strict=True):
            name = cfg.get("rewardName", "")
            good = [o.reward for o in outs if not o.errored]
            mean = sum(good) / len(good) if good else math.nan
            if good:
                total += weight * mean
                total_w += weight
            lat = [o.latency_s for o in outs]
            all_lat += lat
            put(f"{name}/{phase}_mean_reward", mean)
            put(f"{name}/{phase}_processing_time", sum(lat) / len(lat))
            put(f"{name}/{phase}_p95_processing_time", _p95(lat))
            put(f"{name}/{phase}_rpc_error_ratio", sum(o.rpc_error for o in outs) / len(outs))
            put(f"{name}/{phase}_invalid_rpc_response_ratio", sum(o.invalid for o in outs) / len(outs))
            put(f"{name}/{phase}_clipping_rewards_ratio", sum(o.clipped for o in outs) / len(outs))
            put(f"{name}/{phase}_executing_code_failure_ratio", sum(o.code_failure for o in outs) / len(outs))
        put(f"/{phase}_mean_reward", total / total_w if total_w else math.nan)
        gen = [p.output_tokens + p.thinking_tokens for _, p in samples]
        put(f"/{phase}_generation_length", sum(gen) / len(gen))
        put(f"/{phase}_thinking_token_length", sum(p.thinking_tokens for _, p in samples) / len(samples))
        put(f"/{phase}_mean_reward_latency", sum(all_lat) / len(all_lat) if all_lat else 0.0)
        put(f"/{phase}_p95_reward_latency", _p95(all_lat))
        sampling = [g / 80.0 * rng.uniform(0.8, 1.3) for g in gen]
        put(f"/{phase}_mean_sampling_latency", sum(sampling) / len(sampling))
        put(f"/{phase}_p95_sampling_latency", _p95(sampling))
        if phase == "train":
            hacked = sum(p.hacked for _, p in samples) / len(samples)
            ratio = 0.9 - 0.25 * progress - 0.5 * hacked + rng.uniform(-0.05, 0.05)
            put("/learnable_prompt_ratio", min(1.0, max(0.0, ratio)))


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
