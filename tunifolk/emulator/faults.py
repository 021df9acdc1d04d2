"""Injected faults, drawn from one seeded generator so a faulty test run repeats exactly.

The real service answers 503s and 429s (sometimes with `Retry-After: 0`), is slow at times, and its
front end sometimes answers with an HTML page instead of JSON. Job creation can fail before the job
is stored or after it (the client sees the same error either way): the second case is what
create-or-adopt must survive. Every request draws the same number of random values in the same
order, so the sequence of faults depends only on the seed and the order of requests.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field


@dataclass
class FaultConfig:
    """The fault options from the command line; all off by default."""

    seed: int = 0
    rate_503: float = 0.0
    rate_429: float = 0.0
    retry_after: float = 1.0
    latency_ms: float = 0.0
    rate_html: float = 0.0
    create_fault: str = "none"  # before | after | none: how the first create call fails


@dataclass
class Decision:
    """What to do to one request before (or instead of) answering it."""

    latency_s: float = 0.0
    status: int | None = None  # 503 or 429 or 502 (html)
    html: bool = False


@dataclass
class Faults:
    """Seeded fault generator shared by all routes except /healthz and /emulator/."""

    config: FaultConfig
    _rng: random.Random = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    create_fault_used: bool = False
    injected: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.config.seed)

    def draw(self) -> Decision:
        """Draw the fault for the next request (always four draws, to keep the sequence stable)."""
        c = self.config
        with self._lock:
            r_lat, r_503, r_429, r_html = (self._rng.random() for _ in range(4))
        d = Decision()
        if c.latency_ms > 0:
            d.latency_s = c.latency_ms / 1000.0 * (0.5 + r_lat)
        if r_html < c.rate_html:
            d.status, d.html = 502, True
        elif r_503 < c.rate_503:
            d.status = 503
        elif r_429 < c.rate_429:
            d.status = 429
        if d.status is not None:
            key = "html" if d.html else str(d.status)
            self.injected[key] = self.injected.get(key, 0) + 1
        return d

    def take_create_fault(self) -> str:
        """The create fault mode for this create call: only the first create call gets one."""
        if self.config.create_fault == "none" or self.create_fault_used:
            return "none"
        self.create_fault_used = True
        self.injected["create-" + self.config.create_fault] = 1
        return self.config.create_fault
