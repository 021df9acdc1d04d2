"""The scorer's container image (figures, not tests; docs/image.md records them).

* Build time: warm (nothing changed: podman's layer cache) and cold (every step again, ``--no-cache``;
  the Debian bases, made once by mmdebstrap, are kept).
* Image size (every layer, uncompressed, as podman counts it; the goal is under 200 MB) and the
  served base's size under it.
* Cold start: from ``podman run`` to the first 200 on ``/healthz`` (median of several).
* Requests/s and p99 latency with 32 keep-alive clients, through the container (published on
  loopback) and from the same scorer run as a process (``python -m scorer``), alternated in each
  round, with bench/bench_scorer.py's load generator and body.

``python bench/bench_image.py [--rounds N] [--seconds S] [--no-cold-build]``. Without podman it
prints why and exits 0 (``make image-tools`` installs it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_scorer import _load  # noqa: E402

from tunifolk.image import base_tag, build, inspect, run, unavailable  # noqa: E402
from tunifolk.processes import free_port, healthy, stop, wait_until  # noqa: E402


def _wait(port: int, timeout: float = 60.0) -> float:
    """Poll /healthz every 5 ms (cold starts are the figure) until it answers 200; the time it did."""
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: healthy(url, timeout=2), what=f"the scorer at {url}", timeout=timeout, poll=0.005)
    return time.monotonic()


def cold_starts(ref: str, count: int) -> list[float]:
    """Seconds from ``podman run`` to the first 200 on /healthz, ``count`` times."""
    out = []
    for _ in range(count):
        port = free_port()
        t0 = time.monotonic()
        container = run(ref, port)
        try:
            out.append(_wait(port) - t0)
        finally:
            container.stop()
    return out


def _measure(port: int, seconds: float) -> tuple[float, float]:
    import uvloop

    return uvloop.run(_load(port, seconds, False))


def throughput(ref: str, rounds: int, seconds: float) -> dict[str, list[tuple[float, float]]]:
    """(requests/s, p99 s) per round, for the container and for the scorer as a process; each
    writes its ledger lines where its platform would (podman's log, a file)."""
    out: dict[str, list[tuple[float, float]]] = {"container": [], "process": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            port = free_port()
            container = run(ref, port)
            try:
                _wait(port)
                out["container"].append(_measure(port, seconds))
            finally:
                container.stop()
            port = free_port()
            env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "LOG_LEVEL": "error"}
            with (Path(tmp) / f"ledger-{i}.jsonl").open("wb") as log:
                proc = subprocess.Popen([sys.executable, "-m", "scorer"], cwd=ROOT, env=env, stdout=log)
                try:
                    _wait(port)
                    out["process"].append(_measure(port, seconds))
                finally:
                    stop(proc)
            print(f"round {i + 1}/{rounds}", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--no-cold-build", action="store_true", help="skip the cold build (minutes)")
    args = parser.parse_args(argv)
    if why := unavailable():
        print(f"bench_image: skipped: {why}")
        return 0
    build()  # whatever is missing (the bases, the layers) is made first
    if not args.no_cold_build:
        t0 = time.monotonic()
        build(no_cache=True)
        print(f"build, cold (--no-cache, bases kept): {time.monotonic() - t0:.0f} s")
    t0 = time.monotonic()
    image = build()
    print(f"build, warm (nothing changed):      {time.monotonic() - t0:.1f} s")
    base = inspect(base_tag("BASE_IMAGE"))
    print(f"image size: {image.size / 1e6:.0f} MB (goal < 200 MB); the served base: {base.size / 1e6:.0f} MB")
    print(f"image: {image.ref}")
    starts = cold_starts(image.ref, args.starts)
    print(
        f"cold start, podman run -> first 200 on /healthz: median {statistics.median(starts):.2f} s "
        f"(min {min(starts):.2f}, max {max(starts):.2f}, {len(starts)} runs)"
    )
    figures = throughput(image.ref, args.rounds, args.seconds)
    for name, rows in figures.items():
        rps = [r for r, _ in rows]
        p99 = [p for _, p in rows]
        spread = f"min {min(rps):.0f}, max {max(rps):.0f}"
        p99_ms = statistics.median(p99) * 1e3
        print(f"{name:9} requests/s: median {statistics.median(rps):.0f} ({spread}); p99 {p99_ms:.1f} ms")
    ratios = [c / p for (c, _), (p, _) in zip(figures["container"], figures["process"], strict=True)]
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"container / process: median {statistics.median(ratios):.2f} ({each})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
