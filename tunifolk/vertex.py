"""The Vertex AI v1beta1 client that every part of tunifolk talks through.

Why a hand-written client rather than an SDK: RLFT exists only in `v1beta1` (`v1` silently drops the
fields), the reward validation call and the metrics chain are not in the generated clients, and the
provider needs precise control over which calls may be retried. The client is small on purpose:

* **Hosts** come from the location inside the resource name, and **`TUNIFOLK_VERTEX_ENDPOINT`** sends
  every call to one base URL (the emulator): both resolved in `tunifolk/vertex_hosts.py`, whose names
  callers may import from here (`ENDPOINT_ENV`, `location_of`, `serving_host`, `console_url`).
* **Credentials** are Application Default Credentials, fetched lazily by each client, and sent to
  `https://*.googleapis.com` only (`carries_credentials`): never to the override, never anywhere else.
  A client is built inside each provider method and refuses to be pickled, so nothing that reaches
  Pulumi state can hold a token.
* **Names** are checked segment by segment (`tunifolk.job.names`) and quoted before they become a
  path: a name that is not a Vertex resource name fails with one line before any request.
* **Retries** (tenacity) cover 429/500/502/503/504 and connection errors, honour `Retry-After`, and are
  bounded in attempts and seconds; a 429 whose `google.rpc.ErrorInfo` reason is a used-up resource
  quota (`RESOURCE_QUOTA_EXCEEDED`, `tunifolk.errors.REASONS`) is not retried — for idempotent calls
  only. Creating a tuning job is never retried:
  the caller recovers an ambiguous create by listing jobs with its spec label (docs/vertex.md).
* **Errors** are the project's (`tunifolk/errors.py`): `VertexError` carries status, Google's
  status string and message, the ErrorInfo's reason, domain and metadata, method and path (an HTML
  error page becomes one readable line); a host that never
  answers is an `UnreachableError`, missing credentials a `CredentialsError` naming the fix.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import tenacity

from tunifolk.errors import ConfigError, CredentialsError, ResourceNameError, UnreachableError, VertexError
from tunifolk.invoker import reward_call_ceiling, time_scale
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.vertex_errors import (
    ERROR_INFO,
    RPC_CODES,
    error_from_response,
    error_info,
    one_line,
    operation_error,
)
from tunifolk.vertex_hosts import (
    ENDPOINT_ENV,
    carries_credentials,
    checked_endpoint,
    checked_name,
    console_url,
    endpoint_override,
    host_for,
    is_loopback,
    location_of,
    serving_host,
    url_path,
)

__all__ = [
    "ENDPOINT_ENV",
    "ERROR_INFO",
    "RPC_CODES",
    "TERMINAL_STATES",
    "RetryPolicy",
    "VertexClient",
    "VertexError",
    "console_url",
    "error_from_response",
    "error_info",
    "location_of",
    "one_line",
    "operation_error",
    "serving_host",
]

API_VERSION = "v1beta1"
SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
BATCH_READ_LIMIT = 20  # the service's limit of time series per batchRead call
LIST_PAGE_SIZE = 1000  # the largest page the tensorboard listings allow: fewest calls


# --------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds for retrying idempotent calls: attempts, total seconds, and the backoff curve."""

    attempts: int = 8
    max_seconds: float = 120.0
    initial: float = 0.5
    maximum: float = 16.0
    retry_after_cap: float = 60.0


class _Unreachable(Exception):
    """A connection that failed; retried, and turned into an UnreachableError if it stays so."""

    def __init__(self, url: str, cause: Exception) -> None:
        parts = urlsplit(url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.cause = cause
        super().__init__(f"cannot connect to {self.base}")


def _refused(exc: BaseException) -> bool:
    """True when the connection was refused (nothing listens), as opposed to dropped or slow."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        item = todo.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, ConnectionRefusedError):
            return True
        todo += [item.__cause__, item.__context__, getattr(item, "reason", None), *item.args]
    return False


def _cause(exc: BaseException) -> str:
    """The innermost reason of a transport failure, short: `ConnectionRefusedError`, not a pool dump."""
    if _refused(exc):
        return "connection refused"
    seen: BaseException = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return type(seen).__name__


def _retryable(exc: BaseException) -> bool:
    """Transient failures: a 429/5xx, unless its ErrorInfo reason says waiting will not help (a used-up
    resource quota such as concurrent tuning jobs: RESOURCE_QUOTA_EXCEEDED), and dropped connections."""
    if isinstance(exc, VertexError):
        known = exc.known_reason
        if known is not None and exc.status in RETRYABLE_STATUSES:
            return known.retry
        return exc.status in RETRYABLE_STATUSES
    return isinstance(exc, _Unreachable)


class _Wait(tenacity.wait.wait_base):
    """Exponential backoff with full jitter, replaced by Retry-After when the server sends one."""

    def __init__(self, policy: RetryPolicy, rng: random.Random) -> None:
        self.policy = policy
        self.rng = rng

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(exc, VertexError) and exc.retry_after is not None:
            return min(exc.retry_after, self.policy.retry_after_cap)
        ceiling = min(self.policy.maximum, self.policy.initial * 2 ** (retry_state.attempt_number - 1))
        return self.rng.uniform(0, ceiling)


# --------------------------------------------------------------------------- the client


class VertexClient:
    """A Vertex v1beta1 REST client. Build one per operation; it must never be pickled.

    `endpoint` overrides every host (defaults to `TUNIFOLK_VERTEX_ENDPOINT`; loopback http only, as
    `checked_endpoint` says); `credentials` is any google-auth credentials object (defaults to ADC,
    fetched on first use, and only for Google's https hosts).
    `on_retry` is called with a one-line message before each retry, so long waits say what they do.
    """

    def __init__(
        self,
        *,
        endpoint: str | None = None,
        credentials: Any = None,
        retry: RetryPolicy | None = None,
        timeout: float = 60.0,
        on_retry: Callable[[str], None] | None = None,
        user_agent: str = "tunifolk/0.1",
    ) -> None:
        self.endpoint = checked_endpoint(endpoint, "endpoint") if endpoint else endpoint_override()
        self._credentials = credentials
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self.on_retry = on_retry
        self._session = requests.Session()
        self._session.headers["User-Agent"] = user_agent
        self._rng = random.Random()
        self.calls = 0  # HTTP requests actually sent, retries included (the CLI reports it)
        # The local stack runs Google's delays faster by one factor (tunifolk.invoker); Google's own
        # hosts never are.
        self.time_scale = time_scale() if self.endpoint else 1.0

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("VertexClient holds a session and credentials: build one per call, never pickle it")

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> VertexClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def url(self, name: str, suffix: str = "") -> str:
        """The full URL for a resource name (its location picks the host) plus a `:verb` or `/sub`.
        The name is checked segment by segment and quoted first (`url_path`): a bad one raises
        ResourceNameError here, before anything is sent."""
        path = url_path(name)
        base = self.endpoint or f"https://{host_for(location_of(name))}"
        return f"{base}/{API_VERSION}/{path}{suffix}"

    def _auth_headers(self, url: str) -> dict[str, str]:
        """The bearer token for Google's own hosts, and nothing for any other URL."""
        if not carries_credentials(url):
            return {}
        import google.auth  # imported here: only real Google calls need it
        import google.auth.exceptions
        import google.auth.transport.requests

        try:
            if self._credentials is None:
                self._credentials, _ = google.auth.default(scopes=list(SCOPES))
            if not getattr(self._credentials, "valid", False):
                self._credentials.refresh(google.auth.transport.requests.Request())
        except google.auth.exceptions.DefaultCredentialsError:
            raise CredentialsError() from None
        except google.auth.exceptions.RefreshError as exc:
            raise CredentialsError(f"refreshing them failed: {exc}") from None
        except google.auth.exceptions.TransportError as exc:
            # The token endpoint did not answer (no network, a proxy, a wrong token_uri): one line.
            token_uri = getattr(self._credentials, "_token_uri", None) or "Google's token endpoint"
            raise UnreachableError(str(token_uri), f"refreshing credentials failed: {_cause(exc)}") from None
        return {"Authorization": f"Bearer {self._credentials.token}"}

    def _send(self, method: str, url: str, body: Any, params: Any, timeout: float | None = None) -> Any:
        parts = urlsplit(url)
        if not carries_credentials(url) and not (
            parts.scheme == "http" and is_loopback(parts.hostname or "")
        ):
            # Every URL is built from Google's hosts or the checked override; anything else is a bug.
            raise ConfigError(f"refusing to call {parts.scheme}://{parts.netloc}: not Google, not loopback")
        path = parts.path
        headers = self._auth_headers(url)
        self.calls += 1
        try:
            resp = self._session.request(
                method, url, json=body, params=params, headers=headers, timeout=timeout or self.timeout
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            parts = urlsplit(url)
            if is_loopback(parts.hostname or "") and _refused(exc):
                # Nothing listens on a local port: retrying would only delay the one-line answer.
                raise UnreachableError(f"{parts.scheme}://{parts.netloc}", "connection refused") from exc
            raise _Unreachable(url, exc) from exc
        if resp.status_code >= 400:
            raise error_from_response(resp, method, path)
        if not resp.content:
            return {}
        try:
            return resp.json()
        except ValueError as exc:
            raise VertexError(resp.status_code, f"not JSON: {one_line(resp.text)}", method, path) from exc

    def request(
        self,
        method: str,
        url: str,
        *,
        body: Any = None,
        params: Any = None,
        idempotent: bool = True,
        timeout: float | None = None,
    ) -> Any:
        """Send one call (waiting `timeout` seconds, default the client's); retry it within the
        policy's bounds only when it is idempotent."""
        try:
            if not idempotent:
                return self._send(method, url, body, params, timeout)
            policy = self.retry
            retrying = tenacity.Retrying(
                retry=tenacity.retry_if_exception(_retryable),
                stop=tenacity.stop_after_attempt(policy.attempts)
                | tenacity.stop_after_delay(policy.max_seconds),
                wait=_Wait(policy, self._rng),
                before_sleep=self._before_sleep,
                reraise=True,
            )
            return retrying(self._send, method, url, body, params, timeout)
        except _Unreachable as exc:
            raise UnreachableError(exc.base, type(exc.cause).__name__) from exc.cause

    def _before_sleep(self, state: tenacity.RetryCallState) -> None:
        if self.on_retry is None:
            return
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        self.on_retry(f"retrying after {exc} (attempt {state.attempt_number}, waiting {wait:.1f}s)")

    def _pages(self, url: str, key: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        token = None
        while True:
            page = self.request("GET", url, params={**params, **({"pageToken": token} if token else {})})
            yield from page.get(key, [])
            token = page.get("nextPageToken")
            if not token:
                return

    # ------------------------------------------------------------------ tuning jobs

    def create_tuning_job(self, parent: str, job: dict[str, Any]) -> dict[str, Any]:
        """Create a job. Never retried: after an ambiguous failure, look for it by its spec label."""
        return self.request("POST", self.url(parent, "/tuningJobs"), body=job, idempotent=False)

    def get_tuning_job(self, name: str) -> dict[str, Any]:
        return self.request("GET", self.url(name))

    def list_tuning_jobs(
        self, parent: str, filter: str | None = None, page_size: int = 100
    ) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"pageSize": page_size}
        if filter:
            params["filter"] = filter
        return list(self._pages(self.url(parent, "/tuningJobs"), "tuningJobs", params))

    def find_jobs_by_label(self, parent: str, key: str, value: str) -> list[dict[str, Any]]:
        return self.list_tuning_jobs(parent, filter=f'labels.{key}="{value}"')

    def cancel_tuning_job(self, name: str) -> dict[str, Any]:
        return self.request("POST", self.url(name, ":cancel"), body={})

    def validate_reward(self, parent: str, request: dict[str, Any]) -> dict[str, Any]:
        """Dry-run a reward config on one example. Lives under `tuningJobs:` (the other path 404s).

        Vertex calls a Cloud Run reward with its retries (2, 4, 8, 16, 32 s) before it answers, so a
        caller refused while its invoker grant propagates answers after ~62 s: the call waits for
        Vertex's whole schedule (`reward_call_ceiling`), so that it ends in the permission error the
        provider retries on, not in a read timeout."""
        return self.request(
            "POST",
            self.url(parent, "/tuningJobs:validateReinforcementTuningReward"),
            body=request,
            timeout=self.timeout + reward_call_ceiling(self.time_scale),
        )

    # ------------------------------------------------------------------ models and endpoints

    def generate_content(self, model_or_endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
        """generateContent on a publisher model or an endpoint; the name's location picks the host."""
        return self.request("POST", self.url(model_or_endpoint, ":generateContent"), body=body)

    def judge_available(self, project: str, location: str, model: str) -> bool:
        """Probe a judge model in a region: True if it answers, False on 404; other errors raise."""
        name = (
            model
            if model.startswith("projects/")
            else (f"projects/{project}/locations/{location}/publishers/google/models/{model.split('/')[-1]}")
        )
        probe = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
        try:
            self.generate_content(name, probe)
        except VertexError as exc:
            if exc.not_found:
                return False
            raise
        return True

    def get_endpoint(self, name: str) -> dict[str, Any]:
        return self.request("GET", self.url(name))

    def undeploy_model(self, endpoint: str, deployed_model_id: str) -> dict[str, Any]:
        return self.request(
            "POST", self.url(endpoint, ":undeployModel"), body={"deployedModelId": deployed_model_id}
        )

    def delete_endpoint(self, name: str) -> dict[str, Any]:
        return self.request("DELETE", self.url(name))

    def get_model(self, name: str) -> dict[str, Any]:
        return self.request("GET", self.url(name))

    def delete_model(self, name: str) -> dict[str, Any]:
        return self.request("DELETE", self.url(name))

    def delete_model_version(self, name: str) -> dict[str, Any]:
        """Delete one version (`…/models/M@N`) and no other: `DELETE models/M` removes them all."""
        checked_name(name, "model")
        if "@" not in name.rsplit("/", 1)[-1]:
            raise ResourceNameError(f"{name!r} names no version: expected projects/P/locations/L/models/M@N")
        return self.request("DELETE", self.url(name, ":deleteVersion"))

    def list_model_versions(self, name: str) -> list[dict[str, Any]]:
        """Every version of the model `name` (a version suffix is ignored), each a Model."""
        base = name.split("@", 1)[0]
        return list(self._pages(self.url(base, ":listVersions"), "models", {}))

    def merge_version_aliases(self, version: str, aliases: list[str]) -> dict[str, Any]:
        """Add aliases to one version (`M@N`); `-alias` removes one. Adding `default` moves it here."""
        return self.request(
            "POST", self.url(version, ":mergeVersionAliases"), body={"versionAliases": aliases}
        )

    def get_operation(self, name: str) -> dict[str, Any]:
        return self.request("GET", self.url(name))

    def wait_operation(
        self, operation: dict[str, Any], timeout: float = 600.0, poll: float = 0.25
    ) -> dict[str, Any]:
        """Poll a long-running operation until done (0.25 s first, doubling to 30 s); raise
        VertexError if it ended in error (an operation that ends NOT_FOUND reads as `not_found`)."""
        deadline = time.monotonic() + timeout
        delay = poll
        while not operation.get("done"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"operation {operation.get('name')} not done after {timeout:.0f}s")
            time.sleep(delay)
            delay = min(delay * 2, 30.0)
            operation = self.get_operation(operation["name"])
        error = operation.get("error")
        if error:
            raise operation_error(operation["name"], error)
        return operation

    # ------------------------------------------------------------------ experiments and metrics

    def get_context(self, name: str) -> dict[str, Any]:
        """A metadata Context (a tuning job's `experiment`); its metadata names the Tensorboard."""
        return self.request("GET", self.url(name))

    def list_tensorboard_experiments(self, tensorboard: str) -> list[dict[str, Any]]:
        url = self.url(tensorboard, "/experiments")
        return list(self._pages(url, "tensorboardExperiments", {"pageSize": LIST_PAGE_SIZE}))

    def list_tensorboard_runs(self, experiment: str) -> list[dict[str, Any]]:
        return list(
            self._pages(self.url(experiment, "/runs"), "tensorboardRuns", {"pageSize": LIST_PAGE_SIZE})
        )

    def list_time_series(self, run: str) -> list[dict[str, Any]]:
        url = self.url(run, "/timeSeries")
        return list(self._pages(url, "tensorboardTimeSeries", {"pageSize": LIST_PAGE_SIZE}))

    def batch_read(self, tensorboard: str, series: list[str]) -> list[dict[str, Any]]:
        """Scalars of many series, at most 20 per call as the service requires."""
        data: list[dict[str, Any]] = []
        for i in range(0, len(series), BATCH_READ_LIMIT):
            chunk = series[i : i + BATCH_READ_LIMIT]
            page = self.request(
                "GET", self.url(tensorboard, ":batchRead"), params=[("timeSeries", s) for s in chunk]
            )
            data.extend(page.get("timeSeriesData", []))
        return data

    def read_time_series(self, series: str, max_points: int = 1000) -> dict[str, Any]:
        page = self.request("GET", self.url(series, ":read"), params={"maxDataPoints": max_points})
        return page.get("timeSeriesData", {})
