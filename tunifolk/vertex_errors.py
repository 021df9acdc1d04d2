"""How the Vertex client reads Google's errors: the JSON error body (status string, message and the
`google.rpc.ErrorInfo` detail), a finished operation's google.rpc.Status, and an HTML error page.

Google's errors carry `{"error": {code, message, status, details}}`, where `details` may hold a
`google.rpc.ErrorInfo` naming the cause (https://cloud.google.com/apis/design/errors); tunifolk
decides on its `reason` (`tunifolk.errors.REASONS`), not on the message text.
"""

from __future__ import annotations

import html
import re
from typing import Any

import requests

from tunifolk.errors import VertexError

#: google.rpc codes as the HTTP status and status name Google maps them to (an operation's `error`
#: carries the rpc code, not an HTTP status).
RPC_CODES = {
    1: (499, "CANCELLED"),
    3: (400, "INVALID_ARGUMENT"),
    4: (504, "DEADLINE_EXCEEDED"),
    5: (404, "NOT_FOUND"),
    6: (409, "ALREADY_EXISTS"),
    7: (403, "PERMISSION_DENIED"),
    8: (429, "RESOURCE_EXHAUSTED"),
    9: (400, "FAILED_PRECONDITION"),
    10: (409, "ABORTED"),
    13: (500, "INTERNAL"),
    14: (503, "UNAVAILABLE"),
    16: (401, "UNAUTHENTICATED"),
}


ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def error_info(error: dict[str, Any]) -> dict[str, Any]:
    """The reason, domain and metadata of an error's first `google.rpc.ErrorInfo` detail, as keyword
    arguments of VertexError ({} when there is none). Google's errors carry it in `details`
    (https://cloud.google.com/apis/design/errors); an operation's `error` (google.rpc.Status) too."""
    for detail in error.get("details") or ():
        if isinstance(detail, dict) and detail.get("@type") == ERROR_INFO:
            meta = detail.get("metadata")
            return {
                "reason": str(detail.get("reason") or ""),
                "domain": str(detail.get("domain") or ""),
                "metadata": {str(k): str(v) for k, v in meta.items()} if isinstance(meta, dict) else {},
            }
    return {}


def operation_error(name: str, error: dict[str, Any]) -> VertexError:
    """A finished operation's `error` (a google.rpc.Status) as a VertexError: code 5 is NOT_FOUND,
    so an operation that ends "already gone" reads as gone (`not_found`), not as a failure."""
    code = error.get("code", 0)
    status, status_name = RPC_CODES.get(code if isinstance(code, int) else 0, (500, "UNKNOWN"))
    message = str(error.get("message") or status_name)
    return VertexError(status, message, "OPERATION", name, status_name, **error_info(error))


def one_line(text: str, limit: int = 300) -> str:
    """Collapse an HTML page or any text into one readable line (Google answers some 404s in HTML)."""
    title = re.search(r"<title[^>]*>(.*?)</title>", text, flags=re.I | re.S)
    body = re.sub(r"(?is)<(script|style|title)[^>]*>.*?</\1>", " ", text)
    body = html.unescape(re.sub(r"<[^>]+>", " ", body))
    words = " ".join(body.split())
    head = " ".join(html.unescape(title.group(1)).split()) if title else ""
    line = f"{head}: {words}" if head and words and not words.startswith(head) else (words or head)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def error_from_response(resp: requests.Response, method: str, path: str) -> VertexError:
    """Build a VertexError from Google's JSON error, or one line of whatever else came back."""
    message, status_name, info = "", "", {}
    try:
        payload = resp.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        message = str(payload["error"].get("message") or "")
        status_name = str(payload["error"].get("status") or "")
        info = error_info(payload["error"])
    elif resp.text:
        message = one_line(resp.text)
    message = message or resp.reason or "no message"
    err = VertexError(resp.status_code, message, method, path, status_name, **info)
    err.retry_after = _retry_after(resp)
    return err


def _retry_after(resp: requests.Response) -> float | None:
    raw = resp.headers.get("Retry-After")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
