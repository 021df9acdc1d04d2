"""Replay: re-score the ledger's rollouts with this checkout's scorer, and say what would have changed.

Before paying for a new run, see what a reward change would have done to the last one: for every
prompt group (the samples of one example at one step: GRPO's unit) the rank correlation between the
recorded rewards and the new ones (Spearman), whether the group's winner changes, and the largest
moves, with their texts; per step and overall.

Sharding, one code path for both places:
- locally `replay()` runs N processes (`--shards`, default the CPU count); shard i reads the steps
  with `MOD(step, N) = i` through BigQuery (`run_shard`), scores them, and returns compact results;
  the parent merges them. Whole steps go to one shard, so every prompt group is whole.
- on Google the same `run_shard` runs as a Cloud Run job of N tasks: `python -m tunifolk.ledger.replay
  --project P --job J` reads `CLOUD_RUN_TASK_INDEX` / `CLOUD_RUN_TASK_COUNT` (set by Cloud Run jobs
  for each task) and prints its shard's results as one JSON line to stdout (Cloud Logging keeps it);
  `merge()` over the N lines gives the report. Aggregates that need no scorer (counts, means) belong
  to the SQL engine itself, not to the shards.

`score()` is the scorer's pure core: what replay measures is exactly what the service would answer,
clamped as the service clamps it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from tunifolk.errors import TunifolkError
from tunifolk.ledger.bigquery import LedgerReader, Rollout

READ_TIMEOUT_S = 600.0
"""A shard's query returns tens of thousands of records: it may take minutes, not the client's 60 s."""
MOVES_KEPT = 5
"""Largest moves reported per step and overall."""

WARM_UP = "يا بحر يا موجك غدّار\nوالليل طويل علينا"
"""Scored once in the parent: every shard process inherits the loaded lexicon."""
Scored = tuple[int, str, float, float]
"""(step, example digest, recorded reward, new reward) of one rollout."""


@dataclass
class ShardResult:
    """What one shard hands back: every rollout's two rewards, and its largest moves with texts."""

    scored: list[Scored] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    read_s: float = 0.0
    score_s: float = 0.0
    cpu_s: float = 0.0
    """CPU time of the whole shard (reading, decoding, scoring): what a core spends, whatever the
    machine's other load does to wall time."""

    def as_json(self) -> dict[str, Any]:
        return {"scored": self.scored, "moves": self.moves, "read_s": self.read_s, "score_s": self.score_s,
                "cpu_s": self.cpu_s}  # fmt: skip

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ShardResult:
        scored = [(int(a), str(b), float(c), float(d)) for a, b, c, d in doc["scored"]]
        return cls(scored, doc["moves"], doc["read_s"], doc["score_s"], doc.get("cpu_s", 0.0))


def rescore(rows: list[Rollout]) -> tuple[list[Scored], list[dict[str, Any]]]:
    """Score each rollout again (pure): the pairs, and each step's largest moves with their texts."""
    from scorer.app import clamped  # here: the CLI imports this module for every command's --help
    from scorer.score import score

    out: list[Scored] = []
    best: dict[int, list[tuple[float, dict[str, Any]]]] = defaultdict(list)
    for r in rows:
        new = score(r.response, r.references)
        reward = clamped(new.reward)
        out.append((r.step, r.example_digest, r.reward, reward))
        move = abs(reward - r.reward)
        kept = best[r.step]
        if move > 0 and (len(kept) < MOVES_KEPT or move > kept[-1][0]):
            kept.append((move, _move(r, reward, new.reason)))
            kept.sort(key=lambda m: -m[0])
            del kept[MOVES_KEPT:]
    return out, [m for kept in best.values() for _, m in kept]


def _move(r: Rollout, reward: float, reason: str) -> dict[str, Any]:
    return {"step": r.step, "form": r.form, "old": r.reward, "new": reward, "old_reason": r.reason,
            "new_reason": reason, "text": r.response}  # fmt: skip


def run_shard(
    project: str,
    dataset: str,
    job: str,
    index: int,
    count: int,
    steps: tuple[int, int] | None = None,
    endpoint: str | None = None,
) -> ShardResult:
    """Shard `index` of `count`: read its steps from the ledger, score them again."""
    from tunifolk.vertex import VertexClient

    t0, cpu0 = time.perf_counter(), time.process_time()
    with VertexClient(endpoint=endpoint, timeout=READ_TIMEOUT_S) as client:
        reader = LedgerReader(project, dataset, client=client)
        rows = reader.rollouts(job, shard=(index, count) if count > 1 else None, steps=steps, light=True)
    t1 = time.perf_counter()
    scored, moves = rescore(rows)
    return ShardResult(scored, moves, t1 - t0, time.perf_counter() - t1, time.process_time() - cpu0)


def _shard_entry(args: tuple[Any, ...]) -> dict[str, Any]:
    """A shard in a worker process; an expected failure comes back as its message (our errors do not
    cross a process boundary: they are not picklable)."""
    try:
        return run_shard(*args).as_json()
    except TunifolkError as exc:
        return {"error": str(exc), "exit_code": exc.exit_code}


def _result(doc: dict[str, Any]) -> ShardResult:
    if "error" in doc:
        raise ShardFailed(doc["error"], doc["exit_code"])
    return ShardResult.from_json(doc)


class ShardFailed(TunifolkError):
    """A replay shard failed; the message is the shard's own."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(f"replay shard failed: {message}")
        self.exit_code = code


def replay(
    project: str,
    dataset: str,
    job: str,
    shards: int,
    steps: tuple[int, int] | None = None,
    endpoint: str | None = None,
) -> list[ShardResult]:
    """Run `shards` local processes, one shard each (the Cloud Run job's tasks, here)."""
    from scorer.score import score

    jobs = [(project, dataset, job, i, shards, steps, endpoint) for i in range(shards)]
    score(WARM_UP, {"form": "malzuma", "script": "arabic"})  # the lexicon loads once, before the fork
    if shards == 1:
        return [_result(_shard_entry(jobs[0]))]
    with ProcessPoolExecutor(max_workers=shards, mp_context=get_context("fork")) as pool:
        return [_result(doc) for doc in pool.map(_shard_entry, jobs)]


# --------------------------------------------------------------------------- the report (pure)


def ranks(values: list[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank (what Spearman's coefficient ranks by)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float | None:
    """Spearman's rank correlation (Pearson's over tied ranks); None when either side is constant
    (no order to agree with) or there are fewer than two values."""
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    if va == 0 or vb == 0:
        return None
    return cov / math.sqrt(va * vb)


@dataclass
class StepReport:
    step: int
    rollouts: int
    groups: int
    rho: float | None
    """Mean Spearman over the step's groups that have an order on both sides."""
    winners_changed: int
    mean_old: float
    mean_new: float
    moves: list[dict[str, Any]]


def merge(results: list[ShardResult]) -> tuple[list[StepReport], StepReport]:
    """Per-step reports and the overall one (step -1) from the shards' results. Groups, their
    rollouts and the moves are put in one canonical order first, so that the sums (floats) and the
    ties among moves come out the same however many shards read the ledger, in whatever order."""
    groups: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for res in results:
        for step, digest, old, new in res.scored:
            groups[(step, digest)].append((old, new))
    moves: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for res in results:
        for m in res.moves:
            moves[m["step"]].append(m)
    for ms in moves.values():
        ms.sort(key=lambda m: (m["text"], m["old"], m["new"]))
    per_step: dict[int, list[list[tuple[float, float]]]] = defaultdict(list)
    for (step, _), pairs in sorted(groups.items()):
        per_step[step].append(sorted(pairs))
    reports = [_report(step, gs, moves[step]) for step, gs in sorted(per_step.items())]
    every = [g for _, gs in sorted(per_step.items()) for g in gs]
    overall = _report(-1, every, [m for _, ms in sorted(moves.items()) for m in ms])
    return reports, overall


def _report(step: int, groups: list[list[tuple[float, float]]], moves: list[dict[str, Any]]) -> StepReport:
    rhos = [r for g in groups if (r := spearman([o for o, _ in g], [n for _, n in g])) is not None]
    changed = 0
    for g in groups:
        if len(g) < 2:
            continue
        top_old = max(o for o, _ in g)
        winner_new = max(range(len(g)), key=lambda i: g[i][1])
        changed += g[winner_new][0] != top_old  # the new winner was not among the old winners
    pairs = [p for g in groups for p in g]
    n = max(len(pairs), 1)
    top = sorted(moves, key=lambda m: -abs(m["new"] - m["old"]))[:MOVES_KEPT]
    return StepReport(
        step=step,
        rollouts=len(pairs),
        groups=len(groups),
        rho=sum(rhos) / len(rhos) if rhos else None,
        winners_changed=changed,
        mean_old=sum(o for o, _ in pairs) / n,
        mean_new=sum(nw for _, nw in pairs) / n,
        moves=top,
    )


def main(argv: list[str] | None = None) -> int:
    """One Cloud Run job task: the shard CLOUD_RUN_TASK_INDEX of CLOUD_RUN_TASK_COUNT, as a JSON line."""
    p = argparse.ArgumentParser(prog="python -m tunifolk.ledger.replay")
    p.add_argument("--project", required=True)
    p.add_argument("--job", required=True, help="the job id the scorer recorded")
    p.add_argument("--dataset", required=True, help="the stack's `ledger_dataset` output")
    args = p.parse_args(argv)
    index = int(os.environ.get("CLOUD_RUN_TASK_INDEX", "0"))
    count = int(os.environ.get("CLOUD_RUN_TASK_COUNT", "1"))
    result = run_shard(args.project, args.dataset, args.job, index, count)
    sys.stdout.write(json.dumps({"shard": index, "of": count, **result.as_json()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
