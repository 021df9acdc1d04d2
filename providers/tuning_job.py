"""`RlftTuningJob`: a Vertex RLFT tuning job as a Pulumi dynamic resource.

The provider is the guard between `pulumi up` and the bill:

* **check** runs every static rule of contracts.md §2 at preview (pure, in `providers/spec.py`);
* **create** probes each judge model in the tuning region, dry-runs the reward through
  `validateReinforcementTuningReward` with the exact reward config the job will use, and refuses
  unless every reward is present, finite and inside [-1, 1]; then it creates-or-adopts the job by its
  `tunifolk-spec` label (never two jobs for one spec, never a blind retry of the create call) and
  honours `wait`. It never loses a job: once the job exists, its id is returned even if waiting fails;
* **read** (refresh) follows the job through its metric series, since GetTuningJob reports no step;
* **delete** cancels a live job, waits for it to end, then removes the tuned and checkpoint
  endpoints and the model (`cleanup: all`), naming whatever it could not remove.

The provider object is pickled into state by dill: it holds only plain numbers (poll intervals and
bounds). Clients, sessions and credentials are built inside each method and dropped after it.
"""

from __future__ import annotations

import time
from typing import Any, TypedDict

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from providers import metrics as job_metrics
from providers import operations as ops
from providers import spec
from providers.vertex import TERMINAL_STATES, VertexClient, VertexError, serving_host

PROVIDER_KEY = "__provider"
OUTPUT_KEYS = sorted(spec.OUTPUT_KEYS - {PROVIDER_KEY})


def _inputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k != PROVIDER_KEY and k not in OUTPUT_KEYS}


class JobFailed(Exception):
    """The job ended FAILED or CANCELLED while create waited: nothing bills, so create may fail."""


class RlftTuningJobProvider(ResourceProvider):
    """CRUD for one RLFT tuning job. Holds numbers only, so it pickles without secrets."""

    def __init__(
        self,
        *,
        poll_seconds: float = 15.0,
        max_poll_seconds: float = 300.0,
        permission_retry_seconds: float = 600.0,
        permission_retry_interval: float = 30.0,
        delete_timeout_seconds: float = 1800.0,
        create_attempts: int = 3,
    ) -> None:
        super().__init__()
        self.poll_seconds = poll_seconds
        self.max_poll_seconds = max_poll_seconds
        self.permission_retry_seconds = permission_retry_seconds
        self.permission_retry_interval = permission_retry_interval
        self.delete_timeout_seconds = delete_timeout_seconds
        self.create_attempts = create_attempts

    # ------------------------------------------------------------------ check and diff

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        report = spec.check_inputs(_inputs(news))
        for warning in report.warnings:
            ops.say(f"warning: {warning}")
        failures = [CheckFailure(path, reason) for path, reason in report.failures]
        return CheckResult(report.inputs, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed, replaces = spec.diff_decision(_inputs(olds), _inputs(news))
        return DiffResult(
            changes=bool(changed), replaces=list(replaces), delete_before_replace=bool(replaces)
        )

    # ------------------------------------------------------------------ create

    def create(self, props: dict[str, Any]) -> CreateResult:
        inputs = spec.normalize(_inputs(props))
        with _client() as client:
            judges = ops.judge_problems(client, inputs)
            if judges:
                raise ValueError("\n".join(judges))
            validation = ops.validate_until_granted(
                client, inputs, self.permission_retry_seconds, self.permission_retry_interval
            )
            job = ops.create_or_adopt(client, inputs, self.create_attempts)
            name = job["name"]
            ops.say(f"tuning job {name} is {job.get('state', '?')}")
            job, metrics = self._wait(client, inputs, job)
            return CreateResult(name, self._outputs(inputs, job, metrics, validation))

    def _wait(
        self, client: VertexClient, inputs: dict[str, Any], job: dict[str, Any]
    ) -> tuple[dict[str, Any], job_metrics.Metrics | None]:
        """Honour `wait`. Never lose the job: any failure while it may still run returns its id and
        last known state; only a job that ended FAILED or CANCELLED makes create fail."""
        goal = inputs.get("wait", "none")
        metrics = None
        if goal == "none":
            return job, metrics
        timeout = float(inputs.get("wait_timeout_seconds") or 7 * 24 * 3600)
        deadline = time.monotonic() + timeout
        total = ops.total_steps(inputs, job)
        delay, last_line = self.poll_seconds, ""
        try:
            while True:
                state = job.get("state", "")
                if state in TERMINAL_STATES or (goal == "running" and state == "JOB_STATE_RUNNING"):
                    break
                if time.monotonic() >= deadline:
                    ops.say(f"stopped waiting after {timeout:.0f}s; {job['name']} is still {state}")
                    return job, metrics
                time.sleep(delay)
                delay = min(delay * 1.5, self.max_poll_seconds)
                job = client.get_tuning_job(job["name"])
                metrics = ops.try_metrics(client, job)
                line = ops.progress_line(job, metrics, total)
                if line != last_line:
                    ops.say(line)
                    last_line = line
        except Exception as exc:  # the job exists: return it rather than lose it
            ops.say(f"stopped waiting ({exc}); {job['name']} stays in state as {job.get('state')}")
            return job, metrics
        if job.get("state") in ("JOB_STATE_FAILED", "JOB_STATE_CANCELLED"):
            error = (job.get("error") or {}).get("message", "no error message")
            raise JobFailed(f"tuning job {job['name']} ended {job['state']}: {error}")
        return job, metrics

    # ------------------------------------------------------------------ read and update

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        inputs = _inputs(props)
        with _client() as client:
            try:
                job = client.get_tuning_job(id_)
            except VertexError as exc:
                if exc.not_found:
                    return ReadResult(id_="", outs={})
                raise
            metrics = ops.try_metrics(client, job)
        outs = self._outputs(inputs, job, metrics, props.get("validation"))
        return ReadResult(id_=id_, outs=outs, inputs=inputs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """Only `wait`, `wait_timeout_seconds`, `cleanup` and `max_cost_usd` update in place."""
        inputs = spec.normalize(_inputs(news))
        with _client() as client:
            job = client.get_tuning_job(id_)
            job, metrics = self._wait(client, inputs, job)
            if metrics is None:
                metrics = ops.try_metrics(client, job)
        return UpdateResult(self._outputs(inputs, job, metrics, olds.get("validation")))

    # ------------------------------------------------------------------ delete

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Cancel if live, wait (bounded) for any end state, then clean up per `cleanup`."""
        with _client() as client:
            try:
                job = client.get_tuning_job(id_)
            except VertexError as exc:
                if not exc.not_found:
                    raise
                job = {"name": id_, "state": "JOB_STATE_CANCELLED"}
            job = self._end(client, job)
            if props.get("cleanup", "all") == "all":
                ops.cleanup(client, job, props)

    def _end(self, client: VertexClient, job: dict[str, Any]) -> dict[str, Any]:
        if job.get("state") in TERMINAL_STATES:
            return job
        ops.say(f"cancelling {job['name']} ({job.get('state')})")
        client.cancel_tuning_job(job["name"])
        deadline = time.monotonic() + self.delete_timeout_seconds
        delay = self.poll_seconds
        while job.get("state") not in TERMINAL_STATES:
            if time.monotonic() >= deadline:
                raise RuntimeError(
                    f"{job['name']} is still {job.get('state')} {self.delete_timeout_seconds:.0f}s after "
                    "cancel; it stays in state. Run `pulumi destroy` again, or check it with "
                    f"`tunifolk status --job {job['name']}`"
                )
            time.sleep(delay)
            delay = min(delay * 1.5, self.max_poll_seconds)
            job = client.get_tuning_job(job["name"])
        ops.say(f"{job['name']} ended {job['state']}")
        return job

    # ------------------------------------------------------------------ outputs

    def _outputs(
        self,
        inputs: dict[str, Any],
        job: dict[str, Any],
        metrics: job_metrics.Metrics | None,
        validation: dict[str, Any] | None,
    ) -> dict[str, Any]:
        tuned = job.get("tunedModel") or {}
        endpoint = tuned.get("endpoint") or None
        error = job.get("error")
        return {
            **inputs,
            "name": job["name"],
            "state": job.get("state"),
            "tuning_job_state": job.get("tuningJobState"),
            "tuned_model": tuned.get("model") or None,
            "endpoint": endpoint,
            "serving_host": serving_host(endpoint) if endpoint else None,
            "checkpoints": job_metrics.checkpoints(job),
            "best_checkpoint": job_metrics.best_checkpoint(job, metrics),
            "experiment": job.get("experiment") or None,
            "total_steps": ops.total_steps(inputs, job),
            "completed_steps": job_metrics.completed_steps(job, metrics),
            "error": {"code": error.get("code", 0), "message": error.get("message", "")} if error else None,
            "create_time": job.get("createTime"),
            "start_time": job.get("startTime"),
            "end_time": job.get("endTime"),
            "validation": validation,
            "console_url": spec.console_url(job["name"]),
            "spec_hash": (job.get("labels") or {}).get(spec.SPEC_LABEL),
        }


# --------------------------------------------------------------------------- helpers


def _client() -> VertexClient:
    """A fresh client per provider call: nothing with a socket or a token outlives the call."""
    return VertexClient(on_retry=ops.say)


# --------------------------------------------------------------------------- the resource


class RlftTuningJobArgs(TypedDict, total=False):
    """The resource's inputs (contracts.md §4). Nested values are plain dicts in snake_case, except
    `validation_example`, which carries Google's camelCase example and content verbatim."""

    project: pulumi.Input[str]
    location: pulumi.Input[str]
    base_model: pulumi.Input[str]
    tuned_model_display_name: pulumi.Input[str]
    description: pulumi.Input[str]
    labels: pulumi.Input[dict[str, str]]
    service_account: pulumi.Input[str]
    training_dataset_uri: pulumi.Input[str]
    validation_dataset_uri: pulumi.Input[str]
    training_example_count: pulumi.Input[int]
    hyper_parameters: pulumi.Input[dict[str, Any]]
    rewards: pulumi.Input[list[dict[str, Any]]]
    validation_example: pulumi.Input[dict[str, Any]]
    pre_tuned_model: pulumi.Input[dict[str, Any]]
    wait: pulumi.Input[str]
    wait_timeout_seconds: pulumi.Input[float]
    cleanup: pulumi.Input[str]
    max_cost_usd: pulumi.Input[float]


class RlftTuningJob(pulumi.dynamic.Resource, module="tunifolk", name="RlftTuningJob"):
    """A Vertex RLFT tuning job. Inputs and outputs: contracts.md §4 (snake_case)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    tuning_job_state: pulumi.Output[str | None]
    tuned_model: pulumi.Output[str | None]
    endpoint: pulumi.Output[str | None]
    serving_host: pulumi.Output[str | None]
    checkpoints: pulumi.Output[list[dict[str, Any]]]
    best_checkpoint: pulumi.Output[dict[str, Any] | None]
    experiment: pulumi.Output[str | None]
    total_steps: pulumi.Output[int | None]
    completed_steps: pulumi.Output[int]
    error: pulumi.Output[dict[str, Any] | None]
    create_time: pulumi.Output[str | None]
    start_time: pulumi.Output[str | None]
    end_time: pulumi.Output[str | None]
    validation: pulumi.Output[dict[str, Any] | None]
    console_url: pulumi.Output[str]
    spec_hash: pulumi.Output[str]

    def __init__(
        self,
        resource_name: str,
        args: RlftTuningJobArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props: dict[str, Any] = {**args, **dict.fromkeys(OUTPUT_KEYS)}
        super().__init__(RlftTuningJobProvider(), resource_name, props, opts)
