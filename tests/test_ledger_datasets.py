"""On the local stack the BigQuery stand-in answers for the datasets the stack made, and only with what
their sinks route (tunifolk/standin/bigquery.py): a stack's `rollouts` reads its own scorer's records,
another stack's dataset holds none of them, and a dataset nobody made is BigQuery's 404 `notFound`,
which the CLI says on one line naming the fix.

The gcp stand-in runs as the engine runs it; its Cloud Run service is a real scorer, whose stdout (the
ledger's records) the stand-in keeps as Cloud Run hands it to Cloud Logging. The CLI reads through
the emulator, which serves BigQuery's `jobs.query` over the stand-in's records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests
from test_standin import RUN, Provider, serving

from jobs import PROJECT
from servers import emulator
from tunifolk.cli.main import main
from tunifolk.job.names import local_project_number
from tunifolk.ledger import names
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import ENDPOINT_ENV

pytestmark = pytest.mark.slow  # a stand-in, a scorer and an emulator

DATASET = "gcp:bigquery/dataset:Dataset"
SINK = "gcp:logging/projectSink:ProjectSink"
JOB, STEPS, PER_STEP = "4242", 2, 3
TEMPLATE = {"containers": [{"image": "us-central1-docker.pkg.dev/p/r/scorer:latest"}]}


def ledger_of(gcp: Provider, stack: str, service: str) -> str:
    """A stack's dataset and its sink of `service`'s records, as components/ledger.py makes them."""
    dataset = names.dataset_name(stack)
    gcp.create(DATASET, f"{stack}-dataset", {"datasetId": dataset})
    destination = f"bigquery.googleapis.com/projects/{PROJECT}/datasets/{dataset}"
    sink = {"name": names.sink_name(stack), "destination": destination, "filter": names.sink_filter(service)}
    gcp.create(SINK, f"{stack}-sink", sink)
    return dataset


@pytest.fixture(scope="module")
def local_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dev stack's scorer with its ledger, scored STEPS × PER_STEP times for JOB; a continued
    stack's ledger whose sink selects its own scorer; the emulator over those records."""
    root = tmp_path_factory.mktemp("local-stack")
    with serving(root / "standin", root / "gcs") as gcp:
        inputs = {"location": "us-central1", "template": TEMPLATE, "invokerIamDisabled": True}
        _, service = gcp.create(RUN, "scorer", inputs)
        ledger_of(gcp, "dev", service["name"])
        ledger_of(gcp, "continued", "scorer-continued")
        for step in range(STEPS):
            for k in range(PER_STEP):
                body = {
                    "example": {"contents": [{"role": "user", "parts": [{"text": "malzuma"}]}],
                                "references": {"form": "malzuma", "script": "arabic"}},
                    "response": {"parts": [{"text": f"بيت {k}\nبيت ثاني"}]},
                    "metadata": {"step": step, "tuning_job_id": JOB},
                }  # fmt: skip
                assert requests.post(service["uri"], json=body, timeout=30).status_code == 200
        env = {"TUNIFOLK_STANDIN_DIR": str(gcp.state), DIRS_ENV: ""}
        with emulator("--step-seconds", "0.02", env=env, quiet=True) as url:
            yield url


@pytest.fixture
def cli(local_stack: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> object:
    monkeypatch.setenv(ENDPOINT_ENV, local_stack)

    def run(dataset: str, project: str = PROJECT) -> tuple[int, list[str], str]:
        argv = ["rollouts", "--job", JOB, "--json", "--project", project, "--dataset", dataset]
        code = main(argv)
        got = capsys.readouterr()
        return code, got.out.splitlines(), got.err

    return run


def test_a_stack_reads_its_own_ledger_by_project_id_or_number(cli) -> None:  # type: ignore[no-untyped-def]
    for project in (PROJECT, local_project_number(PROJECT)):
        code, lines, err = cli(names.dataset_name("dev"), project)
        assert code == 0, err
        docs = [json.loads(line) for line in lines]
        assert len(docs) == STEPS * PER_STEP and {d["job_id"] for d in docs} == {JOB}


def test_another_stacks_dataset_holds_none_of_its_records(cli) -> None:  # type: ignore[no-untyped-def]
    code, lines, err = cli(names.dataset_name("continued"))
    assert code == 1 and lines == []
    (line,) = [line for line in err.splitlines() if line.startswith("tunifolk: ")]
    # BigQuery's sink makes the table with its first record: a 404 for the table, not the dataset,
    # whose fix is to wait for the job's first step, not `pulumi up`
    assert "holds no records yet" in line and "first" in line and "pulumi up" not in line, err


def test_a_dataset_nobody_made_is_bigquerys_404_said_on_one_line(  # type: ignore[no-untyped-def]
    cli, local_stack: str
) -> None:
    gone = names.dataset_name("gone")
    url = f"{local_stack}/bigquery/v2/projects/{PROJECT}/queries"
    query = {
        "query": "SELECT 1",
        "useLegacySql": False,
        "defaultDataset": {"projectId": PROJECT, "datasetId": gone},
    }
    resp = requests.post(url, json=query, timeout=10)
    assert resp.status_code == 404, resp.text
    error = resp.json()["error"]
    assert error["errors"][0]["reason"] == "notFound" and error["status"] == "NOT_FOUND"
    assert error["message"].startswith(f"Not found: Dataset {PROJECT}:{gone} was not found in location")

    code, lines, err = cli(gone)
    assert code == 1 and lines == []
    (line,) = [line for line in err.splitlines() if line.startswith("tunifolk: ")]
    assert f"{PROJECT}:{gone}" in line and "`pulumi up`" in line and "--stack" in line, line
    assert "Traceback" not in err
