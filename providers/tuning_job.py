"""`RlftTuningJob`: a Vertex RLFT tuning job as a Pulumi dynamic resource.

The provider is the guard between `pulumi up` and the bill:

* **check** runs every static rule at preview (pure, in `tunifolk/job/checks.py`);
* **create** probes each judge model in the tuning region, dry-runs the reward through
  `validateReinforcementTuningReward` with the exact reward config the job will use, and refuses
  unless every reward is present, finite and inside [-1, 1]; then it creates-or-adopts the job by its
  `tunifolk-spec` label (never two jobs for one spec, never a blind retry of the create call) and
  honours `wait`. It never loses a job: once the job exists, its id is returned even if waiting fails;
* **read** (refresh) follows the job through its metric series, since GetTuningJob reports no step;
* **delete** cancels a live job, waits for it to end, then removes the tuned and checkpoint
  endpoints and the model (`cleanup: all`), naming whatever it could not remove.

The provider object is pickled into state by dill: it holds only plain numbers (poll intervals and
bounds). Clients, sessions and credentials are built inside each method and dropped after it. The
pickle names this class by reference (`providers.tuning_job.RlftTuningJobProvider`), and the engine
imports it from the code on disk for every refresh and destroy: this module must stay where it is,
and a state written by an older release must keep working (docs/architecture.md, "State").

Inputs, outputs and what a change to each means come from the field table
(`tunifolk/job/fields.py`); this module only translates between Pulumi and the job model, and
computes the outputs the job does not carry as they are.
"""

from __future__ import annotations

import os
import sys
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

from tunifolk import invoker
from tunifolk import metrics as job_metrics
from tunifolk import operations as ops
from tunifolk.errors import JobFailed, RewardRefused, TunifolkError, VertexError
from tunifolk.job import bodies, checks, diff, fields, limits
from tunifolk.job.field_names import Input, Output
from tunifolk.job.fields import DEFAULTS, Kind
from tunifolk.job.normalize import normalize
from tunifolk.job.wire import contains_unknown
from tunifolk.vertex import VertexClient, console_url, serving_host

PROVIDER_KEY = "__provider"


def _inputs(props: dict[str, Any]) -> dict[str, Any]:
    """The inputs among a state's properties (outputs and the pickled provider sit beside them)."""
    return {k: v for k, v in props.items() if k != PROVIDER_KEY and k not in fields.OUTPUT_NAMES}


class RlftTuningJobProvider(ResourceProvider):
    """CRUD for one RLFT tuning job. Holds numbers only, so it pickles without secrets."""

    def __init__(
        self,
        *,
        poll_seconds: float = 15.0,
        max_poll_seconds: float = 300.0,
        permission_retry_seconds: float = invoker.permission_retry_seconds(),
        permission_retry_interval: float = invoker.PERMISSION_RETRY_INTERVAL_S,
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
        report = checks.check_inputs(_inputs(news))
        for warning in report.warnings:
            ops.say(f"warning: {warning}")
        failures = [_check_failure(path, reason) for path, reason in report.failures]
        if not _olds and report.inputs.get(Input.SERVING_CHECKPOINT) not in (None, ""):
            failures.append(
                CheckFailure(
                    Input.SERVING_CHECKPOINT,
                    "there is no job yet, so no checkpoint to serve: set tunifolk:servingCheckpoint once the "
                    "run has checkpoints (`tunifolk eval` names the best)",
                )
            )
        return CheckResult(report.inputs, failures)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """Replace only for a change that shapes the job; first make sure the replacement can be
        created at all: a replacement whose reward would be refused stops here. The new job is
        created before the old one is deleted, so a create that Vertex refuses for a reason no
        preview can see (a value its guide does not list, a quota) leaves the old job, its endpoints
        and its model untouched (docs/vertex.md, "Lifecycle"). A live old job holds the project's
        one concurrent tuning job: that create fails on one line naming the fix, and nothing moves."""
        changed, replaces = diff.diff_decision(_inputs(olds), _inputs(news))
        _check_serving_checkpoint(id_, olds, news, bool(replaces))
        if replaces and not contains_unknown(_inputs(news)):
            self._validate_replacement(id_, normalize(_inputs(news)))
        return DiffResult(changes=bool(changed), replaces=list(replaces), delete_before_replace=False)

    def _validate_replacement(self, id_: str, inputs: dict[str, Any]) -> None:
        with _client() as client:
            problems = ops.judge_problems(client, inputs)
            if not problems:
                try:
                    ops.validate_until_granted(
                        client, inputs, self.permission_retry_seconds, self.permission_retry_interval
                    )
                except RewardRefused as exc:
                    problems = [str(exc)]
        if problems:
            detail = "\n".join(problems)
            raise RewardRefused(
                f"the replacement for {id_} was not validated, so {id_}, its endpoints and its model "
                f"were left as they are:\n{detail}"
            )

    # ------------------------------------------------------------------ create

    def create(self, props: dict[str, Any]) -> CreateResult:
        inputs = normalize(_inputs(props))
        with _client() as client:
            judges = ops.while_enabling(client, lambda: ops.judge_problems(client, inputs))
            if judges:
                raise TunifolkError("\n".join(judges))
            validation = ops.validate_until_granted(
                client, inputs, self.permission_retry_seconds, self.permission_retry_interval
            )
            job = ops.create_or_adopt(client, inputs, self.create_attempts)
            name = job["name"]
            ops.say(f"tuning job {name} is {job.get('state', '?')}")
            job, metrics = self._wait(client, inputs, job)
            job = ops.with_versioned_model(client, job, inputs)
            return CreateResult(name, self._outputs(inputs, job, metrics, validation))

    def _wait(
        self, client: VertexClient, inputs: dict[str, Any], job: dict[str, Any]
    ) -> tuple[dict[str, Any], job_metrics.Metrics | None]:
        """Honour `wait`. Never lose the job: any failure while it may still run returns its id and
        last known state; only a job that ended FAILED or CANCELLED makes create fail."""
        goal = inputs.get(Input.WAIT, DEFAULTS[Input.WAIT])
        metrics = None
        if goal == "none":
            return job, metrics
        timeout = float(inputs.get(Input.WAIT_TIMEOUT_SECONDS) or DEFAULTS[Input.WAIT_TIMEOUT_SECONDS])
        deadline = time.monotonic() + timeout
        total = ops.total_steps(inputs, job)
        delay, last_line = self.poll_seconds, ""
        try:
            while True:
                state = job.get("state", "")
                if state in limits.TERMINAL_STATES or (goal == "running" and state == "JOB_STATE_RUNNING"):
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
        if job.get("state") in limits.FAILED_STATES:
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
            job = ops.with_versioned_model(client, job, inputs, props.get(Output.TUNED_MODEL))
        outs = self._outputs(inputs, job, metrics, props.get(Output.VALIDATION))
        return ReadResult(id_=id_, outs=outs, inputs=inputs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """Inputs that do not shape the job change in place: `wait` (waited for now),
        `wait_timeout_seconds`, `cleanup`, `max_cost_usd` and the validation example are recorded;
        labels are recorded too, and said so, since a tuning job cannot be relabelled."""
        inputs = normalize(_inputs(news))
        old_labels, new_labels = normalize(_inputs(olds)).get(Input.LABELS), inputs.get(Input.LABELS)
        if old_labels != new_labels:
            ops.say(
                f"labels changed to {new_labels or {}}: recorded in state; {id_} keeps the labels it was "
                "created with (Vertex cannot relabel a tuning job), a replacement would carry the new ones"
            )
        with _client() as client:
            job = client.get_tuning_job(id_)
            job, metrics = self._wait(client, inputs, job)
            if metrics is None:
                metrics = ops.try_metrics(client, job)
            job = ops.with_versioned_model(client, job, inputs, olds.get(Output.TUNED_MODEL))
        return UpdateResult(self._outputs(inputs, job, metrics, olds.get(Output.VALIDATION)))

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
            if props.get(Input.CLEANUP, DEFAULTS[Input.CLEANUP]) == "all":
                ops.cleanup(client, job, props)

    def _end(self, client: VertexClient, job: dict[str, Any]) -> dict[str, Any]:
        if job.get("state") in limits.TERMINAL_STATES:
            return job
        ops.say(f"cancelling {job['name']} ({job.get('state')})")
        client.cancel_tuning_job(job["name"])
        deadline = time.monotonic() + self.delete_timeout_seconds
        delay = self.poll_seconds
        while job.get("state") not in limits.TERMINAL_STATES:
            if time.monotonic() >= deadline:
                raise TunifolkError(
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
        """The inputs and every output of the table: read from the job at the row's `api` path, or
        computed here for the rows without one."""
        read = {f.name: bodies.value_at(job, f.api) for f in fields.OUTPUTS if f.api}
        served = ops.served_checkpoint(job, inputs)
        if served is not None:
            read[Output.ENDPOINT] = served["endpoint"]
        elif inputs.get(Input.SERVING_CHECKPOINT):
            ops.say(
                f"warning: {job['name']} lists no checkpoint {inputs[Input.SERVING_CHECKPOINT]}: the "
                "endpoint output is the service's final endpoint"
            )
        endpoint, error = read[Output.ENDPOINT], job.get("error")
        computed = {
            Output.SERVING_HOST: serving_host(endpoint) if endpoint else None,
            Output.CHECKPOINTS: job_metrics.checkpoints(job),
            Output.BEST_CHECKPOINT: job_metrics.best_checkpoint(job, metrics),
            Output.TOTAL_STEPS: ops.total_steps(inputs, job),
            Output.COMPLETED_STEPS: job_metrics.completed_steps(job, metrics),
            Output.ERROR: {"code": error.get("code", 0), "message": error.get("message", "")}
            if error
            else None,
            Output.VALIDATION: validation,
            Output.CONSOLE_URL: console_url(job["name"]),
        }
        values = {**read, **computed}
        return {**inputs, **{name: values[name] for name in fields.OUTPUT_NAMES}}


# --------------------------------------------------------------------------- helpers


def _check_serving_checkpoint(id_: str, olds: dict[str, Any], news: dict[str, Any], replaced: bool) -> None:
    """At preview: `serving_checkpoint` must name a checkpoint the job has (its state's last
    `checkpoints`), and cannot carry over to a job that replaces this one. One line, listing the
    checkpoints there are."""
    wanted = normalize(_inputs(news)).get(Input.SERVING_CHECKPOINT)
    if wanted in (None, "") or contains_unknown(wanted):
        return
    job = id_.rsplit("/", 1)[-1]
    if replaced:
        raise TunifolkError(
            f"servingCheckpoint {wanted} is a checkpoint of job {job}, which this change replaces: unset it "
            "(`pulumi config rm tunifolk:servingCheckpoint`) for the new run"
        )
    ids = [str(c.get("checkpoint_id")) for c in olds.get(Output.CHECKPOINTS) or []]
    if str(wanted) not in ids:
        has = f"it has {', '.join(ids)}" if ids else "it has none yet"
        raise TunifolkError(
            f"servingCheckpoint {wanted}: job {job} has no such checkpoint; {has} "
            "(`pulumi refresh` reads checkpoints made since the last update)"
        )


class _OneLineForExpectedFailures:
    """Stands in for the `traceback` module inside the SDK's dynamic-provider host.

    The host (`python -m pulumi.dynamic`) answers any exception a provider raises with
    `traceback.format_exc()`, so a refused reward would reach `pulumi up` as a Python traceback. For
    our expected failures (`TunifolkError`: a refused reward, an unavailable judge, a job that
    failed) it gives the message alone; anything else, or any failure with TUNIFOLK_DEBUG=1, keeps
    its full traceback.
    """

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def format_exc(self, *args: Any, **kwargs: Any) -> str:
        error = sys.exc_info()[1]
        if isinstance(error, TunifolkError) and not os.environ.get("TUNIFOLK_DEBUG"):
            return str(error)
        return self._real.format_exc(*args, **kwargs)


def _quiet_expected_failures_in_the_dynamic_host() -> None:
    host = sys.modules.get("__main__")
    spec = getattr(host, "__spec__", None)
    real = getattr(host, "traceback", None)
    if spec is None or spec.name != "pulumi.dynamic.__main__" or real is None:
        return
    if not isinstance(real, _OneLineForExpectedFailures):
        host.traceback = _OneLineForExpectedFailures(real)  # type: ignore[union-attr]


_quiet_expected_failures_in_the_dynamic_host()


def _client() -> VertexClient:
    """A fresh client per provider call: nothing with a socket or a token outlives the call."""
    return VertexClient(on_retry=ops.say)


# --------------------------------------------------------------------------- the resource


_PYTHON_TYPES: dict[Kind, Any] = {
    Kind.STR: str,
    Kind.INT: int,
    Kind.INT64: int,
    Kind.FLOAT: float,
    Kind.BOOL: bool,
    Kind.ENUM: str,
    Kind.LABELS: dict[str, str],
    Kind.OBJECT: dict[str, Any],
    Kind.LIST: list[dict[str, Any]],
    Kind.MESSAGE: dict[str, Any],
}


def _args_type() -> Any:
    """A TypedDict of the inputs, built from the table: values may be Pulumi Inputs; the TypedDict
    names the keys and their plain types."""
    return TypedDict("RlftTuningJobArgs", {f.name: _PYTHON_TYPES[f.kind] for f in fields.INPUTS}, total=False)


RlftTuningJobArgs = _args_type()
"""The resource's inputs, snake_case (docs/config.md, "The job resource"). Nested values are plain
dicts in snake_case, except `validation_example`, which carries Google's camelCase verbatim."""


class RlftTuningJob(pulumi.dynamic.Resource, module="tunifolk", name="RlftTuningJob"):
    """A Vertex RLFT tuning job. Every output of the field table (`fields.OUTPUTS`: name, state,
    endpoint, checkpoints, ...) is an attribute, as a Pulumi Output."""

    def __init__(
        self,
        resource_name: str,
        args: RlftTuningJobArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        poll_seconds: float = 15.0,
    ) -> None:
        props: dict[str, Any] = {**args, **dict.fromkeys(fields.OUTPUT_NAMES)}
        provider = RlftTuningJobProvider(poll_seconds=poll_seconds)
        super().__init__(provider, resource_name, props, opts)


def _check_failure(path: str, reason: str) -> CheckFailure:
    """The engine prints a failure's property with the input's value, which it looks up among the
    top-level inputs only: a nested path (``hyper_parameters.learning_rate_multiplier``) would
    print as ``value {<nil>}``. A nested failure is therefore reported on the resource, its path
    leading the reason."""
    if "." in path or "[" in path:
        return CheckFailure("", f"{path}: {reason}")
    return CheckFailure(path, reason)
