"""The reward service as a bare ASGI application (docs/scorer.md, "HTTP contract").

Starlette's router and Request object cost more per call than this whole contract needs (two
routes, one JSON body): every microsecond the HTTP layer spends is one scoring cannot use, so the
app speaks ASGI directly. Rules it keeps, whatever arrives: 200 with a finite reward in [-1, 1] for every
request that is the contract (reward −1 and a reason when there is no poem or no known form); 400
with a JSON error only for a body that is not the contract; 413 over 4 MiB; never a 5xx (an
unexpected scoring failure is logged and answered 200 with reward −1).

Every 200 writes the rollout's ledger record (`scorer.ledger`) to stdout, flushed, before the
answer is sent: Cloud Run hands stdout to Cloud Logging, so a reward Vertex has is never missing
from the ledger.
"""

from __future__ import annotations

import asyncio
import json
import math
import multiprocessing
import multiprocessing.popen_spawn_posix
import os
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import orjson

from scorer import ledger
from scorer.response import extract_text
from scorer.score import Score, score

MAX_BODY = 4 * 1024 * 1024
INLINE_BODY = 8 * 1024
"""Bodies up to this size are scored on the event loop: a poem's request is 1–3 KiB and scores in well
under a millisecond, so a hop to another process would cost more than it saves. A larger body may
carry up to the 20,000 scored characters (tens of milliseconds) and goes to `_worker()`, a process of
its own: `/healthz` and the small requests behind it are answered meanwhile. A thread would not do:
the compiled core holds the GIL for a whole call."""
_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_pool_started = False


def _worker() -> ProcessPoolExecutor:
    """The one scoring process for large bodies (a fresh interpreter: forking a process that runs an
    event loop is not safe), started again if it died."""
    global _pool
    with _pool_lock:
        if _pool is None or getattr(_pool, "_broken", False):
            _pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_exit_with_server,
                initargs=(os.getpid(),),
            )
        return _pool


def _exit_with_server(server: int) -> None:
    """In the scoring process: leave as soon as the server that started it is gone (killed, say),
    so that no orphan keeps running, or keeps the server's standard output open."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _start_worker() -> None:
    """Start the scoring process and wait until it answers, from a thread of the default executor: the
    first large body then finds it ready, and the event loop never waits on a process start."""
    _worker().submit(int).result()


Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_JSON_HEADERS = [(b"content-type", b"application/json")]


class BadRequest(Exception):
    """The body is not the contract (not JSON, no response, parts not a list)."""


def _loads(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    # orjson refuses lone surrogate escapes that RFC 8259 JSON allows; the stdlib accepts them.
    try:
        return json.loads(body.decode("utf-8", errors="strict"))
    except (ValueError, RecursionError) as exc:
        raise BadRequest("body is not JSON") from exc


def parse_request(body: bytes) -> tuple[Any, dict[str, Any]]:
    """Validate the contract's shape; return (response content, references)."""
    content, refs, _doc = _parse(body)
    return content, refs


def _parse(body: bytes) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(response content, references, the whole request)."""
    doc = _loads(body)
    if not isinstance(doc, dict):
        raise BadRequest("body is not a JSON object")
    response = doc.get("response")
    if not isinstance(response, dict):
        raise BadRequest("no 'response' object")
    parts = response.get("parts", [])
    if parts is None:
        parts = []
    if not isinstance(parts, list):
        raise BadRequest("'response.parts' is not a list")
    example = doc.get("example")
    refs = example.get("references") if isinstance(example, dict) else None
    return {"parts": parts}, refs if isinstance(refs, dict) else {}, doc


def clamped(r: Any) -> float:
    """The reward as answered: finite, in [-1, 1] (-1 for anything else)."""
    if not isinstance(r, float | int) or not math.isfinite(r):
        return -1.0
    return max(-1.0, min(1.0, float(r)))


def reward_body(result: Score) -> bytes:
    """The 200 answer: the reward (finite, clamped) and the sub-scores as compact JSON text."""
    r = clamped(result.reward)
    subs = {k: v for k, v in result.subscores.items() if isinstance(v, float | int) and math.isfinite(v)}
    aux = orjson.dumps({"reason": result.reason, "scores": subs}).decode()
    return orjson.dumps({"reward": r, "user_requested_aux_info": aux})


def handle_body(body: bytes) -> tuple[int, bytes]:
    """Status and body for one POST; pure (no I/O), so it is shared with the stdlib comparison
    server in the benchmark."""
    status, out, _line = handle_request(body)
    return status, out


def handle_request(body: bytes) -> tuple[int, bytes, bytes | None]:
    """Status, body and the ledger line (None for a 400) of one POST; pure: the caller writes the
    line, then answers."""
    try:
        content, refs, doc = _parse(body)
    except BadRequest as exc:
        return 400, orjson.dumps({"error": str(exc)}), None
    except Exception:  # a body our parser cannot read is not the contract
        traceback.print_exc(file=sys.stderr)
        return 400, orjson.dumps({"error": "unreadable body"}), None
    try:
        result = score(content, refs)
    except Exception:  # never a 5xx: a scorer bug must not abort the tuning job
        traceback.print_exc(file=sys.stderr)
        result = Score(-1.0, {}, "internal scoring error")
    out = reward_body(result)
    try:
        fields = ledger.record(
            doc.get("metadata"),
            doc.get("example"),
            refs,
            extract_text(content),
            clamped(result.reward),
            result.subscores,
            result.reason,
        )
        line: bytes | None = ledger.log_line(fields)
    except Exception:  # the answer matters more than its record; say so on stderr
        traceback.print_exc(file=sys.stderr)
        line = None
    return 200, out, line


def write_record(line: bytes) -> None:
    """Write a ledger line to stdout (fd 1, unbuffered: nothing waits in a Python buffer when the
    answer leaves)."""
    view = memoryview(line)
    while view:
        view = view[os.write(1, view) :]


async def _send(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


_HEALTH = orjson.dumps({"status": "ok"})
_TOO_LARGE = orjson.dumps({"error": "body over 4 MiB"})


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """ASGI entry: ``GET /healthz`` (and any GET) answers 200; ``POST`` on any path scores."""
    if scope["type"] != "http":
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        return
    global _pool_started
    if not _pool_started:  # the first request of this process starts the scoring process
        _pool_started = True
        asyncio.get_running_loop().run_in_executor(None, _start_worker)
    method = scope["method"]
    if method != "POST":
        if method in ("GET", "HEAD"):
            await _send(send, 200, _HEALTH)
        else:
            await _send(send, 405, orjson.dumps({"error": "use POST"}))
        return
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                if int(value) > MAX_BODY:
                    await _send(send, 413, _TOO_LARGE)
                    return
            except ValueError:
                pass
            break
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            await _send(send, 413, _TOO_LARGE)
            return
        chunks.append(chunk)
        more = msg.get("more_body", False)
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if size <= INLINE_BODY:
        status, out, line = handle_request(body)
    else:
        status, out, line = await asyncio.get_running_loop().run_in_executor(_worker(), handle_request, body)
    if line is not None:
        write_record(line)  # durable (in the platform's log pipe) before Vertex has the reward
    await _send(send, status, out)


async def null_app(scope: Scope, receive: Receive, send: Send) -> None:
    """The benchmark's null handler: reads the body and answers a fixed reward, on the same
    stack, so the bench can show what scoring costs on top of HTTP."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return
        more = msg.get("more_body", False)
    await _send(send, 200, b'{"reward":0.0,"user_requested_aux_info":"{}"}')
