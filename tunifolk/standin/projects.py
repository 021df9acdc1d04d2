"""Project-level resources in the stand-in: project IAM members and bindings, service accounts,
enabled APIs and service identities (Service Usage), and the `getProject` invoke. Which APIs are on
and which service agents exist are project settings shared with the emulator (tunifolk/project_state.py)."""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from tunifolk.job.names import local_project_number as project_number
from tunifolk.job.wire import UNKNOWN
from tunifolk.job.wire import contains_unknown as is_unknown
from tunifolk.project_state import primary_agent
from tunifolk.standin.kind import (
    Context,
    IamMemberKind,
    Kind,
    StandInError,
    binding_failures,
)
from tunifolk.standin.store import Record

# --------------------------------------------------------------------------- project IAM


class ProjectIAMMember(IamMemberKind):
    """One member of one role on the project. `project` is required, as in pulumi-gcp (no default)."""

    token = "gcp:projects/iAMMember:IAMMember"
    required = ("project", "role", "member")
    force_new = ("project", "role", "member", "condition")
    uses_project = False

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{inputs['project']}/{inputs['role']}/{inputs['member']}"


class ProjectIAMBinding(ProjectIAMMember):
    """Every member of one role on the project (authoritative for that role)."""

    token = "gcp:projects/iAMBinding:IAMBinding"
    required = ("project", "role", "members")
    force_new = ("project", "role", "condition")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return binding_failures(inputs)

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


# --------------------------------------------------------------------------- Service Usage


class ProjectService(Kind):
    """An enabled API. Create asks Service Usage to enable it and waits until that has applied, as
    pulumi-gcp waits for the enable operation (in a fresh local project that takes the project's
    `enable_seconds`; elsewhere no time). With `disableOnDestroy: false` delete only forgets it (the API
    stays on), as the real provider does (pulumi-gcp schema, `disableOnDestroy`): an enabled API is a
    project setting, `<state>/apis/<project>/<service>`, not a resource."""

    token = "gcp:projects/service:Service"
    required = ("service",)
    force_new = ("service", "project")
    api = "serviceusage.googleapis.com"  # on in every project

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

    def create(self, ctx: Context, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        id_, outputs = super().create(ctx, inputs)
        ready = ctx.project_state.enable(inputs["project"], inputs["service"])
        time.sleep(max(0.0, ready - time.time()))  # outside the store's lock: enables run in parallel
        return id_, outputs

    def exists_message(self, id_: str) -> str:
        return f"{id_} is already managed by another resource in this stand-in"

    def before_delete(self, ctx: Context, record: Record) -> None:
        if record.inputs.get("disableOnDestroy", True):
            ctx.project_state.disable(record.inputs["project"], record.inputs["service"])


class ServiceIdentity(Kind):
    """`gcp.projects.ServiceIdentity`: Service Usage's `services.generateServiceIdentity` (v1beta1),
    which makes Google create a service's agents before the service is first used. Its outputs are the
    primary agent's `email` and `member`. As in pulumi-gcp's schema, it cannot be updated (every input
    forces a replacement) and delete is a no-op on Google's side: the agents stay, so the stand-in only
    forgets the record. Which agents it creates: `tunifolk.project_state.AGENTS` (the tuning agent among
    them is UNCONFIRMED). Refusing it while the service itself is disabled is UNCONFIRMED too."""

    token = "gcp:projects/serviceIdentity:ServiceIdentity"
    required = ("service",)
    force_new = ("service", "project")
    api = "serviceusage.googleapis.com"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/services/{inputs['service']}"

    def refuse(self, ctx: Context, inputs: dict[str, Any]) -> None:
        super().refuse(ctx, inputs)
        ctx.require_api(inputs.get("project"), inputs.get("service"))

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        out = super().outputs(ctx, inputs, preview)
        if preview or is_unknown(inputs.get("project")) or is_unknown(inputs.get("service")):
            return {**out, "email": UNKNOWN, "member": UNKNOWN}
        email = primary_agent(project_number(inputs["project"]), inputs["service"])
        return {**out, "email": email, "member": f"serviceAccount:{email}"}

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        ctx.project_state.create_agents(project_number(inputs["project"]), inputs["service"])

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {k: outputs[k] for k in ("email", "member") if k in outputs}

    def exists_message(self, id_: str) -> str:
        return f"{id_} is already managed by another resource in this stand-in"


# --------------------------------------------------------------------------- invokes


def get_project(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """`gcp:organizations/getProject:getProject`: the project's number, name and labels."""
    project = args.get("projectId") or ctx.project
    if not project:
        raise StandInError("getProject: no projectId given and gcp:project is not set")
    ctx.require_api(project, "cloudresourcemanager.googleapis.com")  # projects.get is Resource Manager's
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
