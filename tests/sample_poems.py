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


class Rewards(dict):
    """name -> the reward of that poem of `corpus`, scored on first use: a module that parametrizes
    over a corpus scores nothing at collection (every xdist worker collects every module)."""

    def __init__(self, corpus: list[tuple[str, str, dict[str, str]]]) -> None:
        super().__init__()
        self.poems = {name: (text, refs) for name, text, refs in corpus}

    def __missing__(self, name: str) -> float:
        from scorer.score import score

        text, refs = self.poems[name]
        value = self[name] = score({"parts": [{"text": text}]}, refs).reward
        return value
