"""The compiled scoring core (``python -m scorer.build_ext``, run by ``make``) is the sources made
faster, nothing else: the same rewards and sub-scores, bit for bit, over every red-team case and a
varied corpus (`[full]`, slow; `[sample]` scores a fixed, seeded sample of them: tests/sweeps.py); and
a source edited after the build is run as edited, never shadowed by its stale extension."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sweeps import SWEEP, sample

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

import scorer  # noqa: E402
import scorer.score  # noqa: E402

COMPILED = scorer.compiled_modules()
needs_compiled = pytest.mark.skipif(
    not COMPILED, reason="the scoring core is not compiled here (python -m scorer.build_ext)"
)


SAMPLE_CASES, SAMPLE_POEMS = 100, 100
"""The sample: red-team cases drawn with the seed, and the corpus's first poems (its seeded order
cycles through every form, both scripts, honest and hacked, and every stage of training)."""


def results(full: bool) -> list[list]:
    """Every red-team case and 600 policy poems (every form, both scripts, honest and hacked), or
    the sample of them, scored: the reward and each sub-score as their exact decimal repr, and the
    reason."""
    from redteam import all_cases
    from scorer.score import score
    from tunifolk.emulator.policy import corpus

    red = all_cases()
    cases: list[tuple[object, dict[str, str]]] = [
        (red[i].text, red[i].refs) for i in sample(len(red), SAMPLE_CASES, full=full)
    ]
    cases += corpus(600 if full else SAMPLE_POEMS)
    out = []
    for response, refs in cases:
        s = score(response, refs)
        out.append([repr(s.reward), sorted((k, repr(v)) for k, v in s.subscores.items()), s.reason])
    return out


def _run_from_source(code: str, cwd: Path = ROOT) -> str:
    env = {**os.environ, scorer.PURE_ENV: "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


@needs_compiled
@SWEEP
def test_the_compiled_core_scores_bit_for_bit_like_its_sources(full: bool) -> None:
    assert set(COMPILED) == set(scorer.COMPILED), f"only {COMPILED} compiled"
    compiled = json.loads(json.dumps(results(full)))  # the same shape as what comes back
    code = (
        f"import sys, json; sys.path[:0] = [{str(HERE)!r}, {str(ROOT)!r}]\n"
        "import scorer, test_scorer_compiled as t\n"
        f"r = t.results({full!r})\n"
        "assert scorer.compiled_modules() == [], scorer.compiled_modules()\n"
        "print(json.dumps(r))\n"
    )
    from_source = json.loads(_run_from_source(code))
    assert len(compiled) == len(from_source)
    assert len(compiled) > 800 if full else len(compiled) == SAMPLE_CASES + SAMPLE_POEMS
    diffs = [(i, a, b) for i, (a, b) in enumerate(zip(compiled, from_source, strict=True)) if a != b]
    assert not diffs, f"{len(diffs)} cases differ, first: {diffs[0]}"


@needs_compiled
def test_an_edited_source_is_run_instead_of_its_stale_extension(tmp_path: Path) -> None:
    """A copy of the package with its extensions: untouched, they are used; after an edit of
    score.py, that one module comes from its source (and says so on stderr), the others stay
    compiled."""
    shutil.copytree(ROOT / "scorer", tmp_path / "scorer")
    probe = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "import scorer, scorer.score, scorer.text\n"
        "assert scorer.__file__.startswith(sys.path[0]), scorer.__file__\n"
        "print(sorted(scorer.compiled_modules()), getattr(scorer.score, 'EDITED', None))\n"
    )

    def run() -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != scorer.PURE_ENV}
        return subprocess.run(
            [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
        )

    before = run()
    assert before.stdout.split() == [*str(sorted(scorer.COMPILED)).split(), "None"]
    assert before.stderr == ""
    score_py = tmp_path / "scorer" / "score.py"
    score_py.write_text(score_py.read_text(encoding="utf-8") + "\nEDITED = 1\n", encoding="utf-8")
    after = run()
    assert after.stdout.split() == [*str(sorted(set(scorer.COMPILED) - {"score"})).split(), "1"]
    assert "score changed since compiled; running from source" in after.stderr


def test_pure_mode_runs_every_module_from_source() -> None:
    out = _run_from_source("import scorer, scorer.score, scorer.app; print(scorer.compiled_modules())")
    assert out.strip() == "[]"


@needs_compiled
def test_without_a_compiler_the_build_says_why_and_leaves_the_sources_in_charge(tmp_path: Path) -> None:
    """A copy of the package with its extensions, built again with a C compiler that fails (the
    generated C is copied along, so only the compile step runs): one line, exit 0 (1 with
    --require), no extension or record left, and the package imports its sources without a word."""
    shutil.copytree(ROOT / "scorer", tmp_path / "scorer")
    shutil.copytree(ROOT / "build" / "cython", tmp_path / "build" / "cython")
    env = {k: v for k, v in os.environ.items() if k != scorer.PURE_ENV}
    env["CC"] = "false"

    def build(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [
            sys.executable,
            "-c",
            "import sys; from scorer.build_ext import main; sys.exit(main(sys.argv[1:]))",
        ]
        return subprocess.run([*cmd, *args], cwd=tmp_path, env=env, capture_output=True, text=True)

    required = build("--require")
    assert required.returncode == 1
    done = build()
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("scorer: not compiled (")
    assert not list((tmp_path / "scorer").glob("*.so"))
    assert not (tmp_path / "scorer" / scorer.MANIFEST.name).exists()
    probe = "import scorer, scorer.score; print(scorer.compiled_modules(), scorer.score.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[]", str(tmp_path / "scorer" / "score.py")] and out.stderr == ""
