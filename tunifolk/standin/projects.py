"""Project-level resources in the stand-in: project IAM members and bindings, service accounts,
enabled APIs and service identities (Service Usage), and the `getProject` and `getIamPolicy` invokes.
Which APIs are on and which service agents exist are project settings shared with the emulator
(tunifolk/project_state.py)."""

from __future__ import annotations

import json
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
    iam_etag,
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
    """An enabled API: a project setting, `<state>/apis/<project>/<service>`, not a resource of its own,
    so any number of stacks may each declare the same one. As in pulumi-gcp's provider
    (terraform-provider-google, `resource_google_project_service.go`, which pulumi-gcp bridges):
    create finds the API already on and only takes the id `<project>/<service>`, or asks Service Usage
    to enable it and waits until that has applied (in a fresh local project that takes the project's
    `enable_seconds`; elsewhere no time); read is "is it in the project's enabled services", so the
    resource exists while the API is on, whoever turned it on; update is state-only (the provider's
    update is a no-op); delete with `disableOnDestroy: false` only forgets it (the API stays on for
    the others), with true it disables the API for every stack (Service Usage's `services.disable`).
    The stand-in's record only keeps the inputs last given, for `tunifolk local` to list."""

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
        id_ = self.id_of(ctx, inputs)
        self.refuse(ctx, inputs)
        outputs = self.outputs(ctx, inputs, preview=False)
        with ctx.store.locked():  # another stack's record for the same API is the same setting
            ready = ctx.project_state.enable(inputs["project"], inputs["service"])
            ctx.store.put(Record(self.token, id_, inputs, outputs))
        time.sleep(max(0.0, ready - time.time()))  # outside the store's lock: enables run in parallel
        return id_, outputs

    def read(self, ctx: Context, id_: str, state: dict[str, Any] | None = None) -> Record | None:
        project, _, service = id_.partition("/")
        if not ctx.project_state.enabled(project, service):
            return None
        record = ctx.store.get(self.token, id_)
        if record is not None:
            return record
        held = {**(state or {}), "project": project, "service": service}
        return Record(self.token, id_, held, self.outputs(ctx, held, preview=False))

    def update(self, ctx: Context, id_: str, news: dict[str, Any]) -> dict[str, Any]:
        outputs = self.outputs(ctx, news, preview=False)
        with ctx.store.locked():
            ctx.store.put(Record(self.token, id_, news, outputs))
        return outputs

    def delete(self, ctx: Context, id_: str, state: dict[str, Any] | None = None) -> None:
        """This stack's own `disableOnDestroy` decides (its state; the shared record when none is given)."""
        project, _, service = id_.partition("/")
        with ctx.store.locked():
            record = ctx.store.get(self.token, id_)
            held = state or (record.inputs if record is not None else {})
            if held.get("disableOnDestroy", True):
                ctx.project_state.disable(project, service)
            ctx.store.delete(self.token, id_)


class ServiceIdentity(Kind):
    """`gcp.projects.ServiceIdentity`: Service Usage's `services.generateServiceIdentity` (v1beta1),
    which makes Google create a service's agents before the service is first used. Its outputs are the
    primary agent's `email` and `member`. As in pulumi-gcp's schema, it cannot be updated (every input
    forces a replacement) and delete is a no-op on Google's side: the agents stay, so the stand-in only
    forgets the record. It creates the primary agent only (`tunifolk.project_state.REQUESTED_AGENTS`:
    for aiplatform `gcp-sa-aiplatform`, never the tuning agent, which comes with the project's first
    tuning job: the hostile reading, docs/doctor.md), with no role on the project, as the IAM docs say
    of agents created on request. Refusing it while the service itself is disabled is UNCONFIRMED."""

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
        ctx.project_state.create_agents(project_number(inputs["project"]), inputs["service"], requested=True)

    def create(self, ctx: Context, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Another stack's identity for the same service is the same agents: asking again answers them
        again (that a repeated generateServiceIdentity succeeds is UNCONFIRMED; the provider treats it
        as a plain create)."""
        id_ = self.id_of(ctx, inputs)
        self.refuse(ctx, inputs)
        outputs = self.outputs(ctx, inputs, preview=False)
        with ctx.store.locked():
            self.after_create(ctx, inputs, outputs)
            ctx.store.put(Record(self.token, id_, inputs, outputs))
        return id_, outputs

    def read(self, ctx: Context, id_: str, state: dict[str, Any] | None = None) -> Record | None:
        """There is no read endpoint: the provider's read is a no-op, so it stays as the state holds it
        (terraform-provider-google, `resource_project_service_identity.go`)."""
        record = ctx.store.get(self.token, id_)
        if record is not None or not state:
            return record
        inputs = {k: v for k, v in state.items() if k not in ("email", "member")}
        return Record(self.token, id_, inputs, state)

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {k: outputs[k] for k in ("email", "member") if k in outputs}


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


def project_policy(ctx: Context, project: str) -> dict[str, Any]:
    """The project's allow policy as Google's `Policy` message (`{version, etag, bindings}`): the
    stand-in's project IAM members and bindings, and the roles Google granted the agents it created by
    use (`ProjectState.agent_roles`). Shared by the `getIamPolicy` invoke and the HTTP reads
    (tunifolk/standin/reads.py)."""
    roles: dict[str, list[str]] = {}
    for token in (ProjectIAMMember.token, ProjectIAMBinding.token):
        for record in ctx.store.all(token):
            held = record.inputs
            if held.get("project") != project or held.get("condition"):
                continue
            members = [held["member"]] if "member" in held else list(held.get("members") or [])
            roles.setdefault(str(held.get("role")), []).extend(m for m in members if isinstance(m, str))
    for role, members in ctx.project_state.agent_roles(project_number(project)).items():
        roles.setdefault(role, []).extend(members)
    bindings = [{"role": r, "members": sorted(set(m))} for r, m in sorted(roles.items()) if m]
    return {"version": 1, "etag": iam_etag(), "bindings": bindings}


def get_iam_policy(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """`gcp:projects/getIamPolicy:getIamPolicy`: Resource Manager's `projects.getIamPolicy`
    (https://cloud.google.com/resource-manager/reference/rest/v1/projects/getIamPolicy); pulumi-gcp
    answers the policy as JSON in `policyData`, with its `etag`. Refused while Resource Manager is off."""
    project = args.get("project") or ctx.project
    if not project:
        raise StandInError("getIamPolicy: no project given and gcp:project is not set")
    ctx.require_api(project, "cloudresourcemanager.googleapis.com")
    policy = project_policy(ctx, project)
    return {"id": project, "project": project, "etag": policy["etag"], "policyData": json.dumps(policy)}
