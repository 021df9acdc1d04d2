"""tunifolk: scorer.

The scoring core may be compiled in place by ``python -m scorer.build_ext`` (Cython, the same
sources). An extension module is imported before a source of the same name, so this package makes
sure an extension is used only while it was built from the source as it is now: each compiled
module whose source no longer matches the hash recorded at build time (``_compiled.json``), or
every one of them under ``TUNIFOLK_SCORER_PURE=1``, is imported from its ``.py`` instead.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

COMPILED = (
    "arabic",
    "lexicon",
    "identity",
    "linear",
    "response",
    "frame",
    "caesura",
    "text",
    "refrain",
    "stanzas",
    "structure",
    "wordshape",
    "msa",
    "mashriq",
    "morphology",
    "variety",
    "order",
    "reuse",
    "cuts",
    "score",
)
"""The modules ``build_ext`` compiles: the scoring path of every request."""
HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "_compiled.json"
PURE_ENV = "TUNIFOLK_SCORER_PURE"


def _source(name: str) -> bytes:
    """A compiled module's source: its ``.py``, and its ``.pxd`` (C types for Cython) where it has one."""
    pxd = HERE / f"{name}.pxd"
    return (HERE / f"{name}.py").read_bytes() + (pxd.read_bytes() if pxd.exists() else b"")


def source_hashes() -> dict[str, str]:
    """SHA-256 of each compiled module's source (with its ``.pxd``: a changed type is a changed build)."""
    return {name: hashlib.sha256(_source(name)).hexdigest() for name in COMPILED}


def extension_files() -> list[Path]:
    """The compiled modules' extension files present next to their sources (every name the import
    system would load before the ``.py``)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return [path for name in COMPILED for s in suffixes if (path := HERE / f"{name}{s}").exists()]


def _from_source() -> set[str]:
    """The compiled modules that must be imported from their source."""
    if not extension_files():
        return set()  # nothing compiled: the normal import finds the sources
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return set(COMPILED)
    try:
        built = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return set(COMPILED)  # extensions without a record of their sources: trust none
    return {name for name, digest in source_hashes().items() if built.get(name) != digest}


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the listed ``scorer`` modules as their ``.py`` files."""

    def __init__(self, names: set[str]) -> None:
        self.names = {f"{__name__}.{n}" for n in names}

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{fullname.rsplit('.', 1)[1]}.py")


def compiled_modules() -> list[str]:
    """The scorer modules loaded now that run as compiled extensions (for the bench and logs)."""
    out = []
    for name in COMPILED:
        module = sys.modules.get(f"{__name__}.{name}")
        if module is not None and not str(getattr(module, "__file__", "")).endswith(".py"):
            out.append(name)
    return out


_STALE = _from_source()
if _STALE:
    sys.meta_path.insert(0, _SourceFirst(_STALE))
    if os.environ.get(PURE_ENV, "") in ("", "0"):
        print(
            f"scorer: {', '.join(sorted(_STALE))} changed since compiled; running from source"
            " (`make install` or `python -m scorer.build_ext` compiles again)",
            file=sys.stderr,
        )
