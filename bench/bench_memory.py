"""The scorer's memory at the stacks' concurrency: 80 requests in flight at once, each a body just under
MAX_BODY, against a real `python -m scorer` (its scoring process included). Prints the peak resident
memory, the idle baseline, and the per-request figure the stack's preview check uses
(tunifolk.cloudrun_limits.SCORER_BASE_MEMORY / SCORER_REQUEST_MEMORY). Figures, not a test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from scorer.app import MAX_BODY
from tunifolk import cloudrun_limits
from tunifolk.paths import ROOT
from tunifolk.processes import descendants, free_port, stop, wait_healthy

CONCURRENCY = 80


def rss(pid: int) -> int:
    """Resident bytes of `pid` and every process it started (the scoring process)."""
    total = 0
    for p in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def main() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorer"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc=proc)
        text = ("يا بحر يا موجك غدّار ** خذيت مني ضي النهار " * 30_000).encode()[: MAX_BODY - 1000]
        doc = {
            "example": {"references": {"form": "malzuma"}},
            "response": {"parts": [{"text": text.decode("utf-8", "ignore")}]},
        }
        body = json.dumps(doc, ensure_ascii=False).encode()
        requests.post(url, data=body, timeout=60)  # the scoring process is up
        base = rss(proc.pid)
        peak, done = base, threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, rss(proc.pid))
                time.sleep(0.005)

        watcher = threading.Thread(target=sample)
        watcher.start()
        started = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENCY) as pool:
            codes = list(
                pool.map(lambda _: requests.post(url, data=body, timeout=300).status_code, range(CONCURRENCY))
            )
        wall = time.perf_counter() - started
        done.set()
        watcher.join()
        mib = 1024**2
        size, each = len(body) / mib, (peak - base) / CONCURRENCY / mib
        print(f"bodies: {CONCURRENCY} x {size:.2f} MiB at once; answers {sorted(set(codes))} in {wall:.1f} s")
        print(f"resident: idle {base / mib:.0f} MiB, peak {peak / mib:.0f} MiB; {each:.2f} MiB per request")
        need = cloudrun_limits.scorer_memory_needed(CONCURRENCY)
        print(f"the preview check asks for {need / mib:.0f} MiB at concurrency {CONCURRENCY} (peak x margin)")
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
