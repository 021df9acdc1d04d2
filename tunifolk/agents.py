"""Google's service agents that the stack grants access to, and how to tell whether the tuning agent
exists yet.

The tuning agent `service-N@gcp-sa-vertex-tune.iam.gserviceaccount.com` calls Cloud Run rewards and
reads the dataset (the reward-functions page: it "must be granted permission (for example, by
granting roles/run.invoker in IAM) to invoke your Cloud Run service",
https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/reward-functions).
A grant to it before Google created it is Google's 400 "Service account … does not exist." ("If a
service agent hasn't been created yet, then you can't grant roles to the service agent",
https://docs.cloud.google.com/iam/docs/create-service-agents). Google documents no way to create this
agent on request: `generateServiceIdentity` for aiplatform answers one agent, `gcp-sa-aiplatform`
(terraform-provider-google issue 10469), and public notes say the tuning agent appears with the
project's first tuning job (UNCONFIRMED; docs/doctor.md, "The tuning agent"). So the stack never
attempts the grant while the agent is absent: it stops on `missing_tuning_agent`'s one line.

How it tells: Google grants an agent it creates by use its role on the project, so the agent shows
in the project's allow policy ("You might see evidence of these service agents in several different
places, including a project's allow policy", https://docs.cloud.google.com/iam/docs/service-agents).
An agent whose role someone removed reads as absent: UNCONFIRMED how often, and the fix then is to
grant it back (`roles/aiplatform.tuningServiceAgent`, project_state.AGENT_ROLES).

Pure except `tuning_agent`, which builds a Pulumi output (pulumi is imported there, so the CLI can use
the rest without it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tunifolk.project_state import AGENT_ROLES, TUNE_AGENT_DOMAIN, tune_agent_email

if TYPE_CHECKING:
    import pulumi

__all__ = [
    "TUNING_AGENT_DOC",
    "TUNING_AGENT_ROLE",
    "agent_in_policy",
    "bootstrap_command",
    "job_account",
    "missing_tuning_agent",
    "tune_agent_email",
    "tuning_agent",
]

TUNING_AGENT_DOC = 'docs/doctor.md, "Create the tuning agent"'
"""Where the exact command that creates the tuning agent (one throwaway tuning job) is written."""
BOOTSTRAP_REGION = "us-central1"
BOOTSTRAP_DATASET = "gs://tunifolk-bootstrap-does-not-exist/none.jsonl"
"""A dataset URI that does not exist: the throwaway job is accepted, then fails before any training."""


def job_account(service_account: str | None) -> str | None:
    """The IAM member of the account a job sets as `serviceAccount` (an email), or None.

    Whose identity reads the dataset and calls the Cloud Run reward when a job sets one: Google's
    docs name the Secure Fine-Tuning Service Agent for both (the reward docs: grant it run.invoker),
    and the field is "the service account that the tuningJob workload runs as" (discovery document).
    Which of the two does each is UNCONFIRMED, so the stack grants both (components/scorer.py,
    components/dataset.py); the reward validation call has no such field and runs as the agent."""
    if not service_account:
        return None
    return f"serviceAccount:{str(service_account).removeprefix('serviceAccount:')}"


def tuning_agent(project_number: pulumi.Input[str]) -> pulumi.Output[str]:
    """The IAM member of Vertex's secure fine-tuning service agent: it calls Cloud Run rewards and
    reads the tuning dataset. It may not exist before the project's first tuning job: `EnabledApis`
    (or, without it, `project_number`) stops the program before any grant to it (components/apis.py)."""
    import pulumi

    return pulumi.Output.concat(
        "serviceAccount:service-", project_number, f"@{TUNE_AGENT_DOMAIN}.iam.gserviceaccount.com"
    )


def agent_in_policy(policy: Mapping[str, Any], email: str) -> bool:
    """Whether `email` is a member of any binding of an IAM policy (`{bindings: [{role, members}]}`,
    Google's `Policy` message), a deleted member (`deleted:serviceAccount:…`) not counting."""
    member = f"serviceAccount:{email}"
    return any(member in (binding.get("members") or []) for binding in policy.get("bindings") or [])


def bootstrap_command(project: str) -> str:
    """The exact command that creates the tuning agent as Google's docs leave it: one RLFT tuning job
    whose dataset does not exist (accepted, then failed; the agent stays). The token reaches curl on
    stdin (`-H @-`), never on its command line."""
    body = (
        '{"baseModel": "gemini-3.5-flash", "reinforcementTuningSpec": {'
        f'"trainingDatasetUri": "{BOOTSTRAP_DATASET}", '
        '"singleRewardConfig": {"rewardName": "bootstrap", "stringMatchRewardScorer": {'
        '"stringMatchExpression": {"matchOperation": "EXACT_MATCH", "expression": "x"}, '
        '"correctAnswerReward": 1, "wrongAnswerReward": -1}}}}'
    )
    url = (
        f"https://{BOOTSTRAP_REGION}-aiplatform.googleapis.com/v1beta1/projects/{project}/locations/"
        f"{BOOTSTRAP_REGION}/tuningJobs"
    )
    return (
        "gcloud auth print-access-token | sed 's/^/Authorization: Bearer /' | "
        f"curl -s -X POST -H @- -H 'Content-Type: application/json' '{url}' -d '{body}'"
    )


def missing_tuning_agent(project: str, number: str) -> str:
    """One line: the tuning agent does not exist, what Google's grant would answer, and the one fix."""
    email = tune_agent_email(number)
    return (
        f"Service account {email} does not exist. (what Google answers a grant to Vertex's tuning agent "
        f"before it exists) in project {project}: Google creates it with the project's first tuning "
        "job, and gcp.projects.ServiceIdentity (generateServiceIdentity) makes only gcp-sa-aiplatform; "
        f"create it with one throwaway tuning job ({TUNING_AGENT_DOC}; `tunifolk doctor --json` prints "
        "the command), then run pulumi up again"
    )


TUNING_AGENT_ROLE = AGENT_ROLES[TUNE_AGENT_DOMAIN]
