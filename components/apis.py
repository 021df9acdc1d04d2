"""EnabledApis: prepare a project that has never run the stack: turn on the Google APIs it needs and
have Google create Vertex's service agents, and make everything else wait for both.

In a fresh project aiplatform, run, iam, artifactregistry, cloudbuild and cloudresourcemanager are off
(Google's "Services enabled by default" list has none of them): a call to one is refused with 403
SERVICE_DISABLED until it is enabled, and `getProject` (Resource Manager's `projects.get`) is such a
call. The tuning agent `service-N@gcp-sa-vertex-tune.iam.gserviceaccount.com` may not exist either,
and a grant to an account that does not exist is Google's 400: `gcp.projects.ServiceIdentity` for
aiplatform asks Google to create the service's agents first (that it creates the tuning agent among
them is UNCONFIRMED; docs/local-stack.md, "A fresh project").
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_gcp as gcp

SERVICES = (
    "aiplatform.googleapis.com",
    "run.googleapis.com",
    "storage.googleapis.com",
    "iam.googleapis.com",
    "artifactregistry.googleapis.com",  # where the scorer image lives
    "cloudbuild.googleapis.com",  # where the scorer image is built (providers/scorer_image.py)
    "cloudresourcemanager.googleapis.com",  # the project number for the tuning agent's grant
)
AGENT_SERVICE = "aiplatform.googleapis.com"
"""The service whose agents (the tuning agent among them) the stack asks Google to create."""


class EnabledApis(pulumi.ComponentResource):
    """One `gcp.projects.Service` per API, left enabled on destroy (other things may use them:
    `disableOnDestroy: false`, pulumi-gcp's schema), and one `gcp.projects.ServiceIdentity` for
    aiplatform once its API is on (a no-op on destroy, as pulumi-gcp documents it). `ready` lists
    them: what every other resource and `getProject` wait for (the other components pass their
    `depends_on` on to their children, which a component's own would not hold back)."""

    services: list[gcp.projects.Service]
    agents: gcp.projects.ServiceIdentity
    ready: list[pulumi.Resource]

    def __init__(self, name: str, project: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("tunifolk:project:EnabledApis", name, None, opts)
        self.services = [
            gcp.projects.Service(
                f"{name}-{api.split('.')[0]}",
                project=project,
                service=api,
                disable_on_destroy=False,
                opts=pulumi.ResourceOptions(parent=self),
            )
            for api in SERVICES
        ]
        self.agents = gcp.projects.ServiceIdentity(
            f"{name}-vertex-agents",
            project=project,
            service=AGENT_SERVICE,
            opts=pulumi.ResourceOptions(parent=self, depends_on=self.services),
        )
        self.ready = [*self.services, self.agents]
        self.register_outputs({"services": [s.service for s in self.services], "agent": self.agents.email})


def project_number(project: str, apis: EnabledApis | None) -> pulumi.Output[str]:
    """The project's number (`getProject`), after the APIs are on. Without `tunifolk:enableApis` it is
    read at once, so a project where Resource Manager is off stops the program on one line naming the
    fix rather than a traceback."""
    if apis is not None:
        opts = pulumi.InvokeOutputOptions(depends_on=apis.ready)
        return gcp.organizations.get_project_output(project_id=project, opts=opts).number
    try:
        return pulumi.Output.from_input(gcp.organizations.get_project(project_id=project).number)
    except Exception as exc:  # the provider's refusal, whatever its class: decide on its words
        if "SERVICE_DISABLED" not in str(exc) and "has not been used in project" not in str(exc):
            raise
        raise pulumi.RunError(disabled_fix(project, SERVICES)) from None


def disabled_fix(project: str, services: Sequence[str]) -> str:
    """One line: the project's APIs are off, and the two ways to turn them on."""
    return (
        f"project {project} has the APIs this stack needs turned off (Google answers 403 SERVICE_DISABLED, "
        "as in a project that has never used them): run pulumi config set tunifolk:enableApis true, or "
        f"gcloud services enable {' '.join(services)} --project {project}"
    )
