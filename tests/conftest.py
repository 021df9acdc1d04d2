"""Shared pytest set-up: the project root on sys.path, the fixtures several modules share, and the
`slow` marker on every test that starts a server or the engine (`make test-fast` runs the others).

Every fixture here is isolated per pytest-xdist worker: servers listen on free ports and keep their
state under the test's own temporary directory, so `make test` runs the suite in parallel.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

#: Fixtures that start a real server (emulator, scorer) or the engine, and `gcs`, which a test asks for
#: only to start an emulator over it: a test using one is slow. A test that starts a server itself
#: is marked `@pytest.mark.slow` in its module.
SERVER_FIXTURES = frozenset({"scorer_uri", "emu", "emulator_world", "stack", "gcs"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark slow every test that uses a server fixture, and run the longest first: the engine tests,
    then the other slow ones, then the rest. Started first they share the xdist workers, and the
    many short tests fill the gaps, instead of a long test ending the run on one worker."""
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)

    def order(item: pytest.Item) -> tuple[bool, bool]:
        return not item.path.name.startswith("test_engine_"), item.get_closest_marker("slow") is None

    items.sort(key=order)  # stable: collection order within each of the three


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under `--dist loadgroup` (`make test`) pytest-xdist keeps a group's tests on one worker by a
    suffix it adds to their node ids. A pytest that builds node ids its own way (9.2) drops the suffix
    without a word, and every worker then runs the group's module fixture, a whole tuning job, again:
    the group's tests fail, saying why, rather than the suite running minutes longer unnoticed."""
    grouped = getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group")
    if grouped and "@" not in item.nodeid:
        pytest.fail(
            "pytest-xdist did not tag this xdist_group test, so --dist loadgroup runs its module "
            "fixture on every worker: pin a pytest that pytest-xdist supports (requirements-dev.txt)",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def scorer_uri() -> Iterator[str]:
    """One real scorer process (`python -m scorer`) for every test that needs a Cloud Run reward."""
    from servers import scorer

    with scorer() as url:
        yield url


@pytest.fixture(scope="module")
def gcs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gs:// folder for the emulator (which only reads it), holding the test dataset of tests/jobs.py:
    64 training lines, or the module's `DATASET_LINES` when its runs need more steps."""
    from jobs import write_dataset

    path = tmp_path_factory.mktemp("gcs")
    write_dataset(path, getattr(request.module, "DATASET_LINES", 64))
    return path


@pytest.fixture(scope="module")
def emu(gcs: Path) -> Iterator[str]:
    """One fault-free emulator per module over `gcs` (tests that count jobs start their own)."""
    from jobs import fast_emulator

    with fast_emulator(gcs) as url:
        yield url


@pytest.fixture(scope="module")
def emulator_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, str, str]]:
    """One emulator, reward server and Arabic datasets per module (tests/emulator_api.py's `world`):
    (emulator URL, reward server, train URI, validation URI)."""
    from emulator_api import world

    with world(tmp_path_factory.mktemp("world")) as opened:
        yield opened


@pytest.fixture
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An isolated local stack (tests/engine.py), started with `local start` and stopped after the
    test, under every hostile reading (`local start --hostile`) unless the marker says `hostile=False`.
    `@pytest.mark.local_stack(program=…, stack=…, step_seconds=…, emulator_args=(…), hostile=…)` sets
    it up otherwise than the project's `local` stack at the default step."""
    from engine import STEP_SECONDS, LocalStack, require_engine

    require_engine()
    marker = request.node.get_closest_marker("local_stack")
    options = dict(marker.kwargs) if marker else {}
    step_seconds = options.pop("step_seconds", STEP_SECONDS)
    emulator_args = options.pop("emulator_args", ())
    hostile = options.pop("hostile", True)
    local = LocalStack(tmp_path, **options)
    local.start(step_seconds, *emulator_args, hostile=hostile)
    try:
        yield local
    finally:
        local.stop()


def pytest_report_collectionfinish(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """Which engine the end-to-end tests (tests/test_engine_*.py) run, once per session when any is
    collected: printed after collection, which the project's `-q` keeps (it hides the header)."""
    from engine import engine_report

    return engine_report() if any(item.path.name.startswith("test_engine_") for item in items) else []
