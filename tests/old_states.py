"""The states earlier releases left behind, which today's code must still refresh, diff clean and
destroy (tests/test_state_compat.py through the SDK's provider host, tests/test_engine_state.py under
the real engine).

Each `tests/fixtures/state-<commit>.json` is `pulumi stack export --show-secrets` of the one-job program
`tests/fixtures/job_stack` after a real `pulumi up` at that commit (tests/fixtures/capture_state.py):

- 7a72f39: the release before the job model was rebuilt;
- 37f17bf: the last commit before the re-layout, where `providers/` was an installed package holding
  the job model (`providers.job`) beside the provider. Its job has the `labels` input (empty).

Both pickle the provider by reference, as `providers.tuning_job.RlftTuningJobProvider`: that is why
the path stays importable, and refresh and destroy run today's class under the old instance's state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
COMMITS = ("7a72f39", "37f17bf")
"""The commits whose states are kept, oldest first: the tests run once per commit, with it as the id."""
JOB_TYPE = "pulumi-python:dynamic/tunifolk:RlftTuningJob"
SECRET_SIG = "4dabf18193072939515e22adb298388d"
"""The key Pulumi marks a secret with in state (`pulumi stack export`)."""


def state_file(commit: str) -> Path:
    return FIXTURES / f"state-{commit}.json"


def job_of(deployment: dict[str, Any]) -> dict[str, Any]:
    """The tuning job's resource in a deployment (there is exactly one)."""
    (resource,) = [r for r in deployment["resources"] if r["type"] == JOB_TYPE]
    return resource


def old_job(commit: str) -> dict[str, Any]:
    """The job's entry in that commit's state, secrets (the pickled provider is one) as their values."""
    deployment = json.loads(state_file(commit).read_text(encoding="utf-8"))["deployment"]
    return unsecret(job_of(deployment))


def unsecret(value: Any) -> Any:
    """`pulumi stack export --show-secrets` writes a secret as {sig, plaintext: <JSON text>}."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) and "plaintext" in value:
            return json.loads(value["plaintext"])
        return {k: unsecret(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unsecret(v) for v in value]
    return value
