"""EnabledApis: turn on the Google APIs the stack needs, for projects that have never used them."""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp

SERVICES = (
    "aiplatform.googleapis.com",
    "run.googleapis.com",
    "storage.googleapis.com",
    "iam.googleapis.com",
    "artifactregistry.googleapis.com",  # where the scorer image lives
    "cloudresourcemanager.googleapis.com",  # the project number for the tuning agent's grant
)


class EnabledApis(pulumi.ComponentResource):
    """One `gcp.projects.Service` per API; left enabled on destroy (other things may use them)."""

    services: list[gcp.projects.Service]

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
        self.register_outputs({"services": [s.service for s in self.services]})
