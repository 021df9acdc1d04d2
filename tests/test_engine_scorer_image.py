"""`pulumi up` on the local stack builds the scorer of the checkout and runs it by digest.

The program runs from a copy of this checkout (its program files, `scorer/` and README), so that the
test can edit a scorer source and the README without touching the working tree: the build context
is hashed and archived from the program's own directory. The real engine, the gcp stand-in (the
Artifact Registry repository, Cloud Run) and the emulator (Cloud Build, which runs podman) do the
rest. Needs podman (``make image-tools``, as root): skips with one line without it, fails under
``CI=true``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_scorer_image_build import needs_podman

from engine import LocalStack, require_engine
from tunifolk.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
REPOSITORY = "us-central1-docker.pkg.dev/tunifolk-local/tunifolk-local"
IMAGE_RE = re.compile(rf"{re.escape(REPOSITORY)}/scorer@sha256:[0-9a-f]{{64}}")
"""The local stack's repository is `tunifolk-<stack>` (components/scorer.py, repository_id)."""
PROGRAM = ("__main__.py", "Pulumi.yaml", "Pulumi.local.yaml", "README.md", "components", "providers")
PROGRAM += ("scorer",)
UP_TIMEOUT = 900
"""A scorer edit builds the image's last layers again: well under a minute idle, minutes loaded."""


def copy_program(dest: Path) -> Path:
    """The program's files and the build context, with the project's virtualenv linked in."""
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    for name in PROGRAM:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)
    (dest / ".venv").symlink_to(ROOT / ".venv")
    for argv in (["init", "-q"], ["add", "scorer"]):  # the build context is what git tracks in scorer/
        subprocess.run(["git", "-C", str(dest), *argv], check=True, capture_output=True)
    return dest


def service_image(stack: LocalStack) -> str:
    (service,) = [r for r in stack.resources() if r["type"] == "gcp:cloudrunv2/service:Service"]
    return service["outputs"]["template"]["containers"][0]["image"]


def test_up_builds_and_deploys_by_digest_and_rebuilds_only_for_the_scorer(tmp_path: Path) -> None:
    needs_podman()
    require_engine()
    program = copy_program(tmp_path / "program")
    stack = LocalStack(tmp_path / "stack", program=program)
    stack.start()
    try:
        stack.init()
        first = stack.up(timeout=UP_TIMEOUT)
        assert "scorer image: build" in first.output, first.output
        image = stack.output("scorer_image")
        assert IMAGE_RE.fullmatch(image), image
        assert service_image(stack) == image  # Cloud Run was given the digest
        (build,) = [r for r in stack.resources() if r["urn"].endswith("::scorer-image")]
        assert build["outputs"]["image"] == image and build["outputs"]["log_url"].startswith("https://")
        # the stand-in's Cloud Run runs that image (recorded beside its pid file)
        records = list((stack.standin / "run").glob("image-*"))
        assert [r.read_text().strip() for r in records] == [image]

        stack.preview(expect_no_changes=True)
        (program / "README.md").write_text((program / "README.md").read_text() + "\nAn edit.\n")
        stack.preview(expect_no_changes=True)  # a README is not in the image

        app = program / "scorer" / "app.py"
        app.write_text(app.read_text() + "\n# an edit that goes into the image\n")
        second = stack.up(timeout=UP_TIMEOUT)
        assert "scorer image: build" in second.output
        rebuilt = stack.output("scorer_image")
        assert IMAGE_RE.fullmatch(rebuilt) and rebuilt != image
        assert service_image(stack) == rebuilt  # and redeployed
        stack.preview(expect_no_changes=True)
        stack.destroy()
    finally:
        stack.stop()
