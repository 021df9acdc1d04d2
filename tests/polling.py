"""Waiting in tests: one poll loop, so every wait has a deadline and says what it waited for.

Tests wait on real processes (a job reaching a state, an operation finishing, a port freed) and
never sleep a fixed time instead: a wait that times out fails with what it was waiting for and the
last value it saw, which is what a reader of a red test needs first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import Any, TypeVar

T = TypeVar("T")


def poll(
    read: Callable[[], T],
    done: Callable[[T], object] = bool,
    *,
    timeout: float,
    what: str,
    interval: float = 0.02,
    show: Callable[[T], object] = repr,
) -> T:
    """Call `read` until `done(value)` is true and return that value; after `timeout` seconds fail
    naming `what` and the last value (through `show`, cut to 300 characters)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"timed out after {timeout}s waiting for {what}; last: {str(show(value))[:300]}"
            )
        time.sleep(interval)


def job_state(read: Callable[[], dict[str, Any]], states: Collection[str], timeout: float) -> dict[str, Any]:
    """Read a tuning job until its state is one of `states`; the job as it was then."""
    return poll(
        read,
        lambda job: job["state"] in states,
        timeout=timeout,
        what=f"a job state in {sorted(states)}",
        show=lambda job: f"{job.get('name')} in {job.get('state')}",
    )
