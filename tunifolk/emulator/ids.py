"""The ids the emulator gives what it creates: random, as Google's are, never derived from a seed.

Vertex names jobs, models, endpoints and operations with opaque 19-digit numbers (the discovery
document's examples and every name the service returns; their distribution is UNCONFIRMED). They
must not repeat across emulator runs: a Pulumi state that still names a job of an earlier run must
get 404 from a new emulator, never another run's job that happens to draw the same seeded id. So
they come from the operating system's randomness, not from `--fault-seed`.
"""

from __future__ import annotations

import secrets
from collections.abc import Container

#: 19 digits, and an int64 (the reward request's job id is an int64 in the REST reference, which
#: ProtoJSON writes as a string): at most 2**63 - 1, so a job id sent as a JSON number (hostile reading
#: `tuning-job-id`) is one an int64 reader can hold, though a double cannot.
LOW, SPAN = 10**18, 2**63 - 10**18


def random_id(taken: Container[str] = ()) -> str:
    """A fresh 19-digit id (an int64) not in `taken`."""
    while True:
        new = str(LOW + secrets.randbelow(SPAN))
        if new not in taken:
            return new
