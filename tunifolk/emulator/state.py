"""The state one emulator process shares between its route families.

Jobs, metrics, serving resources, faults and the request logs live here, once, so that a job's
lifecycle (which writes metrics and creates models and endpoints) and every route that reads them
see the same objects. The HTTP client, the reward caller and the job store need a running event
loop, so they are made in `start` (the app's lifespan) rather than in the constructor.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from . import persist
from .faults import FaultConfig, Faults
from .hostile import Hostile
from .jobs import JobSettings, JobStore
from .lifecycle import Lifecycle
from .metrics import MetricsStore
from .rewards import RewardCaller, RewardSettings
from .serving import Serving, ServingSettings

#: Outgoing reward calls kept for `/emulator/requests` (a long load test would otherwise grow it
#: without bound).
MAX_REWARD_CALL_RECORDS = 50_000


@dataclass
class Options:
    """Everything the command line sets."""

    jobs: JobSettings = field(default_factory=JobSettings)
    faults: FaultConfig = field(default_factory=FaultConfig)
    rewards: RewardSettings = field(default_factory=RewardSettings)
    serving: ServingSettings = field(default_factory=ServingSettings)
    state_file: Path | None = None  # where the state is kept across restarts (persist.py)
    #: The hostile readings on (`--hostile`: `Hostile.every()`; hostile.py names each one's Google page).
    hostile: Hostile = field(default_factory=Hostile)


class State:
    """State of one emulator process: jobs, metrics, serving resources, faults and request logs."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.faults = Faults(options.faults)
        self.metrics = MetricsStore()
        self.serving = Serving(
            lro_seconds=options.serving.lro_seconds,
            lro_error_rate=options.serving.lro_error_rate,
            lro_error_code=options.serving.lro_error_code,
            seed=options.faults.seed,
        )
        self.counts: Counter[str] = Counter()
        self.reward_calls: list[dict[str, Any]] = []
        self._client: httpx.AsyncClient | None = None
        self._caller: RewardCaller | None = None
        self._store: JobStore | None = None

    @property
    def report_progress(self) -> bool:
        return self.options.jobs.report_progress

    @property
    def store(self) -> JobStore:
        """The job store (only while the app runs: it starts tasks on the running loop)."""
        assert self._store is not None, "the emulator's lifespan has not started"
        return self._store

    @property
    def caller(self) -> RewardCaller:
        """The reward caller (only while the app runs: it owns the HTTP client)."""
        assert self._caller is not None, "the emulator's lifespan has not started"
        return self._caller

    async def start(self) -> None:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=100)
        self._client = httpx.AsyncClient(limits=limits)
        hostile = self.options.hostile
        self._caller = RewardCaller(self._client, self.options.rewards, self._record_reward_call, hostile)
        lifecycle = Lifecycle(self.options.jobs, self._caller, self.metrics, self.serving, hostile)
        self._store = JobStore(lifecycle.run, self.options.faults.seed)
        path = self.options.state_file
        data = persist.load(path) if path else None
        if data is not None:
            for job in persist.restore(data, self._store.jobs, self.serving, self.metrics):
                self._store.start(job)

    async def stop(self) -> None:
        if self._store is not None:
            for job in self._store.jobs.values():
                if job.task is not None:
                    job.task.cancel()
            if self.options.state_file:
                persist.save(
                    self.options.state_file, persist.snapshot(self._store.jobs, self.serving, self.metrics)
                )
        if self._client is not None:
            await self._client.aclose()

    def _record_reward_call(self, entry: dict[str, Any]) -> None:
        if len(self.reward_calls) < MAX_REWARD_CALL_RECORDS:
            self.reward_calls.append(entry)
