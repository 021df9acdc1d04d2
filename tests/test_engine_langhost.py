"""tunifolk's Python language host (engine/langhost) under the real engine: a runtime option it does not
implement (another toolchain, a typechecker, anything it would otherwise ignore) fails `pulumi preview`
with one line naming the option and what the host supports, instead of running the program as if the
option had been honoured. The same tiny program with `toolchain: pip` previews, so the refusal is the
option's doing. Previews only: no resource, no server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import ROOT, LocalStack, require_engine

pytestmark = pytest.mark.slow

SUPPORTED = "this host supports only `virtualenv: <dir>` and `toolchain: pip`"


def program(base: Path, options: dict[str, str]) -> Path:
    """A one-file Pulumi program in `base`/program whose Pulumi.yaml sets these runtime options (and
    the project's virtualenv)."""
    folder = base / "program"
    folder.mkdir()
    lines = "".join(f"    {name}: {value}\n" for name, value in options.items())
    (folder / "Pulumi.yaml").write_text(
        "name: langhost-options\nruntime:\n  name: python\n  options:\n"
        f"    virtualenv: {ROOT / '.venv'}\n{lines}",
        encoding="utf-8",
    )
    main = 'import pulumi\n\npulumi.export("program_ran", True)\n'
    (folder / "__main__.py").write_text(main, encoding="utf-8")
    return folder


def preview(base: Path, options: dict[str, str]) -> tuple[int, str]:
    stack = LocalStack(base, program=program(base, options), stack="options")
    stack.environment()
    stack.init()
    result = stack.preview(check=False)
    return result.code, result.output


def test_the_pip_toolchain_previews(tmp_path: Path) -> None:
    require_engine()
    code, output = preview(tmp_path, {"toolchain": "pip"})
    assert code == 0, output
    assert "program_ran" in output and "not supported" not in output, output


@pytest.mark.parametrize(
    "option",
    [
        {"toolchain": "uv"},
        {"toolchain": "poetry"},
        {"typechecker": "mypy"},
        {"dependencies": "requirements.txt"},
    ],
    ids=lambda o: "-".join(f"{k}-{v}" for k, v in o.items()),
)
def test_an_unimplemented_option_is_refused_by_name(tmp_path: Path, option: dict[str, str]) -> None:
    require_engine()
    code, output = preview(tmp_path, {"toolchain": "pip", **option})
    assert code != 0, f"the host ran the program despite {option}:\n{output}"
    [(name, value)] = option.items()
    refusal = f"runtime option `{name}: {value}` is not supported: {SUPPORTED}"
    # The engine shows each error in its progress and again under Diagnostics: there, it is the only one.
    assert "Diagnostics:" in output, output
    diagnostics = output.split("Diagnostics:", 1)[1].split("Resources:", 1)[0]
    errors = [line.strip() for line in diagnostics.splitlines() if "error" in line]
    assert errors == [f"error: {refusal}"], f"expected one error line {refusal!r}:\n{output}"
    assert "Traceback" not in output and "program_ran" not in output, output
