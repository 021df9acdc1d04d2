"""EnabledApis: prepare a project that has never run the stack: turn on the Google APIs it needs, ask
Google for Vertex's primary agent, and stop the program before anything else is made unless Vertex's
tuning agent exists.

In a fresh project aiplatform, run, iam, artifactregistry, cloudbuild and cloudresourcemanager are off
(Google's "Services enabled by default" list has none of them): a call to one is refused with 403
SERVICE_DISABLED until it is enabled, and `getProject` (Resource Manager's `projects.get`) is such a
call. The tuning agent `service-N@gcp-sa-vertex-tune.iam.gserviceaccount.com` may not exist either, and
a grant to an account that does not exist is Google's 400. `gcp.projects.ServiceIdentity` for aiplatform
creates `gcp-sa-aiplatform` only (Google documents no request that creates the tuning agent; it comes
with the project's first tuning job: tunifolk/agents.py, docs/doctor.md). So everything else waits for
a check that reads the project's allow policy (`getIamPolicy`): without the agent, `pulumi up` stops on
one line naming the fix (`agents.missing_tuning_agent`), and no grant to it is ever attempted, nor
anything else made but the enables. Without `tunifolk:enableApis` the same check runs at once, before
any resource.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pulumi
import pulumi_gcp as gcp

from tunifolk.agents import agent_in_policy, missing_tuning_agent
from tunifolk.project_state import STACK_APIS, tune_agent_email

SERVICES = STACK_APIS
"""The APIs the stack enables: `tunifolk.project_state.STACK_APIS` (doctor reads the same list)."""
AGENT_SERVICE = "aiplatform.googleapis.com"
"""The service whose primary agent the stack asks Google to create (generateServiceIdentity)."""


class EnabledApis(pulumi.ComponentResource):
    """One `gcp.projects.Service` per API, left enabled on destroy (other things may use them:
    `disableOnDestroy: false`, pulumi-gcp's schema), one `gcp.projects.ServiceIdentity` for aiplatform
    once its API is on (a no-op on destroy, as pulumi-gcp documents it), and `agent_check`: the
    identity, once the project's policy shows the tuning agent, else the program's one-line stop.
    `ready` lists them: what every other resource and `getProject` wait for (the other components pass
    their `depends_on` on to their children, which a component's own would not hold back)."""

    services: list[gcp.projects.Service]
    agents: gcp.projects.ServiceIdentity
    agent_check: pulumi.Output[pulumi.Resource]
    ready: list[pulumi.Input[pulumi.Resource]]

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
        self.agent_check = tuning_agent_check(project, [*self.services, self.agents], self.agents)
        self.ready = [*self.services, self.agents, self.agent_check]
        self.register_outputs({"services": [s.service for s in self.services], "agent": self.agents.email})


def tuning_agent_check(
    project: str, after: Sequence[pulumi.Resource], passed: pulumi.Resource
) -> pulumi.Output[pulumi.Resource]:
    """`passed` once the project's allow policy shows the tuning agent (read after `after`), for
    `depends_on`; else the output fails with `missing_tuning_agent`'s line, and so does every resource
    that waits for it, before its registration. Unknown at a preview whose `after` is still to be made."""
    opts = pulumi.InvokeOutputOptions(depends_on=list(after))
    number = gcp.organizations.get_project_output(project_id=project, opts=opts).number
    policy = gcp.projects.get_iam_policy_output(project=project, opts=opts).policy_data
    return pulumi.Output.all(number, policy).apply(
        lambda v: _stop_unless_agent(project, v[0], v[1]) or passed
    )


def _stop_unless_agent(project: str, number: str, policy_data: str | None) -> None:
    """Raise the one-line stop when the project's allow policy was read and lacks the tuning agent. Only
    on that evidence: an answer without a policy (`policyData` absent) tells nothing, and the grant
    itself would then name what is wrong."""
    if policy_data is not None and not agent_in_policy(json.loads(policy_data), tune_agent_email(number)):
        raise pulumi.RunError(missing_tuning_agent(project, number))


def project_number(project: str, apis: EnabledApis | None) -> pulumi.Output[str]:
    """The project's number (`getProject`), after the APIs are on and the tuning agent is known to exist.
    Without `tunifolk:enableApis` both are read at once, so a project where Resource Manager is off, or
    where the tuning agent does not exist yet, stops the program on one line naming the fix before any
    resource is registered, rather than a traceback or a half-made stack."""
    if apis is not None:
        opts = pulumi.InvokeOutputOptions(depends_on=apis.ready)
        return gcp.organizations.get_project_output(project_id=project, opts=opts).number
    try:
        number = gcp.organizations.get_project(project_id=project).number
        policy = gcp.projects.get_iam_policy(project=project).policy_data
    except Exception as exc:  # the provider's refusal, whatever its class: decide on its words
        if "SERVICE_DISABLED" not in str(exc) and "has not been used in project" not in str(exc):
            raise
        raise pulumi.RunError(disabled_fix(project, SERVICES)) from None
    _stop_unless_agent(project, number, policy)
    return pulumi.Output.from_input(number)


def disabled_fix(project: str, services: Sequence[str]) -> str:
    """One line: the project's APIs are off, and the two ways to turn them on."""
    return (
        f"project {project} has the APIs this stack needs turned off (Google answers 403 SERVICE_DISABLED, "
        "as in a project that has never used them): run pulumi config set tunifolk:enableApis true, or "
        f"gcloud services enable {' '.join(services)} --project {project}"
    )
