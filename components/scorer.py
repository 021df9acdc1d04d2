"""RewardScorer: the private Cloud Run reward service and the one grant that lets Vertex call it.

The service runs as its own service account with no roles (it reads nothing), stays private, and
only the Vertex tuning agent `service-{PROJECT_NUMBER}@gcp-sa-vertex-tune.iam.gserviceaccount.com`
gets `roles/run.invoker` on it. Deletion protection is off from creation: Cloud Run v2 defaults it on,
and because the flag is read from state, `pulumi destroy` would otherwise fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from tunifolk import cloudrun_limits, invoker
from tunifolk.agents import tuning_agent
from tunifolk.stack import ScorerConfig

INVOKER_ROLE = invoker.INVOKER_ROLE


def account_id(stack: str) -> str:
    """The scorer's service-account id, one per stack (6–30 chars of [a-z0-9-], starting a letter)."""
    slug = re.sub(r"[^a-z0-9-]+", "-", stack.lower()).strip("-") or "stack"
    return f"tunifolk-scorer-{slug}"[:30].rstrip("-")


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
    labels: dict[str, str] = field(default_factory=dict)
    job_account: str | None = None  # `tunifolk:serviceAccount`'s IAM member: it may call too (agents.py)


class RewardScorer(pulumi.ComponentResource):
    """Cloud Run service + dedicated service account + the tuning agent's invoker grant."""

    service_account: gcp.serviceaccount.Account
    service: gcp.cloudrunv2.Service
    invoker: gcp.cloudrunv2.ServiceIamMember
    invokers: list[gcp.cloudrunv2.ServiceIamMember]  # the agent's, and the job's account's if set
    uri: pulumi.Output[str]

    def __init__(self, name: str, args: RewardScorerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("tunifolk:scorer:RewardScorer", name, None, opts)
        # children wait for what the component waits for (the project's APIs and agents: __main__.py)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None)
        cfg = args.config
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
                        "image": cfg.image,
                        "ports": {"container_port": 8080},
                        "resources": {"limits": {"cpu": cfg.cpu, "memory": cfg.memory}, "cpu_idle": True},
                        # one scorer process per vCPU: scoring is CPU-bound (docs/scorer.md, "Speed")
                        "envs": [{"name": "WEB_CONCURRENCY", "value": str(processes(cfg.cpu))}],
                        "startup_probe": {"http_get": {"path": "/healthz"}},
                    }
                ],
            },
            opts=child,
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
        self.register_outputs({"uri": self.uri, "service": self.service.name, "invoker": self.invoker.member})
