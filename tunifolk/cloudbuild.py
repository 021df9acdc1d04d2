"""The scorer image's remote build: its source archive, Cloud Build's v1 REST calls, and the names.

`pulumi up` builds the scorer of this checkout without Docker on the user's machine: the build context
(`tunifolk.image.context_files`: `scorer/` less bytecode) goes as a tar.gz to the
stack's bucket, and Cloud Build (`projects.locations.builds.create`, v1) runs `docker build` on it and
pushes the image to the stack's Artifact Registry repository. The build's result names the image by
digest, which Cloud Run is given.

One code path, as for BigQuery (tunifolk/ledger/bigquery.py): the URLs are Google's
(`https://cloudbuild.googleapis.com/v1/…`, `https://storage.googleapis.com/upload/storage/v1/…`), or the
same paths under `TUNIFOLK_VERTEX_ENDPOINT` when it is set (the local emulator serves them:
tunifolk/standin/cloudbuild.py). Requests go through `VertexClient.request`, so the credentials rule is
the client's: a token only to `https://*.googleapis.com`, never to another URL, never kept.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from tunifolk import image
from tunifolk.errors import TunifolkError, UnreachableError, VertexError
from tunifolk.paths import ROOT
from tunifolk.vertex import VertexClient

CLOUDBUILD = "https://cloudbuild.googleapis.com"
STORAGE = "https://storage.googleapis.com"
BUILDER = "gcr.io/cloud-builders/docker"
"""Cloud Build's own docker builder: its workers are linux/amd64, Cloud Run's platform."""
DOCKERFILE = image.DOCKERFILE.relative_to(ROOT).as_posix()
IMAGE_NAME = "scorer"
"""The image's name inside the stack's Artifact Registry repository."""
SOURCE_PREFIX = "tunifolk/scorer-source"
"""Where in the stack's bucket the source archives go (`<prefix>/<context digest>.tar.gz`)."""
TAG_PREFIX = "tunifolk-ctx-"
"""A build's tag (Cloud Build's `Build.tags`, not a docker tag): the context digest it builds. How an
interrupted `up` finds its build again instead of starting a second one."""
DONE = frozenset({"SUCCESS", "FAILURE", "INTERNAL_ERROR", "TIMEOUT", "CANCELLED", "EXPIRED"})
LIVE = frozenset({"PENDING", "QUEUED", "WORKING"})
"""Build.status values (the cloudbuild v1 discovery document's enum)."""
BUILD_TIMEOUT = "3600s"
"""The build's own limit: above Cloud Build's default of 600 s, for a slow pull of the base or PyPI."""

# The identity the build runs as. Since Cloud Build's 2024 change of its default service account,
# a project that runs its first build afterwards builds as the Compute Engine default service account
# (https://cloud.google.com/build/docs/cloud-build-service-account-updates), which gets no roles where
# the organisation enforces iam.automaticIamGrantsForDefaultServiceAccounts
# (https://cloud.google.com/resource-manager/docs/organization-policy/restricting-service-accounts).
# So the stack names its own account, granted exactly what this build does
# (https://cloud.google.com/build/docs/securing-builds/configure-user-specified-service-accounts).
LOGGING = "CLOUD_LOGGING_ONLY"
"""`BuildOptions.logging` of a build that names `serviceAccount`: Google refuses such a build unless it
sends its logs to Cloud Logging (CLOUD_LOGGING_ONLY, or NONE) or to a user-owned bucket (`logsBucket`,
or options.defaultLogsBucketBehavior REGIONAL_USER_OWNED_BUCKET): with its own account a build cannot
log to the default logs bucket (configure-user-specified-service-accounts, its build logs section;
https://cloud.google.com/build/docs/securing-builds/store-view-build-logs). Cloud Logging needs no
bucket of ours, only roles/logging.logWriter on the project."""
SOURCE_ROLE = "roles/storage.objectViewer"
"""On the stack's bucket: storage.objects.get of the source archive, nothing else. Roles:
https://cloud.google.com/iam/docs/roles-permissions/storage."""
PUSH_ROLE = "roles/artifactregistry.writer"
"""On the stack's repository only: push (artifactregistry.repositories.uploadArtifacts) and pull.
Roles: https://cloud.google.com/iam/docs/roles-permissions/artifactregistry."""
LOG_ROLE = "roles/logging.logWriter"
"""On the project (log entries have no narrower resource): the build's logs, with LOGGING."""
RESTRICTED_REGIONS = (
    "us-central1",
    "us-west2",
    "europe-west1",
    "asia-east1",
    "australia-southeast1",
    "southamerica-east1",
)
"""Google's locations page says that, depending on usage, some projects may use Cloud Build only in
these regions (https://cloud.google.com/build/docs/locations, its section on restricted regions for
some projects). How Google refuses a build elsewhere in such a project is UNCONFIRMED; `region_hint`
names the list."""


def registry(region: str, project: str, repository: str) -> str:
    """An Artifact Registry docker repository's host path (`REGION-docker.pkg.dev/PROJECT/REPO`)."""
    return f"{region}-docker.pkg.dev/{project}/{repository}"


def build_tag(context_digest: str) -> str:
    return f"{TAG_PREFIX}{context_digest}"


def source_object(context_digest: str) -> str:
    return f"{SOURCE_PREFIX}/{context_digest}.tar.gz"


def archive(root: Path = ROOT) -> bytes:
    """The build context of the checkout at `root` as a tar.gz, the same bytes for the same files:
    sorted, mtime 0, root owned, only the exec bit of each mode kept (what `image.context_digest`
    hashes)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in image.context_files(root):
            data = (root / rel).read_bytes()
            info = tarfile.TarInfo(rel.as_posix())
            info.size, info.mtime, info.uid, info.gid = len(data), 0, 0, 0
            info.mode = 0o755 if (root / rel).stat().st_mode & 0o111 else 0o644
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def service_account_name(project: str, email: str) -> str:
    """`Build.serviceAccount`: `projects/{PROJECT_ID}/serviceAccounts/{ACCOUNT}` (the cloudbuild v1
    Build message; ACCOUNT the email or the unique id)."""
    return f"projects/{project}/serviceAccounts/{email}"


BASE_ARGS = {"serve": "BASE_IMAGE"}
"""`tunifolk:scorer.baseImages` keys → the Dockerfile's ARGs (scorer/Dockerfile)."""


def build_key(context_digest: str, bases: dict[str, str] | None = None) -> str:
    """What decides a build: the context's digest, and the bases when pinned (an unpinned build keeps
    the context digest alone, so builds made before bases could be pinned are still found)."""
    if not bases:
        return context_digest
    blob = context_digest + "\0" + json.dumps(bases, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def build_body(
    bucket: str,
    repository_path: str,
    context_digest: str,
    service_account: str | None = None,
    bases: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Build (cloudbuild v1): `docker build` of the archive in `bucket`, pushed to the repository
    under a docker tag of the context digest, and tagged (Build.tags) with it. With
    `service_account` (`service_account_name`) the build runs as that account and logs to Cloud
    Logging only, as Google requires of a build that names its account (LOGGING)."""
    key = build_key(context_digest, bases)
    target = f"{repository_path}/{IMAGE_NAME}:ctx-{key[:16]}"
    pins = [f"--build-arg={BASE_ARGS[k]}={v}" for k, v in sorted((bases or {}).items())]
    body: dict[str, Any] = {
        "source": {"storageSource": {"bucket": bucket, "object": source_object(context_digest)}},
        "steps": [{"name": BUILDER, "args": ["build", *pins, "-f", DOCKERFILE, "-t", target, "."]}],
        "images": [target],
        "tags": [build_tag(key)],
        "timeout": BUILD_TIMEOUT,
    }
    if service_account:
        body["serviceAccount"] = service_account
        body["options"] = {"logging": LOGGING}
    return body


def region_hint(location: str) -> str:
    """A clause for a refused builds.create: the regions some projects are held to (RESTRICTED_REGIONS),
    when the build's region is not one of them; else nothing."""
    if location in RESTRICTED_REGIONS:
        return ""
    return (
        f" (Cloud Build restricts some projects to {', '.join(RESTRICTED_REGIONS)}: if the refusal is "
        f"about the region {location}, see https://cloud.google.com/build/docs/locations)"
    )


def image_of(build: dict[str, Any]) -> str:
    """The pushed image by digest (`…/scorer@sha256:…`) from a successful build's results."""
    for built in (build.get("results") or {}).get("images") or []:
        name, digest = built.get("name", ""), built.get("digest", "")
        if digest.startswith("sha256:"):
            return f"{name.rsplit(':', 1)[0] if ':' in name.rsplit('/', 1)[-1] else name}@{digest}"
    raise TunifolkError(f"build {build.get('id', '?')} succeeded but names no pushed image digest")


def failure(build: dict[str, Any]) -> TunifolkError:
    """One line for a build that did not succeed: its status, why, and where its log is."""
    detail = build.get("statusDetail") or (build.get("failureInfo") or {}).get("detail") or "no detail"
    return TunifolkError(
        f"the scorer image build {build.get('id', '?')} ended {build.get('status')}: {detail} "
        f"(log: {build.get('logUrl') or 'none'})"
    )


class CloudBuild:
    """The calls the build resource makes, over one VertexClient (built per provider call)."""

    def __init__(self, client: VertexClient) -> None:
        self.client = client

    def _url(self, host: str, path: str) -> str:
        return f"{self.client.endpoint or host}{path}"

    def upload(self, bucket: str, name: str, data: bytes) -> dict[str, Any]:
        """objects.insert, simple media upload (one request; the archive is small)."""
        url = self._url(STORAGE, f"/upload/storage/v1/b/{quote(bucket, safe='')}/o")
        headers = {**self.client._auth_headers(url), "Content-Type": "application/gzip"}
        try:
            resp = requests.post(
                url, params={"uploadType": "media", "name": name}, data=data, headers=headers, timeout=120
            )
        except requests.RequestException as exc:
            raise UnreachableError(url, type(exc).__name__) from None
        if resp.status_code >= 400:
            raise VertexError(resp.status_code, _message(resp), "POST", urlsplit(url).path)
        return resp.json()

    def create(self, project: str, location: str, body: dict[str, Any]) -> dict[str, Any]:
        """projects.locations.builds.create: the Operation whose metadata.build is the new build.
        Not retried (a retry after a lost answer would start a second build; `find` adopts instead)."""
        url = self._url(CLOUDBUILD, f"/v1/projects/{project}/locations/{location}/builds")
        return self.client.request("POST", url, body=body, idempotent=False)

    def find(
        self, project: str, location: str, context_digest: str, bases: dict[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """The builds of this context (and bases), newest first (builds.list with a filter)."""
        url = self._url(CLOUDBUILD, f"/v1/projects/{project}/locations/{location}/builds")
        params = {"filter": f'tags="{build_tag(build_key(context_digest, bases))}"', "pageSize": 50}
        return self.client.request("GET", url, params=params).get("builds") or []

    def get(self, project: str, location: str, build_id: str) -> dict[str, Any]:
        url = self._url(CLOUDBUILD, f"/v1/projects/{project}/locations/{location}/builds/{build_id}")
        return self.client.request("GET", url)

    def operation(self, name: str) -> dict[str, Any]:
        return self.client.request("GET", self._url(CLOUDBUILD, f"/v1/{name}"))

    def wait(
        self,
        op: dict[str, Any],
        poll: float,
        timeout: float,
        say: Callable[[str], None],
    ) -> dict[str, Any]:
        """Poll the operation of a build just created until done; the finished Build (its `response`,
        else its metadata's)."""
        op = _until(
            op,
            lambda o: bool(o.get("done")),
            lambda o: self.operation(o["name"]),
            _op_build,
            poll,
            timeout,
            say,
        )
        if op.get("error") and not op.get("response"):
            build = _op_build(op)
            return {**build, "statusDetail": build.get("statusDetail") or op["error"].get("message")}
        return op.get("response") or _op_build(op)

    def follow(
        self,
        project: str,
        location: str,
        build: dict[str, Any],
        poll: float,
        timeout: float,
        say: Callable[[str], None],
    ) -> dict[str, Any]:
        """Wait for a build found live with no operation at hand (the `up` that started it died):
        poll the build itself until it is DONE; the finished Build."""
        return _until(
            build,
            lambda b: b.get("status") in DONE,
            lambda b: self.get(project, location, b["id"]),
            lambda b: b,
            poll,
            timeout,
            say,
        )


def _op_build(op: dict[str, Any]) -> dict[str, Any]:
    """The Build an operation's metadata carries (BuildOperationMetadata.build)."""
    return (op.get("metadata") or {}).get("build") or {}


def _until(
    item: dict[str, Any],
    done: Callable[[dict[str, Any]], bool],
    again: Callable[[dict[str, Any]], dict[str, Any]],
    build_of: Callable[[dict[str, Any]], dict[str, Any]],
    poll: float,
    timeout: float,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """The one wait for a build, whether read through its operation or by itself: `again(item)` every
    `poll` seconds until `done(item)`, saying each new status; after `timeout`, one line saying how
    to wait again (the build is found by its tag, not started again)."""
    deadline = time.monotonic() + timeout
    last = ""
    while not done(item):
        build = build_of(item)
        if build.get("status") != last:
            last = build.get("status", "")
            say(f"scorer image build {build.get('id', '?')} is {last} (log: {build.get('logUrl')})")
        if time.monotonic() >= deadline:
            raise TunifolkError(
                f"the scorer image build {build.get('id', '?')} is still {last} after {timeout:.0f}s; "
                "run pulumi up again to wait for it (it is found by its tag, not started again)"
            )
        time.sleep(poll)
        item = again(item)
    return item


def _message(resp: requests.Response) -> str:
    try:
        return str(resp.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return resp.text.strip().splitlines()[0][:200] if resp.text.strip() else resp.reason
