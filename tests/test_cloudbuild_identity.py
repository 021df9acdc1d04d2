"""The scorer image's build runs as the stack's own account, never as Cloud Build's default one.

Since Cloud Build's 2024 change a new project builds as the Compute Engine default service account
(https://cloud.google.com/build/docs/cloud-build-service-account-updates), to which the stack grants
nothing and which an organisation enforcing iam.automaticIamGrantsForDefaultServiceAccounts leaves
without roles. So the stack makes a build account, grants it exactly what the build does (read the
source archive, push to the repository, write its logs), names it in builds.create with the logging
option Google then requires
(https://cloud.google.com/build/docs/securing-builds/configure-user-specified-service-accounts), and
builds only after the grants. Held here:

* the body the provider sends names the account and Cloud Logging (pure: no server);
* the Cloud Build stand-in plays Google's rules: a build naming an account and no logging choice is
  400 INVALID_ARGUMENT; an account without read on the source bucket or write on the repository (the
  gcp stand-in's IAM records, the emulator's `--project-dir`) makes the build fail in one line (each
  of these starts an emulator: marked slow);
* the program (under Pulumi's mocks) makes the account and its three grants, and the build waits on them.

No podman needed: every build here fails, or is refused, before a step would run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests

from discovery import validate_in
from jobs import fast_emulator
from tunifolk import cloudbuild, image
from tunifolk.local_gcs import bucket_folder
from tunifolk.paths import ROOT
from tunifolk.standin.store import Record, Store

PROJECT, LOCATION = "tunifolk-local", "us-central1"
REPOSITORY = cloudbuild.registry(LOCATION, PROJECT, "tunifolk-test")
BUCKET = "tunifolk-identity-test"
EMAIL = f"tunifolk-build-test@{PROJECT}.iam.gserviceaccount.com"
MEMBER = f"serviceAccount:{EMAIL}"
ACCOUNT = cloudbuild.service_account_name(PROJECT, EMAIL)
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
REPOSITORY_MEMBER = "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"


# --------------------------------------------------------------------------- the body


def test_the_body_names_the_build_account_and_cloud_logging() -> None:
    body = cloudbuild.build_body(BUCKET, REPOSITORY, "ab" * 32, ACCOUNT)
    validate_in("cloudbuild.v1", "Build", body)
    assert body["serviceAccount"] == f"projects/{PROJECT}/serviceAccounts/{EMAIL}"
    assert body["options"] == {"logging": "CLOUD_LOGGING_ONLY"}
    assert "logsBucket" not in body  # Cloud Logging: no bucket of ours to keep logs in


def test_a_refused_create_names_act_as_and_the_regions_in_one_line() -> None:
    from providers.scorer_image import _refused
    from tunifolk.errors import VertexError

    denied = VertexError(
        403, "The caller does not have permission", "POST", "/v1/…/builds", "PERMISSION_DENIED"
    )
    line = str(_refused(denied, "europe-west4", EMAIL))
    assert "\n" not in line and "iam.serviceAccounts.actAs" in line and "roles/iam.serviceAccountUser" in line
    assert EMAIL in line and "us-central1" in line and "https://cloud.google.com/build/docs/locations" in line
    assert "restricts" not in str(_refused(denied, "us-central1", EMAIL))  # a region every project has


# --------------------------------------------------------------------------- the stand-in


def _world(tmp_path: Path) -> tuple[Path, Path]:
    gcs, state = tmp_path / "gcs", tmp_path / "standin"
    bucket_folder(gcs, BUCKET).mkdir(parents=True)
    state.mkdir()
    return gcs, state


def _builds_url(emu: str) -> str:
    return f"{emu}/v1/projects/{PROJECT}/locations/{LOCATION}/builds"


def _finished(emu: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = requests.post(_builds_url(emu), json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    build_id = resp.json()["metadata"]["build"]["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        build = requests.get(f"{_builds_url(emu)}/{build_id}", timeout=10).json()
        if build["status"] in cloudbuild.DONE:
            return build
        time.sleep(0.05)
    raise AssertionError(f"build {build_id} did not finish")


def _grant(state: Path, token: str, id_: str, **inputs: str) -> None:
    Store(state).put(Record(token, id_, inputs, {**inputs, "etag": "BwY"}))


@pytest.mark.slow  # an emulator
@pytest.mark.parametrize(
    "logging",
    [{}, {"options": {"logging": "LEGACY"}}, {"options": {"logging": "GCS_ONLY"}}],
    ids=["none", "legacy", "gcs-only"],
)
def test_an_account_without_a_logging_choice_is_googles_400(tmp_path: Path, logging: dict) -> None:
    gcs, _ = _world(tmp_path)
    body = {
        k: v
        for k, v in cloudbuild.build_body(BUCKET, REPOSITORY, "cd" * 32, ACCOUNT).items()
        if k != "options"
    }
    with fast_emulator(gcs) as emu:
        refused = requests.post(_builds_url(emu), json={**body, **logging}, timeout=10)
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT" and error["code"] == 400
        assert "build.service_account" in error["message"] and "CLOUD_LOGGING_ONLY" in error["message"]
        assert requests.get(_builds_url(emu), timeout=10).json() == {}  # nothing was created
        # each choice Google accepts is accepted (the build then fails: no archive was uploaded)
        for accepted in (
            {"options": {"logging": "CLOUD_LOGGING_ONLY"}},
            {"options": {"logging": "NONE"}},
            {"logsBucket": f"gs://{BUCKET}"},
            {"options": {"defaultLogsBucketBehavior": "REGIONAL_USER_OWNED_BUCKET"}},
        ):
            assert requests.post(_builds_url(emu), json={**body, **accepted}, timeout=10).status_code == 200
        # a build that names no account is as before: no logging choice needed
        legacy = cloudbuild.build_body(BUCKET, REPOSITORY, "cd" * 32)
        assert requests.post(_builds_url(emu), json=legacy, timeout=10).status_code == 200


@pytest.mark.slow  # an emulator
def test_a_build_account_without_its_grants_fails_in_one_line(tmp_path: Path) -> None:
    """With the gcp stand-in's IAM records (`--project-dir`): no read on the source bucket fails the
    build naming storage.objects.get; read but no write on the repository fails it naming the push;
    with both (a bucket grant and a repository grant) it gets past the check, to the missing archive."""
    gcs, state = _world(tmp_path)
    body = cloudbuild.build_body(BUCKET, REPOSITORY, "ef" * 32, ACCOUNT)
    with fast_emulator(gcs, "--project-dir", str(state)) as emu:
        first = _finished(emu, body)
        message = str(cloudbuild.failure(first))
        assert first["status"] == "FAILURE" and "\n" not in message
        assert (
            "storage.objects.get" in message and EMAIL in message and "roles/storage.objectViewer" in message
        )

        # a grant to another member, or of a role without the permission, is no grant
        _grant(
            state,
            BUCKET_MEMBER,
            "b/x/1",
            bucket=BUCKET,
            role="roles/storage.objectViewer",
            member="user:a@b.c",
        )
        _grant(
            state,
            BUCKET_MEMBER,
            "b/x/2",
            bucket=BUCKET,
            role="roles/storage.legacyBucketReader",
            member=MEMBER,
        )
        assert "storage.objects.get" in _finished(emu, body)["statusDetail"]

        _grant(state, BUCKET_MEMBER, "b/x/3", bucket=BUCKET, role=cloudbuild.SOURCE_ROLE, member=MEMBER)
        second = _finished(emu, body)
        assert second["status"] == "FAILURE"
        detail = second["statusDetail"]
        assert "artifactregistry.repositories.uploadArtifacts" in detail and "tunifolk-test" in detail, detail

        # a writer grant on another repository does not let it push here
        _grant(
            state, REPOSITORY_MEMBER, "r/1", project=PROJECT, location=LOCATION, repository="other",
            role=cloudbuild.PUSH_ROLE, member=MEMBER,
        )  # fmt: skip
        assert "uploadArtifacts" in _finished(emu, body)["statusDetail"]

        _grant(
            state, REPOSITORY_MEMBER, "r/2", project=PROJECT, location=LOCATION, repository="tunifolk-test",
            role=cloudbuild.PUSH_ROLE, member=MEMBER,
        )  # fmt: skip
        third = _finished(emu, body)
        assert "uploadArtifacts" not in third.get(
            "statusDetail", ""
        ) and "storage.objects.get" not in third.get("statusDetail", "")
        assert "no such object" in third["statusDetail"] or "cannot run here" in third["statusDetail"]


@pytest.mark.slow  # an emulator
def test_project_level_grants_count_too(tmp_path: Path) -> None:
    """A role on the project reaches its buckets and repositories (IAM inheritance): the same check
    passes with project grants only, and a repository named by its full name counts."""
    gcs, state = _world(tmp_path)
    body = cloudbuild.build_body(BUCKET, REPOSITORY, "12" * 32, ACCOUNT)
    _grant(state, PROJECT_MEMBER, "p/1", project=PROJECT, role="roles/storage.objectAdmin", member=MEMBER)
    _grant(
        state, REPOSITORY_MEMBER, "r/1",
        repository=f"projects/{PROJECT}/locations/{LOCATION}/repositories/tunifolk-test",
        role="roles/artifactregistry.repoAdmin", member=MEMBER,
    )  # fmt: skip
    with fast_emulator(gcs, "--project-dir", str(state)) as emu:
        detail = _finished(emu, body)["statusDetail"]
        assert "storage.objects.get" not in detail and "uploadArtifacts" not in detail, detail


@pytest.mark.slow  # an emulator
def test_the_provider_reports_a_refused_build_in_one_line(tmp_path: Path) -> None:
    """End to end through the SDK's dynamic-provider host: no grants, so `pulumi up` gets one line."""
    import grpc

    from providers.scorer_image import ScorerImageProvider
    from pulumi_host import dynamic_host
    from tunifolk.vertex import ENDPOINT_ENV

    gcs, state = _world(tmp_path)
    props = {
        "context_digest": image.context_digest(),
        "repository": REPOSITORY,
        "bucket": BUCKET,
        "project": PROJECT,
        "location": LOCATION,
        "service_account": EMAIL,
    }
    with (
        fast_emulator(gcs, "--project-dir", str(state)) as emu,
        dynamic_host(ScorerImageProvider(poll_seconds=0.1), env={ENDPOINT_ENV: emu}) as host,
        pytest.raises(grpc.RpcError) as info,
    ):
        host.create(props)
    details = info.value.details().strip()
    assert "\n" not in details and "storage.objects.get" in details and EMAIL in details, details


# --------------------------------------------------------------------------- the program


def test_the_stack_makes_the_build_account_grants_it_exactly_three_roles_and_builds_after() -> None:
    from test_stack import by_type, graph

    from components.scorer import build_account_id
    from mocked_program import SCORER_IMAGE, run_program, stack_config

    mocks, monitor, _, _ = run_program(stack_config("dev"))
    assert mocks.check_failures == []
    resources = graph(monitor)
    (account,) = [
        a for a in by_type(resources, "gcp:serviceaccount/account:Account") if a.name == "scorer-build-sa"
    ]
    assert account.inputs["accountId"] == build_account_id("test") == "tunifolk-build-test"
    email = f"tunifolk-build-test@{account.inputs['project']}.iam.gserviceaccount.com"
    member = f"serviceAccount:{email}"

    granted = [
        r for r in resources if r.inputs.get("member") == member or member in (r.inputs.get("members") or [])
    ]
    assert sorted((r.typ, r.inputs["role"]) for r in granted) == sorted(
        [
            (BUCKET_MEMBER, "roles/storage.objectViewer"),
            (REPOSITORY_MEMBER, "roles/artifactregistry.writer"),
            (PROJECT_MEMBER, "roles/logging.logWriter"),
        ]
    )  # exactly these: nothing on the project beyond the logs, nothing on other buckets
    (source,) = [g for g in granted if g.typ == BUCKET_MEMBER]
    (bucket,) = by_type(resources, "gcp:storage/bucket:Bucket")
    assert source.inputs["bucket"] == f"{bucket.name}-a1b2c3"  # the stack's bucket (the mock's name)
    (push,) = [g for g in granted if g.typ == REPOSITORY_MEMBER]
    (repository,) = by_type(resources, "gcp:artifactregistry/repository:Repository")
    assert push.inputs["repository"] == repository.inputs["repositoryId"] == "tunifolk-test"
    assert push.inputs["location"] == repository.inputs["location"] == "us-central1"
    (logs,) = [g for g in granted if g.typ == PROJECT_MEMBER]
    assert logs.inputs["project"] == account.inputs["project"]

    (build,) = by_type(resources, SCORER_IMAGE)
    assert build.inputs["service_account"] == email
    assert {g.urn for g in granted} <= build.dependencies  # the build waits for all three grants
    assert account.urn in build.dependencies


@pytest.mark.parametrize("stack_name", ["dev", "a.b", "Europe_West4-Production-Stack", "x" * 60])
def test_build_account_ids_are_per_stack_and_valid(stack_name: str) -> None:
    import re

    from components.scorer import account_id, build_account_id

    built = build_account_id(stack_name)
    assert re.fullmatch(r"[a-z][a-z0-9-]{4,28}[a-z0-9]", built), built
    assert built != account_id(stack_name)  # never the scorer's own account


# --------------------------------------------------------------------------- pinned bases

BASES = {"serve": "python:3.11-slim@sha256:" + "b" * 64}


def test_pinned_bases_reach_the_build_as_the_dockerfiles_args_and_make_another_build() -> None:
    body = cloudbuild.build_body(BUCKET, REPOSITORY, "ab" * 32, ACCOUNT, BASES)
    validate_in("cloudbuild.v1", "Build", body)
    args = body["steps"][0]["args"]
    assert [a for a in args if a.startswith("--build-arg")] == [f"--build-arg=BASE_IMAGE={BASES['serve']}"]
    unpinned = cloudbuild.build_body(BUCKET, REPOSITORY, "ab" * 32, ACCOUNT)
    assert not any(a.startswith("--build-arg") for a in unpinned["steps"][0]["args"])
    assert unpinned["tags"] == [cloudbuild.build_tag("ab" * 32)]  # builds made before pinning are found
    assert body["tags"] != unpinned["tags"] and body["images"] != unpinned["images"]  # bases: a new build
    assert body["source"] == unpinned["source"]  # the same sources


def test_the_stack_pins_the_bases_it_is_given_and_warns_on_a_real_project_when_it_is_not(monkeypatch) -> None:
    import yaml

    from components import scorer as component
    from tunifolk import stack
    from tunifolk.errors import ConfigError

    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    config["tunifolk:scorer"] = {**config["tunifolk:scorer"], "baseImages": dict(BASES)}
    assert component.base_images(stack.parse(config).scorer) == BASES
    config["tunifolk:scorer"]["baseImages"]["build"] = "python:3.11@sha256:" + "a" * 64  # no compile stage
    with pytest.raises(ConfigError, match=r"baseImages\.build is not a known key: use one of serve"):
        stack.parse(config)
    del config["tunifolk:scorer"]["baseImages"]["build"]
    config["tunifolk:scorer"]["baseImages"]["serve"] = "python:3.11-slim"
    with pytest.raises(ConfigError, match=r"baseImages\.serve .* is not an image by digest"):
        stack.parse(config)
    said: list[str] = []
    monkeypatch.setattr(component.pulumi, "warn", said.append)
    monkeypatch.delenv("TUNIFOLK_VERTEX_ENDPOINT", raising=False)
    del config["tunifolk:scorer"]["baseImages"]
    assert component.base_images(stack.parse(config).scorer) is None
    assert len(said) == 1 and "crane digest" in said[0] and "\n" not in said[0]
