"""Artifact Registry in the stand-in: the repository the scorer image is pushed to.

`gcp:artifactregistry/repository:Repository` as pulumi-gcp's schema has it: `repositoryId` and
`format` required; `repositoryId`, `format`, `location` and `project` force a replacement; the id and
`name` are `projects/{project}/locations/{location}/repositories/{repositoryId}`; `createTime` and
`updateTime` are computed. The repository id's rule (a lowercase letter first, then lowercase
letters, digits and hyphens, at most 63, not ending with a hyphen) is Artifact Registry's documented
naming rule; its exact refusal wording is UNCONFIRMED.

The repository holds no images here: the Cloud Build stand-in (tunifolk/standin/cloudbuild.py) keeps
what it builds in podman's local storage under the repository's host path
(`REGION-docker.pkg.dev/PROJECT/REPOSITORY/…`), where the Cloud Run stand-in finds it by digest.
Deleting the repository deletes its images on Google Cloud; here those local images stay (podman's
storage is a cache, not the registry).
"""

from __future__ import annotations

import re
from typing import Any

from tunifolk.job.wire import UNKNOWN
from tunifolk.job.wire import contains_unknown as is_unknown
from tunifolk.standin.kind import Context, IamMemberKind, Kind, StandInError, now

REPOSITORY_ID_RE = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
FORMATS = frozenset({"DOCKER", "MAVEN", "NPM", "PYTHON", "APT", "YUM", "GO", "KFP", "GENERIC"})
"""Repository.format values (the artifactregistry v1 discovery document's enum, less UNSPECIFIED)."""


class Repository(Kind):
    token = "gcp:artifactregistry/repository:Repository"
    required = ("repositoryId", "format")
    force_new = ("repositoryId", "format", "location", "project")
    labelled = True
    api = "artifactregistry.googleapis.com"

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        repo, fmt = inputs.get("repositoryId"), inputs.get("format")
        if isinstance(repo, str) and repo != UNKNOWN and not REPOSITORY_ID_RE.match(repo):
            out.append(("repositoryId", f"{repo!r} is not a repository id (a-z first, then a-z, 0-9, -)"))
        if isinstance(fmt, str) and fmt != UNKNOWN and fmt.upper() not in FORMATS:
            out.append(("format", f"{fmt!r} is not a repository format ({', '.join(sorted(FORMATS))})"))
        return out

    def _location(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return inputs.get("location") or ctx.region or "us-central1"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        location = self._location(ctx, inputs)
        return f"projects/{inputs['project']}/locations/{location}/repositories/{inputs['repositoryId']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        known = not is_unknown(inputs.get("repositoryId")) and not is_unknown(inputs.get("project"))
        stamp = UNKNOWN if preview else now()
        return {
            **super().outputs(ctx, inputs, preview),
            "location": self._location(ctx, inputs),
            "name": self.id_of(ctx, inputs) if known else UNKNOWN,
            "createTime": stamp,
            "updateTime": stamp,
            "mode": inputs.get("mode") or "STANDARD_REPOSITORY",
        }

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {"createTime": outputs["createTime"]}


class RepositoryIamMember(IamMemberKind):
    """One member of one role on a repository (`gcp.artifactregistry.RepositoryIamMember`): `repository`
    (its id, or its full name), `role` and `member` required; they, `location`, `project` and
    `condition` force a replacement. The repository must exist (404, as a bucket's grant). Who may
    push is read from these records by the Cloud Build stand-in (tunifolk/standin/cloudbuild.py)."""

    token = "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember"
    required = ("repository", "role", "member")
    force_new = ("repository", "role", "member", "condition", "location", "project")
    api = "artifactregistry.googleapis.com"

    def _repository(self, ctx: Context, inputs: dict[str, Any]) -> str:
        repo = str(inputs["repository"])
        if repo.startswith("projects/"):
            return repo
        location = inputs.get("location") or ctx.region or "us-central1"
        return f"projects/{inputs['project']}/locations/{location}/repositories/{repo}"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{self._repository(ctx, inputs)}/{inputs['role']}/{inputs['member']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {
            **super().outputs(ctx, inputs, preview),
            "location": inputs.get("location") or ctx.region or "us-central1",
        }

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        name = self._repository(ctx, inputs)
        if ctx.store.get(Repository.token, name) is None:
            raise StandInError(f"googleapi: Error 404: Repository {name} not found, notFound")
