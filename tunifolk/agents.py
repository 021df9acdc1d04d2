"""Google's service agents that the stack grants access to."""

from __future__ import annotations

import pulumi


def tuning_agent(project_number: pulumi.Input[str]) -> pulumi.Output[str]:
    """The IAM member of Vertex's secure fine-tuning service agent: it calls Cloud Run rewards and
    reads the tuning dataset. It may not exist before the project's first tuning job: `EnabledApis`
    asks Google to create it first (README, "Bootstrap")."""
    return pulumi.Output.concat(
        "serviceAccount:service-", project_number, "@gcp-sa-vertex-tune.iam.gserviceaccount.com"
    )
