"""Operations on RLFT tuning jobs shared by the Pulumi provider and the operator CLI.

`pulumi up` and `tunifolk launch` must behave alike: probe the judges, validate the reward, refuse
on any problem, then create-or-adopt by the `tunifolk-spec` label. Keeping those steps here, as
plain functions over a `VertexClient`, means the two can never drift apart. Progress goes through
`say` (stderr), which Pulumi shows as diagnostics and the CLI prints as it is.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from tunifolk import metrics as job_metrics
from tunifolk.errors import LeftBehind, RewardRefused, TunifolkError, UnreachableError, VertexError
from tunifolk.job import bodies, estimate, limits, names, verdict
from tunifolk.job.field_names import Input, Output, PreTuned, Reward, Scorer
from tunifolk.job.fields import HYPER_PARAMETERS, SPEC_LABEL
from tunifolk.job.normalize import normalize
from tunifolk.vertex import VertexClient

JUDGE_CANDIDATES = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview", "gemini-3.1-pro-preview")


def say(message: str) -> None:
    """A progress line on stderr (the engine shows a dynamic provider's stderr as diagnostics)."""
    print(f"tunifolk: {message}", file=sys.stderr, flush=True)


def judge_problems(client: VertexClient, inputs: dict[str, Any]) -> list[str]:
    """Each autorater judge must answer generateContent in the tuning region (availability differs per
    project and region). One line per judge that 404s, naming the judges that do answer there."""
    project, location = inputs[Input.PROJECT], inputs[Input.LOCATION]
    problems = []
    answering: list[str] | None = None
    for i, reward in enumerate(inputs.get(Input.REWARDS) or []):
        judge = (reward.get(Reward.AUTORATER) or {}).get(Scorer.MODEL)
        if not judge or client.judge_available(
            project, location, bodies.expand_model(judge, project, location)
        ):
            continue
        if answering is None:
            answering = [m for m in JUDGE_CANDIDATES if client.judge_available(project, location, m)]
        problems.append(
            f"{Input.REWARDS}[{i}].{Reward.AUTORATER}.{Scorer.MODEL}: judge {judge!r} is not available "
            f"in {location} for project {project} (generateContent answered 404). Judges that answer there: "
            f"{', '.join(answering) or 'none of ' + ', '.join(JUDGE_CANDIDATES)}."
        )
    return problems


ENABLE_PROPAGATION_S = 300.0
"""How long create keeps calling an API that still answers SERVICE_DISABLED: the stack enables its APIs
moments before, and Google's errors for a disabled API say "If you enabled this API recently, wait a few
minutes for the action to propagate to our systems and retry" (docs/google-contract.md, row SU-04)."""


def while_enabling(client: VertexClient, call: Callable[[], Any], interval: float = 15.0) -> Any:
    """`call()`, retried while Google answers SERVICE_DISABLED, for ENABLE_PROPAGATION_S at the client's
    time scale; then the one-line error that names `gcloud services enable`. Only the provider waits
    so: it runs right after the stack enabled the API; the CLI answers at once."""
    deadline = time.monotonic() + ENABLE_PROPAGATION_S * client.time_scale
    while True:
        try:
            return call()
        except VertexError as exc:
            if not exc.service_disabled or time.monotonic() >= deadline:
                raise
            service = exc.metadata.get("service") or "the API"
            say(
                f"{service} still answers SERVICE_DISABLED (an API just enabled takes minutes to reach "
                f"every server); retrying in {interval * client.time_scale:.1f}s, for "
                f"{deadline - time.monotonic():.0f}s more"
            )
            time.sleep(interval * client.time_scale)


def validate_once(
    client: VertexClient, inputs: dict[str, Any]
) -> tuple[dict[str, Any], list[verdict.Problem]]:
    """Dry-run the reward with `validation_example` and the job's own reward config."""
    names = bodies.reward_names(inputs)
    try:
        response = client.validate_reward(bodies.parent_of(inputs), bodies.build_validate_request(inputs))
    except VertexError as exc:
        if not exc.permission_denied:
            raise
        return {}, [verdict.Problem(None, str(exc), code=verdict.PERMISSION_DENIED)]
    return response, verdict.validation_problems(response, names, bodies.cloud_run_reward_names(inputs))


def validate_until_granted(
    client: VertexClient, inputs: dict[str, Any], retry_seconds: float, interval: float
) -> dict[str, Any]:
    """Validate; refuse (RewardRefused) unless the verdict finds no problem. A permission error is
    retried for `retry_seconds`: a fresh run.invoker grant takes minutes to apply (docs/vertex.md,
    edge 19; tunifolk.invoker). Both waits run at the client's time scale (1 against Google; the
    local stack's factor against the emulator, whose Vertex and IAM delays run as fast)."""
    retry_seconds, interval = retry_seconds * client.time_scale, interval * client.time_scale
    deadline = time.monotonic() + retry_seconds
    while True:
        response, problems = validate_once(client, inputs)
        if not problems:
            return verdict.validation_summary(response, bodies.reward_names(inputs))
        if any(p.is_permission_error for p in problems) and time.monotonic() < deadline:
            cause = (
                "a permission error"
                if any(p.code == verdict.PERMISSION_DENIED for p in problems)
                else ("a NaN from the Cloud Run reward")
            )
            say(
                f"reward validation hit {cause} (a fresh run.invoker grant can take minutes to apply); "
                f"retrying in {interval:.1f}s, for {deadline - time.monotonic():.0f}s more"
            )
            time.sleep(interval)
            continue
        lines = "\n".join(f"  - {p}" for p in problems)
        raise RewardRefused(f"reward validation failed; no tuning job was created:\n{lines}")


def create_or_adopt(client: VertexClient, inputs: dict[str, Any], attempts: int = 3) -> dict[str, Any]:
    """Create the job, or adopt the live one carrying the same spec label. The create call is never
    retried blindly: after an ambiguous failure (5xx, 429, connection), the label is looked up first."""
    parent = bodies.parent_of(inputs)
    body = bodies.build_tuning_job(inputs)
    label = body["labels"][SPEC_LABEL]
    for attempt in range(1, attempts + 1):
        adopted = adoptable(client, parent, label)
        if adopted is not None:
            say(f"adopting {adopted['name']} ({adopted.get('state')}): same spec {label}")
            return adopted
        try:
            return client.create_tuning_job(parent, body)
        except VertexError as exc:
            if exc.known_reason is not None and not exc.known_reason.retry:
                # The ErrorInfo names a cause that says the job was not created and waiting will not
                # help (e.g. RESOURCE_QUOTA_EXCEEDED: the project runs its quota of tuning jobs).
                raise TunifolkError(
                    f"the tuning job was not created: {exc.status} {exc.status_name} ({exc.reason}): "
                    f"{exc.fix}"
                ) from None
            if exc.status < 500 and exc.status != 429:
                raise
            say(f"create was ambiguous ({exc}); looking for the job by its label (attempt {attempt})")
        except UnreachableError as exc:  # a reset or a timeout: the job may exist
            say(f"create was ambiguous ({exc}); looking for the job by its label (attempt {attempt})")
    adopted = adoptable(client, parent, label)
    if adopted is not None:
        return adopted
    raise TunifolkError(
        f"could not create the tuning job after {attempts} attempts and none carries "
        f'labels.{SPEC_LABEL}="{label}"; nothing was created: run it again'
    )


def adoptable(client: VertexClient, parent: str, label: str) -> dict[str, Any] | None:
    """A job with this spec label that is live, or SUCCEEDED with its tuned model still present;
    never a FAILED or CANCELLED one (nor a success whose model was cleaned up)."""
    for job in client.find_jobs_by_label(parent, SPEC_LABEL, label):
        if (job.get("labels") or {}).get(SPEC_LABEL) != label:
            continue  # whatever the server's filter did: only this spec's own jobs are adopted
        state = job.get("state")
        if state in limits.ADOPTABLE_STATES:
            return job
        model = (job.get("tunedModel") or {}).get("model")
        if state in limits.SUCCEEDED_STATES and model and _exists(client.get_model, model):
            return job
    return None


def _exists(get: Callable[[str], Any], name: str) -> bool:
    try:
        get(name)
    except VertexError as exc:
        if exc.not_found:
            return False
        raise
    return True


def try_metrics(client: VertexClient, job: dict[str, Any]) -> job_metrics.Metrics | None:
    """Metrics are a view, not a source of truth: a missing or unreadable experiment is no error."""
    experiment = job.get("experiment")
    if not experiment:
        return None
    try:
        return job_metrics.read_metrics(client, experiment)
    except VertexError as exc:
        say(f"metrics unavailable ({exc})")
        return None


def total_steps(inputs: dict[str, Any], job: dict[str, Any]) -> int | None:
    """From the job's data stats when present, else exampleCount // batchSize × epochCount."""
    stats = (job.get("tuningDataStats") or {}).get("reinforcementTuningDataStats") or {}
    if stats.get("tuningStepCount"):
        return int(stats["tuningStepCount"])
    count = stats.get("tuningDatasetExampleCount") or inputs.get(Input.TRAINING_EXAMPLE_COUNT)
    hp = inputs.get(Input.HYPER_PARAMETERS)
    if not hp:
        hp = _hyper_parameters_of(job)
    return estimate.total_steps(hp, int(count) if count else None)


def _hyper_parameters_of(job: dict[str, Any]) -> dict[str, Any]:
    """The job's own hyperparameters as inputs (snake_case, API types), for a job read without
    our inputs: the table's API names map back."""
    hp = (job.get("reinforcementTuningSpec") or {}).get("hyperParameters") or {}
    raw = {f.name: hp[f.api.rsplit(".", 1)[-1]] for f in HYPER_PARAMETERS if f.api and f.api in hp}
    return normalize({Input.HYPER_PARAMETERS: raw})[Input.HYPER_PARAMETERS]


def live_step(job: dict[str, Any], metrics: job_metrics.Metrics | None, total: int | None = None) -> int:
    """The step in flight: the last logged step + 1 while running (steps count from 1), never past
    `total`: a job still RUNNING after its last step (writing its model) is at step total/total."""
    done = job_metrics.completed_steps(job, metrics)
    live = done + 1 if job.get("state") == "JOB_STATE_RUNNING" else done
    return min(live, total) if total else live


def progress_line(job: dict[str, Any], metrics: job_metrics.Metrics | None, total: int | None) -> str:
    reward = metrics.latest("/train_mean_reward") if metrics else None
    reward_text = f", train reward {reward:.3f}" if reward is not None else ""
    step = live_step(job, metrics, total)
    return f"{job['name']}: step {step}/{total or '?'}, {job.get('state')}{reward_text}"


def own_model(model: str, pre_tuned_model: Any, aliases: Iterable[Iterable[str]] = ()) -> tuple[str, bool]:
    """What a job's cleanup may delete: (name, whole model?).

    Continuous tuning can make the tuned model a new version (`…/models/M@3`) of the pre-tuned
    model: then the job owns that version only, and `DELETE models/M` would take every earlier run's
    version with it. The tuned model's name may also come back without its `@N` (the quick start's
    example response shows `models/M` bare; docs/google-contract.md, row MOD-03): a bare name that is
    the pre-tuned model's is still only a version of it, never the whole model (`name` is then the
    bare model and the version is found by `_remove_own_version`). A job owns a whole model only when
    it created the model. The service names the model with the project number and the config may use
    the ID (or the reverse): the two are compared with `names.same_resource`, with `aliases` tying an
    ID to its number where known.
    """
    parent = pre_tuned_model.get(PreTuned.TUNED_MODEL_NAME) if isinstance(pre_tuned_model, dict) else None
    same = isinstance(parent, str) and names.same_resource(names.base(parent), names.base(model), aliases)
    if same:
        return model, False
    return names.base(model), True


def with_versioned_model(
    client: VertexClient, job: dict[str, Any], inputs: dict[str, Any], known: Any = None
) -> dict[str, Any]:
    """The job with `tunedModel.model` named with its version (`…/models/M@N`) when the service named it
    bare (MOD-03) and it is a version of the pre-tuned model: what the stack outputs and serves is then
    exactly this run's version. `known`, the name an earlier read resolved (the resource's output), is
    kept as it is: later runs add versions that would make the creation times ambiguous. Unchanged when
    the name has its version, when the model is the job's own, or when the version cannot be told
    (cleanup then names it rather than guess)."""
    tuned = job.get("tunedModel") or {}
    model = tuned.get("model")
    pre_tuned = inputs.get(Input.PRE_TUNED_MODEL)
    if not isinstance(model, str) or names.version(model):
        return job
    if isinstance(known, str) and names.version(known) and names.base(known) == names.base(model):
        return {**job, "tunedModel": {**tuned, "model": known}}
    name, whole = own_model(model, pre_tuned, project_aliases(job, inputs))
    if whole:
        return job
    parent = pre_tuned.get(PreTuned.TUNED_MODEL_NAME) if isinstance(pre_tuned, dict) else ""
    try:
        versions = {str(v.get("versionId")): v for v in client.list_model_versions(name)}
        own = _version_made_by(job, versions, names.version(parent or ""))
    except (TunifolkError, OSError):
        return job
    return {**job, "tunedModel": {**tuned, "model": f"{name}@{own}"}} if own else job


def project_aliases(job: dict[str, Any], props: dict[str, Any]) -> list[set[str]]:
    """The project's ID (from config) and number (from the job's name, as the service answers it)."""
    number = names.project_of(str(job.get("name") or props.get("job") or ""))
    project = props.get(Input.PROJECT)
    return [{project, number}] if isinstance(project, str) and number else []


def cleanup(client: VertexClient, job: dict[str, Any], props: dict[str, Any]) -> None:
    """Undeploy and delete the tuned and checkpoint endpoints, then the model (or, for continuous
    tuning, only this job's version of it). Gone is done (a 404, or an operation that ends
    NOT_FOUND); any other failure raises naming what is left, so the resource stays in state."""
    tuned = job.get("tunedModel") or {}
    endpoints = [tuned.get("endpoint")]
    endpoints += [c.get("endpoint") for c in tuned.get("checkpoints") or []]
    endpoints += [c.get("endpoint") for c in props.get(Output.CHECKPOINTS) or []]
    endpoints.append(props.get(Output.ENDPOINT))
    model = tuned.get("model") or props.get(Output.TUNED_MODEL)
    served = served_checkpoint(job, props)
    if served is not None:
        keep = served["endpoint"]
        endpoints = [e for e in endpoints if e != keep]
        say(
            f"kept checkpoint {served['checkpoint_id']}'s endpoint {keep} and the model {model}: the stack "
            "serves it (tunifolk:servingCheckpoint). To remove them, `pulumi config rm "
            "tunifolk:servingCheckpoint` and `pulumi up` before `pulumi destroy`, or: gcloud ai endpoints "
            f"undeploy-model and delete {keep.rsplit('/', 1)[-1]} --region={keep.split('/')[3]}"
        )
        model = None
    left: list[str] = []
    for endpoint in dict.fromkeys(e for e in endpoints if e):
        try:
            _remove_endpoint(client, endpoint)
        except (VertexError, TimeoutError, OSError) as exc:
            left.append(
                f"endpoint {endpoint} ({exc}); remove it with: gcloud ai endpoints undeploy-model and "
                f"gcloud ai endpoints delete {endpoint.rsplit('/', 1)[-1]} --region={endpoint.split('/')[3]}"
            )
    if model:
        pre_tuned = props.get(Input.PRE_TUNED_MODEL)
        name, whole = own_model(model, pre_tuned, project_aliases(job, props))
        try:
            if whole:
                _done_unless_missing(lambda: client.wait_operation(client.delete_model(name)))
                say(f"deleted model {name}")
            else:
                parent = pre_tuned.get(PreTuned.TUNED_MODEL_NAME) if isinstance(pre_tuned, dict) else None
                _done_unless_missing(lambda: _remove_own_version(client, name, parent, job))
        except (TunifolkError, TimeoutError, OSError) as exc:
            command = "delete" if whole else "delete-version"
            left.append(
                f"model {name} ({exc}); remove it with: gcloud ai models {command} "
                f"{name.rsplit('/', 1)[-1]}{'' if whole or names.version(name) else '@VERSION'} "
                f"--region={name.split('/')[3]}" + ("" if whole else _default_hint(name))
            )
    if left:
        raise LeftBehind("cleanup left these behind:\n" + "\n".join(f"  - {item}" for item in left))


def served_checkpoint(job: dict[str, Any], props: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint `serving_checkpoint` names ({checkpoint_id, step, epoch, endpoint}), from the job
    or, when the job no longer lists it, from the state's last `checkpoints`; None when unset or
    not found."""
    wanted = props.get(Input.SERVING_CHECKPOINT)
    if wanted in (None, ""):
        return None
    listed = job_metrics.checkpoints(job) or list(props.get(Output.CHECKPOINTS) or [])
    return next((c for c in listed if str(c.get("checkpoint_id")) == str(wanted) and c.get("endpoint")), None)


def _remove_own_version(client: VertexClient, name: str, parent: str | None, job: dict[str, Any]) -> None:
    """Delete this job's version `M@N` of a model that holds other runs' versions, and nothing else.

    models.deleteVersion refuses two versions (aiplatform v1beta1 discovery document: "Deleting the
    only version in the Model is not allowed. Use DeleteModel for deleting the Model instead."; and
    Model.versionAliases: "there must be exactly one default version alias for a model"). So when
    ours is the only version left, the model holds nothing but ours and goes whole; when ours is the
    default (whether Vertex makes a continuous-tuning version the default is UNCONFIRMED), the default
    alias moves first to the version the config named (`preTunedModel` with `@N`), else to the newest
    other version, as it was before this run added its own. A bare `name` (no `@N`) names ours by
    `_version_made_by`; when that cannot tell, nothing is deleted and the fix is named."""
    base = names.base(name)
    versions = {str(v.get("versionId")): v for v in client.list_model_versions(base)}
    own = names.version(name) or _version_made_by(job, versions, names.version(parent or ""))
    if own not in versions:
        return  # gone already
    if set(versions) == {own}:
        client.wait_operation(client.delete_model(base))
        say(f"deleted model {base} (its only version, {own}, was this job's)")
        return
    if "default" in (versions[own].get("versionAliases") or []):
        wanted = names.version(parent) if parent else ""
        others = [v for v in versions if v != own]
        target = wanted if wanted in others else max(others, key=int)
        client.merge_version_aliases(f"{base}@{target}", ["default"])
        say(
            f"moved the default alias of {base} to version {target}: models.deleteVersion refuses the default"
        )
    client.wait_operation(client.delete_model_version(f"{base}@{own}"))
    say(f"deleted model version {base}@{own}")


def _version_made_by(job: dict[str, Any], versions: dict[str, dict[str, Any]], parent_version: str) -> str:
    """The one version of the model created while the job ran (its `versionCreateTime` at or after the
    job's `createTime`), other than the version the job started from. "" when there is none (gone
    already). More than one, or a job or version without a time, cannot tell ours from another run's:
    that raises, naming the versions, and the whole model is never the fallback."""
    started = _time(job.get("createTime"))
    made = [
        v
        for v, body in versions.items()
        if v != parent_version and started and (_time(body.get("versionCreateTime")) or started) >= started
    ]
    if started and len(made) <= 1 and all(_time(versions[v].get("versionCreateTime")) for v in made):
        return made[0] if made else ""
    raise TunifolkError(
        "the tuned model was named without its version, and its versions "
        f"{', '.join(sorted(versions, key=int))} do not say which one this job made"
    )


def _time(value: Any) -> datetime | None:
    """A ProtoJSON Timestamp (RFC 3339, any fraction), or None."""
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _default_hint(name: str) -> str:
    """What to run first when a version is refused for being the default (see `_remove_own_version`)."""
    base = names.base(name)
    return (
        f" (if it is the default version, move the default first: POST "
        f'{base}@OTHER_VERSION:mergeVersionAliases with {{"versionAliases": ["default"]}})'
    )


def _remove_endpoint(client: VertexClient, endpoint: str) -> None:
    try:
        found = client.get_endpoint(endpoint)
    except VertexError as exc:
        if exc.not_found:
            return
        raise
    for deployed in found.get("deployedModels") or []:
        _done_unless_missing(
            lambda d=deployed: client.wait_operation(client.undeploy_model(endpoint, d["id"]))
        )
    _done_unless_missing(lambda: client.wait_operation(client.delete_endpoint(endpoint)))
    say(f"deleted endpoint {endpoint}")


def _done_unless_missing(call: Callable[[], Any]) -> None:
    try:
        call()
    except VertexError as exc:
        if not exc.not_found:
            raise
