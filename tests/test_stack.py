"""The Pulumi program under Pulumi's mocks: the resource graph, its properties, dependencies, outputs.

Only the engine and Google are mocked. The program (`__main__.py`), the components, the config
parsing and the real provider's `check` (run on the job's registered inputs) are all real. The
mock monitor is subclassed to record what the engine would see: types, inputs, parents and
dependencies, which the policy rules then read.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import time
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.runtime.mocks import MockMonitor

from providers.tuning_job import RlftTuningJobProvider
from tunifolk import policy_rules as policy
from tunifolk import stack

ROOT = Path(__file__).resolve().parent.parent
PROJECT_NUMBER = "123456789012"
JOB = policy.JOB_TYPE


class Recorder(MockMonitor):
    """The mock monitor, also keeping each RegisterResource request (dependencies included)."""

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self.requests: list[Any] = []

    def RegisterResource(self, request):
        self.requests.append(request)
        return super().RegisterResource(request)


class GoogleMocks(pulumi.runtime.Mocks):
    """Plausible Google-side outputs per type; the dynamic job is checked by the real provider."""

    def __init__(self) -> None:
        self.check_failures: list[tuple[str, str]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        state = dict(args.inputs)
        if args.typ == "gcp:storage/bucket:Bucket":
            state["name"] = f"{args.name}-a1b2c3"
            state["url"] = f"gs://{state['name']}"
        elif args.typ == "gcp:storage/bucketObject:BucketObject":
            state["outputName"] = args.inputs["name"]
        elif args.typ == "gcp:serviceaccount/account:Account":
            state["email"] = f"{args.inputs['accountId']}@{args.inputs['project']}.iam.gserviceaccount.com"
        elif args.typ == "gcp:cloudrunv2/service:Service":
            state["name"] = args.name
            state["uri"] = f"https://{args.name}-xyz-uc.a.run.app"
        elif args.typ == JOB:
            inputs = {k: v for k, v in args.inputs.items() if k != "__provider"}
            result = RlftTuningJobProvider().check({}, inputs)
            self.check_failures += [(f.property, f.reason) for f in result.failures]
            state.update(
                name="projects/p/locations/l/tuningJobs/1", state="JOB_STATE_PENDING", total_steps=156
            )
            return state["name"], state
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        if args.token == "gcp:organizations/getProject:getProject":
            return {"number": PROJECT_NUMBER, "projectId": args.args.get("projectId", "p")}
        return {}


def stack_config(name: str) -> dict[str, Any]:
    """A stack file's config as Pulumi hands it to the program: structured values as JSON text."""
    document = yaml.safe_load((ROOT / f"Pulumi.{name}.yaml").read_text(encoding="utf-8"))
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in document["config"].items()}


EU_ONE_REWARD = {
    **stack_config("dev"),
    "gcp:project": "tunifolk-eu",
    "tunifolk:region": "europe-west4",
    "tunifolk:rewards": json.dumps([{"name": "structure", "weight": 1.0, "cloudRun": "scorer"}]),
    "tunifolk:enableApis": "true",
}


def run_program(config: dict[str, str]) -> tuple[GoogleMocks, Recorder, dict[str, Any], float]:
    """Run `__main__.py` under mocks; return the mocks, the recorded requests and the stack outputs."""
    asyncio.set_event_loop(asyncio.new_event_loop())
    mocks = GoogleMocks()
    monitor = Recorder(mocks)
    pulumi.runtime.set_mocks(mocks, project="tunifolk", stack="test", preview=False, monitor=monitor)
    pulumi.runtime.set_all_config(config)
    started = time.perf_counter()

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")
        outputs = pulumi.runtime.get_root_resource().outputs
        return pulumi.Output.from_input(outputs).apply(lambda resolved: captured.update(resolved))

    captured: dict[str, Any] = {}
    program()
    return mocks, monitor, captured, time.perf_counter() - started


def graph(monitor: Recorder) -> list[policy.Registered]:
    return [
        policy.Registered(
            typ=r.type,
            name=r.name,
            urn=monitor.make_urn(r.parent, r.type, r.name),
            inputs=pulumi.runtime.rpc.deserialize_properties(r.object),
            dependencies=frozenset(r.dependencies),
        )
        for r in monitor.requests
        if r.type != "pulumi:pulumi:Stack"
    ]


@pytest.fixture(scope="module")
def dev() -> tuple[GoogleMocks, list[policy.Registered], dict[str, Any]]:
    mocks, monitor, outputs, _ = run_program(stack_config("dev"))
    return mocks, graph(monitor), outputs


def by_type(resources: list[policy.Registered], typ: str) -> list[policy.Registered]:
    return [r for r in resources if r.typ == typ]


def test_dev_stack_graph(dev) -> None:
    mocks, resources, _ = dev
    types = sorted(r.typ for r in resources)
    assert types == sorted(
        [
            "tunifolk:data:TuningDataset",
            "gcp:storage/bucket:Bucket",
            "gcp:storage/bucketObject:BucketObject",
            "gcp:storage/bucketObject:BucketObject",
            "gcp:storage/bucketIAMMember:BucketIAMMember",
            "tunifolk:scorer:RewardScorer",
            "gcp:serviceaccount/account:Account",
            "gcp:cloudrunv2/service:Service",
            "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
            "tunifolk:rlft:TuningPipeline",
            JOB,
        ]
    )
    assert mocks.check_failures == []  # the wired inputs pass the provider's own check


def test_bucket_is_private_versioned_uniform(dev) -> None:
    (bucket,) = by_type(dev[1], "gcp:storage/bucket:Bucket")
    assert bucket.inputs["publicAccessPrevention"] == "enforced"
    assert bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.inputs["versioning"] == {"enabled": True}
    assert bucket.inputs["location"] == "us-central1"


def test_objects_are_named_by_content(dev) -> None:
    names = sorted(o.inputs["name"] for o in by_type(dev[1], "gcp:storage/bucketObject:BucketObject"))
    assert [n.split("-")[0] for n in names] == ["rlft/v1/train", "rlft/v1/validation"]
    assert all(len(n.rsplit("-", 1)[1]) == len("0123456789ab.jsonl") for n in names)


def test_scorer_service_and_grant(dev) -> None:
    resources = dev[1]
    (service,) = by_type(resources, "gcp:cloudrunv2/service:Service")
    assert service.inputs["deletionProtection"] is False
    template = service.inputs["template"]
    assert template["timeout"] == "300s" and template["maxInstanceRequestConcurrency"] == 80
    assert template["scaling"] == {"minInstanceCount": 0, "maxInstanceCount": 20}
    assert template["containers"][0]["resources"]["limits"] == {"cpu": "1", "memory": "512Mi"}
    assert template["containers"][0]["envs"] == [{"name": "WEB_CONCURRENCY", "value": "1"}]
    (grant,) = by_type(resources, "gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
    assert grant.inputs["role"] == "roles/run.invoker"
    assert (
        grant.inputs["member"]
        == f"serviceAccount:service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com"
    )
    (account,) = by_type(resources, "gcp:serviceaccount/account:Account")
    assert (
        template["serviceAccount"]
        == f"tunifolk-scorer-test@{account.inputs['project']}.iam.gserviceaccount.com"
    )


def test_the_tuning_agent_reads_the_dataset_and_the_job_waits_for_both_grants(dev) -> None:
    resources = dev[1]
    agent = f"serviceAccount:service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com"
    (reader,) = by_type(resources, "gcp:storage/bucketIAMMember:BucketIAMMember")
    assert reader.inputs["role"] == "roles/storage.objectViewer" and reader.inputs["member"] == agent
    (grant,) = by_type(resources, "gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
    (job,) = by_type(resources, JOB)
    assert {reader.urn, grant.urn} <= job.dependencies


def test_scorer_account_ids_are_per_stack_and_valid() -> None:
    from components.scorer import account_id

    assert account_id("dev") == "tunifolk-scorer-dev"
    long = account_id("Europe_West4-Production-Stack")
    assert len(long) <= 30 and long.startswith("tunifolk-scorer-") and not long.endswith("-")


def test_job_inputs_are_wired(dev) -> None:
    (job,) = by_type(dev[1], JOB)
    inputs = job.inputs
    assert inputs["training_example_count"] == 843
    assert inputs["training_dataset_uri"].startswith("gs://dataset-bucket-a1b2c3/rlft/v1/train-")
    structure, quality = inputs["rewards"]
    assert structure == {
        "name": "structure",
        "weight": 0.7,
        "cloud_run": {"uri": "https://scorer-xyz-uc.a.run.app"},
    }
    assert quality["autorater"]["model"] == "gemini-2.5-pro" and quality["autorater"]["sampling_count"] == 4
    assert inputs["hyper_parameters"]["checkpoint_interval"] == 26
    assert set(inputs["validation_example"]) == {"example", "sample_response"}


def test_dev_stack_passes_every_policy(dev) -> None:
    assert policy.violations(dev[1]) == []


def test_outputs(dev) -> None:
    outputs = dev[2]
    for key in (
        "bucket",
        "train_uri",
        "validation_uri",
        "scorer_uri",
        "job",
        "state",
        "endpoint",
        "serving_host",
    ):
        assert key in outputs
    assert outputs["scorer_uri"] == "https://scorer-xyz-uc.a.run.app"
    assert outputs["job"] == "projects/p/locations/l/tuningJobs/1" and outputs["total_steps"] == 156


def test_second_stack_europe_west4_one_reward() -> None:
    mocks, monitor, outputs, _ = run_program(EU_ONE_REWARD)
    resources = graph(monitor)
    assert outputs["scorer_uri"] == "https://scorer-xyz-uc.a.run.app"
    assert mocks.check_failures == []
    (job,) = by_type(resources, JOB)
    assert job.inputs["location"] == "europe-west4" and len(job.inputs["rewards"]) == 1
    (service,) = by_type(resources, "gcp:cloudrunv2/service:Service")
    assert service.inputs["location"] == "europe-west4"
    apis = sorted(r.inputs["service"] for r in by_type(resources, "gcp:projects/service:Service"))
    assert {"aiplatform.googleapis.com", "run.googleapis.com", "storage.googleapis.com"} <= set(apis)
    assert "artifactregistry.googleapis.com" in apis  # the scorer image's registry
    assert all(
        r.inputs["disableOnDestroy"] is False for r in by_type(resources, "gcp:projects/service:Service")
    )
    assert policy.violations(resources) == []


def test_policies_fail_on_a_bad_graph(dev) -> None:
    resources = dev[1]
    bad = []
    for r in resources:
        if r.typ == "gcp:storage/bucket:Bucket":
            r = policy.Registered(r.typ, r.name, r.urn, {**r.inputs, "publicAccessPrevention": "inherited"})
        elif r.typ == "gcp:cloudrunv2/service:Service":
            r = policy.Registered(
                r.typ, r.name, r.urn, {k: v for k, v in r.inputs.items() if k != "deletionProtection"}
            )
        elif r.typ == "gcp:cloudrunv2/serviceIamMember:ServiceIamMember":
            r = policy.Registered(r.typ, r.name, r.urn, {**r.inputs, "member": "allUsers"})
        bad.append(r)
    found = {(v.rule, v.resource.typ) for v in policy.violations(bad)}
    assert found == {
        ("no-public-invoker", "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"),
        ("bucket-public-access-prevention", "gcp:storage/bucket:Bucket"),
        ("cloud-run-deletion-protection-off", "gcp:cloudrunv2/service:Service"),
        ("job-depends-on-grant", JOB),
    }, found


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("tunifolk:hyperParameter", "{}", "tunifolk:hyperParameter is not a tunifolk setting"),
        (
            "tunifolk:dataset",
            json.dumps({"train": "data/train.jsonl", "prefx": "x"}),
            "tunifolk:dataset.prefx",
        ),
        ("tunifolk:rewards", json.dumps([{"name": "q", "autorater": {"prompt": "p"}}]), "autorater.model"),
        ("tunifolk:scorer", json.dumps({"image": "i", "concurrency": "lots"}), "tunifolk:scorer.concurrency"),
    ],
)
def test_a_wrong_config_key_is_named(key: str, value: str, named: str) -> None:
    config = {**stack_config("dev"), key: value}
    with pytest.raises(stack.ConfigError, match=named.replace(".", r"\.").replace("[", r"\[")):
        stack.parse({k: json.loads(v) if v[:1] in "[{" else v for k, v in config.items()})


def parsed(config: dict[str, str]) -> stack.StackConfig:
    return stack.parse({k: json.loads(v) if v[:1] in "[{" else v for k, v in config.items()})


def test_a_missing_key_is_named_with_its_fix() -> None:
    config = {k: v for k, v in stack_config("dev").items() if k != "tunifolk:baseModel"}
    with pytest.raises(stack.ConfigError, match="tunifolk:baseModel is missing: pulumi config set"):
        parsed(config)


def test_continuous_tuning_needs_no_base_model() -> None:
    config = {k: v for k, v in stack_config("dev").items() if k != "tunifolk:baseModel"}
    pre = {"tunedModelName": "projects/p/locations/us-central1/models/42", "checkpointId": "3"}
    inputs = parsed({**config, "tunifolk:preTunedModel": json.dumps(pre)}).job
    assert "base_model" not in inputs
    assert inputs["pre_tuned_model"] == {"tuned_model_name": pre["tunedModelName"], "checkpoint_id": "3"}


@pytest.mark.parametrize(("cpu", "processes"), [("1", 1), ("2", 2), ("4", 4), ("500m", 1), ("2000m", 2)])
def test_one_scorer_process_per_vcpu(cpu: str, processes: int) -> None:
    from components.scorer import processes as scorer_processes

    assert scorer_processes(cpu) == processes


def test_a_cpu_limit_that_is_not_one_is_named() -> None:
    from components.scorer import processes as scorer_processes

    with pytest.raises(pulumi.RunError, match=r"tunifolk:scorer\.cpu 'lots'"):
        scorer_processes("lots")
