"""The policy pack (policy/) under the real engine: `pulumi preview --policy-pack policy` passes on the
project's own stack and fails on a deliberately bad graph (tests/fixtures/bad_graph), with every
violation attributed by the engine to the resource that broke the rule of tunifolk/policy_rules.py
(the URN of the engine's policy event, through Pulumi's Automation API). Previews only: the stand-in
answers, no Vertex call is made.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pulumi import automation

from engine import ROOT, LocalStack, Result, require_engine

pytestmark = pytest.mark.slow

PACK = str(ROOT / "policy")
URN = "urn:pulumi:bad::tunifolk-bad-graph::"
RUN_MEMBER = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
ACL = "gcp:storage/{0}AccessControl:{1}AccessControl"

# (policy, type, resource name) → what the message must say: the bad graph's every violation, no more.
EXPECTED = {
    ("bucket-public-access-prevention", "gcp:storage/bucket:Bucket", "data"): "must be 'enforced'",
    ("cloud-run-deletion-protection-off", "gcp:cloudrunv2/service:Service", "scorer"): "must be false",
    ("job-depends-on-grant", "pulumi-python:dynamic/tunifolk:RlftTuningJob", "rlft"): "does not depend",
    ("no-public-invoker", RUN_MEMBER, "scorer-public"): "grants roles/run.invoker to allUsers",
    ("no-public-invoker", BUCKET_MEMBER, "bucket-public"): "grants roles/storage.objectViewer to allUsers",
    ("no-public-invoker", "gcp:storage/bucketIAMBinding:BucketIAMBinding", "bucket-binding"): (
        "grants roles/storage.objectViewer to allAuthenticatedUsers"
    ),
    ("no-public-invoker", ACL.format("bucket", "Bucket"), "bucket-acl"): "gives READER to allUsers",
    ("no-public-invoker", ACL.format("defaultObject", "DefaultObject"), "default-object-acl"): (
        "gives READER to allAuthenticatedUsers"
    ),
    ("no-public-invoker", ACL.format("object", "Object"), "object-acl"): "gives READER to allUsers",
    ("no-public-invoker", "gcp:projects/iAMMember:IAMMember", "project-member"): (
        "grants roles/viewer to allAuthenticatedUsers"
    ),
    ("no-public-invoker", "gcp:projects/iAMBinding:IAMBinding", "project-binding"): (
        "grants roles/viewer to allUsers"
    ),
    ("no-public-invoker", "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy", "scorer-policy"): (
        "policyData grants roles/run.invoker to allUsers"
    ),
    ("no-public-invoker", "gcp:cloudrunv2/service:Service", "open-scorer"): "invokerIamDisabled is true",
}


def preview_with_pack(stack: LocalStack) -> tuple[Result, dict[tuple[str, str], str]]:
    """`pulumi preview --policy-pack policy`, and the violations the engine reported as policy events:
    (policy, the URN of the resource it attributed the violation to) → the rule's message. Every one
    is mandatory (the pack sets no other level)."""
    events: list[automation.PolicyEvent] = []

    def keep(event: automation.EngineEvent) -> None:
        if event.policy_event is not None:
            events.append(event.policy_event)

    result = stack.preview(policy_packs=[PACK], check=False, on_event=keep)
    assert {e.enforcement_level for e in events} <= {"mandatory"}, [vars(e) for e in events]
    found: dict[tuple[str, str], str] = {}
    for event in events:
        key = (event.policy_name, event.resource_urn or "")
        found[key] = found.get(key, "") + event.message
    return result, found


def test_policy_pack_passes_on_the_local_stack(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path)
    stack.environment()
    stack.init()
    result, found = preview_with_pack(stack)
    assert result.code == 0, result.output
    assert "tunifolk-graph" in result.output and "mandatory" not in result.output, result.output
    assert found == {}, found


def test_policy_pack_fails_on_a_bad_graph_naming_each_resource(tmp_path: Path) -> None:
    require_engine()
    bad_graph = ROOT / "tests" / "fixtures" / "bad_graph"
    stack = LocalStack(tmp_path, program=bad_graph, stack="bad", env={"PYTHONPATH": str(ROOT)})
    stack.environment()
    stack.init()
    plain = stack.preview(check=False)
    assert plain.code == 0, f"the bad graph must preview without the pack:\n{plain.output}"
    result, found = preview_with_pack(stack)
    assert result.code != 0, f"the policy pack let a bad graph through:\n{result.output}"
    assert "Traceback" not in result.output and "can't run policy" not in result.output, result.output
    expected = {(policy, f"{URN}{typ}::{name}"): message for (policy, typ, name), message in EXPECTED.items()}
    assert set(found) == set(expected), f"{sorted(set(found) ^ set(expected))}:\n{result.output}"
    for key, message in expected.items():
        assert message in found[key], f"{key}: {message!r} not in {found[key]!r}"
