"""The CLI follows the Pulumi stack the user selected (issue 24, item 1), with the real engine.

In the local flow a user runs `pulumi stack init local` (which selects it) and then `tunifolk list`:
that must read `Pulumi.local.yaml` (project tunifolk-local), say so, and, before `pulumi up`, name the
true reason no `scorer_uri` can be read rather than claim there is no Pulumi CLI. The CLI reads the
stack through Pulumi's Automation API (tunifolk/cli/context.py); each reason is one line, no
traceback: no such stack, no such output yet, no engine at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import LocalStack
from tunifolk.cli import context
from tunifolk.cli.main import main


def refusal(stderr: str) -> str:
    """The line a refused command ends on: one `tunifolk:` line saying why, and no traceback (a line
    saying which stack was read may come before it)."""
    lines = stderr.splitlines()
    assert lines and lines[-1].startswith("tunifolk: ") and "Traceback" not in stderr, stderr
    return lines[-1]


def test_the_cli_reads_the_selected_stack_and_says_so(stack: LocalStack) -> None:
    before = stack.tunifolk("estimate")  # no stack selected yet: the default, dev, said in the title
    assert "estimate for stack dev" in before.stdout and "tunifolk: stack" not in before.stderr
    missing = stack.tunifolk("validate", "--stack", "local", check=False)  # no such stack yet
    assert missing.code == 2, missing.output
    assert "no stack named 'local' found" in refusal(missing.stderr), missing.stderr

    stack.init()  # `pulumi stack init local` selects it, as for a user
    listed = stack.tunifolk("list")
    assert "tunifolk: stack local (the one `pulumi stack select` chose" in listed.stderr
    assert "tuning jobs in tunifolk-local/us-central1" in listed.stdout

    refused = stack.tunifolk("validate", check=False)
    assert refused.code == 2, refused.output
    said = refusal(refused.stderr)
    assert "--scorer-uri is needed: no `pulumi stack output scorer_uri` to read" in said
    assert "stack local has no output scorer_uri yet" in said and "no Pulumi CLI" not in said

    chosen = stack.tunifolk("estimate", "--stack", "dev")  # a flag still wins, silently
    assert "estimate for stack dev" in chosen.stdout and "tunifolk: stack" not in chosen.stderr


def test_without_an_engine_a_read_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No `make engine` build and no `pulumi` on PATH: the default stack, silently, and a value only a
    deployed stack knows is refused on one line naming both places the CLI looked."""
    monkeypatch.setattr(context, "ENGINE_ROOT", tmp_path / "no-build" / "engine")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert main(["validate"]) == 2
    err = capsys.readouterr().err
    said = refusal(err)
    assert "tunifolk: stack" not in err, err
    assert "--scorer-uri is needed" in said and "--stack" not in said, said
    assert "no Pulumi CLI: neither build/engine/bin/pulumi (make engine) nor a pulumi on PATH" in said
