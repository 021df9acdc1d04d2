"""The policy rules (tunifolk/policy_rules.py) on plain resources, one case per way to go public.

The engine runs the same functions in the policy pack (tests/test_engine_policy.py previews a bad
graph with each case); here each is checked fast, with its safe twin beside it, so a rule that flags
everything fails as surely as one that flags nothing. Inputs are under their wire names, as pulumi-gcp
10.2.0 sends them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tunifolk import policy_rules as policy

AGENT = "serviceAccount:service-1@gcp-sa-vertex-tune.iam.gserviceaccount.com"
USER = "user:ada@example.com"


def resource(
    typ: str, name: str = "r", deps: frozenset[str] = frozenset(), **inputs: Any
) -> policy.Registered:
    return policy.Registered(typ, name, f"urn:pulumi:t::p::{typ}::{name}", inputs, deps)


def iam_policy(*bindings: tuple[str, list[str]]) -> str:
    return json.dumps({"bindings": [{"role": role, "members": members} for role, members in bindings]})


# (public resource, the same resource kept private)
CASES: dict[str, tuple[policy.Registered, policy.Registered]] = {
    "bucket IAM member": (
        resource(
            "gcp:storage/bucketIAMMember:BucketIAMMember",
            role="roles/storage.objectViewer",
            member="allUsers",
        ),
        resource(
            "gcp:storage/bucketIAMMember:BucketIAMMember", role="roles/storage.objectViewer", member=USER
        ),
    ),
    "bucket IAM binding": (
        resource(
            "gcp:storage/bucketIAMBinding:BucketIAMBinding",
            role="roles/storage.objectViewer",
            members=[USER, "allAuthenticatedUsers"],
        ),
        resource(
            "gcp:storage/bucketIAMBinding:BucketIAMBinding", role="roles/storage.objectViewer", members=[USER]
        ),
    ),
    "project IAM member": (
        resource("gcp:projects/iAMMember:IAMMember", role="roles/viewer", member="allAuthenticatedUsers"),
        resource("gcp:projects/iAMMember:IAMMember", role="roles/viewer", member=USER),
    ),
    "project IAM binding": (
        resource("gcp:projects/iAMBinding:IAMBinding", role="roles/viewer", members=["allUsers"]),
        resource("gcp:projects/iAMBinding:IAMBinding", role="roles/viewer", members=[USER]),
    ),
    "Cloud Run IAM member": (
        resource(
            "gcp:cloudrunv2/serviceIamMember:ServiceIamMember", role="roles/run.invoker", member="allUsers"
        ),
        resource("gcp:cloudrunv2/serviceIamMember:ServiceIamMember", role="roles/run.invoker", member=AGENT),
    ),
    "Cloud Run IAM policy": (
        resource(
            "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy",
            policyData=iam_policy(("roles/run.invoker", [AGENT, "allUsers"])),
        ),
        resource(
            "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy",
            policyData=iam_policy(("roles/run.invoker", [AGENT])),
        ),
    ),
    "bucket IAM policy": (
        resource(
            "gcp:storage/bucketIAMPolicy:BucketIAMPolicy",
            policyData=iam_policy(
                ("roles/storage.admin", [USER]), ("roles/storage.objectViewer", ["allUsers"])
            ),
        ),
        resource("gcp:storage/bucketIAMPolicy:BucketIAMPolicy", policyData=iam_policy()),
    ),
    "bucket access control": (
        resource("gcp:storage/bucketAccessControl:BucketAccessControl", entity="allUsers", role="READER"),
        resource(
            "gcp:storage/bucketAccessControl:BucketAccessControl",
            entity="user-ada@example.com",
            role="READER",
        ),
    ),
    "default object access control": (
        resource(
            "gcp:storage/defaultObjectAccessControl:DefaultObjectAccessControl",
            entity="allAuthenticatedUsers",
            role="READER",
        ),
        resource(
            "gcp:storage/defaultObjectAccessControl:DefaultObjectAccessControl",
            entity="project-owners-1",
            role="OWNER",
        ),
    ),
    "object access control": (
        resource("gcp:storage/objectAccessControl:ObjectAccessControl", entity="allUsers", role="READER"),
        resource(
            "gcp:storage/objectAccessControl:ObjectAccessControl", entity="group-a@example.com", role="READER"
        ),
    ),
    "bucket ACL role entity": (
        resource(
            "gcp:storage/bucketACL:BucketACL", roleEntities=["OWNER:project-owners-1", "READER:allUsers"]
        ),
        resource("gcp:storage/bucketACL:BucketACL", roleEntities=["OWNER:project-owners-1"]),
    ),
    "bucket ACL canned": (
        resource("gcp:storage/bucketACL:BucketACL", predefinedAcl="publicRead"),
        resource("gcp:storage/bucketACL:BucketACL", predefinedAcl="projectPrivate"),
    ),
    "bucket default ACL canned": (
        resource("gcp:storage/bucketACL:BucketACL", defaultAcl="authenticatedRead"),
        resource("gcp:storage/bucketACL:BucketACL", defaultAcl="bucketOwnerRead"),
    ),
    "object ACL canned": (
        resource("gcp:storage/objectACL:ObjectACL", predefinedAcl="publicRead"),
        resource("gcp:storage/objectACL:ObjectACL", predefinedAcl="private"),
    ),
    "default object ACL": (
        resource(
            "gcp:storage/defaultObjectACL:DefaultObjectACL", roleEntities=["READER:allAuthenticatedUsers"]
        ),
        resource("gcp:storage/defaultObjectACL:DefaultObjectACL", roleEntities=["READER:domain-example.com"]),
    ),
    "Cloud Run invoker check off": (
        resource("gcp:cloudrunv2/service:Service", invokerIamDisabled=True, deletionProtection=False),
        resource("gcp:cloudrunv2/service:Service", invokerIamDisabled=False, deletionProtection=False),
    ),
    "Cloud Run v1 invoker check off": (
        resource(
            "gcp:cloudrun/service:Service",
            metadata={"annotations": {"run.googleapis.com/invoker-iam-disabled": "true"}},
        ),
        resource(
            "gcp:cloudrun/service:Service", metadata={"annotations": {"run.googleapis.com/ingress": "all"}}
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_way_to_go_public_is_refused_and_its_private_twin_is_not(case: str) -> None:
    public, private = CASES[case]
    found = policy.violations([public, private])
    assert [(v.rule, v.resource) for v in found] == [("no-public-invoker", public)], [str(v) for v in found]


def test_messages_say_what_is_public() -> None:
    (binding,) = policy.no_public_invoker(CASES["bucket IAM binding"][0])
    assert binding == "grants roles/storage.objectViewer to allAuthenticatedUsers"
    (grant,) = policy.no_public_invoker(CASES["bucket IAM policy"][0])
    assert grant == "policyData grants roles/storage.objectViewer to allUsers"
    (acl,) = policy.no_public_invoker(CASES["bucket ACL role entity"][0])
    assert acl == "roleEntities gives READER to allUsers"


def test_any_iam_resource_of_any_service_counts_but_a_removal_does_not() -> None:
    dataset = resource(
        "gcp:bigquery/datasetIamMember:DatasetIamMember", role="roles/bigquery.dataViewer", member="allUsers"
    )
    account = resource(
        "gcp:serviceaccount/iAMBinding:IAMBinding", role="roles/iam.serviceAccountUser", members=["allUsers"]
    )
    removal = resource("gcp:projects/iamMemberRemove:IamMemberRemove", role="roles/viewer", member="allUsers")
    assert [v.resource for v in policy.violations([dataset, account, removal])] == [dataset, account]


def test_spellings_google_might_accept_count_too() -> None:
    member = resource("gcp:storage/bucketIAMMember:BucketIAMMember", role="roles/viewer", member=" allusers")
    assert policy.no_public_invoker(member) == ["grants roles/viewer to allusers"]


@pytest.mark.parametrize(
    "member",
    [
        "domain:example.com",
        "DOMAIN:example.com",
        "principalSet://goog/public:all",
        "principalSet://goog/public:",
    ],
)
def test_a_whole_domain_and_the_public_principal_set_are_public_too(member: str) -> None:
    invoker = resource(
        "gcp:cloudrunv2/serviceIamMember:ServiceIamMember", role="roles/run.invoker", member=member
    )
    assert policy.no_public_invoker(invoker) == [f"grants roles/run.invoker to {member}"]
    binding = resource("gcp:cloudrunv2/serviceIamBinding:ServiceIamBinding", role="roles/run.invoker",
                       members=[AGENT, member])  # fmt: skip
    assert policy.no_public_invoker(binding) == [f"grants roles/run.invoker to {member}"]
    agent_only = resource(
        "gcp:cloudrunv2/serviceIamMember:ServiceIamMember", role="roles/run.invoker", member=AGENT
    )
    assert policy.no_public_invoker(agent_only) == []


def test_a_policy_that_is_not_json_is_refused_not_waved_through() -> None:
    for data in ("{", '{"bindings": {"role": "x"}}', "[]"):
        found = policy.no_public_invoker(resource("gcp:projects/iAMPolicy:IAMPolicy", policyData=data))
        assert found and "not an IAM policy's JSON" in found[0], data
    assert policy.no_public_invoker(resource("gcp:projects/iAMPolicy:IAMPolicy", policyData="{}")) == []


def test_values_unknown_at_preview_are_absent_and_crash_nothing() -> None:
    """The pack leaves unknowns out: a missing key, a shorter list, a dict without the field."""
    for typ in (*policy.ACL_ENTITY_TYPES, *policy.ACL_LIST_TYPES, policy.RUN_SERVICE, policy.RUN_V1_SERVICE):
        policy.no_public_invoker(resource(typ))
    bare = [
        resource("gcp:storage/bucketIAMMember:BucketIAMMember"),
        resource("gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"),
        resource("gcp:cloudrun/service:Service", metadata={}),
        resource("gcp:storage/bucketIAMBinding:BucketIAMBinding", members=[None, 3]),
    ]
    assert [v.rule for v in policy.violations(bare)] == []
    half = resource(
        "gcp:storage/bucketIAMBinding:BucketIAMBinding", role="roles/viewer", members=["allUsers"]
    )
    assert policy.no_public_invoker(half) == ["grants roles/viewer to allUsers"]


def test_the_graph_rule_names_its_culprit_job() -> None:
    service = resource(policy.RUN_SERVICE, "scorer", deletionProtection=False)
    grant = resource(
        "gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "invoker", role="roles/run.invoker", member=AGENT
    )
    waits = resource(policy.JOB_TYPE, "waits", frozenset({grant.urn}))
    races = resource(policy.JOB_TYPE, "races")
    found = policy.violations([service, grant, waits, races])
    assert [(v.rule, v.resource) for v in found] == [("job-depends-on-grant", races)]
    assert policy.job_depends_on_grant([grant, races]) == []  # no Cloud Run scorer: nothing to race
    # at a first preview the member is unknown (absent): the invoker grant still counts, another does not
    unknown = resource("gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "later", role="roles/run.invoker")
    viewer = resource("gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "viewer", role="roles/run.viewer")
    waits_unknown = resource(policy.JOB_TYPE, "waits-unknown", frozenset({unknown.urn}))
    waits_viewer = resource(policy.JOB_TYPE, "waits-viewer", frozenset({viewer.urn}))
    found = policy.violations([service, unknown, viewer, waits_unknown, waits_viewer])
    assert [v.resource for v in found] == [waits_viewer]


def test_every_rule_has_a_docstring_for_the_engine_to_print() -> None:
    for rule in (*policy.RESOURCE_RULES, *policy.GRAPH_RULES):
        assert rule.__doc__ and rule.__doc__.strip(), rule.__name__
