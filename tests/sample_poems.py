"""The sample poems of ``data/samples`` as the tests that ask for a refrain read them: the corpus's
samples (``tests/corpus.py``), with ``refrain: yes`` where their form has a refrain."""

from __future__ import annotations

from corpus import samples

from scorer.catalogue import FORMS


def sample_poems() -> list[tuple[str, str, dict[str, str]]]:
    """(name, text, references) of every sample poem, Arabic script first, then Arabizi: the
    corpus's samples, named ``sample <script> <form>``, asked with ``refrain: yes`` where the form
    has a refrain (a test of the refrain reads it asked for)."""
    out = []
    for name, text, refs in samples():
        if FORMS[refs["form"]].refrain != "none":
            refs = {**refs, "refrain": "yes"}
        out.append((f"sample {name}", text, refs))
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
