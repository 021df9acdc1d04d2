"""Read-only Google Cloud calls the stand-in answers over HTTP, for `tunifolk doctor`.

The Vertex emulator serves these routes beside its own (as it serves BigQuery's and Cloud Build's), so
one local base URL (`TUNIFOLK_VERTEX_ENDPOINT`) answers every call doctor makes, path unchanged; on
Google each goes to its own host. Every answer is built from what the gcp stand-in and the emulator
share on disk: the project's settings (tunifolk/project_state.py: enabled APIs, service agents,
organisation policies) and the stand-in's records (Cloud Run services and their IAM grants, project
IAM members). Nothing here changes anything.

- `GET /v1/projects/{p}/services/{s}`, Service Usage `services.get`:
  https://cloud.google.com/service-usage/docs/reference/rest/v1/services/get
- `GET /v1/projects/{p}/services?filter=state:ENABLED`, Service Usage `services.list`:
  https://cloud.google.com/service-usage/docs/reference/rest/v1/services/list
- `GET /v1/projects/{p}`, Resource Manager v1 `projects.get`:
  https://cloud.google.com/resource-manager/reference/rest/v1/projects/get
- `POST /v1/projects/{p}:getIamPolicy`, Resource Manager v1 `projects.getIamPolicy` (a POST that reads):
  https://cloud.google.com/resource-manager/reference/rest/v1/projects/getIamPolicy
- `GET /v2/projects/{p}/locations/{l}/services`, Cloud Run v2 `services.list`:
  https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.services/list
- `GET /v2/projects/{p}/locations/{l}/services/{s}`, Cloud Run v2 `services.get`:
  https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.services/get
- `GET /v2/projects/{p}/locations/{l}/services/{s}:getIamPolicy`, Cloud Run v2 `services.getIamPolicy`:
  https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.services/getIamPolicy
- `GET /v2/projects/{p}/policies/{c}:getEffectivePolicy`, Org Policy v2 `getEffectivePolicy`:
  https://cloud.google.com/resource-manager/docs/reference/orgpolicy/rest/v2/projects.policies/getEffectivePolicy

Each call is refused with Google's 403 SERVICE_DISABLED while its API is off in the project (a fresh
local project: Service Usage is on, the others off until enabled). Shapes carry the fields doctor
reads and the ones that identify a resource; what else Google adds is left out. An unset organisation
policy answers an empty `spec` (UNCONFIRMED: Google may answer the constraint's default rules).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tunifolk import standin
from tunifolk.emulator.responses import ApiError, error_response, json_response, service_disabled
from tunifolk.job.names import local_project_number
from tunifolk.project_state import TITLES, ProjectState
from tunifolk.standin import front
from tunifolk.standin.kind import Context, iam_etag
from tunifolk.standin.projects import project_policy
from tunifolk.standin.run_service import CloudRunService

SERVICE_USAGE = "serviceusage.googleapis.com"
RESOURCE_MANAGER = "cloudresourcemanager.googleapis.com"
RUN = "run.googleapis.com"
ORG_POLICY = "orgpolicy.googleapis.com"


def _number(project: str) -> str:
    return project if project.isdigit() else local_project_number(project)


def _service(project: str, service: str, enabled: bool) -> dict[str, Any]:
    """A Service Usage `Service`: `projects/NUMBER/services/S`, its parent, config and state."""
    number = _number(project)
    return {
        "name": f"projects/{number}/services/{service}",
        "parent": f"projects/{number}",
        "config": {"name": service, "title": TITLES.get(service, service)},
        "state": "ENABLED" if enabled else "DISABLED",
    }


def _run_service(record: Any) -> dict[str, Any]:
    """A Cloud Run v2 `Service`: its full name, uri and the fields of its access."""
    inputs, outputs = record.inputs, record.outputs
    return {
        "name": record.id,
        "uri": outputs.get("uri", ""),
        "ingress": inputs.get("ingress", "INGRESS_TRAFFIC_ALL"),
        "invokerIamDisabled": bool(inputs.get("invokerIamDisabled", False)),
        "labels": inputs.get("labels") or {},
    }


class Reads:
    """The read handlers over one stand-in directory (`state`: its records and project settings)."""

    def __init__(self, state: Path) -> None:
        self.ctx = Context(project=None, region=None, state=state, gcs=standin.gcs_dir())

    @property
    def project(self) -> ProjectState:
        return self.ctx.project_state

    def _off(self, project: str, api: str) -> Response | None:
        """Google's SERVICE_DISABLED while `api` is off in `project`, else None."""
        return None if self.project.enabled(project, api) else service_disabled(api, _number(project))

    def _run_records(self, project: str, location: str) -> list[Any]:
        number = _number(project)
        return [
            r
            for r in self.ctx.store.all(CloudRunService.token)
            if _number(str(r.inputs.get("project", ""))) == number and r.inputs.get("location") == location
        ]

    def _run_record(self, project: str, location: str, name: str) -> Any:
        found = [r for r in self._run_records(project, location) if r.id.rsplit("/", 1)[-1] == name]
        if not found:
            raise ApiError(
                404, f"Resource 'projects/{project}/locations/{location}/services/{name}' was not found"
            )
        return found[0]

    # ------------------------------------------------------------------ Service Usage

    async def service_get(self, request: Request) -> Response:
        p = request.path_params
        if refused := self._off(p["project"], SERVICE_USAGE):
            return refused
        return json_response(
            _service(p["project"], p["service"], self.project.enabled(p["project"], p["service"]))
        )

    async def service_list(self, request: Request) -> Response:
        project = request.path_params["project"]
        if refused := self._off(project, SERVICE_USAGE):
            return refused
        wanted = request.query_params.get("filter", "")
        if wanted not in ("", "state:ENABLED"):
            return error_response(
                ApiError(400, f"the stand-in filters services by state:ENABLED only, not {wanted!r}")
            )
        names = set(TITLES) | {
            p.name
            for folder in (self.project.root / "apis").glob("*")
            if folder.is_dir()
            for p in folder.iterdir()
        }
        services = [_service(project, s, self.project.enabled(project, s)) for s in sorted(names)]
        if wanted:
            services = [s for s in services if s["state"] == "ENABLED"]
        return json_response({"services": services})

    # ------------------------------------------------------------------ Resource Manager

    async def project_get(self, request: Request) -> Response:
        project = request.path_params["project"]
        if refused := self._off(project, RESOURCE_MANAGER):
            return refused
        return json_response(
            {
                "projectNumber": _number(project),
                "projectId": project,
                "lifecycleState": "ACTIVE",
                "name": project,
            }
        )

    async def project_policy(self, request: Request) -> Response:
        project = request.path_params["project"]
        if refused := self._off(project, RESOURCE_MANAGER):
            return refused
        return json_response(project_policy(self.ctx, project))

    # ------------------------------------------------------------------ Cloud Run

    async def run_list(self, request: Request) -> Response:
        p = request.path_params
        if refused := self._off(p["project"], RUN):
            return refused
        found = [_run_service(r) for r in self._run_records(p["project"], p["location"])]
        return json_response({"services": found} if found else {})

    async def run_get(self, request: Request) -> Response:
        p = request.path_params
        if refused := self._off(p["project"], RUN):
            return refused
        try:
            return json_response(_run_service(self._run_record(p["project"], p["location"], p["service"])))
        except ApiError as exc:
            return error_response(exc)

    async def run_policy(self, request: Request) -> Response:
        """The service's policy as set: grants still propagating count (getIamPolicy shows what was set;
        when a grant takes effect is a separate delay, modelled by the front end, front.py)."""
        p = request.path_params
        if refused := self._off(p["project"], RUN):
            return refused
        try:
            record = self._run_record(p["project"], p["location"], p["service"])
        except ApiError as exc:
            return error_response(exc)
        live, pending = front.invokers(self.ctx.state, record.id, time.time())
        members = sorted(live | pending)
        bindings = [{"role": front.INVOKER_ROLE, "members": members}] if members else []
        return json_response({"version": 1, "etag": iam_etag(), "bindings": bindings})

    # ------------------------------------------------------------------ Organization Policy

    async def effective_policy(self, request: Request) -> Response:
        p = request.path_params
        if refused := self._off(p["project"], ORG_POLICY):
            return refused
        spec = self.project.org_policy(p["project"], p["constraint"]) or {}
        name = f"projects/{_number(p['project'])}/policies/{p['constraint']}"
        return json_response({"name": name, "spec": spec})


def routes(state: Path | None = None) -> list[Route]:
    """The read routes over the stand-in directory `state` (default: `tunifolk.standin.state_dir()`, the
    emulator's `--project-dir` when it has one). Put them before the emulator's catch-all route."""
    reads = Reads(state or standin.state_dir())
    get = ["GET"]
    return [
        Route("/v1/projects/{project}/services/{service}", reads.service_get, methods=get),
        Route("/v1/projects/{project}/services", reads.service_list, methods=get),
        Route("/v1/projects/{project}:getIamPolicy", reads.project_policy, methods=["POST"]),
        Route("/v1/projects/{project}", reads.project_get, methods=get),
        Route(
            "/v2/projects/{project}/locations/{location}/services/{service}:getIamPolicy",
            reads.run_policy,
            methods=get,
        ),
        Route("/v2/projects/{project}/locations/{location}/services/{service}", reads.run_get, methods=get),
        Route("/v2/projects/{project}/locations/{location}/services", reads.run_list, methods=get),
        Route(
            "/v2/projects/{project}/policies/{constraint}:getEffectivePolicy",
            reads.effective_policy,
            methods=get,
        ),
    ]
