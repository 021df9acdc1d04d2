"""The scorer's image, built from this checkout with podman and run the way Cloud Run runs it
(``tunifolk/image.py``: its entrypoint and user, ``$PORT`` set, a read-only root filesystem with an
in-memory /tmp and /dev/shm): it answers byte for byte what the scorer answers in process on a fixed
sample of the red-team suite and the policy corpus, big bodies included (they go to the scoring
process that multiprocessing spawns), as a non-root user, and holds the lock's packages and nothing
else. The gcp stand-in's Cloud Run runs a service whose image is a local digest, and refuses one that
does not exist.

Needs podman, runc and mmdebstrap (``make image-tools``, as root): without them each test skips with
one line saying why, and fails under ``CI=true``, where a skipped image would pass unnoticed."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import orjson
import pytest
import requests
from sweeps import sample
from test_standin import RUN, RUN_MEMBER, Provider, serving

from jobs import PROJECT
from polling import poll
from scorer.app import INLINE_BODY, handle_body
from tunifolk import invoker
from tunifolk.image import Container, Image, build, podman, run, unavailable
from tunifolk.job.names import local_project_number
from tunifolk.processes import free_port, wait_healthy
from tunifolk.standin import cloudrun

ROOT = Path(__file__).resolve().parent.parent
# one worker runs them all: one container
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800), pytest.mark.xdist_group("container")]
"""(the timeout) A cold build makes the Debian base first (about 25 s); a warm one is a cache hit."""
AGENT = f"serviceAccount:{invoker.tune_agent(local_project_number(PROJECT))}"
"""Vertex's tune agent, whom the service's run.invoker grant lets call it."""


@pytest.fixture(scope="module")
def image() -> Image:
    if why := unavailable():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the scorer image cannot be built here: {why}")
        pytest.skip(f"scorer image tests skipped: {why}")
    return build()


@pytest.fixture(scope="module")
def container(image: Image) -> Iterator[Container]:
    started = run(image.ref, free_port())
    try:
        wait_healthy(started.url, timeout=60, what="the container")
        yield started
    finally:
        started.stop()


def _exec(container: Container, *command: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in the container as its user (the image's USER)."""
    return subprocess.run([*podman(), "exec", container.id, *command], capture_output=True, text=True)


def _requests() -> list[bytes]:
    """The contract's request for every red-team case (tests/redteam.py and each round of
    tests/redteam_rounds) and 600 policy poems (every form, both scripts, honest and hacked)."""
    from redteam import all_cases
    from tunifolk.emulator.policy import corpus

    cases: list[tuple[object, dict[str, str]]] = [
        ({"parts": [{"text": c.text}]}, c.refs) for c in all_cases()
    ]
    for path in sorted((ROOT / "tests" / "redteam_rounds").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                parts = case["parts"] if "parts" in case else [{"text": case["text"]}]
                cases.append(({"parts": parts}, case["references"]))
    cases += corpus(600)
    return [
        orjson.dumps(
            {
                "example": {"references": refs},
                "response": {"role": "model", **content},  # type: ignore[dict-item]
                "metadata": {"step": i, "tuning_job_id": "123"},
            }
        )
        for i, (content, refs) in enumerate(cases)
    ]


def _post_all(container: Container, bodies: list[bytes]) -> list[tuple[int, bytes]]:
    """POST each body on one keep-alive connection, in order."""
    conn = http.client.HTTPConnection("127.0.0.1", container.port, timeout=60)
    out = []
    for body in bodies:
        conn.request("POST", "/", body=body, headers={"content-type": "application/json"})
        resp = conn.getresponse()
        out.append((resp.status, resp.read()))
    conn.close()
    return out


AGREEMENT_SAMPLE = 1000
"""Requests the container and the scorer in process must answer alike, drawn with tests/sweeps.py's
seed from every request `_requests` builds (over 5,000): an agreement test runs on a sample of what
it guards (the image's sources, lexicon and locked packages), the same sample every run."""


def test_the_container_answers_byte_for_byte_like_the_scorer_in_process(container: Container) -> None:
    every = _requests()
    assert len(every) > 5000, len(every)
    bodies = [every[i] for i in sample(len(every), AGREEMENT_SAMPLE, full=False)]
    answers = _post_all(container, bodies)
    expected = [handle_body(b) for b in bodies]
    diffs = [i for i, (a, b) in enumerate(zip(answers, expected, strict=True)) if a != b]
    assert not diffs, (
        f"{len(diffs)} of {len(bodies)} differ, first: {answers[diffs[0]]} != {expected[diffs[0]]}"
    )


def test_big_bodies_are_scored_in_the_spawned_process_on_a_read_only_root(container: Container) -> None:
    """A body over INLINE_BODY goes to the scoring process (multiprocessing's spawn, its semaphores
    in /dev/shm): the same answer as in process, several times (the process is kept)."""
    small = _requests()[:3]
    big = []
    for body in small:
        doc = orjson.loads(body)
        doc["response"]["parts"].insert(0, {"text": "x" * (2 * INLINE_BODY), "thought": True})
        big.append(orjson.dumps(doc))
    assert all(len(b) > INLINE_BODY for b in big)
    assert _post_all(container, big) == [handle_body(b) for b in big]
    assert "Traceback" not in container.logs()
    done = _exec(container, "touch", "/app/scorer/written")
    assert done.returncode != 0 and "Read-only file system" in done.stderr, done


def test_the_server_runs_as_a_user_that_is_not_root(container: Container) -> None:
    status = _exec(container, "cat", "/proc/1/status").stdout
    uids = re.search(r"^Uid:\s+(\d+)\s+(\d+)", status, re.M)
    assert uids and uids.group(1) == uids.group(2) != "0", status
    cmdline = _exec(container, "cat", "/proc/1/cmdline").stdout.split("\0")
    assert cmdline[1:3] == ["-m", "scorer"], cmdline


def _locked(path: Path) -> set[str]:
    """The distributions a hashed lock installs (its requirement lines)."""
    names = re.findall(r"^([A-Za-z0-9][\w.-]*)(?=[\[=])", path.read_text(), re.M)
    return {re.sub(r"[-_.]+", "-", n).lower() for n in names}


def test_the_image_holds_the_lock_and_nothing_from_the_dev_requirements(container: Container) -> None:
    """The interpreter that serves sees exactly scorer/requirements.lock's distributions (not pip's nor
    setuptools', which the dev requirements also install); the scorer runs from its sources, each
    with its bytecode compiled at build (the served user cannot write it, so a cold start would
    compile every module again)."""
    code = (
        "import importlib.metadata as m, json, os, sys, scorer, scorer.app, scorer.score;"
        "names = sorted(d.metadata['Name'] for d in m.distributions());"
        "mods = [x for k, x in sys.modules.items() if k.startswith('scorer.')];"
        "print(json.dumps([names, [(x.__file__, os.path.exists(x.__cached__)) for x in mods]]))"
    )
    done = _exec(container, "python", "-c", code)
    assert done.returncode == 0, done.stderr
    names, loaded = json.loads(done.stdout)
    installed = {re.sub(r"[-_.]+", "-", n).lower() for n in names}
    serve = _locked(ROOT / "scorer" / "requirements.lock")
    assert installed == serve, f"installed {sorted(installed)}; the lock has {sorted(serve)}"
    dev_only = _locked(ROOT / "requirements-dev.lock") - serve
    assert dev_only and not installed & dev_only
    assert len(loaded) > 10, loaded
    assert all(file.endswith(".py") and cached for file, cached in loaded), loaded


# The Cloud Run stand-in runs a service whose image is a local digest (tunifolk/standin/cloudrun.py).


@pytest.fixture
def gcp(image: Image, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    """The gcp stand-in, IAM's propagation delay at 1/100."""
    monkeypatch.setenv(invoker.TIME_SCALE_ENV, "0.01")
    with serving(tmp_path / "standin", tmp_path / "gcs") as provider:
        yield provider


def _containers(name: str) -> list[str]:
    """The images of the running containers called `name` (a service's own container: other tests'
    stand-ins run theirs on the same podman at the same time)."""
    done = subprocess.run(
        [*podman(), "ps", "--filter", f"name=^{name}$", "--format", "{{.Image}}"],
        capture_output=True,
        text=True,
    )
    return done.stdout.split()


def test_a_service_of_a_local_digest_runs_that_image(gcp: Provider, image: Image) -> None:
    template = {"containers": [{"image": image.ref}]}
    body = {"location": "us-central1", "template": template, "deletionProtection": False}
    service_id, service = gcp.create(RUN, "scorer", body)
    name = cloudrun.container_name(service_id)
    assert _containers(name) == [image.ref]
    agent = AGENT.removeprefix("serviceAccount:")
    grant = {
        "location": "us-central1",
        "name": service["name"],
        "role": invoker.INVOKER_ROLE,
        "member": AGENT,
    }
    grant_id, _ = gcp.create(RUN_MEMBER, "invoker", grant)
    uri, request = service["uri"], _requests()[0]
    headers = {"Authorization": f"Bearer {invoker.fake_id_token(agent, uri)}"}

    def call() -> tuple[int, bytes]:
        answer = requests.post(uri, data=request, headers=headers, timeout=10)
        return answer.status_code, answer.content

    assert poll(call, lambda a: a[0] == 200, timeout=30, what="the granted call") == handle_body(request)
    cloudrun.stop(gcp.state, service_id)  # scaled to zero: a read starts the image again
    assert _containers(name) == []
    gcp.read(RUN, service_id)
    assert _containers(name) == [image.ref] and call() == handle_body(request)
    gcp.delete(RUN_MEMBER, grant_id)
    gcp.delete(RUN, service_id)
    assert _containers(name) == [] and cloudrun.running(gcp.state) == []


def test_a_service_of_a_digest_that_does_not_exist_is_not_created(gcp: Provider, image: Image) -> None:
    missing = f"{image.ref.split('@')[0]}@sha256:{'0' * 64}"
    template = {"containers": [{"image": missing}]}
    with pytest.raises(grpc.RpcError, match=r"Error 400: Image '.+@sha256:0{64}' not found"):
        gcp.create(RUN, "scorer", {"location": "us-central1", "template": template})
    assert cloudrun.running(gcp.state) == []
