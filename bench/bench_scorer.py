"""Scorer benchmarks (figures, not tests).

* ``score()`` on the 27-line malzuma of ``data/samples`` (pure core, one process): median and p99
  per round, over several rounds (the median of the rounds and their spread are printed: this
  machine's CPUs are shared, so one round proves little). Also the mean over a varied corpus of
  policy-like poems (every form, both scripts, honest and hacked; ``emulator/policy.py``), first
  pass (words never seen: the per-word caches miss) and steady state.
* Requests/s and p99 latency at 32 concurrent keep-alive connections on loopback, every server
  side by side in each round, same load generator (a small asyncio raw-socket client), same body:

  - the scorer (``python -m scorer``), as deployed (one process: Cloud Run's default 1 vCPU), and
    with one worker process per CPU of this machine (``WEB_CONCURRENCY``, for an instance with
    that many vCPUs);
  - the null handler: our own ASGI stack (uvicorn + uvloop + httptools) reading the body and
    answering a constant, so the figure shows what scoring costs on top of HTTP;
  - **the yardstick of issue 11**: a stdlib ``http.server`` (ThreadingHTTPServer) that parses the
    JSON and answers a constant, with TCP_NODELAY. Without it the naive server writes headers and
    body in separate segments and Nagle + delayed ACK stall every keep-alive answer for ~40 ms,
    which makes the ratio meaningless (it is printed too, for completeness);
  - a stdlib server doing the same scoring (with TCP_NODELAY), for scale.

  Ratios are taken within a round (scorer and baseline measured a few seconds apart) and their
  median and spread printed.
* Cold start: process start to the first 200 answer to a scoring POST.

``python bench/bench_scorer.py [--rounds N] [--seconds S] [--only score|http]``; the default run
takes about two minutes on 2 CPUs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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

CPUS = os.cpu_count() or 1
PER_CPU = {"WEB_CONCURRENCY": str(CPUS)}
# (key, label, server code (None is ``python -m scorer``), environment)
SERVERS = [
    ("scorer", "scorer, 1 process (default)", None, {}),
    ("scorerN", f"scorer, {CPUS} processes (1 per CPU)", None, PER_CPU),
    ("null", "null handler, our stack, 1 proc.", NULL_SERVER, {}),
    ("const", "stdlib, JSON + constant, NODELAY", STDLIB_CONSTANT, {}),
    ("naive", "stdlib, JSON + constant, naive", STDLIB_CONSTANT_NAIVE, {}),
    ("stdscore", "stdlib, same scoring, NODELAY", STDLIB_SCORING, {}),
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


def corpus(n: int = 600) -> list[tuple[dict, dict[str, str]]]:
    """Varied responses like a tuning run's: the emulator's policy writing every form in both
    scripts, honest and hacked, at every stage of training (seeded)."""
    from emulator import policy
    from scorer.catalogue import FORMS

    rng = random.Random(0)
    forms = sorted(FORMS)
    out = []
    for i in range(n):
        refs = {"form": forms[i % len(forms)], "script": "arabizi" if i % 3 == 0 else "arabic"}
        refs["refrain"] = "yes" if i % 2 else "no"
        p = policy.generate(rng, (i % 50) / 49, "hacking" if i % 4 == 0 else "honest", refs)
        out.append(({"parts": [{"text": p.thought, "thought": True}, {"text": p.text}]}, refs))
    return out


def bench_corpus() -> tuple[float, float]:
    """Mean seconds per ``score()`` over the corpus: first pass (unseen words), then steady state."""
    from scorer.arabic import rhyme_identity, rhyme_key
    from scorer.lexicon import is_arabic_word, is_arabizi_word

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


async def _conn_loop(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, until: float, lat: list[float], req: bytes
) -> None:
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


async def _load(port: int, seconds: float) -> tuple[float, float]:
    """Open the connections first (a naive server's accept backlog of 5 delays some connects by a
    SYN retry, seconds, which must not count), warm up on them for WARM_UP seconds, then measure."""
    req = (
        b"POST / HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % len(BODY)
        + BODY
    )
    conns = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port) for _ in range(CONNECTIONS)))
    try:
        warm: list[float] = []
        until = time.perf_counter() + WARM_UP
        await asyncio.gather(*(_conn_loop(r, w, until, warm, req) for r, w in conns))
        lat: list[float] = []
        t0 = time.perf_counter()
        await asyncio.gather(*(_conn_loop(r, w, t0 + seconds, lat, req) for r, w in conns))
        elapsed = time.perf_counter() - t0
    finally:
        for _, w in conns:
            w.close()
    lat.sort()
    return len(lat) / elapsed, lat[int(len(lat) * 0.99)]


def load(code: str | None, seconds: float, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Requests/s and p99 latency (s) of one server at CONNECTIONS keep-alive connections."""
    port = free_port()
    proc = start(code, port, env)
    try:
        first_200(port, proc)
        time.sleep(SETTLE)  # the first worker answers; let the others start before connecting
        try:
            import uvloop

            return uvloop.run(_load(port, seconds))
        except ImportError:
            return asyncio.run(_load(port, seconds))
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


def report_score(rounds: int) -> None:
    med, p99 = bench_score(rounds)
    us = [m * 1e6 for m in med]
    print(
        f"score() on the 27-line malzuma, {rounds} rounds of 2000 calls: median {_spread(us)} µs,"
        f" p99 {_spread([p * 1e6 for p in p99])} µs  (goal: median <= 200 µs)"
    )
    first, steady = bench_corpus()
    print(
        f"score() over 600 varied poems (every form, both scripts): mean {steady * 1e6:.0f} µs"
        f" steady, {first * 1e6:.0f} µs first pass (per-word caches cold)"
    )


def report_http(rounds: int, seconds: float) -> None:
    print(
        f"load: {CONNECTIONS} keep-alive connections, {seconds:g} s per server per round, {rounds} rounds,"
        f" loopback, {os.cpu_count()} CPUs; req/s median (min–max), p99 median"
    )
    rps: dict[str, list[float]] = {k: [] for k, _, _, _ in SERVERS}
    p99: dict[str, list[float]] = {k: [] for k, _, _, _ in SERVERS}
    for r in range(rounds):
        order = SERVERS[r % len(SERVERS) :] + SERVERS[: r % len(SERVERS)]  # rotate: drift hits all alike
        for key, _label, code, env in order:
            x, lat = load(code, seconds, env)
            rps[key].append(x)
            p99[key].append(lat)
    for key, label, _, _ in SERVERS:
        lat = statistics.median(p99[key]) * 1e3
        print(f"  {label:34s}: {_spread(rps[key]):>22s} req/s  p99 {lat:6.1f} ms")

    def ratio(a: str, b: str) -> str:
        return _spread([x / y for x, y in zip(rps[a], rps[b], strict=True)], "{:.2f}")

    print(f"  scorer / stdlib JSON + constant, NODELAY = {ratio('scorer', 'const')}  (goal >= 1.0)")
    print(f"    with {CPUS} processes                      = {ratio('scorerN', 'const')}")
    print(f"  scorer / stdlib JSON + constant, naive   = {ratio('scorer', 'naive')}")
    print(f"    with {CPUS} processes                      = {ratio('scorerN', 'naive')}")
    print(f"  scorer / null handler                    = {ratio('scorer', 'null')}")
    print(f"  null handler / stdlib constant, NODELAY  = {ratio('null', 'const')}")
    print(f"  scorer / stdlib same scoring, NODELAY    = {ratio('scorer', 'stdscore')}")
    cs = cold_start()
    print(f"cold start, process start to first 200 (median of 3): {cs * 1e3:.0f} ms  (goal < 1000 ms)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every measurement (default 3)")
    ap.add_argument("--seconds", type=float, default=3.0, help="load per server per round (default 3)")
    ap.add_argument("--only", choices=("score", "http"), help="run one half only")
    args = ap.parse_args(argv)
    if args.only != "http":
        report_score(max(args.rounds, 5))
    if args.only != "score":
        report_http(args.rounds, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
