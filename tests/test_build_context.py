"""The scorer image's build context is exactly the files git tracks under scorer/: untracked secrets and
backups stay out, and a tracked symlink out of scorer/ stops the build. A real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tunifolk import image


def git(root: Path, *argv: str) -> None:
    subprocess.run(["git", "-C", str(root), *argv], check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scorer" / "lexicon").mkdir(parents=True)
    (root / "scorer" / "app.py").write_text("print('scored')\n")
    (root / "scorer" / "lexicon" / "words.txt").write_text("بحر\n")
    git(root, "init", "-q")
    git(root, "add", "scorer")
    for untracked in (".env", "adc.json", "app.py~", "lexicon/.words.txt.swp", "fast.so"):
        (root / "scorer" / untracked).write_text("SECRET=1\n")
    return root


def test_only_tracked_files_are_in_the_context(checkout: Path) -> None:
    assert image.context_files(checkout) == [Path("scorer/app.py"), Path("scorer/lexicon/words.txt")]
    before = image.context_digest(checkout)
    (checkout / "scorer" / "notes.txt").write_text("untracked\n")
    assert image.context_digest(checkout) == before  # an untracked file changes nothing


def test_a_tracked_symlink_out_of_scorer_stops_the_build(checkout: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text('{"private_key": "x"}')
    (checkout / "scorer" / "creds.json").symlink_to(outside)
    git(checkout, "add", "scorer/creds.json")
    with pytest.raises(image.ImageError, match="symlink out of scorer/"):
        image.context_files(checkout)


def test_a_symlink_inside_scorer_is_kept(checkout: Path) -> None:
    (checkout / "scorer" / "alias.txt").symlink_to("lexicon/words.txt")
    git(checkout, "add", "scorer/alias.txt")
    assert Path("scorer/alias.txt") in image.context_files(checkout)


def test_outside_a_checkout_the_context_is_refused_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "scorer").mkdir()
    (tmp_path / "scorer" / "app.py").write_text("x\n")
    with pytest.raises(image.ImageError, match="git checkout"):
        image.context_files(tmp_path)
