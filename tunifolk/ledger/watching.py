"""The trip wires of a live or finished job, read from its ledger: the I/O around `tunifolk.tripwires`.

`LedgerWatch` keeps the records read so far and reads only the steps after them on each call (the
last step again, which may have been half written), so `tunifolk watch` polls cheaply; `tunifolk
status` reads once. A job whose ledger cannot be read (no ledger dataset, a reward that is not the
stack's scorer) gets no trip-wire verdicts, and says why in one line.
"""

from __future__ import annotations

from typing import Any

from tunifolk import tripwires
from tunifolk.errors import TunifolkError
from tunifolk.health import OK, Verdict
from tunifolk.ledger.bigquery import LedgerReader, Rollout
from tunifolk.metrics import Metrics
from tunifolk.vertex import VertexClient

LAST_STEP = 10**9


class LedgerWatch:
    def __init__(self, client: VertexClient, job_name: str, dataset: str) -> None:
        self.reader = LedgerReader(job_name.split("/")[1], dataset, client=client)
        self.job = job_name.rsplit("/", 1)[1]
        self.rows: list[Rollout] = []
        self.problem: str | None = None

    def update(self) -> list[Rollout]:
        """Read the steps not read yet (and the last one again); every record so far."""
        last = max((r.step for r in self.rows), default=-1)
        try:
            new = self.reader.rollouts(self.job, steps=(max(last, 0), LAST_STEP))
        except TunifolkError as exc:
            self.problem = str(exc).splitlines()[0]
            return self.rows
        self.problem = None
        self.rows = [r for r in self.rows if r.step < last] + new
        return self.rows

    def verdicts(self, job: dict[str, Any], metrics: Metrics | None) -> list[Verdict]:
        """The trip wires and the HACKING verdict over the records read so far."""
        if not self.rows:
            why = self.problem or "no records for this job"
            return [Verdict(tripwires.HACKING, OK, f"rollout ledger not read ({why}): trip wires off")]
        return tripwires.verdicts(tripwires.per_step(self.rows), judge_series(job, metrics))


def judge_series(job: dict[str, Any], metrics: Metrics | None) -> dict[int, float]:
    """The judge rewards' mean train reward per step (their mean when there are several)."""
    if metrics is None:
        return {}
    sums: dict[int, list[float]] = {}
    for name in tripwires.judge_rewards(job):
        for p in metrics.values(f"{name}/train_mean_reward"):
            sums.setdefault(p.step, []).append(p.value)
    return {step: sum(vs) / len(vs) for step, vs in sums.items()}
