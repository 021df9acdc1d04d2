"""Expected failures, tried as a new user meets them: one line naming the fix, exit 1 or 2.

Each case runs the real CLI as a process (`python -m tunifolk`), so what is asserted is exactly
what a user sees on stderr. None of them may print a traceback unless `--debug` asks for one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tunifolk.vertex import ENDPOINT_ENV

ROOT = Path(__file__).resolve().parent.parent
DEPLOYED = [
    *("--scorer-uri", "https://scorer.example.run.app"),
    *("--train-uri", "gs://b/rlft/train.jsonl"),
    *("--validation-uri", "gs://b/rlft/validation.jsonl"),
]


def tunifolk(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != ENDPOINT_ENV}
    return subprocess.run(
        [sys.executable, "-m", "tunifolk", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **(env or {})},
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    return lines[0]


@pytest.fixture
def no_credentials(tmp_path: Path) -> dict[str, str]:
    """No ADC anywhere: an empty HOME, no key file, no metadata server probe, and any HTTPS request
    sent to a closed local port, so a mistake could never reach Google."""
    return {
        "HOME": str(tmp_path),
        "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"),
        "GOOGLE_APPLICATION_CREDENTIALS": "",
        "NO_GCE_CHECK": "True",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
    }


def test_no_credentials_names_the_login_command(no_credentials: dict[str, str]) -> None:
    done = tunifolk("list", "--project", "p", "--location", "us-central1", env=no_credentials)
    assert done.returncode == 2
    assert "gcloud auth application-default login" in one_line(done)


def test_debug_shows_the_traceback(no_credentials: dict[str, str]) -> None:
    done = tunifolk("list", "--project", "p", "--location", "us-central1", "--debug", env=no_credentials)
    assert done.returncode == 2
    assert "Traceback" in done.stderr and "CredentialsError" in done.stderr


def test_a_name_that_is_not_a_resource_is_a_usage_error() -> None:
    done = tunifolk("sample", "--endpoint", "foo", "--form", "malzuma")
    assert done.returncode == 2
    line = one_line(done)
    assert "--endpoint" in line and "projects/P/locations/L" in line


def test_plain_http_off_loopback_is_refused() -> None:
    done = tunifolk("list", "--project", "p", env={ENDPOINT_ENV: "http://vertex.example.com:8090"})
    assert done.returncode == 2
    line = one_line(done)
    assert ENDPOINT_ENV in line and "http://127.0.0.1" in line  # the fix: the local emulator, never https


def test_an_unreachable_vertex_is_one_line_and_exit_1() -> None:
    done = tunifolk("list", "--project", "p", env={ENDPOINT_ENV: "http://127.0.0.1:9"})
    assert done.returncode == 1
    line = one_line(done)
    assert "cannot reach http://127.0.0.1:9" in line and "tunifolk local start" in line


@pytest.fixture
def stack_with(request: pytest.FixtureRequest) -> Iterator[str]:
    """A throwaway `Pulumi.<name>.yaml` next to the real ones: the dev stack with one change."""
    key, value = request.param
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    config["config"][key] = value
    name = f"errors-{uuid.uuid4().hex[:8]}"
    path = ROOT / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    try:
        yield name
    finally:
        path.unlink()


@pytest.mark.parametrize(
    ("stack_with", "named"),
    [
        (("tunifolk:labels", "team"), "tunifolk:labels must be a map"),
        (("tunifolk:hyperParameters", {"batchSize": "many"}), "tunifolk:hyperParameters.batchSize"),
        (("tunifolk:colour", "blue"), "tunifolk:colour is not a tunifolk setting"),
        (("tunifolk:enableApis", "maybe"), "tunifolk:enableApis must be true or false"),
    ],
    indirect=["stack_with"],
)
def test_a_bad_config_value_names_the_key(stack_with: str, named: str) -> None:
    done = tunifolk("validate", "--stack", stack_with, *DEPLOYED)
    assert done.returncode == 2
    line = one_line(done)
    assert named in line and f"Pulumi.{stack_with}.yaml" in line


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["watch", "--job", "1", "--interval", "-1"], "--interval"),
        (["watch", "--job", "1", "--timeout", "soon"], "--timeout"),
        (["estimate", "--epochs", "0"], "--epochs"),
        (["sample", "--endpoint", "projects/p/locations/us/endpoints/1", "--form", "x", "--n", "0"], "--n"),
    ],
)
def test_a_bad_flag_value_is_one_line_naming_the_flag(argv: list[str], flag: str) -> None:
    done = tunifolk(*argv)
    assert done.returncode == 2
    line = one_line(done)
    assert flag in line and "--help" in line


def test_a_bare_job_id_needs_no_stack_when_flags_say_where() -> None:
    done = tunifolk("status", "--job", "abc", "--project", "p", "--location", "us-central1")
    assert done.returncode == 2
    assert "--job 'abc'" in one_line(done)


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--project", "p/locations/us-central1/tuningJobs/1:cancel#"),
        ("--project", "../../v1/projects/q"),
        ("--dataset", "d/../../queries?x="),
    ],
)
def test_a_ledger_project_or_dataset_that_is_no_name_is_refused_before_any_call(
    flag: str, value: str
) -> None:
    """With a full job name, `--project` still goes into the ledger's URL: it is held to the name
    grammar, so no crafted value reaches another path (and no token goes with it)."""
    job = "projects/123/locations/us-central1/tuningJobs/456"
    done = tunifolk("rollouts", "--job", job, flag, value, env={ENDPOINT_ENV: "http://127.0.0.1:9"})
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"tunifolk: {flag}") and "Traceback" not in done.stderr
