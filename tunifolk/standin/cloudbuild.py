"""A stand-in for the Cloud Build and Cloud Storage upload calls the scorer image's build makes.

The Vertex emulator serves these routes beside its own (as it serves BigQuery's), so one local base
URL (`TUNIFOLK_VERTEX_ENDPOINT`) answers every call of `providers/scorer_image.py`:

* `POST /upload/storage/v1/b/{bucket}/o?uploadType=media&name=N` (objects.insert, simple upload;
  storage v1 discovery document) writes `gs://bucket/N` where the gcp stand-in keeps objects
  (`tunifolk.local_gcs.object_file`); a bucket that does not exist is GCS's 404 "The specified bucket
  does not exist.";
* `POST /v1/projects/{p}/locations/{l}/builds` (builds.create, cloudbuild v1) answers an Operation whose
  `metadata` is a BuildOperationMetadata holding the QUEUED build, and runs the build in a thread:
  the source archive is read from the bucket, and each step, which must be a `docker build` of
  `gcr.io/cloud-builders/docker`, runs with podman through `tunifolk.image.build_dir` (the Debian
  bases, this machine's quirks). The image stays in podman's local storage, tagged with the name the
  build's `images` lists, and the build's `results.images` give its digest there; the gcp stand-in's
  Cloud Run runs it by that digest. No registry is involved: the Artifact Registry repository is a
  record of the gcp stand-in, and a push to a repository that does not exist is not refused here
  (Cloud Build's push would fail; UNCONFIRMED wording, not imitated);
* `GET …/builds/{id}` (builds.get), `GET …/builds?filter=tags="X"` (builds.list; only a `tags`
  filter is understood, anything else is a 400) and `GET /v1/{operation name}` (operations.get).
  An operation that is not a build's goes on to the emulator's own routes (`fallback`).

A build that names its own account (`serviceAccount`, `projects/P/serviceAccounts/EMAIL`) plays
Google's rules for one (https://cloud.google.com/build/docs/securing-builds/configure-user-specified-service-accounts):

* without a logging choice Google accepts then (`options.logging` CLOUD_LOGGING_ONLY or NONE, a
  `logsBucket`, or `options.defaultLogsBucketBehavior` REGIONAL_USER_OWNED_BUCKET) builds.create is
  400 INVALID_ARGUMENT, in the words public reports quote (`LOGGING_REFUSAL`; Google's documents
  state the rule, not the message: the wording is UNCONFIRMED as a contract);
* with the emulator's `--project-dir` (the gcp stand-in's directory, where its IAM records are), the
  build ends FAILURE before any step when the account may not read the source object (a grant of a
  role holding storage.objects.get on the bucket or the project) or may not push to the repository
  its `images` name (a role holding artifactregistry.repositories.uploadArtifacts on that repository,
  recorded as `gcp:artifactregistry/repositoryIamMember`/`repositoryIamBinding`, or on the project).
  Google fails such a build when it fetches the source, or when it pushes, after the steps; the
  stand-in checks both first (no podman time spent on a build that cannot push), and its
  `statusDetail` wording is the stand-in's (Google's is UNCONFIRMED). Not modelled: IAM
  propagation of these grants, roles/logging.logWriter (a build without it is not refused here;
  what Google does then is UNCONFIRMED), conditions, custom roles, and the deployer's actAs on the
  account. A build that names no account runs as before (Google's default account; not checked).

In a fresh project (the emulator's `--project-dir`, `local start --fresh-project`) Cloud Build is off
until the stack enables it (cloudbuild.googleapis.com is not among Google's "Services enabled by
default"): every Cloud Build route answers Google's 403 PERMISSION_DENIED, ErrorInfo SERVICE_DISABLED,
as the emulator's Vertex routes and the gcp stand-in's other APIs do (tunifolk/project_state.py). The
upload is Cloud Storage's, on in every project.

Where podman cannot run (not installed, not root), a build ends FAILURE with `statusDetail` saying why,
in one line. Builds are kept in memory: an emulator restarted loses them, and the next `up` builds
again (podman's layer cache makes that quick). Timestamps, ids and the log URL follow Google's formats;
the log URL's exact shape (`console.cloud.google.com/cloud-build/builds;region=L/ID?project=N`) is
UNCONFIRMED.
"""

from __future__ import annotations

import re
import secrets
import tarfile
import tempfile
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tunifolk import image
from tunifolk.cloudbuild import BUILDER, DONE
from tunifolk.emulator.responses import error_body, json_response, service_disabled
from tunifolk.job.names import local_project_number
from tunifolk.local_gcs import bucket_folder, object_file, write_object
from tunifolk.project_state import ProjectState
from tunifolk.standin.kind import now
from tunifolk.standin.store import Store

TAGS_FILTER = re.compile(r'^\s*tags\s*=\s*"([^"]+)"\s*$')
OP_TYPE = "type.googleapis.com/google.devtools.cloudbuild.v1.BuildOperationMetadata"
BUILD_TYPE = "type.googleapis.com/google.devtools.cloudbuild.v1.Build"
API = "cloudbuild.googleapis.com"
LOGGING_REFUSAL = (
    "if 'build.service_account' is specified, the build must either (a) specify 'build.logs_bucket', "
    "(b) use the REGIONAL_USER_OWNED_BUCKET build.options.default_logs_bucket_behavior option, or "
    "(c) use either CLOUD_LOGGING_ONLY / NONE logging options"
)
"""Cloud Build's refusal of a build with `serviceAccount` and no logging choice, as public reports quote
it (e.g. https://github.com/cert-manager/cert-manager/pull/8851, 2026); UNCONFIRMED as a contract."""
SERVICE_ACCOUNT_RE = re.compile(r"^projects/([^/]+)/serviceAccounts/([^/]+)$")
READ_ROLES = frozenset(
    {
        "roles/storage.objectViewer",
        "roles/storage.objectUser",
        "roles/storage.objectAdmin",
        "roles/storage.admin",
        "roles/storage.legacyObjectReader",
        "roles/owner",
        "roles/editor",
    }
)
"""Predefined roles holding storage.objects.get (https://cloud.google.com/iam/docs/roles-permissions/storage)."""
PUSH_ROLES = frozenset(
    {
        "roles/artifactregistry.writer",
        "roles/artifactregistry.repoAdmin",
        "roles/artifactregistry.admin",
        "roles/artifactregistry.createOnPushWriter",
        "roles/artifactregistry.createOnPushRepoAdmin",
        "roles/owner",
        "roles/editor",
    }
)
"""Predefined roles holding artifactregistry.repositories.uploadArtifacts
(https://cloud.google.com/iam/docs/roles-permissions/artifactregistry)."""
BUCKET_GRANTS = (
    "gcp:storage/bucketIAMMember:BucketIAMMember",
    "gcp:storage/bucketIAMBinding:BucketIAMBinding",
)
REPOSITORY_GRANTS = (
    "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember",
    "gcp:artifactregistry/repositoryIamBinding:RepositoryIamBinding",
)
PROJECT_GRANTS = ("gcp:projects/iAMMember:IAMMember", "gcp:projects/iAMBinding:IAMBinding")
KEPT = ("source", "steps", "images", "tags", "timeout", "serviceAccount", "options", "logsBucket")
"""The fields of a created build's body that its record keeps (Build's own names)."""
REGISTRY_RE = re.compile(r"^([a-z0-9-]+)-docker\.pkg\.dev/([^/]+)/([^/]+)/")


class BuildRefused(Exception):
    """A build body the stand-in (or Cloud Build) refuses: 400 with this message."""


def docker_build(step: dict[str, Any]) -> tuple[str, list[str], list[str], str]:
    """A `docker build` step's Dockerfile, tags, build args and context directory."""
    args = list(step.get("args") or [])
    if step.get("name") != BUILDER or not args or args[0] != "build":
        raise BuildRefused(
            f"the stand-in runs only `docker build` steps of {BUILDER}, not {step.get('name')} {args[:1]}"
        )
    dockerfile, tags, build_args, rest = "Dockerfile", [], [], args[1:]
    while rest:
        arg = rest.pop(0)
        if arg in ("-f", "--file", "-t", "--tag", "--build-arg") and rest:
            value = rest.pop(0)
            if arg in ("-f", "--file"):
                dockerfile = value
            elif arg in ("-t", "--tag"):
                tags.append(value)
            else:
                build_args.append(value)
        elif not arg.startswith("-") and not rest:
            return dockerfile, tags, build_args, arg
        else:
            raise BuildRefused(f"the stand-in does not understand the docker build argument {arg!r}")
    raise BuildRefused("the docker build step names no context directory (its last argument)")


def logging_chosen(body: dict[str, Any]) -> bool:
    """Whether a build names where its logs go in a way Google accepts with `serviceAccount`."""
    options = body.get("options") or {}
    return bool(
        body.get("logsBucket")
        or options.get("logging") in ("CLOUD_LOGGING_ONLY", "NONE")
        or options.get("defaultLogsBucketBehavior") == "REGIONAL_USER_OWNED_BUCKET"
    )


def _members(record_inputs: dict[str, Any]) -> list[str]:
    return [m for m in [record_inputs.get("member"), *(record_inputs.get("members") or [])] if m]


def _granted(store: Store, tokens: tuple[str, ...], member: str, roles: frozenset[str], where: Any) -> bool:
    """Whether `member` holds one of `roles` through a record of `tokens` that `where(inputs)` accepts."""
    return any(
        record.inputs.get("role") in roles and member in _members(record.inputs) and where(record.inputs)
        for token in tokens
        for record in store.all(token)
    )


def _repository_of(inputs: dict[str, Any]) -> tuple[str | None, str | None, str]:
    """(project, location, repository id) of a repository grant: `repository` is an id or a full name."""
    repo = str(inputs.get("repository") or "")
    if repo.startswith("projects/"):
        parts = repo.split("/")
        if len(parts) == 6:
            return parts[1], parts[3], parts[5]
    return inputs.get("project"), inputs.get("location"), repo


def access_refusal(state: Path, project: str, build: dict[str, Any]) -> str | None:
    """Why the build's own account may not read its source or push its images (the gcp stand-in's IAM
    records under `state`), or None when it may, or when the build names no account."""
    match = SERVICE_ACCOUNT_RE.match(str(build.get("serviceAccount") or ""))
    if match is None:
        return None
    email = match.group(2)
    member = f"serviceAccount:{email}"
    store = Store(state)

    def in_project(inputs: dict[str, Any]) -> bool:
        return inputs.get("project") in (None, "", project)

    storage = build["source"]["storageSource"]
    bucket = storage["bucket"]
    if not (
        _granted(
            store,
            BUCKET_GRANTS,
            member,
            READ_ROLES,
            lambda i: str(i.get("bucket")).removeprefix("b/") == bucket,
        )
        or _granted(store, PROJECT_GRANTS, member, READ_ROLES, in_project)
    ):
        return (
            f"could not fetch the source gs://{bucket}/{storage['object']}: {email} does not have "
            f"storage.objects.get on it (grant it roles/storage.objectViewer on the bucket)"
        )
    for name in build.get("images") or []:
        where = REGISTRY_RE.match(name)
        if where is None:
            continue
        region, repo_project, repo = where.groups()

        def this_repository(
            inputs: dict[str, Any], region=region, repo_project=repo_project, repo=repo
        ) -> bool:
            got_project, got_location, got_repo = _repository_of(inputs)
            return (
                got_repo == repo
                and got_project in (None, "", repo_project)
                and got_location in (None, "", region)
            )

        if not (
            _granted(store, REPOSITORY_GRANTS, member, PUSH_ROLES, this_repository)
            or _granted(
                store, PROJECT_GRANTS, member, PUSH_ROLES, lambda i, p=repo_project: i.get("project") == p
            )
        ):
            return (
                f"could not push {name}: {email} does not have artifactregistry.repositories.uploadArtifacts "
                f"on projects/{repo_project}/locations/{region}/repositories/{repo} (grant it "
                "roles/artifactregistry.writer on the repository)"
            )
    return None


class Builds:
    """The builds of one emulator process, and the threads that run them. With `state` (the gcp
    stand-in's directory) a build's own account must hold its grants there (`access_refusal`)."""

    def __init__(self, gcs: Path, state: Path | None = None) -> None:
        self.gcs = gcs
        self.state = state
        self.lock = threading.Lock()
        self.builds: dict[str, dict[str, Any]] = {}
        self.ops: dict[str, str] = {}  # operation name → build id

    def create(self, project: str, location: str, body: dict[str, Any]) -> dict[str, Any]:
        storage = (body.get("source") or {}).get("storageSource") or {}
        if not storage.get("bucket") or not storage.get("object"):
            raise BuildRefused("the stand-in builds from source.storageSource (bucket and object) only")
        steps = [docker_build(step) for step in body.get("steps") or []]
        if not steps:
            raise BuildRefused("Build.steps must not be empty")  # Cloud Build: "no build steps"
        if body.get("serviceAccount"):
            if not SERVICE_ACCOUNT_RE.match(str(body["serviceAccount"])):
                raise BuildRefused(  # the stand-in's words; Google's are UNCONFIRMED
                    f"serviceAccount {body['serviceAccount']!r} is not projects/PROJECT/serviceAccounts/EMAIL"
                )
            if not logging_chosen(body):
                raise BuildRefused(LOGGING_REFUSAL)
        build_id = str(uuid.uuid4())
        number = local_project_number(project)
        build = {
            **{k: body[k] for k in KEPT if k in body},
            "id": build_id,
            "name": f"projects/{number}/locations/{location}/builds/{build_id}",
            "projectId": project,
            "status": "QUEUED",
            "createTime": now(),
            "logUrl": (
                f"https://console.cloud.google.com/cloud-build/builds;region={location}/{build_id}"
                f"?project={number}"
            ),
        }
        op_name = f"projects/{number}/locations/{location}/operations/{secrets.token_hex(16)}"
        with self.lock:
            self.builds[build_id] = build
            self.ops[op_name] = build_id
        threading.Thread(target=self._run, args=(build_id, steps), daemon=True).start()
        return self.operation(op_name) or {}

    def _set(self, build_id: str, **values: Any) -> None:
        with self.lock:
            self.builds[build_id].update(values)

    def _run(self, build_id: str, steps: list[tuple[str, list[str], list[str], str]]) -> None:
        self._set(build_id, status="WORKING", startTime=now())
        build = self.builds[build_id]
        storage = build["source"]["storageSource"]
        try:
            if self.state is not None and (why := access_refusal(self.state, build["projectId"], build)):
                raise image.ImageError(why)
            if why := image.unavailable():
                raise image.ImageError(f"the stand-in builds with podman, which cannot run here: {why}")
            archive = object_file(self.gcs, storage["bucket"], storage["object"])
            if archive is None or not archive.is_file():
                raise image.ImageError(f"gs://{storage['bucket']}/{storage['object']}: no such object")
            with tempfile.TemporaryDirectory(prefix="cloudbuild-") as work:
                with tarfile.open(archive, "r:gz") as tar:
                    tar.extractall(work, filter="data")
                for dockerfile, tags, _args, context in steps:
                    image.build_dir(Path(work) / context, Path(work) / dockerfile, tags)
            results = []
            for name in build.get("images") or []:
                built = image.inspect(name)
                results.append({"name": name, "digest": built.digest})
            self._set(build_id, status="SUCCESS", finishTime=now(), results={"images": results})
        except image.ImageError as exc:
            self._set(build_id, status="FAILURE", finishTime=now(), statusDetail=str(exc))
        except Exception as exc:  # a bug of the stand-in: still a finished build, saying what broke
            detail = f"stand-in error: {type(exc).__name__}: {exc}"
            self._set(build_id, status="INTERNAL_ERROR", finishTime=now(), statusDetail=detail)

    def get(self, build_id: str) -> dict[str, Any] | None:
        with self.lock:
            build = self.builds.get(build_id)
            return dict(build) if build else None

    def listed(self, tag: str | None) -> list[dict[str, Any]]:
        with self.lock:
            found = [dict(b) for b in self.builds.values() if tag is None or tag in (b.get("tags") or [])]
        return sorted(found, key=lambda b: b["createTime"], reverse=True)

    def operation(self, name: str) -> dict[str, Any] | None:
        with self.lock:
            build_id = self.ops.get(name)
        build = self.get(build_id) if build_id else None
        if build is None:
            return None
        op: dict[str, Any] = {"name": name, "metadata": {"@type": OP_TYPE, "build": build}}
        if build["status"] in DONE:
            op["done"] = True
            if build["status"] == "SUCCESS":
                op["response"] = {"@type": BUILD_TYPE, **build}
            else:  # UNCONFIRMED: Cloud Build's code and message for a failed build's operation
                op["error"] = {"code": 2, "message": f"Build failed; {build.get('statusDetail', '')}"}
        return op


def _error(status: int, message: str, status_name: str) -> Response:
    return json_response(error_body(status, message, status_name=status_name), status)


def routes(
    gcs: Path, fallback: Callable[[Request], Awaitable[Response]], project: ProjectState | None = None
) -> list[Route]:
    """The upload and Cloud Build routes over `gcs` (the gcp stand-in's objects); with `project` (a
    local project's settings) Cloud Build answers only while its API is enabled there."""
    builds = Builds(gcs, project.root if project is not None else None)

    def disabled(request: Request) -> Response | None:
        """Google's SERVICE_DISABLED when Cloud Build is off in the path's project, else None."""
        name = request.path_params["project"]
        if project is None or project.serving(name, API):
            return None
        return service_disabled(API, name if name.isdigit() else local_project_number(name))

    async def upload(request: Request) -> Response:
        bucket, name = request.path_params["bucket"], request.query_params.get("name", "")
        if request.query_params.get("uploadType") != "media":
            return _error(400, "the stand-in takes uploadType=media only", "INVALID_ARGUMENT")
        path = object_file(gcs, bucket, name)
        if path is None:
            return _error(400, f"Invalid object name: {name!r}", "INVALID_ARGUMENT")
        if not bucket_folder(gcs, bucket).is_dir():
            return _error(404, "The specified bucket does not exist.", "NOT_FOUND")
        data = await request.body()
        write_object(gcs, bucket, name, data)
        generation = str(path.stat().st_mtime_ns // 1000)
        obj = {"kind": "storage#object", "bucket": bucket, "name": name, "size": str(len(data))}
        obj |= {"generation": generation, "contentType": request.headers.get("content-type", "")}
        return json_response(obj)

    async def create(request: Request) -> Response:
        if refused := disabled(request):
            return refused
        try:
            body = await request.json()
            op = builds.create(request.path_params["project"], request.path_params["location"], body)
        except (BuildRefused, ValueError) as exc:
            return _error(400, str(exc), "INVALID_ARGUMENT")
        return json_response(op)

    async def listing(request: Request) -> Response:
        if refused := disabled(request):
            return refused
        raw = request.query_params.get("filter")
        match = TAGS_FILTER.match(raw) if raw else None
        if raw and not match:
            return _error(
                400, f'the stand-in filters builds by tags="…" only, not {raw!r}', "INVALID_ARGUMENT"
            )
        found = builds.listed(match.group(1) if match else None)
        return json_response({"builds": found} if found else {})

    async def get(request: Request) -> Response:
        if refused := disabled(request):
            return refused
        build = builds.get(request.path_params["build"])
        if build is None:
            return _error(
                404, f"Requested entity was not found: build {request.path_params['build']}", "NOT_FOUND"
            )
        return json_response(build)

    async def operation(request: Request) -> Response:
        project, location, op_id = (request.path_params[k] for k in ("project", "location", "op"))
        op = builds.operation(
            f"projects/{local_project_number(project)}/locations/{location}/operations/{op_id}"
        )
        if op is None:  # not a build's: a Vertex operation, which the emulator's own routes answer
            return await fallback(request)
        return disabled(request) or json_response(op)

    base = "/v1/projects/{project}/locations/{location}"
    return [
        Route("/upload/storage/v1/b/{bucket}/o", upload, methods=["POST"]),
        Route(base + "/builds", create, methods=["POST"]),
        Route(base + "/builds", listing, methods=["GET"]),
        Route(base + "/builds/{build}", get, methods=["GET"]),
        Route(base + "/operations/{op}", operation, methods=["GET"]),
    ]
