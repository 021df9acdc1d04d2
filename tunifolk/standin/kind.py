"""The stand-in's resource model: what every resource type shares (check, diff, the record's
lifecycle), the context each call gets, and the rules several types apply (IAM members and roles).

Property names are the engine's (camelCase, as pulumi-gcp's schema has them). Each type follows the
real provider where the program can tell: the same required fields and name rules, the same fields
forcing a replacement (Terraform's ForceNew), ids and computed outputs in Google's formats. Each
check answers instantly, where Google would answer an API call; so do the failures, prefixed
`gcp stand-in:` so nobody mistakes them for Google's. The types themselves are in `storage.py`,
`projects.py` and `run_service.py`; `resources.py` is the registry the server routes by.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tunifolk.agents import TUNING_AGENT_DOC
from tunifolk.emulator.responses import error_body
from tunifolk.job.names import local_project_number
from tunifolk.job.wire import UNKNOWN
from tunifolk.job.wire import contains_unknown as is_unknown
from tunifolk.project_state import (
    TUNE_AGENT_DOMAIN,
    ProjectState,
    disabled_message,
    disabled_metadata,
    missing_account_message,
)
from tunifolk.standin.store import Record, Store

ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
SIG_KEY = "4dabf18193072939515e22adb298388d"
DEFAULTS = "__defaults"
"""The checked-inputs key listing the properties the provider filled in (the bridge's convention)."""
PULUMI_LABELS = {"goog-pulumi-provisioned": "true"}
"""The label pulumi-gcp adds to every labelled resource (its `effectiveLabels`/`pulumiLabels`)."""
API_OF_FAMILY = {
    "storage": "storage.googleapis.com",
    "serviceaccount": "iam.googleapis.com",
    "cloudrunv2": "run.googleapis.com",
    "projects": "cloudresourcemanager.googleapis.com",
}
"""The API a resource type's calls go to, by the family of its token (`gcp:<family>/…`): a call while
that API is disabled is refused (tunifolk/project_state.py)."""


class StandInError(Exception):
    """A call that Google would refuse; the message is shown by the engine as the step's error."""


class Gone(Exception):
    """A record found to be gone while reading it."""


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
        self.project_state = ProjectState(self.state)

    def require_api(self, project: str | None, service: str | None) -> None:
        """Google's 403 SERVICE_DISABLED when `service` is off in `project` (a fresh local project)."""
        project = project or self.project
        if not service or not project or self.project_state.enabled(project, service):
            return
        number = local_project_number(project)
        message = disabled_message(service, number)
        body = error_body(
            403, message, "SERVICE_DISABLED", "googleapis.com", disabled_metadata(service, number)
        )
        details = json.dumps(body["error"]["details"], separators=(",", ":"))
        raise StandInError(f"googleapi: Error 403: {message} Details: {details}, forbidden")


def now() -> str:
    """RFC 3339 with microseconds and Z, as Google's APIs write timestamps."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def iam_etag() -> str:
    """An IAM policy etag: base64 of 8 bytes starting with the policy version, as Google's (`BwY…`)."""
    return base64.b64encode(b"\x07\x06" + secrets.token_bytes(6)).decode()


def missing(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


MEMBER_RE = re.compile(
    r"^(allUsers|allAuthenticatedUsers|projectOwner:.+|projectEditor:.+|projectViewer:.+|"
    r"(user|serviceAccount|group|domain|deleted:user|deleted:serviceAccount|deleted:group):[^\s:]+|"
    r"principal(Set)?://\S+)$"
)
ROLE_RE = re.compile(r"^(roles/[A-Za-z0-9_.]+|(projects|organizations)/[^/]+/roles/[A-Za-z0-9_.]+)$")
PROJECT_RE = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")


def iam_failures(inputs: dict[str, Any]) -> list[tuple[str, str]]:
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


def binding_failures(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """`iam_failures` for each member of a binding, reported under `members`."""
    members = inputs.get("members")
    out = iam_failures({"role": inputs.get("role")})
    for member in members if isinstance(members, list) else []:
        out += [("members", reason) for _, reason in iam_failures({"member": member})]
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
    api: str | None = None  # the API its calls go to; None: by its token's family (API_OF_FAMILY)

    def api_name(self) -> str | None:
        return self.api or API_OF_FAMILY.get(self.token.split(":")[1].split("/")[0])

    # ------------------------------------------------------------------ check

    def check(
        self, ctx: Context, name: str, olds: dict[str, Any], news: dict[str, Any], seed: bytes
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """Defaults as the real provider fills them (autonames, the provider's project), and failures."""
        inputs = dict(news)
        if self.autoname and missing(inputs.get(self.autoname)):
            if olds.get(self.autoname) and self.autoname in (olds.get(DEFAULTS) or []):
                inputs[self.autoname] = olds[self.autoname]  # an autoname is kept across updates
            else:
                digest = hashlib.sha256(seed or secrets.token_bytes(8)).hexdigest()[:7]
                inputs[self.autoname] = f"{name[: self.autoname_limit - 8]}-{digest}"
            inputs[DEFAULTS] = [self.autoname]
        if self.uses_project and missing(inputs.get("project")) and ctx.project:
            inputs["project"] = ctx.project
        failures = [
            (
                prop,
                f"Missing required argument. The argument {prop!r} is required, but no definition was found.",
            )
            for prop in self.required
            if missing(inputs.get(prop))
        ]
        if self.uses_project and missing(inputs.get("project")):
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
        self.refuse(ctx, inputs)
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

    def refuse(self, ctx: Context, inputs: dict[str, Any]) -> None:
        """What the project refuses before the call reaches the resource: a disabled API."""
        ctx.require_api(inputs.get("project"), self.api_name())

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        """Refuse a create Google would refuse (a missing parent); raise StandInError."""

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Side effects: files, processes."""

    def read(self, ctx: Context, id_: str, state: dict[str, Any] | None = None) -> Record | None:
        """The resource as Google holds it now, or None when gone. `state` is what the engine's state
        holds for it (its last outputs): only kinds that Google keeps no record of need it."""
        record = ctx.store.get(self.token, id_)
        if record is not None:
            self.on_read(ctx, record)
        return record

    def on_read(self, ctx: Context, record: Record) -> None:
        pass

    def update(self, ctx: Context, id_: str, news: dict[str, Any]) -> dict[str, Any]:
        self.refuse(ctx, news)
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

    def delete(self, ctx: Context, id_: str, state: dict[str, Any] | None = None) -> None:
        """Delete it; `state` is the engine's state for it (as for `read`)."""
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
    if missing(a) and missing(b):
        return True
    return a == b


class IamMemberKind(Kind):
    """One member of one role on a resource (project, bucket, Cloud Run service): the member checked
    as Google checks it, and an IAM policy etag among the outputs, as pulumi-gcp's IAM members have."""

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return iam_failures(inputs)

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        return {**super().outputs(ctx, inputs, preview), "etag": UNKNOWN if preview else iam_etag()}

    def refuse(self, ctx: Context, inputs: dict[str, Any]) -> None:
        """Also Google's 400 for a grant to a service agent that does not exist yet (a fresh project)."""
        super().refuse(ctx, inputs)
        for email in _service_accounts(inputs):
            if ProjectState.is_agent(email) and not ctx.project_state.agent_exists(email):
                said, hint = missing_account_message(email), _agent_hint(email)
                raise StandInError(f"googleapi: Error 400: {said}, badRequest ({hint})")


def _agent_hint(email: str) -> str:
    """The stand-in's hint after Google's 400: how the missing agent comes to exist. The tuning agent
    only with the project's first tuning job (tunifolk/agents.py); another agent once its API is used,
    or on request (generateServiceIdentity)."""
    if email.split("@", 1)[1].startswith(f"{TUNE_AGENT_DOMAIN}."):
        return (
            "Google creates the tuning agent with the project's first tuning job; "
            f"gcp.projects.ServiceIdentity makes only gcp-sa-aiplatform: see {TUNING_AGENT_DOC}"
        )
    return (
        "Google creates a service agent once its API is used, or on request: gcp.projects.ServiceIdentity, "
        "or gcloud beta services identity create --service=SERVICE"
    )


def _service_accounts(inputs: dict[str, Any]) -> list[str]:
    """The service-account emails an IAM resource grants to (`member`, `members`, `policyData`)."""
    members = [inputs.get("member"), *(inputs.get("members") or [])]
    try:
        policy = json.loads(inputs.get("policyData") or "{}")
        members += [m for b in policy.get("bindings", []) for m in b.get("members", [])]
    except (ValueError, TypeError, AttributeError):
        pass
    return [m.split(":", 1)[1] for m in members if isinstance(m, str) and m.startswith("serviceAccount:")]
