"""Scorer benchmarks (figures, not tests).

* ``score()`` median and p99 on a 27-line malzuma (pure core, one process).
* Requests/s and p99 latency at 32 concurrent keep-alive connections on loopback for: the real
  scorer (``python -m scorer``), a null handler on the same stack (uvicorn + uvloop + httptools,
  reads the body, answers a fixed reward), and a naive stdlib ``http.server`` doing the same
  scoring. The load generator is a small asyncio raw-socket client (no extra tools needed).
* Cold start: process start to the first 200 answer to a scoring POST.

Everything runs on 127.0.0.1; the whole bench takes well under a minute.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from scorer.score import score  # noqa: E402
from servers import free_port  # noqa: E402
from tunifolk.local import stop  # noqa: E402

SAMPLE = (ROOT / "data" / "samples" / "malzuma.txt").read_text(encoding="utf-8")
A, B = SAMPLE.split("\n", 1)[0].split(" ** ")
POEM_27 = A + "\n" + B + "\n" + SAMPLE.split("\n", 1)[1]  # opening on two lines: 2 + 5 × 5 = 27 lines
REFS = {"form": "malzuma", "stanzas": "5", "refrain": "yes", "script": "arabic"}
BODY = json.dumps(
    {
        "example": {"references": REFS},
        "response": {"role": "model", "parts": [{"text": "…", "thought": True}, {"text": POEM_27}]},
        "metadata": {"step": 1, "tuning_job_id": "1"},
    },
    ensure_ascii=False,
).encode()
CONNECTIONS = 32
SECONDS = 5.0

NULL_SERVER = "from scorer.__main__ import serve; from scorer.app import null_app; serve(null_app)"
STDLIB_SERVER = """
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from scorer.app import handle_body

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def _answer(self, code, out):
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def do_GET(self):
        self._answer(200, b'{"status":"ok"}')
    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        self._answer(*handle_body(self.rfile.read(n)))

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.handle_error = lambda self, request, address: None  # clients hang up at the end
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
"""
STDLIB_NODELAY_SERVER = STDLIB_SERVER.replace(
    '    protocol_version = "HTTP/1.1"',
    '    protocol_version = "HTTP/1.1"\n    disable_nagle_algorithm = True',
)
assert STDLIB_NODELAY_SERVER != STDLIB_SERVER
# Issue 11's yardstick: a naive stdlib server that parses the JSON and answers a constant (no scoring).
STDLIB_CONSTANT_SERVER = STDLIB_SERVER.replace(
    "from scorer.app import handle_body",
    "import json\n\ndef handle_body(body):\n    json.loads(body)\n"
    '    return 200, b\'{"reward":0.0,"user_requested_aux_info":"{}"}\'',
)
assert STDLIB_CONSTANT_SERVER != STDLIB_SERVER


def bench_score() -> tuple[float, float]:
    assert len([ln for ln in POEM_27.split("\n") if ln.strip()]) == 27
    for _ in range(200):
        score(POEM_27, REFS)
    times = []
    for _ in range(3000):
        t0 = time.perf_counter()
        score(POEM_27, REFS)
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99)]


def start(code: str | None, port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "scorer"] if code is None else [sys.executable, "-c", code]
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "LOG_LEVEL": "error"}
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def first_200(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> float:
    """Poll with the scoring POST until it answers 200; return the monotonic time it did."""
    req = b"POST / HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(
        BODY
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(req + BODY)
                if s.recv(16).startswith(b"HTTP/1.1 200"):
                    return time.monotonic()
        except OSError:
            time.sleep(0.002)
    raise RuntimeError("no 200 in time")


async def _conn_loop(port: int, until: float, lat: list[float], req: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while True:
            t0 = time.perf_counter()
            if t0 >= until:
                return
            writer.write(req)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head[:40])
            await reader.readexactly(length)
            lat.append(time.perf_counter() - t0)
    finally:
        writer.close()


async def _load(port: int, seconds: float) -> tuple[float, float]:
    req = (
        b"POST / HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % len(BODY)
        + BODY
    )
    warm: list[float] = []
    await asyncio.gather(
        *(_conn_loop(port, time.perf_counter() + 0.5, warm, req) for _ in range(CONNECTIONS))
    )
    lat: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(_conn_loop(port, t0 + seconds, lat, req) for _ in range(CONNECTIONS)))
    elapsed = time.perf_counter() - t0
    lat.sort()
    return len(lat) / elapsed, lat[int(len(lat) * 0.99)]


def load(code: str | None) -> tuple[float, float]:
    port = free_port()
    proc = start(code, port)
    try:
        first_200(port, proc)
        try:
            import uvloop

            return uvloop.run(_load(port, SECONDS))
        except ImportError:
            return asyncio.run(_load(port, SECONDS))
    finally:
        stop(proc)


def cold_start() -> float:
    runs = []
    for _ in range(3):
        port = free_port()
        t0 = time.monotonic()
        proc = start(None, port)
        try:
            runs.append(first_200(port, proc) - t0)
        finally:
            stop(proc)
    return statistics.median(runs)


def main() -> int:
    med, p99 = bench_score()
    print(f"score() on a 27-line malzuma: median {med * 1e6:.0f} µs, p99 {p99 * 1e6:.0f} µs")
    print(
        f"load: {CONNECTIONS} keep-alive connections, {SECONDS:.0f} s each, loopback, {os.cpu_count()} CPUs"
    )
    rps, lat = load(None)
    print(f"  scorer (uvicorn+uvloop+httptools): {rps:8.0f} req/s  p99 {lat * 1e3:6.1f} ms")
    nrps, nlat = load(NULL_SERVER)
    print(f"  null handler, same stack         : {nrps:8.0f} req/s  p99 {nlat * 1e3:6.1f} ms")
    srps, slat = load(STDLIB_SERVER)
    print(f"  stdlib http.server, same scoring : {srps:8.0f} req/s  p99 {slat * 1e3:6.1f} ms")
    # The naive server writes headers and body separately, so Nagle + delayed ACK stall keep-alive
    # clients; with TCP_NODELAY it is a fairer (and much faster) baseline. Both are printed.
    frps, flat = load(STDLIB_NODELAY_SERVER)
    print(f"  stdlib, TCP_NODELAY, same scoring: {frps:8.0f} req/s  p99 {flat * 1e3:6.1f} ms")
    crps, clat = load(STDLIB_CONSTANT_SERVER)
    print(f"  stdlib, JSON parse + constant    : {crps:8.0f} req/s  p99 {clat * 1e3:6.1f} ms")
    print(f"  scorer / null   = {rps / nrps:.2f}  (goal >= 0.8)")
    print(f"  scorer / stdlib parsing JSON, constant answer = {rps / crps:.2f}  (goal >= 1.0)")
    print(f"  scorer / stdlib = {rps / srps:.2f}  (goal >= 2); vs stdlib with TCP_NODELAY {rps / frps:.2f}")
    cs = cold_start()
    print(f"cold start, process start to first 200 (median of 3): {cs * 1e3:.0f} ms  (goal < 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
