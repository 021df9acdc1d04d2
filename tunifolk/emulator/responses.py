"""How every route answers: Google's JSON error shape, its HTML error pages, and body parsing.

Shared by the route families (`api_tuning`, `api_rewards`, `api_serving`, `api_metadata`) and the
dispatcher in `app`, so an error reads the same whichever route raised it: a handler raises
ApiError and the dispatcher turns it into `error_body`'s shape, `{"error": {"code", "message",
"status", "details"}}`, as Google's APIs answer (https://cloud.google.com/apis/design/errors).
`error_body` is the one builder of that shape; the gcp stand-in may use it too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from tunifolk.errors import REASONS
from tunifolk.project_state import disabled_help, disabled_message, disabled_metadata

from . import checks, protojson

#: HTTP status → google.rpc status name, as Google maps them (google/rpc/code.proto).
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
HTML_404 = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
  <title>Error 404 (Not Found)!!1</title>
  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>
  <p><b>404.</b> <ins>That\u2019s an error.</ins>
  <p>The requested URL <code>{path}</code> was not found on this server.  <ins>That\u2019s all we know.</ins>
"""
HTML_502 = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 502 (Server Error)!!1</title>
  <p><b>502.</b> <ins>That\u2019s an error.</ins>
  <p>The server encountered a temporary error and could not complete your request.
  <p>Please try again in 30 seconds.  <ins>That\u2019s all we know.</ins>
"""

#: `projects/P/locations/L`, the prefix of every resource path; its groups are the handlers' p and l.
LOCATION = r"projects/(?P<p>[^/:]+)/locations/(?P<l>[^/:]+)"

Handler = Callable[..., Awaitable[Response]]
#: (HTTP method, path regular expression, handler, whether `v1` serves it too): one API route.
RouteSpec = tuple[str, str, Handler, bool]


ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def error_body(
    status: int,
    message: str,
    reason: str = "",
    domain: str = "",
    metadata: dict[str, str] | None = None,
    *,
    status_name: str | None = None,
    extra_details: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Google's JSON error: `{"error": {code, message, status, details}}`.

    With a `reason`, `details` holds a `google.rpc.ErrorInfo` ({"@type", reason, domain, metadata}),
    as https://cloud.google.com/apis/design/errors shows (e.g. SERVICE_DISABLED, domain
    googleapis.com, metadata service and consumer). `domain` defaults to the reason's own in
    `tunifolk.errors.REASONS`, else googleapis.com. Without a reason there are no details (Vertex's
    own 400 and 404 answers carry none that we rely on; UNCONFIRMED whether they carry any).
    """
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": status_name or STATUS_NAMES.get(status, "UNKNOWN"),
    }
    details: list[dict[str, Any]] = []
    if reason:
        known = REASONS.get(reason)
        info: dict[str, Any] = {
            "@type": ERROR_INFO,
            "reason": reason,
            "domain": domain or (known.domain if known else "googleapis.com"),
        }
        if metadata:
            info["metadata"] = dict(metadata)
        details.append(info)
    details += extra_details or []
    if details:
        error["details"] = details
    return {"error": error}


def service_disabled(service: str, number: str) -> Response:
    """Google's 403 for a call to `service` while it is off in project `number` (a fresh local project):
    PERMISSION_DENIED, ErrorInfo SERVICE_DISABLED with `{service, consumer}`, then the activation link
    (tunifolk/project_state.py). The one answer of every emulator route family, Vertex's and Cloud
    Build's alike."""
    body = error_body(
        403,
        disabled_message(service, number),
        "SERVICE_DISABLED",
        "googleapis.com",
        disabled_metadata(service, number),
        extra_details=[disabled_help(service, number)],
    )
    return json_response(body, 403)


class ApiError(Exception):
    """An error answered in Google's JSON shape (`error_body`), with an ErrorInfo when `reason` is set."""

    def __init__(
        self,
        code: int,
        message: str,
        status: str | None = None,
        headers: dict | None = None,
        *,
        reason: str = "",
        domain: str = "",
        metadata: dict[str, str] | None = None,
        extra_details: list[dict[str, Any]] | None = None,
    ):
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or STATUS_NAMES.get(code, "UNKNOWN")
        self.headers = headers or {}
        self.reason, self.domain, self.metadata = reason, domain, metadata
        self.extra_details = extra_details

    def body(self) -> dict[str, Any]:
        return error_body(
            self.code,
            self.message,
            self.reason,
            self.domain,
            self.metadata,
            status_name=self.status,
            extra_details=self.extra_details,
        )


def json_response(body: Any, status: int = 200, headers: dict | None = None) -> Response:
    return Response(protojson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def error_response(e: ApiError) -> Response:
    return json_response(e.body(), e.code, e.headers)


def html_response(page: str, status: int) -> Response:
    return Response(page, status_code=status, media_type="text/html; charset=UTF-8")


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} when empty); a 400 worded as Google words it otherwise."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ApiError(400, "Invalid JSON payload received. Unexpected token.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "Invalid JSON payload received. Expected an object.")
    return body


def checked(schema: Any, body: Any, where: str) -> Any:
    """The body with camelCase names (snake_case is accepted too), or a 400 as Google words it."""
    try:
        return checks.check(schema, body, where)
    except checks.BodyError as e:
        raise ApiError(400, str(e)) from None
