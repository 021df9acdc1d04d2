"""tunifolk's one exception hierarchy: every expected failure, with its exit code and its fix.

The CLI, the Pulumi program and the provider raise these for what a user can run into (a missing
credential, a wrong config key, a refused reward, an unreachable service) and nothing else for
them. The CLI prints `tunifolk: <message>` on one line and exits with `exit_code` (1: a problem
found; 2: usage or configuration); a traceback only with `--debug`. Anything else is a bug.
"""

from __future__ import annotations

from dataclasses import dataclass

PROBLEM = 1
"""Exit code: tunifolk looked and found a problem (a refused reward, a failed job, Vertex said no)."""
USAGE = 2
"""Exit code: the command, its flags, the stack config or the environment need fixing first."""
STILL_RUNNING = 3
"""Exit code of `tunifolk watch --timeout`: it gave up while the job is still live, so a script can
tell that from success (0) and from a failed job (1), and watch again."""


class TunifolkError(Exception):
    """An expected failure. The message says what happened and how to fix it, on one line."""

    exit_code = PROBLEM


class UsageError(TunifolkError):
    """A missing or wrong flag: the message names the flag and the fix."""

    exit_code = USAGE


class ConfigError(TunifolkError, ValueError):
    """A stack config key or an environment setting is missing or wrong: named, with the fix."""

    exit_code = USAGE


class CredentialsError(TunifolkError):
    """No Google credentials where a real Google host needs them."""

    exit_code = USAGE

    def __init__(self, detail: str = "") -> None:
        hint = (
            "no Google credentials: run `gcloud auth application-default login` "
            "(or set TUNIFOLK_VERTEX_ENDPOINT to a local emulator)"
        )
        super().__init__(f"{hint}{f' ({detail})' if detail else ''}")


@dataclass(frozen=True)
class ErrorReason:
    """One `google.rpc.ErrorInfo.reason` a Google API answers with, and what tunifolk does about it.

    Google's errors carry, beside the status string, a `details` list whose `google.rpc.ErrorInfo`
    names the cause in a machine-readable `reason` unique within its `domain`, with `metadata` such
    as `service` and `consumer` (https://cloud.google.com/apis/design/errors, "Error details"; the
    reasons of domain googleapis.com are the enum of google/api/error_reason.proto). Code that decides
    something (retry or fail, which fix to name) reads the reason here, never the message text.
    """

    name: str
    http: int  # the HTTP status Google answers it with
    domain: str
    retry: bool  # worth retrying an idempotent call as it is (the cause passes by itself)
    fix: str  # one line naming the fix; {service}, {project} ({consumer} less `projects/`), {quota_metric}


#: The one table of reasons tunifolk and its stand-ins know. Sources: google/api/error_reason.proto
#: (names, domain googleapis.com, HTTP status) and https://cloud.google.com/apis/design/errors.
REASONS: dict[str, ErrorReason] = {
    r.name: r
    for r in (
        # error_reason.proto: "The request is calling a disabled service for a consumer." (403)
        ErrorReason(
            "SERVICE_DISABLED",
            403,
            "googleapis.com",
            False,
            "enable the API: `gcloud services enable {service} --project {project}` "
            "(or set tunifolk:enableApis true), then retry after a few minutes",
        ),
        # error_reason.proto: "The request whose associated billing account is disabled." (403)
        ErrorReason(
            "BILLING_DISABLED",
            403,
            "googleapis.com",
            False,
            "link a billing account to project {project} (`gcloud billing projects link {project}`)",
        ),
        # error_reason.proto: "The request is denied because it violates [API rate limit]" (429):
        # a per-minute limit, which passes by itself.
        ErrorReason(
            "RATE_LIMIT_EXCEEDED",
            429,
            "googleapis.com",
            True,
            "wait a minute and retry, or request a higher quota for {quota_metric} (console: IAM > Quotas)",
        ),
        # error_reason.proto: "The request is denied because it violates [resource quota limit]"
        # (429): an allocation such as concurrent tuning jobs, freed only when a job ends.
        ErrorReason(
            "RESOURCE_QUOTA_EXCEEDED",
            429,
            "googleapis.com",
            False,
            "wait for a running tuning job in project {project} to end (`tunifolk list`) or cancel one "
            "(`tunifolk cancel JOB`), or request a higher quota for {quota_metric}, then retry",
        ),
        # error_reason.proto: "The request is denied because the access token's scopes are not
        # sufficient" (403).
        ErrorReason(
            "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
            403,
            "googleapis.com",
            False,
            "log in again with the cloud-platform scope: `gcloud auth application-default login`",
        ),
        # Cloud IAM's reason for a missing permission (domain iam.googleapis.com; seen in
        # googleapis.com ErrorInfo examples, UNCONFIRMED for Vertex): a new grant takes effect after
        # a delay (https://cloud.google.com/iam/docs/access-change-propagation), so it is retried.
        ErrorReason(
            "IAM_PERMISSION_DENIED",
            403,
            "iam.googleapis.com",
            True,
            "grant the caller the role that holds the permission, then retry after a few minutes",
        ),
    )
}


class VertexError(TunifolkError):
    """A Vertex call that failed: HTTP status, Google's message, and the method and path called.

    `status_name` is Google's status string (NOT_FOUND, RESOURCE_EXHAUSTED); `reason`, `domain` and
    `metadata` are those of the body's `google.rpc.ErrorInfo` when it has one (see `ErrorReason`).
    """

    def __init__(
        self,
        status: int,
        message: str,
        method: str,
        path: str,
        status_name: str = "",
        *,
        reason: str = "",
        domain: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.status_name = status_name
        self.reason = reason
        self.domain = domain
        self.metadata = dict(metadata or {})
        self.retry_after: float | None = None
        super().__init__(str(self))

    def __str__(self) -> str:
        """One line: the call, the status and reason, Google's message and, for a reason in REASONS,
        the fix (so a SERVICE_DISABLED or a used-up quota names what to do wherever it surfaces)."""
        name = f" {self.status_name}" if self.status_name else ""
        why = f" ({self.reason})" if self.reason and self.reason != self.status_name else ""
        fix = f"; {self.fix}" if self.known_reason is not None else ""
        return f"{self.method} {self.path} → {self.status}{name}{why}: {self.message}{fix}"

    @property
    def known_reason(self) -> ErrorReason | None:
        """This error's row of REASONS, when its ErrorInfo names one tunifolk knows."""
        return REASONS.get(self.reason)

    @property
    def fix(self) -> str:
        """The one-line fix for this error's reason ('' when the reason is unknown or absent)."""
        row = self.known_reason
        if row is None:
            return ""
        fields = {"service": "aiplatform.googleapis.com", "quota_metric": "it"}
        fields.update({k: v for k, v in self.metadata.items() if v})
        fields["project"] = fields.get("consumer", "PROJECT").removeprefix("projects/")
        return row.fix.format_map(fields)

    @property
    def not_found(self) -> bool:
        return self.status == 404 or self.status_name == "NOT_FOUND"

    @property
    def permission_denied(self) -> bool:
        """A 403 for want of permission; not a disabled API or billing, which a grant does not fix."""
        if self.reason in ("SERVICE_DISABLED", "BILLING_DISABLED"):
            return False
        return self.status == 403 or self.status_name == "PERMISSION_DENIED"

    @property
    def service_disabled(self) -> bool:
        return self.reason == "SERVICE_DISABLED"

    @property
    def quota_exceeded(self) -> bool:
        """A resource quota (such as concurrent tuning jobs) is used up: retrying now will not help."""
        return self.reason == "RESOURCE_QUOTA_EXCEEDED"


class ResourceNameError(TunifolkError, ValueError):
    """Not a Vertex resource name (`projects/P/locations/L/...`) where one is needed."""

    exit_code = USAGE


class UnreachableError(TunifolkError):
    """Vertex (or the endpoint override) did not answer at all, after the bounded retries."""

    def __init__(self, url: str, detail: str) -> None:
        super().__init__(
            f"cannot reach {url} ({detail}): check your network, or TUNIFOLK_VERTEX_ENDPOINT if you "
            "meant the local emulator (`python -m tunifolk local start`)"
        )


class RewardRefused(TunifolkError):
    """Reward validation found a problem, so no tuning job was created (nothing was billed)."""


class JobFailed(TunifolkError):
    """The job ended FAILED, CANCELLED or EXPIRED while we waited for it."""


class LeftBehind(TunifolkError):
    """Cleanup could not remove everything; the message names each leftover and its gcloud command."""
