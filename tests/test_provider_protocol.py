"""The provider as the Pulumi engine sees it: through the SDK's dynamic-provider host over gRPC.

`python -m pulumi.dynamic` is started from the project root like the engine does; the provider
arrives dill-serialized in `__provider`, properties arrive as protobuf Structs (numbers as floats),
and at the first preview some values are still the unknown sentinel.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Iterator
from pathlib import Path

import dill
import grpc
import pulumi
import pytest
import requests
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2

import servers
from jobs import FAST, inputs, write_dataset
from providers.tuning_job import RlftTuningJob, RlftTuningJobProvider
from pulumi_host import Host, dynamic_host
from tunifolk.job import wire
from tunifolk.vertex import ENDPOINT_ENV


def test_the_unknown_sentinel_is_pulumis() -> None:
    assert wire.UNKNOWN == rpc.UNKNOWN


def test_the_serialized_provider_holds_only_numbers() -> None:
    blob = base64.b64decode(serialize_provider(RlftTuningJobProvider(**FAST)))
    assert b"providers.tuning_job" in blob  # pickled by reference: the provider process imports it
    provider = dill.loads(blob)
    assert all(isinstance(v, (int, float)) for v in vars(provider).values())
    for marker in (b"token", b"Bearer", b"credential", b"Session", b"ya29"):
        assert marker not in blob


def test_the_resource_type_token() -> None:
    assert RlftTuningJob._resource_type_name == "dynamic/tunifolk:RlftTuningJob"


@pytest.mark.slow
def test_check_over_grpc_reports_property_paths_and_accepts_unknowns() -> None:
    with dynamic_host(RlftTuningJobProvider(**FAST)) as host:
        preview = inputs(rpc.UNKNOWN)  # the scorer URI is not known at the first preview
        preview["training_dataset_uri"] = rpc.UNKNOWN
        checked, failures = host.check(preview)
        assert failures == []
        assert checked["hyper_parameters"]["batch_size"] == 16  # floats normalised back to ints

        bad = inputs("https://scorer.example.run.app")
        bad["hyper_parameters"]["checkpoint_interval"] = 3.0
        bad["rewards"][1]["autorater"].pop("model")
        _, failures = host.check(bad)
        # nested paths lead the reason (the engine would print their value as {<nil>})
        leads = [reason.split(": ", 1)[0] for prop, reason in failures if not prop]
        assert "hyper_parameters.checkpoint_interval" in leads
        assert "rewards[1].autorater.model" in leads


@contextlib.contextmanager
def live(gcs: Path) -> Iterator[tuple[str, str, Host]]:
    """A real scorer, the emulator reading the test dataset, and the SDK's host pointed at them."""
    write_dataset(gcs, 64)
    with (
        servers.scorer() as scorer_uri,
        servers.emulator("--step-seconds", "0.02", "--gcs-dir", str(gcs)) as emu,
        dynamic_host(RlftTuningJobProvider(**FAST), env={ENDPOINT_ENV: emu}) as host,
    ):
        yield scorer_uri, emu, host


@pytest.mark.slow
def test_diff_over_grpc_replaces_or_updates_in_place(tmp_path: Path) -> None:
    """A replacement is validated during diff (the emulator and the real scorer answer it)."""
    with live(tmp_path) as (scorer_uri, _emu, host):
        olds = inputs(scorer_uri)
        olds["name"] = "projects/p/locations/us-central1/tuningJobs/1"
        same = host.diff(olds["name"], olds, inputs(scorer_uri))
        assert same.changes == provider_pb2.DiffResponse.DIFF_NONE

        waited = host.diff(olds["name"], olds, inputs(scorer_uri, wait="none"))
        assert waited.changes == provider_pb2.DiffResponse.DIFF_SOME and list(waited.replaces) == []

        reshaped = inputs(scorer_uri)
        reshaped["hyper_parameters"]["epoch_count"] = 2.0
        replaced = host.diff(olds["name"], olds, reshaped)
        assert list(replaced.replaces) == ["hyper_parameters"] and not replaced.deleteBeforeReplace

        unknown = host.diff(olds["name"], olds, inputs(rpc.UNKNOWN))  # at preview: nothing to validate
        assert list(unknown.replaces) == ["rewards"]

        # State written by other provider code (another version, other settings) is no change.
        older = {**olds, "__provider": serialize_provider(RlftTuningJobProvider(poll_seconds=99.0))}
        assert older["__provider"] != host.provider
        code_only = host.diff(olds["name"], older, inputs(scorer_uri))
        assert code_only.changes == provider_pb2.DiffResponse.DIFF_NONE


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_create_read_delete_over_grpc_against_the_emulator(tmp_path: Path) -> None:
    with live(tmp_path) as (scorer_uri, emu, host):
        props, failures = host.check(inputs(scorer_uri))
        assert failures == []
        job_id, outs = host.create({k: v for k, v in props.items() if k != "__provider"})
        assert outs["state"] == "JOB_STATE_SUCCEEDED" and outs["name"] == job_id
        assert outs["total_steps"] == 4

        read_id, refreshed, read_inputs = host.read(job_id, outs)
        assert read_id == job_id and refreshed["completed_steps"] == 4
        assert read_inputs["project"] == props["project"] and "state" not in read_inputs

        host.delete(job_id, refreshed)
        for name in (refreshed["endpoint"], *(c["endpoint"] for c in refreshed["checkpoints"])):
            assert requests.get(f"{emu}/v1beta1/{name}", timeout=10).status_code == 404
        gone_id, after, _ = host.read(job_id, refreshed)
        assert gone_id == job_id and after["state"] == "JOB_STATE_SUCCEEDED"  # jobs have no delete


class _Recorder(pulumi.runtime.Mocks):
    """Pulumi's mocks stand in for the engine only; they record what the program registers."""

    def __init__(self) -> None:
        self.registered: list[pulumi.runtime.MockResourceArgs] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        self.registered.append(args)
        return "projects/p/locations/us-central1/tuningJobs/1", {**args.inputs, "state": "JOB_STATE_PENDING"}

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        return {}


def test_the_resource_registers_its_inputs_and_a_serialized_provider() -> None:
    asyncio.set_event_loop(asyncio.new_event_loop())
    recorder = _Recorder()
    pulumi.runtime.set_mocks(recorder, project="tunifolk", stack="dev", preview=False)

    def check_state(state: str) -> None:
        assert state == "JOB_STATE_PENDING"  # the output attribute resolves from the resource's state

    @pulumi.runtime.test
    def program():
        job = RlftTuningJob("job", inputs("https://scorer-abc.a.run.app"))
        return job.state.apply(check_state)

    program()
    (args,) = recorder.registered
    assert args.typ == "pulumi-python:dynamic/tunifolk:RlftTuningJob"
    assert args.inputs["project"] == "tunifolk-test"
    assert "__provider" in args.inputs and "state" not in args.inputs


def test_unknown_objects_from_the_host_count_as_unknown() -> None:
    assert wire.is_unknown(pulumi.output.Unknown())
    assert wire.contains_unknown({"rewards": [{"cloud_run": {"uri": pulumi.output.Unknown()}}]})
    assert not wire.is_unknown("gs://bucket/train.jsonl")


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("debug", [False, True])
def test_a_refused_reward_reaches_the_engine_as_one_message(tmp_path: Path, debug: bool) -> None:
    """The SDK's host answers a provider's exception with its traceback; an expected failure of
    ours (here a reward that cannot be called) goes as its message alone, unless debugging."""
    write_dataset(tmp_path, 64)
    env = {"TUNIFOLK_DEBUG": "1"} if debug else {}
    with (
        servers.emulator("--step-seconds", "0.02", "--gcs-dir", str(tmp_path)) as emu,
        dynamic_host(RlftTuningJobProvider(**FAST), env={ENDPOINT_ENV: emu, **env}) as host,
    ):
        props, failures = host.check(inputs("http://127.0.0.1:9"))
        assert failures == []
        with pytest.raises(grpc.RpcError) as info:
            host.create({k: v for k, v in props.items() if k != "__provider"})
        details = info.value.details()
        assert "reward validation failed; no tuning job was created" in details
        assert ("Traceback" in details) is debug
        listed = requests.get(f"{emu}/v1beta1/projects/tunifolk-test/locations/us-central1/tuningJobs")
        assert listed.json() == {}  # nothing was created
