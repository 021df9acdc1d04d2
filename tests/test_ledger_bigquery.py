"""The ledger's read path end to end: the real scorer writes records to its stdout, the emulator's
BigQuery stand-in (DuckDB) serves `jobs.query` over them, and the CLI's reader reads them back."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from discovery import validate_in
from scorer import ledger
from servers import ROOT, emulator, scorer
from tunifolk.errors import TunifolkError
from tunifolk.ledger import names
from tunifolk.ledger.bigquery import LedgerReader
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import VertexClient

pytestmark = pytest.mark.slow  # a scorer and an emulator

SAMPLES = ROOT / "data" / "samples"
FORMS = ("malzuma", "qasida")
JOB = "777"


def body(form: str, text: str, step: int, job: str = JOB) -> dict:
    return {
        "example": {
            "contents": [{"role": "user", "parts": [{"text": f"a {form}"}]}],
            "references": {"form": form, "script": "arabic"},
        },
        "response": {"role": "model", "parts": [{"text": text}]},
        "metadata": {"step": step, "tuning_job_id": job},
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict]]]:
    """(emulator URL, the answers) after 3 steps x 2 forms x 3 samples of job 777 and one of job 778."""
    folder = tmp_path_factory.mktemp("ledger")
    answers = []
    with scorer(stdout=folder / "scorer.stdout") as url:
        for step in range(3):
            for form in FORMS:
                lines = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8").splitlines()
                for k in range(3):
                    text = "\n".join(lines[: len(lines) - 2 * k])  # cut lines: rewards differ
                    answer = requests.post(url, json=body(form, text, step), timeout=10).json()
                    answers.append({"step": step, "form": form, "text": text, **answer})
        requests.post(url, json=body("malzuma", "x", 0, job="778"), timeout=10)
    with emulator("--step-seconds", "0.02", env={DIRS_ENV: str(folder)}, quiet=True) as emu:
        yield emu, answers


def reader(emu: str, **kw: object) -> LedgerReader:
    return LedgerReader("tunifolk-test", names.dataset_name("dev"), client=VertexClient(endpoint=emu), **kw)  # type: ignore[arg-type]


def test_a_step_reads_back_as_the_scorer_answered(world: tuple[str, list[dict]]) -> None:
    emu, answers = world
    got = reader(emu).rollouts(JOB, step=1)
    want = [a for a in answers if a["step"] == 1]
    assert len(got) == len(want) == 6
    by_text = {r.response: r for r in got}
    for a in want:
        r = by_text[a["text"]]
        assert r.reward == a["reward"] and r.form == a["form"]
        assert r.subscores == json.loads(a["user_requested_aux_info"])["scores"]
        assert r.scorer_version == got[0].scorer_version and len(r.scorer_version) == 64 and r.job_id == JOB


def test_filters_by_form_and_job(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    assert {r.form for r in reader(emu).rollouts(JOB, form="qasida")} == {"qasida"}
    assert len(reader(emu).rollouts(JOB)) == 18
    assert [r.response for r in reader(emu).rollouts("778")] == ["x"]
    assert reader(emu).rollouts("nope") == []


def test_shards_split_the_steps(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    parts = [reader(emu).rollouts(JOB, shard=(i, 2)) for i in range(2)]
    assert {r.step for r in parts[0]} == {0, 2} and {r.step for r in parts[1]} == {1}
    assert sum(map(len, parts)) == 18


def test_pages_and_step_counts(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    paged = reader(emu, page_rows=4)
    assert len(paged.rollouts(JOB)) == 18  # five pages through getQueryResults
    assert paged.steps(JOB) == [(0, 6), (1, 6), (2, 6)]


def test_the_request_is_bigquerys_query_request(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    r = reader(emu)
    validate_in("bigquery.v2", "QueryRequest", r.request_body("SELECT 1 WHERE ? = ?", "a", 3))
    assert r.base == f"{emu}/bigquery/v2/projects/tunifolk-test/queries"
    assert LedgerReader("p", "d", client=VertexClient(endpoint=None)).base.startswith(names.BIGQUERY_HOST)


def test_legacy_sql_and_bad_sql_are_refused_as_bigquery_does(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    url = f"{emu}/bigquery/v2/projects/p/queries"
    resp = requests.post(url, json={"query": "SELECT 1"}, timeout=10)  # useLegacySql defaults to true
    assert resp.status_code == 400 and resp.json()["error"]["errors"][0]["reason"] == "invalidQuery"
    with pytest.raises(TunifolkError):
        list(reader(emu).rows("SELECT nothing_here FROM run_googleapis_com_stdout"))
    resp = requests.get(url + "/job_unknown", timeout=10)
    assert resp.status_code == 404


def test_the_readers_json_round_trips_the_record(world: tuple[str, list[dict]]) -> None:
    emu, _ = world
    r = reader(emu).rollouts(JOB, step=0)[0]
    assert set(r.as_json()) == set(ledger.FIELDS)
