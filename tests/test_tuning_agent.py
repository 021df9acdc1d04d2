"""How Vertex's tuning agent comes to exist, as the stand-ins play Google's hostile reading
(tunifolk/agents.py, docs/doctor.md "The tuning agent"):

- `gcp.projects.ServiceIdentity` for aiplatform (generateServiceIdentity) creates `gcp-sa-aiplatform`
  only, with no role; a grant to `gcp-sa-vertex-tune` still gets Google's 400, and the stand-in's hint
  names the tuning job, not ServiceIdentity;
- the project's first tuning job (the emulator's `tuningJobs.create`) creates it, with its role on the
  project, which the `getIamPolicy` invoke then shows;
- on the real engine, a first `pulumi up` in a fresh project stops on one line naming that fix, with
  no grant to the agent attempted and nothing made but the project's preparation; after one throwaway
  tuning job, the same `up` goes through.

Real servers throughout: the gcp stand-in over gRPC as the engine runs it, the emulator over HTTP.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import requests
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from test_fresh_project import create
from test_standin import API, BUCKET_MEMBER

import servers
from tunifolk.agents import bootstrap_command, missing_tuning_agent
from tunifolk.job.names import local_project_number
from tunifolk.project_state import AGENT_ROLES, TUNE_AGENT_DOMAIN, ProjectState, tune_agent_email
from tunifolk.standin.server import to_dict, to_struct

pytestmark = pytest.mark.slow  # every test starts a server

PROJECT = "tunifolk-agent"
NUMBER = local_project_number(PROJECT)
IDENTITY = "gcp:projects/serviceIdentity:ServiceIdentity"
POLICY = "gcp:projects/getIamPolicy:getIamPolicy"
RESOURCE_MANAGER = "cloudresourcemanager.googleapis.com"
AIPLATFORM = "aiplatform.googleapis.com"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    root = tmp_path / "standin"
    ProjectState(root).make_fresh(0.0)
    return root


@pytest.fixture
def gcp(state: Path) -> Iterator[provider_pb2_grpc.ResourceProviderStub]:
    with servers.configured_standin(state, PROJECT) as stub:
        yield stub


def policy(gcp: Any) -> dict[str, Any]:
    answer = gcp.Invoke(provider_pb2.InvokeRequest(tok=POLICY, args=to_struct({"project": PROJECT})))
    assert not answer.failures, answer.failures
    return json.loads(to_dict(getattr(answer, "return"))["policyData"])


def members(doc: dict[str, Any]) -> set[str]:
    return {m for b in doc.get("bindings", []) for m in b.get("members", [])}


def throwaway_job(url: str, project: str = PROJECT) -> requests.Response:
    """The body of `agents.bootstrap_command`, sent to the emulator as that command sends it to Google."""
    body = json.loads(bootstrap_command(project).split(" -d '", 1)[1].rstrip("'"))
    jobs = f"{url}/v1beta1/projects/{project}/locations/us-central1/tuningJobs"
    return requests.post(jobs, json=body, timeout=10)


def test_service_identity_does_not_create_the_tuning_agent_a_tuning_job_does(gcp: Any, state: Path) -> None:
    agent = tune_agent_email(NUMBER)
    project = ProjectState(state)
    for service in (AIPLATFORM, RESOURCE_MANAGER):
        assert isinstance(create(gcp, API, service.split(".")[0], {"service": service}), dict)

    made = create(gcp, IDENTITY, "agents", {"service": AIPLATFORM})
    assert made["email"] == f"service-{NUMBER}@gcp-sa-aiplatform.iam.gserviceaccount.com"
    assert project.agent_exists(made["email"]) and not project.agent_exists(agent)
    assert members(policy(gcp)) == set(), "an agent created on request holds no role"

    create(gcp, "gcp:storage/bucket:Bucket", "b", {"name": "b-agent", "location": "US"})
    grant = {"bucket": "b-agent", "role": "roles/storage.objectViewer", "member": f"serviceAccount:{agent}"}
    refused = create(gcp, BUCKET_MEMBER, "reader", grant)
    assert isinstance(refused, grpc.RpcError)
    details = refused.details()
    assert f"googleapi: Error 400: Service account {agent} does not exist., badRequest" in details
    assert "first tuning job" in details and "docs/doctor.md" in details and "\n" not in details

    with servers.emulator("--project-dir", str(state), "--step-seconds", "0.01", quiet=True) as url:
        assert throwaway_job(url).status_code == 200
    assert project.agent_exists(agent)
    roles = {b["role"]: b["members"] for b in policy(gcp)["bindings"]}
    assert roles[AGENT_ROLES[TUNE_AGENT_DOMAIN]] == [f"serviceAccount:{agent}"]
    assert isinstance(create(gcp, BUCKET_MEMBER, "reader", grant), dict)


def test_the_policy_is_resource_managers_and_refused_while_it_is_off(gcp: Any) -> None:
    with pytest.raises(grpc.RpcError, match="Cloud Resource Manager API has not been used"):
        policy(gcp)


def test_a_used_project_shows_every_agent_in_its_policy(tmp_path: Path) -> None:
    """Outside `--fresh-project` the project has been used: every agent exists, holding its role."""
    root = tmp_path / "standin"
    with servers.standin(root, tmp_path / "gcs") as stub:
        stub.Configure(provider_pb2.ConfigureRequest(variables={"gcp:config:project": PROJECT}))
        assert f"serviceAccount:{tune_agent_email(NUMBER)}" in members(policy(stub))


def test_the_missing_agent_line_is_one_line_naming_one_fix() -> None:
    line = missing_tuning_agent(PROJECT, NUMBER)
    assert "\n" not in line and line.count("docs/doctor.md") == 1
    assert f"Service account {tune_agent_email(NUMBER)} does not exist." in line
    assert "throwaway tuning job" in line and "pulumi up again" in line
    command = bootstrap_command(PROJECT)
    assert "print-access-token |" in command and "-H @-" in command, "the token never on a command line"


# --------------------------------------------------------------------------- on the real engine

FLAGS = ("--port", "0", "--step-seconds", "0.02", "--fresh-project", "--api-enable-seconds", "0.5")
GRANTS = {"gcp:cloudrunv2/serviceIamMember:ServiceIamMember", "gcp:storage/bucketIAMMember:BucketIAMMember"}


def test_first_up_in_a_fresh_project_stops_on_one_line_and_passes_after_one_job(tmp_path: Path) -> None:
    from engine import LocalStack, require_engine

    require_engine()
    stack = LocalStack(tmp_path)
    stack.tunifolk("local", "start", *FLAGS)
    stack.environment()
    try:
        stack.init()
        number = local_project_number("tunifolk-local")
        stopped = stack.pulumi("up", "--yes", "--skip-preview", check=False)
        assert stopped.code != 0, stopped.output
        lines = {
            line.split("error: ", 1)[-1].strip()
            for line in stopped.output.splitlines()
            if "does not exist." in line and "error" in line
        }
        assert lines == {missing_tuning_agent("tunifolk-local", number)}, stopped.output
        assert "Traceback" not in stopped.output, stopped.output
        made = {r.token for r in stack.standin_records()}
        assert not made & GRANTS, f"a grant to the missing agent was attempted: {made}"
        assert made <= {"gcp:projects/service:Service", IDENTITY}, made

        began = time.monotonic()
        while throwaway_job(stack.vertex, "tunifolk-local").status_code != 200:  # the enables apply in 0.5 s
            assert time.monotonic() - began < 30
            time.sleep(0.2)
        # The program now passes its check: the grants to the agent are made (what follows them is other
        # resources' business: test_engine_fresh_project.py runs the whole up).
        again = stack.pulumi("up", "--yes", "--skip-preview", check=False)
        assert missing_tuning_agent("tunifolk-local", number) not in again.output, again.output
        agent = f"serviceAccount:{tune_agent_email(number)}"
        granted = [
            r for r in stack.standin_records() if r.token in GRANTS and r.inputs.get("member") == agent
        ]
        assert granted, again.output
        stack.pulumi("destroy", "--yes", "--skip-preview", check=False)
    finally:
        stack.stop()
