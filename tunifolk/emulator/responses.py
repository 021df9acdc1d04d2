"""How every route answers: Google's JSON error shape, its HTML error pages, and body parsing.

Shared by the route families (`api_tuning`, `api_rewards`, `api_serving`, `api_metadata`) and the
dispatcher in `app`, so an error reads the same whichever route raised it: a handler raises
ApiError and the dispatcher turns it into `{"error": {"code", "message", "status"}}`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from . import checks, protojson

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
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


class ApiError(Exception):
    """An error answered in Google's JSON shape."""

    def __init__(self, code: int, message: str, status: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or STATUS_NAMES.get(code, "UNKNOWN")
        self.headers = headers or {}


def json_response(body: Any, status: int = 200, headers: dict | None = None) -> Response:
    return Response(protojson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def error_response(e: ApiError) -> Response:
    body = {"error": {"code": e.code, "message": e.message, "status": e.status}}
    return json_response(body, e.code, e.headers)


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
