"""The sample poems of ``data/samples`` as the tests ask for them: one definition of where they live
and which references a sample carries (its form, its script, and ``refrain: yes`` where its form has
a refrain)."""

from __future__ import annotations

from pathlib import Path

from scorer.catalogue import FORMS

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


def sample_poems() -> list[tuple[str, str, dict[str, str]]]:
    """(name, text, references) of every sample poem, Arabic script first, then Arabizi."""
    out = []
    for script, folder in (("arabic", SAMPLES), ("arabizi", SAMPLES / "arabizi")):
        for path in sorted(folder.glob("*.txt")):
            refs = {"form": path.stem, "script": script}
            if FORMS[path.stem].refrain != "none":
                refs["refrain"] = "yes"
            out.append((f"sample {script} {path.stem}", path.read_text(encoding="utf-8"), refs))
    return out
