"""Cloud Run's limits on one instance's cpu, memory and concurrency: one table, read by the gcp
stand-in (which refuses a service as Cloud Run refuses it) and by the program (which checks
`tunifolk:scorer` at preview, before anything is created).

From Cloud Run's docs, "Configure CPU limits for services" and "Configure memory limits for services":
- cpu is 1, 2, 4, 6 or 8, or a fraction from 0.08 below 1 ("Values greater than 1 must be integer
  values"; the maximum is 8);
- below 1 vCPU, "Maximum concurrency must be set to 1", billing must be request-based (pulumi-gcp's
  `cpuIdle: true`), memory above 512 MiB needs 0.5 vCPU and memory above 1 GiB needs 1 vCPU;
- memory per cpu: 1 vCPU up to 4 GiB, 2 up to 8 GiB, 4 from 2 to 16 GiB, 6 from 4 to 24 GiB, 8 from 4
  to 32 GiB; the minimum is 128 MiB in the first generation execution environment, 512 MiB in the
  second.

Google's words for a refusal, as its API returned them (quoted in public issue threads): "Invalid value
specified for cpu. Total cpu < 1 is not supported with concurrency > 1." and "... with cpu always
allocated (unthrottled).", under `template.containers.resources.limits.cpu` (Cloud Run v2's
CreateService); "Invalid value specified for memory. For 1.0 CPU, memory must be between 128Mi and 4Gi
inclusive." (and "... memory with gen2 execution environment. For 1.0 CPU, memory must be between
512Mi and 4Gi inclusive."). The wording for a fractional cpu's memory range and for a cpu value that
is not allowed at all is the same pattern, UNCONFIRMED. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MI = 1024**2
GI = 1024**3
CPU_MIN = 0.08
CPU_WHOLE = (1, 2, 4, 6, 8)
MEMORY_MIN = {False: 128 * MI, True: 512 * MI}
"""The smallest memory limit: first generation (False) and second generation (True) environments."""
MEMORY_RANGE = {
    1: (0, 4 * GI),
    2: (0, 8 * GI),
    4: (2 * GI, 16 * GI),
    6: (4 * GI, 24 * GI),
    8: (4 * GI, 32 * GI),
}
"""Memory per whole vCPU count (0: the environment's minimum)."""
FRACTIONAL_MEMORY_MAX = ((0.5, 512 * MI), (1.0, 1 * GI))
"""Below `cpu`, memory may be at most this much."""
CPU_PATH = "template.containers.resources.limits.cpu"
MEMORY_PATH = "template.containers.resources.limits.memory"
DEFAULT_CPU, DEFAULT_MEMORY, DEFAULT_CONCURRENCY = "1", "512Mi", 80
"""What Cloud Run runs when a service leaves them out (its docs' defaults)."""

SCORER_BASE_MEMORY = 160 * MI
SCORER_REQUEST_MEMORY = 3 * MI
"""The scorer's memory: idle with its scoring process, and per request in flight with a body at
MAX_BODY (1 MiB), each rounded up from bench/bench_memory.py's measurement; `scorer_memory_needed`
adds a margin."""
SCORER_MEMORY_MARGIN = 1.25

_MEMORY_UNITS = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "Ki": 1024, "Mi": MI, "Gi": GI}


@dataclass(frozen=True)
class Refusal:
    """One limit broken: where Google says it (`path`), its message, and the setting that fixes it."""

    path: str
    message: str
    fix: str


def parse_cpu(value: object) -> float | None:
    """A cpu limit ("1", "2", "0.5", "500m") as vCPUs; None when it is not one."""
    text = str(value).strip()
    try:
        return float(text[:-1]) / 1000 if text.endswith("m") else float(text)
    except ValueError:
        return None


def parse_memory(value: object) -> int | None:
    """A memory limit ("512Mi", "1Gi", "4G", "536870912") in bytes; None when it is not one."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kMG]i?|Ki)?", str(value).strip())
    if not m or (m.group(2) or "") not in _MEMORY_UNITS:
        return None
    return int(float(m.group(1)) * _MEMORY_UNITS[m.group(2) or ""])


def _cpu(vcpus: float) -> str:
    """As Google prints a cpu in its messages: "1.0", "4.0"; a fraction as it is ("0.5", "0.08")."""
    return f"{vcpus:.1f}" if vcpus.is_integer() else f"{vcpus:g}"


def _size(n: int) -> str:
    return f"{n // GI}Gi" if n % GI == 0 else f"{n // MI}Mi"


def refusals(
    cpu: object, memory: object, concurrency: int, cpu_idle: bool = True, gen2: bool = False
) -> list[Refusal]:
    """What Cloud Run refuses in one instance's settings, in Google's words; [] when it takes them."""
    vcpus, size = parse_cpu(cpu), parse_memory(memory)
    if vcpus is None or not (CPU_MIN <= vcpus < 1 or vcpus in CPU_WHOLE):
        return [
            Refusal(
                CPU_PATH,
                f"Invalid value specified for cpu. {cpu} is not supported: use {CPU_MIN} to below 1, or "
                f"{', '.join(map(str, CPU_WHOLE))}.",
                "cpu 1, 2, 4, 6 or 8 (or a fraction from 0.08 with concurrency 1)",
            )
        ]
    out = []
    if vcpus < 1 and concurrency > 1:
        out.append(
            Refusal(
                CPU_PATH,
                "Invalid value specified for cpu. Total cpu < 1 is not supported with concurrency > 1.",
                "concurrency 1, or cpu 1 or more",
            )
        )
    if vcpus < 1 and not cpu_idle:
        out.append(
            Refusal(
                CPU_PATH,
                "Invalid value specified for cpu. Total cpu < 1 is not supported with cpu always "
                "allocated (unthrottled).",
                "cpu_idle true (request-based billing), or cpu 1 or more",
            )
        )
    low = MEMORY_MIN[gen2]
    if vcpus < 1:
        high = next(limit for below, limit in FRACTIONAL_MEMORY_MAX if vcpus < below)
    else:
        floor, high = MEMORY_RANGE[int(vcpus)]
        low = max(low, floor)
    if size is None or not low <= size <= high:
        env = " with gen2 execution environment" if gen2 else ""
        out.append(
            Refusal(
                MEMORY_PATH,
                f"Invalid value specified for memory{env}. For {_cpu(vcpus)} CPU, memory must be between "
                f"{_size(low)} and {_size(high)} inclusive.",
                f"memory from {_size(low)} to {_size(high)} for this cpu, or another cpu",
            )
        )
    return out


def scorer_memory_needed(concurrency: int) -> int:
    """Bytes the scorer needs at `concurrency` requests in flight, each at MAX_BODY, with a margin."""
    return int((SCORER_BASE_MEMORY + concurrency * SCORER_REQUEST_MEMORY) * SCORER_MEMORY_MARGIN)


def scorer_concurrency_within(memory: int) -> int:
    """The most requests in flight that `memory` bytes hold (at least 1)."""
    budget = memory / SCORER_MEMORY_MARGIN - SCORER_BASE_MEMORY
    return max(1, int(budget // SCORER_REQUEST_MEMORY))
