"""tunifolk's policy pack: the rules of `tunifolk/policy_rules.py`, enforced by the Pulumi engine.

`pulumi preview --policy-pack policy` (or `pulumi up --policy-pack policy`) runs every rule and fails
the command on any violation. Each per-resource rule is a `ResourceValidationPolicy`: the engine
calls it on every resource as it is registered and attributes the violation to that resource itself.
The graph rule that needs the whole stack is a `StackValidationPolicy`, reporting the URN of the
resource its rule names. The rules themselves stay plain functions in `tunifolk.policy_rules` (the
unit tests run the same functions); this file only adapts the engine's view of a resource — type,
name, URN, properties under their wire names, dependencies — into their input. The pack runs under
the project's virtualenv (`PulumiPolicy.yaml`), where `tunifolk` is installed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from tunifolk import policy_rules as policy

PACK = "tunifolk-graph"


def known(value: Any) -> Any:
    """The value with every part unknown at preview left out. The engine's proxy raises on reading an
    unknown (a digest, a URL Google has not assigned yet, an input computed from one); a rule judges
    only what is known, and the engine runs it again at `up` on fully known inputs before creating."""
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


def description(rule: Callable[..., Any]) -> str:
    """The rule's docstring on one line: the engine prints it above each of the rule's violations."""
    return " ".join((rule.__doc__ or rule.__name__.replace("_", " ")).split())


def resource_policy(rule: policy.ResourceRule) -> ResourceValidationPolicy:
    """A mandatory per-resource policy: no URN is passed, so the engine names the resource it checked."""

    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        resource = policy.Registered(
            typ=args.resource_type, name=args.name, urn=args.urn, inputs=known(args.props)
        )
        for message in rule(resource):
            report_violation(message, None)

    return ResourceValidationPolicy(
        name=policy.policy_name(rule),
        description=description(rule),
        enforcement_level=EnforcementLevel.MANDATORY,
        validate=validate,
    )


def graph(args: StackValidationArgs) -> list[policy.Registered]:
    """The stack's resources as the graph rules take them."""
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


def stack_policy(rule: policy.GraphRule) -> StackValidationPolicy:
    """A mandatory stack policy, reporting each violation against the resource the rule returns."""

    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        for resource, message in rule(graph(args)):
            report_violation(message, resource.urn)

    return StackValidationPolicy(
        name=policy.policy_name(rule),
        description=description(rule),
        enforcement_level=EnforcementLevel.MANDATORY,
        validate=validate,
    )


PolicyPack(
    name=PACK,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=[
        *(resource_policy(rule) for rule in policy.RESOURCE_RULES),
        *(stack_policy(rule) for rule in policy.GRAPH_RULES),
    ],
)
