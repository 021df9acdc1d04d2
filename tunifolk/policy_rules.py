"""Policy rules over the resource graph, as plain functions.

The rules are plain functions over a list of registered resources, so that two readers share them:
the policy pack in `policy/` (`pulumi preview --policy-pack policy`, run by the real engine), and
the unit tests, against the graph the program builds under Pulumi's mocks. Each rule returns its
violations as readable lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PUBLIC_MEMBERS = frozenset({"allUsers", "allAuthenticatedUsers"})
TUNING_AGENT_SUFFIX = "@gcp-sa-vertex-tune.iam.gserviceaccount.com"
JOB_TYPE = "pulumi-python:dynamic/tunifolk:RlftTuningJob"


@dataclass(frozen=True)
class Registered:
    """One registered resource: its type, logical name, URN, wire-named inputs and dependencies."""

    typ: str
    name: str
    urn: str
    inputs: dict[str, Any]
    dependencies: frozenset[str] = field(default_factory=frozenset)


def no_public_invoker(graph: list[Registered]) -> list[str]:
    """No IAM member or binding may grant anything to allUsers or allAuthenticatedUsers."""
    out = []
    for r in graph:
        if "Iam" not in r.typ:
            continue
        members = [r.inputs.get("member"), *(r.inputs.get("members") or [])]
        public = sorted(m for m in members if m in PUBLIC_MEMBERS)
        if public:
            out.append(f"{r.name} ({r.typ}) grants {r.inputs.get('role')} to {', '.join(public)}")
    return out


def bucket_public_access_prevention(graph: list[Registered]) -> list[str]:
    return [
        f"{r.name}: publicAccessPrevention is {r.inputs.get('publicAccessPrevention')!r}, must be 'enforced'"
        for r in graph
        if r.typ == "gcp:storage/bucket:Bucket" and r.inputs.get("publicAccessPrevention") != "enforced"
    ]


def cloud_run_deletion_protection_off(graph: list[Registered]) -> list[str]:
    return [
        f"{r.name}: deletionProtection must be false, or `pulumi destroy` fails on it"
        for r in graph
        if r.typ == "gcp:cloudrunv2/service:Service" and r.inputs.get("deletionProtection") is not False
    ]


def job_depends_on_grant(graph: list[Registered]) -> list[str]:
    """Where the stack runs a Cloud Run scorer, every tuning job depends on its run.invoker grant to the
    Vertex tuning agent — else the job's reward validation races the grant."""
    if not any(r.typ == "gcp:cloudrunv2/service:Service" for r in graph):
        return []
    grants = {
        r.urn
        for r in graph
        if r.typ == "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
        and r.inputs.get("role") == "roles/run.invoker"
        and str(r.inputs.get("member", "")).endswith(TUNING_AGENT_SUFFIX)
    }
    return [
        f"{r.name}: the tuning job does not depend on the tuning agent's run.invoker grant"
        for r in graph
        if r.typ == JOB_TYPE and not (r.dependencies & grants)
    ]


RULES: tuple[Callable[[list[Registered]], list[str]], ...] = (
    no_public_invoker,
    bucket_public_access_prevention,
    cloud_run_deletion_protection_off,
    job_depends_on_grant,
)


def violations(graph: list[Registered]) -> list[str]:
    return [line for rule in RULES for line in rule(graph)]
