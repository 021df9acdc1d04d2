"""The scorer's Cloud Run image installs only ``scorer/requirements.txt``: every module the image
can run must import nothing else (the stdlib, the ``scorer`` package, those pins), and the compile
step of its build stage only ``scorer/requirements-build.txt``. There is no Docker engine here to
build the image, so this is checked on the sources."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCORER = ROOT / "scorer"
BUILD_STAGE = "build_ext.py"
"""Run in the image's build stage (scorer/Dockerfile), with scorer/requirements-build.txt."""
DEV_TOOLS = {"build_lexicon.py", BUILD_STAGE}
"""Not run by the served image (build_lexicon.py writes the lexicon on a developer's machine)."""
IMPORT_NAMES = {
    "uvicorn": "uvicorn",
    "uvloop": "uvloop",
    "httptools": "httptools",
    "orjson": "orjson",
    "cython": "Cython",
    "setuptools": "setuptools",
}
"""Distribution name in scorer/requirements*.txt → the module it provides."""


def _pins(file: str = "requirements.txt") -> set[str]:
    lines = (SCORER / file).read_text().splitlines()
    return {
        re.split(r"[=<>~!\[ ]", ln.strip(), maxsplit=1)[0].lower() for ln in lines if ln.strip()[:1].isalpha()
    }


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
    image = [p for p in SCORER.glob("*.py") if p.name not in DEV_TOOLS]
    used = set().union(*(_imported_roots(p) | _strings(p) for p in image))
    unused = sorted(p for p in pins if IMPORT_NAMES[p] not in used)
    assert not unused, f"pinned for the image, used by none of its modules: {unused}"


def test_the_image_imports_only_its_pins_and_the_stdlib() -> None:
    allowed = set(sys.stdlib_module_names) | {"scorer"} | {IMPORT_NAMES[p] for p in _pins()}
    strays = {
        p.name: sorted(_imported_roots(p) - allowed) for p in SCORER.glob("*.py") if p.name not in DEV_TOOLS
    }
    assert not any(strays.values()), f"imports the image does not install: {strays}"


def test_the_build_stage_imports_only_its_pins_and_the_stdlib() -> None:
    pins = _pins("requirements-build.txt")
    assert pins <= set(IMPORT_NAMES), (
        f"scorer/requirements-build.txt pins {sorted(pins)}; update IMPORT_NAMES"
    )
    allowed = set(sys.stdlib_module_names) | {"scorer"} | {IMPORT_NAMES[p] for p in pins}
    imported = _imported_roots(SCORER / BUILD_STAGE)
    assert imported <= allowed, f"{BUILD_STAGE} imports what its stage does not install: {imported - allowed}"
    assert {IMPORT_NAMES[p] for p in pins} <= imported, "a build pin nothing imports"
