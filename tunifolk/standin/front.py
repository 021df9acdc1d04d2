"""Cloud Run's front end in the stand-in: the IAM check that stands between a caller and a private
service's container, then a plain proxy to the container (the real `python -m scorer`).

`python -m tunifolk.standin.front --state DIR --service ID --port P --upstream Q` listens on the
service's URL (`P`, the port in its `uri`) and forwards what it lets through to the scorer on `Q`. It
decides each request from the stand-in's records, read as they are then (`invoker_refusal`):

- a service with `invokerIamDisabled` lets everyone through;
- no `Authorization` header: 403, as Cloud Run answers an unauthenticated call to a private service
  ("Requests without a valid token get a 403", Cloud Run's authentication docs);
- a header that is not an identity token for this service's URL: 401 (which of 401/403 Cloud Run
  picks for a malformed token or a wrong audience is UNCONFIRMED);
- a caller with no `roles/run.invoker` binding on the service (a ServiceIamMember or the bindings of
  a ServiceIamPolicy; `allUsers`, `allAuthenticatedUsers` included), or one whose binding has not
  propagated yet: 403.

The pages are Google's front-end error pages: "Error: Forbidden / Your client does not have
permission to get URL <path> from this server." is the text Cloud Run's troubleshooting page quotes
for a 403; the HTML around it (and the whole 401 page) is the Google front end's usual page,
UNCONFIRMED word for word. The vertex emulator retries both, as Vertex retries a failing reward call.
Tokens are `tunifolk.invoker`'s plainly fake ones; nothing here checks a signature.

A grant applies `IAM_PROPAGATION_S` (times the local time scale) after it was written
(`stamp_grant`, called by the stand-in when it creates a ServiceIamMember or writes a ServiceIamPolicy;
a policy's whole binding list restarts its propagation when rewritten, a simplification). A grant with
no stamp (written before this model) is in effect.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from tunifolk.invoker import IAM_PROPAGATION_S, INVOKER_ROLE, audience_of, read_fake_id_token, time_scale
from tunifolk.standin.store import Store

SERVICE_TOKEN = "gcp:cloudrunv2/service:Service"
MEMBER_TOKEN = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
POLICY_TOKEN = "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"
FORBIDDEN_PAGE = """<html><head>
<meta http-equiv="content-type" content="text/html;charset=utf-8">
<title>403 Forbidden</title>
</head>
<body text=#000000 bgcolor=#ffffff>
<h1>Error: Forbidden</h1>
<h2>Your client does not have permission to get URL <code>{path}</code> from this server.</h2>
<h2></h2>
</body></html>
"""
UNAUTHORIZED_PAGE = """<html><head>
<meta http-equiv="content-type" content="text/html;charset=utf-8">
<title>401 Unauthorized</title>
</head>
<body text=#000000 bgcolor=#ffffff>
<h1>Error: Unauthorized</h1>
<h2>Your client does not have permission to the requested URL <code>{path}</code>.</h2>
<h2></h2>
</body></html>
"""
HOP_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "host", "content-length"})


# --------------------------------------------------------------------------- propagation


def _stamp_file(state: Path, grant_id: str) -> Path:
    return state / "iam-effective" / hashlib.sha1(grant_id.encode()).hexdigest()


def stamp_grant(state: Path, grant_id: str) -> float:
    """Record when a grant written now takes effect (now + the scaled propagation delay); returns it."""
    effective = time.time() + IAM_PROPAGATION_S * time_scale()
    path = _stamp_file(state, grant_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{effective}\n")
    return effective


def forget_grant(state: Path, grant_id: str) -> None:
    _stamp_file(state, grant_id).unlink(missing_ok=True)


def effective_at(state: Path, grant_id: str) -> float:
    try:
        return float(_stamp_file(state, grant_id).read_text().strip())
    except (OSError, ValueError):
        return 0.0


# --------------------------------------------------------------------------- the IAM check


def _service_of(inputs: dict[str, Any]) -> str:
    name = str(inputs.get("name", ""))
    if name.startswith("projects/"):
        return name
    return f"projects/{inputs.get('project')}/locations/{inputs.get('location')}/services/{name}"


def invokers(state: Path, service_id: str, now: float) -> tuple[set[str], set[str]]:
    """(members in effect, members granted but still propagating) of `roles/run.invoker` on the service."""
    store = Store(state)
    live: set[str] = set()
    pending: set[str] = set()

    def add(member: str, grant_id: str) -> None:
        (live if effective_at(state, grant_id) <= now else pending).add(member)

    for grant in store.all(MEMBER_TOKEN):
        if grant.inputs.get("role") == INVOKER_ROLE and _service_of(grant.inputs) == service_id:
            add(str(grant.inputs.get("member")), grant.id)
    policy = store.get(POLICY_TOKEN, service_id)
    if policy is not None:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            for binding in json.loads(policy.inputs.get("policyData") or "{}").get("bindings", []):
                if binding.get("role") == INVOKER_ROLE:
                    for member in binding.get("members", []):
                        add(str(member), policy.id)
    return live, pending - live


def invoker_refusal(state: Path, service_id: str, url: str, authorization: str | None) -> int | None:
    """The status Cloud Run refuses this call with (401 or 403), or None when it may pass."""
    service = Store(state).get(SERVICE_TOKEN, service_id)
    if service is not None and service.inputs.get("invokerIamDisabled") is True:
        return None
    live, _pending = invokers(state, service_id, time.time())
    if "allUsers" in live:
        return None
    if not authorization:
        return 403
    caller = read_fake_id_token(authorization)
    if caller is None or caller[1] != audience_of(url):
        return 401
    email = caller[0]
    if "allAuthenticatedUsers" in live or f"serviceAccount:{email}" in live or f"user:{email}" in live:
        return None
    return 403


# --------------------------------------------------------------------------- the proxy


class Front:
    """An ASGI app: the IAM check, then the request as it came to the container."""

    def __init__(self, state: Path, service_id: str, port: int, upstream: int) -> None:
        self.state, self.service_id = state, service_id
        self.url = f"http://127.0.0.1:{port}"
        self.upstream = f"http://127.0.0.1:{upstream}"
        self.client: httpx.AsyncClient | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope.get("path", "/")
        status = invoker_refusal(self.state, self.service_id, self.url, headers.get("authorization"))
        if status is not None:
            page = (FORBIDDEN_PAGE if status == 403 else UNAUTHORIZED_PAGE).format(path=path).encode()
            await _answer(send, status, [(b"content-type", b"text/html; charset=UTF-8")], page)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        query = scope.get("query_string", b"").decode("latin-1")
        target = self.upstream + scope.get("raw_path", path.encode()).decode("latin-1")
        target += f"?{query}" if query else ""
        forwarded = {k: v for k, v in headers.items() if k not in HOP_HEADERS}
        assert self.client is not None
        try:
            resp = await self.client.request(scope["method"], target, headers=forwarded, content=body)
        except httpx.HTTPError:
            await _answer(send, 503, [(b"content-type", b"text/plain")], b"Service Unavailable")
            return
        out = [(k.encode(), v.encode()) for k, v in resp.headers.items() if k.lower() not in HOP_HEADERS]
        await _answer(send, resp.status_code, out, resp.content)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.client = httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=200))
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _answer(send: Any, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tunifolk.standin.front", description=__doc__)
    parser.add_argument("--state", type=Path, required=True, help="the stand-in's directory")
    parser.add_argument("--service", required=True, help="the Cloud Run service's id")
    parser.add_argument("--port", type=int, required=True, help="the service's port (its URL)")
    parser.add_argument("--upstream", type=int, required=True, help="the container's port")
    args = parser.parse_args(argv)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    app = Front(args.state, args.service, args.port, args.upstream)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        uvicorn.Server(config).run(sockets=[sock])
    sys.exit(0)


if __name__ == "__main__":
    main()
