"""The operator CLI against the emulator and the real scorer: output and exit code of each command.

Commands run through `tunifolk.cli.main` in-process (the same entry as `python -m tunifolk`), with
`TUNIFOLK_VERTEX_ENDPOINT` pointing at a real emulator process. The dataset is a small malzuma set
in the emulator's GCS directory; stack values come from `Pulumi.dev.yaml` plus flags.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import requests

import servers
from jobs import deployed, write_dataset
from tunifolk.cli import main
from tunifolk.job.names import local_project_number
from tunifolk.vertex import ENDPOINT_ENV

PROJECT = "tunifolk-cli"
LOCATION = "us-central1"
WHERE = ["--stack", "dev", "--project", PROJECT]
#: The `gcs` fixture's dataset: at the dev stack's batch 32 × 6 epochs, 30 steps, checkpoint at 26,
#: evals at 13 and 26.
DATASET_LINES = 160


def launch(scorer_uri: str, capsys) -> str:
    assert main(["launch", *WHERE, *deployed(scorer_uri)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("job "))
    return line.split()[1]


def emulator_with(gcs: Path, *extra: str):
    return servers.emulator("--step-seconds", "0.01", "--gcs-dir", str(gcs), *extra)


def test_validate_prints_a_table_per_reward(gcs, scorer_uri, monkeypatch, capsys) -> None:
    with emulator_with(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        assert main(["validate", *WHERE, *deployed(scorer_uri)]) == 0
    out = capsys.readouterr().out
    assert "structure" in out and "poetic_quality" in out and "reward validated" in out
    assert '"reason":"malzuma' in out.replace("\n", "").replace(" ", "").replace("│", "")


def test_validate_fails_on_a_broken_reward(gcs, monkeypatch, capsys) -> None:
    with emulator_with(gcs, "--backoff-scale", "0.001") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        dead = f"http://127.0.0.1:{servers.free_port()}"  # nothing listens there
        assert main(["validate", *WHERE, *deployed(dead)]) == 1
        assert main(["launch", *WHERE, *deployed(dead)]) == 1
        jobs = requests.get(f"{emu}/emulator/jobs", timeout=10).json()["jobs"]
    out = capsys.readouterr().out
    assert "problem" in out and "not launched" in out and jobs == []


def test_launch_list_watch_status_sample_cancel(gcs, scorer_uri, monkeypatch, capsys, tmp_path) -> None:
    with emulator_with(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = launch(scorer_uri, capsys)
        assert job.startswith(f"projects/{local_project_number(PROJECT)}/locations/{LOCATION}/tuningJobs/")
        assert launch(scorer_uri, capsys) == job  # the same spec is adopted, not duplicated

        assert main(["list", *WHERE]) == 0
        assert job.rsplit("/", 1)[-1] in capsys.readouterr().out

        job_id = job.rsplit("/", 1)[-1]
        assert main(["watch", *WHERE, "--job", job_id, "--interval", "0.05"]) == 0
        assert "ended JOB_STATE_SUCCEEDED" in capsys.readouterr().out

        plot, md = tmp_path / "curves.png", tmp_path / "report.md"
        code = main(["status", *WHERE, "--job", job, "--plot", str(plot), "--markdown", str(md)])
        out = capsys.readouterr().out
        assert code == 0
        assert "30/30" in out and "JOB_STATE_SUCCEEDED" in out and "★ best" in out
        assert "/train_mean_reward" in out and "rpc_errors" in out
        assert plot.stat().st_size > 10_000 and md.read_text().startswith(f"# {job}")

        assert main(["status", *WHERE, "--job", job, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["state"] == "JOB_STATE_SUCCEEDED" and report["total_steps"] == 30
        assert report["completed_steps"] == 30 and len(report["checkpoints"]) >= 1
        assert (
            report["http_calls"] == 8 and not report["unhealthy"]
        )  # job, context, runs, series, 2 batchReads, the rollout ledger's query and, on its 404,
        # datasets.get (a missing dataset and a table not made yet have different fixes)

        endpoint = report["endpoint"]
        assert main(["sample", "--endpoint", endpoint, "--form", "malzuma", "--n", "2"]) == 0
        out = capsys.readouterr().out
        assert out.count("structure reward") == 2 and "poem 2/2" in out

        assert main(["cancel", *WHERE, "--job", job]) == 1  # a finished job cannot be cancelled
        assert "FAILED_PRECONDITION" in capsys.readouterr().err


def test_a_failing_job_makes_watch_and_status_exit_1(gcs, scorer_uri, monkeypatch, capsys) -> None:
    with emulator_with(gcs, "--fail-at-step", "3") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = launch(scorer_uri, capsys)
        assert main(["watch", *WHERE, "--job", job, "--interval", "0.05"]) == 1
        assert "JOB_STATE_FAILED" in capsys.readouterr().out
        assert main(["status", *WHERE, "--job", job]) == 1
        assert "error" in capsys.readouterr().out


def test_failing_reward_calls_fire_the_rpc_error_verdict(gcs, scorer_uri, monkeypatch, capsys) -> None:
    with emulator_with(
        gcs, "--reward-fail-rate", "0.5", "--fault-seed", "3", "--backoff-scale", "0.0001"
    ) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = launch(scorer_uri, capsys)
        main(["watch", *WHERE, "--job", job, "--interval", "0.05"])
        capsys.readouterr()
        main(["status", *WHERE, "--job", job, "--json"])
    verdicts = {v["rule"]: v for v in json.loads(capsys.readouterr().out)["verdicts"]}
    assert verdicts["rpc_errors"]["level"] in ("warn", "fail")
    assert verdicts["rpc_errors"]["figures"]["structure"] > 0.2


def test_the_hacking_scenario_fires_the_divergence_verdict(tmp_path, scorer_uri, monkeypatch, capsys) -> None:
    write_dataset(tmp_path, 320)  # 60 steps at the dev stack's batch and epochs: enough for a trend
    with servers.emulator(
        "--step-seconds", "0.01", "--gcs-dir", str(tmp_path), "--scenario", "hacking"
    ) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = launch(scorer_uri, capsys)
        main(["watch", *WHERE, "--job", job, "--interval", "0.05"])
        capsys.readouterr()
        assert main(["status", *WHERE, "--job", job]) == 1
    out = capsys.readouterr().out
    assert "divergence" in out and "reward-hacking" in out


def test_estimate_for_the_dev_stack(capsys) -> None:
    assert main(["estimate", "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "156" in out and "cost range" in out and "tuned model inference" in out
    assert main(["estimate", "--stack", "dev", "--json", "--epochs", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total_steps"] == 26 and data["samples_per_step"] == 512
    assert data["tuned_inference_per_m"]["input_per_m"] > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["status", "--stack", "dev"], "--job"),
        (["status", "--stack", "dev", "--job", "abc"], "--job 'abc'"),
        (["status", "--stack", "nope", "--job", "1"], "Pulumi.nope.yaml"),
        (["sample", "--endpoint", "projects/p/locations/us/endpoints/1", "--form", "haiku"], "haiku"),
        (["launch", "--stack", "dev"], "--scorer-uri"),
    ],
)
def test_usage_errors_exit_2_naming_the_flag(argv: list[str], message: str, capsys, monkeypatch) -> None:
    monkeypatch.setenv(ENDPOINT_ENV, "http://127.0.0.1:9")
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_python_dash_m_tunifolk_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tunifolk", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    for command in (
        "validate",
        "launch",
        "list",
        "status",
        "watch",
        "cancel",
        "sample",
        "estimate",
        "demo",
        "dataset",
    ):
        assert command in done.stdout


def test_cancel_a_running_job(gcs, scorer_uri, monkeypatch, capsys) -> None:
    with servers.emulator("--step-seconds", "2", "--gcs-dir", str(gcs)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job = launch(scorer_uri, capsys)
        assert main(["cancel", *WHERE, "--job", job.rsplit("/", 1)[-1]]) == 0
        out = capsys.readouterr().out
        assert "cancel requested" in out and ("CANCELLING" in out or "CANCELLED" in out)


@pytest.mark.slow
def test_the_demo_runs_end_to_end_and_leaves_nothing_running(tmp_path) -> None:
    """`tunifolk demo` as `make demo` runs it: a fresh process, its own servers, a report at the end."""
    done = subprocess.run(
        [sys.executable, "-m", "tunifolk", "demo", "--out", str(tmp_path), "--step-seconds", "0.02"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for command in ("validate", "launch", "watch", "status", "sample"):
        assert f"tunifolk {command}" in done.stdout
    assert (tmp_path / "report.md").read_text().count("|") > 20
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    urls = [w for w in done.stdout.split() if w.startswith("http://127.0.0.1:")][:2]
    assert len(urls) == 2
    for url in urls:  # both servers were stopped
        with pytest.raises(requests.ConnectionError):
            requests.get(url.rstrip("·") + "/healthz", timeout=2)


@pytest.mark.parametrize("form", ["malzuma", "gsim", "qasida"])
@pytest.mark.parametrize("language", ["derja", "en"])
def test_the_sample_request_matches_the_discovery_document(form: str, language: str) -> None:
    from discovery import validate
    from tunifolk.cli.commands.sample import request_body
    from tunifolk.cli.main import build_parser

    args = build_parser().parse_args(
        [
            "sample",
            "--endpoint",
            "projects/p/locations/us/endpoints/1",
            "--form",
            form,
            "--language",
            language,
        ]
    )
    body, references = request_body(args)
    validate("GenerateContentRequest", body)
    assert references["form"] == form and references["script"] == "arabic"
