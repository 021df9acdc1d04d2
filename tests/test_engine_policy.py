"""The policy pack (policy/) under the real engine: `pulumi preview --policy-pack policy` passes on the
project's own stack and fails on a deliberately bad graph (tests/fixtures/bad_graph), naming every
broken rule of components/policy.py. Previews only: the stand-in answers, no Vertex call is made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import ROOT, LocalStack, require_engine

pytestmark = pytest.mark.slow

PACK = str(ROOT / "policy")
RULES = ("no-public-invoker", "bucket-public-access-prevention", "cloud-run-deletion-protection-off")


def test_policy_pack_passes_on_the_local_stack(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path)
    stack.environment()
    stack.init()
    result = stack.pulumi("preview", "--policy-pack", PACK, check=False)
    assert result.code == 0, result.output
    assert "tunifolk-graph" in result.output and "mandatory" not in result.output, result.output


def test_policy_pack_fails_on_a_bad_graph(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path, program=ROOT / "tests" / "fixtures" / "bad_graph", stack="bad")
    stack.environment()
    stack.init()
    plain = stack.pulumi("preview", check=False)
    assert plain.code == 0, f"the bad graph must preview without the pack:\n{plain.output}"
    result = stack.pulumi("preview", "--policy-pack", PACK, check=False)
    assert result.code != 0, f"the policy pack let a bad graph through:\n{result.output}"
    for rule in (*RULES, "job-depends-on-grant"):
        assert f"[mandatory]  {rule}" in result.output, f"{rule} did not fire:\n{result.output}"
    public = "scorer-public (gcp:cloudrunv2/serviceIamMember:ServiceIamMember) grants roles/run.invoker to "
    public += "allUsers"
    assert public in result.output
    assert "Traceback" not in result.output
