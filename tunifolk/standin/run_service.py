"""Cloud Run v2 in the stand-in: a service runs as a real local reward scorer (`cloudrun.py`
starts and stops it), with its IAM member and policy resources."""

from __future__ import annotations

import base64
import json
import re
import secrets
import uuid
from typing import Any

from tunifolk import cloudrun_limits, processes
from tunifolk import image as images
from tunifolk.job.wire import UNKNOWN
from tunifolk.standin import cloudrun, front
from tunifolk.standin.kind import (
    Context,
    IamMemberKind,
    Kind,
    StandInError,
    binding_failures,
    missing,
    now,
)
from tunifolk.standin.store import Record

# --------------------------------------------------------------------------- Cloud Run v2

RUN_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,47}[a-z0-9])?$")
IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:\d+)?/[A-Za-z0-9._/-]+(:[\w.-]+|@sha256:[0-9a-f]{64})?$")
INGRESS = ("INGRESS_TRAFFIC_ALL", "INGRESS_TRAFFIC_INTERNAL_ONLY", "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER")


class CloudRunService(Kind):
    token = "gcp:cloudrunv2/service:Service"
    required = ("location", "template")
    force_new = ("name", "location", "project")
    autoname = "name"
    autoname_limit = 49
    labelled = True

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        name = inputs.get("name")
        if isinstance(name, str) and name != UNKNOWN and not RUN_NAME_RE.match(name):
            out.append(("name", f"{name!r}: a service name is 1-49 of [a-z0-9-], starting with a letter"))
        ingress = inputs.get("ingress")
        if ingress and ingress not in INGRESS:
            out.append(("ingress", f"expected ingress to be one of {list(INGRESS)}, got {ingress}"))
        template = inputs.get("template")
        if isinstance(template, dict):
            containers = template.get("containers")
            if missing(containers):
                out.append(("template.containers", "at least one container is required"))
            for i, container in enumerate(containers or []):
                image = container.get("image") if isinstance(container, dict) else None
                if missing(image):
                    out.append((f"template.containers[{i}].image", "image is required"))
                elif image != UNKNOWN and not IMAGE_RE.match(image):
                    out.append((f"template.containers[{i}].image", f"{image!r} is not a container image URL"))
            scaling = template.get("scaling") or {}
            low, high = scaling.get("minInstanceCount"), scaling.get("maxInstanceCount")
            if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
                out.append(
                    ("template.scaling", f"minInstanceCount {low:g} exceeds maxInstanceCount {high:g}")
                )
        return out

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/locations/{inputs['location']}/services/{inputs['name']}"

    def refuse_limits(self, inputs: dict[str, Any]) -> None:
        """Cloud Run's cpu, memory and concurrency limits (tunifolk/cloudrun_limits.py), refused at
        create and update as its API refuses them (400 INVALID_ARGUMENT). Left out, cpu is 1, memory
        512Mi and concurrency 80 (Cloud Run's defaults); `cpuIdle` is true only when `resources` is
        left out (pulumi-gcp's schema: with `resources` set it "must be explicitly set to true")."""
        template = inputs.get("template") or {}
        containers = [c for c in template.get("containers") or [] if isinstance(c, dict)]
        if not containers:
            return
        cpus, memories, idle = [], [], True
        for container in containers:
            resources = container.get("resources")
            limits = (resources or {}).get("limits") or {}
            cpus.append(cloudrun_limits.parse_cpu(limits.get("cpu", cloudrun_limits.DEFAULT_CPU)))
            memories.append(limits.get("memory", cloudrun_limits.DEFAULT_MEMORY))
            idle = idle and (resources is None or resources.get("cpuIdle") is True)
        total = sum(c for c in cpus if c is not None) if None not in cpus else "unparsable"
        concurrency = template.get("maxInstanceRequestConcurrency") or cloudrun_limits.DEFAULT_CONCURRENCY
        gen2 = template.get("executionEnvironment") == "EXECUTION_ENVIRONMENT_GEN2"
        found = cloudrun_limits.refusals(total, memories[0], int(concurrency), idle, gen2)
        if found:
            raise StandInError(f"googleapi: Error 400: {found[0].path}: {found[0].message}, badRequest")

    def refuse_missing_image(self, inputs: dict[str, Any]) -> None:
        """A local image (podman's storage, by digest: the stand-in runs it) must exist, as Cloud Run
        fails a revision whose image it cannot pull (the message's wording is UNCONFIRMED)."""
        image = _image(inputs)
        if image and images.local(image) and not images.exists(image):
            raise StandInError(f"googleapi: Error 400: Image '{image}' not found., badRequest")

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        self.refuse_limits(inputs)
        self.refuse_missing_image(inputs)

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        out = super().outputs(ctx, inputs, preview)
        out.setdefault("deletionProtection", True)  # Cloud Run v2's default in pulumi-gcp
        out.setdefault("ingress", "INGRESS_TRAFFIC_ALL")
        if preview:
            out.update(
                uri=UNKNOWN, urls=UNKNOWN, uid=UNKNOWN, etag=UNKNOWN, generation=UNKNOWN,
                createTime=UNKNOWN, updateTime=UNKNOWN, latestReadyRevision=UNKNOWN,
                latestCreatedRevision=UNKNOWN, terminalConditions=UNKNOWN, reconciling=False,
            )  # fmt: skip
            return out
        stamp = now()
        out.update(
            uid=str(uuid.uuid4()),
            etag='"' + base64.b64encode(secrets.token_bytes(12)).decode() + '"',
            generation="1",
            observedGeneration="1",
            createTime=stamp,
            updateTime=stamp,
            reconciling=False,
            creator=f"tunifolk-stand-in@{inputs['project']}.iam.gserviceaccount.com",
        )
        self._revision(ctx, inputs, out, 1, stamp)
        return out

    def _revision(
        self, ctx: Context, inputs: dict[str, Any], out: dict[str, Any], generation: int, stamp: str
    ) -> None:
        suffix = f"{generation:05d}-{secrets.token_hex(2)[:3]}"
        revision = f"{self.id_of(ctx, inputs)}/revisions/{inputs['name']}-{suffix}"
        out.update(
            latestReadyRevision=revision,
            latestCreatedRevision=revision,
            terminalConditions=[
                {"type": "Ready", "state": "CONDITION_SUCCEEDED", "lastTransitionTime": stamp}
            ],
        )

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        # the service's URL is any free port until it is recorded: a front that loses its port before
        # binding it (another program holds it) starts again on another; any other failure is said once
        service_id, image = self.id_of(ctx, inputs), _image(inputs)
        _, port = processes.on_free_port(
            lambda port: cloudrun.ensure(ctx.state, service_id, port, image),
            lost=lambda port: not processes.port_free(port),
        )
        outputs["uri"] = f"http://127.0.0.1:{port}"
        outputs["urls"] = [outputs["uri"]]

    def kept(self, outputs: dict[str, Any]) -> dict[str, Any]:
        return {k: outputs[k] for k in ("uid", "createTime", "uri", "urls", "creator")}

    def on_update(self, ctx: Context, record: Record, news: dict[str, Any], outputs: dict[str, Any]) -> None:
        self.refuse_limits(news)
        self.refuse_missing_image(news)
        generation = int(record.outputs.get("generation", "1")) + 1
        outputs.update(generation=str(generation), observedGeneration=str(generation))
        self._revision(ctx, news, outputs, generation, outputs["updateTime"])
        cloudrun.ensure(ctx.state, record.id, port_of(record.outputs["uri"]), _image(news))

    def on_read(self, ctx: Context, record: Record) -> None:
        cloudrun.ensure(ctx.state, record.id, port_of(record.outputs["uri"]))  # scale up from zero

    def before_delete(self, ctx: Context, record: Record) -> None:
        if record.outputs.get("deletionProtection", True):
            raise StandInError(
                f"cannot destroy service without setting deletion_protection=false and running `pulumi up` "
                f"({record.id})"
            )
        cloudrun.stop(ctx.state, record.id)
        for token in (ServiceIamMember.token, ServiceIamPolicy.token):
            for grant in ctx.store.all(token):
                if grant.inputs.get("name") in (record.id, record.inputs["name"]):
                    ctx.store.delete(token, grant.id)  # a service's policy goes with it
                    front.forget_grant(ctx.state, grant.id)


def _image(inputs: dict[str, Any]) -> str | None:
    """The service's (first) container image, when known."""
    containers = (inputs.get("template") or {}).get("containers") or [{}]
    image = containers[0].get("image") if isinstance(containers[0], dict) else None
    return image if isinstance(image, str) and image != UNKNOWN else None


def port_of(uri: str) -> int:
    return int(uri.rsplit(":", 1)[1].rstrip("/"))


class ServiceIamMember(IamMemberKind):
    token = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
    required = ("name", "role", "member", "location")
    force_new = ("name", "location", "project", "role", "member", "condition")

    def check(
        self, ctx: Context, name: str, olds: dict[str, Any], news: dict[str, Any], seed: bytes
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        if missing(news.get("location")) and ctx.region:
            news = {**news, "location": ctx.region}
        return super().check(ctx, name, olds, news, seed)

    def service_id(self, inputs: dict[str, Any]) -> str:
        name = inputs["name"]
        if name.startswith("projects/"):
            return name
        return f"projects/{inputs['project']}/locations/{inputs['location']}/services/{name}"

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"{self.service_id(inputs)}/{inputs['role']}/{inputs['member']}"

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        if ctx.store.get(CloudRunService.token, self.service_id(inputs)) is None:
            raise StandInError(
                f"googleapi: Error 404: Resource '{inputs['name']}' of kind 'SERVICE' in region "
                f"'{inputs['location']}' in project '{inputs['project']}' does not exist., notFound"
            )

    def after_create(self, ctx: Context, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """The grant is written now and applies after IAM's propagation delay (front.py checks it)."""
        front.stamp_grant(ctx.state, self.id_of(ctx, inputs))

    def on_update(self, ctx: Context, record: Record, news: dict[str, Any], outputs: dict[str, Any]) -> None:
        front.stamp_grant(ctx.state, record.id)

    def before_delete(self, ctx: Context, record: Record) -> None:
        front.forget_grant(ctx.state, record.id)


class ServiceIamPolicy(ServiceIamMember):
    """A Cloud Run service's whole IAM policy (authoritative), as the JSON `policyData` holds it."""

    token = "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"
    required = ("name", "policyData", "location")
    force_new = ("name", "location", "project")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        data = inputs.get("policyData")
        if not isinstance(data, str) or data == UNKNOWN:
            return []
        try:
            policy = json.loads(data)
        except ValueError as exc:
            return [("policyData", f"policyData is not JSON: {exc}")]
        bindings = policy.get("bindings", []) if isinstance(policy, dict) else None
        if not isinstance(bindings, list):
            return [("policyData", 'policyData is not an IAM policy: expected {"bindings": [...]}')]
        return [
            ("policyData", reason)
            for b in bindings
            for _, reason in binding_failures(b if isinstance(b, dict) else {})
        ]

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return self.service_id(inputs)
