"""RewardScorer: the private Cloud Run reward service, its image, and the one grant that lets Vertex
call it.

The image: unless `tunifolk:scorer.image` names one built elsewhere, the stack builds the scorer of
this checkout: an Artifact Registry repository (one per stack), and the build resource
(providers/scorer_image.py: Cloud Build from a source archive in the stack's bucket) whose input is
the digest of the build context, so only an edit to a file that goes into the image builds again.
The build runs as the stack's own build account (`build_account_id`), granted exactly
roles/storage.objectViewer on the bucket (the source archive), roles/artifactregistry.writer on the
repository (the push) and roles/logging.logWriter on the project (its logs), and the build waits for
those grants; Cloud Build's default account (the Compute Engine default service account in projects
that first build after 2024) gets nothing from the stack (docs/image.md). The service runs the
build's output, the image by digest. An override is used as given: a digest is
immutable; a tag is warned about at preview (a re-pushed tag deploys nothing: Cloud Run's revision
keeps the image it resolved).

The service runs as its own service account with no roles (it reads nothing), stays private, and
only the Vertex tuning agent `service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com`
gets `roles/run.invoker` on it. Deletion protection is off from creation: Cloud Run v2 defaults it on,
and because the flag is read from state, `pulumi destroy` would otherwise fail.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pulumi_gcp as gcp

from providers.scorer_image import ScorerImage
from tunifolk import cloudbuild, cloudrun_limits, image, invoker
from tunifolk.agents import tuning_agent
from tunifolk.job.field_names import Stack
from tunifolk.stack import ScorerConfig
from tunifolk.vertex_hosts import ENDPOINT_ENV

INVOKER_ROLE = invoker.INVOKER_ROLE


def account_id(stack: str) -> str:
    """The scorer's service-account id, one per stack (6–30 chars of [a-z0-9-], starting a letter)."""
    slug = re.sub(r"[^a-z0-9-]+", "-", stack.lower()).strip("-") or "stack"
    return f"tunifolk-scorer-{slug}"[:30].rstrip("-")


def build_account_id(stack: str) -> str:
    """The scorer image build's service-account id, one per stack (6–30 chars of [a-z0-9-])."""
    slug = re.sub(r"[^a-z0-9-]+", "-", stack.lower()).strip("-") or "stack"
    return f"tunifolk-build-{slug}"[:30].rstrip("-")


def repository_id(stack: str) -> str:
    """The stack's Artifact Registry repository id (a-z first, then [a-z0-9-], at most 63)."""
    slug = re.sub(r"[^a-z0-9-]+", "-", stack.lower()).strip("-") or "stack"
    return f"tunifolk-{slug}"[:63].rstrip("-")


def mutable_tag_warning(ref: str) -> str | None:
    """One line when `tunifolk:scorer.image` names an image by tag, which can move under the stack."""
    if "@sha256:" in ref:
        return None
    return (
        f"tunifolk:scorer.image {ref} is a tag: a re-pushed tag deploys nothing, and what runs is "
        "whatever it named when Cloud Run resolved it; give the image by digest (…@sha256:…), or unset "
        "it to have the stack build this checkout's scorer"
    )


def base_images(cfg: Any) -> dict[str, str] | None:
    """`tunifolk:scorer.baseImages` as the build takes it (`{serve}`, by digest), or None: then Cloud
    Build pulls the Dockerfile's base by tag, which can move, and the program warns once."""
    pinned = getattr(cfg, "base_images", None)
    if pinned:
        return {Stack.SERVE: pinned[Stack.SERVE]}
    if os.environ.get(ENDPOINT_ENV):  # the local stack: the stand-in builds on Debian bases it makes
        return None
    pulumi.warn(
        "tunifolk:scorer.baseImages is not set: Cloud Build builds the scorer on the Dockerfile's "
        "python:3.11-slim by tag, which can move; pin it by digest (docs/image.md): pulumi config set "
        "--path tunifolk:scorer.baseImages.serve python:3.11-slim@$(crane digest python:3.11-slim)"
    )
    return None


def processes(cpu: str) -> int:
    """Scorer processes for a Cloud Run `cpu` limit ("1", "2", "4", or millicores like "500m")."""
    vcpus = cloudrun_limits.parse_cpu(cpu)
    if vcpus is None:
        raise pulumi.RunError(
            f"tunifolk:scorer.cpu {cpu!r} is not a CPU limit: use 1, 2, 4 or millicores like 500m"
        )
    return max(1, int(vcpus))


@dataclass
class RewardScorerArgs:
    project: str
    region: str
    project_number: pulumi.Input[str]
    config: ScorerConfig
    account_id: str = "tunifolk-scorer"
    bucket: pulumi.Input[str] | None = None  # the stack's bucket: the build's source archive goes there
    storage: pulumi.Resource | None = None  # what the build waits for besides the APIs (the dataset)
    source_dir: Path | None = None  # the checkout whose scorer/ is built (the program's directory)
    repository_id: str = "tunifolk"
    build_account_id: str | None = None  # the image build's account; None: build_account_id(stack)
    labels: dict[str, str] = field(default_factory=dict)
    job_account: str | None = None  # `tunifolk:serviceAccount`'s IAM member: it may call too (agents.py)


class RewardScorer(pulumi.ComponentResource):
    """Cloud Run service + dedicated service account + the tuning agent's invoker grant."""

    service_account: gcp.serviceaccount.Account
    service: gcp.cloudrunv2.Service
    repository: gcp.artifactregistry.Repository | None  # None with an image override
    build: ScorerImage | None
    build_account: gcp.serviceaccount.Account | None  # what the build runs as; None with an override
    build_grants: list[pulumi.Resource]  # its three grants, which the build waits for
    image: pulumi.Output[str]
    invoker: gcp.cloudrunv2.ServiceIamMember
    invokers: list[gcp.cloudrunv2.ServiceIamMember]  # the agent's, and the job's account's if set
    uri: pulumi.Output[str]

    def __init__(self, name: str, args: RewardScorerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("tunifolk:scorer:RewardScorer", name, None, opts)
        # children wait for what the component waits for (the project's APIs and agents: __main__.py)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None)
        cfg = args.config
        self.repository, self.build = None, None
        self.build_account, self.build_grants = None, []
        if cfg.image:
            if warning := mutable_tag_warning(cfg.image):
                pulumi.warn(warning)
            self.image = pulumi.Output.from_input(cfg.image)
        else:
            self._build_image(name, args, child)
        self.service_account = gcp.serviceaccount.Account(
            f"{name}-sa",
            project=args.project,
            account_id=args.account_id,
            display_name="tunifolk reward scorer (no roles)",
            opts=child,
        )
        self.service = gcp.cloudrunv2.Service(
            name,
            project=args.project,
            location=args.region,
            deletion_protection=False,
            ingress="INGRESS_TRAFFIC_ALL",
            labels=args.labels,
            template={
                "service_account": self.service_account.email,
                "max_instance_request_concurrency": cfg.concurrency,
                "timeout": f"{cfg.timeout_seconds}s",
                "scaling": {"min_instance_count": cfg.min_instances, "max_instance_count": cfg.max_instances},
                "containers": [
                    {
                        "image": self.image,
                        "ports": {"container_port": 8080},
                        "resources": {"limits": {"cpu": cfg.cpu, "memory": cfg.memory}, "cpu_idle": True},
                        # one scorer process per vCPU: scoring is CPU-bound (docs/scorer.md, "Speed")
                        "envs": [{"name": "WEB_CONCURRENCY", "value": str(processes(cfg.cpu))}],
                        "startup_probe": {"http_get": {"path": "/healthz"}},
                    }
                ],
            },
            # the image input already orders it after the build; said plainly for the reader
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[self.build]))
            if self.build
            else child,
        )
        self.invoker = gcp.cloudrunv2.ServiceIamMember(
            f"{name}-vertex-invoker",
            project=args.project,
            location=args.region,
            name=self.service.name,
            role=INVOKER_ROLE,
            member=tuning_agent(args.project_number),
            opts=child,
        )
        self.invokers = [self.invoker]
        if args.job_account:
            self.invokers.append(
                gcp.cloudrunv2.ServiceIamMember(
                    f"{name}-job-invoker",
                    project=args.project,
                    location=args.region,
                    name=self.service.name,
                    role=INVOKER_ROLE,
                    member=args.job_account,
                    opts=child,
                )
            )
        self.uri = self.service.uri
        self.register_outputs(
            {
                "uri": self.uri,
                "service": self.service.name,
                "invoker": self.invoker.member,
                "image": self.image,
            }
        )

    def _build_image(self, name: str, args: RewardScorerArgs, child: pulumi.ResourceOptions) -> None:
        """The repository and the build of this checkout's scorer (both wait on the enabled APIs)."""
        if args.bucket is None or args.source_dir is None:
            raise pulumi.RunError("RewardScorer builds its image from a bucket and a checkout: pass both")
        self.repository = gcp.artifactregistry.Repository(
            f"{name}-images",
            project=args.project,
            location=args.region,
            repository_id=args.repository_id,
            format="DOCKER",
            description="tunifolk: the reward scorer's images, built by the stack",
            labels=args.labels,
            opts=child,
        )
        path = self.repository.repository_id.apply(
            lambda repo: cloudbuild.registry(args.region, args.project, repo)
        )
        account = self._build_identity(name, args, self.repository, child)
        self.build = ScorerImage(
            f"{name}-image",
            {
                "context_digest": image.context_digest(args.source_dir),
                "repository": path,
                "bucket": args.bucket,
                "project": args.project,
                "location": args.region,
                "service_account": account.email,
                **({"base_images": bases} if (bases := base_images(args.config)) else {}),
            },
            # After the bucket's component is done, grants included: a build takes minutes, and an
            # up that fails on a grant while the build's step is being set up ends in the SDK's
            # traceback ("context canceled") instead of the grant's one line. And after the build
            # account's own grants: without them Cloud Build cannot read the archive or push.
            opts=pulumi.ResourceOptions.merge(
                child,
                pulumi.ResourceOptions(
                    depends_on=[*([args.storage] if args.storage else []), *self.build_grants]
                ),
            ),
            poll_seconds=_poll_seconds(),
        )
        self.image = self.build.image

    def _build_identity(
        self,
        name: str,
        args: RewardScorerArgs,
        repository: gcp.artifactregistry.Repository,
        child: pulumi.ResourceOptions,
    ) -> gcp.serviceaccount.Account:
        """The build's own service account and its three grants, each on the one resource it needs
        (https://cloud.google.com/build/docs/securing-builds/configure-user-specified-service-accounts).
        Whoever runs `pulumi up` needs iam.serviceAccounts.actAs on this account to start a build
        as it (roles/iam.serviceAccountUser; docs/image.md)."""
        account = self.build_account = gcp.serviceaccount.Account(
            f"{name}-build-sa",
            project=args.project,
            account_id=args.build_account_id or build_account_id(pulumi.get_stack()),
            display_name="tunifolk scorer image build (reads its source, pushes its image, logs)",
            opts=child,
        )
        member = account.email.apply(lambda email: f"serviceAccount:{email}")
        self.build_grants = [
            gcp.storage.BucketIAMMember(
                f"{name}-build-source",
                bucket=args.bucket,
                role=cloudbuild.SOURCE_ROLE,
                member=member,
                opts=child,
            ),
            gcp.artifactregistry.RepositoryIamMember(
                f"{name}-build-push",
                project=args.project,
                location=args.region,
                repository=repository.repository_id,
                role=cloudbuild.PUSH_ROLE,
                member=member,
                opts=child,
            ),
            gcp.projects.IAMMember(
                f"{name}-build-logs",
                project=args.project,
                role=cloudbuild.LOG_ROLE,
                member=member,
                opts=child,
            ),
        ]
        return account


def _poll_seconds() -> float:
    """How often the build is polled: Cloud Build's builds take minutes (5 s), the local stand-in's
    seconds (TUNIFOLK_VERTEX_ENDPOINT set: 0.5 s)."""
    return 0.5 if os.environ.get(ENDPOINT_ENV) else 5.0
