"""Policy rules over the resource graph, as plain functions.

Two readers share them: the policy pack in `policy/` (`pulumi preview --policy-pack policy`, run by
the real engine), and the unit tests, against the graph the program builds under Pulumi's mocks.

Most rules judge one resource at a time (`RESOURCE_RULES`: a resource in, its violations' messages
out); the pack runs each as a `ResourceValidationPolicy`, so the engine itself attributes every
violation to the resource it was called on. A rule that needs several resources at once
(`GRAPH_RULES`) returns (culprit, message) pairs; the pack runs it as a `StackValidationPolicy` and
reports the culprit's URN with each message. Either way no reader recovers a resource from a
message's text.

Inputs are read under their wire names (`invokerIamDisabled`, not `invoker_iam_disabled`). A value
still unknown at preview is absent from `inputs` (the pack leaves it out), so a rule reads with
`.get` and judges only what is known; the engine calls the rules again at `up`, before it creates
anything, when every input is known.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

TUNING_AGENT_SUFFIX = "@gcp-sa-vertex-tune.iam.gserviceaccount.com"
JOB_TYPE = "pulumi-python:dynamic/tunifolk:RlftTuningJob"
RUN_SERVICE = "gcp:cloudrunv2/service:Service"
RUN_V1_SERVICE = "gcp:cloudrun/service:Service"
RUN_V1_INVOKER_CHECK_OFF = "run.googleapis.com/invoker-iam-disabled"

# Who "the public" is, in IAM members and in Cloud Storage ACL entities (both spell them the same;
# compared lower-cased, so that no spelling Google might accept slips through).
PUBLIC_PRINCIPALS = frozenset({"allUsers", "allAuthenticatedUsers"})
_PUBLIC_LOWER = {p.lower(): p for p in PUBLIC_PRINCIPALS}
# Canned Cloud Storage ACLs that grant to allUsers (publicRead*) or allAuthenticatedUsers.
PUBLIC_CANNED_ACLS = frozenset({"publicRead", "publicReadWrite", "authenticatedRead"})
# pulumi-gcp's IAM resources, by the end of their class name: `storage/bucketIAMMember:BucketIAMMember`,
# `projects/iAMBinding:IAMBinding`, `cloudrunv2/serviceIamPolicy:ServiceIamPolicy`, … (the spelling
# of "Iam" varies by module, so it is compared lower-cased). `IamMemberRemove` only takes away.
IAM_MEMBER, IAM_BINDING, IAM_POLICY = "iammember", "iambinding", "iampolicy"
# Cloud Storage's ACL resources: one entity each, or a list of `ROLE:entity` plus canned ACLs.
ACL_ENTITY_TYPES = frozenset(
    {
        "gcp:storage/bucketAccessControl:BucketAccessControl",
        "gcp:storage/defaultObjectAccessControl:DefaultObjectAccessControl",
        "gcp:storage/objectAccessControl:ObjectAccessControl",
    }
)
ACL_LIST_TYPES = frozenset(
    {
        "gcp:storage/bucketACL:BucketACL",
        "gcp:storage/defaultObjectACL:DefaultObjectACL",
        "gcp:storage/objectACL:ObjectACL",
    }
)


@dataclass(frozen=True)
class Registered:
    """One registered resource: its type, logical name, URN, wire-named inputs and dependencies."""

    typ: str
    name: str
    urn: str
    inputs: dict[str, Any]
    dependencies: frozenset[str] = field(default_factory=frozenset)


ResourceRule = Callable[[Registered], list[str]]
GraphRule = Callable[[list[Registered]], list[tuple[Registered, str]]]


@dataclass(frozen=True)
class Violation:
    """One broken rule, with the resource it is about (for the tests; the pack reports to the engine)."""

    rule: str
    resource: Registered
    message: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.resource.name} ({self.resource.typ}): {self.message}"


def policy_name(rule: Callable[..., Any]) -> str:
    """The policy's name in the pack and in the engine's output: `no_public_invoker` → `no-public-invoker`."""
    return rule.__name__.replace("_", "-")


PUBLIC_PREFIXES = ("domain:", "principalset://goog/public:")
"""Members that name more than an identity: every account of a domain (`domain:example.com`), and IAM's
principal identifiers for everyone (`principalSet://goog/public:all`, IAM's "Principal identifiers"
page), compared lower-cased."""


def _public(principals: Iterable[Any]) -> list[str]:
    """The public ones among IAM members or ACL entities, sorted; non-strings (unknowns) are skipped."""
    return sorted(
        {
            p.strip()
            for p in principals
            if isinstance(p, str)
            and (p.strip().lower() in _PUBLIC_LOWER or p.strip().lower().startswith(PUBLIC_PREFIXES))
        }
    )


def _strings(value: Any) -> list[Any]:
    """A list input as a list (absent, unknown or mistyped: empty)."""
    return list(value) if isinstance(value, list | tuple) else []


def _policy_grants(policy_data: str) -> list[tuple[str, list[str]]] | None:
    """(role, public members) of each binding of an IAM policy's JSON; None when it is not one."""
    try:
        data = json.loads(policy_data)
    except ValueError:
        return None
    bindings = data.get("bindings", []) if isinstance(data, dict) else None
    if not isinstance(bindings, list) or not all(isinstance(b, dict) for b in bindings):
        return None
    return [(str(b.get("role")), _public(_strings(b.get("members")))) for b in bindings]


def no_public_invoker(r: Registered) -> list[str]:
    """Nothing may be opened to allUsers, allAuthenticatedUsers, a whole domain or IAM's public principal
    set: no IAM member, binding or policy of
    any service, no Cloud Storage ACL (entity, ROLE:entity or canned public ACL), and no Cloud Run
    service with its invoker IAM check disabled."""
    kind = r.typ.rsplit(":", 1)[-1].lower()
    inputs = r.inputs
    out = []
    if kind.endswith((IAM_MEMBER, IAM_BINDING)):
        public = _public([inputs.get("member"), *_strings(inputs.get("members"))])
        if public:
            out.append(f"grants {inputs.get('role')} to {', '.join(public)}")
    elif kind.endswith(IAM_POLICY) and isinstance(inputs.get("policyData"), str):
        grants = _policy_grants(inputs["policyData"])
        if grants is None:
            out.append("policyData is not an IAM policy's JSON; give it one (it cannot be checked otherwise)")
        out += [f"policyData grants {role} to {', '.join(public)}" for role, public in grants or [] if public]
    elif r.typ in ACL_ENTITY_TYPES:
        for entity in _public([inputs.get("entity")]):
            out.append(f"the ACL gives {inputs.get('role')} to {entity}")
    elif r.typ in ACL_LIST_TYPES:
        for pair in _strings(inputs.get("roleEntities")):
            role, _, entity = str(pair).partition(":")
            if _public([entity]):
                out.append(f"roleEntities gives {role} to {entity}")
        for key in ("predefinedAcl", "defaultAcl"):
            if inputs.get(key) in PUBLIC_CANNED_ACLS:
                out.append(f"{key} is {inputs[key]!r}, which grants to the public")
    elif r.typ == RUN_SERVICE and inputs.get("invokerIamDisabled") is True:
        out.append("invokerIamDisabled is true: anyone can invoke the service; remove it")
    elif r.typ == RUN_V1_SERVICE:
        metadata = inputs.get("metadata")
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        if isinstance(annotations, dict) and str(annotations.get(RUN_V1_INVOKER_CHECK_OFF)).lower() == "true":
            out.append(f"the {RUN_V1_INVOKER_CHECK_OFF} annotation lets anyone invoke the service; remove it")
    return out


def bucket_public_access_prevention(r: Registered) -> list[str]:
    """Every bucket enforces public access prevention, so no later grant can make it public."""
    if r.typ != "gcp:storage/bucket:Bucket" or r.inputs.get("publicAccessPrevention") == "enforced":
        return []
    return [f"publicAccessPrevention is {r.inputs.get('publicAccessPrevention')!r}, must be 'enforced'"]


def cloud_run_deletion_protection_off(r: Registered) -> list[str]:
    """Every Cloud Run service sets deletionProtection false (pulumi-gcp defaults it to true)."""
    if r.typ != RUN_SERVICE or r.inputs.get("deletionProtection") is False:
        return []
    return ["deletionProtection must be false, or `pulumi destroy` fails on it"]


def job_depends_on_grant(graph: list[Registered]) -> list[tuple[Registered, str]]:
    """Where the stack runs a Cloud Run scorer, every tuning job depends on its run.invoker grant to the
    Vertex tuning agent — else the job's reward validation races the grant."""
    if not any(r.typ == RUN_SERVICE for r in graph):
        return []
    grants = {
        r.urn
        for r in graph
        if r.typ == "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
        and r.inputs.get("role") == "roles/run.invoker"
        # at a first preview the agent's email is unknown (the project number comes after the APIs):
        # the grant still names the role, and `up` judges the member once it is known
        and ("member" not in r.inputs or str(r.inputs["member"]).endswith(TUNING_AGENT_SUFFIX))
    }
    return [
        (r, "the tuning job does not depend on the tuning agent's run.invoker grant")
        for r in graph
        if r.typ == JOB_TYPE and not (r.dependencies & grants)
    ]


RESOURCE_RULES: tuple[ResourceRule, ...] = (
    no_public_invoker,
    bucket_public_access_prevention,
    cloud_run_deletion_protection_off,
)
GRAPH_RULES: tuple[GraphRule, ...] = (job_depends_on_grant,)


def violations(graph: list[Registered]) -> list[Violation]:
    """Every rule over the graph, each violation with its rule and resource (what the pack reports)."""
    out = [
        Violation(policy_name(rule), r, message)
        for rule in RESOURCE_RULES
        for r in graph
        for message in rule(r)
    ]
    out += [Violation(policy_name(rule), r, message) for rule in GRAPH_RULES for r, message in rule(graph)]
    return out
