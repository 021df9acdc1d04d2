"""The documented offline and local-stack blocks stay true (issue 24): every command they show runs, as
shown, and every flag the README and the docs document for a command is one its `--help` lists.

The offline path's blocks and the CLI table are in docs/cli.md, the local stack's block in
docs/local-stack.md ("Try the whole stack locally"), and the README shows a few of those commands;
they are read from the files themselves, so a changed command is tested as it now reads. Run as
shown, with three liberties that change no command: the two servers meant for other terminals run in
the background on free ports (`make scorer SCORER_PORT=…`, `make emulator EMULATOR_PORT=… ARGS=
--step-seconds=…`, the block's URLs rewritten to those ports), the job id that "ID from launch"
stands for is read from launch's output, and the local stack runs in its own build directories and
PULUMI_HOME (TUNIFOLK_LOCAL_DIR, _STANDIN_DIR, _GCS_DIR), as the engine tests do.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import servers
from tunifolk.cli.main import build_parser
from tunifolk.paths import ROOT
from tunifolk.processes import wait_healthy

README = ROOT / "README.md"
CLI_DOC, LOCAL_DOC = ROOT / "docs" / "cli.md", ROOT / "docs" / "local-stack.md"
OFFLINE, LOCAL, COMMANDS = "The offline path", "Try the whole stack locally", "Commands"
BLOCKS = (
    (OFFLINE, CLI_DOC),
    (LOCAL, LOCAL_DOC),
    ("Two commands", README),
    ("The local stack", README),
    ("A real project", README),
)
"""Every section whose bash blocks are checked against `--help`, and the file that holds it."""
TUNIFOLK = re.compile(r"(?:^|\s)(?:tunifolk|\.venv/bin/python -m tunifolk|python -m tunifolk)\s+(?P<rest>.*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def section(title: str, path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def bash_blocks(title: str, path: Path) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", section(title, path), flags=re.S)


def command_lines(block: str) -> list[str]:
    """The block's commands, without their comments (`#` after two spaces, or a whole-line one)."""
    lines = []
    for line in block.splitlines():
        code = re.split(r"\s{2,}#|^#", line, maxsplit=1)[0].rstrip()
        if code:
            lines.append(code)
    return lines


def cli_options(words: list[str]) -> tuple[list[str], set[str]]:
    """The subcommand path (`dataset check`) of a tunifolk command line, and the flags its parser takes."""
    parser = build_parser()
    path: list[str] = []
    for word in words:
        subs = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        if not subs or word not in subs[0].choices:
            break
        parser, path = subs[0].choices[word], [*path, word]
    flags = {o for a in parser._actions for o in a.option_strings} | {"--debug"}
    return path, flags


# --------------------------------------------------------------------------- flags against --help


def emulator_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tunifolk.emulator", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_flag_the_readme_shows_for_a_tunifolk_command_is_in_its_help() -> None:
    shown = []
    for title, doc in BLOCKS:
        for block in bash_blocks(title, doc):
            shown += [line for line in command_lines(block) if TUNIFOLK.search(line)]
    text = LOCAL_DOC.read_text(encoding="utf-8")
    table = section(COMMANDS, CLI_DOC)
    rows = re.findall(r"^\| `tunifolk ([^`]*)` \| (.*) \|$", table, flags=re.M)
    assert len(shown) >= 5 and len(rows) >= 10, "the documented blocks or the CLI table moved"
    checked = 0
    for line in shown:
        rest = TUNIFOLK.search(line)["rest"]
        path, flags = cli_options(re.findall(r"[^\s\"'()$]+", rest))
        assert path, line
        for flag in FLAG.findall(rest):
            assert flag in flags, (
                f"docs: `{line}` shows {flag}, which `tunifolk {' '.join(path)} --help` lacks"
            )
            checked += 1
    emulator_flags = set(FLAG.findall(emulator_help()))
    for command, what in rows:
        first, *others = command.split("\\|")  # `dataset build\|check`: dataset build, dataset check
        head = [w for w in first.split() if not w.startswith("-")]
        variants = [head, *([*head[:-1], other.strip()] for other in others)]
        flags = set().union(*(cli_options(words)[1] for words in variants))
        if head[0] == "local":  # --emulator-arg passes the emulator's own options
            flags |= emulator_flags
        documented = set(FLAG.findall(command + " " + what))
        missing = documented - flags
        assert not missing, f"docs/cli.md's row for `tunifolk {command}` documents {missing}, not in --help"
        checked += len(documented)
    # The rows that list a command's options list them all (the shared --stack/--project/--location/--job
    # of tunifolk/cli/context.py are documented once, below the table).
    shared = {"-h", "--help", "--debug", "--project", "--location", "--job"}
    for command in ("sample", "demo", "status"):
        what = next(w for c, w in rows if c.split()[0] == command)
        path, flags = cli_options([command])
        row = next(c for c, _ in rows if c.split()[0] == command)
        stack_shared = {"--stack"} if command in ("watch", "status") else set()
        undocumented = flags - shared - stack_shared - set(FLAG.findall(row + " " + what))
        assert not undocumented, f"docs/cli.md's row for `tunifolk {command}` misses {sorted(undocumented)}"
    assert checked > 20 and "--preserve-config" in text


def test_every_pulumi_and_make_command_of_the_local_block_exists() -> None:
    """`pulumi X --flag` takes the flag (the built engine's --help), and every make target exists."""
    pulumi = ROOT / "build" / "engine" / "bin" / "pulumi"
    if not os.access(pulumi, os.X_OK):
        pytest.skip("no built engine (make engine)")
    lines = [line for title, doc in BLOCKS for b in bash_blocks(title, doc) for line in command_lines(b)]
    for line in lines:
        words = shlex.split(line)
        if words[0] == "make":
            targets = [w for w in words[1:] if "=" not in w]
            done = subprocess.run(["make", "-n", *targets], cwd=ROOT, capture_output=True, text=True)
            assert done.returncode == 0, f"{line}: {done.stderr}"
        if words[0] == "pulumi":
            sub = [w for w in words[1:] if not w.startswith("-")][:2]
            help_text = ""
            while sub and not help_text:
                done = subprocess.run([str(pulumi), *sub, "--help"], capture_output=True, text=True)
                help_text = done.stdout if done.returncode == 0 and "Usage:" in done.stdout else ""
                sub = sub if help_text else sub[:-1]
            for flag in FLAG.findall(line):
                assert flag in help_text, f"docs: `{line}`: `pulumi {' '.join(sub)} --help` has no {flag}"


# --------------------------------------------------------------------------- the blocks, run


def run_script(script: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}\n{script}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    return done


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_offline_blocks_run_as_shown(tmp_path: Path) -> None:
    setup, terminal3 = bash_blocks(OFFLINE, CLI_DOC)
    scorer_port, emulator_port = servers.free_port(), servers.free_port()
    ports = {"127.0.0.1:8080": f"127.0.0.1:{scorer_port}", "127.0.0.1:8090": f"127.0.0.1:{emulator_port}"}
    env = {k: v for k, v in os.environ.items() if k not in ("TUNIFOLK_VERTEX_ENDPOINT", "VIRTUAL_ENV")}
    background = {
        "make scorer": ["make", "scorer", f"SCORER_PORT={scorer_port}"],
        "make emulator": ["make", "emulator", f"EMULATOR_PORT={emulator_port}", "ARGS=--step-seconds=0.02"],
    }
    foreground = [line for line in command_lines(setup) if line not in background]
    assert [line for line in command_lines(setup) if line in background] == list(background), setup
    run_script("\n".join(foreground), env, 900)
    started = []
    try:
        for command in background.values():
            started.append(
                subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=env,
                    start_new_session=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port, proc in zip((scorer_port, emulator_port), started, strict=True):
            wait_healthy(f"http://127.0.0.1:{port}", proc=proc, timeout=180)
        script = terminal3
        for old, new in ports.items():
            script = script.replace(old, new)
        lines = command_lines(script)
        watch = next(i for i, line in enumerate(lines) if "--job ID" in line)
        launch = next(i for i, line in enumerate(lines) if " launch " in f" {line} ")
        lines[launch] += " | tee launch.out"
        lines.insert(watch, "ID=$(awk '$1 == \"job\" {print $2}' launch.out)")
        lines[watch + 1] = lines[watch + 1].replace("--job ID", '--job "$ID"')
        work = tmp_path / "terminal3"
        work.mkdir()
        done = run_script(
            f"cd {ROOT}\n" + "\n".join(lines).replace("launch.out", str(work / "launch.out")), env, 600
        )
    finally:
        for proc in started:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    assert "reward validated" in done.stdout and "started a new run" in done.stdout
    assert "ended JOB_STATE_SUCCEEDED" in done.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_local_stack_block_runs_as_shown(tmp_path: Path) -> None:
    from engine import require_engine

    require_engine()
    (block,) = bash_blocks(LOCAL, LOCAL_DOC)
    env = {k: v for k, v in os.environ.items() if k not in ("TUNIFOLK_VERTEX_ENDPOINT", "VIRTUAL_ENV")}
    for name in ("LOCAL", "STANDIN", "GCS"):
        env[f"TUNIFOLK_{name}_DIR"] = str(tmp_path / name.lower())
    env["PULUMI_HOME"] = str(tmp_path / "pulumi-home")
    stack_file = (ROOT / "Pulumi.local.yaml").read_bytes()
    lines = command_lines(block)
    stop = lines[-1]
    assert "local stop" in stop, block
    script = "\n".join(lines[:-1])
    try:
        done = run_script(textwrap.dedent(script), env, 900)
    finally:
        subprocess.run(["bash", "-c", stop], cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert (ROOT / "Pulumi.local.yaml").read_bytes() == stack_file, (
        "the block changed the committed stack file"
    )
    out = done.stdout + done.stderr
    assert "JOB_STATE_SUCCEEDED" in out and "projects/" in out
    assert "Resources:" in out and "deleted" in out
