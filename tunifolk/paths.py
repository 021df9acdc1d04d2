"""Where the checkout is: the one definition of the repository root.

The library runs from a checkout (an editable install): the stack files, `data/`, the scorer's sources
and `build/` (local state, the built engine) all sit under this root.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
