"""Who may call the emulator: loopback names only, JSON bodies only.

The emulator listens on 127.0.0.1, but a web page in the same machine's browser can still reach it:
a cross-origin "simple" request (a POST with `Content-Type: text/plain`) needs no CORS preflight,
and DNS rebinding (a name of the attacker's that resolves to 127.0.0.1) lets a page read the
answers. So every request, `/healthz` and `/emulator/*` included, passes three checks before any
route runs:

- `Host` must name a loopback address (`127.0.0.1`, `localhost`, `[::1]`, any port): a rebound name
  is refused with 403. Emulator-only (Google answers its own hosts); it is what stops rebinding.
- `Origin`, when a browser sends one, must name a loopback address too: a foreign page's request
  is refused with 403 (a body-less cross-site POST, such as a `:cancel`, would pass the next check).
  Emulator-only as well.
- A request that carries a body must say `Content-Type: application/json` (parameters such as
  `; charset=utf-8` are fine), else 415 in Google's error shape. UNCONFIRMED as Google's answer:
  Google's front end documents JSON bodies for the REST API but not its answer to another type.
  One exception: Cloud Storage's media upload (`/upload/…`, the Cloud Build stand-in's source
  archive) takes `application/gzip`, which no browser sends without a CORS preflight (it is not
  one of the CORS-safelisted types), so a foreign page still cannot post it.

Every client of the emulator (tunifolk.vertex, google-genai, requests' `json=`) sends JSON to
`127.0.0.1:PORT`, so they pass.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
JSON_MEDIA_TYPE = "application/json"
UPLOAD_PREFIX, UPLOAD_MEDIA_TYPES = "/upload/", frozenset({"application/gzip"})


def host_name(authority: str) -> str | None:
    """The host of a `Host` header (`name`, `name:port`, `[v6]:port`), lowercased; None if malformed."""
    value = authority.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1 :] if end > 0 else "?"
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return value[1:end]
    name, sep, port = value.partition(":")
    if sep and not port.isdigit():
        return None
    return name


def is_loopback_host(authority: str | None) -> bool:
    return authority is not None and host_name(authority) in LOOPBACK_NAMES


def is_loopback_origin(origin: str) -> bool:
    """An `Origin` header (`scheme://host[:port]`, or `null`) names a loopback host."""
    try:
        return (urlsplit(origin.strip()).hostname or "") in LOOPBACK_NAMES
    except ValueError:
        return False


def refusal(headers: dict[str, str], path: str = "") -> tuple[int, str, bytes] | None:
    """(status, content type, body) refusing a request with these (lowercased) headers, or None."""
    host = headers.get("host")
    if not is_loopback_host(host):
        line = (
            f"Host {host!r} refused: the emulator answers only 127.0.0.1, localhost or [::1] "
            "(a foreign name is how DNS rebinding reaches it)\n"
        )
        return 403, "text/plain; charset=utf-8", line.encode()
    origin = headers.get("origin")
    if origin is not None and not is_loopback_origin(origin):
        line = f"Origin {origin!r} refused: the emulator answers no web page but its own machine's\n"
        return 403, "text/plain; charset=utf-8", line.encode()
    has_body = headers.get("content-length", "0").strip() not in ("", "0") or "transfer-encoding" in headers
    media_type = headers.get("content-type", "").split(";")[0].strip().lower()
    upload = path.startswith(UPLOAD_PREFIX) and media_type in UPLOAD_MEDIA_TYPES
    if has_body and media_type != JSON_MEDIA_TYPE and not upload:
        shown = headers.get("content-type") or "none"
        error = {
            "code": 415,
            "message": f"Content-Type {shown} is not supported: send the request body as {JSON_MEDIA_TYPE}.",
            "status": "INVALID_ARGUMENT",
        }
        return 415, "application/json", orjson.dumps({"error": error})
    return None


class RequestGuard:
    """ASGI middleware: answers a refused request itself, passes every other one to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        refused = refusal(headers, scope.get("path", ""))
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, content_type, body = refused
        start: dict[str, Any] = {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body})
