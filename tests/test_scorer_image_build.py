"""The scorer image's build resource (providers/scorer_image.py) against the Cloud Build stand-in.

The provider runs in the SDK's own dynamic-provider host (tests/pulumi_host.py), pickled as the
engine pickles it; the stand-in's routes are the emulator's (tunifolk/standin/cloudbuild.py), reached
over HTTP. Each test that builds starts its own emulator, so the builds it lists are its own. The
request bodies are checked against the cloudbuild v1 discovery document.

The builds need podman (``make image-tools``, as root): without it those tests skip with one line,
and fail under ``CI=true``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import grpc
import pytest
import requests
from pulumi.runtime.proto import provider_pb2

from components.apis import SERVICES
from discovery import validate_in
from jobs import fast_emulator
from providers.scorer_image import ScorerImageProvider
from pulumi_host import dynamic_host
from tunifolk import cloudbuild, image
from tunifolk.job.names import local_project_number
from tunifolk.local_gcs import bucket_folder
from tunifolk.paths import ROOT
from tunifolk.project_state import ProjectState, disabled_message
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
PROJECT, LOCATION = "tunifolk-local", "us-central1"
REPOSITORY = cloudbuild.registry(LOCATION, PROJECT, "tunifolk")
BUCKET = "tunifolk-image-test"
ACCOUNT = f"tunifolk-build-test@{PROJECT}.iam.gserviceaccount.com"
"""The build's own account (the stack's `tunifolk-build-<stack>`); these emulators run without
`--project-dir`, so no IAM record is checked (tests/test_cloudbuild_identity.py checks them)."""
FAST = {"poll_seconds": 0.2}
IMAGE_RE = re.compile(rf"{re.escape(REPOSITORY)}/scorer@sha256:[0-9a-f]{{64}}")


def needs_podman() -> None:
    """Skip in one line where podman cannot build here; fail under CI=true, where a skip would hide it."""
    if why := image.unavailable():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the scorer image cannot be built here: {why}")
        pytest.skip(f"scorer image build tests skipped: {why}")


def props(bucket: str = BUCKET) -> dict[str, str]:
    return {
        "context_digest": image.context_digest(),
        "repository": REPOSITORY,
        "bucket": bucket,
        "project": PROJECT,
        "location": LOCATION,
        "service_account": ACCOUNT,
    }


def builds_of(emu: str, digest: str) -> list[dict]:
    url = f"{emu}/v1/projects/{PROJECT}/locations/{LOCATION}/builds"
    resp = requests.get(url, params={"filter": f'tags="{cloudbuild.build_tag(digest)}"'}, timeout=10)
    resp.raise_for_status()
    return resp.json().get("builds", [])


def world(tmp_path: Path) -> Path:
    gcs = tmp_path / "gcs"
    bucket_folder(gcs, BUCKET).mkdir(parents=True)  # the bucket, as the gcp stand-in's Bucket makes it
    return gcs


# --------------------------------------------------------------------------- pure


def test_the_build_body_is_a_cloudbuild_v1_build() -> None:
    body = cloudbuild.build_body(BUCKET, REPOSITORY, "ab" * 32)
    validate_in("cloudbuild.v1", "Build", body)
    step = body["steps"][0]
    assert step["name"] == cloudbuild.BUILDER and step["args"][:3] == ["build", "-f", "scorer/Dockerfile"]
    assert body["images"] == [step["args"][4]] and body["images"][0].startswith(f"{REPOSITORY}/scorer:")
    assert body["tags"] == [f"tunifolk-ctx-{'ab' * 32}"]


def test_the_archive_is_exactly_the_context_and_the_same_bytes_twice() -> None:
    import tarfile
    from io import BytesIO

    data = cloudbuild.archive()
    assert data == cloudbuild.archive()
    with tarfile.open(fileobj=BytesIO(data), mode="r:gz") as tar:
        names = tar.getnames()
    assert names == [p.as_posix() for p in image.context_files()]
    assert "scorer/Dockerfile" in names and "scorer/requirements.lock" in names
    assert not [n for n in names if n.endswith((".so", ".pyc")) or not n.startswith("scorer/")]


def test_a_readme_edit_leaves_the_context_digest_a_source_edit_changes_it(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "scorer", tmp_path / "scorer", ignore=shutil.ignore_patterns("__pycache__"))
    for argv in (["init", "-q"], ["add", "scorer"]):  # the build context is what git tracks in scorer/
        subprocess.run(["git", "-C", str(tmp_path), *argv], check=True, capture_output=True)
    (tmp_path / "README.md").write_text("# tunifolk\n")
    before = image.context_digest(tmp_path)
    (tmp_path / "README.md").write_text("# tunifolk, edited\n")
    assert image.context_digest(tmp_path) == before
    (tmp_path / "scorer" / "app.py").write_text((tmp_path / "scorer" / "app.py").read_text() + "\n# x\n")
    assert image.context_digest(tmp_path) != before


# --------------------------------------------------------------------------- against the stand-in


def test_create_builds_by_digest_then_no_change_then_adopts(tmp_path: Path) -> None:
    needs_podman()
    gcs = world(tmp_path)
    with (
        fast_emulator(gcs) as emu,
        dynamic_host(ScorerImageProvider(**FAST), env={ENDPOINT_ENV: emu}) as host,
    ):
        inputs, failures = host.check(props())
        assert failures == []
        build_id, outs = host.create(inputs)
        assert IMAGE_RE.fullmatch(outs["image"]), outs["image"]
        assert outs["build_id"] == build_id
        assert outs["log_url"].startswith("https://console.cloud.google.com/cloud-build/builds")
        # the image is in podman's storage under that digest: what the Cloud Run stand-in runs
        assert subprocess.run([*image.podman(), "image", "exists", outs["image"]]).returncode == 0
        archive = gcs / BUCKET / cloudbuild.source_object(inputs["context_digest"])
        assert archive.read_bytes() == cloudbuild.archive()
        build = requests.get(f"{emu}/v1/projects/{PROJECT}/locations/{LOCATION}/builds/{build_id}").json()
        validate_in("cloudbuild.v1", "Build", build)
        assert build["status"] == "SUCCESS"

        same = host.diff(build_id, outs, inputs)
        assert same.changes == provider_pb2.DiffResponse.DIFF_NONE
        edited = host.diff(build_id, outs, {**inputs, "context_digest": "0" * 64})
        assert edited.changes == provider_pb2.DiffResponse.DIFF_SOME and list(edited.replaces) == []

        # a second create of the same context (state lost) adopts the build: no second one
        again_id, again = host.create(inputs)
        assert (again_id, again["image"]) == (build_id, outs["image"])
        assert len(builds_of(emu, inputs["context_digest"])) == 1


def test_an_interrupted_up_is_adopted_not_built_twice(tmp_path: Path) -> None:
    """The up that started the build died before recording it: the next one waits for that build."""
    needs_podman()
    gcs = world(tmp_path)
    inputs = props()
    digest = inputs["context_digest"]
    with fast_emulator(gcs) as emu:
        with VertexClient(endpoint=emu) as client:
            calls = cloudbuild.CloudBuild(client)
            calls.upload(BUCKET, cloudbuild.source_object(digest), cloudbuild.archive())
            op = calls.create(PROJECT, LOCATION, cloudbuild.build_body(BUCKET, REPOSITORY, digest))
        started = op["metadata"]["build"]["id"]
        with dynamic_host(ScorerImageProvider(**FAST), env={ENDPOINT_ENV: emu}) as host:
            build_id, outs = host.create(inputs)
        assert build_id == started
        assert IMAGE_RE.fullmatch(outs["image"])
        assert [b["id"] for b in builds_of(emu, digest)] == [started]


def test_failures_are_one_line(tmp_path: Path) -> None:
    """A bucket that does not exist (the upload's 404) and a build that fails (its source missing, or
    podman unavailable) each reach `pulumi up` as one line naming the cause."""
    gcs = world(tmp_path)
    with fast_emulator(gcs) as emu:
        with (
            dynamic_host(ScorerImageProvider(**FAST), env={ENDPOINT_ENV: emu}) as host,
            pytest.raises(grpc.RpcError) as info,
        ):
            host.create(props(bucket="no-such-bucket"))
        details = info.value.details()
        assert "\n" not in details.strip() and "bucket does not exist" in details, details

        with VertexClient(endpoint=emu) as client:
            calls = cloudbuild.CloudBuild(client)
            body = cloudbuild.build_body(BUCKET, REPOSITORY, "cd" * 32)  # no archive uploaded
            build = calls.wait(calls.create(PROJECT, LOCATION, body), 0.1, 60, lambda _line: None)
        message = str(cloudbuild.failure(build))
        assert build["status"] == "FAILURE" and "\n" not in message
        assert "no such object" in message or "cannot run here" in message, message
        assert build["logUrl"] in message


def test_cloud_build_refuses_in_googles_words_until_its_api_is_enabled(tmp_path: Path) -> None:
    """A fresh project (`local start --fresh-project`): Cloud Build is off, so every build call is
    Google's 403 SERVICE_DISABLED, and the build resource fails on one line naming the fix; once the
    enable has applied, the same calls are served. (The stack's build waits on that enable: the graph
    test below, and tests/test_engine_fresh_build.py on the real engine.)"""
    gcs = world(tmp_path)
    project = ProjectState(tmp_path / "project")
    project.make_fresh(enable_seconds=0.5)
    number = local_project_number(PROJECT)
    with fast_emulator(gcs, "--project-dir", str(project.root)) as emu:
        listing = f"{emu}/v1/projects/{PROJECT}/locations/{LOCATION}/builds"
        for url in (listing, f"{emu}/v1/projects/{number}/locations/{LOCATION}/builds/some-build"):
            refused = requests.get(url, timeout=10)
            assert refused.status_code == 403, refused.text
            error = refused.json()["error"]
            assert error["status"] == "PERMISSION_DENIED"
            assert error["message"] == disabled_message("cloudbuild.googleapis.com", number)
            (info,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
            assert info["reason"] == "SERVICE_DISABLED" and info["domain"] == "googleapis.com"
            assert info["metadata"]["service"] == "cloudbuild.googleapis.com"
        body = cloudbuild.build_body(BUCKET, REPOSITORY, "ab" * 32)
        assert requests.post(listing, json=body, timeout=10).status_code == 403
        # Vertex's own operations stay Vertex's: refused for aiplatform, not for Cloud Build
        vertex_op = requests.get(f"{listing.rsplit('/', 1)[0]}/operations/123", timeout=10).json()["error"]
        assert "aiplatform.googleapis.com" in vertex_op["message"], vertex_op

        with (
            dynamic_host(ScorerImageProvider(**FAST), env={ENDPOINT_ENV: emu}) as host,
            pytest.raises(grpc.RpcError) as info_,
        ):
            host.create(props())
        details = info_.value.details().strip()
        assert "\n" not in details and "SERVICE_DISABLED" in details, details
        assert "gcloud services enable cloudbuild.googleapis.com" in details, details
        assert not (gcs / BUCKET / "tunifolk").exists()  # refused before anything was uploaded

        project.enable(PROJECT, "cloudbuild.googleapis.com")
        assert requests.get(listing, timeout=10).status_code == 403  # the enable has not applied yet
        time.sleep(0.6)
        served = requests.get(listing, timeout=10)
        assert served.status_code == 200 and served.json() == {}, served.text


# --------------------------------------------------------------------------- the program


def _graph(config: dict[str, str]) -> tuple[list, dict]:
    from mocked_program import run_program

    mocks, monitor, outputs, _ = run_program(config)
    assert mocks.check_failures == []
    return monitor.requests, outputs


def test_the_stack_builds_the_scorer_and_gives_cloud_run_its_digest() -> None:
    from mocked_program import SCORER_IMAGE, stack_config

    requests_, outputs = _graph(stack_config("dev"))
    (build,) = [r for r in requests_ if r.type == SCORER_IMAGE]
    (service,) = [r for r in requests_ if r.type == "gcp:cloudrunv2/service:Service"]
    assert build.object["context_digest"] == image.context_digest()
    repository = r"us-central1-docker\.pkg\.dev/YOUR_PROJECT_ID/tunifolk-test"  # one per stack
    assert re.fullmatch(rf"{repository}/scorer@sha256:0{{64}}", outputs["scorer_image"])
    assert any(d.endswith("::scorer-image") for d in service.dependencies)  # the service waits on it
    apis = [d for d in build.dependencies if "gcp:projects/service:Service" in d]
    assert len(apis) == len(SERVICES)  # the build waits on every enabled API, cloudbuild's among them
    assert "cloudbuild.googleapis.com" in SERVICES


def test_an_image_override_builds_nothing_and_a_tag_is_warned_in_one_line() -> None:
    import json

    from components.scorer import mutable_tag_warning
    from mocked_program import SCORER_IMAGE, stack_config

    digest = f"europe-docker.pkg.dev/p/r/scorer@sha256:{'1' * 64}"
    config = stack_config("dev")
    config["tunifolk:scorer"] = json.dumps({**json.loads(config["tunifolk:scorer"]), "image": digest})
    requests_, outputs = _graph(config)
    types = {r.type for r in requests_}
    assert SCORER_IMAGE not in types and "gcp:artifactregistry/repository:Repository" not in types
    assert outputs["scorer_image"] == digest
    assert mutable_tag_warning(digest) is None
    warning = mutable_tag_warning("us-central1-docker.pkg.dev/p/r/scorer:latest")
    assert warning and "\n" not in warning and "@sha256" in warning
