"""What a Google Cloud project has been through, as the local stand-ins (the gcp stand-in and the Vertex
emulator) share it on disk: which APIs are enabled, and which of Google's service agents exist.

A project that has been used before (the default of the local stack) has every API on and every
agent in place, so nothing here refuses anything. `python -m tunifolk local start --fresh-project`
writes `FRESH_FILE` into the stand-in's directory; from then on the stand-ins behave as a project
that has never been used:

- **APIs start disabled**, except those Google turns on in every new project (`DEFAULT_ON`). A call to
  a disabled API is refused with Google's 403 `PERMISSION_DENIED`, whose `google.rpc.ErrorInfo` has
  reason `SERVICE_DISABLED`, domain `googleapis.com` and metadata `{service, consumer}`
  (`disabled_message`, `disabled_metadata`; the emulator's `error_body` builds the body). Enabling
  one takes `enable_seconds` to apply (scaled: Google's takes tens of seconds to minutes, UNCONFIRMED
  how long).
- **No service agent exists.** Granting a role to `service-N@gcp-sa-….iam.gserviceaccount.com` before
  Google created it is Google's 400 "Service account … does not exist." (`missing_account_message`).
  Google creates an API's agents "after you activate and use the API", or on request
  (`services.generateServiceIdentity`, pulumi-gcp's `gcp.projects.ServiceIdentity`); see `AGENTS`.

Layout under the stand-in's directory (project settings, not resources: `pulumi destroy` leaves them,
as Google leaves an API enabled and an agent in place):
`apis/<project id>/<service>` (its content: the epoch second the enable applies; empty = applied),
`agents/<project number>/<email>`. Both processes find the directory through `TUNIFOLK_STANDIN_DIR` (or
the emulator's `--project-dir`). Pure file I/O: no Pulumi, no HTTP.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tunifolk.job.names import local_project_number

FRESH_FILE = "fresh-project.json"
DEFAULT_ENABLE_SECONDS = 1.5
"""How long an enable takes to apply in a fresh local project (scaled down from Google's)."""

DEFAULT_ON = frozenset(
    {
        "storage.googleapis.com",
        "storage-api.googleapis.com",
        "storage-component.googleapis.com",
        "serviceusage.googleapis.com",
        "servicemanagement.googleapis.com",
        "logging.googleapis.com",
        "monitoring.googleapis.com",
        "bigquery.googleapis.com",
        "cloudapis.googleapis.com",
    }
)
"""APIs on in every new project: Google's "Services enabled by default" list (Service Usage docs,
"Enabled services", for projects made with the console or gcloud). Not in it, so off in a fresh
project: aiplatform, run, iam, artifactregistry, cloudbuild, cloudresourcemanager."""

TITLES = {
    "aiplatform.googleapis.com": "Vertex AI API",
    "run.googleapis.com": "Cloud Run Admin API",
    "iam.googleapis.com": "Identity and Access Management (IAM) API",
    "artifactregistry.googleapis.com": "Artifact Registry API",
    "cloudbuild.googleapis.com": "Cloud Build API",
    "cloudresourcemanager.googleapis.com": "Cloud Resource Manager API",
    "storage.googleapis.com": "Cloud Storage API",
}
"""The titles Google's SERVICE_DISABLED message starts with (its `serviceTitle` metadata)."""

TUNE_AGENT_DOMAIN = "gcp-sa-vertex-tune"
"""Vertex's Secure Fine-Tuning Service Agent: it calls Cloud Run rewards and reads the dataset."""

AGENTS = {
    "aiplatform.googleapis.com": ("gcp-sa-aiplatform", TUNE_AGENT_DOMAIN),
}
"""The agents the local model gives an API, its primary agent first: `generateServiceIdentity`
returns the primary one (`gcp-sa-aiplatform`, Google's service-agents page). That it also creates the
tuning agent is UNCONFIRMED: Google documents that a service's agents appear once the API is used, and
that asking creates them "before you use the service"; which of aiplatform's several agents a
`generateServiceIdentity` call creates is not documented."""


def agent_email(number: str, domain: str) -> str:
    """`service-NUMBER@DOMAIN.iam.gserviceaccount.com`, the address of a project-level service agent."""
    return f"service-{number}@{domain}.iam.gserviceaccount.com"


def agent_domains(service: str) -> tuple[str, ...]:
    """The agents' domains of `service`, primary first (`gcp-sa-<first label>` when not modelled,
    UNCONFIRMED)."""
    return AGENTS.get(service, (f"gcp-sa-{service.split('.')[0]}",))


def primary_agent(number: str, service: str) -> str:
    """The agent `generateServiceIdentity` returns for `service` in project `number`."""
    return agent_email(number, agent_domains(service)[0])


def tune_agent_email(number: str) -> str:
    return agent_email(number, TUNE_AGENT_DOMAIN)


def activation_url(service: str, number: str) -> str:
    return f"https://console.developers.google.com/apis/api/{service}/overview?project={number}"


def disabled_message(service: str, number: str) -> str:
    """Google's message for a call to a disabled API, word for word (as pulumi-gcp's and Terraform's
    FAQ quote it)."""
    title = TITLES.get(service, service)
    return (
        f"{title} has not been used in project {number} before or it is disabled. Enable it by visiting "
        f"{activation_url(service, number)} then retry. If you enabled this API recently, wait a few minutes "
        "for the action to propagate to our systems and retry."
    )


def disabled_metadata(service: str, number: str) -> dict[str, str]:
    """The ErrorInfo `metadata` of a SERVICE_DISABLED error: `service` and `consumer` (which clients
    decide on), and the title and activation link Google adds."""
    return {
        "service": service,
        "consumer": f"projects/{number}",
        "serviceTitle": TITLES.get(service, service),
        "activationUrl": activation_url(service, number),
        "containerInfo": number,
    }


def disabled_help(service: str, number: str) -> dict[str, Any]:
    """The `google.rpc.Help` detail Google sends after the ErrorInfo: the activation link."""
    return {
        "@type": "type.googleapis.com/google.rpc.Help",
        "links": [
            {
                "description": "Google developers console API activation",
                "url": activation_url(service, number),
            }
        ],
    }


def missing_account_message(email: str) -> str:
    """Google's 400 for an IAM grant to a service account that does not exist (as `gcloud` and the
    Terraform provider report it: `INVALID_ARGUMENT: Service account X does not exist.`)."""
    return f"Service account {email} does not exist."


class ProjectState:
    """The settings the stand-ins share, under the stand-in's directory `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # ------------------------------------------------------------------ fresh or used

    @property
    def fresh(self) -> bool:
        return (self.root / FRESH_FILE).exists()

    def enable_seconds(self) -> float:
        try:
            return float(json.loads((self.root / FRESH_FILE).read_text())["enableSeconds"])
        except (OSError, ValueError, KeyError, TypeError):
            return DEFAULT_ENABLE_SECONDS

    def make_fresh(self, enable_seconds: float) -> None:
        """A project never used: no API enabled beyond Google's defaults, no service agent."""
        self.root.mkdir(parents=True, exist_ok=True)
        for folder in ("apis", "agents"):
            for path in sorted((self.root / folder).glob("*/*")):
                path.unlink()
        (self.root / FRESH_FILE).write_text(json.dumps({"enableSeconds": enable_seconds}) + "\n")

    # ------------------------------------------------------------------ APIs

    def _api_file(self, project: str, service: str) -> Path:
        return self.root / "apis" / project / service

    def _project_ids(self, project: str) -> list[str]:
        """The project IDs recorded for `project` (an ID, or the number of one)."""
        if not project.isdigit():
            return [project]
        folder = self.root / "apis"
        ids = [p.name for p in folder.iterdir()] if folder.exists() else []
        return [i for i in ids if local_project_number(i) == project] or [project]

    def enabled(self, project: str, service: str) -> bool:
        """Whether calls to `service` in `project` (ID or number) are served now."""
        if not self.fresh or service in DEFAULT_ON:
            return True
        for pid in self._project_ids(project):
            try:
                ready = self._api_file(pid, service).read_text().strip()
            except OSError:
                continue
            if not ready or float(ready) <= time.time():
                return True
        return False

    def enable(self, project: str, service: str) -> float:
        """Start enabling `service`; return the epoch second it applies (now, outside a fresh project)."""
        path = self._api_file(project, service)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            text = path.read_text().strip()
            return float(text) if text else time.time()
        ready = time.time() + (self.enable_seconds() if self.fresh else 0.0)
        path.write_text(f"{ready:.3f}\n")
        return ready

    def disable(self, project: str, service: str) -> None:
        self._api_file(project, service).unlink(missing_ok=True)

    def enabled_apis(self, project: str) -> list[str]:
        folder = self.root / "apis" / project
        return sorted(p.name for p in folder.iterdir()) if folder.exists() else []

    # ------------------------------------------------------------------ service agents

    def agent_exists(self, email: str) -> bool:
        """Whether a service agent (`service-N@gcp-sa-X.iam.gserviceaccount.com`) exists; every
        agent does outside a fresh project."""
        number = email.split("@")[0].removeprefix("service-")
        return not self.fresh or (self.root / "agents" / number / email).exists()

    def create_agents(self, number: str, service: str) -> list[str]:
        """Create `service`'s agents in project `number` (idempotent); return their emails, primary
        first."""
        emails = [agent_email(number, d) for d in agent_domains(service)]
        folder = self.root / "agents" / number
        folder.mkdir(parents=True, exist_ok=True)
        for email in emails:
            (folder / email).touch()
        return emails

    @staticmethod
    def is_agent(email: str) -> bool:
        """A Google-managed project-level service agent's address (not a user-managed account)."""
        local, _, domain = email.partition("@")
        return local.startswith("service-") and domain.startswith("gcp-sa-")
