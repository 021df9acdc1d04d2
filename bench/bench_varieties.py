"""The variety detector's confusion tables (scorer/variety.py) on the corpus of bench/data/varieties.

Prints, per script, a table of true variety (rows) against predicted (columns, ``unknown`` last) on
the held-out half (``--dev`` for the development half the marker lists were checked on, ``--all``
for both), then precision and recall of "Derja vs not" (``unknown`` counts as not Derja), and the
time per call. Figures only, no assertion (tests/test_variety.py holds the floors).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

from scorer.arabic import normalize_arabic
from scorer.variety import DERJA, UNKNOWN, VARIETIES, Variety, detect

CORPUS = Path(__file__).resolve().parent / "data" / "varieties"
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "samples" / "malzuma.txt"
SAMPLE_LATIN = ROOT / "data" / "samples" / "arabizi" / "malzuma.txt"
_WORD = re.compile(r"[^\W_]+")
HALF = 30
"""The first HALF texts of each file are the development half, the rest the held-out half."""


def texts(script: str, variety: str, split: str = "heldout") -> list[str]:
    """The corpus texts of one variety: ``dev``, ``heldout`` or ``all``."""
    blocks = [b.strip() for b in (CORPUS / script / f"{variety}.txt").read_text("utf-8").split("\n\n")]
    blocks = [b for b in blocks if b]
    return {"dev": blocks[:HALF], "heldout": blocks[HALF:], "all": blocks}[split]


def words(text: str) -> list[str]:
    """A text's words as the scorer reads a poem's (normalised, ``[^\\W_]+`` runs), every line
    kept: ``parse_poem`` would drop a short first line as a title."""
    return _WORD.findall(normalize_arabic(text))


def classify(text: str, script: str) -> Variety:
    return detect(words(text), script, text)


def confusion(script: str, split: str = "heldout") -> dict[str, dict[str, int]]:
    """{true variety: {predicted: count}} over the corpus of one script."""
    cols = (*VARIETIES[script], UNKNOWN)
    table = {}
    for true in VARIETIES[script]:
        row = dict.fromkeys(cols, 0)
        for t in texts(script, true, split):
            row[classify(t, script).variety] += 1
        table[true] = row
    return table


def derja_scores(table: dict[str, dict[str, int]]) -> tuple[float, float, float]:
    """(precision, recall, rejection) of "Derja vs not": rejection is the share of non-Derja texts
    not called Derja."""
    tp = table[DERJA][DERJA]
    fn = sum(table[DERJA].values()) - tp
    fp = sum(row[DERJA] for v, row in table.items() if v != DERJA)
    neg = sum(sum(row.values()) for v, row in table.items() if v != DERJA)
    precision = tp / (tp + fp) if tp + fp else 1.0
    return precision, tp / (tp + fn), (neg - fp) / neg


def render(script: str, table: dict[str, dict[str, int]]) -> str:
    cols = list(next(iter(table.values())))
    short = {c: c[:5] for c in cols}
    lines = [f"{script:10}" + "".join(f"{short[c]:>7}" for c in cols) + "   acc"]
    for true, row in table.items():
        acc = row[true] / sum(row.values())
        lines.append(f"{true:10}" + "".join(f"{row[c]:>7}" for c in cols) + f"  {acc:4.2f}")
    p, r, rej = derja_scores(table)
    lines.append(f"Derja vs not: precision {p:.3f}  recall {r:.3f}  non-Derja rejected {rej:.3f}")
    return "\n".join(lines)


def per_call(rounds: int = 2000) -> dict[str, float]:
    """Microseconds per detect() on the words of the 27-line malzuma sample, each script."""
    out = {}
    for script, path in (("arabic", SAMPLE), ("arabizi", SAMPLE_LATIN)):
        ws = words(path.read_text("utf-8"))
        detect(ws, script)
        t0 = time.perf_counter()
        for _ in range(rounds):
            detect(ws, script)
        out[f"{script} ({len(ws)} words)"] = (time.perf_counter() - t0) / rounds * 1e6
    return out


def _instructions_run(calls: int, call: str) -> int:
    """Instructions of a process that warms ``call`` up, then runs it ``calls`` times (callgrind's
    ``Collected``), from source."""
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}]\n"
        "from bench.bench_varieties import words, SAMPLE, SAMPLE_LATIN\n"
        "from scorer.variety import detect\nfrom scorer.score import score\n"
        "AR = words(SAMPLE.read_text('utf-8')); LA = words(SAMPLE_LATIN.read_text('utf-8'))\n"
        "TEXT = SAMPLE.read_text('utf-8'); REFS = {'form': 'malzuma', 'script': 'arabic'}\n"
        f"for _ in range(50): {call}\nfor _ in range({calls}): {call}\n"
    )
    if str(ROOT / "bench") not in sys.path:  # imported as bench.bench_varieties by the tests
        sys.path.insert(0, str(ROOT / "bench"))
    from callgrind import instructions

    return instructions(code, {"PYTHONHASHSEED": "0"})


def report_instructions(calls: int = 300) -> None:
    """Instructions per detect() on the malzuma sample (each script) against one score() of it."""
    if not shutil.which("valgrind"):
        print("instructions: valgrind is not installed")
        return
    base = _instructions_run(0, "pass")
    for label, call in (
        ("score(), Arabic malzuma", "score(TEXT, REFS)"),
        ("detect(), Arabic malzuma words", "detect(AR, 'arabic')"),
        ("detect(), Arabizi malzuma words", "detect(LA, 'arabizi')"),
    ):
        per = (_instructions_run(calls, call) - base) / calls
        print(f"instructions per {label} (callgrind, from source): {per / 1e3:,.1f} k")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--dev", action="store_const", const="dev", dest="split")
    g.add_argument("--all", action="store_const", const="all", dest="split")
    ap.add_argument("--no-instructions", action="store_true", help="skip the callgrind counts")
    args = ap.parse_args()
    split = args.split or "heldout"
    print(f"variety detector, {split} half of bench/data/varieties ({HALF} texts a variety a half)")
    for script in VARIETIES:
        print()
        print(render(script, confusion(script, split)))
    print()
    for name, us in per_call().items():
        print(f"detect() on the malzuma sample, {name}: {us:.1f} µs")
    if not args.no_instructions:
        report_instructions()


if __name__ == "__main__":
    main()
