"""Routes of a job's metrics: its metadata context and the tensorboard that holds its series
(tensorboard, experiments, runs, time series, `:read` and `:batchRead`).

The store is `metrics.MetricsStore`, written by each job's lifecycle; these routes only read it,
with the service's page tokens and read limits (`limits`).
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .limits import MAX_BATCH_READ, MAX_READ_POINTS, MAX_SERIES_POINTS, PAGE_SIZE
from .metrics import Series
from .responses import LOCATION, ApiError, RouteSpec, json_response
from .state import State

TB = LOCATION + r"/tensorboards/(?P<tb>[^/:]+)"
RUN = TB + r"/experiments/(?P<e>[^/:]+)/runs/(?P<r>[^/:]+)"


def page(request: Request, items: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """One page of `items` under `key`, with the next page's token while more remain."""
    q = request.query_params
    default_size, max_size = PAGE_SIZE
    try:
        size = int(q.get("pageSize") or default_size)
        offset = int(base64.urlsafe_b64decode(q["pageToken"].encode()).decode()) if q.get("pageToken") else 0
    except ValueError:
        raise ApiError(400, "Invalid page_size or page_token.") from None
    size = min(max(size, 1), max_size)
    out: dict[str, Any] = {}
    if items[offset : offset + size]:
        out[key] = items[offset : offset + size]
    if offset + size < len(items):
        out["nextPageToken"] = base64.urlsafe_b64encode(str(offset + size).encode()).decode()
    return out


class Metadata:
    """The metadata context and the tensorboard resources of jobs' metrics."""

    def __init__(self, state: State) -> None:
        self.metrics = state.metrics

    def routes(self) -> list[RouteSpec]:
        return [
            ("GET", LOCATION + r"/metadataStores/default/contexts/(?P<c>[^/:]+)", self.get_context, True),
            ("GET", TB, self.get_tensorboard, True),
            ("GET", TB + r":batchRead", self.batch_read, True),
            ("GET", TB + r"/experiments", self.list_experiments, True),
            ("GET", TB + r"/experiments/(?P<e>[^/:]+)", self.get_experiment, True),
            ("GET", TB + r"/experiments/(?P<e>[^/:]+)/runs", self.list_runs, True),
            ("GET", RUN, self.get_run, True),
            ("GET", RUN + r"/timeSeries", self.list_series, True),
            ("GET", RUN + r"/timeSeries/(?P<ts>[^/:]+)", self.get_series, True),
            ("GET", RUN + r"/timeSeries/(?P<ts>[^/:]+):read", self.read_series, True),
        ]

    async def get_context(self, _request: Request, rest: str, **_: Any) -> Response:
        ctx = self.metrics.contexts.get(rest)
        if ctx is None:
            raise ApiError(404, f"Context {rest} not found.")
        return json_response(ctx)

    def _tensorboard(self, p: str, l: str, tb: str) -> str:  # noqa: E741
        name = f"projects/{p}/locations/{l}/tensorboards/{tb}"
        if name not in self.metrics.tensorboards:
            raise ApiError(404, f"Tensorboard {name} not found.")
        return name

    async def get_tensorboard(self, _request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        name = self._tensorboard(p, l, tb)
        body = dict(self.metrics.tensorboards[name])
        body["runCount"] = sum(1 for r in self.metrics.runs if r.startswith(name + "/"))
        return json_response(body)

    async def list_experiments(self, request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        items = self.metrics.experiments_of(self._tensorboard(p, l, tb))
        return json_response(page(request, items, "tensorboardExperiments"))

    async def get_experiment(self, _request: Request, rest: str, **_: Any) -> Response:
        exp = self.metrics.experiments.get(rest)
        if exp is None:
            raise ApiError(404, f"TensorboardExperiment {rest} not found.")
        return json_response(exp)

    async def list_runs(self, request: Request, rest: str, **_: Any) -> Response:
        exp = rest.removesuffix("/runs")
        if exp not in self.metrics.experiments:
            raise ApiError(404, f"TensorboardExperiment {exp} not found.")
        return json_response(page(request, self.metrics.runs_of(exp), "tensorboardRuns"))

    async def get_run(self, _request: Request, rest: str, **_: Any) -> Response:
        run = self.metrics.runs.get(rest)
        if run is None:
            raise ApiError(404, f"TensorboardRun {rest} not found.")
        return json_response(run)

    async def list_series(self, request: Request, rest: str, **_: Any) -> Response:
        run = rest.removesuffix("/timeSeries")
        if run not in self.metrics.runs:
            raise ApiError(404, f"TensorboardRun {run} not found.")
        items = [self.metrics.series[n].resource() for n in self.metrics.run_series.get(run, [])]
        return json_response(page(request, items, "tensorboardTimeSeries"))

    def _series(self, name: str) -> Series:
        s = self.metrics.series.get(name)
        if s is None:
            raise ApiError(404, f"TensorboardTimeSeries {name} not found.")
        return s

    async def get_series(self, _request: Request, rest: str, **_: Any) -> Response:
        return json_response(self._series(rest).resource())

    async def read_series(self, request: Request, rest: str, **_: Any) -> Response:
        s = self._series(rest.removesuffix(":read"))
        try:
            limit = int(request.query_params.get("maxDataPoints") or MAX_SERIES_POINTS)
        except ValueError:
            raise ApiError(400, "Invalid max_data_points.") from None
        if limit > MAX_READ_POINTS:
            raise ApiError(400, f"max_data_points must be at most {MAX_READ_POINTS}.")
        if limit == -1:  # the discovery document: -1 returns every point
            return json_response({"timeSeriesData": s.data(None)})
        return json_response({"timeSeriesData": s.data(max(1, limit))})

    async def batch_read(self, request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        name = self._tensorboard(p, l, tb)
        wanted = request.query_params.getlist("timeSeries")
        if not wanted:
            raise ApiError(400, "time_series must be specified.")
        if len(wanted) > MAX_BATCH_READ:
            raise ApiError(
                400,
                f"Too many time series to read: {len(wanted)}. "
                f"At most {MAX_BATCH_READ} are allowed per request.",
            )
        data = []
        for ts in wanted:
            if not ts.startswith(name + "/experiments/"):
                raise ApiError(400, f"TensorboardTimeSeries {ts} does not belong to Tensorboard {name}.")
            data.append(self._series(ts).data())
        return json_response({"timeSeriesData": data})
