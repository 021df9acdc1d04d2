"""Scorer benchmarks (figures, not tests).

* ``score()`` on the 27-line malzuma of ``data/samples`` (pure core, one process): median and p99
  per round, over several rounds (the median of the rounds and their spread are printed: this
  machine's CPUs are shared, so one round proves little). Also the mean over a varied corpus of
  policy-like poems (every form, both scripts, honest and hacked; ``emulator/policy.py``), first
  pass (words never seen: the per-word caches miss) and steady state.
* Instructions per ``score()`` on the same poem, counted by callgrind where valgrind is installed:
  the one figure that does not move with the machine or its neighbours.
* Requests/s and p99 latency with 32 concurrent clients on loopback, every server side by side
  in each round, same load generator (a small asyncio raw-socket client), same body:

  - the scorer (``python -m scorer``), as deployed (one process: Cloud Run's default 1 vCPU), and
    with one worker process per CPU of this machine (``WEB_CONCURRENCY``, for an instance with
    that many vCPUs);
  - the null handler: our own ASGI stack (uvicorn + uvloop + httptools) reading the body and
    answering a constant, so the figure shows what scoring costs on top of HTTP;
  - **the yardstick of issue 11**, a naive stdlib ``http.server`` (ThreadingHTTPServer) that parses
    the JSON and answers a constant, two ways: as the stdlib makes it by default (HTTP/1.0: it
    closes the connection after each answer, so each of the 32 clients connects once per request,
    and the scorer is also measured that way, like for like), and with keep-alive (HTTP/1.1),
    where it writes headers and body in separate segments and Nagle + delayed ACK stall every
    answer for ~40 ms;
  - a tuned stdlib server, stricter than the issue asks: the keep-alive one with TCP_NODELAY,
    which removes the stall;
  - a stdlib server doing the same scoring (with TCP_NODELAY), for scale.

  Ratios are taken within a round (scorer and baseline measured a few seconds apart) and their
  median and spread printed.
* Cold start: process start to the first 200 answer to a scoring POST.

``python bench/bench_scorer.py [--rounds N] [--seconds S] [--only score|instructions|http]``; the
default run takes about six minutes on 2 CPUs (progress on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from callgrind import instructions  # noqa: E402  (bench/, this script's folder)

from scorer.score import score  # noqa: E402
from tunifolk.processes import free_port, stop  # noqa: E402

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
WARM_UP = 0.5
SETTLE = 1.5
"""Seconds between a server's first answer and the first connection of the measurement: worker
processes start one by one, and connections opened while only the first one listens all stay with
it (keep-alive), which would measure one process, not N."""

NULL_SERVER = "from scorer.__main__ import serve; serve('scorer.app:null_app')"
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


def _nodelay(code: str) -> str:
    """The same server with TCP_NODELAY on its connections (``StreamRequestHandler``'s switch)."""
    out = code.replace(
        '    protocol_version = "HTTP/1.1"',
        '    protocol_version = "HTTP/1.1"\n    disable_nagle_algorithm = True',
    )
    assert out != code
    return out


# Issue 11's yardstick: a naive stdlib server that parses the JSON and answers a constant (no scoring).
STDLIB_CONSTANT_NAIVE = STDLIB_SERVER.replace(
    "from scorer.app import handle_body",
    "import json\n\ndef handle_body(body):\n    json.loads(body)\n"
    '    return 200, b\'{"reward":0.0,"user_requested_aux_info":"{}"}\'',
)
assert STDLIB_CONSTANT_NAIVE != STDLIB_SERVER
STDLIB_CONSTANT = _nodelay(STDLIB_CONSTANT_NAIVE)
STDLIB_SCORING = _nodelay(STDLIB_SERVER)
# The stdlib's own default: BaseHTTPRequestHandler speaks HTTP/1.0 and closes after each answer.
STDLIB_CONSTANT_DEFAULT = STDLIB_CONSTANT_NAIVE.replace('    protocol_version = "HTTP/1.1"\n', "")
assert STDLIB_CONSTANT_DEFAULT != STDLIB_CONSTANT_NAIVE


@dataclass(frozen=True)
class Server:
    """One server of the side-by-side load test."""

    key: str
    label: str
    code: str | None = None
    """Python source run with ``python -c``; None is ``python -m scorer``."""
    env: dict[str, str] = field(default_factory=dict)
    per_request: bool = False
    """Each client opens a new connection for every request (HTTP/1.0 servers close after each)."""


CPUS = os.cpu_count() or 1
SERVERS = [
    Server("scorer", "scorer, 1 process (default)"),
    Server("scorerN", f"scorer, {CPUS} processes (1 per CPU)", env={"WEB_CONCURRENCY": str(CPUS)}),
    Server("scorer1c", "scorer, 1 proc., conn. per request", per_request=True),
    Server("null", "null handler, our stack, 1 proc.", NULL_SERVER),
    Server("default", "stdlib default (HTTP/1.0), constant", STDLIB_CONSTANT_DEFAULT, per_request=True),
    Server("naive", "stdlib keep-alive, constant", STDLIB_CONSTANT_NAIVE),
    Server("const", "stdlib tuned (NODELAY), constant", STDLIB_CONSTANT),
    Server("stdscore", "stdlib tuned, same scoring", STDLIB_SCORING),
]


def _spread(values: list[float], fmt: str = "{:.0f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def bench_score(rounds: int, calls: int = 2000) -> tuple[list[float], list[float]]:
    """Median and p99 (seconds) of ``score()`` on the 27-line malzuma, one pair per round."""
    assert len([ln for ln in POEM_27.split("\n") if ln.strip()]) == 27
    for _ in range(200):
        score(POEM_27, REFS)
    medians, p99s = [], []
    for _ in range(rounds):
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            score(POEM_27, REFS)
            times.append(time.perf_counter() - t0)
        times.sort()
        medians.append(statistics.median(times))
        p99s.append(times[int(len(times) * 0.99)])
    return medians, p99s


def bench_corpus() -> tuple[float, float]:
    """Mean seconds per ``score()`` over the corpus: first pass (unseen words), then steady state."""
    from scorer.arabic import rhyme_key
    from scorer.identity import rhyme_identity
    from scorer.lexicon import is_arabic_word, is_arabizi_word
    from tunifolk.emulator.policy import corpus

    cases = corpus()
    for f in (rhyme_key, rhyme_identity, is_arabic_word, is_arabizi_word):
        f.cache_clear()
    t0 = time.perf_counter()
    for resp, refs in cases:
        score(resp, refs)
    first = (time.perf_counter() - t0) / len(cases)
    t0 = time.perf_counter()
    for _ in range(3):
        for resp, refs in cases:
            score(resp, refs)
    return first, (time.perf_counter() - t0) / (3 * len(cases))


def start(code: str | None, port: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "scorer"] if code is None else [sys.executable, "-c", code]
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "LOG_LEVEL": "error", **(env or {})}
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def _request(close: bool = False) -> bytes:
    head = b"POST / HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(
        BODY
    )
    return head + (b"Connection: close\r\n" if close else b"") + b"\r\n" + BODY


def _ok(status_line: bytes) -> bool:
    """``HTTP/1.x 200``: the stdlib's default server answers HTTP/1.0."""
    return status_line[:7] == b"HTTP/1." and status_line[8:13] == b" 200 "


def first_200(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> float:
    """Poll with the scoring POST until it answers 200; return the monotonic time it did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(_request())
                if _ok(s.recv(16)):
                    return time.monotonic()
        except OSError:
            time.sleep(0.002)
    raise RuntimeError("no 200 in time")


async def _answer(reader: asyncio.StreamReader) -> None:
    """Read one answer (head and body); raise unless it is a 200."""
    head = await reader.readuntil(b"\r\n\r\n")
    if not _ok(head):
        raise RuntimeError(head[:40])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)


async def _conn_loop(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, until: float, lat: list[float], req: bytes
) -> None:
    """One keep-alive client: request after request on one connection."""
    while True:
        t0 = time.perf_counter()
        if t0 >= until:
            return
        writer.write(req)
        await _answer(reader)
        lat.append(time.perf_counter() - t0)


async def _fresh_loop(port: int, until: float, lat: list[float], req: bytes) -> None:
    """One client that connects for every request (the server closes after answering, so the
    TIME_WAIT is on its side and the client's ports are not used up)."""
    while True:
        t0 = time.perf_counter()
        if t0 >= until:
            return
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(req)
            await _answer(reader)
        finally:
            writer.close()
        lat.append(time.perf_counter() - t0)


async def _load(port: int, seconds: float, per_request: bool) -> tuple[float, float]:
    """Keep-alive: open the connections first, warm up on them for WARM_UP seconds, then measure.
    Per request: CONNECTIONS clients each connecting for every request; a naive server's backlog
    overflows (SYN retries) are then part of what it costs, as they would be for any client."""
    if per_request:
        req = _request(close=True)
        warm: list[float] = []
        until = time.perf_counter() + WARM_UP
        await asyncio.gather(*(_fresh_loop(port, until, warm, req) for _ in range(CONNECTIONS)))
        lat: list[float] = []
        t0 = time.perf_counter()
        await asyncio.gather(*(_fresh_loop(port, t0 + seconds, lat, req) for _ in range(CONNECTIONS)))
        elapsed = time.perf_counter() - t0
    else:
        req = _request()
        # one after another: a burst of 32 connects overflows the naive server's backlog of 5, and
        # the SYN retries (1 s, 3 s, 7 s…) or resets that follow are not what is measured here
        conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(CONNECTIONS)]
        try:
            warm = []
            until = time.perf_counter() + WARM_UP
            await asyncio.gather(*(_conn_loop(r, w, until, warm, req) for r, w in conns))
            lat = []
            t0 = time.perf_counter()
            await asyncio.gather(*(_conn_loop(r, w, t0 + seconds, lat, req) for r, w in conns))
            elapsed = time.perf_counter() - t0
        finally:
            for _, w in conns:
                w.close()
    lat.sort()
    return len(lat) / elapsed, lat[int(len(lat) * 0.99)]


def load(server: Server, seconds: float) -> tuple[float, float]:
    """Requests/s and p99 latency (s) of one server with CONNECTIONS concurrent clients."""
    port = free_port()
    proc = start(server.code, port, server.env)
    try:
        first_200(port, proc)
        time.sleep(SETTLE)  # the first worker answers; let the others start before connecting
        try:
            import uvloop

            return uvloop.run(_load(port, seconds, server.per_request))
        except ImportError:
            return asyncio.run(_load(port, seconds, server.per_request))
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


def _score_round() -> dict[str, float]:
    """One round in this process: ``score()``'s median and p99 on the 27-line malzuma, and the
    corpus means (first pass, steady state), in seconds."""
    med, p99 = bench_score(1)
    first, steady = bench_corpus()
    return {"median": med[0], "p99": p99[0], "first": first, "steady": steady}


def report_score(rounds: int) -> None:
    """``score()``: each round is a fresh process (cold caches, as a new scorer instance)."""
    rs = []
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, __file__, "--score-round"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        rs.append(json.loads(out.stdout))
    us = {k: [r[k] * 1e6 for r in rs] for k in rs[0]}
    print(
        f"score(), 27-line malzuma, {rounds} rounds of 2000 calls:"
        f" median {_spread(us['median'])} µs, p99 {_spread(us['p99'])} µs"
    )
    print(
        f"score(), 600 varied poems: mean {_spread(us['steady'])} µs steady,"
        f" {_spread(us['first'])} µs first pass (per-word caches cold)"
    )


RATIOS = [
    # (label, numerator, denominator, the goal applies)
    ("scorer / stdlib default, conn. per request", "scorer1c", "default", True),
    ("scorer keep-alive / stdlib default", "scorer", "default", True),
    ("scorer / stdlib keep-alive", "scorer", "naive", True),
    (f"  with {CPUS} processes", "scorerN", "naive", False),
    ("scorer / stdlib tuned (stricter)", "scorer", "const", False),
    (f"  with {CPUS} processes", "scorerN", "const", False),
    ("scorer / null handler", "scorer", "null", False),
    ("null handler / stdlib tuned", "null", "const", False),
    ("scorer / stdlib tuned, same scoring", "scorer", "stdscore", False),
]


def report_http(rounds: int, seconds: float) -> None:
    print(
        f"load: {CONNECTIONS} concurrent clients (keep-alive unless marked), {seconds:g} s per server per"
        f" round, {rounds} rounds, loopback, {os.cpu_count()} CPUs; req/s median (min–max), p99 median"
    )
    rps: dict[str, list[float]] = {s.key: [] for s in SERVERS}
    p99: dict[str, list[float]] = {s.key: [] for s in SERVERS}
    for r in range(rounds):
        order = SERVERS[r % len(SERVERS) :] + SERVERS[: r % len(SERVERS)]  # rotate: drift hits all alike
        for server in order:
            print(f"  round {r + 1}/{rounds}: {server.label}", file=sys.stderr, flush=True)
            x, lat = load(server, seconds)
            rps[server.key].append(x)
            p99[server.key].append(lat)
    for server in SERVERS:
        lat = statistics.median(p99[server.key]) * 1e3
        print(f"  {server.label:36s}: {_spread(rps[server.key]):>22s} req/s  p99 {lat:7.1f} ms")
    for label, a, b, goal in RATIOS:
        spread = _spread([x / y for x, y in zip(rps[a], rps[b], strict=True)], "{:.2f}")
        print(f"  {label:44s} = {spread}" + ("  (issue 11: >= 1.0)" if goal else ""))
    cs = cold_start()
    print(f"cold start, process start to first 200 (median of 3): {cs * 1e3:.0f} ms  (goal < 1000 ms)")


def _instructions_run(calls: int, env: dict[str, str]) -> int:
    """Instructions executed by a process that warms ``score()`` up and then calls it ``calls``
    times (`callgrind.instructions`)."""
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'bench')!r}]\n"
        "from bench_scorer import POEM_27, REFS\nfrom scorer.score import score\n"
        f"for _ in range(50): score(POEM_27, REFS)\nfor _ in range({calls}): score(POEM_27, REFS)\n"
    )
    return instructions(code, env)


def report_instructions(calls: int = 200) -> None:
    """Instructions per ``score()`` on the 27-line malzuma: the machine-independent figure (the
    difference between a run with ``calls`` more calls and one without, over ``calls``)."""
    if not shutil.which("valgrind"):
        print("instructions per score(): valgrind is not installed (apt install valgrind)")
        return
    env = dict(os.environ)
    per_call = (_instructions_run(calls, env) - _instructions_run(0, env)) / calls
    print(f"instructions per score(), 27-line malzuma (callgrind): {per_call / 1e6:.2f} M")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every measurement (default 3)")
    ap.add_argument("--seconds", type=float, default=3.0, help="load per server per round (default 3)")
    ap.add_argument(
        "--only",
        choices=("score", "http", "instructions"),
        help="run one part only (instructions: callgrind's count per score(), needs valgrind)",
    )
    ap.add_argument("--score-round", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.score_round:  # one round of report_score, in a process of its own
        print(json.dumps(_score_round()))
        return 0
    if args.only in (None, "score"):
        report_score(max(args.rounds, 5))
    if args.only in (None, "instructions"):
        report_instructions()
    if args.only in (None, "http"):
        report_http(args.rounds, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
