"""Shared pytest set-up: the project root on sys.path, and no test ever reaches a Google host."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture(scope="session")
def scorer_uri() -> Iterator[str]:
    """One real scorer process (`python -m scorer`) for every test that needs a Cloud Run reward."""
    from servers import scorer

    with scorer() as url:
        yield url


@pytest.fixture
def gcs(tmp_path: Path) -> Path:
    """A gs:// folder for the emulator, holding the test dataset (tests/jobs.py)."""
    from jobs import write_dataset

    write_dataset(tmp_path, 64)
    return tmp_path
