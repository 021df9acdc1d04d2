"""Cloud Run's cpu, memory and concurrency limits (issue 19, item 5): one table
(tunifolk/cloudrun_limits.py) refuses a service in the stand-in as Cloud Run refuses it, in Google's
words, at create and update; and refuses the same `tunifolk:scorer` at preview, in one line naming the
setting to change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import yaml
from test_standin import RUN, Provider, serving

from tunifolk import cloudrun_limits, stack
from tunifolk.errors import ConfigError
from tunifolk.standin import cloudrun

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("cpu", "memory", "concurrency", "refused"),
    [
        ("1", "512Mi", 80, None),
        ("0.5", "512Mi", 1, None),
        ("500m", "256Mi", 1, None),
        ("8", "32Gi", 1000, None),
        ("0.5", "512Mi", 80, "Total cpu < 1 is not supported with concurrency > 1."),
        ("1", "8Gi", 80, "For 1.0 CPU, memory must be between 128Mi and 4Gi inclusive."),
        ("4", "1Gi", 80, "For 4.0 CPU, memory must be between 2Gi and 16Gi inclusive."),
        ("0.25", "1Gi", 1, "For 0.25 CPU, memory must be between 128Mi and 512Mi inclusive."),
        ("3", "4Gi", 1, "Invalid value specified for cpu."),
        ("2", "lots", 1, "Invalid value specified for memory."),
    ],
)
def test_the_table(cpu: str, memory: str, concurrency: int, refused: str | None) -> None:
    found = cloudrun_limits.refusals(cpu, memory, concurrency)
    assert (found[0].message if found else None) == refused or (refused and refused in found[0].message)


def test_fractional_cpu_needs_request_billing_and_gen2_needs_512mi() -> None:
    always_on = cloudrun_limits.refusals("0.5", "512Mi", 1, cpu_idle=False)
    assert "cpu always allocated (unthrottled)" in always_on[0].message
    gen2 = cloudrun_limits.refusals("1", "256Mi", 1, gen2=True)[0].message
    assert gen2.startswith("Invalid value specified for memory with gen2 execution environment.")


def _local_config(**scorer: object) -> dict:
    config = yaml.safe_load((ROOT / "Pulumi.local.yaml").read_text(encoding="utf-8"))["config"]
    config["tunifolk:scorer"] = {**config["tunifolk:scorer"], **scorer}
    return config


def test_the_stack_config_is_checked_at_preview_in_one_line() -> None:
    assert stack.parse(_local_config()).scorer.cpu == "1"
    with pytest.raises(ConfigError) as info:
        stack.parse(_local_config(cpu="0.5", concurrency=80))
    message = str(info.value)
    assert "\n" not in message and "Total cpu < 1 is not supported with concurrency > 1." in message
    assert "tunifolk:scorer.concurrency 1" in message
    with pytest.raises(ConfigError, match=r"tunifolk:scorer\.memory from 2Gi to 16Gi"):
        stack.parse(_local_config(cpu="4", memory="1Gi"))


def test_memory_that_the_concurrency_would_exhaust_is_refused_at_preview_naming_both_fixes() -> None:
    """80 bodies of MAX_BODY at once take ~300 MiB (bench/bench_memory.py): the stacks' 512Mi holds
    them with a margin, 256Mi does not."""
    assert stack.parse(_local_config(memory="512Mi", concurrency=80)).scorer.memory == "512Mi"
    with pytest.raises(ConfigError) as info:
        stack.parse(_local_config(memory="256Mi", concurrency=80))
    message = str(info.value)
    assert "\n" not in message and "tunifolk:scorer.memory to 512Mi" in message
    lower = int(message.rsplit(" ", 1)[-1])
    assert stack.parse(_local_config(memory="256Mi", concurrency=lower)).scorer.concurrency == lower
    with pytest.raises(ConfigError):
        stack.parse(_local_config(memory="256Mi", concurrency=lower + 1))


@pytest.fixture
def gcp(tmp_path: Path) -> Iterator[Provider]:
    with serving(tmp_path / "standin", tmp_path / "gcs") as provider:
        yield provider


def _template(cpu: str, memory: str, concurrency: int) -> dict:
    limits = {"cpu": cpu, "memory": memory}
    return {
        "maxInstanceRequestConcurrency": concurrency,
        "containers": [
            {
                "image": "us-central1-docker.pkg.dev/p/r/scorer:latest",
                "resources": {"limits": limits, "cpuIdle": True},
            }
        ],
    }


@pytest.mark.slow
def test_the_stand_in_refuses_as_cloud_run_at_create_and_update(gcp: Provider) -> None:
    bad = {"location": "us-central1", "template": _template("0.5", "512Mi", 80), "deletionProtection": False}
    with pytest.raises(grpc.RpcError, match=r"Error 400: template\.containers\.resources\.limits\.cpu: "):
        gcp.create(RUN, "scorer", bad)
    assert cloudrun.running(gcp.state) == []
    good = {**bad, "template": _template("1", "512Mi", 80)}
    service_id, service = gcp.create(RUN, "scorer", good)
    too_big = {**service, "template": _template("1", "8Gi", 80)}
    with pytest.raises(grpc.RpcError, match=r"For 1\.0 CPU, memory must be between 128Mi and 4Gi inclusive"):
        gcp.update(RUN, service_id, service, too_big)
    assert gcp.read(RUN, service_id).properties["generation"] == "1"  # the refused update changed nothing
