"""The gRPC face of the stand-in: Pulumi's ResourceProvider service, as the engine calls it.

Hand-written over `pulumi.runtime.proto` (the model is the SDK's own `pulumi/dynamic/__main__.py`)
rather than `pulumi.provider.experimental`, whose Provider base in SDK 3.272 passes PropertyValue
trees: plain dicts keep the engine's values (unknowns, assets) visible as they travel, which is what
a stand-in for a Terraform-bridged provider has to reproduce.

Properties travel as protobuf Structs and are used here as plain JSON (numbers are floats, as on the
wire). Secrets are not accepted (`acceptSecrets: false`): the engine strips them before a call and
marks the matching outputs secret again, so nothing secret reaches the stand-in's files.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from pulumi.runtime.proto.plugin_pb2 import PluginInfo

from tunifolk.standin import VERSION, cloudrun, gcs_dir, state_dir
from tunifolk.standin.kind import Context, Gone, Kind, StandInError
from tunifolk.standin.resources import INVOKES, KINDS
from tunifolk.standin.run_service import CloudRunService, port_of

PREFIX = "gcp stand-in"


def to_dict(struct: struct_pb2.Struct | None) -> dict[str, Any]:
    if struct is None:
        return {}
    return json_format.MessageToDict(struct)


def to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(json.loads(json.dumps(value)))  # ints become floats, tuples lists
    return struct


def _type_of(urn: str) -> str:
    """The resource type token of a URN (`...::parent$type::name` → `type`)."""
    return urn.split("::")[2].split("$")[-1]


def _name_of(urn: str) -> str:
    return urn.split("::")[3]


def _guard(method: Callable[..., Any]) -> Callable[..., Any]:
    """One readable line for an expected refusal; a traceback only for a bug of the stand-in."""

    def wrapper(self: StandIn, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return method(self, request, context)
        except StandInError as exc:
            context.abort(grpc.StatusCode.UNKNOWN, f"{PREFIX}: {exc}")
        except Exception:
            context.abort(grpc.StatusCode.INTERNAL, f"{PREFIX} bug: {traceback.format_exc()}")

    wrapper.__name__ = method.__name__
    return wrapper


class StandIn(provider_pb2_grpc.ResourceProviderServicer):
    """The provider: routes each call to the resource type of its URN (tunifolk/standin/resources.py)."""

    def __init__(self) -> None:
        self.project: str | None = None
        self.region: str | None = None

    def _ctx(self) -> Context:
        return Context(project=self.project, region=self.region, state=state_dir(), gcs=gcs_dir())

    def _kind(self, urn: str) -> Kind:
        token = _type_of(urn)
        kind = KINDS.get(token)
        if kind is None:
            raise StandInError(
                f"{token} is not modelled by the stand-in (it models {', '.join(sorted(KINDS))}); "
                "run this program against real Google Cloud instead"
            )
        return kind

    # ------------------------------------------------------------------ plugin and config

    def GetPluginInfo(self, request: empty_pb2.Empty, context: grpc.ServicerContext) -> PluginInfo:
        return PluginInfo(version=VERSION)

    def Handshake(self, request: Any, context: grpc.ServicerContext) -> Any:
        return provider_pb2.ProviderHandshakeResponse(
            accept_secrets=False, accept_resources=False, accept_outputs=False
        )

    def GetSchema(self, request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, f"{PREFIX}: no schema (use the pulumi-gcp SDK's)")

    def CheckConfig(self, request: Any, context: grpc.ServicerContext) -> Any:
        return provider_pb2.CheckResponse(inputs=request.news)

    def DiffConfig(self, request: Any, context: grpc.ServicerContext) -> Any:
        olds, news = to_dict(request.olds), to_dict(request.news)
        changed = sorted(k for k in set(olds) | set(news) if olds.get(k) != news.get(k) and k != "version")
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed else provider_pb2.DiffResponse.DIFF_NONE,
            diffs=changed,
        )

    def Configure(self, request: Any, context: grpc.ServicerContext) -> Any:
        args = to_dict(request.args)
        variables = dict(request.variables)
        self.project = args.get("project") or variables.get("gcp:config:project") or None
        self.region = args.get("region") or variables.get("gcp:config:region") or None
        wake_scorers(self._ctx())
        return provider_pb2.ConfigureResponse(
            acceptSecrets=False, supportsPreview=True, acceptResources=False, acceptOutputs=False
        )

    # ------------------------------------------------------------------ resources

    @_guard
    def Check(self, request: Any, context: grpc.ServicerContext) -> Any:
        kind = self._kind(request.urn)
        inputs, failures = kind.check(
            self._ctx(),
            _name_of(request.urn),
            to_dict(request.olds),
            to_dict(request.news),
            request.randomSeed,
        )
        return provider_pb2.CheckResponse(
            inputs=to_struct(inputs),
            failures=[provider_pb2.CheckFailure(property=p, reason=f"{PREFIX}: {r}") for p, r in failures],
        )

    @_guard
    def Diff(self, request: Any, context: grpc.ServicerContext) -> Any:
        kind = self._kind(request.urn)
        olds = to_dict(request.old_inputs) or to_dict(request.olds)
        news = to_dict(request.news)
        ignore = set(request.ignoreChanges)
        changed, replaces, delete_first = kind.diff(olds, news)
        changed = [k for k in changed if k not in ignore]
        replaces = [k for k in replaces if k not in ignore]
        kinds = provider_pb2.PropertyDiff
        detailed = {
            k: kinds(
                kind=(kinds.UPDATE_REPLACE if k in replaces else kinds.UPDATE)
                if k in olds and k in news
                else (kinds.ADD_REPLACE if k in replaces else kinds.ADD)
                if k in news
                else (kinds.DELETE_REPLACE if k in replaces else kinds.DELETE),
                inputDiff=True,
            )
            for k in changed
        }
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed else provider_pb2.DiffResponse.DIFF_NONE,
            replaces=replaces,
            diffs=changed,
            detailedDiff=detailed,
            hasDetailedDiff=True,
            deleteBeforeReplace=delete_first and bool(replaces),
        )

    @_guard
    def Create(self, request: Any, context: grpc.ServicerContext) -> Any:
        kind = self._kind(request.urn)
        inputs = to_dict(request.properties)
        ctx = self._ctx()
        if request.preview:
            return provider_pb2.CreateResponse(properties=to_struct(kind.outputs(ctx, inputs, preview=True)))
        id_, outputs = kind.create(ctx, inputs)
        return provider_pb2.CreateResponse(id=id_, properties=to_struct(outputs))

    @_guard
    def Read(self, request: Any, context: grpc.ServicerContext) -> Any:
        kind = self._kind(request.urn)
        try:
            record = kind.read(self._ctx(), request.id, to_dict(request.properties))
        except Gone:
            record = None
        if record is None:  # gone: the engine drops it from state on refresh
            return provider_pb2.ReadResponse(id="")
        inputs = {**record.inputs}
        return provider_pb2.ReadResponse(
            id=record.id, properties=to_struct(record.outputs), inputs=to_struct(inputs)
        )

    @_guard
    def Update(self, request: Any, context: grpc.ServicerContext) -> Any:
        kind = self._kind(request.urn)
        news = to_dict(request.news)
        ctx = self._ctx()
        if request.preview:  # what Google decides stays unknown; what an update keeps is known
            merged = {**kind.outputs(ctx, news, preview=True), **kind.kept(to_dict(request.olds))}
            return provider_pb2.UpdateResponse(properties=to_struct(merged))
        return provider_pb2.UpdateResponse(properties=to_struct(kind.update(ctx, request.id, news)))

    @_guard
    def Delete(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._kind(request.urn).delete(self._ctx(), request.id, to_dict(request.properties))
        return empty_pb2.Empty()

    @_guard
    def Invoke(self, request: Any, context: grpc.ServicerContext) -> Any:
        function = INVOKES.get(request.tok)
        if function is None:
            return provider_pb2.InvokeResponse(
                failures=[
                    provider_pb2.CheckFailure(
                        property="",
                        reason=f"{PREFIX}: {request.tok} is not modelled (only {', '.join(INVOKES)})",
                    )
                ]
            )
        return provider_pb2.InvokeResponse(
            **{"return": to_struct(function(self._ctx(), to_dict(request.args)))}
        )

    def Cancel(self, request: Any, context: grpc.ServicerContext) -> Any:
        return empty_pb2.Empty()


def wake_scorers(ctx: Context) -> None:
    """Cloud Run is always there: start any recorded service's scorer that has stopped (a reboot,
    `tunifolk local stop`), on its recorded port, before the engine's calls rely on its URL."""
    for record in ctx.store.all(CloudRunService.token):
        try:
            cloudrun.ensure(ctx.state, record.id, port_of(record.outputs["uri"]))
        except (RuntimeError, KeyError, ValueError) as exc:
            print(f"{PREFIX}: {exc}", file=sys.stderr, flush=True)


def watch_parent() -> None:
    """Exit when the engine that started this plugin dies (killed, crashed): an orphaned plugin would
    otherwise wait forever for calls that never come."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def serve() -> None:
    """Serve on a free loopback port and print it first on stdout, as the engine expects of a plugin."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(StandIn(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    watch_parent()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop(0)
