"""Drive the Pulumi SDK's own dynamic-provider host (`python -m pulumi.dynamic`) over gRPC.

The Pulumi engine cannot run here, so this stands in for it the way the engine talks to the host:
the provider serialized by dill into `__provider`, properties as protobuf Structs (every number a
float), the unknown sentinel at preview, and Check → Diff → Create → Read → Update → Delete calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
URN = "urn:pulumi:dev::tunifolk::pulumi-python:dynamic/tunifolk:RlftTuningJob::job"


def to_struct(props: dict[str, Any]) -> Any:
    return asyncio.run(rpc.serialize_properties(props, {}))


def from_struct(struct: Any) -> dict[str, Any]:
    return rpc.deserialize_properties(struct, True)


class Host:
    """A running `python -m pulumi.dynamic` process and a stub speaking the provider protocol."""

    def __init__(self, stub: provider_pb2_grpc.ResourceProviderStub, provider: str) -> None:
        self.stub = stub
        self.provider = provider

    def _props(self, props: dict[str, Any]) -> Any:
        return to_struct({"__provider": self.provider, **props})

    def configure(self) -> None:
        self.stub.Configure(provider_pb2.ConfigureRequest(args=to_struct({}), acceptSecrets=True))

    def check(self, news: dict[str, Any], olds: dict[str, Any] | None = None) -> tuple[dict, list]:
        resp = self.stub.Check(
            provider_pb2.CheckRequest(
                urn=URN, olds=self._props(olds or {}) if olds else to_struct({}), news=self._props(news)
            )
        )
        return from_struct(resp.inputs), [(f.property, f.reason) for f in resp.failures]

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> Any:
        return self.stub.Diff(
            provider_pb2.DiffRequest(id=id_, urn=URN, olds=self._props(olds), news=self._props(news))
        )

    def create(self, props: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        resp = self.stub.Create(provider_pb2.CreateRequest(urn=URN, properties=self._props(props)))
        return resp.id, from_struct(resp.properties)

    def read(self, id_: str, props: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
        resp = self.stub.Read(
            provider_pb2.ReadRequest(
                id=id_, urn=URN, properties=self._props(props), inputs=self._props(props)
            )
        )
        return resp.id, from_struct(resp.properties), from_struct(resp.inputs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        resp = self.stub.Update(
            provider_pb2.UpdateRequest(id=id_, urn=URN, olds=self._props(olds), news=self._props(news))
        )
        return from_struct(resp.properties)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        self.stub.Delete(provider_pb2.DeleteRequest(id=id_, urn=URN, properties=self._props(props)))


@contextlib.contextmanager
def dynamic_host(provider: Any, env: dict[str, str] | None = None) -> Iterator[Host]:
    """Start the SDK's dynamic provider host in the project root, as the engine would."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.dynamic"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PULUMI_PROJECT": "tunifolk", **(env or {})},
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().strip())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        host = Host(provider_pb2_grpc.ResourceProviderStub(channel), serialize_provider(provider))
        host.configure()
        yield host
        channel.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
