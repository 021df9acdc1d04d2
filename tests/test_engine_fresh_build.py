"""The first `pulumi up` straight after `local start --fresh-project` (and the tuning agent's throwaway
job), with the default config, on the real engine: every other API the stack uses is off (Cloud Build's
too: its stand-in refuses in Google's words, tunifolk/standin/cloudbuild.py) and each enable takes a
while to apply, so the up goes through only if everything waits for the enables, the scorer image's
build among them.

tests/test_engine_fresh_project.py enables the APIs by hand before its default up; this one does not.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine import STEP_SECONDS, LocalStack, require_engine
from tunifolk.project_state import ProjectState

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # a cold image build takes minutes

PROJECT = "tunifolk-local"
BUILD = "pulumi-python:dynamic/tunifolk:ScorerImage"
API = "gcp:projects/service:Service"
ENABLE_SECONDS = "3"
"""Longer than the local stand-in's default: a build started before Cloud Build's enable applied would
be refused (403 SERVICE_DISABLED) and fail the up."""


def test_the_first_up_in_a_fresh_project_builds_after_cloud_build_is_enabled(tmp_path: Path) -> None:
    require_engine()
    stack = LocalStack(tmp_path)
    flags = (
        "--port",
        "0",
        "--step-seconds",
        STEP_SECONDS,
        "--fresh-project",
        "--api-enable-seconds",
        ENABLE_SECONDS,
    )
    started = stack.tunifolk("local", "start", *flags)
    assert "fresh project" in started.stdout, started.output
    stack.environment()
    try:
        stack.init()
        # the tuning agent first (else up stops on its one line, tests/test_engine_fresh_project.py): its
        # throwaway job needs aiplatform, enabled by hand; every other API stays off
        project = ProjectState(stack.standin)
        time.sleep(max(0.0, project.enable(PROJECT, "aiplatform.googleapis.com") - time.time()) + 0.1)
        stack.create_tuning_agent(PROJECT)
        assert not project.enabled(PROJECT, "cloudbuild.googleapis.com")
        began = time.monotonic()
        result = stack.up(check=False, timeout=1500)
        print(f"pulumi up straight from --fresh-project: {time.monotonic() - began:.1f} s wall")
        assert result.code == 0, result.output
        assert "Traceback" not in result.output
        assert stack.output("state") == "JOB_STATE_SUCCEEDED"

        resources = stack.resources()
        (build,) = [r for r in resources if r["type"] == BUILD]
        (cloudbuild,) = [
            r
            for r in resources
            if r["type"] == API and r["outputs"]["service"] == "cloudbuild.googleapis.com"
        ]
        assert cloudbuild["urn"] in build.get("dependencies", []), build.get("dependencies")
        assert cloudbuild["created"] <= build["created"], (cloudbuild["created"], build["created"])
        assert ProjectState(stack.standin).enabled(PROJECT, "cloudbuild.googleapis.com")

        stack.destroy()
        assert stack.resources() == [] and stack.standin_records() == []
    finally:
        stack.stop()
