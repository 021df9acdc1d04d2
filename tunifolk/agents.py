"""Google's service agents that the stack grants access to."""

from __future__ import annotations

import pulumi


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
    asks Google to create it first (README, "Bootstrap")."""
    return pulumi.Output.concat(
        "serviceAccount:service-", project_number, "@gcp-sa-vertex-tune.iam.gserviceaccount.com"
    )
