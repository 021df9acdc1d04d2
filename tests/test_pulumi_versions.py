"""The Pulumi SDK the program runs on and the Pulumi engine it is tested under stay together.

requirements.txt pins the Python SDK (`pulumi==…`); engine/go.mod requires the CLI's Go modules
(`github.com/pulumi/pulumi/pkg/v3` and `sdk/v3`). Each is read from its file here, never restated.
They cannot be the same release (docs/local-stack.md, "Versions", says why), so these tests hold the
pairing Pulumi supports: the engine is the SDK's release or a newer one of the same major, and at
most MAX_MINOR_LEAD releases ahead, so bumping one without the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
GO_MOD = ROOT / "engine" / "go.mod"
DOCS = ROOT / "docs" / "local-stack.md"

# The engine may lead the SDK: an engine serves every older SDK of its major, while an SDK may send
# requests an older engine does not know. Two releases is the gap the registries force today (the
# module proxy has no pkg/v3 at PyPI's newest SDK; its next one is two releases on).
MAX_MINOR_LEAD = 2


def _version(text: str, where: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", text)
    assert match, f"{where}: {text!r} is not a plain MAJOR.MINOR.PATCH release"
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def sdk_pin() -> tuple[int, int, int]:
    """The `pulumi==X.Y.Z` pin of requirements.txt."""
    pins = re.findall(r"^pulumi==(\S+)", REQUIREMENTS.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert len(pins) == 1, f"requirements.txt must pin pulumi exactly once, found {pins}"
    return _version(pins[0], "requirements.txt")


def go_module(name: str) -> tuple[int, int, int]:
    """The version engine/go.mod requires of github.com/pulumi/pulumi/<name>/v3 (on its own line or in
    a block, as the Makefile's ENGINE_VERSION reads it)."""
    pattern = rf"^\s*(?:require\s+)?github\.com/pulumi/pulumi/{name}/v3\s+(\S+)"
    found = re.findall(pattern, GO_MOD.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert len(found) == 1, f"engine/go.mod must require {name}/v3 exactly once, found {found}"
    return _version(found[0], f"engine/go.mod {name}/v3")


def dotted(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def test_the_engine_builds_pkg_and_sdk_at_one_version() -> None:
    """pkg/v3 replaces sdk/v3 with its own tree; the wrapper module must pin sdk/v3 at pkg's version."""
    assert go_module("sdk") == go_module("pkg"), (
        "engine/go.mod: set sdk/v3 to pkg/v3's version, then go mod tidy"
    )


def test_the_engine_is_the_sdks_release_or_a_little_newer() -> None:
    sdk, cli = sdk_pin(), go_module("pkg")
    assert cli[0] == sdk[0], f"engine v{dotted(cli)} and SDK {dotted(sdk)} are of different majors"
    assert cli >= sdk, (
        f"engine v{dotted(cli)} is older than the SDK pin pulumi=={dotted(sdk)}: "
        "move engine/go.mod's pkg/v3 to a release at or above the pin"
    )
    assert cli[1] - sdk[1] <= MAX_MINOR_LEAD, (
        f"engine v{dotted(cli)} is more than {MAX_MINOR_LEAD} releases ahead of pulumi=={dotted(sdk)}: "
        "move requirements.txt's pin up (or the engine down) and update docs/local-stack.md"
    )


def test_the_docs_name_the_pair_they_explain() -> None:
    """docs/local-stack.md says why the two differ; a bump of either must revisit that paragraph."""
    text = DOCS.read_text(encoding="utf-8")
    for shown in (f"v{dotted(go_module('pkg'))}", f"pulumi=={dotted(sdk_pin())}"):
        assert shown in text, f"docs/local-stack.md does not name {shown}: update its Versions paragraph"
