"""The emulator's own routes, `/emulator/*`: what tests and the demo read to see inside it.

- `GET /emulator/jobs`: every job with its internal state (steps, reward invocations, errors).
- `GET /emulator/requests`: request counts per "METHOD path", every outgoing reward call with its
  body/attempt/status, and the faults injected.
- `GET /emulator/resources`: endpoints, models (one entry per version) and operations.

They are not Vertex routes: no fault is ever injected on them and they are not counted.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .responses import json_response
from .state import State


class Admin:
    """The `/emulator/` introspection routes (tests only)."""

    def __init__(self, state: State) -> None:
        self.state = state

    def routes(self) -> list[Route]:
        return [
            Route("/emulator/jobs", self.jobs, methods=["GET"]),
            Route("/emulator/requests", self.requests, methods=["GET"]),
            Route("/emulator/resources", self.resources, methods=["GET"]),
        ]

    async def jobs(self, _request: Request) -> Response:
        rp = self.state.report_progress
        return json_response({"jobs": [j.internal(rp) for j in self.state.store.jobs.values()]})

    async def requests(self, _request: Request) -> Response:
        return json_response(
            {
                "counts": dict(self.state.counts),
                "rewardCalls": self.state.reward_calls,
                "faultsInjected": dict(self.state.faults.injected),
            }
        )

    async def resources(self, _request: Request) -> Response:
        serving = self.state.serving
        serving.settle()
        return json_response(
            {
                "endpoints": [e.resource() for e in serving.endpoints.values()],
                "models": [
                    {**m.resource(v), "name": f"{m.name}@{v}"}
                    for m in serving.models.values()
                    for v in sorted(m.versions)
                ],
                "operations": list(serving.operations.values()),
            }
        )
