"""The hashed locks (``make lock``) against the pins people edit. Every install reads a lock, never the
pins: the venv the dev lock (Makefile), the scorer image ``scorer/requirements.lock``
(scorer/Dockerfile), both with ``--require-hashes``. A pin
edited without ``make lock`` would install the old version silently; these tests catch it first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INPUTS = tuple(re.search(r"^LOCK_INPUTS := (.+)$", (ROOT / "Makefile").read_text(), re.M).group(1).split())
"""The pins people edit, read from the Makefile's LOCK_INPUTS; each one's lock is beside it (X.txt ->
X.lock)."""
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def _name(requirement: str) -> str:
    """The normalised distribution name (PEP 503) of ``name[extra]==version``."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\[=<>~!; ]", requirement.strip(), maxsplit=1)[0]).lower()


def _lock_path(pins: str) -> Path:
    return ROOT / (pins.removesuffix(".txt") + ".lock")


def _top_level(pins: str) -> dict[str, str]:
    """Name → version of a pins file's own ``==`` pins and of the files it includes with ``-r``."""
    found: dict[str, str] = {}
    path = ROOT / pins
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            included = (path.parent / line[3:].strip()).resolve().relative_to(ROOT)
            found |= _top_level(str(included))
        elif line:
            name, sep, version = line.partition("==")
            assert sep, f"{pins}: {line!r} is not pinned with ==; pin it, then run `make lock`"
            found[_name(name)] = version.strip()
    return found


def _own_pins(pins: str) -> set[str]:
    """The names a pins file pins itself (its ``-r`` includes left out)."""
    lines = (ROOT / pins).read_text().splitlines()
    return {_name(ln) for ln in (raw.split("#", 1)[0].strip() for raw in lines) if ln and ln[0].isalpha()}


def _lock(pins: str) -> dict[str, tuple[str, int]]:
    """Name → (version, number of sha256 hashes) of the lock beside a pins file."""
    text = _lock_path(pins).read_text().replace("\\\n", " ")
    entries: dict[str, tuple[str, int]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = line.split(" --hash", 1)[0]
        name, sep, version = requirement.partition("==")
        assert sep, f"{_lock_path(pins).name}: {requirement!r} is not pinned with ==; run `make lock`"
        entries[_name(name)] = (version.split(";", 1)[0].strip(), len(HASH.findall(line)))
    return entries


@pytest.mark.parametrize("pins", INPUTS)
def test_every_locked_package_is_pinned_with_its_hashes(pins: str) -> None:
    locked = _lock(pins)
    assert locked, f"{_lock_path(pins)} is empty; run `make lock`"
    unhashed = sorted(name for name, (_, hashes) in locked.items() if not hashes)
    assert not unhashed, f"locked without a sha256 hash: {unhashed}; run `make lock`"


@pytest.mark.parametrize("pins", INPUTS)
def test_the_lock_holds_every_pin_at_its_version(pins: str) -> None:
    locked = _lock(pins)
    stale = {
        name: (version, locked.get(name, ("missing", 0))[0])
        for name, version in _top_level(pins).items()
        if locked.get(name, ("", 0))[0] != version
    }
    assert not stale, f"pinned → locked: {stale}; run `make lock`"


@pytest.mark.parametrize("pins", INPUTS[1:])
def test_each_package_has_one_version_in_every_lock(pins: str) -> None:
    """The smaller locks are held to the dev lock, which is the one the tests run on."""
    dev = _lock(INPUTS[0])
    differ = {
        name: (version, dev.get(name, ("missing", 0))[0])
        for name, (version, _) in _lock(pins).items()
        if dev.get(name, ("", 0))[0] != version
    }
    assert not differ, f"{_lock_path(pins).name} → dev lock: {differ}; run `make lock`"


def test_the_scorer_image_locks_nothing_of_the_dev_or_runtime_pins() -> None:
    """The served image carries only the scorer's closure: nothing pinned for the tests, the program,
    or the compile stage (which has its own lock)."""
    others = set().union(*(_own_pins(p) for p in INPUTS if p != "scorer/requirements.txt"))
    image = set(_lock("scorer/requirements.txt"))
    leaked = sorted(image & (others - _own_pins("scorer/requirements.txt")))
    assert not leaked, f"scorer/requirements.lock holds {leaked}, pinned for the program or the tests only"


def test_every_pins_file_has_its_lock_and_no_lock_is_orphaned() -> None:
    locks = {str(p.relative_to(ROOT)) for p in [*ROOT.glob("*.lock"), *ROOT.glob("scorer/*.lock")]}
    assert locks == {str(_lock_path(p).relative_to(ROOT)) for p in INPUTS}
    makefile = (ROOT / "Makefile").read_text()
    assert f"LOCK_INPUTS := {' '.join(INPUTS)}" in makefile, "the Makefile's LOCK_INPUTS and INPUTS differ"
