"""The audit's findings, held against the real servers (docs/local-stack.md, "Who may call the emulator").

- The emulator runs no request code unless started with `--allow-code-execution`, and then each
  snippet in a subprocess with an empty environment and a time limit.
- It answers loopback `Host` and `Origin` names only, and JSON bodies only: a web page can neither
  send it a cross-site request that runs (a `text/plain` POST) nor read it through DNS rebinding.
- `python -m scorer --help` prints its usage and starts no server.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from emulator_api import (
    FAST,
    api,
    example,
    google_error,
    job_body,
    ok,
    parent,
    sample_response,
    validate_reward,
)
from servers import ROOT, emulator, free_port

pytestmark = pytest.mark.slow

VALIDATE = "/tuningJobs:validateReinforcementTuningReward"
SECRET_ENV = "TUNIFOLK_TEST_SECRET"


def code_reward(snippet: str, name: str = "code") -> dict[str, Any]:
    return {"rewardName": name, "codeExecutionRewardScorer": {"pythonCodeSnippet": snippet}}


def writes(marker: Path) -> str:
    """A snippet that, if it ever runs, leaves `marker` behind (the audit's reproduction)."""
    return (
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "def evaluate(example, response):\n    return 1.0\n"
    )


def validate_body(reward: dict[str, Any]) -> dict[str, Any]:
    return {"example": example(), "sampleResponse": sample_response(), "singleRewardConfig": reward}


@pytest.fixture(scope="module")
def code_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An emulator that runs code rewards (the opt-in flag, a 1 s limit), with a secret in its env."""
    gcs = tmp_path_factory.mktemp("gcs")
    args = (*FAST, "--gcs-dir", str(gcs), "--allow-code-execution", "--code-timeout", "1")
    with emulator(*args, env={SECRET_ENV: "do-not-leak"}, quiet=True) as url:
        yield url


# --- finding 1: request code ------------------------------------------------------------------------


def test_cross_site_text_plain_code_scorer_runs_nothing(emu: str, tmp_path: Path) -> None:
    """The reproduction: a web page's simple POST (text/plain, a foreign Origin) carrying a snippet
    that writes a file. Refused, and nothing is written."""
    marker = tmp_path / "pwned"
    url = api(emu, parent() + VALIDATE)
    raw = json.dumps(validate_body(code_reward(writes(marker))))
    page = {"Content-Type": "text/plain;charset=UTF-8", "Origin": "http://attacker.example"}
    r = requests.post(url, data=raw, headers=page, timeout=30)
    assert r.status_code == 403 and "Origin" in r.text
    r = requests.post(url, data=raw, headers={"Content-Type": "text/plain"}, timeout=30)  # no Origin
    assert "application/json" in google_error(r, 415)
    assert not marker.exists()


def test_code_rewards_are_refused_without_the_flag(emulator_world: tuple, tmp_path: Path) -> None:
    """A JSON request from the machine itself (validation, or a job's create) names the flag."""
    url, rs, train, val = emulator_world
    marker = tmp_path / "pwned"
    reward = code_reward(writes(marker))
    msg = google_error(validate_reward(url, validate_body(reward)), 400, "FAILED_PRECONDITION")
    assert "--allow-code-execution" in msg and "[code]" in msg
    body = job_body(train, val, rs.url + "/ok")
    body["reinforcementTuningSpec"]["compositeRewardConfig"]["weightedRewardConfigs"][1]["rewardConfig"] = (
        reward
    )
    r = requests.post(api(url, parent() + "/tuningJobs"), json=body, timeout=30)
    assert "--allow-code-execution" in google_error(r, 400, "FAILED_PRECONDITION")
    assert not marker.exists()


def test_code_reward_runs_in_a_subprocess_without_the_emulators_env(code_emulator: str) -> None:
    """With the flag, a snippet runs, out of process: it sees none of the emulator's environment,
    and its prints cannot forge the result. Its reward is clipped like any other."""
    snippet = (
        "import os\n"
        "def evaluate(example, response):\n"
        f"    print('0.25')\n"
        f"    return 5.0 if {SECRET_ENV!r} not in os.environ and not os.environ.get('HOME') else -5.0\n"
    )
    sm = {
        "rewardName": "has_sea",
        "stringMatchRewardScorer": {
            "stringMatchExpression": {
                "matchOperation": "PARTIAL_MATCH",
                "expression": "{{references.theme}}",
            },
            "correctAnswerReward": 1.0,
            "wrongAnswerReward": -1.0,
        },
    }
    body = {
        "example": example(),
        "sampleResponse": sample_response("موج البحر"),
        "compositeRewardConfig": {
            "weightedRewardConfigs": [
                {"weight": 1, "rewardConfig": sm},
                {"weight": 1, "rewardConfig": code_reward(snippet, "lines")},
            ]
        },
    }
    out = ok(validate_reward(code_emulator, body), "ValidateReinforcementTuningRewardResponse")
    assert out["rewardInfoDetails"]["has_sea"]["reward"] == 1.0
    assert out["rewardInfoDetails"]["lines"]["reward"] == 1.0  # 5.0 clipped to [-1, 1]
    assert out["overallReward"] == 1.0


def test_a_snippet_that_never_ends_is_stopped_by_the_time_limit(code_emulator: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    snippet = (
        "import os, pathlib\n"
        "def evaluate(example, response):\n"
        f"    pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
        "    while True:\n        pass\n"
    )
    started = time.monotonic()
    out = ok(validate_reward(code_emulator, validate_body(code_reward(snippet))))
    assert time.monotonic() - started < 10  # --code-timeout 1, on a loaded machine
    assert out["rewardInfoDetails"]["code"]["reward"] == "NaN"
    assert "time limit" in out["errorStatus"]["message"]
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped, not left spinning
    assert requests.get(code_emulator + "/healthz", timeout=5).status_code == 200


def test_a_snippet_that_raises_is_a_nan_naming_the_error(code_emulator: str) -> None:
    snippet = "def evaluate(example, response):\n    raise ValueError('no poem here')\n"
    out = ok(validate_reward(code_emulator, validate_body(code_reward(snippet))))
    assert out["rewardInfoDetails"]["code"]["reward"] == "NaN"
    assert "ValueError: no poem here" in out["errorStatus"]["message"]


# --- finding 1: who may call -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["attacker.example", "attacker.example:{port}", "127.0.0.1.nip.io:{port}", ""]
)
@pytest.mark.parametrize(
    "path", ["/emulator/jobs", "/emulator/requests", "/healthz", "/v1beta1/{parent}/tuningJobs"]
)
def test_a_foreign_host_is_refused(emu: str, host: str, path: str) -> None:
    """DNS rebinding: a page on a name the attacker points at 127.0.0.1 reads nothing."""
    port = emu.rsplit(":", 1)[1]
    url = emu + path.format(parent=parent())
    r = requests.get(url, headers={"Host": host.format(port=port)}, timeout=10)
    assert r.status_code == 403 and "Host" in r.text and len(r.text.strip().splitlines()) == 1
    assert "jobs" not in r.text.lower()


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "127.0.0.1"]
)
def test_loopback_hosts_are_answered(emu: str, host: str) -> None:
    port = emu.rsplit(":", 1)[1]
    r = requests.get(emu + "/emulator/jobs", headers={"Host": host.format(port=port)}, timeout=10)
    assert r.status_code == 200 and "jobs" in r.json()


def test_a_foreign_origin_is_refused_even_without_a_body(emu: str) -> None:
    """A body-less cross-site POST (a job's cancel) passes the content-type rule: Origin stops it."""
    url = api(emu, parent() + "/tuningJobs/123:cancel")
    for origin in ("http://attacker.example", "null", "http://127.0.0.1.attacker.example"):
        r = requests.post(url, headers={"Origin": origin}, timeout=10)
        assert r.status_code == 403, origin
    port = emu.rsplit(":", 1)[1]
    r = requests.post(url, headers={"Origin": f"http://localhost:{port}"}, timeout=10)
    assert "does not exist" in google_error(r, 404)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
)
def test_a_body_that_is_not_json_is_415(emu: str, content_type: str | None) -> None:
    body = json.dumps(validate_body({"rewardName": "x"})).encode()
    req = requests.Request("POST", api(emu, parent() + VALIDATE), data=body).prepare()
    if content_type is None:
        req.headers.pop("Content-Type", None)
    else:
        req.headers["Content-Type"] = content_type
    with requests.Session() as s:
        r = s.send(req, timeout=10)
    assert "application/json" in google_error(r, 415, "INVALID_ARGUMENT")


def test_json_with_parameters_is_accepted(emu: str) -> None:
    body = json.dumps({"example": example(), "sampleResponse": sample_response()})
    r = requests.post(
        api(emu, parent() + VALIDATE),
        data=body.encode(),
        headers={"Content-Type": "Application/JSON; charset=utf-8"},
        timeout=10,
    )
    assert "reward config" in google_error(r, 400, "INVALID_ARGUMENT").replace("_", " ")


# --- finding 2: the scorer's command line -------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_scorer_help_prints_usage_and_starts_no_server(flag: str) -> None:
    port = free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, "-m", "scorer", flag], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m scorer")
    assert "HOST" in done.stdout and "PORT" in done.stdout
    with socket.socket() as probe:  # nothing listens on the port it was given
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_scorer_refuses_an_unknown_argument() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scorer", "--port", "1"], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2 and "unrecognized arguments: --port 1" in done.stderr


def test_make_scorer_binds_loopback() -> None:
    """`make scorer` is a local target: HOST=127.0.0.1 (the image's 0.0.0.0 is for Cloud Run only)."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "scorer"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # under `make test` the outer make's flags reach this one: read the recipe line, whatever surrounds it
    (serve,) = [line for line in done.stdout.splitlines() if "-m scorer" in line]
    assert "HOST=127.0.0.1 " in serve
