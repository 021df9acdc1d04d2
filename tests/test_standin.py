"""The gcp stand-in over its gRPC protocol, as the engine calls it: `python -m standin` runs as a
process, and each test speaks Pulumi's ResourceProvider service to it. What the end-to-end tests
cannot reach through the program is checked here: the refusals (names, required fields), which
changes replace and which update, what create writes and delete removes, the invoke.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from google.protobuf import empty_pb2
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

import servers
from jobs import PROJECT
from tunifolk.standin import cloudrun
from tunifolk.standin.server import to_dict, to_struct

pytestmark = pytest.mark.slow  # every test starts the stand-in provider

ROOT = Path(__file__).resolve().parent.parent

BUCKET = "gcp:storage/bucket:Bucket"
OBJECT = "gcp:storage/bucketObject:BucketObject"
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
ACCOUNT = "gcp:serviceaccount/account:Account"
RUN = "gcp:cloudrunv2/service:Service"
RUN_MEMBER = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
API = "gcp:projects/service:Service"
AGENT = "serviceAccount:service-1@gcp-sa-vertex-tune.iam.gserviceaccount.com"


def urn(token: str, name: str) -> str:
    return f"urn:pulumi:test::tunifolk::{token}::{name}"


class Provider:
    """A configured stand-in process and the calls the engine makes."""

    def __init__(self, stub: provider_pb2_grpc.ResourceProviderStub, state: Path, gcs: Path) -> None:
        self.stub, self.state, self.gcs = stub, state, gcs

    def configure(self, **config: str) -> provider_pb2.ConfigureResponse:
        variables = {f"gcp:config:{k}": v for k, v in config.items()}
        return self.stub.Configure(provider_pb2.ConfigureRequest(variables=variables, args=to_struct(config)))

    def check(
        self,
        token: str,
        name: str,
        news: dict[str, Any],
        olds: dict[str, Any] | None = None,
        seed: bytes = b"s",
    ) -> tuple[dict[str, Any], dict[str, str]]:
        resp = self.stub.Check(
            provider_pb2.CheckRequest(
                urn=urn(token, name), news=to_struct(news), olds=to_struct(olds or {}), randomSeed=seed
            )
        )
        return to_dict(resp.inputs), {f.property: f.reason for f in resp.failures}

    def diff(self, token: str, olds: dict[str, Any], news: dict[str, Any]) -> provider_pb2.DiffResponse:
        return self.stub.Diff(
            provider_pb2.DiffRequest(
                id="x",
                urn=urn(token, "r"),
                olds=to_struct(olds),
                old_inputs=to_struct(olds),
                news=to_struct(news),
            )
        )

    def create(self, token: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        checked, failures = self.check(token, name, inputs)
        assert not failures, failures
        resp = self.stub.Create(
            provider_pb2.CreateRequest(urn=urn(token, name), properties=to_struct(checked))
        )
        return resp.id, to_dict(resp.properties)

    def read(self, token: str, id_: str) -> provider_pb2.ReadResponse:
        return self.stub.Read(provider_pb2.ReadRequest(id=id_, urn=urn(token, "r")))

    def update(self, token: str, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        resp = self.stub.Update(
            provider_pb2.UpdateRequest(
                id=id_, urn=urn(token, "r"), olds=to_struct(olds), news=to_struct(news)
            )
        )
        return to_dict(resp.properties)

    def delete(self, token: str, id_: str) -> None:
        self.stub.Delete(provider_pb2.DeleteRequest(id=id_, urn=urn(token, "r")))


@contextmanager
def serving(state: Path, gcs: Path) -> Iterator[Provider]:
    """A stand-in process configured for PROJECT; at the end, the scorers and fronts its Cloud Run
    services started are stopped, since they run as their own processes and outlive it."""
    with servers.standin(state, gcs) as stub:
        provider = Provider(stub, state, gcs)
        provider.configure(project=PROJECT, region="us-central1")
        try:
            yield provider
        finally:
            for pid in cloudrun.running(state):
                os.kill(pid, 15)


@pytest.fixture
def gcp(tmp_path: Path) -> Iterator[Provider]:
    with serving(tmp_path / "standin", tmp_path / "gcs") as provider:
        yield provider


def test_plugin_info_is_a_semver_at_least_the_sdk_and_says_stand_in(gcp: Provider) -> None:
    version = gcp.stub.GetPluginInfo(empty_pb2.Empty()).version
    core, _, build = version.partition("+")
    assert tuple(int(x) for x in core.split(".")) >= (10, 2, 0)
    assert "standin" in build
    assert gcp.configure(project=PROJECT).supportsPreview


def test_check_refuses_what_google_refuses(gcp: Provider) -> None:
    failures = gcp.check(BUCKET, "b", {"name": "Not_A-Bucket!", "location": "US"})[1]
    assert "name" in failures and "stand-in" in failures["name"]
    assert "location" in gcp.check(BUCKET, "b", {})[1]
    assert "name" in gcp.check(BUCKET, "b", {"name": "goog-data", "location": "US"})[1]
    assert "accountId" in gcp.check(ACCOUNT, "sa", {"accountId": "ab"})[1]
    assert "accountId" in gcp.check(ACCOUNT, "sa", {"accountId": "Tunifolk_Scorer"})[1]
    member = {"bucket": "b", "role": "roles/storage.objectViewer", "member": "everyone"}
    assert "member" in gcp.check(BUCKET_MEMBER, "m", member)[1]
    assert "role" in gcp.check(BUCKET_MEMBER, "m", {**member, "member": AGENT, "role": "objectViewer"})[1]
    assert (
        "template.containers[0].image"
        in gcp.check(RUN, "s", {"location": "us-central1", "template": {"containers": [{}]}})[1]
    )
    assert "service" in gcp.check(API, "api", {"service": "not a service"})[1]
    assert "source" in gcp.check(OBJECT, "o", {"bucket": "b", "name": "x"})[1]


def test_check_needs_a_project(gcp: Provider) -> None:
    gcp.configure()
    assert "project" in gcp.check(ACCOUNT, "sa", {"accountId": "tunifolk-scorer"})[1]


def test_autonames_are_stable_across_updates_and_new_on_replacement(gcp: Provider) -> None:
    first, _ = gcp.check(BUCKET, "dataset-bucket", {"location": "US"}, seed=b"1")
    assert first["name"].startswith("dataset-bucket-") and len(first["name"]) == len("dataset-bucket-") + 7
    again, _ = gcp.check(
        BUCKET, "dataset-bucket", {"location": "US", "labels": {"a": "b"}}, olds=first, seed=b"2"
    )
    assert again["name"] == first["name"]
    fresh, _ = gcp.check(BUCKET, "dataset-bucket", {"location": "US"}, seed=b"2")
    assert fresh["name"] != first["name"]


def test_diff_replaces_as_the_real_provider_does(gcp: Provider) -> None:
    bucket, _ = gcp.check(BUCKET, "b", {"location": "US"})
    moved = gcp.diff(BUCKET, bucket, {**bucket, "location": "EU"})
    assert list(moved.replaces) == ["location"] and not moved.deleteBeforeReplace  # autonamed: new name
    relabelled = gcp.diff(BUCKET, bucket, {**bucket, "labels": {"team": "poetry"}})
    assert relabelled.changes == provider_pb2.DiffResponse.DIFF_SOME and not relabelled.replaces
    same = gcp.diff(BUCKET, bucket, dict(bucket))
    assert same.changes == provider_pb2.DiffResponse.DIFF_NONE

    account, _ = gcp.check(ACCOUNT, "sa", {"accountId": "tunifolk-scorer", "displayName": "a"})
    renamed = gcp.diff(ACCOUNT, account, {**account, "accountId": "tunifolk-scorer-2"})
    assert list(renamed.replaces) == ["accountId"] and renamed.deleteBeforeReplace  # a chosen name
    assert not gcp.diff(ACCOUNT, account, {**account, "displayName": "b"}).replaces

    grant = {"bucket": "b", "role": "roles/storage.objectViewer", "member": AGENT}
    assert list(gcp.diff(BUCKET_MEMBER, grant, {**grant, "member": "user:a@example.com"}).replaces) == [
        "member"
    ]


def test_storage_lifecycle_writes_where_the_emulator_reads(gcp: Provider, tmp_path: Path) -> None:
    with pytest.raises(grpc.RpcError, match="bucket does not exist"):
        gcp.create(
            BUCKET_MEMBER, "m", {"bucket": "nowhere", "role": "roles/storage.objectViewer", "member": AGENT}
        )
    bucket_id, bucket = gcp.create(BUCKET, "data", {"name": "tunifolk-data", "location": "us-central1"})
    assert bucket_id == "tunifolk-data" and bucket["selfLink"].endswith("/storage/v1/b/tunifolk-data")
    assert bucket["url"] == "gs://tunifolk-data" and bucket["location"] == "US-CENTRAL1"
    with pytest.raises(grpc.RpcError, match="not available"):
        gcp.create(BUCKET, "data2", {"name": "tunifolk-data", "location": "us-central1"})

    source = tmp_path / "train.jsonl"
    source.write_text('{"contents": []}\n')
    asset = {
        "4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17",
        "path": str(source),
        "hash": "h",
    }
    obj_id, obj = gcp.create(
        OBJECT, "train", {"bucket": "tunifolk-data", "name": "rlft/v1/train.jsonl", "source": asset}
    )
    assert obj_id == "tunifolk-data-rlft/v1/train.jsonl" and obj["outputName"] == "rlft/v1/train.jsonl"
    assert obj["selfLink"].endswith("/b/tunifolk-data/o/rlft%2Fv1%2Ftrain.jsonl") and obj["md5hash"]
    assert (gcp.gcs / "tunifolk-data" / "rlft/v1/train.jsonl").read_bytes() == source.read_bytes()

    grant_id, grant = gcp.create(
        BUCKET_MEMBER,
        "reader",
        {"bucket": "tunifolk-data", "role": "roles/storage.objectViewer", "member": AGENT},
    )
    assert grant_id == f"b/tunifolk-data/roles/storage.objectViewer/{AGENT}" and grant["etag"].startswith(
        "Bw"
    )
    assert gcp.read(BUCKET_MEMBER, grant_id).id == grant_id

    gcp.update(BUCKET, bucket_id, bucket, {**bucket, "forceDestroy": False})
    with pytest.raises(grpc.RpcError, match="not empty"):
        gcp.delete(BUCKET, bucket_id)
    gcp.delete(OBJECT, obj_id)
    gcp.delete(BUCKET_MEMBER, grant_id)
    gcp.delete(BUCKET, bucket_id)
    assert gcp.read(BUCKET, bucket_id).id == ""  # gone: refresh drops it
    assert not (gcp.gcs / "tunifolk-data").exists()
    assert not list((gcp.state / "resources").rglob("*.json"))


def test_cloud_run_service_is_a_real_scorer(gcp: Provider) -> None:
    template = {"containers": [{"image": "us-central1-docker.pkg.dev/p/r/scorer:latest"}]}
    service_id, service = gcp.create(
        RUN, "scorer", {"location": "us-central1", "template": template, "deletionProtection": False}
    )
    assert service_id == f"projects/{PROJECT}/locations/us-central1/services/{service['name']}"
    assert service["latestReadyRevision"].startswith(f"{service_id}/revisions/{service['name']}-00001-")
    # A private service: Cloud Run's front refuses a call without a grant (tests/test_invoker.py).
    assert requests.get(f"{service['uri']}/healthz", timeout=5).status_code == 403
    member = {
        "location": "us-central1",
        "name": service["name"],
        "role": "roles/run.invoker",
        "member": AGENT,
    }
    grant_id, _ = gcp.create(RUN_MEMBER, "invoker", member)
    assert grant_id == f"{service_id}/roles/run.invoker/{AGENT}"

    updated = gcp.update(RUN, service_id, service, {**service, "labels": {"team": "poetry"}})
    assert updated["uri"] == service["uri"] and updated["generation"] == "2"

    cloudrun.stop(gcp.state, service_id)  # scaled to zero: a read brings it back on the same URL
    assert cloudrun.running(gcp.state) == []
    gcp.read(RUN, service_id)
    assert len(cloudrun.running(gcp.state)) == 2  # the scorer and its front
    assert requests.get(f"{service['uri']}/healthz", timeout=5).status_code == 403

    gcp.delete(RUN_MEMBER, grant_id)
    gcp.delete(RUN, service_id)
    assert cloudrun.running(gcp.state) == []
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{service['uri']}/healthz", timeout=5)


def test_deletion_protection_blocks_delete(gcp: Provider) -> None:
    template = {"containers": [{"image": "us-central1-docker.pkg.dev/p/r/scorer:latest"}]}
    service_id, _ = gcp.create(RUN, "scorer", {"location": "us-central1", "template": template})
    with pytest.raises(grpc.RpcError, match="deletion_protection"):
        gcp.delete(RUN, service_id)


def test_get_project_and_unmodelled_calls(gcp: Provider) -> None:
    resp = gcp.stub.Invoke(
        provider_pb2.InvokeRequest(
            tok="gcp:organizations/getProject:getProject", args=to_struct({"projectId": PROJECT})
        )
    )
    project = to_dict(getattr(resp, "return"))
    assert len(project["number"]) == 12 and project["number"].isdigit() and project["projectId"] == PROJECT
    again = gcp.stub.Invoke(provider_pb2.InvokeRequest(tok="gcp:organizations/getProject:getProject"))
    assert to_dict(getattr(again, "return"))["number"] == project["number"]
    other = gcp.stub.Invoke(provider_pb2.InvokeRequest(tok="gcp:compute/getNetwork:getNetwork"))
    assert "stand-in" in other.failures[0].reason
    with pytest.raises(grpc.RpcError, match="not modelled by the stand-in"):
        gcp.check("gcp:compute/network:Network", "n", {})


def test_apis_left_enabled_are_not_resources(gcp: Provider) -> None:
    api_id, _ = gcp.create(API, "run", {"service": "run.googleapis.com", "disableOnDestroy": False})
    assert api_id == f"{PROJECT}/run.googleapis.com"
    gcp.delete(API, api_id)
    assert not list((gcp.state / "resources").rglob("*.json"))
    assert (gcp.state / "apis" / PROJECT / "run.googleapis.com").exists()  # still enabled, as Google keeps it


def test_an_api_is_shared_but_a_bucket_name_is_not(gcp: Provider) -> None:
    """Two stacks may both declare one API (Service Usage enables it once); two buckets may not share a
    name (Cloud Storage's 409): a stack in the same project that reuses one is refused as Google does."""
    api = {"service": "run.googleapis.com", "disableOnDestroy": False}
    assert gcp.create(API, "one-run", api)[0] == gcp.create(API, "two-run", api)[0]
    gcp.create(BUCKET, "one", {"name": "b-shared", "location": "US"})
    with pytest.raises(grpc.RpcError, match="Error 409: The requested bucket name b-shared is not available"):
        gcp.create(BUCKET, "two", {"name": "b-shared", "location": "US"})


def test_grants_beyond_the_stacks_own_are_checked_made_and_removed(gcp: Provider) -> None:
    """The IAM bindings and policies and the ACLs the policy pack refuses when public (the bad graph
    previews them): refused where Google refuses, needing their parent, and kept as records."""
    bucket = {"bucket": "tunifolk-acl"}
    binding = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
    acl = "gcp:storage/bucketAccessControl:BucketAccessControl"
    object_acl = "gcp:storage/objectAccessControl:ObjectAccessControl"
    policy = "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"
    assert (
        "members" in gcp.check(binding, "b", {**bucket, "role": "roles/viewer", "members": ["everyone"]})[1]
    )
    assert "entity" in gcp.check(acl, "a", {**bucket, "entity": "everyone", "role": "READER"})[1]
    assert "role" in gcp.check(acl, "a", {**bucket, "entity": "allUsers", "role": "viewer"})[1]
    assert (
        "project"
        in gcp.check("gcp:projects/iAMMember:IAMMember", "p", {"role": "roles/viewer", "member": AGENT})[1]
    )
    assert "policyData" in gcp.check(policy, "p", {"name": "s", "policyData": "{"})[1]
    bad_member = json.dumps({"bindings": [{"role": "roles/run.invoker", "members": ["everyone"]}]})
    assert "policyData" in gcp.check(policy, "p", {"name": "s", "policyData": bad_member})[1]
    with pytest.raises(grpc.RpcError, match="bucket does not exist"):
        gcp.create(acl, "a", {**bucket, "entity": "allUsers", "role": "READER"})
    with pytest.raises(grpc.RpcError, match="No such object"):
        gcp.create(object_acl, "o", {**bucket, "object": "x", "entity": "allUsers", "role": "READER"})

    gcp.create(BUCKET, "acl", {"name": "tunifolk-acl", "location": "us-central1"})
    made = [
        gcp.create(binding, "b", {**bucket, "role": "roles/storage.objectViewer", "members": [AGENT]}),
        gcp.create(acl, "a", {**bucket, "entity": "user-ada@example.com", "role": "READER"}),
        gcp.create(
            "gcp:projects/iAMBinding:IAMBinding",
            "p",
            {"project": PROJECT, "role": "roles/viewer", "members": [AGENT]},
        ),
    ]
    assert [id_ for id_, _ in made] == [
        "b/tunifolk-acl/roles/storage.objectViewer",
        "tunifolk-acl/user-ada@example.com",
        f"{PROJECT}/roles/viewer",
    ]
    assert made[0][1]["etag"].startswith("Bw") and made[1][1]["email"] == "ada@example.com"
    for (id_, _), token in zip(made, (binding, acl, "gcp:projects/iAMBinding:IAMBinding"), strict=True):
        assert gcp.read(token, id_).id == id_
        gcp.delete(token, id_)
        assert gcp.read(token, id_).id == ""
