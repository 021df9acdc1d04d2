"""The Pulumi program (`__main__.py`) run under Pulumi's mocks, for tests/test_stack.py,
tests/test_one_builder.py and bench/bench_stack.py.

Only the engine and Google are mocked. The program, the components, the config parsing and the
real provider's `check` (run on the job's registered inputs) are all real. The mock monitor is
subclassed to record what the engine would see: types, inputs, parents and dependencies.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import time
from pathlib import Path
from typing import Any

import pulumi
import yaml
from pulumi.runtime.mocks import MockMonitor

from providers.scorer_image import ScorerImageProvider
from providers.tuning_job import RlftTuningJobProvider
from tunifolk import policy_rules as policy

ROOT = Path(__file__).resolve().parent.parent
PROJECT_NUMBER = "123456789012"
JOB = policy.JOB_TYPE
SCORER_IMAGE = "pulumi-python:dynamic/tunifolk:ScorerImage"


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
        elif args.typ == SCORER_IMAGE:  # the provider's own check; a digest, as a build answers
            inputs = {k: v for k, v in args.inputs.items() if k != "__provider"}
            result = ScorerImageProvider().check({}, inputs)
            self.check_failures += [(f.property, f.reason) for f in result.failures]
            state.update(image=f"{args.inputs['repository']}/scorer@sha256:{'0' * 64}", log_url="https://log")
            return "build-1", state
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
