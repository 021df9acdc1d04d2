"""`tunifolk:serviceAccount` (issue 19, item 4): whose identity reads the dataset and calls the reward
when a job runs as its own account is UNCONFIRMED (Google's reward docs name the tuning agent; the
field is "the service account that the tuningJob workload runs as"), so the stack grants both, and the
job waits for every grant. Under Pulumi's mocks, as tests/test_stack.py runs the program."""

from __future__ import annotations

from test_stack import by_type, graph

from mocked_program import JOB, PROJECT_NUMBER, run_program, stack_config
from tunifolk import policy_rules as policy

ACCOUNT = "tunifolk-tuner@tunifolk-dev.iam.gserviceaccount.com"
AGENT = f"serviceAccount:service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com"


def dataset_readers(resources: list) -> list:
    """The dataset's read grants (the build account's read of its source archive is another grant)."""
    grants = by_type(resources, "gcp:storage/bucketIAMMember:BucketIAMMember")
    return [r for r in grants if "tunifolk:data:TuningDataset$" in r.urn]


def test_a_job_account_is_granted_beside_the_agent_and_the_job_waits_for_all() -> None:
    mocks, monitor, _, _ = run_program({**stack_config("dev"), "tunifolk:serviceAccount": ACCOUNT})
    resources = graph(monitor)
    invokers = by_type(resources, "gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
    readers = dataset_readers(resources)
    assert sorted(r.inputs["member"] for r in invokers) == [AGENT, f"serviceAccount:{ACCOUNT}"]
    assert sorted(r.inputs["member"] for r in readers) == [AGENT, f"serviceAccount:{ACCOUNT}"]
    assert {r.inputs["role"] for r in invokers} == {"roles/run.invoker"}
    (job,) = by_type(resources, JOB)
    assert job.inputs["service_account"] == ACCOUNT
    assert {r.urn for r in [*invokers, *readers]} <= job.dependencies
    assert mocks.check_failures == [] and policy.violations(resources) == []


def test_without_a_job_account_only_the_agent_is_granted() -> None:
    _, monitor, _, _ = run_program(stack_config("dev"))
    resources = graph(monitor)
    invokers = by_type(resources, "gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
    for grants in (invokers, dataset_readers(resources)):
        assert [r.inputs["member"] for r in grants] == [AGENT]
