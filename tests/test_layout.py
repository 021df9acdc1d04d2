"""The repository's layout, held (docs/architecture.md): `providers/` holds only the
Pulumi dynamic provider, `components/` only ComponentResources, only `tunifolk` and `scorer` are
installed, and no product module edits `sys.path` (the installed packages and the engine's working
directory make every import resolve). Static: reads the sources, runs nothing."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT_DIRS = ("tunifolk", "providers", "components", "scorer", "policy")
"""Where product code lives; `bench/` and `tests/` are not product code."""
INSTALLED = {"tunifolk", "scorer"}


def product_modules() -> list[Path]:
    """Every product module: the Pulumi program's `__main__.py` and each `.py` under PRODUCT_DIRS."""
    files = [ROOT / "__main__.py"]
    for folder in PRODUCT_DIRS:
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _base_names(node: ast.ClassDef) -> set[str]:
    """The last component of each base class (`pulumi.ComponentResource` → `ComponentResource`)."""
    return {ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases}


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any(ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] == "dataclass" for d in node.decorator_list)


def sys_path_edits(source: str) -> list[int]:
    """Line numbers where ``sys.path`` is changed: a call of one of its methods (insert, append,
    extend, ...) or an assignment to it or to a slice of it."""

    def is_sys_path(node: ast.AST) -> bool:
        return ast.unparse(node) == "sys.path"

    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and is_sys_path(node.func.value)
        ):
            lines.append(node.lineno)
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for target in targets:
            if is_sys_path(target) or (isinstance(target, ast.Subscript) and is_sys_path(target.value)):
                lines.append(node.lineno)
    return sorted(lines)


PROVIDERS = ("tuning_job.py", "scorer_image.py")
"""The dynamic providers (each pickled into state by its class path, so none may move)."""


def test_providers_holds_only_the_dynamic_providers() -> None:
    folder = ROOT / "providers"
    files = sorted(_name(p) for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
    assert files == sorted(["providers/__init__.py", *(f"providers/{n}" for n in PROVIDERS)]), (
        f"providers/ holds only the Pulumi dynamic providers; move library code to tunifolk/: {files}"
    )
    for name in PROVIDERS:
        bases = set().union(
            *(_base_names(n) for n in _tree(folder / name).body if isinstance(n, ast.ClassDef))
        )
        assert {"ResourceProvider", "Resource"} <= bases, f"providers/{name} defines no dynamic provider"


def test_components_holds_only_component_resources() -> None:
    """Each module defines ComponentResource subclasses, and at most their `<Name>Args` dataclasses."""
    strays: dict[str, list[str]] = {}
    for path in sorted((ROOT / "components").rglob("*.py")):
        classes = [n for n in _tree(path).body if isinstance(n, ast.ClassDef)]
        components = {c.name for c in classes if "ComponentResource" in _base_names(c)}
        if path.name != "__init__.py" and not components:
            strays.setdefault(_name(path), []).append("(no ComponentResource)")
        for c in classes:
            is_args = _is_dataclass(c) and c.name.endswith("Args") and c.name[: -len("Args")] in components
            if c.name not in components and not is_args:
                strays.setdefault(_name(path), []).append(c.name)
    assert not strays, f"components/ holds only ComponentResources and their Args; move the rest: {strays}"


def test_only_tunifolk_and_scorer_are_installed() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = set(setup["packages"])
    assert {p.split(".")[0] for p in packages} == INSTALLED, f"installed top-level names: {sorted(packages)}"
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in INSTALLED
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk <= packages, (
        f"packages missing from pyproject.toml's packages: {sorted(on_disk - packages)}"
    )


def test_no_product_module_edits_sys_path() -> None:
    edits = {
        _name(p): lines for p in product_modules() if (lines := sys_path_edits(p.read_text(encoding="utf-8")))
    }
    assert not edits, f"sys.path edited (import through the installed packages instead): {edits}"


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("import sys\nsys.path.insert(0, 'x')\n", [2]),
        ("import sys\nsys.path.append('x')\n", [2]),
        ("import sys\nsys.path[:0] = ['x']\n", [2]),
        ("import sys\nsys.path = ['x']\n", [2]),
        ("import sys\nsys.path += ['x']\n", [2]),
        ("import sys\nprint(sys.path)\nfound = 'x' in sys.path\n", []),
    ],
)
def test_the_sys_path_check_sees_every_kind_of_edit(source: str, lines: list[int]) -> None:
    assert sys_path_edits(source) == lines
