"""The Pulumi program under Pulumi's mocks: the resource graph, its properties, dependencies, outputs.

Only the engine and Google are mocked. The program (`__main__.py`), the components, the config
parsing and the real provider's `check` (run on the job's registered inputs) are all real. The
mock monitor is subclassed to record what the engine would see: types, inputs, parents and
dependencies, which the policy rules then read.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest

from mocked_program import JOB, PROJECT_NUMBER, GoogleMocks, Recorder, run_program, stack_config
from tunifolk import policy_rules as policy
from tunifolk import stack
from tunifolk.project_state import STACK_APIS

EU_ONE_REWARD = {
    **stack_config("dev"),
    "gcp:project": "tunifolk-eu",
    "tunifolk:region": "europe-west4",
    "tunifolk:rewards": json.dumps([{"name": "structure", "weight": 1.0, "cloudRun": "scorer"}]),
    "tunifolk:enableApis": "true",
}


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
            "tunifolk:project:EnabledApis",  # tunifolk:enableApis defaults to true (a fresh project)
            *["gcp:projects/service:Service"] * len(STACK_APIS),
            "gcp:projects/serviceIdentity:ServiceIdentity",
            "tunifolk:data:TuningDataset",
            "gcp:storage/bucket:Bucket",
            "gcp:storage/bucketObject:BucketObject",
            "gcp:storage/bucketObject:BucketObject",
            "gcp:storage/bucketIAMMember:BucketIAMMember",
            "tunifolk:scorer:RewardScorer",
            "gcp:artifactregistry/repository:Repository",  # the stack builds the scorer (no image set)
            "pulumi-python:dynamic/tunifolk:ScorerImage",
            "gcp:serviceaccount/account:Account",  # the build's own account and its three grants
            "gcp:storage/bucketIAMMember:BucketIAMMember",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember",
            "gcp:projects/iAMMember:IAMMember",
            "gcp:serviceaccount/account:Account",
            "gcp:cloudrunv2/service:Service",
            "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
            "tunifolk:ledger:RolloutLedger",
            "gcp:bigquery/dataset:Dataset",
            "gcp:logging/projectSink:ProjectSink",
            "gcp:bigquery/datasetIamMember:DatasetIamMember",
            "tunifolk:rlft:TuningPipeline",
            JOB,
        ]
    )
    assert mocks.check_failures == []  # the wired inputs pass the provider's own check


def test_the_rollout_ledger_routes_the_scorers_records_to_bigquery(dev) -> None:
    """The sink selects this stack's scorer's ledger lines and writes into the stack's own dataset,
    which the CLI reads through the `ledger_dataset` output and whose partitions expire after the
    stated retention; its writer may write there and nowhere else."""
    from scorer import ledger
    from tunifolk.ledger import names

    resources, outputs = dev[1], dev[2]
    (dataset,) = by_type(resources, "gcp:bigquery/dataset:Dataset")
    (sink,) = by_type(resources, "gcp:logging/projectSink:ProjectSink")
    (grant,) = by_type(resources, "gcp:bigquery/datasetIamMember:DatasetIamMember")
    (service,) = by_type(resources, "gcp:cloudrunv2/service:Service")
    own = names.dataset_name("test")  # the mocked stack's name
    assert dataset.inputs["datasetId"] == own == outputs["ledger_dataset"] == "tunifolk_ledger_test"
    assert dataset.inputs["defaultPartitionExpirationMs"] == names.RETENTION_DAYS * 24 * 3600 * 1000
    assert sink.inputs["name"] == names.sink_name("test") == "tunifolk-rollout-ledger-test"
    assert sink.inputs["destination"].endswith(f"/datasets/{own}")
    assert f'labels.{ledger.LABEL_KEY}="{ledger.LABEL_VALUE}"' in sink.inputs["filter"]
    assert f'resource.labels.service_name="{service.name}"' in sink.inputs["filter"]
    assert sink.inputs["bigqueryOptions"] == {"usePartitionedTables": True}
    assert grant.inputs["role"] == "roles/bigquery.dataEditor" and grant.inputs["datasetId"] == own


@pytest.mark.parametrize("stack_name", ["dev", "continued", "a-b", "a.b", "x" * 100])
def test_each_stack_names_its_own_ledger_within_googles_limits(stack_name: str) -> None:
    """Dataset ids and sink names are unique per project: a stack's differ from every other stack's
    (`a-b` and `a_b` too, whose characters a dataset id cannot all hold) and fit Google's rules."""
    from tunifolk.ledger import names

    others = ["dev", "continued", "a_b", "a_b_", "x" * 99]
    for name in (names.dataset_name, names.sink_name):
        assert name(stack_name) not in {name(o) for o in others if o != stack_name}
    assert names.DATASET_RE.match(names.dataset_name(stack_name))
    assert names.SINK_RE.match(names.sink_name(stack_name)) and len(names.sink_name(stack_name)) <= 100


def test_everything_waits_for_the_apis_and_the_vertex_agents(dev) -> None:
    """A fresh project refuses calls to a disabled API and grants to an agent Google has not created:
    every resource outside EnabledApis, components' children included, waits for all of it."""
    resources = dev[1]
    services = {r.urn for r in by_type(resources, "gcp:projects/service:Service")}
    (identity,) = by_type(resources, "gcp:projects/serviceIdentity:ServiceIdentity")
    assert identity.inputs["service"] == "aiplatform.googleapis.com" and services <= identity.dependencies
    own = {"tunifolk:project:EnabledApis", "gcp:projects/service:Service", identity.typ}
    for r in resources:
        if r.typ not in own:
            missing = (services | {identity.urn}) - r.dependencies
            assert not missing, f"{r.typ} {r.name} does not wait for {sorted(missing)}"


def test_without_enable_apis_nothing_prepares_the_project() -> None:
    _, monitor, _, _ = run_program({**stack_config("dev"), "tunifolk:enableApis": "false"})
    types = {r.typ for r in graph(monitor)}
    assert not types & {"tunifolk:project:EnabledApis", "gcp:projects/service:Service"}


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
    (account,) = [
        a for a in by_type(resources, "gcp:serviceaccount/account:Account") if a.name.endswith("scorer-sa")
    ]
    assert (
        template["serviceAccount"]
        == f"tunifolk-scorer-test@{account.inputs['project']}.iam.gserviceaccount.com"
    )


def test_the_tuning_agent_reads_the_dataset_and_the_job_waits_for_both_grants(dev) -> None:
    resources = dev[1]
    agent = f"serviceAccount:service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com"
    (reader,) = [
        r
        for r in by_type(resources, "gcp:storage/bucketIAMMember:BucketIAMMember")
        if r.name == "dataset-reader"
    ]
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
        "weight": 0.5,
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
