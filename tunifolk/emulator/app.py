"""The emulator's HTTP app: the route families composed over one shared state.

Each family of the Vertex `v1beta1` subset (docs/vertex.md) is a module of its own: tuning jobs
(`api_tuning`), reward validation and the judge probe (`api_rewards`), endpoints, models and
operations (`api_serving`), the metadata context and tensorboard (`api_metadata`); `/emulator/*`
is `admin`. They share one `state.State`. This module only puts them together and dispatches.

One catch-all route dispatches on regular expressions over the resource path, because Google's
custom methods (`tuningJobs:validateReinforcementTuningReward`, `{job}:cancel`,
`{tensorboard}:batchRead`) do not fit a router's path segments. A path that matches nothing gets
Google's HTML 404 page (that is what the location-level validate path returns); a known path with
the wrong method gets the JSON 404 "Method not found." (that is what DELETE on a tuning job gets).
Injected faults (`faults`) land here, before any route runs, and never on `/healthz` or
`/emulator/`. Before all of it, `guard.RequestGuard` refuses a foreign `Host` or `Origin` and a body
that is not JSON, on every path.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from tunifolk.job.names import by_local_number, project_of
from tunifolk.project_state import ProjectState

from .admin import Admin
from .api_metadata import Metadata
from .api_rewards import RewardValidation
from .api_serving import ServingRoutes
from .api_tuning import TuningJobs
from .guard import RequestGuard
from .responses import (
    HTML_404,
    HTML_502,
    ApiError,
    Handler,
    error_response,
    html_response,
    json_response,
    service_disabled,
)
from .serving import ServingSettings
from .state import Options, State

__all__ = ["Emulator", "Options", "ServingSettings"]

API = "aiplatform.googleapis.com"
"""The API every route of the emulator belongs to: a fresh project (`--project-dir`) refuses them
all with Google's 403 SERVICE_DISABLED until it is enabled (tunifolk/project_state.py)."""


class Emulator:
    """One emulator process: the shared state, and the routes of every family over it."""

    def __init__(self, options: Options, project_dir: Path | None = None) -> None:
        self.options = options
        self.project = ProjectState(project_dir) if project_dir else None
        self.state = State(options)
        faults = options.faults
        self._fault_active = any((faults.rate_503, faults.rate_429, faults.rate_html, faults.latency_ms))
        families = (TuningJobs, RewardValidation, ServingRoutes, Metadata)
        self.routes: list[tuple[str, re.Pattern[str], Handler, bool]] = [
            (method, re.compile(pattern + "$"), handler, v1)
            for family in families
            for method, pattern, handler, v1 in family(self.state).routes()
        ]
        self.admin = Admin(self.state)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        await self.state.start()
        try:
            yield
        finally:
            await self.state.stop()

    def app(self, google: Sequence[BaseRoute] = ()) -> Starlette:
        """The Vertex routes, with `google` (other Google services' routes: tunifolk/localcloud.py puts
        the stand-ins' there) before the catch-all one."""
        methods = ["GET", "POST", "DELETE", "PATCH", "PUT"]
        return Starlette(
            routes=[
                Route("/healthz", self.healthz, methods=["GET"]),
                *self.admin.routes(),
                *google,
                Route("/{version}/{rest:path}", self.api, methods=methods),
            ],
            middleware=[Middleware(RequestGuard)],
            lifespan=self.lifespan,
        )

    async def vertex_route(self, request: Request) -> Response:
        """A `/v1/…` call a Cloud Build route matched but does not own (a Vertex operation)."""
        request.scope["path_params"] = {"version": "v1", "rest": request.url.path.removeprefix("/v1/")}
        return await self.api(request)

    async def healthz(self, _request: Request) -> Response:
        return json_response({"status": "ok"})

    async def api(self, request: Request) -> Response:
        path = request.url.path
        self.state.counts[f"{request.method} {path}"] += 1
        self.state.serving.settle()  # long-running operations whose time has come finish first
        version = request.path_params["version"]
        # Google takes a project's ID or its number in a path and names everything with the number
        # (UNCONFIRMED for every method; seen in the names Vertex returns, docs/local-stack.md).
        rest = by_local_number(request.path_params["rest"])
        if self._fault_active:
            fault = await self._fault()
            if fault is not None:
                return fault
        if version not in ("v1beta1", "v1"):
            return html_response(HTML_404.format(path=path), 404)
        number = project_of(rest)
        if self.project is not None and number and not self.project.serving(number, API):
            return service_disabled(API, number)
        matched_path = False
        for method, rx, handler, v1_ok in self.routes:
            m = rx.match(rest)
            if not m or (version == "v1" and not v1_ok):
                continue
            matched_path = True
            if method != request.method:
                continue
            try:
                response = await handler(request, rest=rest, v1=version == "v1", **m.groupdict())
            except ApiError as e:
                return error_response(e)
            used = method == "POST" and rest.endswith("/tuningJobs") and response.status_code == 200
            if self.project is not None and number and used:  # agents appear once the API is used
                self.project.create_agents(number, API)  # (UNCONFIRMED that a job's create is when)
            return response
        if matched_path:
            return error_response(ApiError(404, "Method not found."))
        return html_response(HTML_404.format(path=path), 404)

    async def _fault(self) -> Response | None:
        """The injected fault's answer to this request (after its latency), or None to serve it."""
        d = self.state.faults.draw()
        if d.latency_s:
            await asyncio.sleep(d.latency_s)
        if d.html:
            return html_response(HTML_502, 502)
        if d.status == 503:
            return error_response(ApiError(503, "The service is currently unavailable."))
        if d.status == 429:
            after = self.options.faults.retry_after
            # A per-minute quota: ErrorInfo RATE_LIMIT_EXCEEDED, metadata as googleapis.com quota errors
            # carry them (https://cloud.google.com/apis/design/errors; the metric name UNCONFIRMED).
            metric = "aiplatform.googleapis.com/generate_content_requests_per_minute"
            return error_response(
                ApiError(
                    429,
                    f"Quota exceeded for {metric}.",
                    headers={"Retry-After": f"{after:g}"},
                    reason="RATE_LIMIT_EXCEEDED",
                    metadata={"service": "aiplatform.googleapis.com", "quota_metric": metric},
                )
            )
        return None
