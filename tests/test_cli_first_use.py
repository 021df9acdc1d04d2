"""What a first-time user of the CLI runs into (issue 24): the live step never passes the total, a
second `launch` of a finished spec says so instead of silently adopting it, `watch --timeout` has its
own exit code, `estimate` applies the checks' limits.

Commands run through `tunifolk.cli.main` in-process against a real emulator process and the real
scorer, as in tests/test_cli.py.
"""

from __future__ import annotations

import json
import subprocess

import pytest

import servers
from jobs import deployed
from tunifolk import operations as ops
from tunifolk.cli import main
from tunifolk.errors import STILL_RUNNING
from tunifolk.job.limits import MAX_TOTAL_STEPS
from tunifolk.paths import ROOT
from tunifolk.vertex import ENDPOINT_ENV

WHERE = ["--stack", "dev", "--project", "tunifolk-first-use"]
#: 64 lines at the dev stack's batch 32 × 6 epochs: 12 steps.
DATASET_LINES = 64


def launch(scorer_uri: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    """`tunifolk launch`: (the job's name, everything it printed)."""
    assert main(["launch", *WHERE, *deployed(scorer_uri), *extra]) == 0
    out = capsys.readouterr().out
    return next(line.split()[1] for line in out.splitlines() if line.startswith("job ")), out


def test_the_live_step_stops_at_the_total() -> None:
    """A job still RUNNING after its last logged step (it is writing its model) was `step 157/156`."""
    job = {"name": "j", "state": "JOB_STATE_RUNNING", "tuningJobMetadata": {"completedStepCount": "156"}}
    assert ops.live_step(job, None, 156) == 156
    assert ops.progress_line(job, None, 156).startswith("j: step 156/156,")
    job["tuningJobMetadata"]["completedStepCount"] = "155"
    assert ops.live_step(job, None, 156) == 156 and ops.live_step(job, None, None) == 156


def test_a_second_launch_adopts_a_live_run_and_reports_a_finished_one(gcs, scorer_uri, monkeypatch, capsys):
    with servers.emulator("--step-seconds", "0.3", "--gcs-dir", str(gcs)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job, out = launch(scorer_uri, capsys)
        assert "started a new run" in out
        again, out = launch(scorer_uri, capsys)
        assert again == job and "adopted the live run with the same spec" in out
        assert main(["watch", *WHERE, "--job", job, "--interval", "0.1"]) == 0
        capsys.readouterr()

        done, out = launch(scorer_uri, capsys)
        assert done == job and "not started:" in out and "launch --new" in out
        assert "endpoint projects/" in out

        fresh, out = launch(scorer_uri, capsys, "--new")
        assert fresh != job and "started a new run" in out
        assert "pulumi config set tunifolk:description 'fresh run " in out
        assert main(["cancel", *WHERE, "--job", fresh]) == 0


def test_watch_timeout_on_a_live_job_exits_3(gcs, scorer_uri, monkeypatch, capsys) -> None:
    with servers.emulator("--step-seconds", "5", "--gcs-dir", str(gcs)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        job, _ = launch(scorer_uri, capsys)
        code = main(["watch", *WHERE, "--job", job, "--interval", "0.1", "--timeout", "0.2"])
        out = capsys.readouterr().out
        assert code == STILL_RUNNING == 3
        assert "stopped watching after 0.2s" in out and "(exit 3)" in out
        main(["cancel", *WHERE, "--job", job])


def test_estimate_applies_the_step_limit_of_check(capsys) -> None:
    """5,000 examples × 6 epochs at batch 32 is 936 steps: check refuses it, the service would stop at
    500, so estimate prices 500, names the refusal and exits 1."""
    assert main(["estimate", *WHERE, "--examples", "5000", "--epochs", "6"]) == 1
    out = capsys.readouterr().out
    assert f"{MAX_TOTAL_STEPS} (the service stops at {MAX_TOTAL_STEPS}; 936 asked)" in out
    assert "check would refuse: hyper_parameters.epoch_count: the run would take 936 steps" in out
    assert main(["estimate", *WHERE, "--examples", "5000", "--epochs", "6", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["total_steps"] == MAX_TOTAL_STEPS and data["asked_steps"] == 936
    assert len(data["check_problems"]) == 1
    assert main(["estimate", *WHERE, "--json"]) == 0  # the seed's run passes: no deployed value needed
    data = json.loads(capsys.readouterr().out)
    assert data["total_steps"] == data["asked_steps"] == 156 and data["check_problems"] == []


def test_a_local_stack_file_that_stack_rm_deleted_comes_back_from_git(tmp_path, capsys) -> None:
    """`pulumi stack rm local` without --preserve-config deletes Pulumi.local.yaml: `local env` and
    `local start` restore it from git's HEAD (here a repository of its own, with real git)."""
    from tunifolk.cli.commands.local import LOCAL_STACK_FILE, LocalError, restore_stack_file

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True
        )

    repo = tmp_path / "repo"
    repo.mkdir()
    committed = (ROOT / LOCAL_STACK_FILE).read_bytes()
    (repo / LOCAL_STACK_FILE).write_bytes(committed)
    git("init", "-q")
    git("add", LOCAL_STACK_FILE)
    git("commit", "-q", "-m", "local stack")
    (repo / LOCAL_STACK_FILE).unlink()
    restore_stack_file(repo)
    assert (repo / LOCAL_STACK_FILE).read_bytes() == committed
    assert "restored Pulumi.local.yaml from git" in capsys.readouterr().err
    restore_stack_file(repo)  # present: left alone, nothing said
    assert capsys.readouterr().err == ""

    elsewhere = tmp_path / "no-git-here"
    elsewhere.mkdir()
    with pytest.raises(LocalError, match="--preserve-config") as refused:
        restore_stack_file(elsewhere)
    assert refused.value.exit_code == 2
