"""The scorer's Cloud Run image installs exactly ``scorer/requirements.lock`` (the closure of the pins
of ``scorer/requirements.txt``, hashed; ``make lock``): every module the image can run must import
nothing else (the stdlib, the ``scorer`` package, what that lock installs). Checked here on the
sources, on ``scorer/Dockerfile`` and on the build context ``tunifolk/image.py`` hands podman,
without building; tests/test_scorer_container.py builds and runs the image."""

from __future__ import annotations

import ast
import re
import shlex
import sys
from pathlib import Path

from tunifolk import image

ROOT = Path(__file__).resolve().parent.parent
SCORER = ROOT / "scorer"
IMPORT_NAMES = {
    "uvicorn": "uvicorn",
    "uvloop": "uvloop",
    "httptools": "httptools",
    "orjson": "orjson",
    "click": "click",
    "h11": "h11",
}
"""Distribution name in the scorer's pins and locks → the module it provides."""
LOCKS = {"serve": "requirements.lock"}
"""What each stage of scorer/Dockerfile installs (make lock writes them): one stage, one lock."""


def _pins(file: str = "requirements.txt") -> set[str]:
    lines = (SCORER / file).read_text().splitlines()
    return {
        re.split(r"[=<>~!\[ ]", ln.strip(), maxsplit=1)[0].lower() for ln in lines if ln.strip()[:1].isalpha()
    }


def _locked(file: str) -> set[str]:
    """The distributions a lock installs: its requirement lines (hashes and comments are indented)."""
    lines = (SCORER / file).read_text().splitlines()
    return {m.group(0).lower() for ln in lines if (m := re.match(r"[A-Za-z0-9][\w.-]*(?=[\[=])", ln))}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_every_pin_is_known_and_used() -> None:
    """Each pin is imported, or named as uvicorn's loop or parser (``loop="uvloop"``)."""
    pins = _pins()
    assert pins <= set(IMPORT_NAMES), f"scorer/requirements.txt pins {sorted(pins)}; update IMPORT_NAMES"
    image = [p for p in SCORER.glob("*.py")]
    used = set().union(*(_imported_roots(p) | _strings(p) for p in image))
    unused = sorted(p for p in pins if IMPORT_NAMES[p] not in used)
    assert not unused, f"pinned for the image, used by none of its modules: {unused}"


def test_every_locked_package_is_known() -> None:
    for file in LOCKS.values():
        unknown = sorted(_locked(file) - set(IMPORT_NAMES))
        assert not unknown, f"scorer/{file} installs {unknown}; add them to IMPORT_NAMES"


def test_the_image_imports_only_its_lock_and_the_stdlib() -> None:
    allowed = set(sys.stdlib_module_names) | {"scorer"} | {IMPORT_NAMES[p] for p in _locked(LOCKS["serve"])}
    strays = {p.name: sorted(_imported_roots(p) - allowed) for p in SCORER.glob("*.py")}
    assert not any(strays.values()), f"imports the image does not install: {strays}"


def _dockerfile_runs() -> list[tuple[str, str]]:
    """(stage, command) of each RUN of scorer/Dockerfile, continuation lines joined."""
    text = (SCORER / "Dockerfile").read_text().replace("\\\n", " ")
    stage, runs = "", []
    for line in text.splitlines():
        if line.startswith("FROM "):
            stage = line.split()[-1] if " AS " in line else "serve"
        elif line.startswith("RUN "):
            runs.append((stage, line[4:]))
    return runs


def test_the_image_installs_from_its_hashed_locks_only() -> None:
    """Each stage's one pip install reads its lock with --require-hashes --no-deps: nothing unpinned
    (uvicorn's click and h11 included), nothing unhashed, nothing resolved at build time."""
    installs: dict[str, list[list[str]]] = {}
    for stage, command in _dockerfile_runs():
        for step in command.split("&&"):
            words = shlex.split(step)
            if words[:2] == ["pip", "install"] or words[:4] == ["python", "-m", "pip", "install"]:
                installs.setdefault(stage, []).append(words)
    assert set(installs) == set(LOCKS), f"pip install by stage: {installs}"
    for stage, [*others, words] in installs.items():
        assert not others, f"the {stage} stage runs pip install more than once: {installs[stage]}"
        assert {"--require-hashes", "--no-deps"} <= set(words), f"{stage}: {words}"
        files = [words[i + 1] for i, w in enumerate(words) if w in ("-r", "--requirement")]
        assert [Path(f).name for f in files] == [LOCKS[stage]], f"{stage} installs {files}"
        assert not [w for w in words[2:] if not w.startswith("-") and w not in files], f"{stage}: {words}"


def test_the_bases_run_the_python_the_locks_were_resolved_for() -> None:
    """make lock resolves for one Python (--python-version); the bases' tags, digest or not, are it."""
    [target] = re.findall(r"--python-version (\d+\.\d+)", (ROOT / "Makefile").read_text())
    bases = re.findall(r"^ARG \w+_IMAGE=(\S+)", (SCORER / "Dockerfile").read_text(), re.M)
    assert len(bases) == 1, f"scorer/Dockerfile base ARGs: {bases}"
    for base in bases:
        assert re.fullmatch(rf"python:{re.escape(target)}(-slim)?(@sha256:[0-9a-f]{{64}})?", base), base
    froms = re.findall(r"^FROM (\S+)", (SCORER / "Dockerfile").read_text(), re.M)
    assert froms == ["${BASE_IMAGE}"], froms  # one stage: the scorer is pure Python, nothing compiles


def test_the_build_context_is_the_scorer_sources_without_bytecode_or_extensions() -> None:
    """Every source and lock goes in; bytecode and extension modules stay out (an extension next to
    a source would be imported instead of it)."""
    files = {p.as_posix() for p in image.context_files()}
    assert {f"scorer/{p.name}" for p in SCORER.glob("*.py")} <= files
    assert {f"scorer/{name}" for name in (*LOCKS.values(), "Dockerfile")} <= files
    assert any(f.startswith("scorer/lexicon/") for f in files)
    assert not [f for f in files if f.endswith((".so", ".pyc"))], files


def test_containers_get_lowered_limits() -> None:
    """Every container is started with nofile and nproc at most the caps (podman's own defaults are
    refused on this kind of machine)."""
    words = image.ulimits()
    limits = dict(w.split("=", 1) for w in words[1::2])
    assert words[::2] == ["--ulimit"] * len(image.ULIMITS) and set(limits) == set(image.ULIMITS)
    for name, (_which, cap) in image.ULIMITS.items():
        soft, hard = limits[name].split(":")
        assert soft == hard and 0 < int(hard) <= cap, limits
