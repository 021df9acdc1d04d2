"""The reward service as a bare ASGI application (docs/scorer.md, "HTTP contract").

Starlette's router and Request object cost more per call than this whole contract needs (two
routes, one JSON body): every microsecond the HTTP layer spends is one scoring cannot use, so the
app speaks ASGI directly, and keeps the contract's answers whatever arrives: never a 5xx, never a
reward that is not finite.

Every 200 writes the rollout's ledger record (`scorer.ledger`) to stdout before the answer is sent:
Cloud Run hands stdout to Cloud Logging, so a reward Vertex has is never missing from the ledger. The
write runs on a thread of its own (`RecordWriter`), never on the event loop: when stdout stops taking
lines (a pipe nobody reads), the answer still goes after RECORD_WAIT_S and the record waits in a
bounded queue, or is dropped when that is full; each case is counted and `/healthz` says the counts,
so every answered reward has its record or a counted reason why not.

Only what Vertex sends is taken: a POST of `application/json` (the reward-functions guide's request),
without an `Origin` header. A browser adds `Origin` to every cross-site POST (the Fetch standard),
and a `text/plain` POST needs no preflight, so a web page could otherwise forge ledger records that
the trip wires read; Vertex is a server and sends no `Origin` (UNCONFIRMED: Google documents no
header of the call besides its identity token).
"""

from __future__ import annotations

import asyncio
import collections
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
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import orjson

from scorer import ledger
from scorer.response import extract_text
from scorer.score import Score, score

MAX_BODY = 1024 * 1024
"""The largest body taken (413 above): a response's text is scored up to 20,000 characters, and a whole
Gemini answer of 32,768 tokens, thinking included, stays under it; at the stacks' concurrency of 80
the bodies in flight stay well inside the instance's memory (bench/bench_memory.py)."""
INLINE_BODY = 8 * 1024
"""Bodies up to this size are scored on the event loop: a poem's request is 1–3 KiB and scores in well
under a millisecond, so a hop to another process would cost more than it saves. A larger body may
carry up to the 20,000 scored characters (tens of milliseconds) and goes to `_worker()`, a process of
its own: `/healthz` and the small requests behind it are answered meanwhile. A thread would not do:
scoring holds the GIL for a whole call."""
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


def handle_request(
    body: bytes, scorer: Callable[[Any, dict[str, Any]], Score] = score
) -> tuple[int, bytes, bytes | None]:
    """Status, body and the ledger line (None for a 400, or when the record cannot be written) of
    one POST; pure: the caller writes the line, then answers."""
    try:
        content, refs, doc = _parse(body)
    except BadRequest as exc:
        return 400, orjson.dumps({"error": str(exc)}), None
    except Exception:  # a body our parser cannot read is not the contract
        traceback.print_exc(file=sys.stderr)
        return 400, orjson.dumps({"error": "unreadable body"}), None
    try:
        result = scorer(content, refs)
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


def write_record(line: bytes, fd: int = 1) -> None:
    """Write a ledger line to stdout (fd 1, unbuffered: nothing waits in a Python buffer when the
    answer leaves)."""
    view = memoryview(line)
    while view:
        view = view[os.write(fd, view) :]


RECORD_WAIT_S = 2.0
"""How long an answer waits for its record to reach stdout before it goes anyway (the record then
stays queued and is counted `late`)."""
RECORD_QUEUE = 4096
"""Records a stalled stdout may hold back before new ones are dropped (and counted `dropped`):
4,096 lines of at most ~150 KB each bound the queue's memory."""


class RecordWriter:
    """Ledger lines to stdout, in order, on one thread: the event loop never blocks on a pipe."""

    def __init__(self, fd: int = 1, capacity: int = RECORD_QUEUE) -> None:
        self.fd, self.capacity = fd, capacity
        self.counts = {"written": 0, "late": 0, "dropped": 0, "unrecorded": 0, "failed": 0}
        self._queue: collections.deque[tuple[bytes, Future[None]]] = collections.deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, line: bytes) -> Future[None] | None:
        """Queue a line; its future is done once the line is written. None: the queue is full and the
        line was dropped (counted)."""
        done: Future[None] = Future()
        with self._ready:
            if len(self._queue) >= self.capacity:
                self.counts["dropped"] += 1
                return None
            self._queue.append((line, done))
            if self._thread is None:
                self._thread = threading.Thread(target=self._drain, name="ledger-writer", daemon=True)
                self._thread.start()
            self._ready.notify()
        return done

    def _drain(self) -> None:
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                line, done = self._queue[0]
            try:
                write_record(line, self.fd)
                self.counts["written"] += 1
            except OSError:
                self.counts["failed"] += 1
            with self._ready:
                self._queue.popleft()
            done.set_result(None)

    async def record(self, line: bytes | None) -> None:
        """Write `line` before the answer, waiting at most RECORD_WAIT_S; None counts as unrecorded."""
        if line is None:
            self.counts["unrecorded"] += 1
            return
        done = self.submit(line)
        if done is None:
            return
        finished, _ = await asyncio.wait({asyncio.wrap_future(done)}, timeout=RECORD_WAIT_S)
        if not finished:
            self.counts["late"] += 1

    def health(self) -> bytes:
        with self._ready:
            queued = len(self._queue)
        return orjson.dumps({"status": "ok", "ledger": {**self.counts, "queued": queued}})


_records = RecordWriter()


async def _send(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


_TOO_LARGE = orjson.dumps({"error": "body over 1 MiB"})
BODY_SECONDS = 30.0
"""How long a request's body may take to arrive: Vertex sends a few KiB at once; a client that stalls
mid-body (many at a time) would otherwise hold its bytes and its connection for ever."""
_SLOW_BODY = orjson.dumps({"error": f"the body did not arrive within {BODY_SECONDS:g} s"})
_CROSS_SITE = orjson.dumps({"error": "a request with an Origin header is refused: only Vertex calls this"})
_NOT_JSON = orjson.dumps({"error": "the body must be sent as application/json"})


def _refusal(headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes] | None:
    """403 for a request a browser made (it carries `Origin`), 415 for a body declared as anything but
    JSON (a page's form or text/plain POST)."""
    if any(name == b"origin" for name, _ in headers):
        return 403, _CROSS_SITE
    for name, value in headers:  # every content-type, if one is repeated
        if name == b"content-type" and value.split(b";", 1)[0].strip().lower() != b"application/json":
            return 415, _NOT_JSON
    return None


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
            await _send(send, 200, _records.health())
        else:
            await _send(send, 405, orjson.dumps({"error": "use POST"}))
        return
    refused = _refusal(scope["headers"])
    if refused is not None:
        await _send(send, *refused)
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
    deadline = asyncio.get_running_loop().time() + BODY_SECONDS
    while more:
        try:  # a body that stalls holds memory and a connection: it gets BODY_SECONDS in all
            msg = await asyncio.wait_for(receive(), deadline - asyncio.get_running_loop().time())
        except TimeoutError:
            await _send(send, 408, _SLOW_BODY)
            return
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
        try:
            status, out, line = await asyncio.get_running_loop().run_in_executor(
                _worker(), handle_request, body
            )
        except Exception:  # the scoring process died (killed, out of memory): never a 5xx
            traceback.print_exc(file=sys.stderr)
            status, out, line = handle_request(body, lambda *_: Score(-1.0, {}, "the scoring process failed"))
    if status == 200:
        await _records.record(line)  # in the platform's log pipe before Vertex has the reward
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
