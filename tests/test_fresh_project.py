"""A project that has never been used, as the gcp stand-in (over its gRPC protocol, as the engine calls
it) and the Vertex emulator (over HTTP) play it once `local start --fresh-project` has marked their
shared directory: disabled APIs answer Google's 403 SERVICE_DISABLED, enabling takes a while, and a
grant to a service agent Google has not created is Google's 400 until `ServiceIdentity` creates it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from test_standin import ACCOUNT, API, BUCKET_MEMBER, urn

import servers
from tunifolk.job.names import local_project_number
from tunifolk.project_state import ProjectState, tune_agent_email
from tunifolk.standin.server import to_dict, to_struct

pytestmark = pytest.mark.slow  # every test starts a server

PROJECT = "tunifolk-fresh"
NUMBER = local_project_number(PROJECT)
ENABLE_SECONDS = 0.4
IDENTITY = "gcp:projects/serviceIdentity:ServiceIdentity"


def create(stub: provider_pb2_grpc.ResourceProviderStub, token: str, name: str, news: dict[str, Any]) -> Any:
    """Check then create, as `pulumi up` does; the created outputs, or the gRPC error it raised."""
    checked = stub.Check(
        provider_pb2.CheckRequest(urn=urn(token, name), news=to_struct(news), randomSeed=b"s")
    )
    assert not checked.failures, checked.failures
    try:
        made = stub.Create(provider_pb2.CreateRequest(urn=urn(token, name), properties=checked.inputs))
    except grpc.RpcError as exc:
        return exc
    return to_dict(made.properties)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    root = tmp_path / "standin"
    ProjectState(root).make_fresh(ENABLE_SECONDS)
    return root


@pytest.fixture
def gcp(state: Path) -> Iterator[provider_pb2_grpc.ResourceProviderStub]:
    with servers.configured_standin(state, PROJECT) as stub:
        yield stub


def test_a_disabled_api_is_refused_as_google_refuses_it_until_enabled(gcp: Any, state: Path) -> None:
    refused = create(gcp, ACCOUNT, "sa", {"accountId": "tunifolk-scorer"})
    assert isinstance(refused, grpc.RpcError)
    message = refused.details()
    assert message.startswith("gcp stand-in: googleapi: Error 403: Identity and Access Management (IAM) API")
    assert f"has not been used in project {NUMBER} before or it is disabled. Enable it by visiting" in message
    assert '"reason":"SERVICE_DISABLED"' in message and '"domain":"googleapis.com"' in message
    assert f'"consumer":"projects/{NUMBER}"' in message and '"service":"iam.googleapis.com"' in message
    assert "\n" not in message

    invoke = provider_pb2.InvokeRequest(tok="gcp:organizations/getProject:getProject", args=to_struct({}))
    with pytest.raises(grpc.RpcError, match="Cloud Resource Manager API has not been used"):
        gcp.Invoke(invoke)

    began = time.monotonic()
    assert isinstance(create(gcp, API, "iam", {"service": "iam.googleapis.com"}), dict)
    assert time.monotonic() - began >= ENABLE_SECONDS * 0.9, "enabling applied at once"
    assert create(gcp, ACCOUNT, "sa", {"accountId": "tunifolk-scorer"})["email"].startswith(
        "tunifolk-scorer@"
    )
    # Cloud Storage is on in every new project.
    assert isinstance(
        create(gcp, "gcp:storage/bucket:Bucket", "b", {"name": "b-fresh", "location": "US"}), dict
    )


def test_a_grant_to_the_tuning_agent_waits_for_the_projects_first_tuning_job(gcp: Any, state: Path) -> None:
    """`generateServiceIdentity` makes aiplatform's primary agent (gcp-sa-aiplatform), not the tuning
    agent, which appears with the project's first tuning job (the hostile reading, docs/doctor.md):
    the grant to it is Google's 400 until then, naming the fix."""
    agent = tune_agent_email(NUMBER)
    create(gcp, "gcp:storage/bucket:Bucket", "b", {"name": "b-fresh", "location": "US"})
    grant = {"bucket": "b-fresh", "role": "roles/storage.objectViewer", "member": f"serviceAccount:{agent}"}
    refused = create(gcp, BUCKET_MEMBER, "reader", grant)
    assert isinstance(refused, grpc.RpcError)
    assert f"googleapi: Error 400: Service account {agent} does not exist., badRequest" in refused.details()

    # generateServiceIdentity needs aiplatform on (UNCONFIRMED), then creates the primary agent only.
    identity = {"service": "aiplatform.googleapis.com"}
    assert "Vertex AI API has not been used" in create(gcp, IDENTITY, "agents", identity).details()
    create(gcp, API, "aiplatform", {"service": "aiplatform.googleapis.com"})
    made = create(gcp, IDENTITY, "agents", identity)
    assert made["email"] == f"service-{NUMBER}@gcp-sa-aiplatform.iam.gserviceaccount.com"
    assert made["member"] == f"serviceAccount:{made['email']}"
    still = create(gcp, BUCKET_MEMBER, "reader", grant)
    assert isinstance(still, grpc.RpcError) and "does not exist" in still.details()

    ProjectState(state).create_agents(NUMBER, "aiplatform.googleapis.com")  # the first tuning job
    assert isinstance(create(gcp, BUCKET_MEMBER, "reader", grant), dict)
    # delete is a no-op on Google's side: the agents stay
    gcp.Delete(
        provider_pb2.DeleteRequest(
            id=f"projects/{PROJECT}/services/aiplatform.googleapis.com", urn=urn(IDENTITY, "agents")
        )
    )
    assert ProjectState(state).agent_exists(agent)


def test_two_stacks_may_enable_one_api_and_one_leaving_keeps_it_on(gcp: Any, state: Path) -> None:
    """An enabled API is a project setting: a second stack's `Service` for it finds it on and takes the
    same id, its `ServiceIdentity` answers the same agents, and a destroy with `disableOnDestroy: false`
    leaves the API on for the other (its refresh still finds it); with true it is off for both."""
    run = {"service": "run.googleapis.com", "disableOnDestroy": False}
    first, second = create(gcp, API, "one-run", run), create(gcp, API, "two-run", run)
    assert isinstance(second, dict), second.details()
    assert first == second
    api_id = f"{PROJECT}/run.googleapis.com"
    identity = {"service": "aiplatform.googleapis.com"}
    create(gcp, API, "aiplatform", {"service": "aiplatform.googleapis.com"})
    agents = [create(gcp, IDENTITY, name, identity) for name in ("one-agents", "two-agents")]
    assert isinstance(agents[1], dict), agents[1].details()
    assert agents[0]["email"] == agents[1]["email"]

    def read(token: str, id_: str, held: dict[str, Any]) -> Any:
        return gcp.Read(provider_pb2.ReadRequest(id=id_, urn=urn(token, "two"), properties=to_struct(held)))

    def delete(token: str, id_: str, held: dict[str, Any]) -> None:
        gcp.Delete(provider_pb2.DeleteRequest(id=id_, urn=urn(token, "one"), properties=to_struct(held)))

    delete(API, api_id, first)
    delete(IDENTITY, f"projects/{PROJECT}/services/aiplatform.googleapis.com", agents[0])
    assert ProjectState(state).enabled(PROJECT, "run.googleapis.com")
    kept = read(API, api_id, second)
    assert kept.id == api_id and to_dict(kept.properties)["disableOnDestroy"] is False
    agent = read(IDENTITY, f"projects/{PROJECT}/services/aiplatform.googleapis.com", agents[1])
    assert to_dict(agent.properties)["email"] == agents[1]["email"]

    delete(API, api_id, {**second, "disableOnDestroy": True})
    assert not ProjectState(state).enabled(PROJECT, "run.googleapis.com")
    assert read(API, api_id, second).id == "", "a disabled API's Service is gone on refresh"


def test_the_emulator_refuses_vertex_until_aiplatform_is_enabled(state: Path) -> None:
    with servers.emulator("--project-dir", str(state), "--step-seconds", "0.01", quiet=True) as url:
        jobs = f"{url}/v1beta1/projects/{PROJECT}/locations/us-central1/tuningJobs"
        refused = requests.get(jobs, timeout=10)
        assert refused.status_code == 403
        error = refused.json()["error"]
        assert error["status"] == "PERMISSION_DENIED" and error["code"] == 403
        assert error["message"].startswith(f"Vertex AI API has not been used in project {NUMBER} before")
        info = error["details"][0]
        assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
        assert (info["reason"], info["domain"]) == ("SERVICE_DISABLED", "googleapis.com")
        assert info["metadata"]["service"] == "aiplatform.googleapis.com"
        assert info["metadata"]["consumer"] == f"projects/{NUMBER}"

        ready = ProjectState(state).enable(PROJECT, "aiplatform.googleapis.com")
        assert requests.get(jobs, timeout=10).status_code == 403, "enabled before the enable applied"
        time.sleep(max(0.0, ready - time.time()) + 0.05)
        assert requests.get(jobs, timeout=10).status_code == 200


def test_fresh_project_is_refused_while_the_stand_in_holds_a_deployed_stack(tmp_path: Path) -> None:
    """A project with a stack in it has been used: `--fresh-project` names the fix and leaves it as it is."""
    from tunifolk.standin.store import Record, Store

    standin = tmp_path / "standin"
    Store(standin).put(Record("gcp:storage/bucket:Bucket", "b-held", {}, {}))
    ProjectState(standin).enable(PROJECT, "run.googleapis.com")
    env = {
        **os.environ,
        "TUNIFOLK_STANDIN_DIR": str(standin),
        "TUNIFOLK_LOCAL_DIR": str(tmp_path / "local"),
        "TUNIFOLK_GCS_DIR": str(tmp_path / "gcs"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tunifolk", "local", "start", "--port", "0", "--fresh-project"],
        cwd=servers.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "--fresh-project: the stand-in holds 1 resources" in done.stderr
        and "run pulumi destroy first" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not ProjectState(standin).fresh and ProjectState(standin).enabled(PROJECT, "run.googleapis.com")
