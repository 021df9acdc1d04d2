"""Emulator figures: GetTuningJob requests/s over loopback, and the wall time of the seed's full run.

Not a test: prints numbers. The full run is the seed's shape (843 examples, batch 32, 6 epochs =
156 steps, eval every 13, checkpoint every 26) at --step-seconds 0.01, scored by a local fixture
reward server, so the figure is the emulator's own overhead on top of 156 x 0.01 s.
"""

from __future__ import annotations

import concurrent.futures
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from emulator_api import RewardServer, job_body, write_datasets  # noqa: E402
from servers import emulator  # noqa: E402

THREADS = 8
SECONDS = 5.0


def get_rps(url: str, name: str) -> float:
    stop = time.monotonic() + SECONDS
    counts = [0] * THREADS

    def worker(i: int) -> None:
        with requests.Session() as s:
            while time.monotonic() < stop:
                r = s.get(f"{url}/v1beta1/{name}", timeout=10)
                assert r.status_code == 200
                counts[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.monotonic() - t0)


def _proc_worker(url: str, name: str, seconds: float) -> int:
    n = 0
    stop = time.monotonic() + seconds
    with requests.Session() as s:
        while time.monotonic() < stop:
            assert s.get(f"{url}/v1beta1/{name}", timeout=10).status_code == 200
            n += 1
    return n


def get_rps_processes(url: str, name: str) -> float:
    """The same load from 8 processes: one Python client thread is GIL-bound near ~1.5k/s."""
    with concurrent.futures.ProcessPoolExecutor(THREADS) as pool:
        t0 = time.monotonic()
        total = sum(pool.map(_proc_worker, [url] * THREADS, [name] * THREADS, [SECONDS] * THREADS))
        return total / (time.monotonic() - t0)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gcs = Path(tmp) / "gcs"
        train, val = write_datasets(gcs, train=843, val=50)
        with RewardServer() as rs, emulator("--step-seconds", "0.01", "--gcs-dir", str(gcs)) as url:
            body = job_body(
                train,
                val,
                rs.url + "/ok",
                batchSize=32,
                epochCount="6",
                evaluateInterval=13,
                checkpointInterval=26,
            )
            parent = "projects/bench/locations/us-central1"
            t0 = time.monotonic()
            job = requests.post(f"{url}/v1beta1/{parent}/tuningJobs", json=body, timeout=10).json()
            while True:
                state = requests.get(f"{url}/v1beta1/{job['name']}", timeout=10).json()
                if state["state"] in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED"):
                    break
                time.sleep(0.01)
            wall = time.monotonic() - t0
            steps = state["tuningDataStats"]["reinforcementTuningDataStats"]["tuningStepCount"]
            print(f"full job: {steps} steps at 0.01 s/step -> {state['state']} in {wall:.2f} s wall")
            print(f"reward calls made: {len(rs.requests)}")
            rps = get_rps(url, job["name"])
            print(
                f"GetTuningJob: {rps:,.0f} requests/s ({THREADS} threads, requests.Session, {SECONDS:.0f} s)"
            )
            rps = get_rps_processes(url, job["name"])
            print(f"GetTuningJob: {rps:,.0f} requests/s ({THREADS} client processes, {SECONDS:.0f} s)")


if __name__ == "__main__":
    main()
