"""Start the project's real servers as processes for tests and benchmarks.

Tests talk to real local HTTP servers, never to mocks of our own code. The helpers are the CLI's
own (`tunifolk/cli/local.py`, over `tunifolk/processes.py`), so tests start `python -m
tunifolk.emulator` and `python -m scorer` exactly as `tunifolk demo` and a user do; `standin` starts
the gcp stand-in as the engine does.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
from pulumi.runtime.proto import provider_pb2_grpc

from tunifolk.cli.local import ROOT, emulator, scorer
from tunifolk.processes import free_port, stop

__all__ = ["ROOT", "configured_standin", "emulator", "free_port", "scorer", "standin"]


@contextlib.contextmanager
def standin(state: Path, gcs: Path) -> Iterator[provider_pb2_grpc.ResourceProviderStub]:
    """`python -m tunifolk.standin` as the engine runs it (it prints its gRPC port first), keeping its
    records in `state` and its objects in `gcs`; yields a connected, unconfigured stub."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "tunifolk.standin", "127.0.0.1:1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TUNIFOLK_STANDIN_DIR": str(state), "TUNIFOLK_GCS_DIR": str(gcs)},
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        yield provider_pb2_grpc.ResourceProviderStub(channel)
        channel.close()
    finally:
        stop(proc)


@contextlib.contextmanager
def configured_standin(state: Path, project: str) -> Iterator[provider_pb2_grpc.ResourceProviderStub]:
    """`standin`, configured as the engine configures it for `project` in us-central1 (its gs:// objects
    beside `state`)."""
    from pulumi.runtime.proto import provider_pb2

    from tunifolk.standin.server import to_struct

    with standin(state, state.parent / "gcs") as stub:
        variables = {"gcp:config:project": project, "gcp:config:region": "us-central1"}
        stub.Configure(
            provider_pb2.ConfigureRequest(variables=variables, args=to_struct({"project": project}))
        )
        yield stub
