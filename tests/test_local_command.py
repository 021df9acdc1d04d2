"""`python -m tunifolk local env | start | stop`, as a user runs them: real processes, real emulator.

The end-to-end tests use these commands for every stack they run; here are their own promises:
the exports, idempotent start and stop with pid files, and one-line expected failures.
"""

from __future__ import annotations

import shlex
import socket
from pathlib import Path

import pytest
import requests

from engine import ENGINE_BIN, LocalStack, require_engine

pytestmark = pytest.mark.slow  # the local servers and the engine, as `tunifolk local` runs them


def _exports(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        assert line.startswith("export "), line
        name, _, value = line.removeprefix("export ").partition("=")
        words = shlex.split(value)
        out[name] = words[0] if words else ""
    return out


def test_env_prints_the_offline_settings(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path)
    result = stack.tunifolk("local", "env")
    env = _exports(result.stdout)
    assert set(env) == {
        "PATH",
        "PULUMI_BACKEND_URL",
        "PULUMI_CONFIG_PASSPHRASE",
        "PULUMI_SKIP_UPDATE_CHECK",
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION",
        "TUNIFOLK_VERTEX_ENDPOINT",
        "TUNIFOLK_TIME_SCALE",
    }
    first = Path(env["PATH"].split(":")[0])
    assert (first / "pulumi-resource-gcp").exists() and first.name == "bin"
    assert env["PULUMI_BACKEND_URL"] == f"file://{tmp_path / 'local' / 'state'}"
    assert env["PULUMI_SKIP_UPDATE_CHECK"] == env["PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION"] == "true"
    assert env["PULUMI_CONFIG_PASSPHRASE"] == ""
    assert env["TUNIFOLK_VERTEX_ENDPOINT"].startswith("http://127.0.0.1:")


def test_start_and_stop_are_idempotent(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path)
    try:
        first = stack.tunifolk("local", "start", "--port", "0")
        assert "emulator started at http://127.0.0.1:" in first.stdout
        url = (tmp_path / "local" / "emulator.url").read_text().strip()
        assert requests.get(f"{url}/healthz", timeout=5).status_code == 200
        pid = (tmp_path / "local" / "emulator.pid").read_text().strip()
        again = stack.tunifolk("local", "start", "--port", "0")
        assert f"emulator already running at {url}" in again.stdout
        assert (tmp_path / "local" / "emulator.pid").read_text().strip() == pid
        exported = _exports(stack.tunifolk("local", "env").stdout)
        assert exported["TUNIFOLK_VERTEX_ENDPOINT"] == url
        assert exported["TUNIFOLK_TIME_SCALE"] == "0.01"  # the local default, as `local start` recorded it
        other = stack.tunifolk("local", "start", "--port", "0", "--time-scale", "0.5", check=False)
        assert other.code == 1 and "local stop, then local start --time-scale 0.5" in other.stderr
    finally:
        stopped = stack.tunifolk("local", "stop")
    assert "stopped emulator" in stopped.stdout
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{url}/healthz", timeout=5)
    assert stack.tunifolk("local", "stop").stdout.strip() == "nothing was running"


def test_expected_failures_are_one_line(tmp_path: Path) -> None:
    stack = LocalStack(tmp_path, env={"TUNIFOLK_ENGINE_DIR": str(tmp_path / "no-engine")})
    for args in (("local", "env"), ("local", "start", "--port", "0")):
        result = stack.tunifolk(*args, check=False)
        assert result.code == 1, result.output
        assert result.stdout == "" and result.stderr.count("\n") == 1, result.output
        assert result.stderr.strip().endswith("is missing: run make engine"), result.stderr
    require_engine()
    stack = LocalStack(tmp_path)
    bad = stack.tunifolk("local", "start", "--port", "70000", check=False)
    assert bad.code == 2 and bad.stderr.count("\n") == 1 and "--port 70000" in bad.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        taken = stack.tunifolk("local", "start", "--port", str(busy.getsockname()[1]), check=False)
    assert taken.code == 1 and taken.stderr.count("\n") == 1, taken.output
    assert "is in use by another program: run python -m tunifolk local start --port N" in taken.stderr
    assert "Traceback" not in bad.output + taken.output


def test_the_engine_reports_its_version(tmp_path: Path) -> None:
    """`make engine` stamps the CLI with pkg/v3's version from engine/go.mod (`-X …version.Version`);
    without it the CLI reports no version and the state's manifest records none."""
    require_engine()
    if not (ENGINE_BIN / "pulumi").exists():
        pytest.skip("the pulumi on PATH is not one make engine built")
    stack = LocalStack(tmp_path)
    stack.environment()
    version = stack.pulumi_plain("version").stdout.strip()
    go_mod = (Path(__file__).resolve().parent.parent / "engine" / "go.mod").read_text()
    assert version.startswith("v3.") and f"github.com/pulumi/pulumi/pkg/v3 {version}" in go_mod, version
