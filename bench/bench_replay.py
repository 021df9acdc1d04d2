"""Replay speed (figures, not a test): the dev run's ledger, 156 steps x 512 rollouts = 79,872 records,
re-scored by `tunifolk replay`'s code against bare `score()` calls on the same texts.

1. Writes a ledger of `--steps` x `--per-step` records (64 prompt groups of 8 per step; texts from
   data/samples, whole and cut) with the scorer's own record builder, as the service prints it.
2. Bare: `score()` over every record's text and references in one process: rollouts/s per core.
3. Replay: the emulator's BigQuery stand-in serves the ledger; `tunifolk.ledger.replay.replay` runs
   `--shards` processes (default: the CPU count), each reading its steps through `jobs.query` and
   scoring them. Reported: wall time, rollouts/s per core, and its ratio to bare calls (goal >= 0.8),
   with the time spent reading the ledger.

`python bench/bench_replay.py [--steps 156] [--per-step 512] [--shards N]`. On a machine whose CPUs
are shared, the ratio is the figure that means something; `uptime`'s load is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from scorer import ledger  # noqa: E402
from scorer.app import clamped  # noqa: E402
from scorer.score import score  # noqa: E402
from servers import emulator  # noqa: E402
from tunifolk.ledger.replay import merge, replay  # noqa: E402
from tunifolk.standin.bigquery import DIRS_ENV  # noqa: E402

JOB = "8000000000000000001"
GROUP = 8


def pool() -> list[tuple[str, dict[str, str]]]:
    """(text, references) of every sample poem, whole and with lines cut."""
    out = []
    for script, folder in (
        ("arabic", ROOT / "data" / "samples"),
        ("arabizi", ROOT / "data" / "samples" / "arabizi"),
    ):
        for path in sorted(folder.glob("*.txt")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for cut in range(4):
                out.append(("\n".join(lines[: len(lines) - 2 * cut]), {"form": path.stem, "script": script}))
    return out


def write_ledger(path: Path, steps: int, per_step: int) -> list[tuple[str, dict[str, str]]]:
    texts = pool()
    cache: dict[int, tuple[float, dict[str, float], str]] = {}
    used = []
    with path.open("wb") as out:
        for step in range(steps):
            for i in range(per_step):
                k = (step * 7 + i) % len(texts)
                text, refs = texts[k]
                if k not in cache:
                    s = score(text, refs)
                    cache[k] = (clamped(s.reward), s.subscores, s.reason)
                reward, subs, reason = cache[k]
                example = {"contents": [{"role": "user", "parts": [{"text": f"{step}:{i // GROUP}"}]}],
                           "references": refs}  # fmt: skip
                meta = {"step": step, "tuning_job_id": JOB}
                out.write(ledger.log_line(ledger.record(meta, example, refs, text, reward, subs, reason)))
                used.append((text, refs))
    return used


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=156)
    p.add_argument("--per-step", type=int, default=512)
    p.add_argument("--shards", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    n = args.steps * args.per_step
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        used = write_ledger(folder / "scorer.stdout", args.steps, args.per_step)
        size = (folder / "scorer.stdout").stat().st_size
        print(f"ledger: {n:,} records, {size / 1e6:.1f} MB (~{size / n:.0f} bytes a record)")

        t0, cpu0 = time.perf_counter(), time.process_time()
        for text, refs in used:
            score(text, refs)
        bare_wall, bare = n / (time.perf_counter() - t0), n / (time.process_time() - cpu0)
        print(f"bare score():  {bare:,.0f} rollouts per CPU-second ({bare_wall:,.0f}/s wall, one process)")

        with emulator("--step-seconds", "0.02", env={DIRS_ENV: str(folder)}, quiet=True) as url:
            t0 = time.perf_counter()
            results = replay("bench", "tunifolk_ledger", JOB, args.shards, endpoint=url)
            wall = time.perf_counter() - t0
        _, overall = merge(results)
        assert overall.rollouts == n, (overall.rollouts, n)
        per_core = n / sum(r.cpu_s for r in results)
        read = sum(r.read_s for r in results) / args.shards
        print(f"replay:        {n:,} rollouts in {wall:.1f} s wall on {args.shards} processes "
              f"({n / wall:,.0f}/s); {per_core:,.0f} rollouts per CPU-second of the shards; "
              f"reading {read:.1f} s per shard")  # fmt: skip
        print(f"replay per core / bare score() = {per_core / bare:.2f}  (goal >= 0.8; CPU time, so the "
              "machine's other load does not enter)")  # fmt: skip
        print(f"dev run (79,872) at this wall rate: {79_872 / (n / wall):.1f} s; on 2 idle cores at the "
              f"shards' CPU rate: {79_872 / (2 * per_core):.1f} s  (goal < 30 s)")  # fmt: skip
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
