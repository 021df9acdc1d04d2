"""``python -m scorer.build_ext``: compile the scoring core with Cython, next to its sources.

Why: ``score()`` is pure Python run hundreds of times a second by one process per vCPU, and
compiling the same source (no type declarations, no change to a line of it) takes the interpreter's
dispatch out of its loops: the same rewards, bit for bit (``tests/test_scorer_compiled.py``), in
less time (docs/scorer.md, "Speed"). The compiled modules are an accelerator, never a
requirement: without Cython or a C compiler this prints one line and the sources run as they are.

The build records each source's SHA-256 in ``scorer/_compiled.json``; ``scorer/__init__.py``
imports a module from its source whenever its hash no longer matches, so an edited ``.py`` is never
shadowed by a stale ``.so``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from scorer import COMPILED, MANIFEST, extension_files, source_hashes

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DIRECTIVES = {
    "language_level": "3",
    # Type hints stay hints: with them as C types, `score(text, 0)` would raise a TypeError where the
    # sources return a reward.
    "annotation_typing": False,
    "binding": True,  # functions keep their Python signature and docstring
}


def build() -> list[Path]:
    """Compile COMPILED in place (build files under ``build/cython``); return the extension files."""
    from Cython.Build import cythonize
    from setuptools import Distribution

    sources = [str(HERE / f"{name}.py") for name in COMPILED]
    os.chdir(ROOT)  # module names (scorer.score) come from the paths relative to the package root
    modules = cythonize(
        [os.path.relpath(s, ROOT) for s in sources],
        compiler_directives=DIRECTIVES,
        build_dir="build/cython",
        quiet=True,
    )
    dist = Distribution({"ext_modules": modules, "script_args": ["build_ext"]})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True
    cmd.build_temp = "build/cython/temp"
    cmd.parallel = os.cpu_count() or 1
    dist.run_command("build_ext")
    return [Path(cmd.get_ext_fullpath(ext.name)) for ext in modules]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--require", action="store_true", help="fail (exit 1) when the modules cannot be compiled"
    )
    args = ap.parse_args(argv)
    MANIFEST.unlink(missing_ok=True)  # a failed build leaves the sources in charge
    try:
        built = build()
    except Exception as exc:  # no Cython, no compiler, no Python headers: the sources still serve
        for old in extension_files():  # an earlier build's would only be set aside as stale
            old.unlink()
        line = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
        print(
            f"scorer: not compiled ({type(exc).__name__}: {line[0]}); the sources are used", file=sys.stderr
        )
        return 1 if args.require else 0
    MANIFEST.write_text(source_hashes_json())
    print(f"scorer: compiled {', '.join(p.name for p in built)}")
    return 0


def source_hashes_json() -> str:
    return json.dumps(source_hashes(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.exit(main())
