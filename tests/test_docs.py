"""The repository explains itself: every document it cites is in it, and none lives outside it.

Code comments and docs cite `docs/<name>.md`; a reader of the repository must never need the
design notes the project started from, so no tracked file may point outside it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITED = re.compile(r"(?<![/\w.])docs/([a-z][a-z0-9-]*)\.md")  # not a URL's docs/ path
OUTSIDE = re.compile(r"\.\./shared|contracts\.md|scoring\.md|vertex-rlft-api|reference §")


def tracked_text() -> dict[str, str]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    out = {}
    for name in names.split():
        if name.endswith((".py", ".md", ".yaml", ".go", ".toml", ".txt", ".in")) or name == "Makefile":
            path = ROOT / name
            if path.stat().st_size < 1_000_000:
                out[name] = path.read_text(encoding="utf-8", errors="replace")
    return out


def test_every_cited_document_exists() -> None:
    missing = {
        f"{name}: docs/{doc}.md"
        for name, text in tracked_text().items()
        for doc in CITED.findall(text)
        if not (ROOT / "docs" / f"{doc}.md").is_file()
    }
    assert not missing, sorted(missing)


def test_nothing_points_outside_the_repository() -> None:
    outside = {
        f"{name}: {m.group(0)}"
        for name, text in tracked_text().items()
        if name != "tests/test_docs.py"
        for m in OUTSIDE.finditer(text)
    }
    assert not outside, sorted(outside)


def test_the_edges_the_code_cites_are_in_the_vertex_contract() -> None:
    table = (ROOT / "docs" / "vertex.md").read_text(encoding="utf-8")
    numbered = {int(n) for n in re.findall(r"^\| (\d+) \|", table, flags=re.M)}
    cited = {
        int(n)
        for text in tracked_text().values()
        for n in re.findall(r"docs/vertex\.md,\s+edge\s+(\d+)", text)
    }
    assert cited and cited <= numbered, sorted(cited - numbered)


TOP = ("tunifolk", "providers", "components", "scorer", "tests", "bench", "docs", "data", "engine", "policy")
CITED_PATH = re.compile(rf"`((?:{'|'.join(TOP)})/[A-Za-z0-9_./\-]*)`")


def test_every_path_the_docs_cite_exists() -> None:
    """A file or folder the README and docs name in backticks is where they say (a move that forgets
    the docs fails here)."""
    missing = {
        f"{name}: {m.group(1)}"
        for name, text in tracked_text().items()
        if name.endswith(".md")
        for m in CITED_PATH.finditer(text)
        if not (ROOT / m.group(1).rstrip("/")).exists()
    }
    assert not missing, sorted(missing)


def test_the_code_cites_no_red_team_case() -> None:
    """Code says what is true now; which round and which case led to a rule is history, kept in
    bench/results/redteam-rounds.md. A case id (r23-118) in a module of the library is a docstring
    carrying history."""
    case = re.compile(r"\br\d{1,2}-\d{3}\b")
    cited = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("scorer", "tunifolk", "components", "providers")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if case.search(line)
    ]
    assert not cited, cited
