"""tunifolk's policy pack: the graph rules of `components/policy.py`, enforced by the Pulumi engine.

`pulumi preview --policy-pack policy` (or `pulumi up --policy-pack policy`) runs every rule over the
whole stack's resources after the program has registered them, and fails the command on any
violation. The rules themselves stay plain functions in `components/policy.py` (the unit tests run
them on the graph the program builds under mocks); this file only adapts the engine's view of each
resource — type, name, URN, properties under their wire names, dependencies — into their input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the project root: components/

from pulumi_policy import (
    EnforcementLevel,
    PolicyPack,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from tunifolk import policy_rules as policy

PACK = "tunifolk-graph"


def known(value: Any) -> Any:
    """The value with every part unknown at preview left out. The engine's proxy raises on reading an
    unknown (a digest, a URL Google has not assigned yet); the rules read only what the program sets,
    which is known at preview, so dropping the rest changes no verdict."""
    if isinstance(value, Mapping):
        out = {}
        for key in value:
            try:
                out[key] = known(value[key])
            except UnknownValueError:
                continue
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        items = []
        for i in range(len(value)):
            try:
                items.append(known(value[i]))
            except UnknownValueError:
                continue
        return items
    return value


def graph(args: StackValidationArgs) -> list[policy.Registered]:
    """The stack's resources as the rule functions take them."""
    return [
        policy.Registered(
            typ=r.resource_type,
            name=r.name,
            urn=r.urn,
            inputs=known(r.props),
            dependencies=frozenset(d.urn for d in r.dependencies),
        )
        for r in args.resources
    ]


def culprit(line: str, resources: list[policy.Registered]) -> str | None:
    """The URN of the resource a violation names (the rules start each line with its name)."""
    for r in resources:
        if line.startswith((f"{r.name}:", f"{r.name} (")):
            return r.urn
    return None


def as_policy(rule: Callable[[list[policy.Registered]], list[str]]) -> StackValidationPolicy:
    """One mandatory stack policy per rule, named after it (`no_public_invoker` → `no-public-invoker`)."""

    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        resources = graph(args)
        for line in rule(resources):
            report_violation(line, culprit(line, resources))

    return StackValidationPolicy(
        name=rule.__name__.replace("_", "-"),
        description=" ".join((rule.__doc__ or rule.__name__.replace("_", " ")).split()),
        enforcement_level=EnforcementLevel.MANDATORY,
        validate=validate,
    )


PolicyPack(
    name=PACK,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=[as_policy(rule) for rule in policy.RULES],
)
