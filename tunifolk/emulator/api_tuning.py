"""Routes of the tuning jobs: create, list, get and cancel (`…/tuningJobs`).

The create-time rules are `checks.tuning_job`; the job's run is the job store's (`jobs`,
`lifecycle`). `v1` serves these routes too, and loses the RLFT fields as the service does.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from . import checks, code_execution
from .jobs import Job
from .limits import CONCURRENT_TUNING_JOBS_METRIC, JOB_PAGE_SIZE, TERMINAL_STATES
from .responses import LOCATION, ApiError, RouteSpec, json_response, read_body
from .state import State

LABEL_TERM = re.compile(r'^labels\.([A-Za-z0-9_-]+)\s*=\s*(?:"([^"]*)"|([^\s"]+))$')
STATE_TERM = re.compile(r'^state\s*=\s*"?(JOB_STATE_[A-Z_]+)"?$')
JOB = LOCATION + r"/tuningJobs/(?P<id>[^/:]+)"


class TuningJobs:
    """tuningJobs.create, list, get and cancel."""

    def __init__(self, state: State) -> None:
        self.state = state

    def routes(self) -> list[RouteSpec]:
        return [
            ("POST", LOCATION + r"/tuningJobs", self.create, True),
            ("GET", LOCATION + r"/tuningJobs", self.list, True),
            ("GET", JOB, self.get, True),
            ("POST", JOB + r":cancel", self.cancel, True),
        ]

    def _job(self, p: str, l: str, job_id: str) -> Job:  # noqa: E741
        job = self.state.store.jobs.get(job_id)
        if job is None or job.project != p or job.location != l:
            raise ApiError(
                404, f"The TuningJob projects/{p}/locations/{l}/tuningJobs/{job_id} does not exist."
            )
        return job

    async def create(self, request: Request, p: str, l: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        body = await read_body(request)
        try:
            body, rewards = checks.tuning_job(body, l, v1)
        except checks.BodyError as e:
            raise ApiError(400, str(e)) from None
        code_execution.refuse_unless_allowed(rewards, self.state.options.rewards.allow_code_execution)
        self._within_quota(p)
        fault = self.state.faults.take_create_fault()
        if fault == "before":
            raise ApiError(503, "The service is currently unavailable.")
        job = self.state.store.create(p, l, body, rewards)
        if fault == "after":
            raise ApiError(503, "The service is currently unavailable.")
        return json_response(job.public(self.state.report_progress, v1))

    def _within_quota(self, project: str) -> None:
        """429 RESOURCE_EXHAUSTED when the project already runs its quota of jobs (limits.py). The
        status is google.rpc's for a used-up quota (google/rpc/code.proto: "Some resource has been
        exhausted, perhaps a per-user quota"); the ErrorInfo reason RESOURCE_QUOTA_EXCEEDED and its
        metadata follow google/api/error_reason.proto; Vertex's exact wording is UNCONFIRMED."""
        limit = self.state.options.jobs.concurrent_jobs
        if not limit or len(self.state.store.live(project)) < limit:
            return
        raise ApiError(
            429,
            f"Quota exceeded for quota metric '{CONCURRENT_TUNING_JOBS_METRIC}' and limit "
            f"'concurrent tuning jobs' of service 'aiplatform.googleapis.com' for consumer "
            f"'project_number:{project}': {limit} tuning job(s) already running.",
            reason="RESOURCE_QUOTA_EXCEEDED",
            metadata={
                "service": "aiplatform.googleapis.com",
                "consumer": f"projects/{project}",
                "quota_metric": CONCURRENT_TUNING_JOBS_METRIC,
                "quota_limit_value": str(limit),
            },
        )

    async def list(self, request: Request, p: str, l: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        q = request.query_params
        wanted_labels, wanted_state = self._filter(q.get("filter", "").strip())
        default_size, max_size = JOB_PAGE_SIZE
        try:
            size = int(q.get("pageSize") or default_size)
        except ValueError:
            raise ApiError(400, "Invalid page_size.") from None
        size = min(max(size, 1) if size > 0 else default_size, max_size)
        offset = 0
        if token := q.get("pageToken"):
            try:
                offset = int(base64.urlsafe_b64decode(token.encode()).decode().removeprefix("offset:"))
            except ValueError:
                raise ApiError(400, "Invalid page_token.") from None
        jobs = [
            j
            for j in reversed(list(self.state.store.jobs.values()))
            if j.project == p
            and j.location == l
            and all((j.body.get("labels") or {}).get(k) == v for k, v in wanted_labels.items())
            and (wanted_state is None or j.state == wanted_state)
        ]
        page = jobs[offset : offset + size]
        out: dict[str, Any] = {}
        if page:
            out["tuningJobs"] = [j.public(self.state.report_progress, v1) for j in page]
        if offset + size < len(jobs):
            out["nextPageToken"] = base64.urlsafe_b64encode(f"offset:{offset + size}".encode()).decode()
        return json_response(out)

    def _filter(self, flt: str) -> tuple[dict[str, str], str | None]:
        """The label terms and the state term of a list `filter` (terms joined by AND)."""
        wanted_labels: dict[str, str] = {}
        wanted_state = None
        if not flt:
            return wanted_labels, wanted_state
        for term in re.split(r"\s+AND\s+", flt):
            term = term.strip()
            if m := LABEL_TERM.match(term):
                if self.state.options.jobs.loose_list_filter:
                    continue  # a lax server: the label terms are accepted and ignored
                wanted_labels[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
            elif m := STATE_TERM.match(term):
                wanted_state = m.group(1)
            else:
                raise ApiError(400, f"Unsupported filter: {term!r}.")
        return wanted_labels, wanted_state

    async def get(self, _request: Request, p: str, l: str, id: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        return json_response(self._job(p, l, id).public(self.state.report_progress, v1))

    async def cancel(self, _request: Request, p: str, l: str, id: str, **_: Any) -> Response:  # noqa: E741
        job = self._job(p, l, id)
        if job.state in TERMINAL_STATES:
            raise ApiError(
                400,
                f"Cannot cancel tuning job {job.name} in state {job.state}.",
                status="FAILED_PRECONDITION",
            )
        self.state.store.cancel(job)
        return json_response({})
