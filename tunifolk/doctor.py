"""`tunifolk doctor`'s rules: what stands between a project and a first `pulumi up`, as pure functions
over facts the command gathers with read-only calls (tunifolk/cli/commands/doctor.py).

Each rule takes `Facts` and returns `Finding`s: a BLOCKER (`pulumi up` would fail or stop, or the job
could not run), a WARNING (it may, or a fact could not be read), or OK. Every blocker and warning is
one line that names its fix. What each check reads, and what of it Google leaves UNCONFIRMED, is
docs/doctor.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tunifolk import cloudbuild
from tunifolk.agents import TUNING_AGENT_DOC, TUNING_AGENT_ROLE, agent_in_policy, bootstrap_command
from tunifolk.emulator.limits import CONCURRENT_TUNING_JOBS
from tunifolk.errors import PROBLEM
from tunifolk.invoker import INVOKER_ROLE
from tunifolk.project_state import STACK_APIS, STACK_DEFAULT_APIS, tune_agent_email

BLOCKER = "blocker"
WARNING = "warning"
OK = "ok"

AIPLATFORM = "aiplatform.googleapis.com"
RESOURCE_MANAGER = "cloudresourcemanager.googleapis.com"
ORG_POLICY_API = "orgpolicy.googleapis.com"
MEMBER_DOMAINS = "iam.allowedPolicyMemberDomains"
"""Domain restricted sharing: only members of the listed customers may be granted roles. Enforced by
default in organisations created on or after 3 May 2024 (Google's "Secure by default organization
resources" page); whether it refuses a grant to a Google-managed service agent is UNCONFIRMED."""
AUTOMATIC_GRANTS = "iam.automaticIamGrantsForDefaultServiceAccounts"
"""Enforced: default service accounts (Compute Engine's, which new projects' Cloud Build uses by
default) get no role when created. The stack builds and serves as its own accounts, so this only
matters to builds outside it."""
CONSTRAINTS = (MEMBER_DOMAINS, AUTOMATIC_GRANTS)


@dataclasses.dataclass(frozen=True)
class Finding:
    """One check's verdict: its name, its level and one line naming the fix (or what holds), and an
    exact command when the fix is one (printed by `--json`; the line names where it is written)."""

    check: str
    level: str
    message: str
    command: str | None = None
    unread: bool = False  # a warning that the check could not read its facts (not "all is well")

    def line(self) -> str:
        return f"{self.check}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        out = {"check": self.check, "level": self.level, "message": self.message}
        out |= {"command": self.command} if self.command else {}
        return out | ({"unread": True} if self.unread else {})


@dataclasses.dataclass
class Facts:
    """What the command read, each fact None when unread, with why in `unread` (by check name)."""

    project: str
    region: str
    enable_apis: bool = True
    builds_image: bool = True  # no `tunifolk:scorer.image`: the stack builds it with Cloud Build
    number: str | None = None
    apis: dict[str, bool] = dataclasses.field(default_factory=dict)  # service → enabled
    policy: Mapping[str, Any] | None = None  # the project's allow policy
    scorer_uri: str | None = None  # the stack's `scorer_uri` output, when deployed
    scorer_service: str | None = None  # its Cloud Run service's full name, when found
    scorer_policy: Mapping[str, Any] | None = None
    org_policies: dict[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)  # constraint → spec
    judge_problems: list[str] | None = None
    base_model: str | None = None
    base_answers: bool | None = None
    live_jobs: int | None = None
    unread: dict[str, str] = dataclasses.field(default_factory=dict)


def _unread(check: str, message: str) -> Finding:
    """A warning that `check` could not read what it needs: not a blocker, and not "all is well"."""
    return Finding(check, WARNING, message, unread=True)


def _enable(project: str, services: Sequence[str]) -> str:
    return f"gcloud services enable {' '.join(services)} --project {project}"


# --------------------------------------------------------------------------- (a) APIs


def check_apis(f: Facts) -> list[Finding]:
    """Each API the stack needs, on or off. aiplatform off is a blocker even when the stack would enable
    it: the tuning agent's throwaway job needs it before the first `pulumi up`. The stack's other APIs
    off are blockers only with `tunifolk:enableApis: false`; the ones it relies on Google leaving on
    (STACK_DEFAULT_APIS) always are."""
    if not f.apis:
        why = f.unread.get("apis", "Service Usage did not answer")
        return [
            _unread(
                "apis",
                f"could not read which APIs are on ({why}); check with "
                f"`gcloud services list --enabled --project {f.project}`",
            )
        ]
    out = []
    for service in (*STACK_APIS, *STACK_DEFAULT_APIS):
        on = f.apis.get(service)
        if on is None:
            out.append(_unread("apis", f"{service}: state unread; {_enable(f.project, [service])}"))
        elif on:
            out.append(Finding("apis", OK, f"{service} is on"))
        elif service == AIPLATFORM or service in STACK_DEFAULT_APIS or not f.enable_apis:
            why = (
                "the tuning agent's first job needs it before pulumi up"
                if service == AIPLATFORM and f.enable_apis
                else "pulumi up does not enable it"
            )
            out.append(
                Finding(
                    "apis",
                    BLOCKER,
                    f"{service} is off in project {f.project} ({why}): {_enable(f.project, [service])}",
                )
            )
        else:
            out.append(
                Finding(
                    "apis",
                    WARNING,
                    f"{service} is off: pulumi up enables it "
                    "(tunifolk:enableApis true), or " + _enable(f.project, [service]),
                )
            )
    return out


# --------------------------------------------------------------------------- (b) the tuning agent


def check_agent(f: Facts) -> list[Finding]:
    """The tuning agent present: a member of the project's allow policy (agents.py says why that
    reading). Unreadable policy with aiplatform off: presumed absent, since only a tuning job creates it."""
    if f.number is None:
        return [
            _unread(
                "agent",
                f"could not tell the tuning agent's address: the project number "
                f"was unread ({f.unread.get('number', 'no answer')})",
            )
        ]
    email = tune_agent_email(f.number)
    fix = (
        f"create it with one throwaway tuning job ({TUNING_AGENT_DOC}; `tunifolk doctor --json` "
        "prints the command), since Google documents no other way and generateServiceIdentity makes "
        "only gcp-sa-aiplatform"
    )
    command = bootstrap_command(f.project)
    if f.policy is not None:
        if agent_in_policy(f.policy, email):
            return [Finding("agent", OK, f"the tuning agent {email} exists (it holds a role on the project)")]
        return [
            Finding(
                "agent",
                BLOCKER,
                f"the tuning agent {email} does not exist yet (no role of it in the "
                f"project's allow policy; if it exists without one, grant it {TUNING_AGENT_ROLE}): "
                f"{fix}",
                command,
            )
        ]
    if f.apis.get(AIPLATFORM) is False:
        return [
            Finding(
                "agent",
                BLOCKER,
                f"the tuning agent {email} is presumed absent (aiplatform is off, so "
                "no tuning job can have created it; the allow policy is unread while "
                f"{RESOURCE_MANAGER} is off): enable aiplatform, then {fix}",
                command,
            )
        ]
    why = f.unread.get("policy", "no answer")
    return [
        _unread(
            "agent",
            f"could not read the project's allow policy ({why}), so not whether "
            f"{email} exists: `gcloud projects get-iam-policy {f.project}` shows it",
        )
    ]


# --------------------------------------------------------------------------- (c) the invoker grant


def check_invoker(f: Facts) -> list[Finding]:
    """`roles/run.invoker` for the tuning agent on the stack's scorer, when the stack has one deployed.
    What getIamPolicy shows is what was set; that a fresh grant is in effect takes minutes more."""
    if not f.scorer_uri:
        return [Finding("invoker", OK, "no deployed scorer to check (no `scorer_uri` output yet)")]
    if f.scorer_service is None or f.scorer_policy is None:
        why = f.unread.get("invoker", f"no Cloud Run service in {f.region} serves {f.scorer_uri}")
        return [
            _unread(
                "invoker",
                f"could not read the scorer's IAM policy ({why}): run pulumi "
                "refresh, or check it with `gcloud run services get-iam-policy`",
            )
        ]
    if f.number is None:
        return [_unread("invoker", "could not tell the tuning agent's address (project number unread)")]
    member = f"serviceAccount:{tune_agent_email(f.number)}"
    granted = any(
        b.get("role") == INVOKER_ROLE and member in (b.get("members") or [])
        for b in f.scorer_policy.get("bindings") or []
    )
    name = f.scorer_service.rsplit("/", 1)[-1]
    if granted:
        return [Finding("invoker", OK, f"the tuning agent may invoke {name} ({INVOKER_ROLE})")]
    return [
        Finding(
            "invoker",
            BLOCKER,
            f"the tuning agent has no {INVOKER_ROLE} on the scorer {name}, so every "
            f"reward call fails: run pulumi up (it grants it), or gcloud run services add-iam-policy-binding "
            f"{name} --region {f.region} --member {member} --role {INVOKER_ROLE}",
        )
    ]


# --------------------------------------------------------------------------- (d) organisation policies


def enforced(spec: Mapping[str, Any]) -> bool:
    """A boolean constraint's PolicySpec enforces it: a rule `{enforce: true}` without a condition."""
    return any(r.get("enforce") is True and not r.get("condition") for r in spec.get("rules") or [])


def restricts_members(spec: Mapping[str, Any]) -> bool:
    """A list constraint's PolicySpec limits its values: `allowedValues` or `denyAll`, and no `allowAll`."""
    rules = spec.get("rules") or []
    if any(r.get("allowAll") for r in rules):
        return False
    return any(r.get("denyAll") or (r.get("values") or {}).get("allowedValues") for r in rules)


def check_org_policies(f: Facts) -> list[Finding]:
    """Domain restricted sharing, which may refuse the grants to the tuning agent (a Google-managed
    account outside the organisation's customer), and automatic grants to default accounts."""
    if "org-policy" in f.unread:
        return [
            _unread(
                "org-policy",
                f"could not read the effective organisation policies "
                f"({f.unread['org-policy']}): enable {ORG_POLICY_API}, or ask your organisation's "
                f"admin for {MEMBER_DOMAINS} on project {f.project}",
            )
        ]
    out = []
    domains = f.org_policies.get(MEMBER_DOMAINS) or {}
    if restricts_members(domains):
        out.append(
            Finding(
                "org-policy",
                WARNING,
                f"{MEMBER_DOMAINS} (domain restricted sharing) is enforced: "
                "the grants to Vertex's tuning agent may be refused (UNCONFIRMED whether service agents "
                "are exempt); if pulumi up fails on them, ask the organisation's admin to allow "
                f"Google's service agents on project {f.project}",
            )
        )
    else:
        out.append(Finding("org-policy", OK, f"{MEMBER_DOMAINS} does not restrict the stack's grants"))
    automatic = f.org_policies.get(AUTOMATIC_GRANTS) or {}
    state = "enforced" if enforced(automatic) else "not enforced"
    out.append(
        Finding(
            "org-policy",
            OK,
            f"{AUTOMATIC_GRANTS} {state}: the stack grants its own build and "
            "scorer accounts, never a default account",
        )
    )
    return out


# --------------------------------------------------------------------------- (e) Cloud Build


def check_cloud_build(f: Facts) -> list[Finding]:
    """Where the scorer image is built: the stack's region, which some projects may not use for Cloud
    Build (tunifolk.cloudbuild.RESTRICTED_REGIONS); it builds as the stack's own account."""
    if not f.builds_image:
        return [Finding("cloud-build", OK, "tunifolk:scorer.image is set: the stack builds nothing")]
    if f.region in cloudbuild.RESTRICTED_REGIONS:
        return [Finding("cloud-build", OK, f"builds run in {f.region}, as the stack's own build account")]
    hint = cloudbuild.region_hint(f.region).strip().strip("()")
    return [
        Finding("cloud-build", WARNING, f"builds run in {f.region}, as the stack's own build account: {hint}")
    ]


# --------------------------------------------------------------------------- (f) models


def check_models(f: Facts) -> list[Finding]:
    """Each judge answering generateContent in the region (a blocker: create refuses otherwise); the base
    model too (a warning only: it need not be servable where it tunes, docs/vertex.md edge 2)."""
    if f.judge_problems is None:
        why = f.unread.get("models", "Vertex did not answer")
        return [
            _unread(
                "models",
                f"could not probe the judges ({why}); `tunifolk validate` does once the APIs are on",
            )
        ]
    out = [Finding("models", BLOCKER, problem) for problem in f.judge_problems]
    if not f.judge_problems:
        out.append(Finding("models", OK, f"every judge answers in {f.region}"))
    if f.base_model and f.base_answers is False:
        out.append(
            Finding(
                "models",
                WARNING,
                f"the base model {f.base_model} does not answer generateContent in "
                f"{f.region} (not needed to tune there; check the tuning page's supported models)",
            )
        )
    return out


# --------------------------------------------------------------------------- (g) quota


def check_quota(f: Facts) -> list[Finding]:
    """Live tuning jobs against Google's default quota of concurrent jobs (tunifolk.emulator.limits,
    UNCONFIRMED for RLFT): a new job beyond it is refused with 429 RESOURCE_QUOTA_EXCEEDED."""
    if f.live_jobs is None:
        why = f.unread.get("quota", "no answer")
        return [_unread("quota", f"could not list live tuning jobs ({why})")]
    if f.live_jobs >= CONCURRENT_TUNING_JOBS:
        return [
            Finding(
                "quota",
                WARNING,
                f"{f.live_jobs} tuning job(s) live in {f.region}, and Google's default "
                f"quota is {CONCURRENT_TUNING_JOBS}: a new one may be refused until one ends "
                f"(`tunifolk list --project {f.project} --location {f.region}`, `tunifolk cancel`), or "
                "request a higher quota",
            )
        ]
    return [Finding("quota", OK, f"no live tuning job in {f.region}")]


RULES: tuple[Callable[[Facts], list[Finding]], ...] = (
    check_apis,
    check_agent,
    check_invoker,
    check_org_policies,
    check_cloud_build,
    check_models,
    check_quota,
)


def diagnose(f: Facts) -> list[Finding]:
    """Every rule's findings, in the order of the checks."""
    return [finding for rule in RULES for finding in rule(f)]


def exit_code(findings: Sequence[Finding]) -> int:
    """1 while any blocker remains, else 0."""
    return PROBLEM if any(x.level == BLOCKER for x in findings) else 0
