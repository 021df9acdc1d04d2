"""`tunifolk rollouts` and `tunifolk replay` against a ledger served by the emulator's BigQuery stand-in.

The ledger is written by the scorer's own request handler (scorer.app.handle_request: the lines the
service prints); two of its records carry rewards an "older scorer" gave, so replay has moves to find.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer import ledger
from scorer.app import handle_request
from servers import ROOT, emulator
from tunifolk.cli.main import main
from tunifolk.ledger import names
from tunifolk.ledger.replay import ranks, spearman
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import ENDPOINT_ENV

pytestmark = pytest.mark.slow  # an emulator

JOB = "31337"
PROJECT = ["--project", "tunifolk-test"]
STEPS, FORMS, SAMPLES = 4, ("malzuma", "qasida", "mugef"), 4
TAMPERED = (2, "mugef", SAMPLES - 1)
"""(step, form, sample) whose recorded reward is made up: replay must move it and change a winner."""


def text_of(form: str, k: int) -> str:
    lines = (ROOT / "data" / "samples" / f"{form}.txt").read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[: len(lines) - 3 * k])  # fewer lines, lower reward


def write_ledger(path: Path) -> None:
    out = []
    for step in range(STEPS):
        for form in FORMS:
            for k in range(SAMPLES):
                req = {
                    "example": {"contents": [{"role": "user", "parts": [{"text": form}]}],
                                "references": {"form": form, "script": "arabic"}},
                    "response": {"parts": [{"text": text_of(form, k)}]},
                    "metadata": {"step": step, "tuning_job_id": JOB},
                }  # fmt: skip
                line = handle_request(json.dumps(req).encode())[2]
                assert line is not None
                if (step, form, k) == TAMPERED:
                    doc = json.loads(line)
                    assert doc["reward"] < 0.9  # the group's weakest, recorded as its winner
                    doc["reward"] = 1.0
                    line = json.dumps(doc).encode() + b"\n"
                out.append(line)
    path.write_bytes(b"".join(out))


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("ledger")
    write_ledger(folder / "scorer.stdout")
    with emulator("--step-seconds", "0.02", env={DIRS_ENV: str(folder)}, quiet=True) as url:
        yield url


@pytest.fixture
def cli(emu: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> object:
    monkeypatch.setenv(ENDPOINT_ENV, emu)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([*argv, *PROJECT])
        got = capsys.readouterr()
        return code, got.out, got.err

    return run


def test_rollouts_per_step_summary(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("rollouts", "--job", JOB)
    assert code == 0
    assert f"{STEPS * len(FORMS) * SAMPLES} rollouts in {STEPS} steps" in out


def test_rollouts_worst_as_json_are_the_lowest_of_the_step(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("rollouts", "--job", JOB, "--step", "1", "--worst", "3", "--json")
    assert code == 0
    docs = [json.loads(line) for line in out.splitlines()]
    assert len(docs) == 3 and {d["step"] for d in docs} == {1}
    assert set(docs[0]) == set(ledger.FIELDS)
    _, every, _ = cli("rollouts", "--job", JOB, "--step", "1", "--json")
    rewards = sorted(json.loads(line)["reward"] for line in every.splitlines())
    assert [d["reward"] for d in docs] == rewards[:3]


def test_rollouts_last_best_and_form(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("rollouts", "--job", JOB, "--last", "--best", "1", "--form", "qasida")
    assert code == 0
    assert f"step {STEPS - 1}" in out and "best 1" in out and "qasida" in out
    assert text_of("qasida", 0).splitlines()[1][:10] in out  # the text is shown


def test_rollouts_of_an_unknown_job_is_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("rollouts", "--job", "999", "--last")
    assert code == 1 and err.strip().splitlines()[-1].startswith(
        "tunifolk: the rollout ledger holds no records"
    )


def test_replay_finds_the_changed_reward(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("replay", "--job", JOB, "--json", "--shards", "2")
    assert code == 0
    doc = json.loads(out)
    overall = doc["overall"]
    assert overall["rollouts"] == STEPS * len(FORMS) * SAMPLES
    assert overall["groups"] == STEPS * len(FORMS)
    by_step = {s["step"]: s for s in doc["steps"]}
    assert by_step[0]["rho"] == pytest.approx(1.0) and by_step[0]["winners_changed"] == 0
    step, form, k = TAMPERED
    assert by_step[step]["rho"] < 1.0 and by_step[step]["winners_changed"] == 1
    assert overall["moves"][0]["step"] == step and overall["moves"][0]["text"] == text_of(form, k)


def test_replay_is_the_same_on_one_shard_and_a_step_range_limits_it(cli) -> None:  # type: ignore[no-untyped-def]
    two = json.loads(cli("replay", "--job", JOB, "--json", "--shards", "2")[1])
    one = json.loads(cli("replay", "--job", JOB, "--json", "--shards", "1")[1])
    assert one["overall"] == two["overall"] and one["steps"] == two["steps"]
    part = json.loads(cli("replay", "--job", JOB, "--json", "--steps", "1-2")[1])
    assert [s["step"] for s in part["steps"]] == [1, 2]


def test_replay_table(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("replay", "--job", JOB)
    assert code == 0 and "Spearman" in out and "re-scored" in out and "move 1" in out


def test_spearman_and_ranks() -> None:
    assert ranks([3.0, 1.0, 3.0]) == [2.5, 1.0, 2.5]
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1], [2]) is None


def test_the_demos_rollouts_page(emu: str) -> None:
    from tunifolk.cli.commands.rollouts import markdown_page
    from tunifolk.ledger.bigquery import LedgerReader
    from tunifolk.vertex import VertexClient

    reader = LedgerReader("tunifolk-test", names.dataset_name("dev"), client=VertexClient(endpoint=emu))
    page = markdown_page(reader, JOB)
    for step, where in ((0, "first"), (2, "middle"), (STEPS - 1, "last")):
        assert f"## Step {step} ({where})" in page
    assert page.count("### worst") == page.count("### best") == 6
    assert text_of("qasida", 0) in page  # a best sample's text, whole


def test_the_ledger_dataset_is_the_stacks_output_else_the_stacks_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rollouts`, `replay`, `status` and `watch` read the selected stack's `ledger_dataset` output
    (through the Automation API, from a stack the real engine holds in a file backend: the CLI's own
    engine, build/engine/bin's, and a `pulumi` on PATH alike); without an engine (the emulator-only
    flow), the stack's name through the naming rule the stack used; `--dataset` wins over both."""
    import argparse

    from engine import ENGINE_BIN, require_engine, stack_with_outputs
    from tunifolk.cli import context

    require_engine()
    deployed = {"ledger_dataset": "deployed_continued"}
    for name, value in stack_with_outputs(tmp_path, "continued", deployed).items():
        monkeypatch.setenv(name, value)

    def resolved(**kw: str) -> str:
        return context.ledger_dataset(argparse.Namespace(**{"dataset": None, "stack": "continued", **kw}))

    assert resolved() == "deployed_continued"
    assert resolved(dataset="mine") == "mine"
    # A checkout without `make engine`'s build: the `pulumi` on PATH reads the same stack.
    monkeypatch.setattr(context, "ENGINE_ROOT", tmp_path / "no-build" / "engine")
    if (ENGINE_BIN / "pulumi").exists():
        monkeypatch.setenv("PATH", os.pathsep.join([str(ENGINE_BIN), os.environ["PATH"]]))
    assert context.pulumi_command().command == "pulumi"
    assert resolved() == "deployed_continued"
    # No engine at all: the naming rule.
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert resolved() == names.dataset_name("continued") == "tunifolk_ledger_continued"


def test_merge_gives_the_same_bits_whatever_the_shards_and_their_order() -> None:
    """Float sums depend on their order (0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1): the merged report
    must not depend on how many shards read the ledger or in which order they answer."""
    from tunifolk.ledger.replay import ShardResult, merge

    rows = [
        (step, f"d{g}", 0.1 * (i + 1) + 0.01 * g, 0.3 - 0.07 * i)
        for step in (1, 2)
        for g in range(3)
        for i in range(4)
    ]
    moves = [{"step": s, "text": t, "old": o, "new": n} for s, t, o, n in rows[:6]]
    one = merge([ShardResult(scored=rows, moves=moves)])
    for parts in ([rows[::2], rows[1::2]], [rows[5:], rows[:5]], [rows[::-1]]):
        split = [ShardResult(scored=p) for p in parts]
        split[0].moves = moves  # a move comes from the shard that scored it: one shard here
        assert merge(split[::-1]) == one == merge(split)
