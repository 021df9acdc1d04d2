"""Cloud Storage in the stand-in: buckets, objects (written where the Vertex emulator reads
`gs://` URIs), bucket IAM and the legacy ACL resources.

Objects are files at `<gcs dir>/<bucket>/<object name>`, so an object name is a path here, which in
GCS it is not. Names are refused as GCS refuses them (https://cloud.google.com/storage/docs/objects#naming:
1-1024 bytes of UTF-8, no CR or LF, not `.` or `..`, not under `.well-known/acme-challenge/`), and
also, where GCS would take them but a file path cannot stand for them, those with an empty, `.` or
`..` segment, a leading `/`, a backslash or a NUL (`a/../b` is one flat name to GCS, a way out of
the bucket's folder here). Every path is resolved and must stay inside its bucket's folder.

Versioning, as GCS does it (https://cloud.google.com/storage/docs/object-versioning): in a bucket with
`versioning.enabled`, deleting an object keeps its generation as noncurrent (in
`local_gcs.noncurrent_folder`, where no gs:// URI reaches it); a bucket that still holds an object or
a noncurrent generation refuses deletion with GCS's 409 "The bucket you tried to delete is not empty."
unless `forceDestroy` is set, which deletes every object and every noncurrent generation first (as
pulumi-gcp's Bucket does). Lifecycle rules with the `Delete` action run when an object of the bucket is
written or deleted, on the conditions `numNewerVersions`, `daysSinceNoncurrentTime` and `withState`;
GCS runs them asynchronously ("typically within 24 hours", UNCONFIRMED how soon), and a rule with any
other condition is not applied here.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import os
import re
import shutil
import time
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tunifolk.job.names import local_project_number as project_number
from tunifolk.job.wire import UNKNOWN
from tunifolk.job.wire import contains_unknown as is_unknown
from tunifolk.local_gcs import (
    BUCKET_RE,
    bucket_folder,
    noncurrent_file,
    noncurrent_folder,
    noncurrent_generations,
    object_file,
    object_name_problem,
    write_object,
)
from tunifolk.standin.kind import (
    Context,
    Gone,
    IamMemberKind,
    Kind,
    StandInError,
    binding_failures,
    missing,
    now,
)
from tunifolk.standin.store import Record


def object_path(gcs: Path, bucket: str, name: str) -> Path:
    """The file that holds `gs://bucket/name`, which must lie inside the bucket's folder."""
    path = object_file(gcs, bucket, name)
    if path is None:
        raise StandInError(f"googleapi: Error 400: gs://{bucket}/{name} is not a valid object, invalid")
    return path


class Bucket(Kind):
    token = "gcp:storage/bucket:Bucket"
    required = ("location",)
    force_new = ("name", "location", "project")
    autoname = "name"
    labelled = True

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        name = inputs.get("name")
        if not isinstance(name, str) or name == UNKNOWN:
            return []
        if not BUCKET_RE.match(name) or ".." in name or name.startswith("goog") or "google" in name:
            return [
                (
                    "name",
                    f"{name!r} is not a valid bucket name: 3-63 characters of a-z, 0-9, '-', '_' and "
                    "'.', starting and ending with a letter or digit, not starting with 'goog' nor "
                    "containing 'google'",
                )
            ]
        return []

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return inputs["name"]

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        name = inputs["name"]
        out = super().outputs(ctx, inputs, preview)
        out.update(
            location=str(inputs["location"]).upper(),
            storageClass=inputs.get("storageClass") or "STANDARD",
            selfLink=f"https://www.googleapis.com/storage/v1/b/{name}",
            url=f"gs://{name}",
            projectNumber=UNKNOWN if preview else float(project_number(inputs["project"])),
            timeCreated=UNKNOWN if preview else now(),
            updated=UNKNOWN if preview else now(),
            rpo="DEFAULT",
            forceDestroy=bool(inputs.get("forceDestroy", False)),
            defaultEventBasedHold=False,
            requesterPays=False,
            enableObjectRetention=False,
        )
        out.setdefault("publicAccessPrevention", "inherited")
        out.setdefault("uniformBucketLevelAccess", False)
        return out

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {"timeCreated": outputs["timeCreated"], "projectNumber": outputs["projectNumber"]}

    def exists_message(self, id_: str) -> str:
        return (
            f"googleapi: Error 409: The requested bucket name {id_} is not available. The bucket namespace "
            "is shared by all users of the system. Please select a different name and try again., conflict"
        )

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        bucket_folder(ctx.gcs, inputs["name"]).mkdir(parents=True, exist_ok=True)

    def before_delete(self, ctx: Context, record: Record) -> None:
        objects = [r for r in ctx.store.all(BucketObject.token) if r.inputs.get("bucket") == record.id]
        noncurrent = noncurrent_generations(ctx.gcs, record.id)
        if (objects or noncurrent) and not record.inputs.get("forceDestroy"):
            raise StandInError(
                f"googleapi: Error 409: The bucket you tried to delete is not empty. ({record.id} holds "
                f"{len(objects)} objects and {len(noncurrent)} noncurrent object versions: delete them with "
                f"gcloud storage rm --recursive --all-versions gs://{record.id}/**, or set forceDestroy), "
                "conflict"
            )
        for obj in objects:
            ctx.store.delete(BucketObject.token, obj.id)
        shutil.rmtree(bucket_folder(ctx.gcs, record.id), ignore_errors=True)
        shutil.rmtree(noncurrent_folder(ctx.gcs, record.id), ignore_errors=True)
        with contextlib.suppress(OSError):
            noncurrent_folder(ctx.gcs, record.id).parent.rmdir()  # the last versioned bucket gone


def _versioned(bucket: Record | None) -> bool:
    return bool(bucket and (bucket.inputs.get("versioning") or {}).get("enabled"))


LIFECYCLE_CONDITIONS = frozenset({"numNewerVersions", "daysSinceNoncurrentTime", "withState"})
"""The lifecycle conditions the stand-in applies; a rule with any other one is left to GCS."""


def apply_lifecycle(
    ctx: Context, bucket_name: str, created: str | None = None, deleted: str | None = None
) -> None:
    """Delete the noncurrent generations a `Delete` lifecycle rule of the bucket matches (module doc).
    `created`/`deleted`: an object whose record is being written or removed in this call."""
    bucket = ctx.store.get(Bucket.token, bucket_name)
    rules = [
        r.get("condition") or {}
        for r in (bucket.inputs.get("lifecycleRules") or [] if bucket else [])
        if isinstance(r, dict) and (r.get("action") or {}).get("type") == "Delete"
    ]
    rules = [
        {k: v for k, v in c.items() if not k.startswith("send") and v not in (None, "", [], 0)} for c in rules
    ]
    rules = [c for c in rules if c and set(c) <= LIFECYCLE_CONDITIONS]
    if not rules:
        return
    generations = noncurrent_generations(ctx.gcs, bucket_name)
    records = ctx.store.all(BucketObject.token)
    live = {r.inputs.get("name") for r in records if r.inputs.get("bucket") == bucket_name} | {created}
    live.discard(deleted)
    now = time.time()
    for name, generation, path in generations:
        newer = sum(1 for n, g, _ in generations if n == name and int(g) > int(generation)) + (name in live)
        days = (now - path.stat().st_mtime) / 86400
        for c in rules:
            if (
                c.get("withState", "ARCHIVED") in ("ARCHIVED", "ANY")
                and newer >= float(c.get("numNewerVersions", 0))
                and days >= float(c.get("daysSinceNoncurrentTime", 0))
            ):
                path.unlink(missing_ok=True)
                _prune(path, noncurrent_folder(ctx.gcs, bucket_name))
                break


def _prune(path: Path, root: Path) -> None:
    """Remove the empty folders between a deleted file and `root` (GCS has no folders)."""
    root = root.resolve()
    with contextlib.suppress(OSError):
        for parent in path.resolve().parents:
            if parent == root or not parent.is_relative_to(root):
                break
            parent.rmdir()


def _bucket_must_exist(ctx: Context, inputs: dict[str, Any]) -> None:
    if ctx.store.get(Bucket.token, inputs["bucket"]) is None:
        raise StandInError("googleapi: Error 404: The specified bucket does not exist., notFound")


class BucketObject(Kind):
    token = "gcp:storage/bucketObject:BucketObject"
    required = ("bucket", "name")
    force_new = (
        "bucket",
        "name",
        "source",
        "content",
        "contentType",
        "contentEncoding",
        "contentLanguage",
        "cacheControl",
        "storageClass",
        "detectMd5hash",
    )
    uses_project = False

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        name = inputs.get("name")
        if isinstance(name, str) and name != UNKNOWN and (problem := object_name_problem(name)):
            out.append(("name", problem))
        if missing(inputs.get("source")) and missing(inputs.get("content")):
            out.append(("source", "one of source or content must be set"))
        source = inputs.get("source")
        if isinstance(source, dict) and source.get("path") and not Path(source["path"]).is_file():
            out.append(("source", f"{source['path']}: no such file"))
        return out

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['bucket']}-{inputs['name']}"  # the Terraform provider's id

    def _data(self, inputs: dict[str, Any]) -> bytes:
        source = inputs.get("source")
        if isinstance(source, dict) and source.get("path"):
            return Path(source["path"]).read_bytes()
        if isinstance(source, dict) and "text" in source:
            return str(source["text"]).encode()
        return str(inputs.get("content") or "").encode()

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        bucket, name = inputs["bucket"], inputs["name"]
        out = super().outputs(ctx, inputs, preview)
        known = not is_unknown(bucket) and not is_unknown(name)
        link = f"{bucket}/o/{quote(name, safe='')}" if known else UNKNOWN
        out.update(
            outputName=name,
            contentType=inputs.get("contentType") or "application/octet-stream",
            storageClass=inputs.get("storageClass") or "STANDARD",
            selfLink=f"https://www.googleapis.com/storage/v1/b/{link}" if known else UNKNOWN,
        )
        if preview:
            out.update(md5hash=UNKNOWN, crc32c=UNKNOWN, generation=UNKNOWN, mediaLink=UNKNOWN)
            return out
        data = self._data(inputs)
        generation = str(int(dt.datetime.now(dt.UTC).timestamp() * 1_000_000))
        out.update(
            md5hash=base64.b64encode(hashlib.md5(data).digest()).decode(),
            crc32c=base64.b64encode((zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")).decode(),
            generation=float(generation),
            mediaLink=f"https://storage.googleapis.com/download/storage/v1/b/{link}?generation={generation}&alt=media",
        )
        return out

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        _bucket_must_exist(ctx, inputs)

    def exists_message(self, id_: str) -> str:
        return (
            f"googleapi: Error 412: {id_} already exists (an earlier create did not finish?), conditionNotMet"
        )

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        object_path(ctx.gcs, inputs["bucket"], inputs["name"])  # a refused name: Google's words
        write_object(ctx.gcs, inputs["bucket"], inputs["name"], self._data(inputs))
        apply_lifecycle(ctx, inputs["bucket"], created=inputs["name"])  # older generations: one more newer

    def on_read(self, ctx: Context, record: Record) -> None:
        path = object_path(ctx.gcs, record.inputs["bucket"], record.inputs["name"])
        if not path.is_file():  # deleted behind the stand-in's back: gone, as Google would say
            ctx.store.delete(self.token, record.id)
            raise Gone()

    def before_delete(self, ctx: Context, record: Record) -> None:
        bucket, name = record.inputs["bucket"], record.inputs["name"]
        path = object_path(ctx.gcs, bucket, name)
        generation = str(int(float(record.outputs.get("generation") or 0)))
        kept = noncurrent_file(ctx.gcs, bucket, name, generation)
        if _versioned(ctx.store.get(Bucket.token, bucket)) and kept is not None and path.is_file():
            kept.parent.mkdir(parents=True, exist_ok=True)
            path.replace(kept)  # the live generation becomes noncurrent, as GCS keeps it
            os.utime(kept)  # its noncurrent time: now (daysSinceNoncurrentTime counts from it)
        else:
            path.unlink(missing_ok=True)
        _prune(path, bucket_folder(ctx.gcs, bucket))
        apply_lifecycle(ctx, bucket, deleted=name)


class BucketIAMMember(IamMemberKind):
    token = "gcp:storage/bucketIAMMember:BucketIAMMember"
    required = ("bucket", "role", "member")
    force_new = ("bucket", "role", "member", "condition")
    uses_project = False

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"b/{inputs['bucket']}/{inputs['role']}/{inputs['member']}"

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        _bucket_must_exist(ctx, inputs)


class BucketIAMBinding(BucketIAMMember):
    """Every member of one role on a bucket (authoritative for that role)."""

    token = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
    required = ("bucket", "role", "members")
    force_new = ("bucket", "role", "condition")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return binding_failures(inputs)

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"b/{inputs['bucket']}/{inputs['role']}"


# ACL entities as the JSON API spells them; roles of the ACL resources.
ENTITY_RE = re.compile(
    r"^(allUsers|allAuthenticatedUsers|(user|group)-\S+@\S+|(user|group)-[0-9a-f]+|domain-\S+|"
    r"project-(owners|editors|viewers)-\S+)$"
)
ENTITY_FORMS = (
    "user-EMAIL, group-EMAIL, domain-DOMAIN, project-TEAM-PROJECT, allUsers or allAuthenticatedUsers"
)
ACL_ROLES = ("OWNER", "READER", "WRITER")


class BucketAccessControl(Kind):
    """One ACL entry of a bucket (legacy ACLs; refused by Google once uniform access is on)."""

    token = "gcp:storage/bucketAccessControl:BucketAccessControl"
    required = ("bucket", "entity")
    force_new = ("bucket", "entity")
    uses_project = False

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        entity, role = inputs.get("entity"), inputs.get("role")
        if isinstance(entity, str) and entity != UNKNOWN and not ENTITY_RE.match(entity):
            out.append(("entity", f"{entity!r} is not an ACL entity: expected {ENTITY_FORMS}"))
        if isinstance(role, str) and role != UNKNOWN and role not in ACL_ROLES:
            out.append(("role", f"expected role to be one of {list(ACL_ROLES)}, got {role}"))
        return out

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['bucket']}/{inputs['entity']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        entity = str(inputs.get("entity", ""))
        email = entity.partition("-")[2] if entity.startswith(("user-", "group-")) else ""
        domain = entity.partition("-")[2] if entity.startswith("domain-") else ""
        return {**super().outputs(ctx, inputs, preview), "email": email, "domain": domain}

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        _bucket_must_exist(ctx, inputs)


class DefaultObjectAccessControl(BucketAccessControl):
    """One entry of the ACL a bucket gives to new objects."""

    token = "gcp:storage/defaultObjectAccessControl:DefaultObjectAccessControl"
    required = ("bucket", "entity", "role")


class ObjectAccessControl(BucketAccessControl):
    """One ACL entry of an object."""

    token = "gcp:storage/objectAccessControl:ObjectAccessControl"
    required = ("bucket", "object", "entity", "role")
    force_new = ("bucket", "object", "entity")

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['bucket']}/{inputs['object']}/{inputs['entity']}"

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        if ctx.store.get(BucketObject.token, f"{inputs['bucket']}-{inputs['object']}") is None:
            raise StandInError("googleapi: Error 404: No such object, notFound")
