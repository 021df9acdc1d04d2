"""Model text is data, never control: `rollouts`, `replay` and the demo's Markdown page show poisoned
records (terminal escapes, OSC 52 clipboard writes, Rich markup, a code fence) as visible text, and one
poisoned sample hides nothing else. The records are the real scorer's, read back through the BigQuery
stand-in behind the emulator."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from scorer.app import handle_request
from servers import emulator
from tunifolk.cli import untrusted
from tunifolk.cli.commands.rollouts import markdown_page
from tunifolk.cli.main import main
from tunifolk.ledger.bigquery import LedgerReader
from tunifolk.standin.bigquery import DIRS_ENV
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

pytestmark = pytest.mark.slow  # an emulator

JOB = "4040"
POISON = (
    "\x1b[2J\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07"  # clear screen, window title, clipboard
    "[/bold][link=https://evil.example]x[/link]"  # Rich markup, unbalanced
    "\n```\n# injected heading\n\u202eevil\x9b31m"  # a fence break-out, a bidi override, C1 CSI
)


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("poisoned")
    lines = []
    for k, text in enumerate(["a plain line", POISON, "another plain line"]):
        req = {
            "example": {"contents": [{"role": "user", "parts": [{"text": "x"}]}],
                        "references": {"form": f"malzuma{POISON if k == 1 else ''}", "script": "arabic"}},
            "response": {"parts": [{"text": text}]},
            "metadata": {"step": 0, "tuning_job_id": JOB},
        }  # fmt: skip
        lines.append(handle_request(json.dumps(req).encode())[2])
    (folder / "scorer.stdout").write_bytes(b"".join(lines))
    with emulator("--step-seconds", "0.02", env={DIRS_ENV: str(folder)}, quiet=True) as url:
        yield url


def no_control(out: str) -> None:
    assert not any(c in out for c in "\x1b\x07\x9b\u202e"), repr(out)


@pytest.mark.parametrize("flag", ["--worst", "--best"])
def test_rollouts_show_a_poisoned_sample_as_text(emu: str, monkeypatch, capsys, flag: str) -> None:
    monkeypatch.setenv(ENDPOINT_ENV, emu)
    code = main(["rollouts", "--job", JOB, "--step", "0", flag, "3", "--project", "p"])
    out = capsys.readouterr().out
    assert code == 0
    no_control(out)
    assert "\\x1b]52;c;" in out and "[/bold]" in out  # shown, escaped, not obeyed
    assert out.count("a plain line") == 1 and out.count("another plain line") == 1  # nothing hidden


def test_json_lines_carry_no_raw_control_and_decode_to_the_record(emu: str, monkeypatch, capsys) -> None:
    monkeypatch.setenv(ENDPOINT_ENV, emu)
    assert main(["rollouts", "--job", JOB, "--step", "0", "--json", "--project", "p"]) == 0
    out = capsys.readouterr().out
    no_control(out)
    assert POISON in [json.loads(line)["response"] for line in out.splitlines()]


def test_the_markdown_page_keeps_a_response_inside_its_fence(emu: str) -> None:
    page = markdown_page(LedgerReader("p", "d", client=VertexClient(endpoint=emu)), JOB)
    no_control(page)
    lines = page.splitlines()
    assert "# injected heading" in lines  # inside a block ...
    assert all(in_code_block(lines, i) for i, line in enumerate(lines) if line == "# injected heading")


def in_code_block(lines: list[str], at: int) -> bool:
    """Whether line `at` is inside a fenced block, by CommonMark's rule: a run of n >= 3 backticks
    opens one, and only a run of at least n closes it."""
    opened = 0
    for line in lines[:at]:
        run = len(line) if line and set(line) == {"`"} else 0
        if not opened and run >= 3:
            opened = run
        elif opened and run >= opened:
            opened = 0
    return opened > 0


def test_visible_escapes_exactly_the_controls() -> None:
    assert untrusted.visible("قصيدة\tline\nnext") == "قصيدة\tline\nnext"  # Arabic, tab, newline stay
    assert untrusted.visible("\x1b[0m\x7f\x9b\u202e") == "\\x1b[0m\\x7f\\x9b\\u202e"
    assert json.loads(untrusted.json_line({"t": "\x9b\x7f\u2066"})) == {"t": "\x9b\x7f\u2066"}
    assert untrusted.code_block("a ```` b")[0] == "`````"
    hidden = "\u200e\u200f\u061c\u200b\u200d\u2060\ufeff\u180e\u2028\u2029"  # marks, zero-width, separators
    assert untrusted.visible(hidden) == "".join(f"\\u{ord(c):04x}" for c in hidden)
