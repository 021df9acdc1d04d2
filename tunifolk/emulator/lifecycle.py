"""The lifecycle of one tuning job: the asyncio task the job store starts for each job.

PENDING → RUNNING → SUCCEEDED | FAILED | CANCELLED, one training step every `step_seconds`.
Each training step takes the next `batchSize` prompts of the epoch and scores whole GRPO groups:
every prompt it samples gets all of its `samplesPerPrompt` responses (the hyperparameters page:
`batchSize` is the prompts per batch, `samplesPerPrompt` the responses generated for each prompt
during each training step). To keep local runs fast it samples fewer prompts than `batchSize`,
never fewer responses per prompt: max(1, `samples_per_step` // samplesPerPrompt) of them. Each
response is scored through the real reward calls; the step writes its metrics, and every
`checkpointInterval` steps adds a checkpoint with its own endpoint
(https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/hyperparameters).
The job fails, as the real one does, when its dataset is missing, when more than `error_threshold`
(`limits.ERRORED_REWARD_LIMIT`) of one reward's invocations errored, or (scenario) at a chosen step.
Cancel is best-effort. The job and its store are `jobs`; the numbers are `limits`.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from pathlib import Path
from typing import Any

import orjson

from tunifolk.job.limits import over_error_limit
from tunifolk.local_gcs import object_file, split_uri

from . import policy, protojson
from .hostile import Hostile
from .jobs import Job, JobSettings
from .limits import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_RUN_STEPS,
    DEFAULT_SAMPLES_PER_PROMPT,
    MAX_DEFAULT_EPOCHS,
    MAX_TOTAL_STEPS,
    MAX_TRAINING_EXAMPLES,
    MAX_VALIDATION_EXAMPLES,
    MIN_VALIDATION_SPLIT,
    VALIDATION_SPLIT_SHARE,
)
from .metrics import MetricsStore
from .rewards import Outcome, RewardCaller, caller_of, kind_of
from .serving import Serving


class DatasetError(Exception):
    """A dataset the service cannot read: the job fails with this message."""


def read_dataset(gcs_dir: Path, uri: str, limit: int) -> list[dict[str, Any]]:
    """Read `gs://BUCKET/PATH` from `gcs_dir/BUCKET/PATH` as JSONL."""
    if not uri.startswith("gs://"):
        raise DatasetError(f"Dataset URI {uri} must be a Cloud Storage URI (gs://).")
    parts = split_uri(uri)
    path = object_file(gcs_dir, *parts) if parts else None
    if path is None:
        raise DatasetError(f"Dataset URI {uri} is not a valid Cloud Storage object.")
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


class Lifecycle:
    """Runs jobs: reads their datasets, steps them, scores samples, writes metrics and checkpoints."""

    def __init__(
        self,
        settings: JobSettings,
        caller: RewardCaller,
        metrics: MetricsStore,
        serving: Serving,
        hostile: Hostile | None = None,
    ) -> None:
        self.settings = settings
        self.caller = caller
        self.metrics = metrics
        self.serving = serving
        self.hostile = hostile or Hostile()

    async def run(self, job: Job) -> None:
        """The job's whole run; any unexpected error fails the job (the server stays up)."""
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
            train = read_dataset(s.gcs_dir, spec.get("trainingDatasetUri", ""), MAX_TRAINING_EXAMPLES)
            if spec.get("validationDatasetUri"):
                evals = read_dataset(s.gcs_dir, spec["validationDatasetUri"], MAX_VALIDATION_EXAMPLES)
            else:  # the service splits 25 % or 50 examples, whichever is larger, off the training set
                n_val = min(
                    len(train), max(MIN_VALIDATION_SPLIT, math.ceil(len(train) * VALIDATION_SPLIT_SHARE))
                )
                evals = train[-n_val:]
        except DatasetError as e:
            self._finish(job, "JOB_STATE_FAILED", {"code": 3, "message": str(e)})
            return
        parent = (job.body.get("preTunedModel") or {}).get("tunedModelName")
        if parent and self.serving.model(parent) is None:
            self._finish(job, "JOB_STATE_FAILED", {"code": 5, "message": f"Model {parent} not found."})
            return
        batch = hp.get("batchSize") or DEFAULT_BATCH_SIZE
        job.example_count = len(train)
        job.steps_per_epoch = max(1, len(train) // batch)
        if hp.get("stepCount"):
            total = int(hp["stepCount"])
        else:
            epochs = int(
                hp.get("epochCount")
                or max(1, min(MAX_DEFAULT_EPOCHS, DEFAULT_RUN_STEPS * batch // len(train)))
            )
            total = job.steps_per_epoch * epochs
        job.total_steps = max(1, min(MAX_TOTAL_STEPS, total))
        eval_every = hp.get("evaluateInterval") or job.steps_per_epoch
        ckpt_every = hp.get("checkpointInterval") or job.steps_per_epoch
        reward_kinds = [(c.get("rewardName", ""), kind_of(c)) for c, _ in job.rewards]
        # Hostile reading `single-reward-series` (hostile.py): a single-reward job writes the job-wide
        # series only; the metrics page does not say it gets per-reward ones too
        # (https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/job-status-metrics-monitoring).
        per_reward = not (self.hostile.no_single_reward_series and "singleRewardConfig" in spec)
        if not job.series:  # else a job restored from disk (persist.py): it carries on after its last step
            job.experiment, job.series = self.metrics.create_job_metrics(
                job.project, job.location, job.id, reward_kinds, per_reward
            )
            job.started = time.time()
        job.state = "JOB_STATE_RUNNING" if not job.cancel_requested else job.state
        job.tuning_state = "TUNING_JOB_STATE_TUNING"
        job.touch()
        t0 = time.monotonic() - job.completed_steps * s.step_seconds
        thinking = hp.get("thinkingLevel", "HIGH")
        for step in range(job.completed_steps + 1, job.total_steps + 1):
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
            if over_error_limit(job.reward_errors[worst], job.reward_calls[worst], s.error_threshold):
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
            display = self._display_name(job)
            parent = (job.body.get("preTunedModel") or {}).get("tunedModelName")
            # Continuous tuning adds a version to the pre-tuned model, unless the job names a display name
            # other than the parent's: then a new model (the discovery document's TunedModel.model and
            # TuningJob.tunedModelDisplayName; docs/google-contract.md, MOD-01 and MOD-02).
            labels = job.body.get("labels") or {}
            parent_model = self.serving.model(parent) if parent else None
            same = parent_model is not None and parent_model.display_name == display
            job.model = (self.serving.new_version(parent) if same else None) or self.serving.create_model(
                job.project, job.location, display, labels
            )
            # Hostile reading `unversioned-model` (hostile.py): the name comes back without `@N`, as in
            # the quick start's example response, though the version exists on the model
            # (https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/quick-start).
            job.unversioned_model = self.hostile.unversioned_model
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
            seed=f"{job.seed}:{cid}",
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

    def _display_name(self, job: Job) -> str:
        """The tuned model's display name: the job's, else (continuous tuning) the pre-tuned model's,
        else the emulator's own."""
        given = job.body.get("tunedModelDisplayName")
        parent = (job.body.get("preTunedModel") or {}).get("tunedModelName")
        parent_model = self.serving.model(parent) if parent else None
        return given or (parent_model.display_name if parent_model else f"tuned-{job.id}")

    def _succeed(self, job: Job) -> None:
        assert job.model is not None
        last = job.checkpoints[-1]
        job.endpoint = self.serving.create_endpoint(
            job.project,
            job.location,
            self._display_name(job),
            job.model,
            last["checkpointId"],
            1.0,
            self.settings.scenario,
            job.body.get("labels") or {},
            seed=f"{job.seed}:final",
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
        """Sample and score one batch (training: whole GRPO groups, `prompts_of`); write the phase's
        metrics for `step`."""
        s = self.settings
        rng = random.Random(f"{job.seed or job.id}:{phase}:{step}")
        fail_rng = random.Random(f"{job.seed or job.id}:{phase}:{step}:fail")
        if phase == "train":
            prompts, group = self.prompts_of(job, step, examples, rng)
        else:  # evaluation: one response per validation prompt
            prompts, group = [rng.choice(examples) for _ in range(s.samples_per_step)], 1
        samples = [
            (ex, policy.generate(rng, progress, s.scenario, ex.get("references"), thinking))
            for ex in prompts
            for _ in range(group)
        ]
        # Hostile reading `tuning-job-id` (hostile.py): `tuningJobId`, a JSON number, as the
        # reward-functions guide spells it, instead of the REST reference's `tuning_job_id`.
        metadata = self.hostile.reward_metadata(step, job.id)
        caller = caller_of(job.project, job.body.get("serviceAccount"))
        coros = [
            self.caller.score(
                cfg, ex, poem.content(), metadata, job.location, fail_rng, s.reward_fail_rate, caller
            )
            for cfg, _ in job.rewards
            for ex, poem in samples
        ]
        flat = await asyncio.gather(*coros)
        n = len(samples)
        per_reward = [list(flat[i * n : (i + 1) * n]) for i in range(len(job.rewards))]
        self._write_metrics(job, phase, step, progress, samples, per_reward, rng)
        return per_reward

    def prompts_of(
        self, job: Job, step: int, train: list[dict[str, Any]], rng: random.Random
    ) -> tuple[list[dict[str, Any]], int]:
        """The prompts training step `step` samples, and the responses each gets (`samplesPerPrompt`).

        The step's batch is the epoch's next `batchSize` prompts (the dataset in order); of it, the
        step samples max(1, `samples_per_step` // samplesPerPrompt) distinct prompts (all of the batch
        at most), each with its whole group: fewer prompts than Google's, never smaller groups.
        """
        hp = (job.body.get("reinforcementTuningSpec") or {}).get("hyperParameters") or {}
        group = max(1, int(hp.get("samplesPerPrompt") or DEFAULT_SAMPLES_PER_PROMPT))
        batch = max(1, int(hp.get("batchSize") or DEFAULT_BATCH_SIZE))
        start = ((step - 1) % max(1, job.steps_per_epoch)) * batch
        pool = train[start : start + batch] or train
        count = min(len(pool), max(1, self.settings.samples_per_step // group))
        return rng.sample(pool, count), group

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
