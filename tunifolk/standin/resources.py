"""The resource types of the stand-in: what each checks, which changes replace it, what it creates.

Property names are the engine's (camelCase, as pulumi-gcp's schema has them). Each type follows the
real provider where the program can tell: the same required fields and name rules, the same fields
forcing a replacement (Terraform's ForceNew), ids and computed outputs in Google's formats. Each
check here answers instantly, where Google would answer an API call; so do the failures, prefixed
`gcp stand-in:` so nobody mistakes them for Google's.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import json
import re
import secrets
import shutil
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tunifolk.job.wire import UNKNOWN
from tunifolk.job.wire import contains_unknown as is_unknown
from tunifolk.standin import cloudrun
from tunifolk.standin.store import Record, Store

ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
SIG_KEY = "4dabf18193072939515e22adb298388d"
DEFAULTS = "__defaults"
"""The checked-inputs key listing the properties the provider filled in (the bridge's convention)."""
PULUMI_LABELS = {"goog-pulumi-provisioned": "true"}
"""The label pulumi-gcp adds to every labelled resource (its `effectiveLabels`/`pulumiLabels`)."""


class StandInError(Exception):
    """A call that Google would refuse; the message is shown by the engine as the step's error."""


@dataclass
class Context:
    """What every operation needs: the provider's config and where the stand-in keeps things."""

    project: str | None
    region: str | None
    state: Path
    gcs: Path
    store: Store = field(init=False)

    def __post_init__(self) -> None:
        self.store = Store(self.state)


def now() -> str:
    """RFC 3339 with microseconds and Z, as Google's APIs write timestamps."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def project_number(project: str) -> str:
    """A stable 12-digit project number for a project id (Google's are 12 digits, not derivable)."""
    return str(10**11 + int(hashlib.sha256(project.encode()).hexdigest(), 16) % (9 * 10**11))


def iam_etag() -> str:
    """An IAM policy etag: base64 of 8 bytes starting with the policy version, as Google's (`BwY…`)."""
    return base64.b64encode(b"\x07\x06" + secrets.token_bytes(6)).decode()


def _missing(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


MEMBER_RE = re.compile(
    r"^(allUsers|allAuthenticatedUsers|projectOwner:.+|projectEditor:.+|projectViewer:.+|"
    r"(user|serviceAccount|group|domain|deleted:user|deleted:serviceAccount|deleted:group):[^\s:]+|"
    r"principal(Set)?://\S+)$"
)
ROLE_RE = re.compile(r"^(roles/[A-Za-z0-9_.]+|(projects|organizations)/[^/]+/roles/[A-Za-z0-9_.]+)$")
PROJECT_RE = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")


def _iam_failures(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    role, member = inputs.get("role"), inputs.get("member")
    if isinstance(role, str) and role != UNKNOWN and not ROLE_RE.match(role):
        out.append(("role", f"{role!r} is not a role: expected roles/NAME or projects/P/roles/NAME"))
    if isinstance(member, str) and member != UNKNOWN and not MEMBER_RE.match(member):
        out.append(
            (
                "member",
                f"{member!r} is not an IAM member: expected user:EMAIL, serviceAccount:EMAIL, group:EMAIL, "
                "domain:DOMAIN, allUsers or allAuthenticatedUsers",
            )
        )
    return out


class Kind:
    """One resource type. Subclasses set the class attributes and override the hooks they need."""

    token: str = ""
    required: tuple[str, ...] = ()
    force_new: tuple[str, ...] = ()
    autoname: str | None = None  # the property filled as `<logical name>-<7 hex>` when not given
    autoname_limit: int = 63
    uses_project: bool = True
    labelled: bool = False

    # ------------------------------------------------------------------ check

    def check(
        self, ctx: Context, name: str, olds: dict[str, Any], news: dict[str, Any], seed: bytes
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """Defaults as the real provider fills them (autonames, the provider's project), and failures."""
        inputs = dict(news)
        if self.autoname and _missing(inputs.get(self.autoname)):
            if olds.get(self.autoname) and self.autoname in (olds.get(DEFAULTS) or []):
                inputs[self.autoname] = olds[self.autoname]  # an autoname is kept across updates
            else:
                digest = hashlib.sha256(seed or secrets.token_bytes(8)).hexdigest()[:7]
                inputs[self.autoname] = f"{name[: self.autoname_limit - 8]}-{digest}"
            inputs[DEFAULTS] = [self.autoname]
        if self.uses_project and _missing(inputs.get("project")) and ctx.project:
            inputs["project"] = ctx.project
        failures = [
            (
                prop,
                f"Missing required argument. The argument {prop!r} is required, but no definition was found.",
            )
            for prop in self.required
            if _missing(inputs.get(prop))
        ]
        if self.uses_project and _missing(inputs.get("project")):
            failures.append(
                ("project", "project: required field is not set: pulumi config set gcp:project PROJECT_ID")
            )
        elif (
            self.uses_project
            and not is_unknown(inputs["project"])
            and not PROJECT_RE.match(inputs["project"])
        ):
            failures.append(("project", f"{inputs['project']!r} is not a project id (6-30 of [a-z0-9-])"))
        failures += [f for f in self.validate(ctx, inputs) if f]
        return inputs, failures

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return []

    # ------------------------------------------------------------------ diff

    def diff(self, olds: dict[str, Any], news: dict[str, Any]) -> tuple[list[str], list[str], bool]:
        """(changed keys, keys forcing a replacement, delete before replace)."""
        keys = sorted(k for k in set(olds) | set(news) if not k.startswith("__"))
        changed = [k for k in keys if not _same(olds.get(k), news.get(k))]
        replaces = [k for k in changed if k in self.force_new]
        # The real provider deletes first when a replaced resource keeps a name the user chose:
        # creating the new one first would collide with the old one's name. An autoname is listed
        # in `__defaults` (as the Terraform bridge records it) and changes on replacement.
        fixed = self.autoname is None or self.autoname not in (news.get(DEFAULTS) or [])
        return changed, replaces, bool(replaces) and fixed

    # ------------------------------------------------------------------ lifecycle

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        raise NotImplementedError

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        """Computed outputs; at preview, unknown where Google decides the value."""
        out = {k: v for k, v in inputs.items() if not k.startswith("__")}
        if self.labelled:
            labels = inputs.get("labels") or {}
            out["labels"] = labels
            out["effectiveLabels"] = {**labels, **PULUMI_LABELS}
            out["pulumiLabels"] = {**labels, **PULUMI_LABELS}
        return out

    def create(self, ctx: Context, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        id_ = self.id_of(ctx, inputs)
        with ctx.store.locked():
            if ctx.store.get(self.token, id_) is not None:
                raise StandInError(self.exists_message(id_))
            self.before_create(ctx, inputs)
            outputs = self.outputs(ctx, inputs, preview=False)
            self.after_create(ctx, inputs, outputs)
            ctx.store.put(Record(self.token, id_, inputs, outputs))
        return id_, outputs

    def exists_message(self, id_: str) -> str:
        return f"googleapi: Error 409: {id_} already exists, alreadyExists"

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        """Refuse a create Google would refuse (a missing parent); raise StandInError."""

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Side effects: files, processes."""

    def read(self, ctx: Context, id_: str) -> Record | None:
        record = ctx.store.get(self.token, id_)
        if record is not None:
            self.on_read(ctx, record)
        return record

    def on_read(self, ctx: Context, record: Record) -> None:
        pass

    def update(self, ctx: Context, id_: str, news: dict[str, Any]) -> dict[str, Any]:
        with ctx.store.locked():
            record = ctx.store.get(self.token, id_)
            if record is None:
                raise StandInError(f"googleapi: Error 404: {id_} not found, notFound")
            outputs = {**self.outputs(ctx, news, preview=False), **self.kept(record.outputs)}
            self.on_update(ctx, record, news, outputs)
            ctx.store.put(Record(self.token, id_, news, outputs))
        return outputs

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        """Computed outputs that an in-place update leaves as they were (ids, create times)."""
        return {}

    def on_update(self, ctx: Context, record: Record, news: dict[str, Any], outputs: dict[str, Any]) -> None:
        pass

    def delete(self, ctx: Context, id_: str) -> None:
        with ctx.store.locked():
            record = ctx.store.get(self.token, id_)
            if record is None:
                return  # already gone: Google answers 404, which the provider treats as deleted
            self.before_delete(ctx, record)
            ctx.store.delete(self.token, id_)

    def before_delete(self, ctx: Context, record: Record) -> None:
        pass


def _same(a: Any, b: Any) -> bool:
    """Equal as the engine sees values: numbers by value, assets by content hash."""
    if isinstance(a, dict) and isinstance(b, dict) and a.get(SIG_KEY) == ASSET_SIG == b.get(SIG_KEY):
        return a.get("hash") == b.get("hash")
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if _missing(a) and _missing(b):
        return True
    return a == b


# --------------------------------------------------------------------------- Cloud Storage

BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$")


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
        (ctx.gcs / inputs["name"]).mkdir(parents=True, exist_ok=True)

    def before_delete(self, ctx: Context, record: Record) -> None:
        objects = [r for r in ctx.store.all(BucketObject.token) if r.inputs.get("bucket") == record.id]
        if objects and not record.inputs.get("forceDestroy"):
            raise StandInError(
                f"googleapi: Error 409: The bucket you tried to delete is not empty. ({record.id} holds "
                f"{len(objects)} objects; set forceDestroy to delete them with it), conflict"
            )
        for obj in objects:
            ctx.store.delete(BucketObject.token, obj.id)
        shutil.rmtree(ctx.gcs / record.id, ignore_errors=True)


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
        if isinstance(name, str) and name != UNKNOWN:
            if name in (".", "..") or "\n" in name or "\r" in name or len(name.encode()) > 1024:
                out.append(
                    ("name", f"{name!r} is not a valid object name (1-1024 bytes, no CR/LF, not . or ..)")
                )
            if name.startswith(".well-known/acme-challenge/"):
                out.append(("name", "object names may not start with .well-known/acme-challenge/"))
        if _missing(inputs.get("source")) and _missing(inputs.get("content")):
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
        path = ctx.gcs / inputs["bucket"] / inputs["name"]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(self._data(inputs))
        tmp.replace(path)

    def on_read(self, ctx: Context, record: Record) -> None:
        path = ctx.gcs / record.inputs["bucket"] / record.inputs["name"]
        if not path.is_file():  # deleted behind the stand-in's back: gone, as Google would say
            ctx.store.delete(self.token, record.id)
            raise Gone()

    def before_delete(self, ctx: Context, record: Record) -> None:
        path = ctx.gcs / record.inputs["bucket"] / record.inputs["name"]
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # prune empty prefix folders, as GCS has no folders
            for parent in path.parents:
                if parent == ctx.gcs / record.inputs["bucket"]:
                    break
                parent.rmdir()


class Gone(Exception):
    """A record found to be gone while reading it."""


class BucketIAMMember(Kind):
    token = "gcp:storage/bucketIAMMember:BucketIAMMember"
    required = ("bucket", "role", "member")
    force_new = ("bucket", "role", "member", "condition")
    uses_project = False

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _iam_failures(inputs)

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"b/{inputs['bucket']}/{inputs['role']}/{inputs['member']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {**super().outputs(ctx, inputs, preview), "etag": UNKNOWN if preview else iam_etag()}

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        _bucket_must_exist(ctx, inputs)


class BucketIAMBinding(BucketIAMMember):
    """Every member of one role on a bucket (authoritative for that role)."""

    token = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
    required = ("bucket", "role", "members")
    force_new = ("bucket", "role", "condition")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _binding_failures(inputs)

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


def _binding_failures(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """`_iam_failures` for each member of a binding, reported under `members`."""
    members = inputs.get("members")
    out = _iam_failures({"role": inputs.get("role")})
    for member in members if isinstance(members, list) else []:
        out += [("members", reason) for _, reason in _iam_failures({"member": member})]
    return out


# --------------------------------------------------------------------------- project IAM


class ProjectIAMMember(Kind):
    """One member of one role on the project. `project` is required, as in pulumi-gcp (no default)."""

    token = "gcp:projects/iAMMember:IAMMember"
    required = ("project", "role", "member")
    force_new = ("project", "role", "member", "condition")
    uses_project = False

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _iam_failures(inputs)

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['project']}/{inputs['role']}/{inputs['member']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {**super().outputs(ctx, inputs, preview), "etag": UNKNOWN if preview else iam_etag()}


class ProjectIAMBinding(ProjectIAMMember):
    """Every member of one role on the project (authoritative for that role)."""

    token = "gcp:projects/iAMBinding:IAMBinding"
    required = ("project", "role", "members")
    force_new = ("project", "role", "condition")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _binding_failures(inputs)

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['project']}/{inputs['role']}"


# --------------------------------------------------------------------------- IAM service accounts

ACCOUNT_RE = re.compile(r"^[a-z](?:[-a-z0-9]{4,28}[a-z0-9])$")


class Account(Kind):
    token = "gcp:serviceaccount/account:Account"
    required = ("accountId",)
    force_new = ("accountId", "project")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        account = inputs.get("accountId")
        if isinstance(account, str) and account != UNKNOWN and not ACCOUNT_RE.match(account):
            return [
                (
                    "accountId",
                    f'"account_id" ("{account}") doesn\'t match regexp '
                    '"^[a-z](?:[-a-z0-9]{4,28}[a-z0-9])$"',
                )
            ]
        name = inputs.get("displayName")
        if isinstance(name, str) and len(name) > 100:
            return [("displayName", "displayName is longer than 100 characters")]
        return []

    def email(self, inputs: dict[str, Any]) -> str:
        return f"{inputs['accountId']}@{inputs['project']}.iam.gserviceaccount.com"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/serviceAccounts/{self.email(inputs)}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        known = not is_unknown(inputs.get("accountId")) and not is_unknown(inputs.get("project"))
        email = self.email(inputs) if known else UNKNOWN
        return {
            **super().outputs(ctx, inputs, preview),
            "email": email,
            "name": f"projects/{inputs['project']}/serviceAccounts/{email}" if known else UNKNOWN,
            "member": f"serviceAccount:{email}" if known else UNKNOWN,
            "uniqueId": UNKNOWN if preview else str(10**20 + secrets.randbelow(9 * 10**20)),
            "disabled": bool(inputs.get("disabled", False)),
        }

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {"uniqueId": outputs["uniqueId"]}

    def exists_message(self, id_: str) -> str:
        account = id_.rsplit("/", 1)[-1].split("@")[0]
        return f"googleapi: Error 409: Service account {account} already exists within project, alreadyExists"


# --------------------------------------------------------------------------- Cloud Run v2

RUN_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,47}[a-z0-9])?$")
IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:\d+)?/[A-Za-z0-9._/-]+(:[\w.-]+|@sha256:[0-9a-f]{64})?$")
INGRESS = ("INGRESS_TRAFFIC_ALL", "INGRESS_TRAFFIC_INTERNAL_ONLY", "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER")


class CloudRunService(Kind):
    token = "gcp:cloudrunv2/service:Service"
    required = ("location", "template")
    force_new = ("name", "location", "project")
    autoname = "name"
    autoname_limit = 49
    labelled = True

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        name = inputs.get("name")
        if isinstance(name, str) and name != UNKNOWN and not RUN_NAME_RE.match(name):
            out.append(("name", f"{name!r}: a service name is 1-49 of [a-z0-9-], starting with a letter"))
        ingress = inputs.get("ingress")
        if ingress and ingress not in INGRESS:
            out.append(("ingress", f"expected ingress to be one of {list(INGRESS)}, got {ingress}"))
        template = inputs.get("template")
        if isinstance(template, dict):
            containers = template.get("containers")
            if _missing(containers):
                out.append(("template.containers", "at least one container is required"))
            for i, container in enumerate(containers or []):
                image = container.get("image") if isinstance(container, dict) else None
                if _missing(image):
                    out.append((f"template.containers[{i}].image", "image is required"))
                elif image != UNKNOWN and not IMAGE_RE.match(image):
                    out.append((f"template.containers[{i}].image", f"{image!r} is not a container image URL"))
            scaling = template.get("scaling") or {}
            low, high = scaling.get("minInstanceCount"), scaling.get("maxInstanceCount")
            if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
                out.append(
                    ("template.scaling", f"minInstanceCount {low:g} exceeds maxInstanceCount {high:g}")
                )
        return out

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/locations/{inputs['location']}/services/{inputs['name']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        out = super().outputs(ctx, inputs, preview)
        out.setdefault("deletionProtection", True)  # Cloud Run v2's default in pulumi-gcp
        out.setdefault("ingress", "INGRESS_TRAFFIC_ALL")
        if preview:
            out.update(
                uri=UNKNOWN, urls=UNKNOWN, uid=UNKNOWN, etag=UNKNOWN, generation=UNKNOWN,
                createTime=UNKNOWN, updateTime=UNKNOWN, latestReadyRevision=UNKNOWN,
                latestCreatedRevision=UNKNOWN, terminalConditions=UNKNOWN, reconciling=False,
            )  # fmt: skip
            return out
        stamp = now()
        out.update(
            uid=str(uuid.uuid4()),
            etag='"' + base64.b64encode(secrets.token_bytes(12)).decode() + '"',
            generation="1",
            observedGeneration="1",
            createTime=stamp,
            updateTime=stamp,
            reconciling=False,
            creator=f"tunifolk-stand-in@{inputs['project']}.iam.gserviceaccount.com",
        )
        self._revision(ctx, inputs, out, 1, stamp)
        return out

    def _revision(
        self, ctx: Context, inputs: dict[str, Any], out: dict[str, Any], generation: int, stamp: str
    ) -> None:
        suffix = f"{generation:05d}-{secrets.token_hex(2)[:3]}"
        revision = f"{self.id_of(ctx, inputs)}/revisions/{inputs['name']}-{suffix}"
        out.update(
            latestReadyRevision=revision,
            latestCreatedRevision=revision,
            terminalConditions=[
                {"type": "Ready", "state": "CONDITION_SUCCEEDED", "lastTransitionTime": stamp}
            ],
        )

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        port = cloudrun.free_port()
        cloudrun.ensure(ctx.state, self.id_of(ctx, inputs), port)
        outputs["uri"] = f"http://127.0.0.1:{port}"
        outputs["urls"] = [outputs["uri"]]

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {k: outputs[k] for k in ("uid", "createTime", "uri", "urls", "creator")}

    def on_update(self, ctx: Context, record: Record, news: dict[str, Any], outputs: dict[str, Any]) -> None:
        generation = int(record.outputs.get("generation", "1")) + 1
        outputs.update(generation=str(generation), observedGeneration=str(generation))
        self._revision(ctx, news, outputs, generation, outputs["updateTime"])
        cloudrun.ensure(ctx.state, record.id, port_of(record.outputs["uri"]))

    def on_read(self, ctx: Context, record: Record) -> None:
        cloudrun.ensure(ctx.state, record.id, port_of(record.outputs["uri"]))  # scale up from zero

    def before_delete(self, ctx: Context, record: Record) -> None:
        if record.outputs.get("deletionProtection", True):
            raise StandInError(
                f"cannot destroy service without setting deletion_protection=false and running `pulumi up` "
                f"({record.id})"
            )
        cloudrun.stop(ctx.state, record.id)
        for grant in ctx.store.all(ServiceIamMember.token):
            if grant.inputs.get("name") in (record.id, record.inputs["name"]):
                ctx.store.delete(ServiceIamMember.token, grant.id)  # a service's policy goes with it


def port_of(uri: str) -> int:
    return int(uri.rsplit(":", 1)[1].rstrip("/"))


class ServiceIamMember(Kind):
    token = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
    required = ("name", "role", "member", "location")
    force_new = ("name", "location", "project", "role", "member", "condition")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _iam_failures(inputs)

    def check(
        self, ctx: Context, name: str, olds: dict[str, Any], news: dict[str, Any], seed: bytes
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        if _missing(news.get("location")) and ctx.region:
            news = {**news, "location": ctx.region}
        return super().check(ctx, name, olds, news, seed)

    def service_id(self, inputs: dict[str, Any]) -> str:
        name = inputs["name"]
        if name.startswith("projects/"):
            return name
        return f"projects/{inputs['project']}/locations/{inputs['location']}/services/{name}"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{self.service_id(inputs)}/{inputs['role']}/{inputs['member']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {**super().outputs(ctx, inputs, preview), "etag": UNKNOWN if preview else iam_etag()}

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        if ctx.store.get(CloudRunService.token, self.service_id(inputs)) is None:
            raise StandInError(
                f"googleapi: Error 404: Resource '{inputs['name']}' of kind 'SERVICE' in region "
                f"'{inputs['location']}' in project '{inputs['project']}' does not exist., notFound"
            )


class ServiceIamPolicy(ServiceIamMember):
    """A Cloud Run service's whole IAM policy (authoritative), as the JSON `policyData` holds it."""

    token = "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"
    required = ("name", "policyData", "location")
    force_new = ("name", "location", "project")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        data = inputs.get("policyData")
        if not isinstance(data, str) or data == UNKNOWN:
            return []
        try:
            policy = json.loads(data)
        except ValueError as exc:
            return [("policyData", f"policyData is not JSON: {exc}")]
        bindings = policy.get("bindings", []) if isinstance(policy, dict) else None
        if not isinstance(bindings, list):
            return [("policyData", 'policyData is not an IAM policy: expected {"bindings": [...]}')]
        return [
            ("policyData", reason)
            for b in bindings
            for _, reason in _binding_failures(b if isinstance(b, dict) else {})
        ]

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return self.service_id(inputs)


# --------------------------------------------------------------------------- Service Usage


class ProjectService(Kind):
    """An enabled API. With `disableOnDestroy: false` delete only forgets it (the API stays on), as
    the real provider does; the stand-in then keeps it in `<state>/apis/<project>`, not as a resource."""

    token = "gcp:projects/service:Service"
    required = ("service",)
    force_new = ("service", "project")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        service = inputs.get("service")
        if (
            isinstance(service, str)
            and service != UNKNOWN
            and not re.match(r"^[a-z0-9-]+\.googleapis\.com$", service)
        ):
            return [("service", f"{service!r} is not a service name like run.googleapis.com")]
        return []

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['project']}/{inputs['service']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {
            **super().outputs(ctx, inputs, preview),
            "disableOnDestroy": inputs.get("disableOnDestroy", True),
        }

    def _enabled(self, ctx: Context, project: str) -> Path:
        return ctx.state / "apis" / project

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        folder = self._enabled(ctx, inputs["project"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / inputs["service"]).touch()

    def exists_message(self, id_: str) -> str:
        return f"{id_} is already managed by another resource in this stand-in"

    def before_delete(self, ctx: Context, record: Record) -> None:
        if record.inputs.get("disableOnDestroy", True):
            (self._enabled(ctx, record.inputs["project"]) / record.inputs["service"]).unlink(missing_ok=True)


KINDS: dict[str, Kind] = {
    k.token: k
    for k in (
        Bucket(),
        BucketObject(),
        BucketIAMMember(),
        BucketIAMBinding(),
        BucketAccessControl(),
        DefaultObjectAccessControl(),
        ObjectAccessControl(),
        ProjectIAMMember(),
        ProjectIAMBinding(),
        Account(),
        CloudRunService(),
        ServiceIamMember(),
        ServiceIamPolicy(),
        ProjectService(),
    )
}


# --------------------------------------------------------------------------- invokes


def get_project(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """`gcp:organizations/getProject:getProject`: the project's number, name and labels."""
    project = args.get("projectId") or ctx.project
    if not project:
        raise StandInError("getProject: no projectId given and gcp:project is not set")
    return {
        "id": f"projects/{project}",
        "projectId": project,
        "name": project,
        "number": project_number(project),
        "labels": {},
        "effectiveLabels": {},
        "pulumiLabels": {},
        "autoCreateNetwork": True,
        "deletionPolicy": "PREVENT",
        "billingAccount": "",
        "folderId": "",
        "orgId": "",
        "tags": {},
    }


INVOKES = {"gcp:organizations/getProject:getProject": get_project}
