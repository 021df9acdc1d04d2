"""The trip wires on the emulator's scenarios, end to end: the real scorer fills the ledger from its
stdout, the emulator runs the dev stack's job, and the CLI reads the ledger through BigQuery's API.

`--scenario hacking` must be caught in the first quarter of the run (and `watch --cancel-on hacking`
cancels it); an honest run fires no trip wire.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tunifolk.cli import local
from tunifolk.cli.commands import demo
from tunifolk.cli.main import main
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

pytestmark = pytest.mark.slow

TOTAL_STEPS = 156  # the dev stack's run (tunifolk estimate)


@pytest.fixture
def run_scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    opened: list = []

    def start(scenario: str) -> tuple[list[str], str]:
        gcs, ledger_dir = tmp_path / "gcs", tmp_path / "ledger"
        train, val = demo.stage_dataset(gcs, "dev")
        emu = local.emulator("--step-seconds", "0.02", "--gcs-dir", str(gcs), "--scenario", scenario,
                             quiet=True, env={DIRS_ENV: str(ledger_dir)})  # fmt: skip
        scorer = local.scorer(quiet=True, stdout=ledger_dir / "scorer.stdout")
        vertex, scorer_uri = emu.__enter__(), scorer.__enter__()
        opened.extend([scorer, emu])
        monkeypatch.setenv(ENDPOINT_ENV, vertex)
        where = ["--stack", "dev", "--project", demo.PROJECT]
        deployed = ["--scorer-uri", scorer_uri, "--train-uri", train, "--validation-uri", val]
        assert main(["launch", *where, *deployed]) == 0
        with VertexClient(endpoint=vertex) as client:
            (job,) = client.list_tuning_jobs(f"projects/{demo.PROJECT}/locations/us-central1")
        return where, job["name"]

    yield start
    for ctx in opened:
        ctx.__exit__(None, None, None)


def test_hacking_is_caught_in_the_first_quarter_and_cancelled(run_scenario, capsys) -> None:  # type: ignore[no-untyped-def]
    where, job = run_scenario("hacking")
    code = main(["watch", *where, "--job", job, "--interval", "0.5", "--cancel-on", "hacking"])
    out = capsys.readouterr().out
    assert code == 1 and f"cancelled {job}" in out
    caught = int(re.search(r"caught at step (\d+)", out).group(1))  # type: ignore[union-attr]
    assert caught <= TOTAL_STEPS // 4, out
    with VertexClient() as client:
        assert client.get_tuning_job(job)["state"] in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")


def test_an_honest_run_fires_no_trip_wire(run_scenario, capsys) -> None:  # type: ignore[no-untyped-def]
    where, job = run_scenario("honest")
    assert main(["watch", *where, "--job", job, "--interval", "0.5", "--cancel-on", "hacking"]) == 0
    capsys.readouterr()
    main(["status", *where, "--job", job, "--json"])
    import json

    report = json.loads(capsys.readouterr().out)
    wires = {
        v["rule"]: v["level"]
        for v in report["verdicts"]
        if v["rule"].startswith("tripwire") or v["rule"] == "hacking"
    }
    assert wires["hacking"] == "ok" and len(wires) >= 7 and set(wires.values()) == {"ok"}, wires
