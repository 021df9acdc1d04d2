"""`ScorerImage`: the scorer of this checkout, built by Cloud Build, as a Pulumi dynamic resource.

The input that matters is the digest of the build context (`tunifolk.image.context_digest`: the
files that go into the image, `scorer/` sources, locks and Dockerfile, nothing else), computed by the
program at every run: the same digest is no change (no build; `pulumi preview --expect-no-changes`
passes), another digest is an update, which builds again. Outputs: the image by digest
(`…/scorer@sha256:…`, what Cloud Run is given) and the build's log URL.

The tuning job's rules hold here (providers/tuning_job.py):

* the provider object is pickled into state: it holds two numbers; the client (and any credential)
  is built inside each call and dropped after it;
* adopt, never duplicate: each build is tagged with its context digest (Cloud Build's `Build.tags`),
  and create/update first look for a build of that digest: a finished one is adopted, a live one
  (an `up` interrupted while it ran) is waited for; only otherwise is the archive uploaded and a
  build started;
* expected failures are one line (`TunifolkError`, through the same host shim as the tuning job).

The build runs as `service_account`, the stack's own build account, never as Cloud Build's default
(since 2024 the Compute Engine default service account in new projects, which the stack grants
nothing and organisations may leave without roles):
https://cloud.google.com/build/docs/cloud-build-service-account-updates. The body names it with the
logging option Google requires then (tunifolk/cloudbuild.py, `LOGGING`); whoever runs `pulumi up`
needs iam.serviceAccounts.actAs on it (roles/iam.serviceAccountUser), which a refusal names.

Delete only forgets the build: the image lives in the Artifact Registry repository, which goes with
its own resource. The class path `providers.scorer_image.ScorerImageProvider` is pickled by reference
and must stay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
from pulumi.dynamic import CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult

# importing the tuning job's provider installs the one-line shim for expected failures in the host
import providers.tuning_job  # noqa: F401
from tunifolk import cloudbuild
from tunifolk import operations as ops
from tunifolk.errors import TunifolkError, VertexError
from tunifolk.vertex import VertexClient

INPUTS = ("context_digest", "repository", "bucket", "project", "location", "service_account", "base_images")
OPTIONAL = frozenset({"base_images"})
"""`base_images`: `{build, serve}` by digest (`tunifolk:scorer.baseImages`), or absent: the Dockerfile's
tags. A change of bases is a new build, as a change of context is."""
"""`repository` is the registry path (`REGION-docker.pkg.dev/PROJECT/REPO`); `location` Cloud Build's
region; the builds run in `project`, as `service_account` (the build account's email). A state written
before `service_account` existed diffs as an update, which adopts the build of the same context."""
OUTPUTS = ("image", "log_url", "build_id")


class ScorerImageProvider(ResourceProvider):
    """Create/update = build (or adopt) the image of one context digest. Holds numbers only."""

    def __init__(self, *, poll_seconds: float = 5.0, timeout_seconds: float = 3600.0) -> None:
        super().__init__()
        self.poll_seconds = poll_seconds
        self.timeout_seconds = timeout_seconds

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        inputs = {k: news.get(k) for k in INPUTS}
        failures = [
            pulumi.dynamic.CheckFailure(k, f"{k} is required")
            for k, v in inputs.items()
            if v in (None, "") and k not in OPTIONAL
        ]
        return CheckResult(inputs, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed = [k for k in INPUTS if olds.get(k) != news.get(k)]
        # a build in another project or region is another resource; a new context is a new build
        replaces = [k for k in changed if k in ("project", "location")]
        return DiffResult(changes=bool(changed), replaces=replaces, delete_before_replace=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        build = self._build(props)
        return CreateResult(build["id"], self._outputs(props, build))

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(self._outputs(news, self._build(news)))

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        """Nothing to remove: the image goes with its repository (see the module's docstring)."""

    def _build(self, props: dict[str, Any]) -> dict[str, Any]:
        digest, project, location = props["context_digest"], props["project"], props["location"]
        with VertexClient(on_retry=ops.say) as client:
            builds = cloudbuild.CloudBuild(client)
            bases = props.get("base_images") or None
            found_builds = ops.while_enabling(
                client, lambda: list(builds.find(project, location, digest, bases))
            )
            for found in found_builds:
                if found.get("status") == "SUCCESS" and _pushed_to(found, props["repository"]):
                    ops.say(f"scorer image: adopting build {found['id']} of this context")
                    return found
                if found.get("status") in cloudbuild.LIVE:
                    ops.say(f"scorer image: build {found['id']} of this context is running: waiting")
                    waited = builds.follow(
                        project, location, found, self.poll_seconds, self.timeout_seconds, ops.say
                    )
                    return self._finish(builds, waited)
            root = Path.cwd()  # the program's directory: the engine runs the provider host there
            if cloudbuild.image.context_digest(root) != digest:
                raise TunifolkError(
                    f"the scorer's sources under {root} are not the ones the program hashed (edited while "
                    "pulumi up ran?): run pulumi up again from the project's directory"
                )
            name = cloudbuild.source_object(digest)
            builds.upload(props["bucket"], name, cloudbuild.archive(root))
            account = props["service_account"]
            body = cloudbuild.build_body(
                props["bucket"],
                props["repository"],
                digest,
                cloudbuild.service_account_name(project, account),
                bases,
            )
            try:
                op = builds.create(project, location, body)
            except VertexError as exc:
                raise _refused(exc, location, account) from None
            build = (op.get("metadata") or {}).get("build") or {}
            ops.say(f"scorer image: build {build.get('id', '?')} started (log: {build.get('logUrl')})")
            return self._finish(builds, builds.wait(op, self.poll_seconds, self.timeout_seconds, ops.say))

    @staticmethod
    def _finish(_builds: cloudbuild.CloudBuild, build: dict[str, Any]) -> dict[str, Any]:
        if build.get("status") != "SUCCESS":
            raise cloudbuild.failure(build)
        cloudbuild.image_of(build)  # a success that names no digest fails here, in one line
        return build

    @staticmethod
    def _outputs(props: dict[str, Any], build: dict[str, Any]) -> dict[str, Any]:
        inputs = {k: props.get(k) for k in INPUTS}
        return {
            **inputs,
            "image": cloudbuild.image_of(build),
            "log_url": build.get("logUrl") or "",
            "build_id": build["id"],
        }


def _refused(exc: VertexError, location: str, account: str) -> TunifolkError:
    """A refused builds.create in one line, with what may fix it: a reason tunifolk knows (a disabled
    API) already names its fix; a permission refusal may be the deployer's missing actAs on the build
    account (https://cloud.google.com/build/docs/cloud-build-service-account-updates: the users who
    submit a build need iam.serviceAccounts.actAs on its account); any other, the regions some
    projects are held to."""
    if exc.known_reason is not None:
        return exc
    hint = cloudbuild.region_hint(location)
    if exc.permission_denied:
        hint = (
            f"; the account running pulumi up needs iam.serviceAccounts.actAs on {account} (grant it "
            f"roles/iam.serviceAccountUser on that service account){hint}"
        )
    return TunifolkError(f"{exc}{hint}")


def _pushed_to(build: dict[str, Any], repository: str) -> bool:
    try:
        return cloudbuild.image_of(build).startswith(f"{repository}/")
    except TunifolkError:
        return False


class ScorerImage(pulumi.dynamic.Resource, module="tunifolk", name="ScorerImage"):
    """The scorer image of this checkout. `image` is it by digest; `log_url` the build's log."""

    image: pulumi.Output[str]
    log_url: pulumi.Output[str]
    build_id: pulumi.Output[str]

    def __init__(
        self,
        resource_name: str,
        args: dict[str, pulumi.Input[str]],
        opts: pulumi.ResourceOptions | None = None,
        *,
        poll_seconds: float = 5.0,
    ) -> None:
        props: dict[str, Any] = {**{k: args.get(k) for k in INPUTS}, **dict.fromkeys(OUTPUTS)}
        super().__init__(ScorerImageProvider(poll_seconds=poll_seconds), resource_name, props, opts)
