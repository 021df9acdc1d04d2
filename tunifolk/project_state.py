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
  Google creates an API's agents "after you activate and use the API" (`AGENTS`: the emulator's first
  successful `tuningJobs.create` creates aiplatform's, the tuning agent among them), or on request
  (`services.generateServiceIdentity`, pulumi-gcp's `gcp.projects.ServiceIdentity`), which creates the
  primary agent only (`REQUESTED_AGENTS`): the hostile reading of what Google documents
  (docs/doctor.md, "The tuning agent").

Layout under the stand-in's directory (project settings, not resources: `pulumi destroy` leaves them,
as Google leaves an API enabled and an agent in place):
`apis/<project id>/<service>` (its content: the epoch second the enable applies; empty = applied),
`agents/<project number>/<email>` (its content: `used` when the API's use created it, `requested`
when `generateServiceIdentity` did; only the first kind holds its role on the project, `AGENT_ROLES`).
Both processes find the directory through `TUNIFOLK_STANDIN_DIR` (or
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
    "orgpolicy.googleapis.com": "Organization Policy API",
    "serviceusage.googleapis.com": "Service Usage API",
    "logging.googleapis.com": "Cloud Logging API",
    "bigquery.googleapis.com": "BigQuery API",
}
"""The titles Google's SERVICE_DISABLED message starts with (its `serviceTitle` metadata)."""

STACK_APIS = (
    "aiplatform.googleapis.com",
    "run.googleapis.com",
    "storage.googleapis.com",
    "iam.googleapis.com",
    "artifactregistry.googleapis.com",  # where the scorer image lives
    "cloudbuild.googleapis.com",  # where the scorer image is built (providers/scorer_image.py)
    "cloudresourcemanager.googleapis.com",  # the project number for the tuning agent's grant
    # on by default only in projects the console or gcloud made, not one made through the API or
    # Terraform (Service Usage's "Services enabled by default"): enabled too, harmless when on
    "logging.googleapis.com",  # the rollout ledger's sink (components/ledger.py)
    "bigquery.googleapis.com",  # the rollout ledger's dataset
)
"""The APIs the stack enables (components/apis.py, `tunifolk:enableApis`) and `tunifolk doctor` checks:
one list, here below both, since the CLI may not import the program's components."""

STACK_DEFAULT_APIS = ("serviceusage.googleapis.com",)  # every enable, and doctor's own reads
"""APIs the stack uses but does not enable, because Google turns them on in every new project
(`DEFAULT_ON`): an organisation or a person may still have turned one off, which doctor reports."""

TUNE_AGENT_DOMAIN = "gcp-sa-vertex-tune"
"""Vertex's Secure Fine-Tuning Service Agent: it calls Cloud Run rewards and reads the dataset."""

AGENTS = {
    "aiplatform.googleapis.com": ("gcp-sa-aiplatform", TUNE_AGENT_DOMAIN),
}
"""The agents an API's first use creates, its primary agent first. For aiplatform the local model
says the project's first tuning job creates the tuning agent (the emulator's first successful
`tuningJobs.create`). Google's IAM page says agents appear "at some point after you activate and use
the API" (https://docs.cloud.google.com/iam/docs/service-agents); that a tuning job's create is that
moment for `gcp-sa-vertex-tune` is UNCONFIRMED (public notes: "do not exist until … a tuning job [has]
been started once in the project")."""

REQUESTED_AGENTS = {service: domains[:1] for service, domains in AGENTS.items()}
"""The agents `services.generateServiceIdentity` creates: the primary one only. Its REST reference
returns one `ServiceIdentity {email, uniqueId}`
(https://cloud.google.com/service-usage/docs/reference/rest/v1beta1/services/generateServiceIdentity),
and for aiplatform that is `gcp-sa-aiplatform`: terraform-provider-google issue 10469 reports that
`google_project_service_identity` returns only one of Vertex's agents, with no way to ask for another.
That it never creates `gcp-sa-vertex-tune` is the hostile reading, UNCONFIRMED either way."""

AGENT_ROLES = {
    "gcp-sa-aiplatform": "roles/aiplatform.serviceAgent",
    TUNE_AGENT_DOMAIN: "roles/aiplatform.tuningServiceAgent",
}
"""The role Google grants an agent on the project when it creates the agent itself ("When the service
agent is created, Google Cloud grants this role automatically", the service-agents page); an agent
created on request gets none (https://docs.cloud.google.com/iam/docs/create-service-agents). The tuning
agent's role name is from Google's vertex-ai-samples tuning skill ("the Tuning Service Agent (… or
gcp-sa-vertex-tune) has roles/aiplatform.tuningServiceAgent"), UNCONFIRMED on the service-agents page."""

USED = "used"
REQUESTED = "requested"
"""The content of an agent's file: how it came to exist (`create_agents`)."""


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

    def propagation_seconds(self) -> float:
        """Seconds an API still refuses calls after its enable applied (the hostile reading; 0 else)."""
        try:
            return float(json.loads((self.root / FRESH_FILE).read_text()).get("propagationSeconds", 0.0))
        except (OSError, ValueError, TypeError, AttributeError):
            return 0.0

    def make_fresh(self, enable_seconds: float, propagation_seconds: float = 0.0) -> None:
        """A project never used: no API enabled beyond Google's defaults, no service agent. With
        `propagation_seconds`, an enabled API goes on refusing calls that long after the enable applied
        (Google's SERVICE_DISABLED text asks to "wait a few minutes for the action to propagate")."""
        self.root.mkdir(parents=True, exist_ok=True)
        for folder in ("apis", "agents"):
            for path in sorted((self.root / folder).glob("*/*")):
                path.unlink()
        settings = {"enableSeconds": enable_seconds, "propagationSeconds": propagation_seconds}
        (self.root / FRESH_FILE).write_text(json.dumps(settings) + "\n")

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

    def enabled(self, project: str, service: str, lag: float = 0.0) -> bool:
        """Whether `service` in `project` (ID or number) is enabled, `lag` seconds past its enable."""
        if not self.fresh or service in DEFAULT_ON:
            return True
        for pid in self._project_ids(project):
            try:
                ready = self._api_file(pid, service).read_text().strip()
            except OSError:
                continue
            if not ready or float(ready) + lag <= time.time():
                return True
        return False

    def serving(self, project: str, service: str) -> bool:
        """Whether calls to `service` are served: enabled, and past the hostile propagation lag (the
        emulator's Vertex calls; the gcp stand-in's resources wait for the enable only, as pulumi-gcp's
        provider does)."""
        return self.enabled(project, service, self.propagation_seconds())

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

    def create_agents(self, number: str, service: str, *, requested: bool = False) -> list[str]:
        """Create `service`'s agents in project `number` (idempotent); return their emails, primary
        first. By use (the default: the emulator's first tuning job) every agent of `AGENTS`, each then
        holding its role (`AGENT_ROLES`); on request (`generateServiceIdentity`) the primary one only,
        with no role. An agent created by use stays so."""
        domains = (REQUESTED_AGENTS if requested else AGENTS).get(service) or agent_domains(service)[:1]
        emails = [agent_email(number, d) for d in domains]
        folder = self.root / "agents" / number
        folder.mkdir(parents=True, exist_ok=True)
        for email in emails:
            path = folder / email
            if not requested or not path.exists():
                path.write_text(f"{REQUESTED if requested else USED}\n")
        return emails

    def agent_roles(self, number: str) -> dict[str, list[str]]:
        """The project-level roles Google granted the agents it created by use in project `number`:
        role → members (`serviceAccount:EMAIL`). Outside a fresh project every agent of `AGENTS` was."""
        roles: dict[str, list[str]] = {}
        for domains in AGENTS.values():
            for domain in domains:
                email = agent_email(number, domain)
                if domain in AGENT_ROLES and self._created_by_use(number, email):
                    roles.setdefault(AGENT_ROLES[domain], []).append(f"serviceAccount:{email}")
        return roles

    def _created_by_use(self, number: str, email: str) -> bool:
        if not self.fresh:
            return True
        try:
            return (self.root / "agents" / number / email).read_text().strip() != REQUESTED
        except OSError:
            return False

    # ------------------------------------------------------------------ organisation policies

    def set_org_policy(self, project: str, constraint: str, spec: dict[str, Any] | None) -> None:
        """Hold the effective organisation policy `spec` (Google's `PolicySpec`: `{rules: [...]}`) of
        `constraint` on `project`; None forgets it. Not modelled otherwise: a local project belongs to
        no organisation, so nothing is enforced unless a test or a person sets it here."""
        path = self.root / "orgpolicy" / project / f"{constraint}.json"
        if spec is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(spec) + "\n")

    def org_policy(self, project: str, constraint: str) -> dict[str, Any] | None:
        """The `PolicySpec` held for `constraint` on `project` (ID or number), or None."""
        for pid in self._project_ids(project) if project.isdigit() else [project]:
            try:
                return json.loads((self.root / "orgpolicy" / pid / f"{constraint}.json").read_text())
            except (OSError, ValueError):
                continue
        return None

    @staticmethod
    def is_agent(email: str) -> bool:
        """A Google-managed project-level service agent's address (not a user-managed account)."""
        local, _, domain = email.partition("@")
        return local.startswith("service-") and domain.startswith("gcp-sa-")
