"""`tunifolk eval` end to end: the emulator runs the dev stack's job (hacking scenario: it learns
honestly for a sixth of the run, then games the structure reward), the real scorer fills the
ledger, and eval samples every checkpoint and the base model on held-out prompts, through the
emulator's endpoints and its judge, as it would on Google.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tunifolk.cli import local
from tunifolk.cli.commands import demo
from tunifolk.cli.main import main
from tunifolk.emulator.policy import HACK_ONSET
from tunifolk.ledger.bigquery import LedgerReader
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("eval_runs")]  # one worker: one tuning job

WHERE = ["--stack", "dev", "--project", demo.PROJECT]
SMALL = ["--limit", "6", "--samples", "2"]


def _run(scenario: str, tmp: Path) -> Iterator[tuple[str, str]]:
    gcs, ledger_dir = tmp / "gcs", tmp / "ledger"
    train, val = demo.stage_dataset(gcs, "dev")
    env = {DIRS_ENV: str(ledger_dir)}
    with (
        local.emulator(
            "--step-seconds", "0.02", "--gcs-dir", str(gcs), "--scenario", scenario, quiet=True, env=env
        ) as vertex,
        local.scorer(quiet=True, stdout=ledger_dir / "scorer.stdout") as scorer_uri,
    ):
        saved = {k: os.environ.get(k) for k in (ENDPOINT_ENV, DIRS_ENV)}
        os.environ.update({ENDPOINT_ENV: vertex, DIRS_ENV: str(ledger_dir)})
        try:
            deployed = ["--scorer-uri", scorer_uri, "--train-uri", train, "--validation-uri", val]
            assert main(["launch", *WHERE, *deployed]) == 0
            with VertexClient(endpoint=vertex) as client:
                (job,) = client.list_tuning_jobs(f"projects/{demo.PROJECT}/locations/us-central1")
                deadline = time.monotonic() + 300
                while client.get_tuning_job(job["name"])["state"] != "JOB_STATE_SUCCEEDED":
                    assert time.monotonic() < deadline, "the emulated run did not finish"
                    time.sleep(0.5)
            yield vertex, job["name"]
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


@pytest.fixture(scope="module")
def hacking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    yield from _run("hacking", tmp_path_factory.mktemp("hacking"))


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any] | None, str]:
    code = main(["eval", *WHERE, *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in args and out.strip().startswith("{") else None), err


def test_eval_names_a_checkpoint_from_before_the_hack(hacking, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    _vertex, job = hacking
    code, doc, err = _eval(capsys, "--job", job, *SMALL, "--out", str(tmp_path), "--json")
    assert code == 0, err
    assert doc is not None
    rows = {r["label"]: r for r in doc["checkpoints"]}
    total = max(r["step"] for r in doc["checkpoints"])
    assert doc["best"]["step"] <= HACK_ONSET * total, doc["best"]
    assert rows["base"]["checkpoint_id"] is None and rows["base"]["step"] == 0
    later = [r for r in doc["checkpoints"] if r["step"] > HACK_ONSET * total]
    assert later and all(r["hacking"] and "against_judge" in r["tripwires"] for r in later)
    for r in doc["checkpoints"]:
        assert r["samples"] == 12
        for figure in ("combined", "structure", "judge", "length"):
            assert r[figure]["low"] <= r[figure]["mean"] <= r[figure]["high"], (r["label"], figure)
    # the hack games the structure reward while the judge's score of the poems falls
    assert later[-1]["structure"]["mean"] > rows["base"]["structure"]["mean"] + 0.5
    assert later[-1]["judge"]["mean"] < rows["base"]["judge"]["mean"] - 0.5
    assert doc["plan"]["generations"] == 12 * len(doc["checkpoints"])
    assert doc["plan"]["judge_calls"] == 4 * doc["plan"]["generations"]  # the job's samplingCount
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert (
        f"**Best: checkpoint {doc['best']['checkpoint_id']}**" in report and "| HACKING: excluded |" in report
    )
    assert (tmp_path / "checkpoints.png").stat().st_size > 10_000
    assert len((tmp_path / "samples.jsonl").read_text(encoding="utf-8").splitlines()) == 12 * len(rows)


def test_the_samples_go_to_the_ledger_under_their_own_label(hacking, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    vertex, job = hacking
    reader = LedgerReader(demo.PROJECT, "any", client=VertexClient(endpoint=vertex))
    job_id = job.rsplit("/", 1)[-1]
    training_before = reader.steps(job_id)
    code, doc, err = _eval(
        capsys,
        "--job",
        job,
        "--checkpoints",
        "1",
        "--no-base",
        "--limit",
        "3",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert code == 0, err
    assert reader.steps(job_id) == training_before  # the training rollouts' view is unchanged
    eval_steps = dict(reader.steps(job_id, "eval"))
    assert eval_steps.get(doc["best"]["step"], 0) >= 6
    assert (
        main(["rollouts", *WHERE, "--job", job, "--eval", "--step", str(doc["best"]["step"]), "--json"]) == 0
    )
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert len(lines) >= 6 and all(x["step"] == doc["best"]["step"] for x in lines)


def test_a_failing_checkpoint_is_one_line_and_the_rest_go_on(hacking, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    vertex, job = hacking
    with VertexClient(endpoint=vertex) as client:
        found = client.get_tuning_job(job)["tunedModel"]["checkpoints"]
        broken = next(c for c in found if c["checkpointId"] == "3")
        deployed = client.get_endpoint(broken["endpoint"])["deployedModels"][0]["id"]
        client.wait_operation(client.undeploy_model(broken["endpoint"], deployed))
    code, doc, err = _eval(
        capsys, "--job", job, "--limit", "2", "--samples", "1", "--out", str(tmp_path), "--json"
    )
    assert code == 0, err
    rows = {r["label"]: r for r in doc["checkpoints"]}
    assert rows["checkpoint 3"]["failed"] and "\n" not in rows["checkpoint 3"]["failed"]
    assert "checkpoint 3 (step" in err and "failed" in err
    assert all(r["samples"] == 2 for label, r in rows.items() if label != "checkpoint 3")


def test_eval_refuses_above_max_cost_before_any_call(hacking, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    vertex, job = hacking
    before = requests.get(f"{vertex}/emulator/requests", timeout=10).json()
    code, _, err = _eval(capsys, "--job", job, "--max-cost", "0.01", "--out", str(tmp_path))
    after = requests.get(f"{vertex}/emulator/requests", timeout=10).json()
    assert code == 1
    lines = [x for x in err.splitlines() if "max-cost" in x]
    assert len(lines) == 1 and "pass --max-cost" in lines[0]
    assert not (tmp_path / "samples.jsonl").exists()
    assert _generations(after) == _generations(before)


def _generations(counts: dict[str, Any]) -> int:
    return sum(v for k, v in (counts.get("counts") or {}).items() if "generateContent" in k)


def test_unknown_checkpoints_are_a_usage_error_listing_the_ids(hacking, capsys) -> None:  # type: ignore[no-untyped-def]
    _, job = hacking
    code, _, err = _eval(capsys, "--job", job, "--checkpoints", "2,9")
    assert code == 2
    assert "has checkpoints 1, 2, 3, 4, 5, 6" in err and len(err.strip().splitlines()) == 1
