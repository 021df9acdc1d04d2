"""tunifolk's one exception hierarchy: every expected failure, with its exit code and its fix.

The CLI, the Pulumi program and the provider raise these for what a user can run into (a missing
credential, a wrong config key, a refused reward, an unreachable service) and nothing else for
them. The CLI prints `tunifolk: <message>` on one line and exits with `exit_code` (1: a problem
found; 2: usage or configuration); a traceback only with `--debug`. Anything else is a bug.
"""

from __future__ import annotations

PROBLEM = 1
"""Exit code: tunifolk looked and found a problem (a refused reward, a failed job, Vertex said no)."""
USAGE = 2
"""Exit code: the command, its flags, the stack config or the environment need fixing first."""


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


class VertexError(TunifolkError):
    """A Vertex call that failed: HTTP status, Google's message, and the method and path called."""

    def __init__(self, status: int, message: str, method: str, path: str, reason: str = "") -> None:
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.reason = reason  # Google's status string, e.g. NOT_FOUND, PERMISSION_DENIED
        self.retry_after: float | None = None
        super().__init__(str(self))

    def __str__(self) -> str:
        reason = f" {self.reason}" if self.reason else ""
        return f"{self.method} {self.path} → {self.status}{reason}: {self.message}"

    @property
    def not_found(self) -> bool:
        return self.status == 404 or self.reason == "NOT_FOUND"

    @property
    def permission_denied(self) -> bool:
        return self.status == 403 or self.reason == "PERMISSION_DENIED"


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
